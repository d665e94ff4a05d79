"""DPLinearRegression(boost_rounds="bias-gated") (docs/regression.md §4k, issue #24 task RW): in
§4e's fallback branch, ``BOOST_BIAS_GATE_ROUNDS`` least-squares rounds at τ = min(h_y, cap) iff
the shrinkage bias they are predicted to remove exceeds ``BOOST_BIAS_GATE_RATIO`` times the noise
they are predicted to add (``boosting.bias_gate_reading``); otherwise §4e's second joint release.
The gate is post-processing of the joint release; the charge is one spend of ε before any draw
whichever branch runs; every branch is bit for bit the fit it stands for; invalid values are
refused before any charge."""

from __future__ import annotations

import math

import numpy as np
import pytest

from matrixdp.accounting import Accountant
from matrixdp.errors import BudgetExceededError, InvalidParameterError
from matrixdp.models import DPLinearRegression, boosting
from matrixdp.models.boosting import bias_gate, bias_gate_reading, boosted_covariance
from matrixdp.models.experimental import RegressionOptions

BIN = dict(bounds_X=(-1, 1), bounds_y=(0, 1))


def wide_table(n=400, d=30, seed=0):
    """A wdbc-like table: 30 features driven by 3 latent factors (an ill-conditioned Gram: the
    adaptive ridge binds hard at any ε), a 0/1 target with strong signal (residuals near ±1/2,
    far above τ₀ = h_y/4: §4e falls back)."""
    rng = np.random.default_rng(seed)
    F = rng.uniform(-1, 1, (n, 3))
    L = rng.uniform(-1, 1, (3, d))
    X = np.clip(F @ L / 2 + 0.3 * rng.uniform(-1, 1, (n, d)), -1, 1)
    p = 1.0 / (1.0 + np.exp(-3.0 * (F @ np.array([1.5, -1.0, 0.8]))))
    return X, (rng.uniform(size=n) < p).astype(float)


