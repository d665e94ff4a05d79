"""``matrixdp synth`` on a small CSV, including every bad-input case (one-line error, exit 1)."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from matrixdp.cli import main


@pytest.fixture()
def table(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(400, 6))
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])
    frame["score"] = X[:, :2].mean(axis=1)  # in [0, 1]
    frame["label"] = np.where(X[:, 0] > 0.5, "hi", "lo")
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


def run(args, capsys):
    code = main(["synth", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, *fragments):
    assert code == 1
    assert "Traceback" not in err
    lines = [line for line in err.strip().splitlines() if line]
    assert len(lines) == 1, err
    for fragment in fragments:
        assert fragment in lines[0]


def test_unsupervised_writes_csv_and_prints_guarantee(table, tmp_path, capsys):
    out_path = tmp_path / "syn.csv"
    frame = pd.read_csv(table).drop(columns=["label"])
    frame.to_csv(table, index=False)
    code, out, err = run([table, "--epsilon", 1, "--dim", 3, "--n", 250, "--out", out_path,
                          "--seed", 1], capsys)
    assert code == 0, err
    syn = pd.read_csv(out_path)
    assert syn.shape == (250, 3) and list(syn.columns) == ["z1", "z2", "z3"]
    assert "guarantee: pure (epsilon=1, delta=0)-DP [replace-one" in out
    assert "epsilon_mean=0.5" in out


def test_regression_with_public_range_and_reconstruct(table, tmp_path, capsys):
    out_path = tmp_path / "syn.csv"
    frame = pd.read_csv(table).drop(columns=["label"])
    frame.to_csv(table, index=False)
    code, out, err = run([table, "--epsilon", 2, "--dim", 2, "--task", "regression", "--target",
                          "score", "--label-bound", "0,1", "--n", 100, "--out", out_path,
                          "--reconstruct", "--seed", 2], capsys)
    assert code == 0, err
    syn = pd.read_csv(out_path)
    assert list(syn.columns) == [f"f{j}" for j in range(6)] + ["score"]
    assert "labels bounded by the public range [0, 1]" in out


def test_regression_labels_keep_their_dp_mean(tmp_path, capsys):
    """The default --label-mean dp centres synthetic labels at a DP mean of the real ones; the
    paper's Algorithm 4 (--label-mean public) centres them at the middle of the public range."""
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(20_000, 4))
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(4)])
    frame["target"] = 20 + 10 * X[:, 0]          # real mean 25, public range [0, 100]
    path = tmp_path / "reg.csv"
    frame.to_csv(path, index=False)
    means = {}
    for mode in ("dp", "public"):
        out_path = tmp_path / f"{mode}.csv"
        code, out, err = run([path, "--epsilon", 2, "--dim", 2, "--task", "regression",
                              "--target", "target", "--label-bound", "0,100", "--label-mean", mode,
                              "--n", 20_000, "--out", out_path, "--seed", 4, "--quiet"], capsys)
        assert code == 0, err
        means[mode] = pd.read_csv(out_path)["target"].mean()
        assert ("its DP mean" in out) == (mode == "dp")
    assert abs(means["dp"] - 25) < 1.5
    assert abs(means["public"] - 50) < 1.5


def test_classification_with_progress_bar(table, tmp_path, capsys, monkeypatch):
    import matrixdp.cli.synth as synth_cli

    monkeypatch.setattr(synth_cli, "CHUNK", 100)
    monkeypatch.setenv("MATRIXDP_PROGRESS", "always")  # stderr is not a terminal under pytest
    out_path = tmp_path / "syn.csv"
    code, out, err = run([table, "--epsilon", 1, "--dim", 3, "--task", "classification",
                          "--target", "label", "--classes", "lo,hi", "--n", 450, "--out",
                          out_path, "--seed", 3, "--class-weights", "uniform"], capsys)
    assert code == 0, err
    syn = pd.read_csv(out_path)
    assert syn.shape == (450, 4)
    assert set(syn["label"]) == {"lo", "hi"}
    assert sorted(syn["label"].value_counts().tolist()) == [225, 225]
    # the progress bar on stderr counts rows, not chunks (issue #25)
    assert "sampling" in err and "450/450" in err and "rows/s" in err
    assert "class sizes PRIVATE" in out


def test_add_remove_classification(table, tmp_path, capsys):
    code, out, err = run([table, "--epsilon", 1, "--dim", 2, "--task", "classification", "--target",
                          "label", "--classes", "lo,hi", "--neighbouring", "add-remove",
                          "--epsilon-counts", 0.1, "--class-weights", "dp", "--out",
                          tmp_path / "o.csv", "--seed", 4], capsys)
    assert code == 0, err
    assert "[add-remove;" in out and "epsilon_counts=0.1" in out


def test_same_seed_same_output(table, tmp_path, capsys):
    outs = []
    for name in ("a.csv", "b.csv"):
        code, _, _ = run([table, "--epsilon", 1, "--dim", 2, "--task", "classification", "--target",
                          "label", "--classes", "lo,hi", "--out", tmp_path / name, "--seed", 5], capsys)
        assert code == 0
        outs.append((tmp_path / name).read_text())
    assert outs[0] == outs[1]


# ------------------------------------------------------------ bad input
def test_missing_file(tmp_path, capsys):
    code, _, err = run([tmp_path / "nope.csv", "--epsilon", 1, "--dim", 2, "--out",
                        tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "not found", "nope.csv")


def test_missing_target_column(table, tmp_path, capsys):
    code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--task", "regression", "--target",
                        "price", "--label-bound", 1, "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "--target", "'price' not found")


def test_target_required_for_supervised_tasks(table, tmp_path, capsys):
    code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--task", "regression",
                        "--label-bound", 1, "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "--target")


def test_non_numeric_feature_column(table, tmp_path, capsys):
    # unsupervised on the table with the string column 'label' among the features
    code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "non-numeric", "'label'", "one-hot")


def test_dim_not_below_number_of_features(table, tmp_path, capsys):
    frame = pd.read_csv(table).drop(columns=["label"])
    frame.to_csv(table, index=False)
    code, _, err = run([table, "--epsilon", 1, "--dim", 6, "--task", "regression", "--target",
                        "score", "--label-bound", 1, "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "dim", "< n_features = 6")


def test_label_outside_the_bound(table, tmp_path, capsys):
    frame = pd.read_csv(table).drop(columns=["label"])
    frame.to_csv(table, index=False)
    code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--task", "regression", "--target",
                        "score", "--label-bound", 0.3, "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "outside the public label bound [-0.3, 0.3]")
    code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--task", "regression", "--target",
                        "score", "--label-bound", 0.3, "--clip-labels", "--out",
                        tmp_path / "o.csv"], capsys)
    assert code == 0, err


def test_label_not_in_public_classes_and_classes_required(table, tmp_path, capsys):
    code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--task", "classification", "--target",
                        "label", "--classes", "lo", "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "not in the public class list")
    code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--task", "classification", "--target",
                        "label", "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "--classes")


