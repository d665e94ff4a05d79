"""DPLinearRegression(boost_rounds="lift-gated") (docs/regression.md §4m, issue #24 task RB, opt-in):
where §4k's bias gate stays shut in §4e's fallback, the same least-squares rounds still run iff the
adaptive lift keeps at most ``BOOST_LIFT_GATE_KEPT`` of the released slopes' spectrum
(``boosting.lift_kept_share``) and the released R² lower value is at least
``BOOST_LIFT_GATE_R2``. Post-processing of the joint release; one charge before any draw; shut, it
is the default's fit bit for bit; open, it is §4k's open branch bit for bit."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from matrixdp.accounting import Accountant
from matrixdp.errors import BudgetExceededError, InvalidParameterError
from matrixdp.models import DPLinearRegression, boosting
from matrixdp.models.boosting import lift_gate, lift_kept_share
from matrixdp.models.experimental import RegressionOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_linear_bias_gate import BIN, same_fit, weak_table, wide_table  # noqa: E402

LIFT = RegressionOptions(boost_rounds="lift-gated")


# ---- the reading (closed forms) ---------------------------------------------------------------

def test_kept_share_is_the_mean_shrinkage_factor_without_intercept():
    """Diagonal A and lift Λ: κ_j = a_j / (a_j + λ_j); kept = mean κ."""
    a, lam = np.array([4.0, 1.0, 0.25]), np.array([0.0, 1.0, 3.0])
    want = float(np.mean(a / (a + lam)))
    assert lift_kept_share(np.diag(a), np.diag(a + lam), False) == pytest.approx(want, rel=1e-12)
    assert lift_kept_share(np.diag(a), np.diag(a), False) == pytest.approx(1.0, rel=1e-12)


def test_kept_share_profiles_the_constant_out():
    """With a constant coordinate (last, unlifted) the reading is the slopes' Schur complement's:
    a shift of the slopes' centre (the constant's cross terms) leaves it unchanged, and it equals
    the generalized eigenvalues' mean."""
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(50, 3))
    A_s = Z.T @ Z
    lam = np.diag([0.5, 5.0, 50.0])
    n = 50.0
    for m in (np.zeros(3), np.array([1.0, -2.0, 0.5])):  # the features' mean
        A = np.block([[A_s + n * np.outer(m, m), n * m[:, None]],
                      [n * m[None, :], np.array([[n]])]])
        M = A.copy()
        M[:3, :3] += lam
        kap = np.linalg.eigvals(np.linalg.solve(A_s + lam, A_s)).real
        assert lift_kept_share(A, M, True) == pytest.approx(float(np.mean(kap)), rel=1e-10)
    assert math.isnan(lift_kept_share(np.zeros((2, 2)), np.zeros((2, 2)), True))


def test_the_gate_needs_heavy_lift_and_signal():
    r = {"point": 0.3, "lower": 0.1, "upper": 0.5}
    k = boosting.BOOST_LIFT_GATE_KEPT
    assert lift_gate(k, r) and lift_gate(0.0, r)
    assert not lift_gate(k * 1.01, r)
    assert not lift_gate(0.1, {**r, "lower": boosting.BOOST_LIFT_GATE_R2 * 0.99})
    assert not lift_gate(math.nan, r) and not lift_gate(0.1, {**r, "lower": math.nan})
    assert not lift_gate(0.1, None)
    assert lift_gate(0.5, r, kept_max=0.6) and not lift_gate(0.1, r, r2_min=0.2)


# ---- the estimator ----------------------------------------------------------------------------

def test_invalid_values_are_refused_before_any_charge(gaussian_releases):
    X, y = weak_table()
    acc = Accountant(epsilon=10.0, delta=1e-5)
    for kw in ({"boost_rounds": "lift-gate"}, {"boost_rounds": "lift-gated", "boost_clip": 0.5}):
        with pytest.raises(InvalidParameterError):
            DPLinearRegression(accountant=acc, experimental=RegressionOptions(**kw),
                               **BIN).fit(X, y)
    assert acc.spends == () and gaussian_releases == []


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_shut_is_the_default_and_open_is_the_bias_gates_open_branch_bit_for_bit(monkeypatch,
                                                                               relation):
    """On the wide table at ε = 3, the first seed where §4e falls back and §4k's gate stays shut:
    with the lift gate pinned shut the fit is the default's ("auto") bit for bit; pinned open it
    is §4k's open branch (its ratio pinned to −∞) bit for bit, and the readings are recorded."""
    X, y = wide_table()
    base = dict(epsilon=3.0, neighbouring=relation, **BIN)
    seed = next(s for s in range(20) if DPLinearRegression(random_state=s, **base).fit(
        X, y).boost_branch_ == "second-release")
    kw = dict(random_state=seed, **base)
    default = DPLinearRegression(**kw).fit(X, y)
    monkeypatch.setattr(boosting, "BOOST_LIFT_GATE_KEPT", -1.0)  # shut
    shut = DPLinearRegression(experimental=LIFT, **kw).fit(X, y)
    assert shut.boost_branch_ == "second-release" and same_fit(shut, default)
    assert shut.boost_bias_gate_["lift_opened"] is False
    monkeypatch.setattr(boosting, "BOOST_LIFT_GATE_KEPT", 2.0)  # every reading passes ...
    monkeypatch.setattr(boosting, "BOOST_LIFT_GATE_R2", -math.inf)  # ... both halves
    opened = DPLinearRegression(experimental=LIFT, **kw).fit(X, y)
    monkeypatch.setattr(boosting, "BOOST_BIAS_GATE_RATIO", -math.inf)
    bias_open = DPLinearRegression(experimental=RegressionOptions(boost_rounds="bias-gated"),
                                   **kw).fit(X, y)
    assert opened.boost_branch_ == bias_open.boost_branch_ == "ls-rounds"
    assert same_fit(opened, bias_open)
    assert opened.boost_rounds_ == boosting.BOOST_BIAS_GATE_ROUNDS
    g = opened.boost_bias_gate_
    assert g["lift_opened"] is True and 0.0 < g["kept_share"] <= 1.0
    assert g["kept_share"] == shut.boost_bias_gate_["kept_share"]  # read before the branch


