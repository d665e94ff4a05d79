"""The utility of public grid points as a column's quantile (the exponential mechanism's input).

``u(g) = -|(1 - q) L(g) - q R(g)|`` with ``L(g) = #{x < g} + #{x = g}/2`` and ``R = n - L``,
for every grid point and every column, from one sort per column (vectorised over records and
grid points). Its sensitivity is
:func:`matrixdp.calibration.quantile.quantile_utility_sensitivity`; derivation in
``docs/bounds.md``.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidParameterError

__all__ = ["quantile_scores"]


def quantile_scores(X, grid, quantile: float) -> np.ndarray:
    """Utilities of the public ``grid`` points as the ``quantile`` of each column of ``X``.

    Parameters
    ----------
    X : array_like of shape (n, d) or (n,)
        Records (finite).
    grid : array_like of shape (m,)
        PUBLIC candidate points, increasing.
    quantile : float in (0, 1)

    Returns
    -------
    ndarray of shape (d, m)
    """
    q = float(quantile)
    if not 0.0 < q < 1.0:
        raise InvalidParameterError("quantile", f"must be in (0, 1), got {quantile!r}")
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
    # a record equal to g counts half below and half above, so a value many records share
    # (0 in a zero-inflated column, an integer on an integer grid) can be the quantile
    below = np.stack([0.5 * (np.searchsorted(S[:, j], g, side="left")
                             + np.searchsorted(S[:, j], g, side="right"))
                      for j in range(A.shape[1])])
    return -np.abs((1.0 - q) * below - q * (n - below))
