"""Composition of guarantees, each method against an independent oracle."""

from __future__ import annotations

import functools
import itertools
import math
import sys

import numpy as np
import pytest

from matrixdp import GaussianMechanism, LaplaceMechanism, PrivacyGuarantee
from matrixdp.accounting import compose, parallel
from matrixdp.accounting.composition import (Tally, advanced_epsilon, basic_epsilon, gdp_delta,
                                             gdp_epsilon, kov_closed_form_epsilon,
                                             kov_optimal_delta, pld_epsilon, rdp_epsilon)
from matrixdp.calibration.gaussian import gaussian_delta
from matrixdp.errors import InvalidParameterError, UnsafeMechanismError

dp_accounting = pytest.importorskip("dp_accounting")


@functools.lru_cache(maxsize=None)
def _claim(mu):
    return gdp_epsilon(mu, 1e-6)


def gauss(mu, **kw):
    """The guarantee of a Gaussian shift mu, claimed at delta = 1e-6 (consistent with mu)."""
    return PrivacyGuarantee(epsilon=_claim(mu), delta=1e-6, calibration="analytic",
                            exact=True, mechanism="gaussian", mu=mu, **kw)


def pure(eps, laplace=True, **kw):
    return PrivacyGuarantee(epsilon=eps, delta=0.0, calibration="laplace" if laplace else "x",
                            exact=True, mechanism="laplace" if laplace else "other", **kw)


def approx(eps, delta):
    return PrivacyGuarantee(epsilon=eps, delta=delta, calibration="theorem", mechanism="other")


# ------------------------------------------------------------------------------------ GDP
@pytest.mark.parametrize("mus", [[0.3] * 10, list(np.random.default_rng(0).uniform(0.05, 0.5, 8)),
                                 [1.2, 0.4, 0.1], [0.02] * 1000])
@pytest.mark.parametrize("delta", [1e-5, 1e-9])
def test_exact_gdp_agrees_with_dp_accounting_pld(mus, delta):
    """sqrt(sum mu_i^2) against the PLD of the same Gaussian sequence (discretisation 1e-4)."""
    ours = compose([gauss(m) for m in mus], delta=delta, method="gdp")
    acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
    for m in sorted(set(mus)):  # identical releases self-composed at once (count=)
        acc.compose(dp_accounting.GaussianDpEvent(noise_multiplier=1.0 / m), count=mus.count(m))
    oracle = acc.get_epsilon(delta)
    # the PLD is a pessimistic discretisation: never below the exact value, and close to it
    assert -1e-9 <= oracle - ours.epsilon <= 1e-4 * max(1.0, oracle)
    # a 5% wrong mu would be rejected by the same tolerance
    wrong = gdp_epsilon(1.05 * ours.mu, delta)
    assert abs(oracle - wrong) > 1e-4 * max(1.0, oracle) * 10
    assert ours.exact and ours.calibration == "gdp"
    assert ours.mu == pytest.approx(math.sqrt(sum(m * m for m in mus)), rel=1e-12)


def test_gdp_profile_is_the_gaussian_profile():
    mech = GaussianMechanism(epsilon=0.7, delta=1e-6, sensitivity=2.0)
    g = mech.privacy
    assert g.mu == pytest.approx(2.0 / mech.sigma)
    for e in (0.1, 0.7, 2.0):
        assert gdp_delta(g.mu, e) == pytest.approx(gaussian_delta(e, mech.sigma, 2.0), rel=1e-12)
    # one release composed alone gives back its own epsilon
    assert compose([g], delta=1e-6).epsilon == pytest.approx(0.7, rel=1e-9)


# ------------------------------------------------------------------------------------ RDP
@pytest.mark.parametrize("mus,laps", [([0.5] * 10, [0.1] * 30), ([1.0], []), ([], [0.5] * 10),
                                      ([0.2, 0.3], [0.05, 0.2, 1.0])])
