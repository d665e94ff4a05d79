"""experiments/regression_wdbc_diagnosis.py (task RG): its re-run of Boosted AdaSSP with one
ingredient swapped is the library's estimator when nothing is swapped, each swap changes the fit,
and its ridge-path oracle hits the degrees of freedom it asks for."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

rwd = importlib.import_module("regression_wdbc_diagnosis")


def _table(seed=0, n=300, d=4):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, [1.0, 10.0, 100.0, 1000.0][:d], size=(n, d))
    y = (X @ (1.0 / np.array([1.0, 10.0, 100.0, 1000.0][:d])) + 0.3 * rng.standard_normal(n)
         > 2.0).astype(float)
    t = SimpleNamespace(lo=np.zeros(d), hi=np.array([1.0, 10.0, 100.0, 1000.0][:d]),
                        y_lo=0.0, y_hi=1.0)
    return t, X[:200], y[:200], X[200:]


def test_peer_fit_without_a_swap_is_the_library_estimator():
    from matrixdp.models import BoostedAdaSSPRegression

    t, Xtr, ytr, Xte = _table()
    for seed in (1, 2):
        lib = BoostedAdaSSPRegression(epsilon=1.0, delta=1e-6, bounds_X=(t.lo, t.hi),
                                      bounds_y=(0.0, 1.0), residual_clip=0.5,
                                      random_state=seed).fit(Xtr, ytr).predict(Xte)
        ours = rwd.peer_fit(t, 1.0, Xtr, ytr, Xte, seed)
        # the same draws in the same order; the part-ε differ by the GDP round trip (≤ 1e-12)
        np.testing.assert_allclose(ours, lib, rtol=1e-8, atol=1e-10)
        # a different seed gives a different fit (the comparison is not vacuous)
        assert np.max(np.abs(ours - rwd.peer_fit(t, 1.0, Xtr, ytr, Xte, seed + 10))) > 1e-6


@pytest.mark.parametrize("swap", [{"unit": True}, {"T": 10}, {"tau_scale": 0.1},
                                  {"ridge_scale": 0.0}, {"split": (0.35, 0.35, 0.3)},
                                  {"exact_gram": True}, {"noiseless_rounds": True}])
def test_each_swap_changes_the_fit(swap):
    t, Xtr, ytr, Xte = _table()
    base = rwd.peer_fit(t, 1.0, Xtr, ytr, Xte, 3)
    assert np.max(np.abs(rwd.peer_fit(t, 1.0, Xtr, ytr, Xte, 3, **swap) - base)) > 1e-8


def test_noiseless_rounds_with_the_exact_gram_and_no_ridge_reach_least_squares():
    """The peer's fixed point: with the exact Gram, no ridge and unclipped residuals one round is
    an exact Newton step, so the oracle reaches the training split's least squares."""
    t, Xtr, ytr, Xte = _table()
    got = rwd.peer_fit(t, 1.0, Xtr, ytr, Xte, 4, T=3, ridge_scale=0.0, exact_gram=True,
                       noiseless_rounds=True, tau_scale=100.0)
    A = np.column_stack([Xtr, np.ones(len(ytr))])
    beta = np.linalg.lstsq(A, ytr, rcond=None)[0]
    np.testing.assert_allclose(got, np.column_stack([Xte, np.ones(len(Xte))]) @ beta, atol=1e-8)
