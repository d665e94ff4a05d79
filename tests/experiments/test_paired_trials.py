"""experiments/_paired_trials.py: the checkpointed per-cell trial loop of the paired covariance
gates resumes (skips the (cell, row, trial) already in the trials file or a shard file), writes a
shard to its own file and numbers extra trials from ``offset``."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "experiments"))

pt = importlib.import_module("_paired_trials")

FIELDS = ["table", "epsilon", "row", "trial", "seed", "error"]


class _Est:
    def __init__(self, v):
        self.v = v


def _run(path, cells, seeds, calls, offset=0, shard=None):
    def fitter(row, cell):
        def fit(s):
            calls.append((cell, row, s))
            return _Est(s * (2 if row == "candidate" else 1) * cell[1])
        return fit

    pt.run_cells(cells, seeds, ("default", "candidate"), path, FIELDS, ("table", "epsilon"),
                 lambda c: {"table": c[0], "epsilon": c[1]}, fitter,
                 lambda c: (lambda est: {"error": repr(float(est.v))}),
                 lambda c: f"{c[0]} {c[1]}", offset, shard)


def test_run_cells_writes_resumes_and_shards(tmp_path):
    path = tmp_path / "g_trials.csv"
    calls = []
    _run(path, [("a", 1.0)], [3, 5], calls)
    rows = list(pt.rows(path))
    assert [(r["row"], r["trial"], r["seed"], r["error"]) for r in rows] == [
        ("default", "0", "3", "3.0"), ("default", "1", "5", "5.0"),
        ("candidate", "0", "3", "6.0"), ("candidate", "1", "5", "10.0")]
    # a shard run of a second cell goes to its own file; the done cell is not refitted
    calls.clear()
    _run(path, [("a", 1.0), ("b", 2.0)], [3, 5], calls, shard=(1, 2))
    assert {c for c, _, _ in calls} == {("b", 2.0)} and len(calls) == 4
    assert pt.parts(path) == [path, pt.shard_path(path, (1, 2))]
    assert len(list(pt.rows(path))) == 8
    # resume: nothing left in either file; extra trials numbered from the offset
    calls.clear()
    _run(path, [("a", 1.0), ("b", 2.0)], [3, 5], calls)
    assert calls == []
    _run(path, [("b", 2.0)], [7], calls, offset=2)
    extra = [r for r in pt.rows(path) if r["trial"] == "2"]
    assert [(r["table"], r["row"], r["seed"]) for r in extra] == [("b", "default", "7"),
                                                                  ("b", "candidate", "7")]
