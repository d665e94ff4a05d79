"""Post-processing onto what is possible: nearest points of public feasible sets, free of budget.

A DP release may land outside the set of values the true statistic can take: a mean outside its
public range, a covariance with a negative eigenvalue, a correlation above one. Projecting the
release onto a closed convex set that is defined from **public** inputs only (the public bounds,
the dimension) is post-processing, so it costs no privacy budget. When the true value lies in the
set, the Euclidean (Frobenius) projection never increases the error in that norm (the projection
onto a closed convex set is non-expansive; see docs/postprocessing.md), which is why the
estimators and the CLI project by default.

Bottom layer: pure numpy, no randomness, no privacy logic.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_finite_array
from .errors import InvalidParameterError, InvalidShapeError

__all__ = [
    "FEASIBLE_REFERENCES",
    "clamp",
    "covariance_entry_bounds",
    "nearest_correlation",
    "orthonormalise",
    "project_covariance",
    "project_psd",
    "project_psd_box",
    "second_moment_entry_bounds",
]

FEASIBLE_REFERENCES = """
    References
    ----------
    .. [1] J. P. Boyle and R. L. Dykstra, "A method for finding projections onto the intersection
       of convex sets in Hilbert spaces", Lecture Notes in Statistics 37, 1986.
    .. [2] N. J. Higham, "Computing the nearest correlation matrix -- a problem from finance",
       IMA Journal of Numerical Analysis 22(3), 2002.
    .. [3] N. J. Higham, "Computing a nearest symmetric positive semidefinite matrix", Linear
       Algebra and its Applications 103, 1988.
