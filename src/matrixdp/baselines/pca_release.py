"""What the private-PCA baselines return, and the helpers they share.

The baselines (:func:`~matrixdp.baselines.mod_sulq`, :func:`~matrixdp.baselines.wishart_pca`,
:func:`~matrixdp.baselines.ppca_components`) work on the second-moment matrix
A = XᵀX/(n R²) of records scaled into the unit ball by a public norm bound R. This module
holds the result type and the two steps they have in common: checking the bound and taking
the top eigenvectors of a (noisy) symmetric matrix.

Derivation: ``docs/derivations/baselines.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import check_finite_array, check_positive, check_row_norms
from ..errors import InvalidParameterError
from ..mechanisms.base import PrivacyGuarantee

__all__ = ["PCARelease", "unit_ball_second_moment", "top_eigenvectors"]


@dataclass(frozen=True)
class PCARelease:
    """A private PCA output.

    Attributes
    ----------
    components : ndarray of shape (n_features, n_components)
        Orthonormal columns, the released principal directions (sign arbitrary).
    covariance : ndarray of shape (n_features, n_features) or None
        The noisy second-moment matrix in the data's units (× R²), for the mechanisms that
        release one (MOD-SULQ, Wishart); None for PPCA, which releases directions only.
    privacy : PrivacyGuarantee
    noise_scale : float
        Per-entry noise standard deviation on the unit-ball matrix A (MOD-SULQ: β;
        Wishart: the standard deviation of an off-diagonal entry of W; PPCA: nan).
    metadata : dict
    """

    components: np.ndarray
    covariance: np.ndarray | None
    privacy: PrivacyGuarantee
    noise_scale: float
    metadata: dict = field(default_factory=dict)


def unit_ball_second_moment(X, row_norm_bound: float) -> tuple[np.ndarray, int]:
    """Return (A, n) with A = XᵀX/(n R²), after checking ‖x_i‖₂ ≤ R for every row.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    row_norm_bound : float
        Public bound R on the row norms (never derived from X).

    Raises
    ------
    OutOfBoundsError
        If a row has norm above R (no silent clipping).
    """
    x = check_finite_array(X, "X", ndim=2)
    r = check_positive(row_norm_bound, "row_norm_bound")
    check_row_norms(x, r, "X")
    n = x.shape[0]
    return (x.T @ x) / (n * r * r), n


def top_eigenvectors(matrix: np.ndarray, n_components: int) -> np.ndarray:
    """Eigenvectors of the symmetric part of ``matrix`` for its ``n_components`` largest eigenvalues.

    Returns
    -------
    ndarray of shape (d, n_components), columns in decreasing eigenvalue order.
    """
    d = matrix.shape[0]
    if int(n_components) != n_components or not 1 <= n_components <= d:
        raise InvalidParameterError("n_components", f"must be an integer in [1, {d}], got {n_components!r}")
    _, vec = np.linalg.eigh(0.5 * (matrix + matrix.T))
    return vec[:, ::-1][:, : int(n_components)]