def test_rdp_agrees_with_dp_accounting_rdp(mus, laps):
    from dp_accounting import rdp

    from matrixdp.accounting.composition import RDP_ORDERS

    t = Tally.of([gauss(m) for m in mus] + [pure(e) for e in laps])
    acc = rdp.RdpAccountant(list(RDP_ORDERS))
    for m in mus:
        acc.compose(dp_accounting.GaussianDpEvent(1.0 / m))
    for e in laps:
        acc.compose(dp_accounting.LaplaceDpEvent(1.0 / e))
    for delta in (1e-6, 1e-10):
        assert rdp_epsilon(t, delta) == pytest.approx(acc.get_epsilon(delta), rel=1e-9)


def test_rdp_refuses_approximate_dp_without_mu():
    assert rdp_epsilon(Tally.of([approx(0.5, 1e-6)]), 1e-5) == math.inf
    # a generic pure release uses randomized response (the worst case): looser than Laplace
    t_lap, t_rr = Tally.of([pure(0.3)] * 50), Tally.of([pure(0.3, laplace=False)] * 50)
    assert rdp_epsilon(t_lap, 1e-6) < rdp_epsilon(t_rr, 1e-6) < 15.0


# ------------------------------------------------------------------------------------ KOV
def _brute_force_delta(eps, delta, k, eps_total):
    """Hockey-stick divergence of k independent copies of the (eps, delta) worst-case pair."""
    a = (1 - delta) / (1 + math.exp(eps))
    p = [delta, math.exp(eps) * a, a, 0.0]
    q = [0.0, a, math.exp(eps) * a, delta]
    total = 0.0
    for outcome in itertools.product(range(4), repeat=k):
        pp = math.prod(p[i] for i in outcome)
        qq = math.prod(q[i] for i in outcome)
        total += max(0.0, pp - math.exp(eps_total) * qq)
    return total


@pytest.mark.parametrize("eps,delta,k", [(0.5, 0.0, 4), (0.3, 1e-3, 5), (1.0, 0.01, 3),
                                         (0.1, 0.0, 6)])
def test_kov_optimal_composition_matches_enumeration(eps, delta, k):
    grid = np.linspace(0.0, k * eps, 9)
    ours = kov_optimal_delta(eps, delta, k, grid)
    oracle = [_brute_force_delta(eps, delta, k, e) for e in grid]
    np.testing.assert_allclose(ours, oracle, rtol=1e-9, atol=1e-14)


def _closed_form_by_hand(eps, k, d_tilde):
    s = k * eps
    drift = k * eps * (math.exp(eps) - 1) / (math.exp(eps) + 1)
    return min(s, drift + math.sqrt(2 * k * eps ** 2 * math.log(math.e + math.sqrt(k * eps ** 2)
                                                                 / d_tilde)),
               drift + math.sqrt(2 * k * eps ** 2 * math.log(1 / d_tilde)))


@pytest.mark.parametrize("eps,k,d_total", [(0.1, 100, 1e-5), (0.01, 10_000, 1e-6),
                                           (0.5, 20, 1e-3), (1.0, 3, 1e-6)])
def test_advanced_composition_against_its_closed_form(eps, k, d_total):
    closed = kov_closed_form_epsilon([eps], [0.0], d_total, counts=[k])
    assert closed == pytest.approx(_closed_form_by_hand(eps, k, d_total), rel=1e-12)
    t = Tally()
    t.add(pure(eps, laplace=False), count=k)
    adv = advanced_epsilon(t, d_total)
    # the optimal composition never exceeds the closed form, and is what it bounds
    assert adv <= closed * (1 + 1e-12)
    assert kov_optimal_delta(eps, 0.0, k, [adv])[0] <= d_total * (1 + 1e-9)
    # it is tight: 2% less epsilon breaks delta
    assert kov_optimal_delta(eps, 0.0, k, [0.98 * adv])[0] > d_total
    if k >= 100:  # the closed form is the asymptotically tight one
        assert closed <= 1.3 * adv


