"""The boosting rounds and the rules that decide them (``models/boosting.py``; ``docs/regression.md``
§4c-§4h): closed forms of the rounds' covariance, the clip rules, the residual scale and the
decision, the predicted losses of ``boost_rounds="predict"`` and the released R² and gate of
``"ls-signal"``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from matrixdp.calibration.gaussian import max_gaussian_shift
from matrixdp.models import boosting
from matrixdp.models.boosting import (BOOST_COUNTS, boost_unit_widths, boosted_covariance,
                                      predicted_boost_losses, released_r2, signal_gate)
from matrixdp.models.joint_release import regression_task


def test_boosted_covariance_closed_forms():
    """K = 0 (an exact solve): only the last round's noise is left; K = I (no contraction): the
    start's covariance and every round's noise add up in the averaged iterate."""
    from matrixdp.models.boosting import boosted_covariance

    rng = np.random.default_rng(0)
    C0 = np.diag([1.0, 2.0, 3.0])
    R = rng.standard_normal((3, 3))
    np.testing.assert_allclose(boosted_covariance(C0, np.zeros((3, 3)), R, 0.5, 2),
                               0.25 * R @ R.T, atol=1e-14)
    # T = 3: the last two iterates averaged; round 1 reaches both, 2 both, 3 the last only
    np.testing.assert_allclose(boosted_covariance(C0, np.eye(3), R, 0.5, 3),
                               C0 + 0.25 * (1 + 1 + 0.25) * R @ R.T, atol=1e-12)


def test_boosted_covariance_takes_a_sigma_per_round():
    from matrixdp.models.boosting import boosted_covariance

    rng = np.random.default_rng(1)
    C0, R = np.eye(3), rng.standard_normal((3, 3))
    np.testing.assert_allclose(boosted_covariance(C0, np.zeros((3, 3)), R, [9.0, 0.5], 2),
                               0.25 * R @ R.T, atol=1e-14)  # K = 0: the last round's only
    np.testing.assert_allclose(boosted_covariance(C0, np.eye(3), R, [0.5, 0.5, 0.5], 3),
                               boosted_covariance(C0, np.eye(3), R, 0.5, 3), atol=1e-14)


def test_growing_clip_closed_form():
    from matrixdp.models.boosting import BOOST_CLIP_GROWTH, BOOST_CLIP_SPREAD, growing_clip

    w = np.array([1.0, 2.0, 0.0, 1.0])  # a public constant feature (reach 0) does not count
    mu = max_gaussian_shift(3.0, 1e-6)
    mu_r = mu * math.sqrt(0.3 / 2)
    grow = BOOST_CLIP_GROWTH * 0.5 * mu_r * math.sqrt(10000) / (2 * 3)
    assert growing_clip(0.125, 0.5, 3.0, 1e-6, 2, 0.7, 10000, w, "replace-one") == \
        pytest.approx(grow, rel=1e-12)
    assert growing_clip(0.125, 0.5, 3.0, 1e-6, 2, 0.7, 10000, w, "add-remove") == \
        pytest.approx(2 * grow, rel=1e-12)
    # the ceiling m·σ̂, and the floor τ₀ (no count: the fixed clip)
    assert growing_clip(0.125, 0.5, 3.0, 1e-6, 2, 0.7, 10000, w, "replace-one", 0.1) == \
        pytest.approx(min(grow, BOOST_CLIP_SPREAD * 0.1))
    assert growing_clip(0.125, 0.5, 3.0, 1e-6, 2, 0.7, 0.0, w, "replace-one") == 0.125
    assert growing_clip(0.125, 0.5, 3.0, 1e-6, 2, 0.7, 10000, w, "replace-one", 0.0) == 0.125
    # grows with ε
    assert growing_clip(0.125, 0.5, 30.0, 1e-6, 2, 0.7, 10000, w, "replace-one") > \
        growing_clip(0.125, 0.5, 3.0, 1e-6, 2, 0.7, 10000, w, "replace-one")


def test_the_cap_bounds_every_residual_in_the_box():
    """``h_y + Σ w|β|`` bounds ``|y - c_y - zᵀβ|`` for every record in the public box (the
    corners attain it): a clip at the cap never binds."""
    from matrixdp.models.boosting import residual_cap

    rng = np.random.default_rng(0)
    lo, hi, ylo, yhi = np.array([-1.0, 0.0, 2.0]), np.array([1.0, 5.0, 2.5]), -3.0, 1.0
    task, cx, cy, t = regression_task(lo, hi, ylo, yhi, 100, True)
    w = boost_unit_widths(task, True)
    for _ in range(20):
        beta = rng.standard_normal(4) * 3
        corners = rng.integers(0, 2, (4000, 3))
        X = np.where(corners == 1, hi, lo)
        y = np.where(rng.integers(0, 2, 4000) == 1, yhi, ylo)
        r = y - cy - np.column_stack([X - cx, np.full(4000, t)]) @ beta
        cap = residual_cap(beta, w, 0.5 * (yhi - ylo))
        assert np.max(np.abs(r)) <= cap * (1 + 1e-12)
        assert np.max(np.abs(r)) >= 0.999 * cap  # attained at a corner: the bound is tight


def test_rss_lower_bound_matches_the_noise_of_the_quadratic_form():
    """``Var(aᵀEa)`` for symmetric noise with independent upper-triangle entries of variances V:
    the closed form matches a Monte Carlo estimate within 10% (a factor-2 error on the
    off-diagonal terms, or a missing diagonal, is far outside it), and the bound is
    ``max(RSS - z·sd, 0)``."""
    from matrixdp.models.boosting import BOOST_CLIP_SPREAD_Z, rss_lower_bound

    gen = np.random.default_rng(7)
    k = 4
    a = np.array([0.5, -1.5, 1.0, 2.0])
    V = np.diag([1.0, 2.0, 0.5, 3.0]) + 0.0
    iu = np.triu_indices(k, 1)
    V[iu] = [0.3, 1.2, 0.7, 2.5, 0.4, 1.1]
    V = np.triu(V) + np.triu(V, 1).T
    reps = 40000
    E = np.zeros((reps, k, k))
    ii, jj = np.triu_indices(k)
    E[:, ii, jj] = gen.standard_normal((reps, ii.size)) * np.sqrt(V[ii, jj])
    E = E + np.triu(E, 1).transpose(0, 2, 1)
    q = np.einsum("i,rij,j->r", a, E, a)
    sd = (1000.0 - rss_lower_bound(1000.0, a, V, z=1.0))
    assert sd == pytest.approx(float(np.std(q)), rel=0.1)
    # z scales the sd, the default is BOOST_CLIP_SPREAD_Z, and the bound is floored at 0
    assert 1000.0 - rss_lower_bound(1000.0, a, V) == pytest.approx(BOOST_CLIP_SPREAD_Z * sd)
    assert rss_lower_bound(0.5 * sd, a, V, z=1.0) == 0.0
    assert rss_lower_bound(5.0, a, np.zeros((k, k))) == 5.0


def test_the_decision_rule_closed_form():
    from matrixdp.models.boosting import boost_decision, residual_scale

    G = np.diag([1.0, 4.0, 1.0])  # one feature, the target, the constant; sums
    V = np.full((3, 3), 0.01)
    s = residual_scale(G, V, np.zeros(2), True, 4.0)
    assert s["point"] == pytest.approx(1.0)  # RSS(0) = G_yy = 4 over n = 4
    sd = math.sqrt(V[1, 1])  # a = (0, 1, 0): Var = V_yy
    assert s["upper"] == pytest.approx(math.sqrt((4 + 2 * sd) / 4))
    assert s["lower"] == pytest.approx(math.sqrt((4 - 2 * sd) / 4))
    assert boost_decision(s, tau=0.7, form="upper", kappa=1.5)  # 1.0025 <= 1.05
    assert not boost_decision(s, tau=0.6, form="upper", kappa=1.5)  # 1.0025 > 0.9
    assert not boost_decision(s, tau=0.6, form="point", kappa=1.5)
    # the default (task R6): the lower value √((4 - 0.2)/4) = 0.9747 against 1 · τ
    assert boost_decision(s, tau=0.98) and not boost_decision(s, tau=0.97)
    nan = residual_scale(G, V, np.zeros(2), True, 0.0)
    assert math.isnan(nan["point"]) and boost_decision(nan, tau=1e-9)  # no count: rounds


def test_predicted_losses_closed_forms():
    """With M = M₀ (no lift) there is no bias and K = 0: T rounds have the noise of the last
    ⌈T/2⌉ rounds' average, σ_r² tr(M₀ R Rᵀ)/m with σ_r = σ₁ τ √T; T = 0 is s·tr(M₀ C0) plus
    nothing. With a lift the plug-in bias of one round is (K b₀)ᵀ M₀ (K b₀)."""
    rng = np.random.default_rng(0)
    k = 3
    B = rng.standard_normal((k, k))
    M0 = B @ B.T + k * np.eye(k)
    C0 = 0.01 * np.eye(k)
    w = np.array([1.0, 2.0, 1.0])
    beta0 = np.array([0.5, -1.0, 0.2])
    out = predicted_boost_losses(beta0, M0, M0, M0, C0, w, 0.1, 2.0, (0, 1, 4), 0.7)
    R = np.linalg.inv(M0) * w
    for T in (1, 4):
        m = (T + 1) // 2
        expect = (0.1 * 2.0) ** 2 * T * np.trace(M0 @ R @ R.T) / m
        assert out[T] == pytest.approx(expect, rel=1e-10)
    assert out[0] == pytest.approx(0.7 * np.trace(M0 @ C0), rel=1e-10)
    M = M0 + 5.0 * np.eye(k)
    got = predicted_boost_losses(beta0, M, M0, M, C0, w, 0.0, 1.0, (1,), 0.7)[1]
    Minv = np.linalg.inv(M)
    K = np.eye(k) - Minv @ M0
    b = K @ (-Minv @ (M - M0) @ beta0)
    cov = boosted_covariance(C0, K, Minv * w, 0.0, 1)
    assert got == pytest.approx(b @ M0 @ b + np.sum(M0 * cov), rel=1e-10)


def test_the_debiased_bias_is_the_plug_in_without_a_lift_and_never_below_it():
    rng = np.random.default_rng(1)
    k = 4
    B = rng.standard_normal((k, k))
    M0 = B @ B.T + np.eye(k)
    C0 = 0.05 * np.eye(k)
    w = np.ones(k)
    beta0 = rng.standard_normal(k)
    same = [predicted_boost_losses(beta0, M0, M0, M0, C0, w, 0.1, 1.0, BOOST_COUNTS, 0.7, bias=b)
            for b in ("plug-in", "debiased")]
    assert same[0] == same[1]  # no lift: no bias, whatever the estimate
    M = M0 + 3.0 * np.eye(k)
    lo, hi = (predicted_boost_losses(beta0, M, M0, M, C0, w, 0.1, 1.0, BOOST_COUNTS, 0.7, bias=b)
              for b in ("plug-in", "debiased"))
    assert all(hi[T] >= lo[T] - 1e-12 for T in BOOST_COUNTS)
    # with a negligible noise the estimate is the bias at the unlifted solve, above the plug-in
    tiny = predicted_boost_losses(beta0, M, M0, M, 1e-12 * np.eye(k), w, 0.0, 1.0, (1,), 0.7,
                                  bias="debiased")[1]
    Minv = np.linalg.inv(M)
    S = -(np.eye(k) - Minv @ M0) @ Minv @ (M - M0)
    bt = np.linalg.solve(M0, M @ beta0)
    assert tiny == pytest.approx(float((S @ bt) @ M0 @ (S @ bt)), rel=1e-6)
    assert tiny > lo[1]
    with pytest.raises(ValueError, match="bias"):
        predicted_boost_losses(beta0, M, M0, M, C0, w, 0.1, 1.0, (1,), 0.7, bias="nope")


def moments(X, y, intercept=True, t=0.7):
    """Exact second moments (sums) of (x, y, t) with centres 0 and the constant t."""
    Z = np.column_stack([X, y] + ([np.full(y.size, t)] if intercept else []))
    return Z.T @ Z


def test_released_r2_is_the_least_squares_r2_on_exact_moments(boost_tables):
    X, y = boost_tables.binary(800, seed=7)
    n, t = y.size, 0.7
    G = moments(X, y, t=t)
    A = np.column_stack([X, np.full(n, t)])
    beta = np.linalg.lstsq(A, y, rcond=None)[0]
    res = y - A @ beta
    want = 1.0 - res @ res / np.sum((y - y.mean()) ** 2)
    got = released_r2(G, np.zeros_like(G), beta, True, float(n), t)
    assert got["point"] == pytest.approx(want, rel=1e-10)
    assert got["lower"] == got["upper"] == got["point"]  # no noise: no spread
    # add-remove: the count read from the release (G_tt / t²) gives the same value
    ar = released_r2(G, np.zeros_like(G), beta, True, float(G[-1, -1]) / t ** 2, t,
                     count_released=True)
    assert ar["point"] == pytest.approx(want, rel=1e-10)
    # without an intercept: the uncentred share (fit through the origin)
    G0 = moments(X, y, intercept=False)
    b0 = np.linalg.lstsq(X, y, rcond=None)[0]
    r0 = y - X @ b0
    got0 = released_r2(G0, np.zeros_like(G0), b0, False, float(n), 0.0)
    assert got0["point"] == pytest.approx(1.0 - r0 @ r0 / (y @ y), rel=1e-10)
    # nothing to read: no count, or a non-positive released TSS
    assert math.isnan(released_r2(G, np.zeros_like(G), beta, True, 0.0, t)["lower"])
    Gz = G.copy()
    Gz[4, 4] = 0.0
    assert math.isnan(released_r2(Gz, np.zeros_like(G), beta, True, float(n), t)["point"])


@pytest.mark.parametrize("count_released", [False, True])
@pytest.mark.parametrize("factor,accept", [(1.0, True), (0.7, False), (1.3, False)])
def test_the_delta_method_sd_matches_the_spread_of_the_released_r2(boost_tables, count_released,
                                                                   factor, accept):
    """Fixed β, symmetric noise with independent upper-triangle entries of the given variances:
    the spread of R̂² over 4000 draws is within ±10% of the delta-method sd (0.7×, 1.3× of it
    rejected). The noise is small against the moments, where the first-order form holds."""
    X, y = boost_tables.binary(800, seed=7)
    n, t = y.size, 0.7
    G = moments(X, y, t=t)
    A = np.column_stack([X, np.full(n, t)])
    beta = np.linalg.lstsq(A, y, rcond=None)[0]
    k = G.shape[0]
    rng = np.random.default_rng(11)
    V = rng.uniform(0.5, 2.0, (k, k)) * 4.0
    V = np.triu(V) + np.triu(V, 1).T
    if not count_released:
        V[-1, -1] = 0.0  # the constant's entry is public under replace-one
    z = 2.0
    ref = released_r2(G, V, beta, True, float(n), t, z=z, count_released=count_released)
    sd = (ref["point"] - ref["lower"]) / z
    assert sd > 0
    draws = []
    iu = np.triu_indices(k)
    for _ in range(4000):
        E = np.zeros((k, k))
        E[iu] = rng.standard_normal(iu[0].size) * np.sqrt(V[iu])
        E = E + np.triu(E, 1).T
        Gn = G + E
        nn = float(Gn[-1, -1]) / t ** 2 if count_released else float(n)
        draws.append(released_r2(Gn, V, beta, True, nn, t, z=z,
                                 count_released=count_released)["point"])
    assert (abs(float(np.std(draws)) / (factor * sd) - 1) < 0.10) is accept


def test_the_gate_reads_the_lower_value_and_closes_on_nan(monkeypatch):
    assert signal_gate({"point": 0.5, "lower": 0.31, "upper": 0.7}, 0.3)
    assert not signal_gate({"point": 0.5, "lower": 0.29, "upper": 0.7}, 0.3)
    assert not signal_gate({"point": math.nan, "lower": math.nan, "upper": math.nan}, -1.0)
    assert not signal_gate(None, 0.0)
    monkeypatch.setattr(boosting, "BOOST_SIGNAL_R2", 0.2)
    assert signal_gate({"point": 0.25, "lower": 0.2, "upper": 0.3})


def test_late_clip_switch_compares_the_rounds_noise_at_the_cap_with_rho_sigma2():
    """§4i: switch iff σ_r² (τ_cap/τ₀)² tr(W M⁻¹ W)/n ≤ ρ σ̂². Here W = diag(2, 1),
    M⁻¹ = diag(1/4, 1) → tr(W M⁻¹ W) = 4/4 + 1 = 2; σ_r = 1, τ_cap/τ₀ = 4, n = 100 →
    the noise is 16·2/100 = 0.32; with ρ = 0.01 the switch needs σ̂² ≥ 32."""
    from matrixdp.models.boosting import late_clip_switch

    Minv, w = np.diag([0.25, 1.0]), np.array([2.0, 1.0])
    args = (1.0, 0.5, 2.0, Minv, w, 100.0)
    assert late_clip_switch(*args, spread=math.sqrt(32.0) * 1.001, rho=0.01)
    assert not late_clip_switch(*args, spread=math.sqrt(32.0) * 0.999, rho=0.01)
    assert late_clip_switch(*args, spread=math.sqrt(3.2) * 1.001, rho=0.1)
    # nothing readable: keep τ₀
    assert not late_clip_switch(*args, spread=math.nan)
    assert not late_clip_switch(*args, spread=0.0)
    assert not late_clip_switch(1.0, 0.5, 2.0, Minv, w, 0.0, spread=100.0)
    assert boosting.BOOST_LATE_RHO == 0.01 and "late" in boosting.BOOST_CLIP_RULES


def test_consistent_clip_switch_compares_the_rounds_noise_with_ols_excess_error():
    """§4j: switch iff σ_r² (τ_cap/τ₀)² tr(W M⁻¹ W)/n ≤ ρ' σ̂² p/n. Here W = diag(2, 1, 0) (a
    public constant feature: no reach, not counted in p), M⁻¹ = diag(1/4, 1, 7) → tr(W M⁻¹ W) = 2,
    p = 2; σ_r = 1, τ_cap/τ₀ = 4, n = 100 → the noise is 16·2/100 = 0.32; with ρ' = 0.01 the
    right side is 0.01·σ̂²·2/100, so the switch needs σ̂² ≥ 1600 (§4i's late rule: 32)."""
    from matrixdp.models.boosting import consistent_clip_switch, late_clip_switch

    Minv, w = np.diag([0.25, 1.0, 7.0]), np.array([2.0, 1.0, 0.0])
    args = (1.0, 0.5, 2.0, Minv, w, 100.0)
    assert consistent_clip_switch(*args, spread=math.sqrt(1600.0) * 1.001)
    assert not consistent_clip_switch(*args, spread=math.sqrt(1600.0) * 0.999)
    assert consistent_clip_switch(*args, spread=math.sqrt(160.0) * 1.001, rho=0.1)
    assert not consistent_clip_switch(*args, spread=math.sqrt(160.0) * 0.999, rho=0.1)
    assert late_clip_switch(*args, spread=math.sqrt(32.0) * 1.001, rho=0.01)  # switches earlier
    # nothing readable (no released count, no residual scale): keep τ₀
    assert not consistent_clip_switch(*args, spread=math.nan)
    assert not consistent_clip_switch(*args, spread=0.0)
    assert not consistent_clip_switch(1.0, 0.5, 2.0, Minv, w, 0.0, spread=1e6)
    assert boosting.BOOST_CONSISTENT_RHO == 0.01 and "consistent" in boosting.BOOST_CLIP_RULES
