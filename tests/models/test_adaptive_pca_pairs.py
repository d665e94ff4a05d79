"""The PCA ranking's pair losses of one top direction combined as one unit vector (task PN,
``adaptive_covariance(noise_pairs="normalised")``, opt-in; ``docs/coinpress.md`` § Adaptive (PCA),
"The pairs of one direction (task PN)")."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.models.adaptive import (AdaptiveOptions, NOISE_PAIRS, RESOLVE_Z, adaptive_covariance,
                                      moments_pair_variance, pca_deficit, pca_deficit_normalised,
                                      pca_frame)


def test_normalised_is_its_formula():
    """t = p/(1 − p), p = f/g; share t/(1 + Σ_row t); loss Σ g·share. Pairs with g = 0 count 0."""
    g = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 1.5]])
    f = np.array([[0.4, 0.3, 0.0], [0.1, 0.6, 0.5]])
    p = np.where(g > 0, f / np.where(g > 0, g, 1), 0)
    t = p / (1 - p)
    want = float(np.sum(g * t / (1 + t.sum(axis=1, keepdims=True))))
    assert pca_deficit_normalised(g, f) == pytest.approx(want, rel=1e-12)
    assert pca_deficit_normalised(np.zeros((1, 3)), np.zeros((1, 3))) == 0.0


def test_normalised_is_the_pair_sum_for_small_noise():
    """First order: the pair sum (s ≪ g²: within 0.1% at s = 1e-6·g²); the sum is the right
    prediction there, so the candidate must not move it."""
    g = np.array([[1.0, 2.0, 0.7, 1.3]])
    f, _ = pca_deficit(g, np.full_like(g, 1e-6))
    assert pca_deficit_normalised(g, f) == pytest.approx(float(f.sum()), rel=1e-3)


def test_normalised_matches_monte_carlo_under_large_isotropic_noise():
    """One top direction (gap g to m = 20 others of equal variance) under noise far above the
    gap: the released top vector is uniform on the sphere, so the captured variance falls by
    g·m/(m + 1) (Monte Carlo, 4,000 draws, within 5%). Each 2 × 2 pair tilts by sin²θ = 1/2
    (f = g/2), so the pair sum predicts m·g/2 = 10.5x as much (rejected); the normalised
    combination gives g·m/(m + 1) (t = 1 per pair)."""
    rng = np.random.default_rng(5)
    m, g, sd = 20, 1.0, 1e3
    lam = np.r_[1.0 + g, np.ones(m)]
    k = m + 1
    G = rng.standard_normal((4000, k, k)) * sd
    E = 0.5 * (G + np.swapaxes(G, 1, 2))
    _, V = np.linalg.eigh(np.diag(lam)[None] + E)
    top = V[:, :, -1]
    loss = float(np.mean(lam[0] - np.einsum("ra,a,ra->r", top, lam, top)))
    gaps = np.full((1, m), g)
    f, _ = pca_deficit(gaps, np.full((1, m), (sd * sd / 2) ** 1))
    assert f == pytest.approx(np.full((1, m), g / 2), rel=1e-3)
    got = pca_deficit_normalised(gaps, f)
    assert got == pytest.approx(g * m / (m + 1), rel=1e-3)
    assert got == pytest.approx(loss, rel=0.05)
    assert not float(f.sum()) == pytest.approx(loss, rel=0.3)
    assert not 1.3 * got == pytest.approx(loss, rel=0.05)


def test_the_top_cap_bounds_each_gap_by_the_top_variance():
    """pca_frame(top_cap=True): g̃_ij <= max(λ̂_i + z sd_i, 0); without it an unresolved pair's
    floor √N/2 follows the noise of the pair (here a noisy off-diagonal entry between a top and
    a bottom feature, the top variance small and well resolved: the floor binds, the cap lowers
    it). The upper confidence ordering puts a direction with a noisy VARIANCE in the top itself,
    so the cap binds only through the pair's off-diagonal noise.)"""
    rng = np.random.default_rng(3)
    k, q, t = 4, 2, 10.0
    C1 = np.diag([0.30, 0.25, 0.02, 0.01]) + 0.001 * rng.standard_normal((k, k))
    C1 = 0.5 * (C1 + C1.T)
    V1 = np.full((k + 1, k + 1), 1e-6)
    V1[0, 3] = V1[3, 0] = 1.0  # the entry C_03 is very noisy
    m = np.zeros(k)
    U0, g0 = pca_frame(C1, V1, m, t, q)
    U1, g1 = pca_frame(C1, V1, m, t, q, top_cap=True)
    assert np.array_equal(U0, U1)
    lam = np.einsum("ai,ab,bi->i", U1, C1, U1)
    sd = np.sqrt(moments_pair_variance(V1, m, t, U1, 1)[1])
    cap = np.maximum(lam[:q] + RESOLVE_Z * sd[:q], 0.0)
    assert np.all(g1 <= cap[:, None] * (1 + 1e-12))
    np.testing.assert_allclose(g1, np.minimum(g0, cap[:, None]), rtol=1e-12)
    assert np.any(g0 > cap[:, None])  # the cap binds on some pair here


