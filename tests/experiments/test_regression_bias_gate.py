"""experiments/regression_bias_gate.py's verdict arithmetic (task RW) on hand-made rows: the
per-cell paired gate of candidate vs default, D2's wdbc cells against the best other row, the
medians of D3 and stage 2's (A)/(B)."""

from __future__ import annotations

import importlib
import sys
import zlib
from pathlib import Path

import numpy as np

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

rbg = importlib.import_module("regression_bias_gate")


def rows(ds, eps, default, candidate, best=None, n=40, opened=True):
    """``n`` trials; multiplicative noise shared by the pair (paired trials); ``best`` the
    best other row's level."""
    rng = np.random.default_rng(zlib.crc32(f"{ds}|{eps}".encode()))  # stable across processes
    out = []
    for i in range(n):
        z = float(np.exp(0.05 * rng.standard_normal()))
        w = float(np.exp(0.01 * rng.standard_normal()))
        r = {"dataset": ds, "epsilon": eps, "n": 100, "d": 3, "trial": i, "seed": i,
             "default": default * z, "candidate": candidate * z * w,
             "branch": "ls-rounds" if opened else "second-release",
             "identical_off": "" if opened else int(candidate == default)}
        if best is not None:
            r["boosted_tau_y"] = best * z * float(np.exp(0.01 * rng.standard_normal()))
        out.append(r)
    return out


def test_cell_stats_fails_a_candidate_20_percent_worse_and_passes_an_equal_one():
    bad = rbg.cell_stats(rows("t", 1.0, 1.0, 1.2))
    assert bad["fail"] and abs(bad["ratio_of_medians"] - 1.2) < 0.02
    same = rbg.cell_stats(rows("t", 3.0, 1.0, 1.0, opened=False))
    assert not same["fail"] and abs(same["ratio_of_medians"] - 1.0) < 0.01
    assert same["opened"] == 0 and same["fallback"] == 40 and same["identical_off"] == "40/40"


def test_d2_counts_the_wdbc_cells_the_candidate_fixes_against_the_best_row():
    cells = {}
    # four wdbc cells where the default is 1.3× the best row; the candidate fixes two of them
    for eps, cand in ((1.0, 1.3), (3.0, 1.3), (10.0, 1.0), (30.0, 1.02)):
        a = rbg.cell_stats(rows("wdbc", eps, 1.3, cand, best=1.0), "boosted_tau_y")
        assert a["default_vs_best_fail"]
        cells[("wdbc", eps)] = a
    # a non-wdbc cell failing against its best row does not count
    cells[("ctg", 1.0)] = rbg.cell_stats(rows("ctg", 1.0, 1.3, 1.3, best=1.0), "boosted_tau_y")
    v = rbg.dev_verdict(cells)
    assert v["D2_failing"] == [("wdbc", 1.0), ("wdbc", 3.0), ("wdbc", 10.0), ("wdbc", 30.0)]
    assert sorted(v["D2_fixed"]) == [("wdbc", 10.0), ("wdbc", 30.0)] and v["D2"]
    assert v["D1"]  # no candidate is worse than its default
    # D3: the median of (1, 1, 0.77, 0.78, 1) ratios
    assert abs(v["D3_median"] - 1.0) < 0.01
    cells[("wdbc", 30.0)] = rbg.cell_stats(rows("wdbc", 30.0, 1.3, 1.3, best=1.0),
                                           "boosted_tau_y")
    assert not rbg.dev_verdict(cells)["D2"]  # only one fixed


def test_d1_and_stage_two_fail_on_one_bad_cell_and_on_a_median_above_one():
    good = {("a", e): rbg.cell_stats(rows("a", e, 1.0, 0.95)) for e in (1.0, 3.0)}
    v = rbg.check_verdict(good)
    assert v["passed"] and v["B_median"] < 1.0
    one_bad = {**good, ("b", 1.0): rbg.cell_stats(rows("b", 1.0, 1.0, 1.25))}
    v = rbg.check_verdict(one_bad)
    assert not v["A"] and v["A_fails"] == [("b", 1.0)] and not v["passed"]
    assert not rbg.dev_verdict(one_bad)["D1"]
    up = {("c", e): rbg.cell_stats(rows("c", e, 1.0, 1.03)) for e in (1.0, 3.0, 10.0)}
    v = rbg.check_verdict(up)
    assert v["A"] and not v["B"] and abs(v["B_median"] - 1.03) < 0.01
