"""Exponential-mechanism quantiles over a public grid: the exact selection probabilities.

Pure math (no randomness). The utility of a grid point ``g`` for the quantile ``q`` of a column
is ``u(g) = -|(1 - q) L(g) - q R(g)|`` with ``L(g) = #{x < g} + #{x = g}/2`` and
``R(g) = #{x > g} + #{x = g}/2``; it is largest where ``L(g) = q n`` and needs no record count.
One record contributes ``a ∈ {0, 1/2, 1}`` to ``L`` and ``1 - a`` to ``R``, so it moves ``u`` by at
most 1 (replace-one: ``a`` changes by at most 1) or ``max(q, 1 - q)`` (add/remove: ``|a - q|``), so the exponential mechanism selects ``g_j`` with probability
``exp(ε u_j / (2 Δ)) / Σ_k exp(ε u_k / (2 Δ))`` (McSherry & Talwar 2007). Derivation and the
public grids: ``docs/bounds.md``.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_epsilon
from ..errors import InvalidParameterError

__all__ = ["exponential_log_probabilities", "quantile_utility_sensitivity", "log_scale_grid",
           "linear_grid"]


def exponential_log_probabilities(scores, epsilon, sensitivity=1.0) -> np.ndarray:
    """Log-probabilities of the exponential mechanism, row by row.

    Parameters
    ----------
    scores : array_like of shape (m,) or (r, m)
        Utilities of the m candidates (higher is better), one row per selection.
    epsilon : float
        The ε of ONE selection (each row).
    sensitivity : float
        The utility's sensitivity Δ (the most one record changes any utility).

    Returns
    -------
    ndarray of the shape of ``scores``
        ``ε u_j / (2Δ) - logsumexp_k(ε u_k / (2Δ))`` per row.

    References
    ----------
    .. [1] F. McSherry, K. Talwar, "Mechanism design via differential privacy", FOCS 2007.
    .. [2] docs/bounds.md.
    """
    eps = check_epsilon(epsilon, "epsilon")
    if not (isinstance(sensitivity, (int, float)) and math.isfinite(sensitivity)
            and sensitivity > 0):
        raise InvalidParameterError("sensitivity", f"must be a finite number > 0, got "
                                                   f"{sensitivity!r}")
    u = np.asarray(scores, dtype=np.float64)
    if u.ndim not in (1, 2) or u.shape[-1] < 1 or not np.all(np.isfinite(u)):
        raise InvalidParameterError("scores", "must be a finite (m,) or (r, m) array")
    z = (eps / (2.0 * float(sensitivity))) * u
    top = z.max(axis=-1, keepdims=True)
    return z - (top + np.log(np.exp(z - top).sum(axis=-1, keepdims=True)))


def quantile_utility_sensitivity(quantile: float, neighbouring: str = "replace-one") -> float:
    """Δ of ``u(g) = -|(1-q) L(g) - q R(g)|`` (ties counted half on each side): 1 (replace-one)
    or ``max(q, 1-q)`` (add/remove)."""
    q = float(quantile)
    if not 0.0 < q < 1.0:
        raise InvalidParameterError("quantile", f"must be in (0, 1), got {quantile!r}")
    if neighbouring == "replace-one":
        return 1.0
    if neighbouring == "add-remove":
        return max(q, 1.0 - q)
    raise InvalidParameterError("neighbouring", f"must be 'replace-one' or 'add-remove', got "
                                                f"{neighbouring!r}")


def linear_grid(lower: float, upper: float, n_points: int = 1001) -> np.ndarray:
    """``n_points`` equally spaced public candidates from ``lower`` to ``upper``."""
    lo, hi = float(lower), float(upper)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise InvalidParameterError("domain", f"needs finite lower < upper, got ({lower!r}, "
                                              f"{upper!r})")
    if isinstance(n_points, bool) or not isinstance(n_points, (int, np.integer)) or n_points < 2:
        raise InvalidParameterError("n_points", f"must be an integer >= 2, got {n_points!r}")
    return np.linspace(lo, hi, int(n_points))


def log_scale_grid(per_decade: int = 8, min_exponent: int = -4, max_exponent: int = 9,
                   lower: float | None = None, upper: float | None = None) -> np.ndarray:
    """The default public grid: 0 and ±10^(k/per_decade) for exponents in the given range.

    Covers magnitudes from ``10**min_exponent`` to ``10**max_exponent`` with a relative step of
    ``10**(1/per_decade) - 1`` (33% for 8 per decade); ``lower``/``upper`` keep only candidates
    inside a public domain (e.g. ``lower=0`` for a count).
    """
    for name, v in (("per_decade", per_decade), ("min_exponent", min_exponent),
                    ("max_exponent", max_exponent)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise InvalidParameterError(name, f"must be an integer, got {v!r}")
    if per_decade < 1 or min_exponent >= max_exponent:
        raise InvalidParameterError("per_decade", "needs per_decade >= 1 and min_exponent < "
                                                  "max_exponent")
    mags = 10.0 ** (np.arange(min_exponent * per_decade, max_exponent * per_decade + 1)
                    / per_decade)
    grid = np.concatenate([-mags[::-1], [0.0], mags])
    if lower is not None:
        grid = grid[grid >= float(lower)]
    if upper is not None:
        grid = grid[grid <= float(upper)]
    if grid.size < 2:
        raise InvalidParameterError("domain", "leaves fewer than 2 grid points")
    return grid