def _table(seed=0, n=400, d=6):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    return X, -np.ones(d), np.ones(d)


def test_noise_pairs_is_validated_and_sum_is_the_default():
    X, lo, hi = _table()
    with pytest.raises(InvalidParameterError, match="noise_pairs"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2, rng=0,
                            options=AdaptiveOptions(noise_pairs="mean"))
    assert NOISE_PAIRS == ("sum", "normalised", "unfloored")
    a = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2,
                            rng=0)
    b = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2, rng=0,
                            options=AdaptiveOptions(noise_pairs="sum"))
    assert np.array_equal(a.covariance, b.covariance)
    assert a.predicted == b.predicted


@pytest.mark.parametrize("branch", ["moments", "coinpress"])
def test_normalised_is_post_processing_of_the_same_releases(branch):
    """With the branch forced, the option changes only the predictions: the same draws, the
    same release, the same guarantee; its noise prediction of the step on isotropic d = 6 data
    at ε = 1 is below the pair sum's (4 pairs per top direction)."""
    X, lo, hi = _table(1)
    r = {p: adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2,
                                rng=7, options=AdaptiveOptions(branch=branch, noise_pairs=p))
         for p in NOISE_PAIRS}
    assert np.array_equal(r["sum"].covariance, r["normalised"].covariance)
    assert np.array_equal(r["sum"].location, r["normalised"].location)
    assert r["sum"].privacy == r["normalised"].privacy
    assert r["normalised"].predicted["coinpress"] < r["sum"].predicted["coinpress"]


def test_unfloored_frame_drops_only_the_floor():
    """pca_frame(floor=False) (noise_pairs="unfloored"): the same frame; each gap is
    √max(ĝ² − N, 0), so it equals the floored gap where that is above the floor √N/2 and is
    below it elsewhere (0 where ĝ² <= N)."""
    rng = np.random.default_rng(4)
    k, q, t = 6, 2, 10.0
    C1 = np.diag([1.0, 0.9, 0.5, 0.45, 0.44, 0.1]) + 0.02 * rng.standard_normal((k, k))
    C1 = 0.5 * (C1 + C1.T)
    V1 = np.full((k + 1, k + 1), 3e-2)
    m = np.zeros(k)
    U0, g0 = pca_frame(C1, V1, m, t, q)
    U1, g1 = pca_frame(C1, V1, m, t, q, floor=False)
    assert np.array_equal(U0, U1)
    assert np.all(g1 <= g0)
    s1, diag1 = moments_pair_variance(V1, m, t, U1, q)
    N = diag1[:q, None] + diag1[None, q:] + 4.0 * s1[:, q:]
    floored = g0 <= 0.5 * np.sqrt(N) * (1 + 1e-12)
    assert floored.any() and (~floored & (g0 > 0)).any()
    np.testing.assert_array_equal(g1[~floored], g0[~floored])
    assert np.all(g1[floored] < g0[floored])


def test_unfloored_runs_with_the_same_releases():
    X, lo, hi = _table(2)
    r = {p: adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2,
                                rng=3, options=AdaptiveOptions(branch="coinpress", noise_pairs=p))
         for p in ("sum", "unfloored")}
    assert np.array_equal(r["sum"].covariance, r["unfloored"].covariance)
    assert r["sum"].privacy == r["unfloored"].privacy
