"""Noise on a symmetric matrix: perturb the upper triangle, mirror it ("Analyze Gauss").

For a symmetric query such as the covariance XᵀX/n only the d(d+1)/2 upper-triangular
entries (diagonal included) carry information. Releasing them with any mechanism and
mirroring is post-processing, so the guarantee is that of the mechanism on the upper
triangle; the caller passes that triangle's sensitivity
(:func:`covariance_upper_sensitivity`).

Derivation: ``docs/derivations/baselines.md``.
"""

from __future__ import annotations


import numpy as np

from .._validation import check_finite_array, check_positive
from ..errors import InvalidParameterError, InvalidShapeError
from ..mechanisms.base import Mechanism
from ..rng import make_rng

__all__ = ["symmetric_release", "covariance_upper_sensitivity", "analyze_gauss", "upper_triangle",
           "mirror_upper"]


def upper_triangle(matrices) -> np.ndarray:
    """The upper triangles (diagonal included) of ``(..., d, d)`` matrices, as ``(..., m)`` vectors."""
    a = np.asarray(matrices, dtype=float)
    rows, cols = np.triu_indices(a.shape[-1])
    return a[..., rows, cols]


def mirror_upper(upper, d: int) -> np.ndarray:
    """Symmetric ``(..., d, d)`` matrices from their upper-triangle vectors ``(..., m)``."""
    u = np.asarray(upper, dtype=float)
    rows, cols = np.triu_indices(int(d))
    out = np.zeros(u.shape[:-1] + (int(d), int(d)))
    out[..., rows, cols] = u
    out[..., cols, rows] = u
    return out


def covariance_upper_sensitivity(d: int, bound: float, n: int, *, norm: int) -> float:
    r"""Sensitivity of the upper triangle of XᵀX/n under replace-one, entries in [−c, c].

    One record x (|x_i| ≤ c) replaced by x' changes the upper triangle of xxᵀ/n by at
    most 2c²/n per entry, so over the d(d+1)/2 entries:

    * ``norm=1``: 2c² · d(d+1)/2 / n (e.g. d = 4, c = 100, n = 10,176 gives 19.65);
    * ``norm=2``: the MVG paper's Frobenius bound 2·sqrt(Σ_{d²} c⁴)/n = 2dc²/n (an upper
      bound for the triangle too; e.g. 8·10⁴/10,176 = 7.8616).

    Both bounds also hold under the weaker record constraint ‖x‖² ≤ d·c² (a ball, e.g. for
    centred data whose entries may leave [−c, c]): Σ_{i≤j}|x_i x_j| ≤ ((Σ|x_i|)² + ‖x‖²)/2 ≤
    (d + 1)‖x‖²/2 ≤ c²·d(d+1)/2 and ‖xxᵀ‖_F = ‖x‖² ≤ d·c².

    References
    ----------
    .. [1] T. Chanyaswad et al. (2018), MVG mechanism, CCS, Experiment II.
    """
    if int(d) != d or d < 1:
        raise InvalidParameterError("d", f"must be a positive integer, got {d!r}")
    if int(n) != n or n < 1:
        raise InvalidParameterError("n", f"must be a positive integer, got {n!r}")
    c = check_positive(bound, "bound")
    if norm == 1:
        return 2.0 * c * c * d * (d + 1) / 2.0 / n
    if norm == 2:
        return 2.0 * d * c * c / n
    raise InvalidParameterError("norm", f"must be 1 or 2, got {norm!r}")


def symmetric_release(matrix, mechanism: Mechanism, rng=None) -> np.ndarray:
    """Release a symmetric matrix by perturbing its upper triangle and mirroring it.

    Parameters
    ----------
    matrix : array_like of shape (d, d)
        A symmetric query answer (e.g. a covariance).
    mechanism : Mechanism
        Calibrated to the sensitivity of the **upper triangle** (diagonal included).
    rng : None, int or Generator

    Returns
    -------
    ndarray of shape (d, d)
        Symmetric: noise N_ij = N_ji, one draw per upper-triangular entry.
    """
    a = check_finite_array(matrix, "matrix", ndim=2)
    if a.shape[0] != a.shape[1]:
        raise InvalidShapeError("matrix", f"must be square, got {a.shape}")
    if not np.allclose(a, a.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.abs(a).max()))):
        raise InvalidParameterError("matrix", "must be symmetric")
    d = a.shape[0]
    noise_upper = mechanism.sample_noise(d * (d + 1) // 2, rng=make_rng(rng))
    return a + mirror_upper(noise_upper, d)


def analyze_gauss(matrix, *, sigma: float, rng=None) -> np.ndarray:
    """Analyze Gauss (Dwork, Talwar, Thakurta, Zhang 2014): A + E, E symmetric, i.i.d. N(0, σ²)
    upper triangle. ``sigma`` must come from a calibration for the upper triangle's L2
    sensitivity (e.g. :func:`~matrixdp.baselines.dwork_roth_sigma`).

    Guarantee: that of the Gaussian mechanism on the upper triangle for the sensitivity and
    neighbouring relation ``sigma`` was calibrated to (replace-one in the experiments);
    exact only when ``sigma`` is the analytic σ for the triangle's exact sensitivity.

    References
    ----------
    .. [1] C. Dwork, K. Talwar, A. Thakurta, L. Zhang (2014). Analyze Gauss: optimal
       bounds for privacy-preserving principal component analysis. STOC.
    """
    s = check_positive(sigma, "sigma")
    a = check_finite_array(matrix, "matrix", ndim=2)
    if a.shape[0] != a.shape[1] or not np.allclose(a, a.T):
        raise InvalidShapeError("matrix", f"must be square and symmetric, got shape {a.shape}")
    gen = make_rng(rng)
    d = a.shape[0]
    upper = np.triu(gen.standard_normal((d, d)) * s)
    return a + upper + np.triu(upper, 1).T


