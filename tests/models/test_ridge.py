"""Regression on the released set (§2.4; spec §7, 27–28)."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.mechanisms.fisher import sample_fisher_matched_laplace, sample_optimal_gaussian
from matrixdp.models.ridge import fit_ridge, ridge_gradient, ridge_loss


def _data(seed=0, q=300, p=4):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 3, (q, p))
    y = X @ rng.standard_normal(p) + 0.1 * rng.standard_normal(q)
    return X, y


def test_closed_form_zero_gradient():
    X, y = _data()
    phi = fit_ridge(X, y, sigma=1e-5)
    assert np.abs(ridge_gradient(phi, X, y, sigma=1e-5)).max() < 1e-10
    q = X.shape[0]
    normal = np.linalg.solve(X.T @ X / q + 1e-5 * np.eye(4), X.T @ y / q)
    np.testing.assert_allclose(phi, normal, rtol=1e-8)
    for _ in range(20):
        other = phi + 1e-3 * np.random.default_rng(_).standard_normal(4)
        assert ridge_loss(other, X, y) > ridge_loss(phi, X, y)


def test_noisy_loss_decreases_with_lambda_and_gaussian_beats_laplace():
    X, y = _data(1)
    base = ridge_loss(fit_ridge(X, y), X, y)
    means_g, means_l = [], []
    for lam in (1e-2, 1.0, 1e2, 1e4, 1e6):
        g, l_ = [], []
        for seed in range(100):
            ng = sample_optimal_gaussian(X.shape[0], lam, n_features=4, rng=seed)
            nl = sample_fisher_matched_laplace(X.shape[0], lam, n_features=4, rng=seed)
            g.append(ridge_loss(fit_ridge(X + ng, y), X, y))
            l_.append(ridge_loss(fit_ridge(X + nl, y), X, y))
        means_g.append(np.mean(g))
        means_l.append(np.mean(l_))
    assert all(a > b for a, b in zip(means_g, means_g[1:]))
    assert means_g[-1] == pytest.approx(base, rel=0.05)
    assert all(m >= base for m in means_g)
    # Gaussian at least as good as the Fisher-matched Laplace (one-sided, paired seeds)
    assert all(g <= l_ for g, l_ in zip(means_g, means_l))


def test_bad_ridge_inputs():
    X, y = _data()
    with pytest.raises(InvalidParameterError, match="sigma"):
        fit_ridge(X, y, sigma=0.0)
    with pytest.raises(InvalidParameterError, match="y"):
        fit_ridge(X, y[:-1])