def test_advanced_heterogeneous_uses_the_closed_form_with_per_release_deltas():
    eps = np.array([0.1, 0.2, 0.05] * 30)
    dl = np.full(eps.size, 1e-8)
    t = Tally.of([approx(e, d) for e, d in zip(eps, dl)])
    total_delta = 1e-5
    expected = kov_closed_form_epsilon(eps, dl, total_delta)
    assert advanced_epsilon(t, total_delta) <= expected + 1e-12
    # too small a delta: the releases' own deltas already exceed it
    assert advanced_epsilon(t, 5e-7) == math.inf


# ------------------------------------------------------------------------------------ basic, auto
def test_basic_composition_and_its_delta_floor():
    t = Tally.of([approx(0.3, 1e-6), approx(0.2, 2e-6)])
    assert basic_epsilon(t, 3e-6) == pytest.approx(0.5)
    assert basic_epsilon(t, 2e-6) == math.inf
    total = compose([approx(0.3, 1e-6), approx(0.2, 2e-6)], method="basic")
    assert (total.epsilon, total.delta) == (pytest.approx(0.5), pytest.approx(3e-6))


def test_auto_picks_the_tightest_and_names_it():
    seq = [pure(0.1)] * 100
    total = compose(seq, delta=1e-5)
    cands = {m: compose(seq, delta=1e-5, method=m).epsilon
             for m in ("pld", "rdp", "advanced", "basic")}
    assert total.epsilon == pytest.approx(min(cands.values()))
    assert total.calibration == min(cands, key=cands.get)
    assert "used " + total.calibration in total.notes[0]
    assert total.epsilon < 0.5 * cands["basic"]
    # Gaussian-only: the exact GDP composition wins, PLD is not even needed
    g = compose([gauss(0.2)] * 30, delta=1e-6)
    assert g.calibration == "gdp" and g.exact


def test_laplace_pld_is_valid_for_vector_laplace():
    """Lap(a) x Lap(b) (a vector Laplace with L1 shift split a + b) is dominated by Lap(a + b),
    which is why a Laplace mechanism's guarantee is accounted as a 1-D Laplace of its epsilon."""
    pld = dp_accounting.pld.privacy_loss_distribution
    for a, b in [(0.3, 0.7), (0.5, 0.5), (1.0, 2.0)]:
        split = pld.from_laplace_mechanism(1 / a).compose(pld.from_laplace_mechanism(1 / b))
        whole = pld.from_laplace_mechanism(1 / (a + b))
        for e in np.linspace(0, a + b, 25):
            assert split.get_delta_for_epsilon(e) <= whole.get_delta_for_epsilon(e) + 1e-12


def test_pld_absent_gives_a_clear_message_and_auto_falls_back(monkeypatch):
    for name in list(sys.modules):
        if name == "dp_accounting" or name.startswith("dp_accounting."):
            monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match="matrixdp\\[accounting\\]"):
        compose([pure(0.1)] * 5, delta=1e-6, method="pld")
    total = compose([pure(0.1)] * 5, delta=1e-6)
    assert total.calibration in ("rdp", "advanced", "basic")
    assert any("dp-accounting is not installed" in n for n in total.notes)


# ------------------------------------------------------------------------------------ rules
def test_mixing_relations_raises():
    with pytest.raises(InvalidParameterError, match="neighbouring"):
        compose([pure(0.1), pure(0.1, neighbouring="add-remove")])
    with pytest.raises(InvalidParameterError, match="neighbouring"):
        pure(0.1) + pure(0.1, neighbouring="add-remove")


def test_refuted_refuses_unless_allow_unsafe():
    bad = pure(0.1, refuted=True)
    with pytest.raises(UnsafeMechanismError):
        compose([pure(0.1), bad])
    with pytest.raises(UnsafeMechanismError):
        pure(0.1) + bad
    total = compose([pure(0.1), bad], allow_unsafe=True)
    assert total.refuted and not total.exact


