"""experiments/covariance_choice_gate.py (task CV): the gate's arithmetic on tiny synthetic rows."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

gate = importlib.import_module("covariance_choice_gate")


def _cell(ds, eps, default, candidate, auto, mvg, coinpress, ch_d=None, ch_c=None):
    T = len(default)
    ch_d = ["moments"] * T if ch_d is None else ch_d
    ch_c = ch_d if ch_c is None else ch_c
    return [{"dataset": ds, "epsilon": eps, "trial": i, "seed": i, "default": default[i],
             "candidate": candidate[i], "auto": auto[i], "mvg": mvg[i],
             "coinpress": coinpress[i], "choice_default": ch_d[i], "choice_candidate": ch_c[i],
             "forced": candidate[i]} for i in range(T)]


def _spread(rng, T, scale):
    return scale * np.exp(rng.normal(0, 0.3, T))


def test_stage1_counts_and_verdict():
    rng = np.random.default_rng(0)
    T = 60
    rows = []
    base = _spread(rng, T, 1.0)
    # adult ε = 1: the candidate 3× the best other row (mvg) and 3× the default: D1 and D2 fail
    rows += _cell("adult", 1.0, base, 3 * base, 1.5 * base, base, 2 * base)
    # a cell where the candidate equals the default and is the lowest of the four
    rows += _cell("x", 0.5, base, base, 2 * base, 2 * base, 2 * base)
    cells = gate.stage1_cells(rows)
    a, x = cells
    assert a["best_other"] == "mvg"
    assert a["ratio_candidate_default"] == pytest.approx(3.0)
    assert a["ratio_candidate_best"] == pytest.approx(3.0)
    assert a["verdict_candidate_default"] == "FAIL" and a["verdict_candidate_best"] == "FAIL"
    assert not a["within"] and not a["lowest"]
    assert x["verdict_candidate_default"] == "pass" and x["within"] and x["lowest"]
    assert x["changed"] == 0 and x["forced_match"] == T
    res = gate.stage1_verdict(cells)
    assert res["D1_fails"] == 1 and not res["D1"] and not res["D2"]
    assert res["D3_within"] == 1 and res["D3_lowest"] == 1 and not res["D3"]
    assert res["D4_median"] == pytest.approx(2.0)  # median of 3 and 1
    assert not res["PASS"]


def test_stage1_passes_when_the_candidate_equals_the_default():
    rng = np.random.default_rng(1)
    rows = []
    for i in range(35):
        b = _spread(rng, 30, 1.0)
        ds, eps = ("adult", 1.0) if i == 0 else (f"t{i}", 1.0)
        rows += _cell(ds, eps, b, b, 1.05 * b, 1.1 * b, 1.2 * b)
    res = gate.stage1_verdict(gate.stage1_cells(rows))
    assert res["PASS"] and res["D1_fails"] == 0 and res["D4_median"] == 1.0
    assert res["D3_within"] == 35 and res["D3_lowest"] == 35


def test_check_verdict_median_and_fails():
    rng = np.random.default_rng(2)
    rows = []
    for i, f in enumerate((1.0, 1.0, 0.9, 2.0)):
        b = _spread(rng, 50, 1.0)
        rows += [{"dataset": f"t{i}", "epsilon": 1.0, "n": 10, "d": 6, "trial": j, "seed": j,
                  "default": b[j], "candidate": f * b[j], "choice_default": "moments",
                  "choice_candidate": "moments"} for j in range(50)]
    cells = gate.check_cells(rows)
    assert [c["verdict"] for c in cells] == ["pass", "pass", "pass", "FAIL"]
    res = gate.check_verdict(cells)
    assert res["A_fails"] == 1 and not res["A"]
    assert res["B_median"] == pytest.approx(1.0) and res["B"]
    assert not res["PASS"]


def test_check_informative_counts_cells_with_five_changed_choices():
    # task CV2: INFORMATIVE iff at least 2 cells have >= 5 of their choices changed
    rng = np.random.default_rng(3)
    T = 40

    def cell(name, changed):
        b = _spread(rng, T, 1.0)
        ch_c = ["coinpress"] * changed + ["moments"] * (T - changed)
        return [{"dataset": name, "epsilon": 1.0, "n": 10, "d": 6, "trial": j, "seed": j,
                 "default": b[j], "candidate": b[j], "choice_default": "moments",
                 "choice_candidate": ch_c[j]} for j in range(T)]

    rows = cell("a", 5) + cell("b", 4)
    cells = gate.check_cells(rows)
    assert [c["changed"] for c in cells] == [5, 4]
    assert [c["steps_candidate"] for c in cells] == [5, 4]
    res = gate.check_verdict(cells)
    assert res["cells_changed_5"] == 1 and not res["INFORMATIVE"] and res["PASS"]
    res = gate.check_verdict(gate.check_cells(rows + cell("c", 9)))
    assert res["cells_changed_5"] == 2 and res["INFORMATIVE"]


def test_cv2_check_is_wired_to_its_own_tables_seed_and_files():
    assert gate.CHECKS["cv"] == ("_check_tables_cv", 20261130, "covariance_choice_gate_check")
    assert gate.CHECKS["cv2"] == ("_check_tables_cv2", 20261131,
                                  "covariance_choice_gate_check2")
    ct = importlib.import_module("_check_tables_cv2")
    assert len(ct.TABLES) >= 4
    for name in ct.TABLES:
        spec = ct.SPECS[name]
        assert len(spec) >= 6
        assert all(lo < hi for _, lo, hi, _ in spec.values())