def test_where_the_bias_gate_opens_the_lift_gate_reads_nothing():
    """wide table, ε = 10: §4k's gate opens; the candidate is the default's fit bit for bit and
    records no lift reading."""
    X, y = wide_table()
    kw = dict(epsilon=10.0, random_state=3, **BIN)
    default = DPLinearRegression(**kw).fit(X, y)
    cand = DPLinearRegression(experimental=LIFT, **kw).fit(X, y)
    assert default.boost_branch_ == cand.boost_branch_ == "ls-rounds" and same_fit(cand, default)
    assert "kept_share" not in cand.boost_bias_gate_


def test_the_committed_gate_opens_on_the_wide_table_and_stays_shut_on_the_weak_one():
    """At the committed thresholds: the wide strong-signal table (heavy lift, signal) at ε = 3
    takes the rounds on most seeds where §4k stays shut; the small low-signal 0/1 table at ε = 3,
    10, 30 never opens (its fallback fits keep the second release)."""
    Xw, yw = wide_table()
    opened = 0
    read = 0
    for s in range(10):
        m = DPLinearRegression(epsilon=3.0, experimental=LIFT, random_state=s, **BIN).fit(Xw, yw)
        g = m.boost_bias_gate_ or {}
        if "lift_opened" in g:
            read += 1
            opened += int(g["lift_opened"])
            assert (m.boost_branch_ == "ls-rounds") == g["lift_opened"]
    assert read >= 5 and opened >= read - 1
    Xs, ys = weak_table()
    for eps in (3.0, 10.0, 30.0):
        for s in range(5):
            m = DPLinearRegression(epsilon=eps, experimental=LIFT, random_state=s,
                                   **BIN).fit(Xs, ys)
            g = m.boost_bias_gate_ or {}
            assert not g.get("lift_opened", False)


@pytest.mark.parametrize("gate", ["open", "shut"])
def test_one_charge_of_epsilon_before_any_draw(boost_tables, monkeypatch, gaussian_releases,
                                              gate):
    X, y = boost_tables.binary(800, slope=1.0)  # weak signal: §4e falls back
    monkeypatch.setattr(boosting, "BOOST_BIAS_GATE_RATIO", math.inf)  # §4k shut
    monkeypatch.setattr(boosting, "BOOST_LIFT_GATE_KEPT", 2.0 if gate == "open" else -1.0)
    monkeypatch.setattr(boosting, "BOOST_LIFT_GATE_R2", -math.inf)
    draws = gaussian_releases
    seed = next(s for s in range(20) if DPLinearRegression(
        epsilon=10.0, noise="iid", experimental=RegressionOptions(boost_rounds="adaptive"),
        random_state=s, **BIN).fit(X, y).boost_branch_ == "second-release")
    draws.clear()
    small = Accountant(epsilon=9.0, delta=1e-5)
    with pytest.raises(BudgetExceededError):
        DPLinearRegression(epsilon=10.0, noise="iid", experimental=LIFT, accountant=small,
                           random_state=seed, **BIN).fit(X, y)
    assert small.spends == () and draws == []
    acc = Accountant(epsilon=10.0, delta=1e-5)
    est = DPLinearRegression(epsilon=10.0, noise="iid", experimental=LIFT, accountant=acc,
                             random_state=seed, **BIN).fit(X, y)
    assert len(acc.spends) == 1
    assert acc.spends[0][1].epsilon == pytest.approx(10.0, rel=1e-6)
    assert not any(k.startswith("_") and "rng" in k.lower() for k in vars(est))
    if gate == "open":
        assert est.boost_branch_ == "ls-rounds"
        assert len(draws) == 1 + boosting.BOOST_BIAS_GATE_ROUNDS
    else:
        assert est.boost_branch_ == "second-release"
        assert len(draws) == 2
