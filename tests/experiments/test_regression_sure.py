"""experiments/_regression_sure.py and the scripts that use it: the committed reports of
regression_sure_gate.py / regression_sure_dev.py re-render from their committed trials, and the
trial loop resumes without loading a table whose cells are done."""

from __future__ import annotations

import csv
import importlib
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "experiments"))

rsc = importlib.import_module("_regression_sure")


def test_gate_rerenders_identically(tmp_path):
    """The per-cell CSV byte for byte; the report except its wall-clock minutes (the run's
    elapsed time, not a result of the trials)."""
    gate = importlib.import_module("regression_sure_gate")
    shutil.copy(ROOT / "results" / "regression_sure_gate_trials.csv", tmp_path)
    assert gate.main(["--analyse", "--out", str(tmp_path)]) == 0
    name = "regression_sure_gate"
    assert (tmp_path / f"{name}.csv").read_bytes() == (ROOT / "results" / f"{name}.csv").read_bytes()
    new = (tmp_path / f"{name}.md").read_text().splitlines()
    old = (ROOT / "results" / f"{name}.md").read_text().splitlines()
    assert len(new) == len(old)
    diff = [i for i, (a, b) in enumerate(zip(new, old)) if a != b]
    assert diff == [] or (diff == [2] and new[2].replace("(0 min)", "") ==
                          old[2].replace("(17 min)", ""))


def test_dev_rerenders_identically(tmp_path):
    """All cells are in the committed trials: nothing runs, the .md and .csv are the committed."""
    dev = importlib.import_module("regression_sure_dev")
    shutil.copy(ROOT / "results" / "regression_sure_dev_trials.csv", tmp_path)
    assert dev.main(["--out", str(tmp_path)]) == 0
    for ext in (".md", ".csv", "_trials.csv"):
        f = f"regression_sure_dev{ext}"
        assert (tmp_path / f).read_bytes() == (ROOT / "results" / f).read_bytes()


def test_run_cells_resumes_without_loading_done_tables(tmp_path):
    path = tmp_path / "x_trials.csv"
    fields = ["dataset", "epsilon", "trial", "v"]
    loaded = []

    def load(name):
        loaded.append(name)
        return name

    def run_cell(name, t, eps):
        return [{"dataset": name, "epsilon": eps, "trial": i, "v": eps * i} for i in range(2)]

    trials = rsc.run_cells(path, fields, ["a", "b"], load, run_cell, (1.0, 3.0), 0.0)
    assert loaded == ["a", "b"] and len(trials) == 8
    loaded.clear()
    again = rsc.run_cells(path, fields, ["a", "b", "c"], load, run_cell, (1.0, 3.0), 0.0)
    assert loaded == ["c"] and len(again) == 12
    with path.open() as fh:
        assert len(list(csv.DictReader(fh))) == 12
    cells = rsc.cells_of(again, "dataset", "epsilon")
    assert list(cells)[:2] == [("a", 1.0), ("a", 3.0)] and all(len(v) == 2 for v in cells.values())
    loaded.clear()
    assert rsc.run_cells(path, fields, ["d"], load, run_cell, (1.0,), 0.0, run=False) == again
    assert loaded == []  # --analyse: nothing loaded, nothing run
