"""Exact MVG calibration: Mahalanobis sensitivity, exact privacy profile, linear budgets."""

import math
import numpy as np
import pytest

from matrixdp.calibration.gaussian import gaussian_delta, max_gaussian_shift
from matrixdp.calibration.mvg_exact import (
    DirectionCosts,
    exact_precisions,
    exact_privacy_profile,
    mahalanobis_sensitivity,
)
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
