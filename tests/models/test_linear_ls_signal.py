"""DPLinearRegression(boost_rounds="ls-signal") (docs/regression.md §4h, task R9): in §4e's
fallback branch, ``"ls-fallback"``'s least-squares rounds only where the joint release's
explained share of the label variance (``released_r2``, lower confidence value) is at least
``BOOST_SIGNAL_R2``; otherwise §4e's second joint release. The gate is post-processing of the
release, the charge is one spend of ε before any draw whichever branch runs, each LS round has
the noise of its (T_ls, τ), and every branch is bit for bit the fit it stands for."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp.accounting import Accountant
from matrixdp.errors import BudgetExceededError, InvalidParameterError
from matrixdp.models import DPLinearRegression, boosting
from matrixdp.models.boosting import BOOST_LS_ROUNDS
from matrixdp.models.experimental import RegressionOptions

BIN = dict(bounds_X=(-1, 1), bounds_y=(0, 1))


def noise_table(n=1500, seed=3, d=4):
    """A 0/1 target independent of the features: no signal (population R² = 0)."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (n, d)), (rng.uniform(size=n) < 0.5).astype(float)


def same_fit(a, b) -> bool:
    return np.array_equal(a.coef_, b.coef_) and a.intercept_ == b.intercept_



# ---- the estimator ----------------------------------------------------------------------------

def test_a_clip_is_refused_and_a_level_opt_in_keeps_the_single_release(boost_tables):
    X, y = boost_tables.binary(300)
    with pytest.raises(InvalidParameterError, match="boost_clip"):
        DPLinearRegression(experimental=RegressionOptions(boost_rounds="ls-signal",
                                                          boost_clip=0.5), **BIN).fit(X, y)
    est = DPLinearRegression(experimental=RegressionOptions(boost_rounds="ls-signal",
                                                            level_share=0.3), random_state=0,
                             **BIN).fit(X, y)
    assert est.boost_rounds_ == 0 and est.boost_branch_ == "single-release"
    assert est.boost_signal_ is None
    with pytest.raises(InvalidParameterError, match="ls-signal"):
        DPLinearRegression(experimental=RegressionOptions(boost_rounds="signal"), **BIN).fit(X, y)


@pytest.mark.parametrize("seed", range(3))
def test_the_rounds_branch_is_the_default_fit_bit_for_bit(boost_tables, seed):
    X, y = boost_tables.smooth(seed=seed)
    kw = dict(epsilon=3.0, random_state=seed, **BIN)
    auto = DPLinearRegression(experimental=RegressionOptions(boost_rounds="auto"), **kw).fit(X, y)
    new = DPLinearRegression(experimental=RegressionOptions(boost_rounds="ls-signal"),
                             **kw).fit(X, y)
    assert auto.boost_branch_ == new.boost_branch_ == "rounds"
    assert same_fit(new, auto) and new.boost_signal_ is None


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
@pytest.mark.parametrize("seed", range(2))
def test_gate_open_is_ls_fallback_and_gate_closed_is_auto_bit_for_bit(boost_tables, monkeypatch,
                                                                      relation, seed):
    X, y = boost_tables.binary(seed=seed)
    kw = dict(epsilon=3.0, random_state=seed, neighbouring=relation, **BIN)
    auto = DPLinearRegression(experimental=RegressionOptions(boost_rounds="auto"), **kw).fit(X, y)
    ls = DPLinearRegression(experimental=RegressionOptions(boost_rounds="ls-fallback"),
                            **kw).fit(X, y)
    assert auto.boost_branch_ == "second-release" and ls.boost_branch_ == "ls-rounds"
    monkeypatch.setattr(boosting, "BOOST_SIGNAL_R2", -1.0)  # open
    opened = DPLinearRegression(experimental=RegressionOptions(boost_rounds="ls-signal"),
                                **kw).fit(X, y)
    assert opened.boost_branch_ == "ls-rounds" and same_fit(opened, ls)
    assert opened.boost_rounds_ == BOOST_LS_ROUNDS
    monkeypatch.setattr(boosting, "BOOST_SIGNAL_R2", 1.0)  # closed (R² ≤ 1 up to its noise)
    closed = DPLinearRegression(experimental=RegressionOptions(boost_rounds="ls-signal"),
                                **kw).fit(X, y)
    assert closed.boost_branch_ == "second-release" and same_fit(closed, auto)
    assert closed.boost_signal_ == opened.boost_signal_  # read before the branch, the same
    assert closed.boost_signal_["lower"] < 1.0 <= closed.boost_signal_["upper"] + 1.0


