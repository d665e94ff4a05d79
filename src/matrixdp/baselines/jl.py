"""The Johnson–Lindenstrauss transform as a private covariance sketch (Blocki, Blum, Datta, Sheffet 2012).

Records are rows x with ‖x‖₂ ≤ R (public). Scaled by 1/(2R), two neighbouring datasets
(replace-one) differ in one row by a vector of norm ≤ 1, the relation of [1]. The
singular values of the scaled A are lifted, A'ᵀA' = AᵀA + w²I with
w = 16·sqrt(r ln(2/δ))/ε · ln(16r/δ), and r Gaussian projections of A' are released:
M·A' with M ∈ R^{r×(n+d)} i.i.d. N(0, 1). Each row of M·A' is N(0, AᵀA + w²I), so it is
drawn directly from that covariance (same distribution, O(d³) instead of O(rnd)).
The estimate of XᵀX/n is ((M A')ᵀ(M A')/r − w²I)·(2R)²/n.

Derivation: ``docs/derivations/baselines.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import check_delta, check_epsilon, check_finite_array, check_positive, check_row_norms
from ..errors import InvalidParameterError
from ..rng import make_rng

__all__ = ["JLCovariance", "blocki_jl_covariance", "blocki_w"]


def blocki_w(r: int, epsilon: float, delta: float) -> float:
    """The singular-value floor w = 16·sqrt(r ln(2/δ))/ε · ln(16r/δ) of Blocki et al. (2012)."""
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    if int(r) != r or r < 1:
        raise InvalidParameterError("r", f"must be a positive integer, got {r!r}")
    return 16.0 * math.sqrt(r * math.log(2.0 / d)) / eps * math.log(16.0 * r / d)


@dataclass(frozen=True)
class JLCovariance:
    """Result of :func:`blocki_jl_covariance`.

    Attributes
    ----------
    sketch : ndarray of shape (r, d)
        The released projections M·A' (in the scaled units).
    covariance : ndarray of shape (d, d)
        The debiased estimate of XᵀX/n in the original units (post-processing).
    w : float
        The singular-value floor.
    scale : float
        The row scaling 2R applied before sketching.
    """

    sketch: np.ndarray
    covariance: np.ndarray
    w: float
    scale: float


def blocki_jl_covariance(X, *, epsilon: float, delta: float, r: int, row_norm_bound: float,
                         rng=None) -> JLCovariance:
    """Release an (ε, δ)-DP JL sketch of X and the covariance estimate it implies.

    Guarantee: (ε, δ)-DP under replace-one neighbours for rows in the public R-ball, by the
    theorem of [1] (a sufficient bound; no exact profile is known, so the auditor checks it
    black-box only). No ``PrivacyGuarantee`` object is attached to the result.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Records in rows, ‖x‖₂ ≤ ``row_norm_bound`` (checked).
    epsilon, delta : float
        Privacy parameters (the theorem of [1]).
    r : int
        Number of projections (the method's free variable).
    row_norm_bound : float
        Public bound R on row norms.
    rng : None, int or Generator

    Returns
    -------
    JLCovariance

    References
    ----------
    .. [1] J. Blocki, A. Blum, A. Datta, O. Sheffet (2012). The Johnson–Lindenstrauss
       transform itself preserves differential privacy. FOCS.
    """
    x = check_finite_array(X, "X", ndim=2)
    big_r = check_positive(row_norm_bound, "row_norm_bound")
    check_row_norms(x, big_r, "X")
    w = blocki_w(r, epsilon, delta)
    n, d = x.shape
    scale = 2.0 * big_r
    a = x / scale
    lifted = a.T @ a + (w * w) * np.eye(d)
    chol = np.linalg.cholesky(lifted)
    sketch = make_rng(rng).standard_normal((int(r), d)) @ chol.T
    estimate = (sketch.T @ sketch / r - (w * w) * np.eye(d)) * (scale * scale) / n
    return JLCovariance(sketch=sketch, covariance=estimate, w=w, scale=scale)