def weak_table(n=150, d=8, seed=0):
    """A small low-signal 0/1 table (the trap tables' kind: lbw, burn, FriendFoe)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    p = 1.0 / (1.0 + np.exp(-(X @ np.linspace(0.6, -0.6, d))))
    return X, (rng.uniform(size=n) < p).astype(float)


def same_fit(a, b) -> bool:
    return np.array_equal(a.coef_, b.coef_) and a.intercept_ == b.intercept_


# ---- the readings (closed forms) ---------------------------------------------------------------

@pytest.mark.parametrize("T", [1, 3, 10])
def test_reading_is_the_scalar_closed_form(T):
    """1 × 1: M = m₀ + λ. P = −λ/M, K = λ/M, A_T the mean of K^k over the last ⌈T/2⌉ k;
    bias = m₀ β² (P² − (A_T P)²), sampling = σ² ((1 + A_T P)² − (1 + P)²), noise from
    ``boosted_covariance`` with no start noise, in the m₀ norm."""
    m0, lam, beta, sr, s2, w = 3.0, 5.0, 0.7, 0.4, 0.2, 1.5
    M = m0 + lam
    P, k = -lam / M, lam / M
    tail = range(T - (T + 1) // 2 + 1, T + 1)
    A = sum(k ** j for j in tail) / len(tail)
    got = bias_gate_reading(np.array([beta]), np.array([[M]]), np.array([[m0]]), np.array([w]),
                            sr, T, sigma2=s2)
    assert got["bias"] == pytest.approx(m0 * beta ** 2 * (P ** 2 - (A * P) ** 2), rel=1e-12)
    assert got["sampling"] == pytest.approx(s2 * ((1 + A * P) ** 2 - (1 + P) ** 2), rel=1e-12)
    cov = boosted_covariance(np.zeros((1, 1)), np.array([[k]]), np.array([[w / M]]), sr, T)
    assert got["noise"] == pytest.approx(m0 * cov[0, 0], rel=1e-12)
    assert got["noise"] > 0 and got["bias"] > 0 and got["sampling"] > 0


def test_no_lift_no_bias_and_the_gate_shuts():
    """Without the adaptive lift (M = M₀) there is no shrinkage to remove: bias 0, gate shut."""
    M = np.array([[4.0, 1.0], [1.0, 3.0]])
    r = bias_gate_reading(np.array([1.0, -2.0]), M, M, np.ones(2), 0.5, 10, sigma2=0.3)
    assert r["bias"] == pytest.approx(0.0, abs=1e-12)
    assert r["sampling"] == pytest.approx(0.0, abs=1e-12)
    assert not bias_gate(r)


def test_the_gate_compares_bias_with_ratio_times_noise_plus_sampling():
    r = {"bias": 3.0, "noise": 8.0, "sampling": 2.0}
    assert bias_gate(r, ratio=0.29) and not bias_gate(r, ratio=0.3)
    assert not bias_gate({"bias": 3.0, "noise": 8.0, "sampling": math.nan})  # no count: shut
    assert not bias_gate(None)
    with pytest.raises(ValueError, match="bias"):
        bias_gate_reading(np.ones(1), np.eye(1), np.eye(1), np.ones(1), 1.0, 3, bias="oracle")


# ---- the estimator ----------------------------------------------------------------------------

def test_invalid_values_are_refused_before_any_charge(gaussian_releases):
    X, y = weak_table()
    acc = Accountant(epsilon=10.0, delta=1e-5)
    for kw in ({"boost_rounds": "bias-gate"}, {"boost_rounds": "bias-gated", "boost_clip": 0.5}):
        with pytest.raises(InvalidParameterError):
            DPLinearRegression(accountant=acc, experimental=RegressionOptions(**kw),
                               **BIN).fit(X, y)
    assert acc.spends == () and gaussian_releases == []
    est = DPLinearRegression(experimental=RegressionOptions(boost_rounds="bias-gated",
                                                            level_share=0.3), random_state=0,
                             **BIN).fit(X, y)  # a level opt-in keeps the single release
    assert est.boost_rounds_ == 0 and est.boost_bias_gate_ is None


@pytest.mark.parametrize("seed", range(3))
def test_off_and_the_rounds_branch_are_the_previous_default_fit_bit_for_bit(boost_tables, seed):
    """Where §4e runs its rounds the gate reads nothing: the default ("auto", the gate since
    task RW), the explicit option and the previous default ("adaptive", §4e alone) are the same
    fit, the gate's attribute None."""
    X, y = boost_tables.smooth(seed=seed)
    kw = dict(epsilon=3.0, random_state=seed, **BIN)
    prev = DPLinearRegression(experimental=RegressionOptions(boost_rounds="adaptive"),
                              **kw).fit(X, y)
    new = DPLinearRegression(experimental=RegressionOptions(boost_rounds="bias-gated"),
                             **kw).fit(X, y)
    auto = DPLinearRegression(**kw).fit(X, y)
    assert prev.boost_branch_ == new.boost_branch_ == auto.boost_branch_ == "rounds"
    assert same_fit(new, prev) and same_fit(auto, prev)
    assert new.boost_bias_gate_ is None and prev.boost_bias_gate_ is None