def test_the_committed_gate_follows_the_signal(boost_tables):
    """At the committed r₀: a strong-signal 0/1 table takes the LS rounds at a large ε, a 0/1
    target independent of the features keeps the second release at every ε."""
    X, y = boost_tables.binary(3000, seed=5)
    strong = DPLinearRegression(epsilon=10.0,
                                experimental=RegressionOptions(boost_rounds="ls-signal"), random_state=0,
                                **BIN).fit(X, y)
    assert strong.boost_signal_["lower"] >= boosting.BOOST_SIGNAL_R2
    assert strong.boost_branch_ == "ls-rounds"
    Xn, yn = noise_table(3000)
    for eps in (1.0, 10.0, 100.0):
        none = DPLinearRegression(epsilon=eps,
                                  experimental=RegressionOptions(boost_rounds="ls-signal"), random_state=0,
                                  **BIN).fit(Xn, yn)
        assert none.boost_branch_ == "second-release"
        assert none.boost_signal_["lower"] < boosting.BOOST_SIGNAL_R2


@pytest.mark.parametrize("gate", ["open", "closed"])
def test_one_charge_of_epsilon_before_any_draw(boost_tables, monkeypatch, gaussian_releases, gate):
    X, y = boost_tables.binary(800, slope=1.0)  # weak signal: §4e falls back at this ε
    monkeypatch.setattr(boosting, "BOOST_SIGNAL_R2", -1.0 if gate == "open" else 1.0)
    draws = gaussian_releases
    small = Accountant(epsilon=1.5, delta=1e-5)
    with pytest.raises(BudgetExceededError):
        DPLinearRegression(epsilon=2.0, noise="iid",
                           experimental=RegressionOptions(boost_rounds="ls-signal"),
                           accountant=small, random_state=0, **BIN).fit(X, y)
    assert small.spends == () and draws == []  # refused before any draw
    acc = Accountant(epsilon=2.0, delta=1e-5)
    est = DPLinearRegression(epsilon=2.0, noise="iid",
                             experimental=RegressionOptions(boost_rounds="ls-signal"),
                             accountant=acc, random_state=0, **BIN).fit(X, y)
    assert len(acc.spends) == 1
    assert acc.spends[0][1].epsilon == pytest.approx(2.0, rel=1e-6)
    assert est.privacy_.epsilon == pytest.approx(2.0, rel=1e-6)
    if gate == "open":
        assert est.boost_branch_ == "ls-rounds"
        assert len(draws) == 1 + BOOST_LS_ROUNDS  # the joint release and T_ls rounds
    else:
        assert est.boost_branch_ == "second-release"
        assert len(draws) == 2  # the joint and the second release


def test_the_gate_is_a_function_of_the_release_only(boost_tables, joint_release):
    """The no-signal table's fit with the strong table's joint release substituted reads the
    strong table's R̂² and takes the LS rounds (its own release keeps the second release)."""
    Xa, ya = boost_tables.binary(3000, seed=5)
    Xb, yb = noise_table(3000)
    kw = dict(epsilon=10.0, experimental=RegressionOptions(boost_rounds="ls-signal"),
              random_state=2, **BIN)
    a, rel_a = joint_release.fit(DPLinearRegression(**kw), Xa, ya)
    b = DPLinearRegression(**kw).fit(Xb, yb)
    assert (a.boost_branch_, b.boost_branch_) == ("ls-rounds", "second-release")  # not vacuous
    got = joint_release.fit_with(DPLinearRegression(**kw), Xb, yb, rel_a)
    assert got.boost_branch_ == "ls-rounds"
    assert got.boost_signal_ == a.boost_signal_


@pytest.mark.parametrize("factor,accept", [(1.0, True), (1.3, False), (0.7, False)])
def test_each_round_has_the_noise_of_its_count_and_clip(boost_tables, ls_rounds_noise, factor,
                                                        accept):
    """Where the gate opens, every least-squares round's release has the planned σ of
    (T_ls, τ = h_y): pooled over 40 fits × T_ls rounds × 5 coordinates, sd within ±10%; 0.7×
    and 1.3× rejected."""
    X, y = boost_tables.binary(3000, seed=5)
    sd, sigma = ls_rounds_noise("ls-signal", X, y, eps=10.0)
    assert (abs(sd / (factor * sigma) - 1) < 0.10) is accept
