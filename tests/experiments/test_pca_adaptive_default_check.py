"""experiments/pca_adaptive_default_check.py: the pre-registered rule's arithmetic on tiny cells,
a tiny run on a synthetic table, and the check tables' walk through RESERVED (specs only: no
reserved table is loaded here)."""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import numpy as np
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

px = importlib.import_module("pca_adaptive_default_check")
tpx = importlib.import_module("_check_tables_px")
uc = importlib.import_module("_utility_common")


def _cell(cand, dflt=1.0, best=None, n=30, seed=0):
    """A cell with per-trial errors: default ``dflt``, candidate ``cand`` (× the same noise),
    the peers at ``best`` (or far worse)."""
    base = np.exp(np.random.default_rng(seed).normal(0.0, 0.05, n))
    vals = {px.DEFAULT: dflt * base, px.CANDIDATE: cand * base}
    for i, m in enumerate(px.PEERS):
        vals[m] = (best if (best is not None and i == 0) else 50.0) * base
    return px.cell_summary(vals)


def test_cell_summary_ratios_and_paired_gate():
    s = _cell(1.5, best=0.5)
    assert math.isclose(s["cand_over_default"], 1.5, rel_tol=1e-12)
    assert math.isclose(s["ratio_to_best"][px.CANDIDATE], 3.0, rel_tol=1e-12)
    assert math.isclose(s["ratio_to_best"][px.DEFAULT], 2.0, rel_tol=1e-12)
    assert s["best"] == ["matrixdp (coinpress)"]
    assert s["label"] == "FAIL"            # 1.5x on every paired trial
    assert _cell(1.05)["label"] == "pass"  # below the 1.10 margin


def test_rule_A_counts_within_1p2_of_the_best_of_all_rows():
    # cell 1: best 0.9 -> candidate 1.0/0.9 = 1.11 and default within; cell 2: candidate 1.3x
    # the default (the best row) -> out; cell 3: best 0.5 -> both 2.0x, out
    cells = [_cell(1.0, best=0.9), _cell(1.3, best=1.0), _cell(1.0, best=0.5)]
    r = px.rule(cells)
    assert (r["A_candidate"], r["A_default"]) == (1, 2) and not r["A_pass"]
    # just below 1.2x is within; just above it is not
    assert px.rule([_cell(1.199, best=1.0)])["A_candidate"] == 1
    assert px.rule([_cell(1.201, best=1.0)])["A_candidate"] == 0
    r3 = px.rule([_cell(0.5, best=1.0), _cell(1.0, best=1.0)])
    assert (r3["A_candidate"], r3["A_default"]) == (2, 1) and r3["A_pass"]


def test_rule_B_allows_floor_of_ten_percent():
    ok = [_cell(2.0, seed=i) for i in range(8)] + [_cell(0.8, seed=100 + i) for i in range(72)]
    r = px.rule(ok, n_expected=80)
    assert r["B_allowed"] == 8 and r["B_fail"] == 8 and r["B_pass"]
    bad = ok[:-1] + [_cell(2.0, seed=999)]
    rb = px.rule(bad, n_expected=80)
    assert rb["B_fail"] == 9 and not rb["B_pass"] and not rb["passes"]
    assert px.rule([_cell(2.0)] * 9)["B_allowed"] == 0


def test_rule_C_is_the_median_of_ratios_of_medians():
    cells = [_cell(0.9, seed=i) for i in range(3)] + [_cell(1.05, seed=10 + i) for i in range(3)]
    r = px.rule(cells)
    assert math.isclose(r["C_median_ratio"], (0.9 + 1.05) / 2, rel_tol=1e-9) and r["C_pass"]
    r2 = px.rule(cells + [_cell(1.05, seed=50)])
    assert math.isclose(r2["C_median_ratio"], 1.05, rel_tol=1e-9) and not r2["C_pass"]


def test_incomplete_run_never_passes():
    cells = [_cell(0.5, seed=i) for i in range(10)]
    assert px.rule(cells)["passes"]
    assert not px.rule(cells, n_expected=80)["passes"]


