"""``risk_shrink.sure_ridge`` (docs/regression.md §3d): the risk estimate is unbiased for the
prediction risk of every ridge on the grid (a statistical test that accepts the true risk and
rejects it scaled by ±30%), the argmin picks no shrink where there is no noise and the level only
where the coefficients are pure noise, and the smallest minimiser over the noise scales is kept."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp.models.risk_shrink import SURE_GRID, sure_ridge


def _problem():
    rng = np.random.default_rng(3)
    k = 4
    A = rng.normal(size=(k + 2, k))
    M = A.T @ A + 0.5 * np.eye(k)
    W = M / 3.0
    B = rng.normal(size=(k, k))
    Om = 0.2 * (B @ B.T) / k + 0.05 * np.eye(k)
    beta = np.array([0.8, -0.4, 0.2, 1.0])
    P = np.array([1.0, 2.0, 0.5, 1.0])
    return beta, M, W, Om, P


def _true_risk(beta, M, W, Om, P, n_free, j):
    k = beta.size
    Pf = P.copy()
    Pf[k - n_free:] = 0.0
    pen = Pf > 0
    scale = np.trace(M[np.ix_(pen, pen)]) / Pf.sum()
    g = SURE_GRID[j]
    if np.isinf(g):
        S = np.zeros((k, k))
        free = ~pen
        S[np.ix_(free, np.arange(k))] = np.linalg.solve(M[np.ix_(free, free)], M[free, :])
    else:
        S = np.linalg.solve(M + g * scale * np.diag(Pf), M)
    D = S - np.eye(k)
    return float(beta @ D.T @ W @ D @ beta + np.trace(S.T @ W @ S @ Om))


def test_risk_estimate_is_unbiased():
    """Over 1,000 draws of β̃ ~ N(β, Ω), the mean of R̂(λ) is within 4 standard errors of the
    exact risk at λ = 0, four interior grid values and ∞; the exact risk × 1.3 and × 0.7 are
    outside that band (at λ = 0, R̂ = tr(WΩ) is exact: no spread)."""
    beta, M, W, Om, P = _problem()
    rng = np.random.default_rng(11)
    L = np.linalg.cholesky(Om)
    js = [0, 15, 25, 35, 45, len(SURE_GRID) - 1]
    est = np.array([sure_ridge(beta + L @ rng.normal(size=beta.size), M, Om, W, P, n_free=1,
                               noise_scales=(1.0,))[2][js] for _ in range(1000)])
    for i, j in enumerate(js):
        true = _true_risk(beta, M, W, Om, P, 1, j)
        band = 4 * est[:, i].std() / np.sqrt(est.shape[0]) + 1e-9 * true
        assert abs(est[:, i].mean() - true) <= band
        for wrong in (1.3 * true, 0.7 * true):
            assert abs(est[:, i].mean() - wrong) > band


def test_no_noise_keeps_the_fit():
    beta, M, W, _, P = _problem()
    out, lam, risks, S = sure_ridge(beta, M, np.zeros_like(M), W, P, n_free=1)
    assert lam == 0.0 and np.allclose(out, beta) and np.allclose(S, np.eye(beta.size))
    assert risks[0] == pytest.approx(0.0, abs=1e-12)


def test_pure_noise_gives_the_level_only():
    """β = 0 on the penalised coordinates and noise far above the estimate: λ = ∞; the
    penalised coordinates are 0 and the free one solves its own row of M β̂ = M β̃."""
    beta, M, W, Om, P = _problem()
    bt = np.array([0.01, -0.02, 0.01, 0.7])
    out, lam, _, _ = sure_ridge(bt, M, 100.0 * Om, W, P, n_free=1)
    assert np.isinf(lam)
    assert np.all(out[:3] == 0.0)
    assert out[3] == pytest.approx(float(M[3] @ bt) / M[3, 3])


def test_smallest_minimiser_over_noise_scales():
    beta, M, W, Om, P = _problem()
    Om = 0.01 * Om  # noise small against β: an interior λ
    lams = [sure_ridge(beta, M, Om, W, P, n_free=1, noise_scales=(c,))[1] for c in (1.0, 0.2)]
    assert 0 < lams[1] < lams[0] < np.inf  # less noise assumed, less shrinkage
    both = sure_ridge(beta, M, Om, W, P, n_free=1, noise_scales=(1.0, 0.2))[1]
    assert both == min(lams)