def test_upper_bounds_compose_as_upper_bounds():
    loose = gauss(0.3)
    loose = PrivacyGuarantee(**{**loose.__dict__, "exact": False})
    assert not compose([gauss(0.3), loose], delta=1e-6).exact
    assert compose([gauss(0.3), gauss(0.4)], delta=1e-6).exact


def test_plus_is_basic_composition_with_exact_mu():
    a = GaussianMechanism(epsilon=0.5, delta=1e-6, sensitivity=1.0).privacy
    b = GaussianMechanism(epsilon=0.3, delta=2e-6, sensitivity=1.0).privacy
    s = a + b
    assert (s.epsilon, s.delta) == (pytest.approx(0.8), pytest.approx(3e-6))
    assert s.mu == pytest.approx(math.hypot(a.mu, b.mu))
    assert sum([a, b, a]).epsilon == pytest.approx(1.3)
    lap = LaplaceMechanism(epsilon=0.2, sensitivity=1.0).privacy
    assert (a + lap).mu is None
    assert (lap + lap).exact  # pure + pure of exact Laplace releases


def test_parallel_composition():
    parts = [gauss(0.3), gauss(0.5), gauss(0.1)]
    with pytest.raises(InvalidParameterError, match="partition_public"):
        parallel(parts, partition_public=False)
    p = parallel(parts, partition_public=True)
    assert p.mu == 0.5 and p.epsilon == max(g.epsilon for g in parts)
    p2 = parallel([pure(0.2), pure(0.7)], partition_public=True)
    assert (p2.epsilon, p2.delta) == (0.7, 0.0)


def test_composing_ten_thousand_releases_is_fast_enough_to_be_routine():
    rng = np.random.default_rng(1)
    seq = [PrivacyGuarantee(epsilon=0.05, delta=1e-9, mu=m) for m in rng.uniform(0.001, 0.01,
                                                                               10_000)]
    total = compose(seq, delta=1e-6)
    assert total.calibration == "gdp" and total.epsilon < 10


def test_gaussian_family_mechanisms_carry_mu():
    from matrixdp import MVGMechanism
    from matrixdp.mechanisms import FisherNoiseMechanism

    mvg = MVGMechanism(shape=(3, 3), epsilon=1.0, delta=1e-5, sensitivity=1.0)
    assert mvg.privacy.mu == pytest.approx(mvg.mahalanobis_sensitivity)
    # mu reproduces the mechanism's claim through the Gaussian profile
    assert gdp_delta(mvg.privacy.mu, 1.0) <= 1e-5 * (1 + 1e-7)
    fisher = FisherNoiseMechanism(epsilon=1.0, delta=1e-5, feature_ranges=[[0, 1], [0, 2]])
    g = fisher.privacy
    assert g.mu is not None and gdp_delta(g.mu, g.epsilon) <= g.delta * (1 + 1e-7)
    assert LaplaceMechanism(epsilon=1.0, sensitivity=1.0).privacy.mu is None


def test_local_guarantee_restated_under_replace_one():
    from matrixdp.accounting import local_as_replace_one

    loc = PrivacyGuarantee(epsilon=0.5, delta=1e-6, neighbouring="local", mu=0.2)
    central = local_as_replace_one(loc)
    assert central.neighbouring == "replace-one" and central.mu == 0.2
    compose([central, gauss(0.1)], delta=1e-5)  # composes with central releases
    with pytest.raises(InvalidParameterError):
        local_as_replace_one(central)


def test_within_decides_like_compose():
    from matrixdp.accounting.composition import compose_tally, within

    rng = np.random.default_rng(3)
    for trial in range(12):
        seq = [gauss(m) for m in rng.uniform(0.05, 0.4, rng.integers(1, 6))]
        if trial % 2:
            seq += [pure(e) for e in rng.uniform(0.01, 0.3, rng.integers(1, 6))]
        t = Tally.of(seq)
        eps = compose_tally(t, 1e-6).epsilon
        for budget in (0.9 * eps, 1.1 * eps):
            assert within(t, 1e-6, budget) == (eps <= budget)


