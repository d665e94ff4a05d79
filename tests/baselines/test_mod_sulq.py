"""MOD-SULQ: exact sensitivity, the paper's β checked against the exact Gaussian profile, noise."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from matrixdp import baselines as B
from matrixdp.calibration.gaussian import analytic_gaussian_sigma, gaussian_delta
from matrixdp.errors import InvalidParameterError, OutOfBoundsError, UnsafeMechanismError

# the package re-exports the function under the module's name
mod_sulq_module = importlib.import_module("matrixdp.baselines.mod_sulq")


def _upper_norms(x: np.ndarray, y: np.ndarray, n: int) -> np.ndarray:
    iu = np.triu_indices(x.shape[1])
    diff = (np.einsum("ij,ik->ijk", x, x) - np.einsum("ij,ik->ijk", y, y))[:, iu[0], iu[1]] / n
    return np.linalg.norm(diff, axis=1)


def test_unit_ball_upper_sensitivity_is_exact():
    d, n = 5, 7
    sens = B.unit_ball_upper_sensitivity(d, n)
    assert sens == pytest.approx(math.sqrt(2) / n)
    assert B.unit_ball_upper_sensitivity(1, n) == pytest.approx(1 / n)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20_000, d))
    x /= np.maximum(1.0, np.linalg.norm(x, axis=1, keepdims=True)) * rng.uniform(1, 1.5, (20_000, 1))
    y = rng.standard_normal((20_000, d))
    y /= np.linalg.norm(y, axis=1, keepdims=True)
    assert _upper_norms(x, y, n).max() <= sens * (1 + 1e-12)
    e = np.eye(d)
    assert _upper_norms(e[:1], e[1:2], n)[0] == pytest.approx(sens)  # attained by e₁, e₂
    with pytest.raises(InvalidParameterError, match="d"):
        B.unit_ball_upper_sensitivity(0, 3)


def test_paper_beta_formula():
    d, n, eps, delta = 10, 1000, 0.5, 1e-5
    expected = 11 / (n * eps) * math.sqrt(2 * math.log(110 / (2 * math.sqrt(2 * math.pi) * delta))) \
        + 1 / (n * math.sqrt(eps))
    assert B.mod_sulq_beta(d, n, eps, delta) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(Exception, match="delta"):
        B.mod_sulq_beta(1, n, 1.0, 0.45)  # log argument < 1: undefined


@pytest.mark.parametrize("d", [1, 2, 5, 105, 2400])
def test_paper_beta_holds_on_a_grid(d):
    """The independent privacy check: δ(ε) of N(0, β²) at the exact sensitivity is ≤ δ."""
    n = 1000
    for eps in (0.01, 0.2, 1.0, 1.6, 5.0, 20.0, 100.0):
        for delta in (1e-2, 1e-5, 1e-7, 1e-12):
            beta = B.mod_sulq_beta(d, n, eps, delta)
            sens = B.unit_ball_upper_sensitivity(d, n)
            assert gaussian_delta(eps, beta, sens) <= delta
            assert beta > analytic_gaussian_sigma(eps, delta, sens)


def test_sigma_guard_refuses_an_insufficient_beta(monkeypatch):
    sigma, privacy = B.mod_sulq_sigma(20, 500, 1.0, 1e-6)
    assert privacy.exact is False and not privacy.refuted and "paper" in privacy.calibration
    monkeypatch.setattr(mod_sulq_module, "mod_sulq_beta", lambda d, n, e, dl: 1e-6 / n)
    with pytest.raises(UnsafeMechanismError, match="analytic"):
        B.mod_sulq_sigma(20, 500, 1.0, 1e-6)
    s_an, p_an = B.mod_sulq_sigma(20, 500, 1.0, 1e-6, calibration="analytic")
    assert p_an.exact is True
    assert s_an == pytest.approx(analytic_gaussian_sigma(1.0, 1e-6, math.sqrt(2) / 500))
    with pytest.raises(InvalidParameterError, match="calibration"):
        B.mod_sulq_sigma(20, 500, 1.0, 1e-6, calibration="classic")


def test_mod_sulq_noise_is_symmetric_with_scale_beta():
    d, n = 200, 10
    x = np.zeros((n, d))
    out = B.mod_sulq(x, epsilon=1.0, delta=1e-5, n_components=3, row_norm_bound=2.0, rng=4)
    beta = B.mod_sulq_beta(d, n, 1.0, 1e-5)
    assert out.noise_scale == pytest.approx(beta)
    noise = out.covariance / 4.0  # covariance is R²(A + N), A = 0
    np.testing.assert_allclose(noise, noise.T)
    upper = noise[np.triu_indices(d)]
    sd = upper.std()
    assert sd == pytest.approx(beta, rel=0.02)
    assert abs(sd - 0.7 * beta) > 0.1 * beta and abs(sd - 1.3 * beta) > 0.1 * beta
    assert np.diag(noise).std() == pytest.approx(beta, rel=0.15)
    assert out.components.shape == (d, 3)
    np.testing.assert_allclose(out.components.T @ out.components, np.eye(3), atol=1e-10)


def test_mod_sulq_recovers_components_and_checks_bounds():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((20_000, 6)) * np.array([3.0, 2.0, 1.0, 0.3, 0.2, 0.1])
    bound = float(np.ceil(np.linalg.norm(x, axis=1).max()))  # a round public bound for the test
    out = B.mod_sulq(x, epsilon=5.0, delta=1e-5, n_components=2, row_norm_bound=bound, rng=2)
    assert np.abs(np.diag(out.components[:2, :2])).min() > 0.9  # ±e₁, ±e₂
    with pytest.raises(OutOfBoundsError):
        B.mod_sulq(x, epsilon=1.0, delta=1e-5, n_components=2, row_norm_bound=bound / 2)
    with pytest.raises(InvalidParameterError, match="n_components"):
        B.mod_sulq(x, epsilon=1.0, delta=1e-5, n_components=7, row_norm_bound=bound)
