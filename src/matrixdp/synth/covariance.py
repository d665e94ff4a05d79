"""The DP second-moment matrix of RON-Gauss: sensitivities (paper and corrected), Laplace noise,
symmetric/PSD repair and Gaussian sampling.

See ``docs/ron_gauss.md`` for the derivations and the worst-case witnesses.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_choice, check_epsilon, check_positive
from ..errors import InvalidParameterError
from ..mechanisms import LaplaceMechanism
from ..mechanisms.draw import public_randomness
from ..rng import make_rng
from .preprocessing import check_sensitivity_mode

__all__ = ["NOISE_LAYOUTS", "PSD_METHODS", "cov_sensitivity", "aug_cov_sensitivity", "cov_witness_pair",
           "noisy_second_moment", "make_symmetric_psd", "sample_gaussian"]

NOISE_LAYOUTS = ("full", "triu")
PSD_METHODS = ("clip", "abs", "shift", "numpy_legacy")


def cov_sensitivity(p: int, n: int, mode: str = "corrected", noise: str = "full") -> float:
    r"""Entry-wise L1 sensitivity of :math:`\Sigma = \tfrac1n \sum_i \tilde x_i \tilde x_i^\top`
    for rows of norm <= 1 in R^p (replace-one).

    ===============  =====================  ===========================
    mode             ``noise="full"``       ``noise="triu"``
    ===============  =====================  ===========================
    ``"corrected"``  :math:`\sqrt2\,p/n`    :math:`(p/\sqrt2 + 1)/n`
    ``"paper"``      :math:`2\sqrt p/n`     not offered
    ===============  =====================  ===========================

    The paper's Lemma 4 value :math:`2\sqrt p/n` uses
    :math:`\|A\|_1 \le \sqrt p\|A\|_F`, which is false for the entry-wise norm
    of a p×p matrix (the constant is p); it is exceeded for every p >= 3.
    The corrected value follows from :math:`\|aa^\top - bb^\top\|_F \le \sqrt 2`
    and is attained for even p.

    Parameters
    ----------
    p, n : int
    mode : {"corrected", "paper", "reference_code"}
        ``"reference_code"`` uses the paper's value, as the official code does.
    noise : {"full", "triu"}
        Noise on all p² entries, or on the upper triangle mirrored.

    Returns
    -------
    float

    References
    ----------
    .. [1] T. Chanyaswad, C. Liu, P. Mittal, "RON-Gauss", PoPETs 2019, Lemma 4.
    """
    check_sensitivity_mode(mode)
    _check_noise(noise)
    if mode == "corrected":
        return (math.sqrt(2.0) * p if noise == "full" else p / math.sqrt(2.0) + 1.0) / n
    if noise == "triu":
        raise InvalidParameterError("noise", "the paper's sensitivity has no upper-triangle variant")
    return 2.0 * math.sqrt(p) / n


def aug_cov_sensitivity(p: int, label_bound: float, n: int, mode: str = "corrected",
                        noise: str = "full") -> float:
    r"""Entry-wise L1 sensitivity of the augmented matrix :math:`\Sigma_a` of Eq. (3).

    With labels in [−a, a] and projected rows of norm <= 1:
    corrected :math:`(\sqrt2\,p + 4a\sqrt p + a^2)/n` (``"triu"``:
    :math:`((\sqrt2 p + 2)/2 + 2a\sqrt p + a^2)/n`); the paper's Lemma 5 has
    :math:`2\sqrt p` in place of :math:`\sqrt2\,p` and is exceeded for p >= 3.

    References
    ----------
    .. [1] T. Chanyaswad, C. Liu, P. Mittal, "RON-Gauss", PoPETs 2019, Lemma 5.
    """
    check_sensitivity_mode(mode)
    _check_noise(noise)
    a = check_positive(label_bound, "label_bound")
    rp = math.sqrt(p)
    if mode == "corrected":
        if noise == "full":
            return (math.sqrt(2.0) * p + 4 * a * rp + a * a) / n
        return ((math.sqrt(2.0) * p + 2.0) / 2.0 + 2 * a * rp + a * a) / n
    if noise == "triu":
        raise InvalidParameterError("noise", "the paper's sensitivity has no upper-triangle variant")
    return (2 * rp + 4 * a * rp + a * a) / n


def cov_witness_pair(p: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Two unit vectors a, b ∈ R^p with :math:`\|aa^\top - bb^\top\|_1 = \sqrt2\,p` (even p).

    a = (cos π/8, sin π/8) ⊗ 1_k/√k and b = (−sin π/8, cos π/8) ⊗ 1_k/√k with k = p/2:
    every entry of aa^T − bb^T is ±√2/p. Replacing a projected record a by b changes
    Σ by exactly the corrected sensitivity √2·p/n, which exceeds the paper's 2√p/n
    for p >= 4. For auditors and tests.

    Raises
    ------
    InvalidParameterError
        If p is not a positive even integer.
    """
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 2 or p % 2:
        raise InvalidParameterError("p", f"must be a positive even integer, got {p!r}")
    k = p // 2
    c, s = math.cos(math.pi / 8), math.sin(math.pi / 8)
    a = np.kron([c, s], np.ones(k)) / math.sqrt(k)
    b = np.kron([-s, c], np.ones(k)) / math.sqrt(k)
    return a, b


