"""The utility of public grid INTERVALS as holding a column's quantile (the exponential
mechanism's input).

For the intervals ``I_i = [g_i, g_{i+1}]`` of a public grid ``g_0 < … < g_{m-1}``, with
``A_i = #{x < g_i}``, ``B_i = #{x > g_{i+1}}`` and ``C_i = #{g_i <= x <= g_{i+1}}``,

    u_i = -max((1 - q) A_i - q (B_i + C_i),  q B_i - (1 - q) (A_i + C_i),  0),

which is ``-dist(q n, [L_i, U_i])`` with ``L_i = #{x < g_i}``, ``U_i = #{x <= g_{i+1}}`` (the
interval form of the exponential-mechanism quantile: Smith 2011; Gillenwater, Joseph & Kulesza
2021), written without the record count. It is 0 for every interval that can hold the quantile,
including one holding a point mass strictly between two grid points (the point form scored every
grid point alike there). Computed from one sort per column (vectorised over records and
intervals). Its sensitivity is
:func:`matrixdp.calibration.quantile.quantile_utility_sensitivity`; derivation in
``docs/bounds.md``.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_probability
from ..errors import InvalidParameterError

__all__ = ["quantile_scores"]


def quantile_scores(X, grid, quantile: float) -> np.ndarray:
    """Utilities of the public grid's intervals ``[g_i, g_{i+1}]`` as holding the ``quantile``
    of each column of ``X``.

    Parameters
    ----------
    X : array_like of shape (n, d) or (n,)
        Records (finite).
    grid : array_like of shape (m,)
        PUBLIC grid points, strictly increasing; the candidates are its ``m - 1`` intervals.
    quantile : float in (0, 1)

    Returns
    -------
    ndarray of shape (d, m - 1)
        ``u[j, i] = -dist(q n, [#{x_j < g_i}, #{x_j <= g_{i+1}}])`` (0 where the interval can
        hold the quantile), computed in the record-count-free form above.

    References
    ----------
    .. [1] A. Smith, "Privacy-preserving statistical estimation with optimal convergence
       rates", STOC 2011.
    .. [2] J. Gillenwater, M. Joseph, A. Kulesza, "Differentially private quantiles",
       ICML 2021.
    .. [3] docs/bounds.md (utility, sensitivity, privacy proof).
    """
    q = check_probability(quantile, "quantile")
    g = np.asarray(grid, dtype=np.float64)
    if g.ndim != 1 or g.size < 2 or np.any(np.diff(g) <= 0):
        raise InvalidParameterError("grid", "must be a strictly increasing 1-D array of >= 2 points")
    A = np.asarray(X, dtype=np.float64)
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2 or not np.all(np.isfinite(A)):
        raise InvalidParameterError("X", "must be a finite (n, d) array")
    n = A.shape[0]
    S = np.sort(A, axis=0)
    # one searchsorted per column over all grid points (d is the number of columns)
    below = np.stack([np.searchsorted(S[:, j], g[:-1], side="left")
                      for j in range(A.shape[1])]).astype(np.float64)       # A_i = #{x < g_i}
    above = np.stack([n - np.searchsorted(S[:, j], g[1:], side="right")
                      for j in range(A.shape[1])]).astype(np.float64)       # B_i = #{x > g_i+1}
    inside = n - below - above                                               # C_i
    low_gap = (1.0 - q) * below - q * (above + inside)    # = L_i - q n  (> 0: interval too high)
    high_gap = q * above - (1.0 - q) * (below + inside)   # = q n - U_i  (> 0: interval too low)
    return -np.maximum(np.maximum(low_gap, high_gap), 0.0)
