"""Projections onto public feasible sets: feasibility, optimality and non-expansiveness."""

import numpy as np
import pytest

from matrixdp import feasible
from matrixdp.errors import InvalidParameterError, InvalidShapeError


def _random_cov(rng, d, scale=1.0):
    a = rng.standard_normal((d, 2 * d))
    return scale * a @ a.T / (2 * d)


def _noisy(rng, true, sigma):
    e = rng.standard_normal(true.shape) * sigma
    return true + (e + e.T) / 2


def _random_correlation(rng, d):
    c = _random_cov(rng, d)
    s = np.sqrt(np.diag(c))
    return c / np.outer(s, s)


def test_project_psd_clips_eigenvalues_and_is_idempotent():
    rng = np.random.default_rng(0)
    m = _noisy(rng, np.zeros((6, 6)), 1.0)
    p = feasible.project_psd(m)
    lam_in, vec_in = np.linalg.eigh(m)
    expected = (vec_in * np.maximum(lam_in, 0)) @ vec_in.T
    np.testing.assert_allclose(p, expected, atol=1e-12)
    assert np.linalg.eigvalsh(p).min() >= -1e-12
    np.testing.assert_allclose(feasible.project_psd(p), p, atol=1e-12)


def test_project_psd_with_floor():
    rng = np.random.default_rng(1)
    p = feasible.project_psd(_noisy(rng, np.zeros((5, 5)), 1.0), floor=0.5)
    assert np.linalg.eigvalsh(p).min() >= 0.5 - 1e-12


def test_project_covariance_meets_variance_and_cauchy_schwarz_bounds():
    rng = np.random.default_rng(2)
    vmax = np.array([0.25, 1.0, 4.0, 0.5])
    true = _random_cov(rng, 4)
    true = true * np.sqrt(np.outer(vmax, vmax)) / np.sqrt(np.outer(np.diag(true), np.diag(true))) * 0.8
    noisy = _noisy(rng, true, 2.0)
    out = feasible.project_covariance(noisy, variance_max=vmax)
    assert np.linalg.eigvalsh(out).min() >= -1e-10
    assert np.all(np.diag(out) <= vmax + 1e-7)
    assert np.all(np.diag(out) >= -1e-7)
    d = np.sqrt(np.clip(np.diag(out), 0, None))
    assert np.all(np.abs(out) <= np.outer(d, d) + 1e-7)


@pytest.mark.parametrize("seed", range(5))
def test_project_covariance_is_the_nearest_point(seed):
    # A point P is the projection of x onto a convex set C iff <x - P, y - P> <= 0 for all y in C.
    rng = np.random.default_rng(10 + seed)
    d = 5
    vmax = rng.uniform(0.5, 2.0, d)
    noisy = _noisy(rng, np.zeros((d, d)), 1.5)
    out = feasible.project_covariance(noisy, variance_max=vmax, tol=1e-13, max_iter=5000)
    worst = -np.inf
    for _ in range(200):
        y = _random_cov(rng, d)
        y = y * np.sqrt(np.outer(vmax, vmax)) / np.sqrt(np.outer(np.diag(y), np.diag(y))) * rng.uniform(0, 1)
        worst = max(worst, np.sum((noisy - out) * (y - out)))
    assert worst <= 1e-6 * np.linalg.norm(noisy)
    # ... and a point that is only feasible (not nearest) fails the same check: the test can fail.
    shrunk = out * 0.5
    assert max(np.sum((noisy - shrunk) * (y - shrunk)) for y in [out]) > 1e-3


@pytest.mark.parametrize("seed", range(3))
def test_projection_never_increases_error_when_truth_is_feasible(seed):
    rng = np.random.default_rng(100 + seed)
    d = 6
    vmax = np.full(d, 1.0)
    for _ in range(50):
        true = feasible.project_covariance(_random_cov(rng, d, 0.5), variance_max=vmax)
        noisy = _noisy(rng, true, rng.uniform(0.05, 3.0))
        out = feasible.project_covariance(noisy, variance_max=vmax)
        assert np.linalg.norm(out - true) <= np.linalg.norm(noisy - true) + 1e-8


def test_nearest_correlation_is_a_correlation_and_nearest():
    rng = np.random.default_rng(3)
    d = 5
    noisy = _noisy(rng, _random_correlation(rng, d), 0.6)
    np.fill_diagonal(noisy, 1.0)
    out = feasible.nearest_correlation(noisy, tol=1e-13, max_iter=5000)
    np.testing.assert_allclose(np.diag(out), 1.0)
    assert np.linalg.eigvalsh(out).min() >= -1e-10
    assert np.all(np.abs(out) <= 1 + 1e-12)
    worst = max(np.sum((noisy - out) * (_random_correlation(rng, d) - out)) for _ in range(300))
    assert worst <= 1e-6


def test_nearest_correlation_keeps_a_valid_correlation():
    rng = np.random.default_rng(4)
    r = _random_correlation(rng, 4)
    np.testing.assert_allclose(feasible.nearest_correlation(r), r, atol=1e-9)


def test_orthonormalise_is_the_polar_factor():
    rng = np.random.default_rng(5)
    v = rng.standard_normal((7, 3))
    q = feasible.orthonormalise(v)
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-12)
    # Nearest: no random orthonormal matrix is closer.
    best = np.linalg.norm(v - q)
    for _ in range(200):
        other, _ = np.linalg.qr(rng.standard_normal((7, 3)))
        assert np.linalg.norm(v - other) >= best - 1e-12
    np.testing.assert_allclose(feasible.orthonormalise(q), q, atol=1e-12)


def test_second_moment_bounds_contain_every_record_product():
    rng = np.random.default_rng(6)
    lo = np.array([-1.0, 0.5, -3.0])
    hi = np.array([2.0, 1.5, -1.0])
    x = rng.uniform(lo, hi, size=(5000, 3))
    mlo, mhi = feasible.second_moment_entry_bounds(lo, hi)
    prods = x[:, :, None] * x[:, None, :]
    assert np.all(prods >= mlo - 1e-12) and np.all(prods <= mhi + 1e-12)
    # Tight: the corners attain them.
    assert mhi[0, 0] == 4.0 and mlo[0, 0] == 0.0 and mlo[1, 1] == 0.25 and mlo[2, 2] == 1.0


def test_clamp_and_errors():
    np.testing.assert_array_equal(feasible.clamp([2.37, 0.5, 1.5], 1, 2), [2.0, 1.0, 1.5])
    with pytest.raises(InvalidParameterError):
        feasible.clamp([0.0], 1, 0)
    with pytest.raises(InvalidShapeError):
        feasible.project_psd(np.ones((2, 3)))
    with pytest.raises(InvalidParameterError):
        feasible.covariance_entry_bounds([-1.0])
