"""models/boosted_fit.py: the boosted fit's plan is built from public inputs only, and its run
charges exactly the plan's ``total``, once, before any draw, whichever branch the release picks
(docs/regression.md §4c-§4h)."""

from __future__ import annotations

import numpy as np
import pytest

import matrixdp.models.linear as lin
from matrixdp.models import DPLinearRegression
from matrixdp.models.boosted_fit import BoostedFitPlan, SINGLE_RELEASE
from matrixdp.models.boosting import BOOST_LS_ROUNDS
from matrixdp.models.experimental import RegressionOptions

BIN = dict(bounds_X=(-1, 1), bounds_y=(0, 1))


class SpendSpy:
    """A budget keeper (``spend(guarantee, label=...)``) that records each guarantee and how many
    Gaussian releases had been drawn when it was charged."""

    def __init__(self, releases):
        self.releases, self.spends = releases, []

    def spend(self, guarantee, label=None):
        self.spends.append((guarantee, len(self.releases)))


@pytest.fixture
def plans(monkeypatch) -> list:
    """Every plan ``DPLinearRegression.fit`` builds, in order."""
    built, original = [], lin.plan_boosted_fit

    def spy(*args, **kwargs):
        built.append(original(*args, **kwargs))
        return built[-1]

    monkeypatch.setattr(lin, "plan_boosted_fit", spy)
    return built


@pytest.mark.parametrize("table,option,branch,draws", [
    ("smooth", "auto", "rounds", 3),  # the joint release and 2 rounds
    ("binary", "auto", "second-release", 2),  # the joint and the second release
    ("binary", "ls-fallback", "ls-rounds", 1 + BOOST_LS_ROUNDS),
    ("binary", "predict", "rounds", None),  # 1 + the chosen T
    ("binary", 3, "rounds", 4),
])
def test_the_charge_is_the_plans_total_once_before_any_draw(boost_tables, gaussian_releases,
                                                            plans, table, option, branch, draws):
    X, y = boost_tables.smooth() if table == "smooth" else boost_tables.binary(seed=0)
    keeper = SpendSpy(gaussian_releases)
    est = DPLinearRegression(epsilon=30.0, noise="iid",
                             experimental=RegressionOptions(boost_rounds=option), accountant=keeper,
                             random_state=0, **BIN).fit(X, y)
    assert est.boost_branch_ == branch
    (plan,) = plans
    assert isinstance(plan, BoostedFitPlan)
    assert keeper.spends == [(plan.total, 0)]  # exactly the plan's total, before any draw
    assert plan.total.epsilon == pytest.approx(30.0, rel=1e-6)
    expected = 1 + est.boost_rounds_ if draws is None else draws
    assert est.boost_rounds_ > 0 or draws is not None
    assert len(gaussian_releases) == expected
    assert est.privacy_.mu == pytest.approx(plan.total.mu, rel=1e-12)


def test_the_plan_is_a_function_of_public_inputs_only(boost_tables, plans):
    """Two tables of the same public shape (n, boxes) and options give the same plan: the same
    mechanisms, clip and total; the records reach only the run."""
    (X1, y1), (X2, y2) = boost_tables.smooth(seed=1), boost_tables.binary(1500, seed=2)
    for X, y in ((X1, y1), (X2, y2)):
        DPLinearRegression(epsilon=3.0, random_state=0, **BIN).fit(X, y)
    a, b = plans
    # "auto" is §4e's decision with §4k's bias gate in its fallback since task RW
    assert a.total == b.total and a.rule == b.rule == "bias-gated"
    assert (a.rounds, a.clip, a.clip_rule) == (b.rounds, b.clip, b.clip_rule)
    assert a.mech_round.sigma == b.mech_round.sigma
    assert a.joint[0].mechanism.privacy == b.joint[0].mechanism.privacy
    np.testing.assert_array_equal(a.joint[0].entry_variance, b.joint[0].entry_variance)


def test_without_boosting_no_plan_and_the_single_release_record(boost_tables, plans):
    X, y = boost_tables.smooth()
    est = DPLinearRegression(epsilon=3.0, experimental=RegressionOptions(boost_rounds=0),
                             random_state=0, **BIN).fit(X, y)
    assert plans == []
    for name, value in SINGLE_RELEASE.fitted_attributes().items():
        assert getattr(est, name) == value
    assert est.boost_branch_ == "single-release" and est.boost_rounds_ == 0


def test_the_consistent_clip_keeps_the_one_charge(boost_tables, gaussian_releases, plans):
    """§4j: ``boost_clip="consistent"`` charges the plan's total once, before any draw, whether
    its rounds switch (ε = 10⁸) or not (ε = 1); a switched round's mechanism keeps the planned
    round's ε and scales its σ by τ_k/τ₀ exactly; the total is the fixed clip's."""
    X, y = boost_tables.smooth()
    for eps, switched in ((1.0, False), (1e8, True)):
        keeper = SpendSpy(gaussian_releases)
        start = len(gaussian_releases)
        est = DPLinearRegression(epsilon=eps,
                                 experimental=RegressionOptions(boost_clip="consistent",
                                                                boost_rounds=2), noise="iid",
                                 accountant=keeper, random_state=0, **BIN).fit(X, y)
        fixed = DPLinearRegression(epsilon=eps, experimental=RegressionOptions(boost_clip="fixed",
                                                                               boost_rounds=2), noise="iid",
                                   random_state=0, **BIN).fit(X, y)
        plan = plans[-2]
        assert keeper.spends == [(plan.total, start)]  # once, before this fit's first draw
        assert plan.total == plans[-1].total  # the fixed clip's charge
        assert plan.total.epsilon == pytest.approx(eps, rel=1e-6)
        rounds = gaussian_releases[start + 1:start + 3]
        assert len(rounds) == 2 and est.boost_rounds_ == 2
        for (mech, _, _), tau in zip(rounds, est.boost_clips_):
            assert (tau > plan.clip) == switched
            assert mech.privacy.epsilon == pytest.approx(plan.mech_round.privacy.epsilon,
                                                         rel=1e-12)
            assert mech.sigma == pytest.approx(plan.mech_round.sigma * tau / plan.clip, rel=1e-12)
        assert est.privacy_.mu == pytest.approx(plan.total.mu, rel=1e-12)
        assert fixed.boost_clips_ == (plan.clip, plan.clip)