def test_bad_epsilon_and_label_bound(table, tmp_path, capsys):
    frame = pd.read_csv(table).drop(columns=["label"])
    frame.to_csv(table, index=False)
    code, _, err = run([table, "--epsilon", 0, "--dim", 2, "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "epsilon")
    code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--task", "regression", "--target",
                        "score", "--label-bound", "a,b", "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "--label-bound")


def test_console_script_exit_status(table, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "matrixdp", "synth", str(tmp_path / "missing.csv"),
                           "--epsilon", "1", "--dim", "2", "--out", str(tmp_path / "o.csv")],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "not found" in proc.stderr


def test_missing_values_and_empty_file(tmp_path, capsys):
    path = tmp_path / "nan.csv"
    path.write_text("a,b,c\n1,2,3\n4,,6\n7,8,9\n")
    code, _, err = run([path, "--epsilon", 1, "--dim", 2, "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "NaN")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    code, _, err = run([empty, "--epsilon", 1, "--dim", 2, "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "cannot read")


def test_regression_on_a_non_numeric_target_and_bad_n(table, tmp_path, capsys):
    code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--task", "regression", "--target",
                        "label", "--label-bound", 1, "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "--target", "numeric")
    frame = pd.read_csv(table).drop(columns=["label"])
    frame.to_csv(table, index=False)
    code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--n", 0, "--out", tmp_path / "o.csv"],
                       capsys)
    assert_one_line_error(code, err, "--n")
    assert not (tmp_path / "o.csv").exists()



def test_synth_spends_through_a_ledger_and_refuses_when_over_budget(table, tmp_path, capsys):
    pd.read_csv(table).drop(columns=["label"]).to_csv(table, index=False)
    ledger = tmp_path / "data.db"
    assert main(["budget", "init", str(ledger), "--epsilon", "1.5"]) == 0
    args = [table, "--epsilon", 1.0, "--dim", 3, "--out", tmp_path / "syn.csv", "--seed", 1,
            "--ledger", ledger]
    code, out, err = run(args, capsys)
    assert code == 0, err
    assert f"ledger {ledger}: spent epsilon=1 " in out
    code, _, err = run([*args[:-4], "--out", tmp_path / "syn2.csv", "--ledger", ledger], capsys)
    assert code == 1 and "budget" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "syn2.csv").exists()


# ------------------------------------------------------------ careless use
def test_output_that_is_the_input_is_refused(table, tmp_path, capsys):
    before = table.read_text()
    for target in (table, tmp_path / "." / table.name):
        code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--task", "classification",
                            "--target", "label", "--classes", "lo,hi", "--out", target, "--force"],
                           capsys)
        assert_one_line_error(code, err, "--out", "is the input file")
    assert table.read_text() == before


def test_existing_output_needs_force(table, tmp_path, capsys):
    out_path = tmp_path / "o.csv"
    out_path.write_text("keep me\n")
    args = [table, "--epsilon", 1, "--dim", 2, "--task", "classification", "--target", "label",
            "--classes", "lo,hi", "--out", out_path, "--seed", 1]
    code, _, err = run(args, capsys)
    assert_one_line_error(code, err, "--out", "already exists", "--force")
    assert out_path.read_text() == "keep me\n"
    code, _, err = run(args + ["--force"], capsys)
    assert code == 0, err
    assert pd.read_csv(out_path).shape == (400, 3)


def test_output_path_errors_name_out(table, tmp_path, capsys):
    base = [table, "--epsilon", 1, "--dim", 2, "--task", "classification", "--target", "label",
            "--classes", "lo,hi", "--out"]
    code, _, err = run(base + [tmp_path / "no" / "such" / "o.csv"], capsys)
    assert_one_line_error(code, err, "--out", "does not exist")
    code, _, err = run(base + [tmp_path], capsys)
    assert_one_line_error(code, err, "--out", "is a directory")


