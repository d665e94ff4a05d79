"""PPCA (Chaudhuri, Sarwate, Sinha 2012): the exponential mechanism for the top principal direction.

The top eigenvector v of A = Σ x xᵀ (rows scaled so ‖x‖ ≤ 1) is released by sampling a unit
vector with density ∝ exp((ε/2)·vᵀAv) on the sphere: the score vᵀAv = Σ (vᵀx)² changes by at
most 1 when one record is replaced (each term lies in [0, 1]), so this is the exponential
mechanism with score sensitivity 1 and pure ε-DP. The density is a Bingham distribution,
sampled exactly by rejection from an angular central Gaussian envelope (Kent, Ganeiber,
Mardia 2018) in vectorised batches.

Derivation: ``docs/baselines.md``.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from .._validation import check_epsilon, check_finite_array, check_positive, check_row_norms
from ..errors import InvalidParameterError
from ..mechanisms.base import PrivacyGuarantee
from ..mechanisms.draw import charged_noise, public_randomness
from .pca_release import ProjectorMechanism

__all__ = ["sample_bingham", "ppca_top_component", "PPCAMechanism"]


def sample_bingham(concentration, size: int, rng=None, *, max_rounds: int = 1000) -> np.ndarray:
    r"""Draw unit vectors with density ∝ exp(vᵀ M v) on the sphere S^{d−1}.

    Parameters
    ----------
    concentration : array_like of shape (d, d)
        Symmetric M (any eigenvalues; only differences matter).
    size : int
        Number of draws.
    rng : None, int or Generator
        ``None`` (default) draws from the per-process secure stream; a seed or a Generator makes the
        draws reproducible, so a seeded release is replayable by anyone who knows the seed (they
        regenerate the noise and subtract it).
    max_rounds : int
        Safety cap on rejection rounds (the acceptance rate is bounded below, so this
        is never reached in practice).

    Returns
    -------
    ndarray of shape (size, d)

    Notes
    -----
    With B = λ_max(M)·I − M (PSD, smallest eigenvalue 0) the target is exp(−vᵀBv). The
    envelope is the angular central Gaussian with Ω = I + 2B/b, where b solves
    Σ_i 1/(b + 2λ_i(B)) = 1; draws y ~ N(0, Ω⁻¹), v = y/‖y‖ are accepted with
    probability exp(−vᵀBv)(vᵀΩv)^{d/2} / M*, M* = exp(−(d − b)/2)(d/b)^{d/2}.

    References
    ----------
    .. [1] J. T. Kent, A. M. Ganeiber, K. V. Mardia (2018). A new unified approach for
       the simulation of a wide class of directional distributions. J. Comput. Graph.
       Stat. 27(2), 291–301.
    """
    m = check_finite_array(concentration, "concentration", ndim=2)
    if m.shape[0] != m.shape[1] or not np.allclose(m, m.T):
        raise InvalidParameterError("concentration", "must be a symmetric square matrix")
    if int(size) != size or size < 1:
        raise InvalidParameterError("size", f"must be a positive integer, got {size!r}")
    src = public_randomness(rng)  # a charged NoiseSource (ppca_top_component) passes through
    d = m.shape[0]
    eigval, eigvec = np.linalg.eigh(m)
    lam = eigval.max() - eigval  # eigenvalues of B, >= 0, smallest 0
    if d == 1:
        return src.pick([-1.0, 1.0], (size, 1))
    b = brentq(lambda t: np.sum(1.0 / (t + 2.0 * lam)) - 1.0, 1e-12, float(d))
    omega = 1.0 + 2.0 * lam / b  # Ω in B's eigenbasis (diagonal)
    log_m_star = -(d - b) / 2.0 + (d / 2.0) * np.log(d / b)
    out = np.empty((0, d))
    batch = max(16, 2 * size)
    for _ in range(max_rounds):
        y = src.gaussian((batch, d)) / np.sqrt(omega)
        v = y / np.linalg.norm(y, axis=1, keepdims=True)
        quad_b = (v * v) @ lam
        quad_omega = (v * v) @ omega
        log_ratio = -quad_b + (d / 2.0) * np.log(quad_omega) - log_m_star
        accept = np.log(src.uniform_on(batch)) < log_ratio
        out = np.vstack([out, v[accept]])
        if out.shape[0] >= size:
            return out[:size] @ eigvec.T
    raise RuntimeError("Bingham rejection sampler did not finish")  # pragma: no cover


def ppca_top_component(X, *, epsilon: float, row_norm_bound: float, rng=None) -> np.ndarray:
    r"""Release the top principal direction of X with PPCA (pure ε-DP, replace-one).

    Guarantee: pure ε-DP under replace-one neighbours for rows in the public R-ball (the
    exponential mechanism's bound: sufficient, not tight for a given dataset pair).

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Records in rows with ‖x‖₂ ≤ ``row_norm_bound`` (checked; a public bound).
    epsilon : float
        Privacy parameter (δ = 0).
    row_norm_bound : float
        Public bound R on the row norms; rows are scaled by 1/R.

    Returns
    -------
    ndarray of shape (n_features,)
        A unit vector (sign arbitrary) drawn with density ∝ exp((ε/2)·vᵀ(XᵀX/R²)v).

    References
    ----------
    .. [1] K. Chaudhuri, A. D. Sarwate, K. Sinha (2012). Near-optimal differentially
       private principal components. NeurIPS (the PPCA algorithm; its A = XᵀX/n with
       exponent nε/2 is the same density).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    x = check_finite_array(X, "X", ndim=2)
    eps = check_epsilon(epsilon)
    r = check_positive(row_norm_bound, "row_norm_bound")
    check_row_norms(x, r, "X")
    a = (x.T @ x) / (r * r)
    with charged_noise(_ppca_privacy(eps), rng, label="ppca") as src:
        return sample_bingham(0.5 * eps * a, 1, rng=src)[0]


def _ppca_privacy(eps: float) -> PrivacyGuarantee:
    return PrivacyGuarantee(epsilon=eps, delta=0.0,
                            calibration="exponential mechanism (exact Bingham sampler)",
                            exact=True, mechanism="ppca")


class PPCAMechanism(ProjectorMechanism):
    r"""PPCA's top component as a mechanism on the score S = XᵀX/R², released as vvᵀ.

    ``v`` is drawn with density ∝ exp((ε/2) vᵀSv) by the exact sampler
    :func:`sample_bingham`, the law :func:`ppca_top_component` samples (pure ε-DP,
    replace-one, the exponential mechanism with a score of range 2).

    Parameters
    ----------
    epsilon : float
    privacy : PrivacyGuarantee, optional
        Default: pure ε, exact (the exponential mechanism's guarantee).
    witness : (ndarray, ndarray), optional
        Public neighbouring scores for :meth:`witnesses`.
    name : str

    References
    ----------
    .. [1] K. Chaudhuri, A. D. Sarwate, K. Sinha (2013). A near-optimal algorithm for
       differentially-private principal components. JMLR 14.
    """

    name = "ppca"

    def __init__(self, *, epsilon: float, privacy: PrivacyGuarantee | None = None, witness=None,
                 name: str | None = None):
        if privacy is None:
            privacy = _ppca_privacy(check_epsilon(epsilon))
        super().__init__(epsilon=epsilon, privacy=privacy, witness=witness, name=name)

    def _draw(self, score, n, rng):
        return sample_bingham(0.5 * self.epsilon * score, n, rng=rng)
