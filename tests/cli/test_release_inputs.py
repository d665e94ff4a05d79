"""``matrixdp release`` inputs (issue #25): --sep and the delimiter hint, dp = true columns
charged as their own ledger entries, and progress while reading a large CSV."""

import json

import numpy as np
import pandas as pd
import pytest

from matrixdp.cli import main


@pytest.fixture()
def data(tmp_path):
    rng = np.random.default_rng(2)
    n = 3000
    frame = pd.DataFrame({"age": rng.integers(18, 90, n),
                          "income": np.round(rng.gamma(3, 10_000, n), 2)})
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    return path


def _one_line(code, err, *fragments):
    lines = [line for line in err.strip().splitlines() if line]
    assert code == 1 and len(lines) == 1, err
    for f in fragments:
        assert f in lines[0]


def test_tab_separated_file_gets_a_hint_and_reads_with_sep(data, tmp_path, capsys):
    tsv = tmp_path / "d.tsv"
    pd.read_csv(data).to_csv(tsv, index=False, sep="\t")
    code = main(["release", str(tsv), "--query", "mean", "--bounds", "age=18:90",
                 "--epsilon", "1", "--out", str(tmp_path / "r.json")])
    _one_line(code, capsys.readouterr().err, "tab", "--sep 'tab'")
    code = main(["release", str(tsv), "--sep", "tab", "--query", "mean", "--bounds", "age=18:90",
                 "--epsilon", "1", "--out", str(tmp_path / "r.json")])
    assert code == 0, capsys.readouterr().err


def test_dp_true_column_is_estimated_charged_and_written(data, tmp_path, capsys):
    from matrixdp.accounting import Ledger

    bounds = tmp_path / "b.toml"
    bounds.write_text("[columns]\nage = { lo = 18, hi = 90 }\n"
                      "income = { dp = true, lo = 0, hi = 1000000 }\n")
    db = tmp_path / "l.db"
    Ledger.create(db, dataset="d", epsilon=3, delta=1e-5).close()
    out = tmp_path / "r.json"
    code = main(["release", str(data), "--query", "mean", "--bounds", str(bounds), "--epsilon",
                 "1", "--out", str(out), "--ledger", str(db), "--seed", "1"])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out.read_text())
    lo, hi = doc["dp_bounds"]["ranges"]["income"]
    assert 0 <= lo < hi <= 1e6 and doc["dp_bounds"]["epsilon"] == pytest.approx(0.1)
    assert doc["parameters"]["epsilon"] == pytest.approx(1.0)
    assert doc["guarantee"]["epsilon"] == pytest.approx(1.0)
    ledger = Ledger.open(db)
    hist = ledger.history()
    ledger.close()
    assert [h["epsilon"] for h in hist] == pytest.approx([0.1, 0.9])
    assert hist[0]["label"].endswith(": bounds") and hist[0]["delta"] == 0.0
    assert "DP bounds (10% of --epsilon)" in stdout
    # the estimated range is a coarse grid point, not the data's extremes
    real = pd.read_csv(data)["income"]
    assert hi != real.max() and lo != real.min()


def test_dp_column_with_a_one_sided_domain_and_a_bad_one(tmp_path, data, capsys):
    bounds = tmp_path / "b.toml"
    bounds.write_text("[columns]\nincome = { dp = true, lo = 0 }\n")
    out = tmp_path / "r.json"
    code = main(["release", str(data), "--query", "mean", "--bounds", str(bounds), "--epsilon",
                 "2", "--out", str(out), "--seed", "3"])
    assert code == 0, capsys.readouterr().err
    lo, hi = json.loads(out.read_text())["dp_bounds"]["ranges"]["income"]
    assert lo >= 0 and 30_000 < hi < 1e6  # the log grid cut at 0 (gamma(3, 1e4) data)
    bounds.write_text("[columns]\nincome = { dp = true, lo = 5, hi = 1 }\n")
    code = main(["release", str(data), "--query", "mean", "--bounds", str(bounds), "--epsilon",
                 "1", "--out", str(tmp_path / "r2.json")])
    _one_line(code, capsys.readouterr().err, "--bounds", "lo < hi")


def test_reading_a_large_csv_reports_progress_in_a_log(data, tmp_path, capsys, monkeypatch):
    import matrixdp.cli._tables as tables

    monkeypatch.setattr(tables, "PROGRESS_BYTES", 1000)  # "large" for this test
    monkeypatch.setenv("MATRIXDP_PROGRESS_INTERVAL", "0")
    monkeypatch.delenv("MATRIXDP_PROGRESS", raising=False)
    code = main(["release", str(data), "--query", "mean", "--bounds", "age=18:90", "--epsilon",
                 "1", "--out", str(tmp_path / "r.json")])
    _, err = capsys.readouterr()
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("reading d.csv")]
    assert len(lines) >= 2 and lines[-1].endswith("(100.0%)")
    # the counted read gives the same table as the plain one
    frame = tables.read_table(data, columns=["age"], quiet=True)
    assert frame.equals(pd.read_csv(data, usecols=["age"]))
    code = main(["release", str(data), "--query", "mean", "--bounds", "age=18:90", "--epsilon",
                 "1", "--out", str(tmp_path / "r2.json"), "--quiet"])
    assert code == 0 and "reading" not in capsys.readouterr().err