"""

#: Default stopping rule of the alternating projections: relative change in Frobenius norm.
DEFAULT_TOL = 1e-10
DEFAULT_MAX_ITER = 500


def _square(matrix, argument: str) -> np.ndarray:
    arr = check_finite_array(matrix, argument)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise InvalidShapeError(argument, f"must be a square matrix, got shape {arr.shape}")
    return (arr + arr.T) / 2.0


def clamp(values, lower, upper) -> np.ndarray:
    """Clip ``values`` to the public box ``[lower, upper]`` (broadcast entrywise).

    The Euclidean projection onto a box; when the true value lies in the box, no entry's error
    grows. ``lower`` and ``upper`` must be public (never computed from the private data).
    """
    arr = np.asarray(values, dtype=float)
    lo = np.asarray(lower, dtype=float)
    hi = np.asarray(upper, dtype=float)
    if np.any(lo > hi):
        raise InvalidParameterError("lower", "every lower bound must be <= its upper bound")
    return np.clip(arr, lo, hi)


def project_psd(matrix, *, floor: float = 0.0) -> np.ndarray:
    """The Frobenius-nearest symmetric matrix whose eigenvalues are all ``>= floor`` [3]_.

    Symmetrises, then clips the eigenvalues at ``floor`` (0 gives the PSD cone).
    """
    sym = _square(matrix, "matrix")
    lam, vec = np.linalg.eigh(sym)
    lam = np.maximum(lam, float(floor))
    out = (vec * lam) @ vec.T
    return (out + out.T) / 2.0


def project_psd_box(matrix, lower=None, upper=None, *, tol: float = DEFAULT_TOL,
                    max_iter: int = DEFAULT_MAX_ITER) -> np.ndarray:
    """The Frobenius-nearest PSD matrix whose entries lie in the public box ``[lower, upper]``.

    Dykstra's alternating projections [1]_ between the PSD cone and the entrywise box; both are
    closed and convex, so the iterates converge to the projection onto their intersection (when
    it is not empty). The result is exactly PSD (the last step is the PSD projection); its entries
    meet the box to within the tolerance reached (``tol`` relative change per sweep).

    Parameters
    ----------
    matrix : array_like, shape (d, d)
        The noisy symmetric release (symmetrised first).
    lower, upper : array_like or float, optional
        Public entrywise bounds, broadcast to ``(d, d)``; ``None`` means unbounded.
    tol : float
        Stop when a sweep changes the iterate by less than ``tol`` relative to its norm.
    max_iter : int
        At most this many sweeps.
    """
    x = _square(matrix, "matrix")
    d = x.shape[0]
    lo = np.full((d, d), -np.inf) if lower is None else np.broadcast_to(np.asarray(lower, float), (d, d))
    hi = np.full((d, d), np.inf) if upper is None else np.broadcast_to(np.asarray(upper, float), (d, d))
    if np.any(lo > hi):
        raise InvalidParameterError("lower", "every lower bound must be <= its upper bound")
    lo = (lo + lo.T) / 2.0
    hi = (hi + hi.T) / 2.0
    p = np.zeros_like(x)
    q = np.zeros_like(x)
    for _ in range(int(max_iter)):
        y = project_psd(x + p)
        p = x + p - y
        x_new = np.clip(y + q, lo, hi)
        q = y + q - x_new
        change = np.linalg.norm(x_new - x)
        x = x_new
        if change <= tol * max(1.0, np.linalg.norm(x)):
            break
    return project_psd(x)


def covariance_entry_bounds(variance_max) -> tuple[np.ndarray, np.ndarray]:
    """Entrywise bounds of a covariance whose variances are at most the public ``variance_max``.

    Diagonal in ``[0, v_i]``; off-diagonal ``|C_ij| <= sqrt(v_i v_j)`` (Cauchy–Schwarz). For a
    feature with public range ``[lo, hi]``, ``v = (hi - lo)² / 4`` (Popoviciu's inequality).
    """
    v = np.asarray(variance_max, dtype=float).ravel()
    if np.any(v < 0) or not np.all(np.isfinite(v)):
        raise InvalidParameterError("variance_max", "must be finite and >= 0")
    cs = np.sqrt(np.outer(v, v))
    lower = -cs.copy()
    np.fill_diagonal(lower, 0.0)
    return lower, cs


def second_moment_entry_bounds(lower, upper) -> tuple[np.ndarray, np.ndarray]:
    """Entrywise bounds of the mean of ``x xᵀ`` over records in the public box ``[lower, upper]``.

    Entry ``(i, j)`` is the mean of ``x_i x_j``, which lies between the smallest and largest of
    the four corner products ``{lo_i, hi_i} × {lo_j, hi_j}``; on the diagonal between ``0`` (or
    ``min(lo², hi²)`` when the range excludes 0) and ``max(lo², hi²)``. Multiply by a public ``n``
    for the bounds of the Gram matrix ``XᵀX``.
    """
    lo = np.asarray(lower, dtype=float).ravel()
    hi = np.asarray(upper, dtype=float).ravel()
    if lo.shape != hi.shape or np.any(lo > hi):
        raise InvalidParameterError("lower", "must have the length of upper and be <= it entrywise")
    corners = np.stack([np.outer(lo, lo), np.outer(lo, hi), np.outer(hi, lo), np.outer(hi, hi)])
    mlo, mhi = corners.min(axis=0), corners.max(axis=0)
    crosses_zero = (lo <= 0) & (hi >= 0)
    diag_lo = np.where(crosses_zero, 0.0, np.minimum(lo ** 2, hi ** 2))
    np.fill_diagonal(mlo, diag_lo)
    np.fill_diagonal(mhi, np.maximum(lo ** 2, hi ** 2))
    return mlo, mhi


def project_covariance(cov, *, variance_max=None, tol: float = DEFAULT_TOL,
                       max_iter: int = DEFAULT_MAX_ITER) -> np.ndarray:
    """The Frobenius-nearest covariance: PSD, variances in ``[0, variance_max]``, Cauchy–Schwarz.

    With ``variance_max=None`` only the PSD cone is enforced (which already implies
    ``|C_ij| <= sqrt(C_ii C_jj)``). ``variance_max`` must be public, e.g. ``(hi - lo)² / 4`` from
    the public bounds.
    """
    c = _square(cov, "cov")
    if variance_max is None:
        return project_psd(c)
    v = np.broadcast_to(np.asarray(variance_max, dtype=float), (c.shape[0],))
    lower, upper = covariance_entry_bounds(v)
    return project_psd_box(c, lower, upper, tol=tol, max_iter=max_iter)


def nearest_correlation(matrix, *, tol: float = DEFAULT_TOL, max_iter: int = DEFAULT_MAX_ITER) -> np.ndarray:
    """The Frobenius-nearest correlation matrix (PSD, unit diagonal) [2]_.

    Higham's alternating projections with Dykstra's correction between the PSD cone and the
    affine set of unit-diagonal matrices; the result is exactly PSD with its diagonal set to 1
    and rescaled (a congruence, so it stays PSD) to remove the last rounding.
    """
    x = _square(matrix, "matrix")
    d = x.shape[0]
    lower = np.full((d, d), -1.0)
    upper = np.full((d, d), 1.0)
    np.fill_diagonal(lower, 1.0)
    out = project_psd_box(x, lower, upper, tol=tol, max_iter=max_iter)
    scale = np.sqrt(np.clip(np.diag(out), np.finfo(float).tiny, None))
    out = out / np.outer(scale, scale)
    np.fill_diagonal(out, 1.0)
    return out


def orthonormalise(components) -> np.ndarray:
    """The Frobenius-nearest matrix with orthonormal columns (the polar factor ``U Vᵀ`` of the SVD).

    For PCA components stored as rows (scikit-learn's ``components_``), pass the transpose.
    """
    arr = check_finite_array(components, "components")
    if arr.ndim != 2 or arr.shape[0] < arr.shape[1]:
        raise InvalidShapeError(
            "components", f"must be a (d, k) matrix with d >= k (columns are orthonormalised), got {arr.shape}")
    u, _, vt = np.linalg.svd(arr, full_matrices=False)
    return u @ vt


for _func in (project_psd, project_psd_box, project_covariance, nearest_correlation):
    _func.__doc__ = (_func.__doc__ or "") + FEASIBLE_REFERENCES
del _func
