"""PPCA for k components: Hoff's Gibbs sampler against an exact reference, and the wrapper."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp import baselines as B
from matrixdp.errors import InvalidParameterError, OutOfBoundsError


def _bingham_moments(m: np.ndarray, n: int = 400_000) -> np.ndarray:
    rng = np.random.default_rng(7)
    u = rng.standard_normal((n, m.shape[0]))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    w = np.exp(np.einsum("ij,jk,ik->i", u, m, u))
    return (u ** 2 * w[:, None]).sum(axis=0) / w.sum()


def test_gibbs_chain_matches_the_matrix_bingham_law():
    """On V_{3,2}, etr(VᵀMV) = tr M − wᵀMw with w = v₁ × v₂, so the normal w is Bingham(−M)."""
    m = np.diag([6.0, 1.5, 0.0])
    rng = np.random.default_rng(0)
    v = B.sample_matrix_bingham_gibbs(m, 2, sweeps=20, rng=rng)  # burn-in
    normals = []
    for _ in range(4000):
        v = B.sample_matrix_bingham_gibbs(m, 2, sweeps=1, rng=rng, init=v)
        normals.append(np.cross(v[:, 0], v[:, 1]))
    normals = np.array(normals)
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0)
    moments = np.mean(normals ** 2, axis=0)
    np.testing.assert_allclose(moments, _bingham_moments(-m), atol=0.03)
    for wrong in (0.7, 1.3):
        assert np.abs(moments - _bingham_moments(-wrong * m)).max() > 0.04


def test_gibbs_validation():
    with pytest.raises(InvalidParameterError, match="n_components"):
        B.sample_matrix_bingham_gibbs(np.eye(3), 3, sweeps=1)
    with pytest.raises(InvalidParameterError, match="init"):
        B.sample_matrix_bingham_gibbs(np.eye(3), 2, sweeps=1, init=np.ones((3, 2)))
    with pytest.raises(InvalidParameterError, match="sweeps"):
        B.sample_matrix_bingham_gibbs(np.eye(3), 2, sweeps=0)


def test_ppca_components_finds_the_subspace_and_flags_the_approximation():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5000, 6)) * np.array([1.0, 0.8, 0.1, 0.1, 0.05, 0.05])
    bound = float(np.ceil(np.linalg.norm(x, axis=1).max()))
    out = B.ppca_components(x, epsilon=20.0, n_components=2, row_norm_bound=bound, sweeps=10, rng=2)
    v = out.components
    np.testing.assert_allclose(v.T @ v, np.eye(2), atol=1e-10)
    captured = np.linalg.norm(v[:2, :]) ** 2  # mass of the subspace on span(e₁, e₂), max 2
    assert captured > 1.9
    assert out.privacy.exact is False and out.privacy.delta == 0.0 and out.covariance is None
    assert any("stationary" in note for note in out.privacy.notes)
    # Tiny ε: the subspace is close to uniform (captured mass ≈ 2·2/6 on average).
    small = [np.linalg.norm(B.ppca_components(x, epsilon=1e-6, n_components=2, row_norm_bound=bound,
                                              sweeps=2, rng=s).components[:2, :]) ** 2 for s in range(200)]
    assert np.mean(small) == pytest.approx(2 * 2 / 6, abs=0.1)
    with pytest.raises(OutOfBoundsError):
        B.ppca_components(x, epsilon=1.0, n_components=2, row_norm_bound=bound / 3)
