"""experiments/results_freshness.py: the comparison of a rerun CSV with a committed one."""

from __future__ import annotations

import csv
import importlib
import math
import sys
from pathlib import Path

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

rf = importlib.import_module("results_freshness")


def _write(path: Path, rows: list[dict]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


def _values_check():
    return rf.Check("x", ["x.py"], "x.csv", ("dataset", "epsilon", "method"), kind="values")


def test_values_compared_as_a_prefix_of_the_committed_trials(tmp_path):
    old = _write(tmp_path / "old.csv", [
        dict(dataset="a", epsilon="1.0", method="m", median="2", values="1 2 3 4 5")])
    same = _write(tmp_path / "same.csv", [
        dict(dataset="a", epsilon="1", method="m", median="1.5", values="1 2")])
    res = rf.compare(_values_check(), same, old)
    assert res["numbers_compared"] == 2 and res["numbers_differing"] == 0
    assert rf.verdict(res) == "identical"
    changed = _write(tmp_path / "changed.csv", [
        dict(dataset="a", epsilon="1", method="m", median="1.5", values="1 2.5")])
    res = rf.compare(_values_check(), changed, old)
    assert res["numbers_differing"] == 1 and res["rows_beyond_1e-9"] == 1
    assert math.isclose(res["max_rel_diff"], 0.25)
    assert rf.verdict(res) == "DIFFERS"


def test_rounding_is_not_a_change_but_a_small_relative_change_is(tmp_path):
    old = _write(tmp_path / "old.csv", [
        dict(dataset="a", epsilon="1", method="m", median="0", values="1.0 1e-16")])
    new = _write(tmp_path / "new.csv", [
        dict(dataset="a", epsilon="1", method="m", median="0", values="1.0000000000001 -2e-16")])
    res = rf.compare(_values_check(), new, old)
    assert res["numbers_differing"] == 2 and res["numbers_beyond_1e-9"] == 0
    assert rf.verdict(res) == "equal to 1e-9"
    new2 = _write(tmp_path / "new2.csv", [
        dict(dataset="a", epsilon="1", method="m", median="0", values="1.00001 1e-16")])
    assert rf.verdict(rf.compare(_values_check(), new2, old)) == "DIFFERS"


def test_columns_kind_skips_timings_and_reports_text_changes(tmp_path):
    check = rf.Check("x", ["x.py"], "x.csv", ("table", "seed"), kind="columns")
    old = _write(tmp_path / "old.csv", [
        dict(table="t", seed="0", lr_auc="0.7", status="ok", total_s="1.0")])
    new = _write(tmp_path / "new.csv", [
        dict(table="t", seed="0", lr_auc="0.7", status="ok", total_s="9.0")])
    assert rf.verdict(rf.compare(check, new, old)) == "identical"  # total_s is a timing
    bad = _write(tmp_path / "bad.csv", [
        dict(table="t", seed="0", lr_auc="0.7", status="failed", total_s="1.0")])
    assert rf.verdict(rf.compare(check, bad, old)) == "DIFFERS"
    only = rf.Check("x", ["x.py"], "x.csv", ("table", "seed"), kind="columns",
                    columns=("lr_auc",))
    assert rf.verdict(rf.compare(only, bad, old)) == "identical"


def test_unmatched_rerun_rows_are_reported_not_counted(tmp_path):
    old = _write(tmp_path / "old.csv", [
        dict(dataset="a", epsilon="1", method="m", median="1", values="1 2")])
    new = _write(tmp_path / "new.csv", [
        dict(dataset="a", epsilon="1", method="other", median="1", values="1 2")])
    res = rf.compare(_values_check(), new, old)
    assert res["rows_compared"] == 0 and "without a committed match" in res["note"]
    assert rf.verdict(res) == "no rows compared"


def test_every_cited_results_file_has_a_check():
    names = {c.name for c in rf.CHECKS}
    assert len(names) == len(rf.CHECKS)
    for c in rf.CHECKS:
        assert (rf.RESULTS / f"{c.name}.md").exists(), c.name
        assert c.argv is not None or c.reason, c.name
