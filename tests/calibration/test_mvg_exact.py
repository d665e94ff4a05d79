"""Exact MVG calibration: Mahalanobis sensitivity, exact privacy profile, linear budgets."""

import math

import numpy as np
import pytest

from matrixdp.calibration.gaussian import gaussian_delta, max_gaussian_shift
from matrixdp.calibration.mvg_exact import (
    AxisPrecision,
    DirectionCosts,
    exact_precisions,
    exact_privacy_profile,
    mahalanobis_sensitivity,
)
from matrixdp.queries.geometry import box_quadratic_max, frobenius_ball_shift, outer_product_shift
from matrixdp.calibration.allocation import exact_max_pnr_allocation, mse_optimal_allocation
from matrixdp.errors import InvalidParameterError, NotPositiveSemidefiniteError
from matrixdp.queries import FrobeniusBall


def _spd(d, rng):
    a = rng.standard_normal((d, d))
    return a @ a.T + 0.3 * np.eye(d)


def test_frobenius_ball_shift_closed_form():
    rng = np.random.default_rng(0)
    for m, n in [(1, 1), (3, 5), (6, 2)]:
        sigma, psi = _spd(m, rng), _spd(n, rng)
        s2 = rng.uniform(0.1, 5)
        mu = mahalanobis_sensitivity(FrobeniusBall(s2), sigma, psi)
        expected = s2 / math.sqrt(np.linalg.eigvalsh(sigma)[0] * np.linalg.eigvalsh(psi)[0])
        assert mu.exact and mu.value == pytest.approx(expected, rel=1e-10)
        # the witness attains it: mu(D)^2 = vec(D)^T (Psi kron Sigma)^-1 vec(D)
        d = mu.witness
        vec = d.reshape(-1, order="F")
        quad = vec @ np.linalg.solve(np.kron(psi, sigma), vec)
        assert math.sqrt(quad) == pytest.approx(expected, rel=1e-8)
        assert np.linalg.norm(d) == pytest.approx(s2)


def test_privacy_profile_is_the_gaussian_one_at_the_shift():
    rng = np.random.default_rng(1)
    sigma, psi = _spd(3, rng), _spd(4, rng)
    mu = mahalanobis_sensitivity(FrobeniusBall(1.5), sigma, psi).value
    for eps in (0.0, 0.3, 1.0, 4.0):
        assert exact_privacy_profile(eps, FrobeniusBall(1.5), sigma, psi) == pytest.approx(
            gaussian_delta(eps, 1.0, mu) if eps > 0 else gaussian_delta(1e-300, 1.0, mu), rel=1e-9)
    with pytest.raises(InvalidParameterError):
        exact_privacy_profile(-1.0, FrobeniusBall(1.5), sigma, psi)
    with pytest.raises(NotPositiveSemidefiniteError):
        mahalanobis_sensitivity(FrobeniusBall(1.0), -np.eye(2), np.eye(2))
    # calibration never builds a structure: a bare number names the argument
    with pytest.raises(InvalidParameterError, match="sensitivity"):
        mahalanobis_sensitivity(1.0, sigma, psi)


def test_privacy_loss_is_gaussian_with_mean_mu2_over_2():
    """Monte-Carlo check of the key identity: loss ~ N(mu^2/2, mu^2) for correlated MVG noise."""
    rng = np.random.default_rng(2)
    sigma, psi = _spd(3, rng), _spd(2, rng)
    d = rng.standard_normal((3, 2))
    cov = np.kron(psi, sigma)
    prec = np.linalg.inv(cov)
    vd = d.reshape(-1, order="F")
    mu2 = vd @ prec @ vd
    z = rng.multivariate_normal(np.zeros(6), cov, size=200000)
    # loss of output y = z (from f(X)) vs f(X') = f(X) - d: log p(y)/p'(y) = -(z^T P z - (z+d)^T P (z+d))/2
    loss = z @ prec @ vd + 0.5 * mu2
    assert loss.mean() == pytest.approx(mu2 / 2, abs=5 * math.sqrt(mu2 / 200000))
    assert loss.var() == pytest.approx(mu2, rel=0.02)


def test_box_quadratic_max_enumeration_and_bounds():
    rng = np.random.default_rng(3)
    a = _spd(5, rng)
    lo, hi = -rng.uniform(0, 2, 5), rng.uniform(0, 2, 5)
    val, exact, low, arg = box_quadratic_max(a, lo, hi)
    pts = rng.uniform(lo, hi, size=(20000, 5))
    assert exact and val == low and val >= np.einsum("ij,jk,ik->i", pts, a, pts).max()
    assert arg @ a @ arg == pytest.approx(val)
    diag = np.diag([1.0, 2.0, 3.0])
    val, exact, _, _ = box_quadratic_max(diag, [-1, 0, -3], [2, 1, 1])
    assert exact and val == pytest.approx(4 + 2 + 27)
    big = _spd(20, rng)
    val, exact, low, arg = box_quadratic_max(big, -np.ones(20), np.ones(20))
    signs = rng.choice([-1.0, 1.0], size=(20000, 20))
    assert val >= np.einsum("ij,jk,ik->i", signs, big, signs).max()
    assert low <= val * (1 + 1e-12) and arg @ big @ arg == pytest.approx(low)


