"""experiments/pca_mixed_first.py and pca_default_misses.py (task PK): the gate's verdict is
recomputed from the committed per-trial values, and the analysis classifies synthetic cells as
its docstring says."""

from __future__ import annotations

import csv
import importlib
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = ROOT / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

pg = importlib.import_module("_paired_gate")
gate = importlib.import_module("pca_mixed_first")
misses = importlib.import_module("pca_default_misses")


def test_the_committed_gate_verdict_follows_from_its_trials():
    """G1 (no paired-gate FAIL) and G2 (median ratio of medians <= 0.99) recomputed from
    ``results/pca_mixed_first_gate_trials.csv``: the committed verdict line must match (4 FAILs,
    median 0.9534, FAILED). A different count of FAILs or median would fail this."""
    data = {}
    with (ROOT / "results" / "pca_mixed_first_gate_trials.csv").open() as fh:
        for r in csv.DictReader(fh):
            key = (r["table"], r["k"], r["epsilon"])
            data.setdefault(key, {}).setdefault(r["row"], {})[int(r["trial"])] = float(r["deficit"])
    fails, ratios = 0, []
    for rows in data.values():
        c = np.maximum([rows["mixed"][i] for i in sorted(rows["mixed"])], gate.FLOOR)
        d = np.maximum([rows["default"][i] for i in sorted(rows["default"])], gate.FLOOR)
        assert len(c) == len(d) == 30
        v = pg.cell_verdict(c, d)
        fails += v["fail"]
        ratios.append(v["ratio_of_medians"])
    assert len(data) == 165
    md = (ROOT / "results" / "pca_mixed_first_gate.md").read_text()
    assert f"**{fails}** (required 0)" in md and fails == 4
    assert f"**{np.median(ratios):.4g}** (required ≤ 0.99)" in md
    assert "Verdict: **FAILED**" in md


def _write_cell(path, rows_values):
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=misses.FIELDS)
        w.writeheader()
        for row, vals in rows_values.items():
            for i, v in enumerate(vals):
                w.writerow({"table": "adult", "k": 5, "epsilon": 1.0, "row": row, "trial": i,
                            "seed": i, "deficit": repr(float(v)), "choice": "moments",
                            "allocation": "task-weighted", "pred_moments": "",
                            "pred_coinpress": "", "statistic": "none"})


def test_the_diagnosis_classes(tmp_path):
    """Class b: the default and its better forced branch both 2× the best reference row; class a:
    the better forced branch at the best row while the default is 2×; closed: within 1.2×."""
    base = np.exp(np.random.default_rng(0).normal(0.0, 0.05, 20))
    for (dflt, fm, fc), cls in [((2.0, 2.0, 50.0), "b"), ((2.0, 2.0, 1.0), "a"),
                                ((1.1, 1.1, 50.0), "closed")]:
        vals = {r: 1.0 * base for r in misses.REFERENCE}
        vals.update({"default": dflt * base, "forced moments": fm * base,
                     "forced coinpress": fc * base, "forced moments, pca first": 1.0 * base})
        _write_cell(tmp_path / f"{misses.NAME}_trials.csv", vals)
        misses.analyse(tmp_path / f"{misses.NAME}_trials.csv", tmp_path)
        with (tmp_path / f"{misses.NAME}.csv").open() as fh:
            (row,) = list(csv.DictReader(fh))
        assert row["class"] == cls