def test_budget_and_release_bad_values_are_one_line(capsys):
    for argv in (["budget", "init", "x.db", "--epsilon", "abc"],
                 ["release", "x.csv", "--delta", "tiny"],
                 ["release", "x.csv", "--components", "2.5"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        err = capsys.readouterr().err
        assert info.value.code == 2 and len(err.strip().splitlines()) == 1, err


def test_string_categories_match_codes_that_look_like_numbers(tmp_path, capsys):
    # task BB: `release` read a column with string categories ("07", "10", "99") as numbers
    # (7, 10, 99), which never matched them, so a bounds file that `synth` accepts was refused
    # ("holds values outside its public categories"); such a column is now read as text, as in
    # `synth` and `audit --synth`, and its one-hot means are those of the codes as written
    rng = np.random.default_rng(6)
    n = 4000
    frame = pd.DataFrame({"x": rng.uniform(0, 10, n), "zip": rng.choice(["07", "10", "99"], n,
                                                                         p=[0.5, 0.3, 0.2])})
    path = tmp_path / "codes.csv"
    frame.to_csv(path, index=False)
    bounds = tmp_path / "b.toml"
    bounds.write_text('[columns]\nx = { lo = 0, hi = 10 }\n'
                      'zip = { categories = ["07", "10", "99"] }\n')
    out = tmp_path / "r.json"
    code = main(["release", str(path), "--query", "mean", "--bounds", str(bounds), "--epsilon",
                 "10", "--noise", "iid", "--seed", "1", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    doc = json.loads(out.read_text())
    assert doc["columns"] == ["x", "zip=07", "zip=10", "zip=99"]
    shares = np.asarray(doc["released"]["values"][1:])
    # n = 4000 at epsilon = 10: the noise std of a share is about 1e-3; tolerance 0.03 accepts the
    # true shares (0.5, 0.3, 0.2) and rejects them scaled by 30%
    np.testing.assert_allclose(shares, [0.5, 0.3, 0.2], atol=0.03)


def test_codes_written_with_a_decimal_point_get_a_hint_naming_the_fix(tmp_path, capsys):
    # task CW (curator walkthrough, stagec): a code column with empty cells is saved by pandas as
    # 1.0 / 2.0; after the curator drops the empty rows the file still writes 1.0, so the
    # documented categories = ["1", "2"] (matched as written) are refused. The refusal now says
    # how to list them (as numbers), from the public category list only, and that fix works in
    # `release` and `synth` alike; no value of the file is printed.
    rng = np.random.default_rng(3)
    n = 400
    frame = pd.DataFrame({"x": rng.uniform(0, 10, n).round(3),
                          "eet": rng.choice([1.0, 2.0, np.nan], n, p=[0.45, 0.45, 0.1])})
    frame = frame.dropna().reset_index(drop=True)
    path = tmp_path / "codes.csv"
    frame.to_csv(path, index=False)
    assert "1.0" in path.read_text()  # the file writes the codes with a decimal point
    bounds = tmp_path / "b.toml"
    bounds.write_text('[columns]\nx = { lo = 0, hi = 10 }\neet = { categories = ["1", "2"] }\n')
    out = tmp_path / "r.json"
    argv = ["release", str(path), "--query", "mean", "--bounds", str(bounds), "--epsilon", "1",
            "--seed", "1", "--out", str(out)]
    code = main(argv)
    err = capsys.readouterr().err
    _one_line(code, err, "'eet'", "outside its public categories", "categories = [1, 2]")
    assert not out.exists()
    for v in np.unique(frame["x"]):  # no value of the file in the message
        assert f"{v:g}" not in err.split("categories = [1, 2]")[0].split("'eet'")[1]
    synth_out = tmp_path / "s.csv"
    code = main(["synth", str(path), "--bounds", str(bounds), "--epsilon", "1", "--seed", "1",
                 "--out", str(synth_out), "--quiet"])
    err = capsys.readouterr().err
    _one_line(code, err, "'eet'", "categories = [1, 2]")
    # the hinted fix: the codes listed as numbers
    bounds.write_text('[columns]\nx = { lo = 0, hi = 10 }\neet = { categories = [1, 2] }\n')
    assert main(argv) == 0, capsys.readouterr().err
    assert json.loads(out.read_text())["columns"] == ["x", "eet=1", "eet=2"]
    assert main(["synth", str(path), "--bounds", str(bounds), "--epsilon", "1", "--seed", "1",
                 "--out", str(synth_out), "--quiet"]) == 0, capsys.readouterr().err
    assert set(pd.read_csv(synth_out, dtype=str)["eet"]) <= {"1", "2"}
