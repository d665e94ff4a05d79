"""``matrixdp audit``: the catalogue table (fast CI setting), one mechanism, errors."""

import pytest

from matrixdp.cli import main


def test_audit_all_fast(capsys, monkeypatch):
    monkeypatch.setenv("MATRIXDP_PROGRESS", "always")  # pytest's stderr is not a terminal
    assert main(["audit", "--all", "--fast", "--seed", "1"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    rows = {line.split()[0]: line for line in lines[2:] if line and not line.startswith(("20000", "REFUTED"))
            and len(line.split()) >= 6}
    assert rows["r1smg"].rstrip().endswith("REFUTED") and "[unsafe]" in rows["r1smg"]
    # Every unsafe opt-in is refuted; every other shipped mechanism is consistent.
    unsafe = [name for name, line in rows.items() if "[unsafe]" in line]
    others = [name for name in rows if name not in unsafe]
    assert {"laplace", "gaussian", "gaussian-classic"} <= set(others)
    for name in others:
        assert rows[name].rstrip().endswith("consistent"), rows[name]
    for name in unsafe:
        assert rows[name].rstrip().endswith("REFUTED"), rows[name]
    summary = next(line for line in lines if line.startswith("REFUTED (claimed"))
    assert sorted(summary.split(": ", 1)[1].split(", ")) == sorted(unsafe)
    assert "auditing: 100%" in captured.err          # progress bar on stderr
    # The baselines are audited too: Wishart's pure-epsilon claim refuted, the others consistent,
    # and the footer names the row audited with fewer draws.
    assert "[unsafe]" in rows["wishart"] and rows["wishart"].rstrip().endswith("REFUTED")
    assert {"mod-sulq", "analyze-gauss", "dp-covariance-eigen", "blocki-jl", "ppca",
            "ppca-k"} <= set(others)
    assert "(ppca-k: 2000)" in out_footer(lines)


def out_footer(lines):
    return next(line for line in lines if line.startswith("20000 draws"))


def test_audit_one_mechanism_with_options(capsys):
    assert main(["audit", "r1smg", "--epsilon", "1", "--dim", "100", "--samples", "4000",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("r1smg"))
    assert line.split()[2] == "1" and line.rstrip().endswith("REFUTED")
    assert main(["audit", "gaussian", "--fast", "--quiet"]) == 0
    assert "consistent" in capsys.readouterr().out


def test_audit_list_and_errors(capsys):
    assert main(["audit", "--list"]) == 0
    assert "r1smg" in capsys.readouterr().out
    for argv in (["audit"], ["audit", "nope"], ["audit", "laplace", "--delta", "0.1"],
                 ["audit", "--all", "gaussian"], ["audit", "gaussian", "--samples", "5"]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def one_line_error(capsys, argv, *fragments):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for fragment in fragments:
        assert fragment in err, err


def test_zero_samples_and_zero_dim_are_rejected(capsys):
    one_line_error(capsys, ["audit", "gaussian", "--samples", "0"], "--samples", ">= 20")
    one_line_error(capsys, ["audit", "gaussian", "--dim", "0", "--fast"], "--dim: must be >= 1")
    one_line_error(capsys, ["audit", "gaussian", "--confidence", "1.5", "--fast"], "--confidence")


def test_fail_on_refuted_turns_an_unsafe_refutation_into_a_failure(capsys):
    argv = ["audit", "r1smg", "--epsilon", "1", "--dim", "100", "--samples", "4000", "--quiet"]
    assert main(argv) == 0          # an explicit unsafe opt-in refuted: expected
    assert "REFUTED" in capsys.readouterr().out
    assert main(argv + ["--fail-on-refuted"]) == 3
    assert main(["audit", "gaussian", "--fast", "--quiet", "--fail-on-refuted"]) == 0


def test_audit_estimators_table_and_errors(capsys):
    # a tiny run (20 fits, no power): the table, its rows and the footer; power is tested in
    # tests/audit/test_estimators.py
    assert main(["audit", "--estimators", "--fast", "--samples", "20", "--quiet"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["estimator", "relation", "eps"]
    names = [line.split()[0] for line in lines[2:] if line.strip() and not line[0].isdigit()]
    assert "DPLinearRegression" in names and "DPTreeCopula" in names and "PLANTED" in names
    assert "20 counted fits (+20 pilot fits) per dataset" in out
    assert "never a proof" in out
    assert main(["audit", "--estimators", "--samples", "5"]) == 1
    assert "--samples" in capsys.readouterr().err
    assert main(["audit", "--estimators", "--all"]) == 1


# --------------------------------------------------------------- audit --synth and public constants
def _constant_table(tmp_path):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    n = 300
    frame = pd.DataFrame({"age": rng.integers(18, 90, n), "score": rng.random(n),
                          "site": 7, "label": rng.integers(0, 2, n)})
    data = tmp_path / "t.csv"
    frame.to_csv(data, index=False)
    bounds = tmp_path / "b.toml"
    bounds.write_text('target = "label"\n[columns]\nage = { lo = 18, hi = 90 }\n'
                      'score = { lo = 0, hi = 1 }\nsite = { lo = 7, hi = 7, integer = true }\n'
                      'label = { categories = [0, 1] }\n')
    return frame, data, bounds


def _bound_lines(text):
    return [line for line in text.splitlines() if "epsilon >=" in line]


@pytest.mark.parametrize("generator", ["copula", "tree-copula"])
def test_audit_synth_accepts_a_public_constant_column_as_synth_does(generator, tmp_path, capsys):
    """lo == hi (a public constant): `matrixdp synth` accepts the bounds file, so `audit --synth`
    must too; the constant is not modelled and not counted in the attacks' distances, so the
    audit's numbers are those of the same table without the column (same seed)."""
    frame, data, bounds = _constant_table(tmp_path)
    assert main(["synth", str(data), "--model", generator, "--bounds", str(bounds),
                 "--epsilon", "1", "--out", str(tmp_path / "syn.csv"), "--seed", "0",
                 "--quiet"]) == 0
    capsys.readouterr()
    code = main(["audit", "--synth", generator, "--data", str(data), "--bounds", str(bounds),
                 "--epsilon", "1", "--runs", "2", "--canaries", "40", "--seed", "0"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "dcr: epsilon >=" in captured.out and "shadow: epsilon >=" in captured.out
    assert ("public constant column(s) (lo = hi), not modelled and not counted in the attacks' "
            "distances: site") in captured.out
    bare = tmp_path / "bare.csv"
    frame.drop(columns=["site"]).to_csv(bare, index=False)
    bare_bounds = tmp_path / "bare.toml"
    bare_bounds.write_text(bounds.read_text().replace(
        "site = { lo = 7, hi = 7, integer = true }\n", ""))
    assert main(["audit", "--synth", generator, "--data", str(bare), "--bounds", str(bare_bounds),
                 "--epsilon", "1", "--runs", "2", "--canaries", "40", "--seed", "0"]) == 0
    bare_out = capsys.readouterr().out
    assert "public constant" not in bare_out
    assert len(_bound_lines(bare_out)) == 2
    # the check reads the records outside any ledger: every run says its output is not DP
    assert "not itself a DP release" in captured.out and "not itself a DP release" in bare_out
    assert _bound_lines(captured.out) == _bound_lines(bare_out)


def test_audit_synth_refuses_a_table_of_constants_only_as_synth_does(tmp_path, capsys):
    _, data, bounds = _constant_table(tmp_path)
    bounds.write_text('target = "label"\n[columns]\nsite = { lo = 7, hi = 7 }\n'
                      'label = { categories = [0, 1] }\n')
    messages = []
    for argv in (["synth", str(data), "--model", "copula", "--bounds", str(bounds),
                  "--epsilon", "1", "--out", str(tmp_path / "s.csv"), "--quiet"],
                 ["audit", "--synth", "copula", "--data", str(data), "--bounds", str(bounds),
                  "--epsilon", "1", "--runs", "1", "--canaries", "10"]):
        assert main(argv) == 1
        messages.append(capsys.readouterr().err)
    assert all("every feature column is a public constant" in m for m in messages), messages


# --------------------------------------------------------------- audit --synth and dp = true columns
def _dp_table(tmp_path):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(2)
    n = 300
    frame = pd.DataFrame({"age": rng.integers(18, 90, n), "income": rng.lognormal(10.0, 1.0, n),
                          "label": rng.integers(0, 2, n)})
    data = tmp_path / "t.csv"
    frame.to_csv(data, index=False)
    bounds = tmp_path / "b.toml"
    bounds.write_text('target = "label"\n[columns]\nage = { lo = 18, hi = 90, integer = true }\n'
                      'income = { dp = true, lo = 0 }\nlabel = { categories = [0, 1] }\n')
    return frame, data, bounds


def _charges(accountant, skip=""):
    return [(g.epsilon, g.delta, str(g.neighbouring)) for label, g in accountant.spends
            if not (skip and skip in label)]


@pytest.mark.parametrize("generator", ["copula", "tree-copula"])
def test_audit_synth_accepts_a_dp_bounds_column_and_charges_it_as_synth_does(generator, tmp_path,
                                                                            capsys):
    """`dp = true` (no known range): `matrixdp synth` spends 10% of --epsilon on a DP range and
    fits the generator with the rest, so the audited synthesis must do the same in every fit:
    the same two charges per fit (bounds, then generator), the DP-bounds charge shown in the
    report and the claimed epsilon the composed total."""
    from matrixdp.accounting import Accountant

    frame, data, bounds = _dp_table(tmp_path)
    with Accountant() as synth_acc:
        assert main(["synth", str(data), "--model", generator, "--bounds", str(bounds),
                     "--epsilon", "1", "--out", str(tmp_path / "syn.csv"), "--seed", "0",
                     "--quiet"]) == 0
    synth_out = capsys.readouterr().out
    dp_line = next(line for line in synth_out.splitlines() if line.startswith("DP bounds ("))
    assert "epsilon=0.1, delta=0" in dp_line
    per_fit = _charges(synth_acc)
    assert [e for e, _, _ in per_fit] == pytest.approx([0.1, 0.9])

    with Accountant() as audit_acc:
        code = main(["audit", "--synth", generator, "--data", str(data), "--bounds", str(bounds),
                     "--epsilon", "1", "--runs", "2", "--canaries", "40", "--seed", "0"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    out = captured.out
    assert dp_line in out.splitlines()                      # the charge, as synth reports it
    assert "formal guarantee (1, 1e-09)-DP" in out
    assert len(_bound_lines(out)) == 2
    assert all("claimed 1," in line for line in _bound_lines(out))
    assert "counted in the attacks' distances: income" in out
    # 2 runs x (the fit on the canaries + the shadow fit): each charged as synth charges one run
    fits = _charges(audit_acc, skip="attack scale")
    assert len(fits) == 2 * 2 * len(per_fit)
    for k in range(0, len(fits), len(per_fit)):
        got = fits[k:k + len(per_fit)]
        assert [g[1:] for g in got] == [p[1:] for p in per_fit]
        assert [g[0] for g in got] == pytest.approx([p[0] for p in per_fit], rel=1e-12)
    # the attacks' distance scale of the dp column: one more DP range on the whole table,
    # independent of the canary coins, charged under its own label
    scale = [g for label, g in audit_acc.spends if "attack scale" in label]
    assert len(scale) == 1 and scale[0].epsilon == pytest.approx(0.1) and scale[0].delta == 0
    # the column is counted in the attacks' statistics: without it the attacks score differently
    bare = tmp_path / "bare.csv"
    frame.drop(columns=["income"]).to_csv(bare, index=False)
    bare_bounds = tmp_path / "bare.toml"
    bare_bounds.write_text(bounds.read_text().replace("income = { dp = true, lo = 0 }\n", ""))
    assert main(["audit", "--synth", generator, "--data", str(bare), "--bounds", str(bare_bounds),
                 "--epsilon", "1", "--runs", "2", "--canaries", "40", "--seed", "0"]) == 0
    assert _bound_lines(capsys.readouterr().out) != _bound_lines(out)


def test_audit_synth_refuses_what_synth_refuses_about_the_target(tmp_path, capsys):
    """One reader of the bounds file: a target missing from [columns] or numeric is refused by
    both commands with the same message (no internal error)."""
    _, data, bounds = _dp_table(tmp_path)
    for text, words in (('target = "nope"\n[columns]\nage = { lo = 18, hi = 90 }\n',
                         "is not a column of the bounds file"),
                        ('target = "age"\n[columns]\nage = { lo = 18, hi = 90 }\n'
                         'income = { dp = true, lo = 0 }\n', "must be categorical")):
        bounds.write_text(text)
        messages = []
        for argv in (["synth", str(data), "--model", "copula", "--bounds", str(bounds),
                      "--epsilon", "1", "--out", str(tmp_path / "s.csv"), "--quiet", "--force"],
                     ["audit", "--synth", "copula", "--data", str(data), "--bounds", str(bounds),
                      "--epsilon", "1", "--runs", "1", "--canaries", "10"]):
            assert main(argv) == 1
            messages.append(capsys.readouterr().err.split("error: ", 1)[1])
        assert words in messages[0] and messages[0] == messages[1], messages


def test_audit_synth_too_many_canaries_names_the_option(tmp_path, capsys):
    # task BB: --canaries at or above the number of records was refused as
    # "n_canaries: must be in [2, rows of X)", the library's argument names
    _, data, bounds = _dp_table(tmp_path)
    code = main(["audit", "--synth", "copula", "--data", str(data), "--bounds", str(bounds),
                 "--epsilon", "1", "--runs", "1", "--canaries", "300"])
    err = [line for line in capsys.readouterr().err.splitlines() if line]
    assert code == 1 and len(err) == 1, err
    assert "--canaries: must be fewer than the records of --data" in err[0]
    assert "n_canaries" not in err[0] and "300" not in err[0]


@pytest.mark.parametrize("extra, words", [
    (["--runs", "1", "--canaries", "1"], "--canaries: must be >= 2"),   # was "--runs: need ..."
    (["--runs", "0"], "--runs: must be >= 1"),
    (["--attacks", "foo"], "--attacks: must be a comma-separated subset of dcr, shadow"),
    (["--attacks", " , "], "--attacks:"),                                 # was "attacks: ..."
])
def test_audit_synth_option_errors_name_their_option_before_reading_the_table(tmp_path, capsys,
                                                                              extra, words):
    _, data, bounds = _dp_table(tmp_path)
    data.write_text("not,a,table\n")   # never read: the options are refused first
    code = main(["audit", "--synth", "copula", "--data", str(data), "--bounds", str(bounds),
                 "--epsilon", "1", *extra])
    err = [line for line in capsys.readouterr().err.splitlines() if line]
    assert code == 1 and len(err) == 1, err
    assert words in err[0]
