"""Optimal i.i.d. Gaussian noise (Theorem 2.4), the CRB and the Fisher-matched Laplace baseline (spec §7, 1–4)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import kstest, laplace, norm

from matrixdp.errors import InvalidParameterError, NotPositiveSemidefiniteError
from matrixdp.calibration.fisher import (
    check_weights,
    crb,
    design_objective,
    gaussian_fisher,
    laplace_fisher,
    laplace_fisher_matched_scales,
    optimal_cost,
    optimal_gaussian_cov,
    privacy_measure,
    spd_power,
    utility_lower_bound,
)
from matrixdp.mechanisms.fisher import sample_fisher_matched_laplace, sample_optimal_gaussian

ALPHA = 1e-4


def _random_spd(p, rng):
    a = rng.standard_normal((p, p))
    return a @ a.T + 0.5 * np.eye(p)


@pytest.mark.parametrize("lam,std", [(1e-4, 10.0), (1e-2, 3.16227766), (1.0, 1.0)])
def test_optimal_cov_identity_weights(lam, std):
    cov = optimal_gaussian_cov(lam, n_features=2)
    np.testing.assert_allclose(cov, std ** 2 * np.eye(2), rtol=1e-7)


def test_optimal_cov_diagonal_and_general_weights():
    np.testing.assert_allclose(optimal_gaussian_cov(1.0, [4.0, 1.0]), np.diag([0.5, 1.0]))
    pi = _random_spd(3, np.random.default_rng(0))
    cov = optimal_gaussian_cov(0.3, pi)
    np.testing.assert_allclose(cov, cov.T)
    assert np.linalg.eigvalsh(cov).min() > 0
    # Sigma^2 = Pi^{-1} / lam
    np.testing.assert_allclose(cov @ cov, np.linalg.inv(pi) / 0.3, rtol=1e-10)


def test_sampler_covariance_and_score_fisher():
    rng = np.random.default_rng(1)
    pi = _random_spd(3, rng)
    lam = 0.7
    cov = optimal_gaussian_cov(lam, pi)
    n = sample_optimal_gaussian(200_000, lam, pi, rng=2)
    emp = n.T @ n / n.shape[0]
    assert np.abs(emp - cov).max() / np.abs(cov).max() < 0.015
    assert np.abs(n.mean(axis=0)).max() < 0.02 * np.sqrt(np.diag(cov)).max()
    score = n @ np.linalg.inv(cov)
    fisher_mc = score.T @ score / n.shape[0]
    np.testing.assert_allclose(fisher_mc, np.sqrt(lam) * spd_power(pi, 0.5), atol=0.03)


def test_sampler_scale_accepts_true_rejects_wrong():
    lam = 1e-2
    n = sample_optimal_gaussian(20_000, lam, n_features=2, rng=3).ravel()
    std = lam ** -0.25
    assert kstest(n, norm(scale=std).cdf).pvalue > ALPHA
    for wrong in (0.7, 1.3):
        assert kstest(n, norm(scale=wrong * std).cdf).pvalue < ALPHA


@pytest.mark.parametrize("lam,value", [(1e-4, 0.04), (1e-2, 0.4), (1.0, 4.0)])
def test_optimal_cost_values(lam, value):
    assert optimal_cost(lam, n_features=2) == pytest.approx(value)
    cov = optimal_gaussian_cov(lam, n_features=2)
    assert design_objective(None, gaussian_fisher(cov), cov, lam) == pytest.approx(value)


def test_optimal_cost_weighted():
    assert optimal_cost(1.0, [4.0, 1.0]) == pytest.approx(3.0)


def test_gaussian_optimum_beats_perturbed_covariances():
    rng = np.random.default_rng(4)
    pi = _random_spd(3, rng)
    lam = 0.3
    cov = optimal_gaussian_cov(lam, pi)
    j_star = optimal_cost(lam, pi)

    def objective(sigma):
        return design_objective(pi, np.linalg.inv(sigma), sigma, lam)

    assert objective(cov) == pytest.approx(j_star, rel=1e-12)
    for s in (0.5, 0.9, 1.1, 2.0):
        assert objective(s * cov) == pytest.approx((s + 1 / s) * j_star / 2, rel=1e-10)
        assert objective(s * cov) > j_star
    for _ in range(50):
        sigma = _random_spd(3, rng)
        assert objective(sigma) >= j_star - 1e-12
        # small symmetric perturbations of the optimum
        e = rng.standard_normal((3, 3)) * 1e-3
        assert objective(cov + (e + e.T)) > j_star


def test_numerical_minimiser_agrees():
    rng = np.random.default_rng(5)
    pi = _random_spd(3, rng)
    lam = 0.3
    idx = np.tril_indices(3)

    def f(theta):
        L = np.zeros((3, 3))
        L[idx] = theta
        sigma = L @ L.T + 1e-12 * np.eye(3)
        return np.trace(np.linalg.solve(pi, np.linalg.inv(sigma))) + lam * np.trace(sigma)

    res = minimize(f, np.eye(3)[idx], method="BFGS", options={"gtol": 1e-12})
    assert res.fun == pytest.approx(optimal_cost(lam, pi), rel=1e-8)


@pytest.mark.parametrize("lam,value", [(1e-4, 200.0), (1e-2, 20.0), (1.0, 2.0)])
def test_crb_reproduces_paper_numbers(lam, value):
    fisher = gaussian_fisher(optimal_gaussian_cov(lam, n_features=2))
    assert crb(None, fisher) == pytest.approx(value)
    assert privacy_measure(None, fisher) == pytest.approx(value / 4)
    assert crb(None, fisher) >= privacy_measure(None, fisher)


def test_crb_weighted_and_efficiency():
    pi = np.diag([4.0, 1.0])
    cov = optimal_gaussian_cov(1.0, pi)
    level = crb(pi, gaussian_fisher(cov))
    assert level == pytest.approx(3.0)
    # xhat = xbar is efficient: E[e^T Pi e] equals the CRB
    n = sample_optimal_gaussian(200_000, 1.0, pi, rng=6)
    mc = np.einsum("ij,jk,ik->i", n, pi, n).mean()
    assert mc == pytest.approx(level, rel=0.01)


def test_fisher_matched_laplace():
    rng = np.random.default_rng(7)
    pi = _random_spd(3, rng)
    lam = 0.5
    scales, basis = laplace_fisher_matched_scales(lam, pi)
    info = laplace_fisher(scales, basis)
    np.testing.assert_allclose(info, np.sqrt(lam) * spd_power(pi, 0.5), rtol=1e-10)
    cov = optimal_gaussian_cov(lam, pi)
    assert crb(pi, info) == pytest.approx(crb(pi, gaussian_fisher(cov)))
    j_lap = design_objective(pi, info, 2 * cov, lam)
    assert j_lap == pytest.approx(1.5 * optimal_cost(lam, pi))
    # identity weights: b = lam^{-1/4} per coordinate
    b, u = laplace_fisher_matched_scales(1e-4, n_features=2)
    np.testing.assert_allclose(b, [10.0, 10.0])
    np.testing.assert_allclose(u, np.eye(2))


def test_laplace_sampler_scale_accepts_true_rejects_wrong():
    n = sample_fisher_matched_laplace(20_000, 1e-4, n_features=2, rng=8).ravel()
    assert kstest(n, laplace(scale=10.0).cdf).pvalue > ALPHA
    for wrong in (0.7, 1.3):
        assert kstest(n, laplace(scale=10.0 * wrong).cdf).pvalue < ALPHA


def test_bad_inputs():
    with pytest.raises(InvalidParameterError, match="lam"):
        optimal_gaussian_cov(0.0, n_features=2)
    with pytest.raises(InvalidParameterError, match="lam"):
        optimal_gaussian_cov(-1.0, n_features=2)
    with pytest.raises(NotPositiveSemidefiniteError):
        optimal_gaussian_cov(1.0, [[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(NotPositiveSemidefiniteError):
        check_weights([[1.0, 0.5], [0.0, 1.0]])
    with pytest.raises(NotPositiveSemidefiniteError):
        check_weights([1.0, -1.0])
    with pytest.raises(InvalidParameterError, match="n_features"):
        optimal_gaussian_cov(1.0)


def test_markov_step_of_proposition_2_3():
    # P{sum ||n_i||^2 >= eps^2} <= q Tr(V) / eps^2 (the proof's Markov step), empirically
    q, lam = 20, 1.0
    tr_v = np.trace(optimal_gaussian_cov(lam, n_features=2))
    rng = np.random.default_rng(9)
    totals = np.array([(sample_optimal_gaussian(q, lam, n_features=2, rng=rng) ** 2).sum()
                       for _ in range(2000)])
    for radius in (6.0, 8.0, 12.0):
        assert np.mean(totals >= radius ** 2) <= q * tr_v / radius ** 2
    assert utility_lower_bound(q, 1.0, 12.0, np.eye(2)) == pytest.approx(1 - 40 / 144)
