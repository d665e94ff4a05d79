"""``DPLinearRegression(boost_clip="consistent")`` (docs/regression.md §4j, issue #24 task RC2):
the late clip's switch measured against least squares' own excess error ``σ̂² p/n``: the fit
reaches OLS as ε grows (a skewed target), switches later than ``"late"`` where ``n/p`` is large
(so the error keeps falling on issue #24's acceptance table), is the fixed clip's fit bit for bit
where no round switches, keeps ``τ₀`` under add-remove without an intercept, and replays when
seeded."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp.models import DPLinearRegression, boosting
from matrixdp.models.experimental import RegressionOptions

@pytest.mark.parametrize("pinned", [False, True])
def test_the_consistent_clip_reaches_ols_on_a_skewed_target(heartlike, monkeypatch, pinned):
    """At ε = 10⁸ every round switches to the cap: test MSE within 1% of OLS's, coefficients and
    intercept within 0.01 — as ``boost_clip="consistent"`` and as the default with
    ``boosting.BOOST_CLIP_RULE`` pinned to it. The fixed clip fails the same bounds
    (test_linear_late_clip.py::test_the_fixed_clip_stays_at_the_huber_fit)."""
    X, y, Xt, yt, b, ols = heartlike
    if pinned:
        monkeypatch.setattr(boosting, "BOOST_CLIP_RULE", "consistent")
    kw = {} if pinned else {"experimental": RegressionOptions(boost_clip="consistent")}
    m = DPLinearRegression(epsilon=1e8, delta=1e-6, random_state=0, **kw,
                           **heartlike.bounds).fit(X, y)
    assert m.boost_branch_ == "rounds"
    assert all(c > 5.0 for c in m.boost_clips_)  # every round switched to the cap
    assert heartlike.mse(m) <= 1.01 * ols
    np.testing.assert_allclose(m.coef_, b[:-1], atol=0.01)
    assert m.intercept_ == pytest.approx(b[-1], abs=0.01)


def acceptance_table():
    """tests/models/test_linear.py::test_error_falls_with_epsilon_and_reaches_ols's training
    table (n = 20,000, d = 5, Gaussian noise sd 0.1, X in [-1, 1], y in [-3, 3])."""
    rng = np.random.default_rng(0)
    n, d = 20000, 5
    X = rng.uniform(-1, 1, (n, d))
    w = rng.uniform(-1, 1, d) / d * 2
    return X, np.clip(X @ w + 0.1 * rng.standard_normal(n), -3, 3)


def test_it_switches_later_than_the_late_clip_where_n_over_p_is_large():
    """On the acceptance table the late clip switches at ε = 10 (its yardstick 1% of σ̂² is far
    above OLS's excess error σ̂² p/n, p = 6, n = 20,000: §4i "Reverted"); the consistent clip keeps
    τ₀ there and at ε = 1000 (its fit is the fixed clip's bit for bit) and switches by ε = 10⁶."""
    X, y = acceptance_table()
    kw = dict(bounds_X=(-1, 1), bounds_y=(-3, 3), random_state=0)
    late = DPLinearRegression(epsilon=10.0, experimental=RegressionOptions(boost_clip="late"),
                              **kw).fit(X, y)
    assert min(late.boost_clips_) > 0.75
    for eps in (10.0, 1e3):
        cons = DPLinearRegression(epsilon=eps,
                                  experimental=RegressionOptions(boost_clip="consistent"), **kw).fit(X, y)
        fixed = DPLinearRegression(epsilon=eps, experimental=RegressionOptions(boost_clip="fixed"),
                                   **kw).fit(X, y)
        assert cons.boost_clips_ == fixed.boost_clips_ == (0.75, 0.75)
        np.testing.assert_array_equal(cons.coef_, fixed.coef_)
        assert cons.intercept_ == fixed.intercept_
    big = DPLinearRegression(epsilon=1e6, experimental=RegressionOptions(boost_clip="consistent"),
                             **kw).fit(X, y)
    assert min(big.boost_clips_) > 3.0


def test_add_remove_without_an_intercept_keeps_tau0(heartlike):
    """No released count (add-remove, no constant): the rule cannot be read and every round keeps
    τ₀ = h_y/4 (here 10: no intercept, h_y = max |bound| = 40): the fit is the fixed clip's bit for
    bit even at ε = 10⁸. With an intercept the same relation releases n̂ and the rounds switch."""
    X, y = heartlike[:2]
    kw = dict(epsilon=1e8, delta=1e-6, neighbouring="add-remove", random_state=2,
              **heartlike.bounds)
    cons = DPLinearRegression(experimental=RegressionOptions(boost_clip="consistent"),
                              fit_intercept=False, **kw).fit(X, y)
    fixed = DPLinearRegression(experimental=RegressionOptions(boost_clip="fixed"),
                               fit_intercept=False, **kw).fit(X, y)
    assert cons.boost_branch_ == fixed.boost_branch_
    assert cons.boost_clips_ == fixed.boost_clips_
    np.testing.assert_array_equal(cons.coef_, fixed.coef_)
    with_icpt = DPLinearRegression(experimental=RegressionOptions(boost_clip="consistent"),
                                   **kw).fit(X, y)
    assert with_icpt.boost_branch_ == "rounds" and all(c > 5.0 for c in with_icpt.boost_clips_)


def test_a_seeded_consistent_fit_replays(heartlike):
    """A seeded fit is replayable by whoever knows the seed (switched rounds included); another
    seed gives another fit."""
    X, y = heartlike[:2]
    a, b = (DPLinearRegression(epsilon=1e4,
                               experimental=RegressionOptions(boost_clip="consistent"), random_state=11,
                               **heartlike.bounds).fit(X, y) for _ in range(2))
    c = DPLinearRegression(epsilon=1e4, experimental=RegressionOptions(boost_clip="consistent"),
                           random_state=12,
                           **heartlike.bounds).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.intercept_ == b.intercept_ and a.boost_clips_ == b.boost_clips_
    assert a.boost_clips_[0] > 5.0
    assert not np.array_equal(a.coef_, c.coef_)