def test_run_cell_shares_seeds_and_the_default_is_dppca_default():
    from matrixdp.models import DPPCA

    rng = np.random.default_rng(1)
    X = np.clip(rng.normal(0.5, 0.1, (400, 8)), 0, 1)
    t = uc.Table("synthetic", X, np.zeros(400), [f"x{i}" for i in range(8)], "none",
                 np.zeros(8), np.ones(8), 0.0, 1.0, "test")
    seeds = px.trial_seeds(7, 3)
    rows = px.run_cell(t, 2, 1.0, seeds)
    assert {r["method"] for r in rows} == set(px.ROWS) and len(rows) == 3 * len(px.ROWS)
    for m in px.ROWS:
        assert [r["seed"] for r in rows if r["method"] == m] == seeds
    C = np.cov(X.T, bias=True)
    best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:2].sum())
    V = DPPCA(n_components=2, epsilon=1.0, delta=1e-6, bounds=(t.lo, t.hi), method="moments",
              random_state=seeds[0]).fit(X).components_
    first = [r for r in rows if r["method"] == px.DEFAULT][0]  # pinned to method="moments"
    assert float(first["error"]) == px.deficit(V, C, best)
    cand = [r for r in rows if r["method"] == px.CANDIDATE]
    assert all(r["adaptive_choice_"] for r in cand)
    assert all(0.0 <= float(r["error"]) <= 1.0 + 1e-9 for r in rows)


def test_check_tables_are_the_first_eight_usable_reserved_names():
    from _check_tables_heldout import MEASUREMENT, RESERVED

    tpx._check_walk()
    assert tpx.CHECK_TABLES == ("countymurders", "labsup", "alcohol", "injury", "cps91",
                                "fertil2", "wagepan", "loanapp")
    walked = RESERVED[:RESERVED.index(tpx.CHECK_TABLES[-1]) + 1]
    assert set(walked) == set(tpx.CHECK_TABLES) | set(tpx.SKIPPED)
    assert not set(tpx.CHECK_TABLES) & set(MEASUREMENT)
    for name, spec in tpx.SPECS_PX.items():
        assert len(spec["features"]) >= 6 and spec["target"] is None
        for lo, hi, _ in spec["features"].values():
            assert lo < hi


def test_px_table_drops_missing_coerces_and_clips():
    pd = pytest.importorskip("pandas")
    spec = tpx.SPECS_PX["countymurders"]
    cols = list(spec["features"])
    frame = pd.DataFrame({c: [1.0, 2.0, 3.0] for c in cols})
    frame["popul"] = ["5", ".", "2e8"]   # an object column with a non-numeric missing marker
    frame["percblack"] = [-5.0, 50.0, 150.0]
    t = tpx.px_table("countymurders", frame=frame)
    assert t.n == 2 and t.d == len(cols)
    j = cols.index("popul")
    assert list(t.X[:, j]) == [5.0, 1e7]
    assert list(t.X[:, cols.index("percblack")]) == [0.0, 100.0]
    assert np.all(t.y == 0)


def test_utility_pca_auto_row_is_the_default():
    """``utility_pca.py``'s ``matrixdp (auto)`` row (``noise="auto"`` passed explicitly) is
    ``DPPCA()`` as a user gets it: since task PX the adaptive release, draw for draw."""
    from matrixdp.models import DPPCA
    from utility_pca import pca_fitter

    rng = np.random.default_rng(3)
    X = np.clip(rng.normal(0.5, 0.15, (300, 6)), 0, 1)
    t = uc.Table("synthetic", X, np.zeros(300), [f"x{i}" for i in range(6)], "none",
                 np.zeros(6), np.ones(6), 0.0, 1.0, "test")
    for s in (1, 2):
        est = DPPCA(n_components=2, epsilon=1.0, delta=uc.DELTA, bounds=(t.lo, t.hi),
                    random_state=s).fit(X)
        assert est.method_ == "adaptive"
        np.testing.assert_array_equal(pca_fitter("matrixdp (auto)", t, 1.0, 2)(s),
                                      est.components_)
        # the check's default row stays what DPPCA() was when it ran: the moments release
        V, _ = px.fitter(px.DEFAULT, t, 1.0, 2)(s)
        ref = DPPCA(n_components=2, epsilon=1.0, delta=uc.DELTA, bounds=(t.lo, t.hi),
                    method="moments", random_state=s).fit(X)
        np.testing.assert_array_equal(V, ref.components_)
        W, choice = px.fitter(px.CANDIDATE, t, 1.0, 2)(s)
        np.testing.assert_array_equal(W, est.components_)
        assert choice == est.adaptive_choice_