def noisy_second_moment(second_moment: np.ndarray, *, epsilon: float, sensitivity: float,
                        noise: str = "full", rng=None,
                        numerics: str = "float") -> tuple[np.ndarray, LaplaceMechanism]:
    """Add Laplace(sensitivity/epsilon) noise to a p×p second-moment matrix.

    ``noise="full"`` adds i.i.d. noise to all p² entries (the paper's mechanism;
    the result is not symmetric). ``noise="triu"`` adds it to the entries i <= j
    and mirrors them (symmetric; use the triu sensitivity).

    Returns
    -------
    raw : ndarray of shape (p, p)
        The noisy matrix before any symmetric/PSD repair.
    mechanism : LaplaceMechanism

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    check_epsilon(epsilon, "epsilon_cov")
    _check_noise(noise)
    mech = LaplaceMechanism(epsilon=epsilon, sensitivity=sensitivity, numerics=numerics)
    gen = make_rng(rng)
    raw = np.asarray(mech.release(second_moment, rng=gen).value, dtype=np.float64)
    if noise == "triu":
        upper = np.triu(raw)
        raw = upper + np.triu(upper, 1).T
    return raw, mech


def make_symmetric_psd(matrix: np.ndarray, method: str = "clip") -> np.ndarray:
    r"""Turn a noisy second-moment matrix into a symmetric PSD covariance (post-processing).

    Parameters
    ----------
    matrix : ndarray of shape (p, p)
    method : {"clip", "abs", "shift", "numpy_legacy"}
        - ``"clip"`` (default): symmetrise, then clip negative eigenvalues at 0
          (the Frobenius-nearest PSD matrix).
        - ``"abs"``: symmetrise, then take |eigenvalues|.
        - ``"shift"``: symmetrise, then subtract 1.1·λ_min·I when λ_min < 0
          (the authors' DPPCA trick).
        - ``"numpy_legacy"``: :math:`(\Sigma^\top\Sigma)^{1/2} = V S V^\top` from the
          SVD, the matrix numpy's legacy ``RandomState.multivariate_normal``
          effectively samples from (the reference code's behaviour).

    Returns
    -------
    ndarray of shape (p, p), symmetric with eigenvalues >= 0 (up to rounding).
    """
    A = np.asarray(matrix, dtype=np.float64)
    if method == "numpy_legacy":
        _, s, vh = np.linalg.svd(A)
        out = (vh.T * s) @ vh
        return (out + out.T) / 2.0
    check_choice(method, PSD_METHODS, "psd")
    sym = (A + A.T) / 2.0
    vals, vecs = np.linalg.eigh(sym)
    if vals.min() >= 0:
        return sym
    if method == "clip":
        vals = np.clip(vals, 0.0, None)
    elif method == "abs":
        vals = np.abs(vals)
    else:  # shift
        vals = vals - 1.1 * vals.min()
    out = (vecs * vals) @ vecs.T
    return (out + out.T) / 2.0


def sample_gaussian(mean: np.ndarray, covariance: np.ndarray, n_samples: int, rng=None) -> np.ndarray:
    """Draw ``n_samples`` rows from N(mean, covariance) with an eigen-decomposition.

    Works for singular PSD covariances (no Cholesky). ``covariance`` must be
    symmetric PSD (use :func:`make_symmetric_psd` first).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed makes the draws
    reproducible (replayable by anyone who knows it; these draws are post-processing of a DP model,
    so replaying them reveals no private value).
    """
    src = public_randomness(rng)  # post-processing of the released covariance
    vals, vecs = np.linalg.eigh(np.asarray(covariance, dtype=np.float64))
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    z = src.gaussian((int(n_samples), root.shape[0]))
    return np.asarray(mean, dtype=np.float64) + z @ root.T


def _check_noise(noise: str) -> None:
    check_choice(noise, NOISE_LAYOUTS, "noise")