def test_to_dp_event_matches_the_mechanisms_own_events():
    from matrixdp.accounting import to_dp_event

    gm = GaussianMechanism(epsilon=0.8, delta=1e-6, sensitivity=3.0)
    assert to_dp_event(gm).noise_multiplier == pytest.approx(gm.to_dp_event().noise_multiplier)
    lm = LaplaceMechanism(epsilon=0.4, sensitivity=2.0)
    assert to_dp_event(lm.privacy).noise_multiplier == pytest.approx(
        lm.to_dp_event().noise_multiplier)
    assert isinstance(to_dp_event(approx(0.5, 1e-6)), dp_accounting.UnsupportedDpEvent)
    assert isinstance(to_dp_event(pure(0.1, refuted=True)), dp_accounting.UnsupportedDpEvent)


def test_mvg_with_dp_directions_carries_the_composed_mu():
    from matrixdp import DPDirectionsMVG
    from matrixdp.queries import IdentityQuery

    X = np.random.default_rng(0).uniform(0, 1, size=(200, 4))
    q = IdentityQuery(bounds=(0.0, 1.0), n_features=4, n_samples=200)
    model = DPDirectionsMVG(shape=(200, 4), epsilon=1.0, delta=1e-5, sensitivity=q,
                            random_state=1).fit(X)
    mech, step = model.mechanism_, model.directions_.privacy
    assert step.mu is not None
    assert mech.privacy.mu == pytest.approx(math.hypot(step.mu, mech.mahalanobis_sensitivity))
    # the exact GDP composition of the two steps is at least as tight as their basic split
    assert gdp_delta(mech.privacy.mu, 1.0) <= 1e-5 * (1 + 1e-9)


def test_kov_optimal_delta_at_a_huge_epsilon_does_not_overflow():
    """exp(ε) overflows a float above ε ≈ 709: the randomized-response masses are computed in
    log space (log p = −log(1 + e^−ε), log q = −log(1 + e^ε) = −ε − log(1 + e^−ε)). One release of
    ε = 10⁴: δ(0) = (e^ε − 1)/(1 + e^ε) = 1 to double precision, δ(ε) = 0, δ(ε − 1) = 1 − e^−1."""
    out = kov_optimal_delta(1e4, 0.0, 1, [0.0, 1e4 - 1.0, 1e4])
    assert out[0] == pytest.approx(1.0, abs=1e-12)
    assert out[1] == pytest.approx(1.0 - math.exp(-1.0), rel=1e-9)
    assert out[2] == 0.0
    # below the overflow the same function as before (the branch only replaces an overflow)
    assert kov_optimal_delta(700.0, 0.0, 1, [699.0])[0] == pytest.approx(1.0 - math.exp(-1.0),
                                                                         rel=1e-9)


def test_a_huge_epsilon_fit_is_refused_by_the_budget_not_by_an_overflow():
    from matrixdp import Accountant
    from matrixdp.errors import BudgetExceededError
    from matrixdp.models import DPLinearRegression

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (500, 3))
    y = np.clip(0.2 * X.sum(1), -3, 3)
    est = DPLinearRegression(epsilon=1e4, bounds_X=(-1, 1), bounds_y=(-3, 3),
                             accountant=Accountant(epsilon=1e-3, delta=1e-9))
    with pytest.raises(BudgetExceededError):
        est.fit(X, y)


