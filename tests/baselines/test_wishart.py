"""Wishart mechanism: the sampler's moments and scale, and the refutation of its pure ε-DP claim."""

from __future__ import annotations

import math

import numpy as np
import pytest

from matrixdp import baselines as B
from matrixdp.errors import InvalidParameterError, UnsafeMechanismError


def test_sample_wishart_mean_and_scale():
    d, dof = 3, 4
    c = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 0.5]])
    w = B.sample_wishart(d, dof, c, size=40_000, rng=0)
    assert w.shape == (40_000, d, d)
    np.testing.assert_allclose(w, np.swapaxes(w, 1, 2))
    assert np.all(np.linalg.eigvalsh(w)[:, 0] > 0)
    mean = w.mean(axis=0)
    np.testing.assert_allclose(mean, dof * c, atol=0.05)
    # Var(W_01) = m (C_01² + C_00 C_11)
    assert w[:, 0, 1].var() == pytest.approx(dof * (0.25 + 2.0), rel=0.05)


def test_sample_wishart_scale_test_rejects_wrong_scales():
    d, scale = 5, 0.3
    w = B.sample_wishart(d, d + 1, scale, size=20_000, rng=1)
    estimate = np.trace(w, axis1=1, axis2=2).mean() / (d * (d + 1))  # E tr W = m d c
    assert estimate == pytest.approx(scale, rel=0.02)
    for wrong in (0.7, 1.3):
        assert abs(estimate - wrong * scale) > 0.1 * scale
    sd_off = w[:, 0, 1].std()  # √m c
    assert sd_off == pytest.approx(math.sqrt(d + 1) * scale, rel=0.03)
    with pytest.raises(InvalidParameterError, match="scale"):
        B.sample_wishart(2, 3, np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(InvalidParameterError, match="dof"):
        B.sample_wishart(2, 0, 1.0)


def test_wishart_scale_formula():
    assert B.wishart_scale(1000, 0.5) == pytest.approx(3 / 1000)


@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_support_violation_refutes_pure_dp(eps):
    """Neighbours A (record 0) and A' = A + uuᵀ/n: the event {Y − A' not PD} has probability
    1 − e^{−ε/3} under A and exactly 0 under A' (where Y − A' = W ≻ 0)."""
    d, n = 6, 50
    w = B.sample_wishart(d, d + 1, B.wishart_scale(n, eps), size=40_000, rng=2)
    u = np.zeros(d)
    u[2] = 1.0
    fails = np.linalg.eigvalsh(w - np.outer(u, u) / n)[:, 0] < 0
    target = B.wishart_support_failure(eps)
    assert target == pytest.approx(1 - math.exp(-eps / 3))
    se = math.sqrt(target * (1 - target) / fails.size)
    assert abs(fails.mean() - target) < 4 * se
    assert np.all(np.linalg.eigvalsh(w)[:, 0] > 0)  # under A' the event never happens


def test_wishart_pca_is_an_explicit_opt_in():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, size=(500, 4)) / 2
    with pytest.raises(UnsafeMechanismError, match="support"):
        B.wishart_pca(x, epsilon=1.0, n_components=2, row_norm_bound=1.0)
    out = B.wishart_pca(x, epsilon=1.0, n_components=2, row_norm_bound=1.0, allow_unsafe=True, rng=4)
    assert out.privacy.refuted and out.privacy.delta == 0.0
    assert any("holds" in note for note in out.privacy.notes)
    assert out.components.shape == (4, 2)
    # Y − A = W is positive definite: the released matrix dominates the true one.
    a = x.T @ x / 500
    assert np.linalg.eigvalsh(out.covariance - a)[0] > 0