def test_directory_input_says_so(tmp_path, capsys):
    code, _, err = run([tmp_path, "--epsilon", 1, "--dim", 2, "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "INPUT", "is a directory")


def test_target_without_task_is_an_error(table, tmp_path, capsys):
    code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--target", "score", "--out",
                        tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "--target", "--task regression")
    assert not (tmp_path / "o.csv").exists()


def test_headerless_csv_is_flagged(tmp_path, capsys):
    path = tmp_path / "raw.csv"
    np.savetxt(path, np.random.default_rng(0).uniform(size=(50, 4)), delimiter=",")
    code, _, err = run([path, "--epsilon", 1, "--dim", 2, "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "looks like data, not a header")


def test_summary_states_class_weighting_and_scale(table, tmp_path, capsys):
    code, out, err = run([table, "--epsilon", 1, "--dim", 3, "--task", "classification",
                          "--target", "label", "--classes", "lo,hi", "--reconstruct",
                          "--class-weights", "uniform", "--out", tmp_path / "o.csv", "--seed", 3],
                         capsys)
    assert code == 0, err
    assert "records per class are EQUAL" in out and "(--class-weights uniform)" in out
    assert "NORMALISED scale" in out and "not in the input's units" in out
    code, out, err = run([table, "--epsilon", 1, "--dim", 3, "--task", "classification",
                          "--target", "label", "--classes", "lo,hi", "--out", tmp_path / "p.csv",
                          "--seed", 3], capsys)
    assert code == 0, err
    assert "follow the DP class counts (--class-weights auto)" in out and "EQUAL" not in out
    code, out, err = run([table, "--epsilon", 1, "--dim", 3, "--task", "classification",
                          "--target", "label", "--classes", "lo,hi", "--class-sizes", "public",
                          "--out", tmp_path / "q.csv", "--seed", 3], capsys)
    assert code == 0, err
    assert "follow the true class sizes (--class-weights auto)" in out


def test_noise_dominated_covariance_is_reported(table, tmp_path, capsys):
    frame = pd.read_csv(table).drop(columns=["label", "score"]).iloc[:40]
    frame.to_csv(table, index=False)
    code, out, err = run([table, "--epsilon", 0.05, "--dim", 5, "--out", tmp_path / "o.csv",
                          "--seed", 0], capsys)
    assert code == 0, err
    assert "warning:" in err and "of 5 directions survived" in err and "noise dominated" in err


def test_large_n_is_streamed_in_chunks(table, tmp_path, capsys, monkeypatch):
    """Memory stays constant in --n: the model is never asked for more than CHUNK records."""
    import matrixdp.cli.synth as synth_cli
    from matrixdp.synth import RONGauss

    monkeypatch.setattr(synth_cli, "CHUNK", 64)
    sizes = []
    original = RONGauss.sample

    def spy(self, n_samples, *args, **kwargs):
        sizes.append(n_samples)
        return original(self, n_samples, *args, **kwargs)

    monkeypatch.setattr(RONGauss, "sample", spy)
    out_path = tmp_path / "o.csv"
    code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--task", "classification", "--target",
                        "label", "--classes", "lo,hi", "--n", 1000, "--out", out_path, "--seed", 1,
                        "--quiet"], capsys)
    assert code == 0, err
    assert max(sizes) == 64 and sum(sizes) == 1000 and len(sizes) == 16
    syn = pd.read_csv(out_path)
    assert syn.shape == (1000, 3) and list(syn.columns) == ["z1", "z2", "label"]
    assert not (tmp_path / "o.csv.part").exists()
    assert err == ""  # --quiet: no bar


def test_no_progress_bar_off_a_terminal(table, tmp_path, capsys, monkeypatch):
    import matrixdp.cli.synth as synth_cli

    monkeypatch.setattr(synth_cli, "CHUNK", 100)
    monkeypatch.delenv("MATRIXDP_PROGRESS", raising=False)
    code, _, err = run([table, "--epsilon", 1, "--dim", 2, "--task", "classification", "--target",
                        "label", "--classes", "lo,hi", "--n", 450, "--out", tmp_path / "o.csv",
                        "--seed", 3], capsys)
    assert code == 0
    assert "sampling" not in err


def test_default_priors_follow_the_dp_counts_or_the_public_sizes(table, tmp_path, capsys):
    code, out, err = run([table, "--epsilon", 1, "--dim", 3, "--task", "classification",
                          "--target", "label", "--classes", "lo,hi", "--out", tmp_path / "o.csv",
                          "--seed", 3], capsys)
    assert code == 0, err
    assert "follow the DP class counts (--class-weights auto)" in out
    code, out, err = run([table, "--epsilon", 1, "--dim", 3, "--task", "classification",
                          "--target", "label", "--classes", "lo,hi", "--class-sizes", "public",
                          "--out", tmp_path / "p.csv", "--seed", 3], capsys)
    assert code == 0, err
    assert "follow the true class sizes (--class-weights auto)" in out


def test_add_remove_prints_no_record_count(table, tmp_path, capsys):
    frame = pd.read_csv(table).drop(columns=["label", "score"])
    frame.to_csv(table, index=False)
    n = len(frame)
    code, out, err = run([table, "--epsilon", 1, "--dim", 2, "--neighbouring", "add-remove",
                          "--out", tmp_path / "o.csv", "--seed", 4], capsys)
    assert code == 0, err
    assert f"{n} records" not in out and f"wrote {n} " not in out
    assert "their number is private under add/remove" in out


# ----------------------------------------------------------------------------- DPCopula (issue #25)
BOUNDS = """target = "smoker"
[columns]
age = { lo = 18, hi = 90, integer = true }
bmi = { lo = 15, hi = 45 }
sex = { categories = ["F", "M"] }
charges = { lo = 0, hi = 60000 }
smoker = { categories = ["yes", "no"] }
"""


@pytest.fixture()
def mixed(tmp_path):
    rng = np.random.default_rng(1)
    n = 2000
    age = rng.integers(18, 90, n)
    frame = pd.DataFrame({
        "age": age, "bmi": np.round(rng.normal(27, 4, n), 1), "sex": rng.choice(["F", "M"], n),
        "charges": np.round(1000 + 300 * age + rng.gamma(2, 3000, n), 2),
        "smoker": rng.choice(["yes", "no"], n, p=[0.2, 0.8]),
        "notes": "private free text that is not in the schema"})
    path = tmp_path / "mixed.csv"
    frame.to_csv(path, index=False)
    bounds = tmp_path / "bounds.toml"
    bounds.write_text(BOUNDS)
    return path, bounds


def test_copula_is_the_default_and_keeps_columns_units_and_categories(mixed, tmp_path, capsys):
    path, bounds = mixed
    out = tmp_path / "syn.csv"
    code, stdout, err = run([path, "--bounds", bounds, "--epsilon", 2, "--out", out, "--seed", 3,
                             "--n", 1500], capsys)
    assert code == 0, err
    syn = pd.read_csv(out)
    assert list(syn.columns) == ["age", "bmi", "sex", "charges", "smoker"]  # schema order
    assert syn.shape == (1500, 5)
    assert pd.api.types.is_integer_dtype(syn["age"]) and syn["age"].between(18, 90).all()
    assert pd.api.types.is_float_dtype(syn["bmi"]) and syn["bmi"].between(15, 45).all()
    assert syn["charges"].between(0, 60000).all()
    assert set(syn["sex"]) == {"F", "M"} and set(syn["smoker"]) == {"yes", "no"}
    # the units are the input's: the synthetic mean age is near the real one (not normalised)
    assert abs(syn["age"].mean() - pd.read_csv(path)["age"].mean()) < 6
    assert "DPCopula" in stdout and "guarantee: (epsilon=2, delta=1e-09)-DP [add-remove" in stdout
    assert "writing 1,500 rows" in err


def test_copula_charges_the_ledger_the_requested_epsilon_under_replace_one(mixed, tmp_path,
                                                                           capsys):
    from matrixdp.accounting import Ledger

    path, bounds = mixed
    db = tmp_path / "l.db"
    Ledger.create(db, dataset="mixed", epsilon=1.05, delta=1e-6).close()
    args = [path, "--bounds", bounds, "--epsilon", 1, "--out", tmp_path / "a.csv", "--ledger", db,
            "--seed", 1, "--report", tmp_path / "r.html"]
    code, stdout, err = run(args, capsys)
    assert code == 0, err
    ledger = Ledger.open(db)
    (entry,) = ledger.history()
    # the requested epsilon, recorded as such (the copula is fitted at mu/2 under add/remove)
    assert entry["epsilon"] == pytest.approx(1.0) and entry["status"] == "released"
    ledger.close()
    html = (tmp_path / "r.html").read_text()
    assert "What the guarantee means" in html and "replaced by another" in html
    assert "synth copula of mixed.csv" in html
    # a second run would overspend: refused before any noise, nothing written
    args[args.index("--out") + 1] = tmp_path / "b.csv"
    args[-1] = tmp_path / "r2.html"
    code, _, err = run(args, capsys)
    assert_one_line_error(code, err, "budget")
    assert not (tmp_path / "b.csv").exists()


def test_copula_dp_bounds_column_is_charged_as_its_own_entry(mixed, tmp_path, capsys):
    from matrixdp.accounting import Ledger

    path, bounds = mixed
    bounds.write_text(BOUNDS.replace("charges = { lo = 0, hi = 60000 }",
                                     "charges = { dp = true, lo = 0, hi = 1000000 }"))
    db = tmp_path / "l.db"
    Ledger.create(db, dataset="mixed", epsilon=5, delta=1e-6).close()
    code, stdout, err = run([path, "--bounds", bounds, "--epsilon", 2, "--out", tmp_path / "s.csv",
                             "--ledger", db, "--seed", 2], capsys)
    assert code == 0, err
    ledger = Ledger.open(db)
    hist = ledger.history()
    ledger.close()
    assert [h["epsilon"] for h in hist] == pytest.approx([0.2, 1.8])
    assert hist[0]["delta"] == 0.0 and "bounds" in hist[0]["label"]
    assert "DP bounds (10% of --epsilon)" in stdout
    syn = pd.read_csv(tmp_path / "s.csv")
    lo, hi = [float(v) for v in stdout.split("  - charges: [")[1].split("]")[0].split(",")]
    assert 0 <= lo < hi <= 1e6 and syn["charges"].between(lo, hi).all()
    # the estimate is not the data's min/max (which would leak): a coarse grid point
    real = pd.read_csv(path)["charges"]
    assert lo != real.min() and hi != real.max()


def test_copula_needs_bounds_and_refuses_ron_gauss_options(mixed, tmp_path, capsys):
    path, bounds = mixed
    code, _, err = run([path, "--epsilon", 1, "--out", tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "--bounds", "is required")
    code, _, err = run([path, "--bounds", bounds, "--epsilon", 1, "--out", tmp_path / "o.csv",
                        "--reconstruct"], capsys)
    assert_one_line_error(code, err, "--reconstruct", "ron-gauss")
    code, _, err = run([path, "--model", "ron-gauss", "--epsilon", 1, "--out",
                        tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "--dim")


def test_tree_copula_writes_the_library_models_table_in_the_inputs_units(mixed, tmp_path, capsys):
    """``--model tree-copula`` runs DPTreeCopula itself: the CSV is the seeded library fit's sample
    (same ε under add/remove, same seeds), in the input's columns, units and categories."""
    from matrixdp.synth import DPTreeCopula, TableSchema

    path, bounds = mixed
    out = tmp_path / "tree.csv"
    code, stdout, err = run([path, "--bounds", bounds, "--model", "tree-copula", "--epsilon", 2,
                             "--out", out, "--seed", 3, "--n", 1500], capsys)
    assert code == 0, err
    syn = pd.read_csv(out)
    assert list(syn.columns) == ["age", "bmi", "sex", "charges", "smoker"]
    assert pd.api.types.is_integer_dtype(syn["age"]) and syn["age"].between(18, 90).all()
    assert syn["bmi"].between(15, 45).all() and syn["charges"].between(0, 60000).all()
    assert set(syn["sex"]) == {"F", "M"} and set(syn["smoker"]) == {"yes", "no"}
    assert "DPTreeCopula on 5 columns" in stdout
    assert "guarantee: (epsilon=2, delta=1e-09)-DP [add-remove" in stdout
    # the same table as the library's own seeded fit + sample (post-processing of one release)
    real = pd.read_csv(path)
    schema = TableSchema(bounds={"age": (18, 90), "bmi": (15, 45), "charges": (0, 60000)},
                         categories={"sex": ["F", "M"]}, integer=("age",))
    model = DPTreeCopula(schema=schema, epsilon=2.0, delta=1e-9, classes=["yes", "no"],
                         random_state=3).fit(real[["age", "bmi", "sex", "charges"]], real["smoker"])
    X, y = model.sample(1500, random_state=np.random.default_rng([3, 1]))
    np.testing.assert_array_equal(syn["age"].to_numpy(), X["age"].to_numpy())
    np.testing.assert_allclose(syn["charges"].to_numpy(), X["charges"].to_numpy(), rtol=1e-12)
    assert (syn["sex"].to_numpy() == X["sex"].astype(str).to_numpy()).all()
    assert (syn["smoker"].to_numpy() == np.asarray(y).astype(str)).all()
    # and not DPCopula's table
    code, _, err = run([path, "--bounds", bounds, "--epsilon", 2, "--out", tmp_path / "cop.csv",
                        "--seed", 3, "--n", 1500], capsys)
    assert code == 0, err
    assert not pd.read_csv(tmp_path / "cop.csv").equals(syn)


def test_tree_copula_charges_the_ledger_and_its_report_names_the_model(mixed, tmp_path, capsys):
    from matrixdp.accounting import Ledger

    path, bounds = mixed
    db = tmp_path / "l.db"
    Ledger.create(db, dataset="mixed", epsilon=1.05, delta=1e-6).close()
    args = [path, "--bounds", bounds, "--model", "tree-copula", "--epsilon", 1, "--out",
            tmp_path / "a.csv", "--ledger", db, "--seed", 1, "--report", tmp_path / "r.html"]
    code, stdout, err = run(args, capsys)
    assert code == 0, err
    ledger = Ledger.open(db)
    (entry,) = ledger.history()
    # replace-one ledger: the requested epsilon (fitted at mu/2 under add/remove, group privacy)
    assert entry["epsilon"] == pytest.approx(1.0) and entry["status"] == "released"
    assert entry["label"] == "synth tree-copula of mixed.csv"
    ledger.close()
    html = (tmp_path / "r.html").read_text()
    assert "DPTreeCopula" in html and "replaced by another" in html
    args[args.index("--out") + 1] = tmp_path / "b.csv"
    args[-1] = tmp_path / "r2.html"
    code, _, err = run(args, capsys)
    assert_one_line_error(code, err, "budget")
    assert not (tmp_path / "b.csv").exists()


def test_tree_copula_needs_bounds_and_refuses_ron_gauss_options(mixed, tmp_path, capsys):
    path, bounds = mixed
    code, _, err = run([path, "--model", "tree-copula", "--epsilon", 1, "--out",
                        tmp_path / "o.csv"], capsys)
    assert_one_line_error(code, err, "--bounds", "--model tree-copula")
    code, _, err = run([path, "--model", "tree-copula", "--bounds", bounds, "--epsilon", 1,
                        "--out", tmp_path / "o.csv", "--dim", 2], capsys)
    assert_one_line_error(code, err, "--dim", "ron-gauss")


def test_semicolon_file_gets_a_delimiter_hint_and_sep_reads_it(mixed, tmp_path, capsys):
    path, bounds = mixed
    semi = tmp_path / "semi.csv"
    pd.read_csv(path).to_csv(semi, index=False, sep=";")
    code, _, err = run([semi, "--bounds", bounds, "--epsilon", 1, "--out", tmp_path / "o.csv"],
                       capsys)
    assert_one_line_error(code, err, "looks ';'-separated", "--sep ';'")
    code, _, err = run([semi, "--bounds", bounds, "--epsilon", 1, "--out", tmp_path / "o.csv",
                        "--sep", ";", "--n", 50], capsys)
    assert code == 0, err
    assert pd.read_csv(tmp_path / "o.csv", sep=";").shape == (50, 5)
    code, _, err = run([semi, "--bounds", bounds, "--epsilon", 1, "--out", tmp_path / "o2.csv",
                        "--sep", ";;"], capsys)
    assert_one_line_error(code, err, "--sep", "one character")


def test_huge_n_is_refused_up_front_with_a_size_estimate(mixed, tmp_path, capsys):
    path, bounds = mixed
    out = tmp_path / "big.csv"
    code, _, err = run([path, "--bounds", bounds, "--epsilon", 1, "--out", out,
                        "--n", 100_000_000_000], capsys)
    assert_one_line_error(code, err, "--n", "TB", "free")
    assert not out.exists() and not (tmp_path / "big.csv.part").exists()
    numeric = tmp_path / "numeric.csv"
    pd.read_csv(path)[["age", "bmi", "charges"]].to_csv(numeric, index=False)
    code, _, err = run([numeric, "--epsilon", 1, "--dim", 2, "--out", out,
                        "--n", 100_000_000_000], capsys)  # RON-Gauss too
    assert_one_line_error(code, err, "--n", "TB", "free")
    assert not out.exists()


def test_row_bytes_estimate_is_an_upper_bound_of_the_written_csv(mixed, tmp_path, capsys):
    from matrixdp.cli.synth import row_bytes

    path, bounds = mixed
    out = tmp_path / "s.csv"
    code, _, err = run([path, "--bounds", bounds, "--epsilon", 1, "--out", out, "--n", 3000],
                       capsys)
    assert code == 0, err
    est = 3000 * row_bytes([("int", (18, 90)), ("float", None), ("cat", ["F", "M"]),
                            ("float", None), ("cat", ["yes", "no"])])
    size = out.stat().st_size
    assert size <= est < 4 * size


def test_bad_option_values_are_one_line(capsys):
    for argv in (["synth", "x.csv", "--epsilon", "abc", "--out", "o.csv"],
                 ["synth", "x.csv", "--epsilon", "1", "--n", "many", "--out", "o.csv"],
                 ["release", "x.csv", "--epsilon", "abc"],
                 ["synth", "x.csv", "--epsilon", "1", "--model", "gan", "--out", "o.csv"],
                 ["synth", "x.csv", "--epsilon", "1", "--seed", "-1", "--out", "o.csv"],
                 ["release", "x.csv", "--seed", "1.5"], ["audit", "--seed", "x"],
                 ["demo", "--epsilon", "abc"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        err = capsys.readouterr().err
        assert info.value.code == 2
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and "usage" not in err and "--help" in lines[0], err


def test_log_progress_prints_a_line_every_interval_off_a_terminal():
    import io

    from matrixdp.cli._rows import RowProgress

    ticks = iter([0.0, 1.0, 6.0, 7.0, 12.5])
    stream = io.StringIO()
    bar = RowProgress(1000, "matrixdp synth: sampling", stream=stream, interval=5,
                      clock=lambda: next(ticks))
    for _ in range(4):
        bar.update(250)
    bar.close()
    lines = stream.getvalue().splitlines()
    assert lines == ["matrixdp synth: sampling: 500 of 1,000 rows (50.0%)",
                     "matrixdp synth: sampling: 1,000 of 1,000 rows (100.0%)"]
    quiet = io.StringIO()
    RowProgress(10, "x", quiet=True, stream=quiet, interval=0).update(10)
    assert quiet.getvalue() == ""


def test_ron_gauss_writes_a_report_too(table, tmp_path, capsys):
    frame = pd.read_csv(table).drop(columns=["label"])
    frame.to_csv(table, index=False)
    code, out, err = run([table, "--model", "ron-gauss", "--epsilon", 1, "--dim", 2, "--n", 50,
                          "--out", tmp_path / "s.csv", "--report", tmp_path / "r.html"], capsys)
    assert code == 0, err
    html = (tmp_path / "r.html").read_text()
    assert "RON-Gauss" in html and "What the guarantee means" in html and "z1" in html


def test_ron_gauss_reads_and_writes_with_sep_tab(table, tmp_path, capsys):
    tsv = tmp_path / "d.tsv"
    pd.read_csv(table).drop(columns=["label"]).to_csv(tsv, index=False, sep="\t")
    out = tmp_path / "s.tsv"
    code, _, err = run([tsv, "--sep", "tab", "--epsilon", 1, "--dim", 2, "--n", 20, "--out", out],
                       capsys)
    assert code == 0, err
    assert pd.read_csv(out, sep="\t").shape == (20, 2)


@pytest.mark.parametrize("model", ["copula", "tree-copula"])
def test_string_categories_match_codes_that_look_like_numbers(tmp_path, capsys, model):
    # issue #26 (synth outside audit): a bounds file listing codes as strings ("0", "1", "07")
    # was refused because the CSV reader parsed the column as numbers; such a column is now
    # read as text, and the output keeps the codes as written (leading zeros included)
    rng = np.random.default_rng(4)
    n = 600
    x = rng.normal(50, 10, n)
    frame = pd.DataFrame({"x": x, "b": np.where(x > 50, "1", "0"),
                          "zip": rng.choice(["07", "10", "99"], n)})
    path = tmp_path / "codes.csv"
    frame.to_csv(path, index=False)
    bounds = tmp_path / "b.toml"
    bounds.write_text('[columns]\nx = { lo = 0, hi = 100 }\nb = { categories = ["0", "1"] }\n'
                      'zip = { categories = ["07", "10", "99"] }\n')
    out = tmp_path / "syn.csv"
    code, _, err = run([path, "--model", model, "--bounds", bounds, "--epsilon", 3, "--seed", 2,
                        "--out", out, "--quiet"], capsys)
    assert code == 0, err
    syn = pd.read_csv(out, dtype=str)
    assert set(syn["b"]) == {"0", "1"}
    assert set(syn["zip"]) == {"07", "10", "99"}


@pytest.mark.parametrize("model", ["copula", "tree-copula"])
def test_table_models_refuse_a_ledger_of_another_dataset(mixed, tmp_path, capsys, model):
    # issue #26 (synth outside audit): --model copula/tree-copula opened --ledger without the
    # dataset check of every other spending command (ron-gauss included), so a ledger created
    # for another dataset was charged; now refused in one line, before anything is spent
    from matrixdp.accounting import Ledger

    path, bounds = mixed
    db = tmp_path / "other.db"
    assert main(["budget", "init", str(db), "--epsilon", "5", "--delta", "1e-6",
                 "--dataset", "other"]) == 0
    capsys.readouterr()
    out = tmp_path / "s.csv"
    code, _, err = run([path, "--model", model, "--bounds", bounds, "--epsilon", 1, "--out", out,
                        "--ledger", db, "--quiet"], capsys)
    assert_one_line_error(code, err, "other")
    assert not out.exists()
    with Ledger.open(db) as led:
        assert led.history() == []
    # naming the dataset explicitly is the documented way to use it
    code, _, err = run([path, "--model", model, "--bounds", bounds, "--epsilon", 1, "--out", out,
                        "--ledger", db, "--dataset", "other", "--quiet"], capsys)
    assert code == 0, err


@pytest.mark.parametrize("model", ["copula", "tree-copula"])
def test_a_public_constant_column_is_written_as_its_value_and_not_modelled(mixed, tmp_path,
                                                                          capsys, model):
    """lo == hi in the bounds (a public constant): every synthetic record gets the value (public,
    no budget), the other columns are modelled exactly as without it (same seed, same rows)."""
    path, bounds = mixed
    frame = pd.read_csv(path)
    frame["site"] = 7
    with_const = tmp_path / "with_site.csv"
    frame.to_csv(with_const, index=False)
    bounds_const = tmp_path / "bounds_site.toml"
    bounds_const.write_text(BOUNDS + "site = { lo = 7, hi = 7, integer = true }\n")
    out, ref = tmp_path / "syn.csv", tmp_path / "ref.csv"
    code, _, err = run([with_const, "--bounds", bounds_const, "--model", model, "--epsilon", 2,
                        "--out", out, "--seed", 3, "--n", 400], capsys)
    assert code == 0, err
    code, _, err = run([path, "--bounds", bounds, "--model", model, "--epsilon", 2, "--out", ref,
                        "--seed", 3, "--n", 400], capsys)
    assert code == 0, err
    syn, base = pd.read_csv(out), pd.read_csv(ref)
    assert list(syn.columns) == list(base.columns) + ["site"]
    assert (syn["site"] == 7).all() and pd.api.types.is_integer_dtype(syn["site"])
    pd.testing.assert_frame_equal(syn.drop(columns=["site"]), base)


CODED_BOUNDS = """
target = "y"
[columns]
x = { lo = 0, hi = 100 }
k = { lo = 0, hi = 12, integer = true }
g = { categories = [1, 2, 3, 4, 5] }
d = { categories = [0, 1] }
y = { categories = [0, 1] }
"""


@pytest.fixture()
def coded(tmp_path):
    """0/1 and 1..5 codes as categories (as in survey and econometrics tables), values outside
    the numeric ranges (clipped by the CLI)."""
    rng = np.random.default_rng(7)
    n = 1500
    frame = pd.DataFrame({"x": rng.normal(40, 30, n), "k": rng.integers(0, 15, n),
                          "g": rng.integers(1, 6, n), "d": rng.integers(0, 2, n)})
    frame["y"] = (frame["x"] + 10 * frame["d"] + rng.normal(0, 10, n) > 45).astype(int)
    path = tmp_path / "coded.csv"
    frame.to_csv(path, index=False)
    bounds = tmp_path / "coded.toml"
    bounds.write_text(CODED_BOUNDS)
    return path, bounds


@pytest.mark.parametrize("model", ["copula", "tree-copula"])
def test_coded_categories_stay_codes_and_notes_are_listed_once(coded, tmp_path, capsys, model):
    """Integer codes declared as categories come out as the same codes ("1", not "1.0"); integer
    columns integral; numeric values within the public bounds; the requested row count; every
    note of the guarantee printed and reported once (the numerics note used to appear twice)."""
    import re

    path, bounds = coded
    out, report = tmp_path / "o.csv", tmp_path / "r.html"
    code, stdout, err = run([path, "--bounds", bounds, "--model", model, "--epsilon", 1,
                             "--out", out, "--report", report, "--seed", 4, "--n", 777], capsys)
    assert code == 0, err
    raw = pd.read_csv(out, dtype=str)
    assert list(raw.columns) == ["x", "k", "g", "d", "y"] and len(raw) == 777
    assert set(raw["g"]) <= {"1", "2", "3", "4", "5"} and set(raw["d"]) <= {"0", "1"}
    assert set(raw["y"]) <= {"0", "1"} and raw["y"].nunique() == 2
    assert raw["k"].str.fullmatch(r"\d+").all() and raw["k"].astype(int).between(0, 12).all()
    assert raw["x"].astype(float).between(0, 100).all()
    printed = [ln[4:] for ln in stdout.splitlines() if ln.startswith("  - ")]
    assert printed and len(printed) == len(set(printed))
    assert sum("numerics: float" in ln for ln in printed) == 1
    items = re.findall(r"<li>(.*?)</li>", report.read_text())
    assert items and len(items) == len(set(items))
    assert sum("numerics: float" in it for it in items) == 1


ATOM_BOUNDS = """target = "y"
[columns]
earn = { lo = 0, hi = 100, atoms = [0] }
weeks = { lo = 0, hi = 52, integer = true, atoms = [0, 52] }
sex = { categories = ["F", "M"] }
y = { categories = ["yes", "no"] }
"""


@pytest.fixture()
def zero_inflated(tmp_path):
    rng = np.random.default_rng(3)
    n = 4000
    frame = pd.DataFrame({
        "earn": np.where(rng.uniform(size=n) < 0.6, 0.0, np.round(rng.uniform(1, 100, n), 2)),
        "weeks": np.where(rng.uniform(size=n) < 0.5, 0,
                          np.where(rng.uniform(size=n) < 0.5, 52, rng.integers(1, 52, n))),
        "sex": rng.choice(["F", "M"], n), "y": rng.choice(["yes", "no"], n)})
    path = tmp_path / "z.csv"
    frame.to_csv(path, index=False)
    bounds = tmp_path / "atoms.toml"
    bounds.write_text(ATOM_BOUNDS)
    return path, bounds, frame


def test_copula_with_atoms_keeps_the_point_masses_end_to_end(zero_inflated, tmp_path, capsys):
    path, bounds, frame = zero_inflated
    out = tmp_path / "syn.csv"
    code, stdout, err = run([path, "--bounds", bounds, "--epsilon", 8, "--out", out, "--seed", 3,
                             "--n", 4000, "--report", tmp_path / "r.html"], capsys)
    assert code == 0, err
    syn = pd.read_csv(out)
    # real shares: earn == 0 about 0.60, weeks == 0 about 0.50, weeks == 52 about 0.25;
    # tolerance 0.04 (noise at eps=8 on 4,000 records plus sampling sd ~0.008)
    for col, v in (("earn", 0.0), ("weeks", 0), ("weeks", 52)):
        assert abs(np.mean(syn[col] == v) - np.mean(frame[col] == v)) < 0.04, (col, v)
    assert pd.api.types.is_integer_dtype(syn["weeks"])
    assert "public atoms 0" in (tmp_path / "r.html").read_text()


def test_tree_copula_with_atoms_keeps_the_point_masses_end_to_end(zero_inflated, tmp_path, capsys):
    from matrixdp.accounting import Ledger

    path, bounds, frame = zero_inflated
    db = tmp_path / "l.db"
    Ledger.create(db, dataset="z", epsilon=10.0, delta=1e-6).close()
    out = tmp_path / "t.csv"
    code, stdout, err = run([path, "--bounds", bounds, "--model", "tree-copula", "--epsilon", 8,
                             "--out", out, "--seed", 3, "--n", 4000, "--ledger", db,
                             "--dataset", "z", "--report", tmp_path / "r.html"], capsys)
    assert code == 0, err
    syn = pd.read_csv(out)
    # real shares: earn == 0 about 0.60, weeks == 0 about 0.50, weeks == 52 about 0.25;
    # tolerance 0.04 (noise at eps=8 on 4,000 records plus sampling sd ~0.008; it rejects
    # +-30% of each share, 0.075 or more)
    for col, v in (("earn", 0.0), ("weeks", 0), ("weeks", 52)):
        assert abs(np.mean(syn[col] == v) - np.mean(frame[col] == v)) < 0.04, (col, v)
    assert pd.api.types.is_integer_dtype(syn["weeks"]) and syn["weeks"].between(0, 52).all()
    assert "public atoms 0" in (tmp_path / "r.html").read_text()
    ledger = Ledger.open(db)
    assert [e["status"] for e in ledger.history()] == ["released"]
    ledger.close()


def test_atom_outside_the_range_is_refused_before_any_charge(zero_inflated, tmp_path, capsys):
    from matrixdp.accounting import Ledger

    path, bounds, _ = zero_inflated
    bounds.write_text(ATOM_BOUNDS.replace("atoms = [0]", "atoms = [-1]"))
    db = tmp_path / "l.db"
    Ledger.create(db, dataset="z", epsilon=5.0, delta=1e-6).close()
    code, _, err = run([path, "--bounds", bounds, "--epsilon", 1, "--out", tmp_path / "t.csv",
                        "--ledger", db, "--dataset", "z"], capsys)
    assert_one_line_error(code, err, "'earn'", "is outside its public range")
    ledger = Ledger.open(db)
    assert list(ledger.history()) == []
    ledger.close()


@pytest.mark.parametrize("model", ["copula", "tree-copula"])
def test_string_categories_match_the_same_table_written_as_parquet(tmp_path, capsys, model):
    # task BB: a bounds file listing categories as strings ("0", "1"; "True", "False") was read
    # as text from a CSV but not from a Parquet file, whose int and bool columns then never
    # matched their categories: the same table was refused as Parquet ("values that are not in
    # the public category list"). Both formats now give the same synthetic table.
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(5)
    n = 600
    x = rng.normal(50, 10, n)
    frame = pd.DataFrame({"x": x, "b": (x > 50).astype(int), "flag": rng.random(n) < 0.3})
    csv, parquet = tmp_path / "t.csv", tmp_path / "t.parquet"
    frame.to_csv(csv, index=False)
    frame.to_parquet(parquet, index=False)
    bounds = tmp_path / "b.toml"
    bounds.write_text('[columns]\nx = { lo = 0, hi = 100 }\nb = { categories = ["0", "1"] }\n'
                      'flag = { categories = ["True", "False"] }\n')
    outs = []
    for source in (csv, parquet):
        out = tmp_path / f"syn_{source.suffix[1:]}.csv"
        code, _, err = run([source, "--model", model, "--bounds", bounds, "--epsilon", 2,
                            "--seed", 2, "--n", 300, "--out", out, "--quiet"], capsys)
        assert code == 0, err
        outs.append(pd.read_csv(out, dtype=str))
    pd.testing.assert_frame_equal(outs[0], outs[1])
    assert set(outs[1]["b"]) == {"0", "1"} and set(outs[1]["flag"]) == {"True", "False"}


@pytest.mark.parametrize("model", ["copula", "tree-copula", "ron-gauss"])
def test_data_errors_name_the_input_not_a_python_argument(tmp_path, capsys, model):
    # task BB: a refused value in the input was reported under the Python argument of the fit
    # ("X: column 'b' has missing or non-finite values"), a name the command line does not have;
    # it now names INPUT, as every other message about the file does (audit --synth: --data)
    path = tmp_path / "gap.csv"
    path.write_text("a,b,c\n1,2,3\n4,,6\n7,8,9\n2,3,4\n")
    bounds = tmp_path / "b.toml"
    bounds.write_text("[columns]\na = { lo = 0, hi = 10 }\nb = { lo = 0, hi = 10 }\n"
                      "c = { lo = 0, hi = 10 }\n")
    extra = ["--dim", 2] if model == "ron-gauss" else ["--bounds", bounds]
    code, _, err = run([path, "--model", model, *extra, "--epsilon", 1, "--out",
                        tmp_path / "o.csv", "--quiet"], capsys)
    # the copulas name the column; RON-Gauss says what is wrong with the matrix
    names = ["'b'"] if model != "ron-gauss" else ["NaN"]
    assert_one_line_error(code, err, "error: INPUT: ", *names)
    assert "X:" not in err


def test_a_bounds_file_with_the_target_only_says_so(mixed, tmp_path, capsys):
    # task BB: a bounds file naming only the target was refused as "every feature column is a
    # public constant (lo = hi)", although it had no feature column (and no constant) at all
    path, _ = mixed
    bounds = tmp_path / "t.toml"
    bounds.write_text('target = "sex"\n[columns]\nsex = { categories = ["F", "M"] }\n')
    code, _, err = run([path, "--bounds", bounds, "--epsilon", 1, "--out", tmp_path / "o.csv"],
                       capsys)
    assert_one_line_error(code, err, "--bounds", "besides the target 'sex'")
    assert "constant" not in err


@pytest.mark.parametrize("model", ["copula", "tree-copula"])
def test_out_with_a_parquet_name_writes_parquet(mixed, tmp_path, capsys, model):
    # task BB: --out syn.parquet wrote CSV text under a .parquet name (pandas.read_parquet then
    # fails: "Parquet magic bytes not found"); a .parquet/.pq name now writes Parquet, the same
    # records as the CSV of the same seed, categories as categories and integers as integers
    pytest.importorskip("pyarrow")
    path, bounds = mixed
    common = [path, "--model", model, "--bounds", bounds, "--epsilon", 2, "--seed", 5,
              "--n", 700, "--quiet"]
    code, _, err = run([*common, "--out", tmp_path / "s.parquet"], capsys)
    assert code == 0, err
    code, _, err = run([*common, "--out", tmp_path / "s.csv"], capsys)
    assert code == 0, err
    pq = pd.read_parquet(tmp_path / "s.parquet")
    csv = pd.read_csv(tmp_path / "s.csv")
    assert list(pq.columns) == list(csv.columns) and len(pq) == 700
    assert pd.api.types.is_integer_dtype(pq["age"]) and pq["age"].between(18, 90).all()
    assert isinstance(pq["sex"].dtype, pd.CategoricalDtype)
    assert list(pq["sex"].dtype.categories) == ["F", "M"]
    np.testing.assert_allclose(pq["bmi"].to_numpy(), csv["bmi"].to_numpy(), rtol=1e-12)
    assert (pq["sex"].astype(str).to_numpy() == csv["sex"].astype(str).to_numpy()).all()


def test_report_quotes_each_category_so_a_comma_inside_one_is_not_a_separator(tmp_path, capsys):
    # the schema table joined categories with ", ": ["Paris, TX", "Paris"] read as three
    rng = np.random.default_rng(2)
    n = 600
    pd.DataFrame({"age": rng.integers(18, 90, n),
                  "city": rng.choice(["Paris, TX", "Paris", "Lyon"], n)}).to_csv(
        tmp_path / "m.csv", index=False)
    (tmp_path / "b.toml").write_text('[columns]\nage = { lo = 18, hi = 90, integer = true }\n'
                                     'city = { categories = ["Paris, TX", "Paris", "Lyon"] }\n')
    report = tmp_path / "r.html"
    code, _, err = run([tmp_path / "m.csv", "--bounds", tmp_path / "b.toml", "--epsilon", 2,
                        "--out", tmp_path / "s.csv", "--seed", 1, "--report", report], capsys)
    assert code == 0, err
    html = report.read_text()
    assert "categories: &quot;Paris, TX&quot;, &quot;Paris&quot;, &quot;Lyon&quot;" in html
    assert "Paris, TX, Paris" not in html


def test_class_labels_take_their_type_from_the_public_list_not_the_column(tmp_path, capsys):
    # task HZ: the synthetic labels' type came from the target column's dtype, which a CSV reader
    # infers from every record: the same table with one label written "2.0" instead of "2"
    # (the same value) wrote labels 1.0, 2.0 instead of 1, 2; and a text class absent from the
    # data (a column of numbers only) made the run fail
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    frame["t"] = rng.choice([1, 2], 300)
    plain = tmp_path / "plain.csv"
    frame.to_csv(plain, index=False)
    lines = plain.read_text().splitlines()
    head, _, last = lines[-1].rpartition(",")
    lines[-1] = f"{head},{float(last)}"  # the same label, written 2.0 (or 1.0)
    decimal = tmp_path / "decimal.csv"
    decimal.write_text("\n".join(lines) + "\n")
    assert pd.read_csv(decimal)["t"].dtype.kind == "f" and pd.read_csv(plain)["t"].dtype.kind == "i"
    outs = []
    for name, src in (("p.csv", plain), ("d.csv", decimal)):
        code, _, err = run([src, "--epsilon", 1, "--dim", 2, "--task", "classification",
                            "--target", "t", "--classes", "1,2", "--n", 50, "--seed", 0,
                            "--out", tmp_path / name], capsys)
        assert code == 0, err
        outs.append((tmp_path / name).read_text())
    assert outs[0] == outs[1]
    assert set(pd.read_csv(tmp_path / "d.csv")["t"].astype(str)) <= {"1", "2"}
    # a text class that no record has: the numbers are compared as text, the run succeeds
    code, _, err = run([plain, "--epsilon", 1, "--dim", 2, "--task", "classification",
                        "--target", "t", "--classes", "1,2,other", "--n", 50, "--seed", 0,
                        "--out", tmp_path / "o.csv"], capsys)
    assert code == 0, err
    assert set(pd.read_csv(tmp_path / "o.csv", dtype=str)["t"]) <= {"1", "2", "other"}
    # labels outside the list are still refused, naming no value
    code, _, err = run([plain, "--epsilon", 1, "--dim", 2, "--task", "classification",
                        "--target", "t", "--classes", "1,3", "--out", tmp_path / "x.csv"], capsys)
    assert_one_line_error(code, err, "not in the public class list")


def _ledger(tmp_path, name, relation, dataset):
    from matrixdp.accounting import Ledger

    path = tmp_path / name
    Ledger.create(path, dataset=dataset, epsilon=5.0, delta=1e-6, relation=relation).close()
    return path


@pytest.mark.parametrize("model", ["copula", "tree-copula"])
def test_a_header_only_table_is_released_under_add_remove_as_one_record(model, tmp_path,
                                                                        capsys):
    """Task EA (session 22): under add/remove (the copulas' relation) 0 and 1 record are
    neighbours; `synth` refused a file with a header and no rows ("has no data rows"), which
    told them apart. Now it releases it (noise only) and charges the ledger what one record
    costs; under a replace-one ledger (a public count) it is still refused, nothing charged."""
    from matrixdp.accounting import Ledger

    bounds = tmp_path / "b.toml"
    bounds.write_text('[columns]\na = { lo = 0, hi = 10 }\nb = { lo = 0, hi = 5 }\n'
                      'c = { categories = ["red", "blue"] }\n')
    spent = []
    for rows in ("", "1,2,red\n"):
        data = tmp_path / f"t{len(rows)}.csv"
        data.write_text("a,b,c\n" + rows)
        ledger = _ledger(tmp_path, f"l{len(rows)}.db", "add-remove", data.name)
        out_path = tmp_path / f"o{len(rows)}.csv"
        code, out, err = run([data, "--model", model, "--bounds", bounds, "--epsilon", 1,
                              "--ledger", ledger, "--out", out_path, "--quiet"], capsys)
        assert code == 0, err
        syn = pd.read_csv(out_path)
        assert list(syn.columns) == ["a", "b", "c"] and len(syn) >= 1
        assert syn["a"].between(0, 10).all() and set(syn["c"]) <= {"red", "blue"}
        with Ledger.open(ledger, dataset=data.name) as book:
            assert len(book.history()) == 1
            spent.append(book.spent())
    assert spent[0].epsilon == pytest.approx(spent[1].epsilon, rel=1e-12)
    assert spent[0].delta == pytest.approx(spent[1].delta, rel=1e-12)
    data = tmp_path / "t0.csv"
    ledger = _ledger(tmp_path, "r.db", "replace-one", data.name)
    code, _, err = run([data, "--model", model, "--bounds", bounds, "--epsilon", 1,
                        "--ledger", ledger, "--out", tmp_path / "r.csv", "--quiet"], capsys)
    assert_one_line_error(code, err, "INPUT", "has no data rows")
    with Ledger.open(ledger, dataset=data.name) as book:
        assert book.history() == () or len(book.history()) == 0


def test_ron_gauss_on_a_header_only_table_follows_its_relation(tmp_path, capsys):
    data = tmp_path / "t.csv"
    data.write_text("a,b\n")
    code, _, err = run([data, "--dim", 1, "--neighbouring", "add-remove", "--epsilon", 1,
                        "--out", tmp_path / "o.csv", "--quiet"], capsys)
    assert code == 0, err
    assert np.all(np.isfinite(pd.read_csv(tmp_path / "o.csv").to_numpy()))
    code, _, err = run([data, "--dim", 1, "--neighbouring", "replace-one", "--epsilon", 1,
                        "--out", tmp_path / "p.csv", "--quiet"], capsys)
    assert_one_line_error(code, err, "INPUT", "has no data rows")