@pytest.mark.parametrize("mu", [float("nan"), float("inf"), -0.5, "0.1"])
def test_a_guarantee_with_an_invalid_mu_is_refused_by_name(mu):
    # NaN made the GDP composition raise scipy's ValueError (and a ledger stored it as NULL);
    # inf never returned (the bracket doubled forever); a negative mu was squared silently
    from matrixdp.accounting import Accountant

    g = PrivacyGuarantee(epsilon=100.0, delta=1e-7, mu=mu)
    acc = Accountant(epsilon=1.0, delta=1e-6)
    with pytest.raises(InvalidParameterError, match="mu"):
        acc.spend(g)
    assert acc.total().epsilon == 0.0
    with pytest.raises(InvalidParameterError, match="mu"):
        compose([g], delta=1e-6)


def test_a_guarantee_with_text_for_epsilon_is_refused_by_name():
    g = PrivacyGuarantee(epsilon="0.1", delta=0.0)
    with pytest.raises(InvalidParameterError, match="epsilon, delta and mu"):
        compose([g])


def test_gdp_epsilon_of_an_infinite_mu_is_infinite():
    assert gdp_epsilon(math.inf, 1e-6) == math.inf
    assert gdp_epsilon(1.0, 1e-6) < 5.0   # and a finite one is finite


@pytest.mark.parametrize("epsilon, delta", [(1e-6, 1e-9), (1e-5, 1e-5), (1e-9, 1e-12),
                                            (1.0, 1e-9), (1e3, 1e-6)])
def test_gdp_epsilon_is_relatively_precise_at_small_epsilon(epsilon, delta):
    # task HZ: an absolute bracket tolerance (1e-14) overstated a small epsilon: the round trip
    # of mu*(1e-6, 1e-9) gave 1.0000000019e-6, and DPCopula/DPTreeCopula refused that budget as
    # an "accounting bug". Roots below 1e-4 are refined to relative precision (larger ones are
    # computed exactly as before). The result stays on the safe side (delta(eps) <= delta).
    from matrixdp.calibration import max_gaussian_shift
    from matrixdp.calibration.gaussian import gaussian_delta

    mu = max_gaussian_shift(epsilon, delta)
    eps = gdp_epsilon(mu, delta)
    assert abs(eps / epsilon - 1.0) < 1e-10
    assert gaussian_delta(eps, 1.0 / mu, 1.0) <= delta * (1 + 1e-9)
    # and it is the smallest such epsilon to that precision: 1e-9 less exceeds delta
    assert gaussian_delta(eps * (1 - 1e-9), 1.0 / mu, 1.0) > delta


@pytest.mark.parametrize("big", [
    PrivacyGuarantee(epsilon=1000.0, delta=0.0),          # math.exp(1000) overflowed in the PLD
    PrivacyGuarantee(epsilon=800.0, delta=1e-6),
    LaplaceMechanism(epsilon=1000.0, sensitivity=1.0).privacy,   # a 2e7-point grid: minutes
])
def test_a_release_too_wide_for_the_pld_grid_skips_the_pld_and_is_refused_cleanly(big):
    # hunt HV: a budget check of a release with a huge epsilon raised OverflowError (or built a
    # PLD grid for minutes) instead of refusing it; the PLD is now skipped (inf, a valid bound)
    from matrixdp.accounting import Accountant
    from matrixdp.errors import BudgetExceededError

    small = PrivacyGuarantee(epsilon=0.5, delta=1e-7)
    tally = Tally()
    tally.add(small)
    tally.add(big)
    assert pld_epsilon(tally, 1e-3) == math.inf
    composed = compose([small, big], delta=1e-3)
    assert math.isfinite(composed.epsilon) and composed.epsilon >= big.epsilon
    acc = Accountant(epsilon=100.0, delta=1e-3)
    acc.spend(small)
    with pytest.raises(BudgetExceededError):
        acc.spend(big)
    assert len(acc.spends) == 1
    # a release inside the grid still uses the PLD (finite)
    ok = Tally()
    ok.add(small)
    ok.add(LaplaceMechanism(epsilon=2.0, sensitivity=1.0).privacy)
    assert math.isfinite(pld_epsilon(ok, 1e-3))