def test_the_default_is_the_bias_gate_and_adaptive_the_previous_default(monkeypatch):
    """"auto" resolves to boosting.BOOST_AUTO_RULE = "bias-gated" (task RW): on the wide table at
    ε = 10 it is the explicit option's fit bit for bit and opens; pinning BOOST_AUTO_RULE to
    "auto" gives §4e alone, "adaptive"'s fit bit for bit (the second release)."""
    assert boosting.BOOST_AUTO_RULE == "bias-gated"
    X, y = wide_table()
    kw = dict(epsilon=10.0, random_state=3, **BIN)
    auto = DPLinearRegression(**kw).fit(X, y)
    gated = DPLinearRegression(experimental=RegressionOptions(boost_rounds="bias-gated"),
                               **kw).fit(X, y)
    prev = DPLinearRegression(experimental=RegressionOptions(boost_rounds="adaptive"),
                              **kw).fit(X, y)
    assert auto.boost_branch_ == "ls-rounds" and same_fit(auto, gated)
    assert prev.boost_branch_ == "second-release" and prev.boost_bias_gate_ is None
    monkeypatch.setattr(boosting, "BOOST_AUTO_RULE", "auto")
    pinned = DPLinearRegression(**kw).fit(X, y)
    assert pinned.boost_branch_ == "second-release" and same_fit(pinned, prev)


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_gate_closed_is_adaptive_and_open_is_ls_rounds_bit_for_bit(monkeypatch, relation):
    X, y = wide_table()
    kw = dict(epsilon=10.0, random_state=1, neighbouring=relation, **BIN)
    auto = DPLinearRegression(experimental=RegressionOptions(boost_rounds="adaptive"),
                              **kw).fit(X, y)  # §4e alone
    assert auto.boost_branch_ == "second-release"
    monkeypatch.setattr(boosting, "BOOST_BIAS_GATE_RATIO", math.inf)  # closed
    closed = DPLinearRegression(experimental=RegressionOptions(boost_rounds="bias-gated"),
                                **kw).fit(X, y)
    assert closed.boost_branch_ == "second-release" and same_fit(closed, auto)
    monkeypatch.setattr(boosting, "BOOST_BIAS_GATE_RATIO", -math.inf)  # open
    monkeypatch.setattr(boosting, "BOOST_LS_ROUNDS", boosting.BOOST_BIAS_GATE_ROUNDS)
    opened = DPLinearRegression(experimental=RegressionOptions(boost_rounds="bias-gated"),
                                **kw).fit(X, y)
    ls = DPLinearRegression(experimental=RegressionOptions(boost_rounds="ls-fallback"),
                            **kw).fit(X, y)
    assert opened.boost_branch_ == ls.boost_branch_ == "ls-rounds" and same_fit(opened, ls)
    assert opened.boost_rounds_ == boosting.BOOST_BIAS_GATE_ROUNDS
    assert opened.boost_bias_gate_ == closed.boost_bias_gate_  # read before the branch


def test_the_committed_gate_opens_on_strong_shrinkage_and_stays_shut_on_a_weak_table():
    """At the committed T, plug-in and ratio: the wide strong-signal table takes the rounds at
    ε = 10 and 30 on every seed; the small low-signal 0/1 table keeps the second release at
    ε = 3, 10, 30 on every seed (its fits fall back there)."""
    Xw, yw = wide_table()
    Xs, ys = weak_table()
    for eps in (10.0, 30.0):
        for s in range(5):
            m = DPLinearRegression(epsilon=eps,
                                   experimental=RegressionOptions(boost_rounds="bias-gated"), random_state=s,
                                   **BIN).fit(Xw, yw)
            assert m.boost_branch_ == "ls-rounds"
            g = m.boost_bias_gate_
            assert g["bias"] > boosting.BOOST_BIAS_GATE_RATIO * (g["noise"] + g["sampling"])
    for eps in (3.0, 10.0, 30.0):
        for s in range(5):
            m = DPLinearRegression(epsilon=eps,
                                   experimental=RegressionOptions(boost_rounds="bias-gated"), random_state=s,
                                   **BIN).fit(Xs, ys)
            assert m.boost_branch_ == "second-release"
            g = m.boost_bias_gate_
            assert g["bias"] <= boosting.BOOST_BIAS_GATE_RATIO * (g["noise"] + g["sampling"])


