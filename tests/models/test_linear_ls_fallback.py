"""DPLinearRegression(boost_rounds="ls-fallback") (docs/regression.md §4g, task R8): in §4e's
fallback branch, ``BOOST_LS_ROUNDS`` rounds at the least-squares clip instead of the second joint
release — the branch is post-processing of the release, the charge is one spend of ε before any
draw, each round has the noise of its (T_ls, τ), and the rounds branch is §4e's fit unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp.accounting import Accountant
from matrixdp.errors import BudgetExceededError, InvalidParameterError
from matrixdp.models import DPLinearRegression
from matrixdp.models.boosting import BOOST_LS_ROUNDS
from matrixdp.models.experimental import RegressionOptions

BIN = dict(bounds_X=(-1, 1), bounds_y=(0, 1))


def test_a_clip_is_refused_and_a_level_opt_in_keeps_the_single_release(boost_tables):
    X, y = boost_tables.binary(300, slope=1.0)
    with pytest.raises(InvalidParameterError, match="boost_clip"):
        DPLinearRegression(experimental=RegressionOptions(boost_rounds="ls-fallback",
                                                          boost_clip=0.5), **BIN).fit(X, y)
    est = DPLinearRegression(experimental=RegressionOptions(boost_rounds="ls-fallback",
                                                            level_share=0.3), random_state=0,
                             **BIN).fit(X, y)
    assert est.boost_rounds_ == 0 and est.boost_branch_ == "single-release"
    with pytest.raises(InvalidParameterError, match="ls-fallback"):
        DPLinearRegression(experimental=RegressionOptions(boost_rounds="ls"), **BIN).fit(X, y)


@pytest.mark.parametrize("seed", range(3))
def test_the_rounds_branch_is_the_default_fit_bit_for_bit(boost_tables, seed):
    X, y = boost_tables.smooth(seed=seed)
    kw = dict(epsilon=3.0, random_state=seed, **BIN)
    auto = DPLinearRegression(experimental=RegressionOptions(boost_rounds="auto"), **kw).fit(X, y)
    new = DPLinearRegression(experimental=RegressionOptions(boost_rounds="ls-fallback"),
                             **kw).fit(X, y)
    assert auto.boost_branch_ == new.boost_branch_ == "rounds"
    np.testing.assert_array_equal(new.coef_, auto.coef_)
    assert new.intercept_ == auto.intercept_


@pytest.mark.parametrize("seed", range(3))
def test_the_fallback_branch_runs_the_least_squares_rounds(boost_tables, seed):
    X, y = boost_tables.binary(seed=seed, slope=1.0)
    kw = dict(epsilon=3.0, random_state=seed, **BIN)
    auto = DPLinearRegression(experimental=RegressionOptions(boost_rounds="auto"), **kw).fit(X, y)
    new = DPLinearRegression(experimental=RegressionOptions(boost_rounds="ls-fallback"),
                             **kw).fit(X, y)
    assert auto.boost_branch_ == "second-release"
    assert new.boost_branch_ == "ls-rounds"
    assert new.boost_rounds_ == BOOST_LS_ROUNDS
    # τ = min(h_y, h_y + Σ w|β₀|) = h_y = 1/2 on [0, 1]
    assert new.boost_clips_ == (0.5,) * BOOST_LS_ROUNDS and new.boost_clip_ == 0.5
    assert not np.array_equal(new.coef_, auto.coef_)
    again = DPLinearRegression(experimental=RegressionOptions(boost_rounds="ls-fallback"),
                               **kw).fit(X, y)
    np.testing.assert_array_equal(again.coef_, new.coef_)  # a seeded fit replays


def test_one_charge_of_epsilon_before_any_draw(boost_tables, gaussian_releases):
    X, y = boost_tables.binary(800, slope=1.0)
    draws = gaussian_releases
    small = Accountant(epsilon=1.5, delta=1e-5)
    with pytest.raises(BudgetExceededError):
        DPLinearRegression(epsilon=2.0, noise="iid",
                           experimental=RegressionOptions(boost_rounds="ls-fallback"),
                           accountant=small, random_state=0, **BIN).fit(X, y)
    assert small.spends == () and draws == []  # refused before any draw
    acc = Accountant(epsilon=2.0, delta=1e-5)
    est = DPLinearRegression(epsilon=2.0, noise="iid",
                             experimental=RegressionOptions(boost_rounds="ls-fallback"),
                             accountant=acc, random_state=0, **BIN).fit(X, y)
    assert est.boost_branch_ == "ls-rounds"
    assert len(acc.spends) == 1
    assert acc.spends[0][1].epsilon == pytest.approx(2.0, rel=1e-6)
    assert est.privacy_.epsilon == pytest.approx(2.0, rel=1e-6)
    assert len(draws) == 1 + BOOST_LS_ROUNDS  # the joint release and T_ls rounds


def test_the_branch_is_a_function_of_the_release_only(boost_tables, joint_release):
    """The smooth table's fit with the 0/1 table's joint release substituted takes the
    least-squares rounds (its own release takes §4e's rounds)."""
    Xa, ya = boost_tables.binary(1500, seed=4, slope=1.0)
    Xb, yb = boost_tables.smooth(1500, seed=5)
    kw = dict(epsilon=3.0, experimental=RegressionOptions(boost_rounds="ls-fallback"),
              random_state=2, **BIN)
    a, rel_a = joint_release.fit(DPLinearRegression(**kw), Xa, ya)
    b = DPLinearRegression(**kw).fit(Xb, yb)
    assert (a.boost_branch_, b.boost_branch_) == ("ls-rounds", "rounds")  # not vacuous
    got = joint_release.fit_with(DPLinearRegression(**kw), Xb, yb, rel_a)
    assert got.boost_branch_ == "ls-rounds"
    assert got.boost_residual_scale_ == a.boost_residual_scale_


@pytest.mark.parametrize("factor,accept", [(1.0, True), (1.3, False), (0.7, False)])
def test_each_round_has_the_noise_of_its_count_and_clip(boost_tables, ls_rounds_noise, factor,
                                                        accept):
    """Every least-squares round's release has the planned σ of (T_ls, τ = h_y): pooled over 40
    fits × T_ls rounds × 5 coordinates, sd within ±10%; 0.7× and 1.3× rejected."""
    X, y = boost_tables.binary(1000, slope=1.0)
    sd, sigma = ls_rounds_noise("ls-fallback", X, y, eps=2.0)
    assert (abs(sd / (factor * sigma) - 1) < 0.10) is accept