def test_outer_product_ball_exact_formula():
    rng = np.random.default_rng(4)
    a = _spd(3, rng)
    prec = AxisPrecision.from_covariance(np.linalg.inv(a))
    r = 1.3
    b = outer_product_shift(prec, prec, scale=0.1, radius=r)
    lam = np.linalg.eigvalsh(a)
    assert b.exact and b.value_sq == pytest.approx(0.01 * r ** 4 * (lam[-1] ** 2 + lam[-2] ** 2), rel=1e-9)
    x = rng.standard_normal((20000, 3))
    y = rng.standard_normal((20000, 3))
    x *= r / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), r)   # inside the ball
    y *= r * rng.random((20000, 1)) / np.linalg.norm(y, axis=1, keepdims=True)
    f = (np.einsum("ki,ij,kj->k", x, a, x) ** 2 + np.einsum("ki,ij,kj->k", y, a, y) ** 2
         - 2 * np.einsum("ki,ij,kj->k", x, a, y) ** 2)
    assert 0.01 * f.max() <= b.value_sq * (1 + 1e-12)


def test_exact_precisions_spend_the_linear_budget():
    costs = DirectionCosts(np.array([1.0, 4.0, 9.0]))
    theta = np.array([0.5, 0.3, 0.2])
    p = exact_precisions(costs, theta, 1.0, 1e-5)
    mu_star = max_gaussian_shift(1.0, 1e-5)
    assert costs.bound_sq(p) == pytest.approx(mu_star ** 2, rel=1e-12)
    np.testing.assert_allclose(costs.costs * p / mu_star ** 2, theta, rtol=1e-12)
    equi = DirectionCosts(np.array([1.0, 2.0]), power=2, scale=0.5)
    p = exact_precisions(equi, [0.5, 0.5], 1.0, 1e-5)
    assert equi.bound_sq(p) == pytest.approx(mu_star ** 2, rel=1e-12)


def test_mse_optimal_allocation_beats_iid():
    rng = np.random.default_rng(5)
    for _ in range(20):
        c = rng.uniform(0.1, 10, 6)
        theta = mse_optimal_allocation(c)
        assert theta.sum() == pytest.approx(1.0)
        total_opt = np.sum(c / theta)            # budget B = 1
        total_iid = len(c) * c.sum()             # equal precisions p = 1/sum(c)
        assert total_opt <= total_iid * (1 + 1e-12)
        other = rng.dirichlet(np.ones(6))
        assert total_opt <= np.sum(c / other) * (1 + 1e-12)


def test_exact_max_pnr_allocation_is_optimal_and_positive():
    rng = np.random.default_rng(6)
    c = rng.uniform(0.5, 2, 5)
    lam = rng.uniform(0.1, 5, 5)
    budget = 50.0
    theta = exact_max_pnr_allocation(lam, c, budget, rule="waterfill")
    assert theta.sum() == pytest.approx(1.0) and np.all(theta > 0)

    def objective(th):
        return np.sum(np.log1p(lam * th * budget / c))

    for _ in range(200):
        assert objective(theta) >= objective(rng.dirichlet(np.ones(5))) - 1e-12
    floored = exact_max_pnr_allocation(np.array([100.0, 1e-6, 1e-6]), np.ones(3), 1e-3)
    assert np.all(floored > 0) and floored.sum() == pytest.approx(1.0)
    with pytest.raises(InvalidParameterError):
        exact_max_pnr_allocation(np.array([100.0, 1e-6, 1e-6]), np.ones(3), 1e-3, rule="waterfill")


def test_frobenius_ball_is_rotation_invariant():
    rng = np.random.default_rng(7)
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    p = rng.uniform(0.5, 2, 4)
    a = frobenius_ball_shift(2.0, AxisPrecision(p, q), AxisPrecision.identity(3))
    b = frobenius_ball_shift(2.0, AxisPrecision(p), AxisPrecision.identity(3))
    assert a.value_sq == pytest.approx(b.value_sq) == pytest.approx(4.0 * p.max())


def test_outer_product_unimodal_ball_exact_ky_fan():
    rng = np.random.default_rng(8)
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    p = np.array([3.0, 1.0, 0.5, 0.2])
    b = outer_product_shift(AxisPrecision(p, q), AxisPrecision.identity(4, 2.0), scale=0.5, radius=1.5)
    assert b.exact and b.value_sq == pytest.approx(2.0 * 0.25 * 1.5 ** 4 * (3.0 + 1.0), rel=1e-9)
    # random pairs inside the ball never exceed it
    a = AxisPrecision(p, q).matrix()
    x = rng.standard_normal((20000, 4))
    y = rng.standard_normal((20000, 4))
    x *= 1.5 * rng.random((20000, 1)) ** 0.25 / np.linalg.norm(x, axis=1, keepdims=True)
    y *= 1.5 * rng.random((20000, 1)) ** 0.25 / np.linalg.norm(y, axis=1, keepdims=True)
    n = np.einsum("ki,kj->kij", x, x) - np.einsum("ki,kj->kij", y, y)
    mu2 = 2.0 * 0.25 * np.einsum("kij,jl,kli->k", n, a, n)
    assert mu2.max() <= b.value_sq * (1 + 1e-12)