@pytest.mark.parametrize("gate", ["open", "closed"])
def test_one_charge_of_epsilon_before_any_draw(boost_tables, monkeypatch, gaussian_releases,
                                              gate):
    X, y = boost_tables.binary(800, slope=1.0)  # weak signal: §4e falls back
    monkeypatch.setattr(boosting, "BOOST_BIAS_GATE_RATIO", -math.inf if gate == "open"
                        else math.inf)
    draws = gaussian_releases
    # the first seed whose joint release (noise="iid": one Gaussian draw) falls back (§4e)
    seed = next(s for s in range(20) if DPLinearRegression(
        epsilon=10.0, noise="iid", experimental=RegressionOptions(boost_rounds="adaptive"), random_state=s, **BIN).fit(
        X, y).boost_branch_
        == "second-release")
    draws.clear()
    small = Accountant(epsilon=9.0, delta=1e-5)
    with pytest.raises(BudgetExceededError):
        DPLinearRegression(epsilon=10.0, noise="iid",
                           experimental=RegressionOptions(boost_rounds="bias-gated"),
                           accountant=small, random_state=seed, **BIN).fit(X, y)
    assert small.spends == () and draws == []  # refused before any draw
    acc = Accountant(epsilon=10.0, delta=1e-5)
    est = DPLinearRegression(epsilon=10.0, noise="iid",
                             experimental=RegressionOptions(boost_rounds="bias-gated"),
                             accountant=acc, random_state=seed, **BIN).fit(X, y)
    assert len(acc.spends) == 1
    assert acc.spends[0][1].epsilon == pytest.approx(10.0, rel=1e-6)
    assert est.privacy_.epsilon == pytest.approx(10.0, rel=1e-6)
    assert not any(k.startswith("_") and "rng" in k.lower() for k in vars(est))
    if gate == "open":
        assert est.boost_branch_ == "ls-rounds"
        assert len(draws) == 1 + boosting.BOOST_BIAS_GATE_ROUNDS
    else:
        assert est.boost_branch_ == "second-release"
        assert len(draws) == 2


def test_the_gate_is_a_function_of_the_release_only(joint_release):
    """A table of the same shape whose target is independent of the features keeps the second
    release; with the wide table's joint release substituted it reads the wide table's bias and
    noise and takes the rounds."""
    Xa, ya = wide_table()
    Xb = wide_table(seed=7)[0]
    yb = (np.random.default_rng(8).uniform(size=Xb.shape[0]) < 0.5).astype(float)
    kw = dict(epsilon=10.0, experimental=RegressionOptions(boost_rounds="bias-gated"),
              random_state=2, **BIN)
    a, rel_a = joint_release.fit(DPLinearRegression(**kw), Xa, ya)
    b = DPLinearRegression(**kw).fit(Xb, yb)
    assert (a.boost_branch_, b.boost_branch_) == ("ls-rounds", "second-release")
    got = joint_release.fit_with(DPLinearRegression(**kw), Xb, yb, rel_a)
    assert got.boost_branch_ == "ls-rounds"
    assert got.boost_bias_gate_["bias"] == a.boost_bias_gate_["bias"]
    assert got.boost_bias_gate_["noise"] == a.boost_bias_gate_["noise"]


@pytest.mark.parametrize("factor,accept", [(1.0, True), (1.3, False), (0.7, False)])
def test_each_round_has_the_noise_of_its_count_and_clip(monkeypatch, ls_rounds_noise, factor,
                                                        accept):
    """Where the gate opens, every round's release has the planned σ of (T, τ = h_y): pooled
    over 40 fits × T rounds × 5 coordinates, sd within ±10%; 0.7× and 1.3× rejected."""
    monkeypatch.setattr(boosting, "BOOST_BIAS_GATE_RATIO", -math.inf)
    monkeypatch.setattr(boosting, "BOOST_LS_ROUNDS", boosting.BOOST_BIAS_GATE_ROUNDS)
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, (3000, 4))
    y = (rng.uniform(size=3000) < 1 / (1 + np.exp(-X @ np.linspace(4, -4, 4)))).astype(float)
    sd, sigma = ls_rounds_noise("bias-gated", X, y, eps=10.0)
    assert (abs(sd / (factor * sigma) - 1) < 0.10) is accept
