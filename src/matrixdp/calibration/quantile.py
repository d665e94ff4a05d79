"""Exponential-mechanism quantiles over a public grid: the exact selection probabilities.

Pure math (no randomness). The candidates are the intervals ``[g_i, g_{i+1}]`` of a public grid;
the utility of interval ``i`` for the quantile ``q`` of a column is
``u_i = -max((1 - q) A_i - q (B_i + C_i), q B_i - (1 - q) (A_i + C_i), 0)`` with
``A_i = #{x < g_i}``, ``B_i = #{x > g_{i+1}}``, ``C_i`` the records in the closed interval
(``-dist(q n, [#{x < g_i}, #{x <= g_{i+1}}])``, Smith 2011; Gillenwater et al. 2021); it needs no
record count. One record contributes ``1 - q`` or ``-q`` to each of the first two terms, so it
moves each term, and hence their maximum with 0, by at most 1 (replace-one) or ``max(q, 1 - q)``
(add/remove); the exponential mechanism selects interval ``j`` with probability
``exp(ε u_j / (2 Δ)) / Σ_k exp(ε u_k / (2 Δ))`` (McSherry & Talwar 2007; uniform base measure
over the finite public set of intervals, no width weighting). Derivation and the public grids:
``docs/bounds.md``.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_epsilon, check_probability
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
    """Δ of the interval utility of :func:`matrixdp.queries.quantile.quantile_scores`.

    ``u_i = -max((1-q) A_i - q (B_i + C_i), q B_i - (1-q) (A_i + C_i), 0)`` (``A_i`` records
    below the interval ``[g_i, g_{i+1}]``, ``B_i`` above it, ``C_i`` in it). A record adds
    ``1 - q`` (below) or ``-q`` (in or above) to the first term and ``q`` (above) or ``-(1 - q)``
    to the second, so each term, and the maximum of the two and 0, moves by at most:

    * ``1`` when one record is replaced (``(1 - q) + q``);
    * ``max(q, 1 - q)`` when one record is added or removed.

    Parameters
    ----------
    quantile : float in (0, 1)
    neighbouring : {"replace-one", "add-remove"}

    Returns
    -------
    float

    References
    ----------
    .. [1] A. Smith, "Privacy-preserving statistical estimation with optimal convergence
       rates", STOC 2011.
    .. [2] J. Gillenwater, M. Joseph, A. Kulesza, "Differentially private quantiles",
       ICML 2021.
    .. [3] docs/bounds.md.
    """
    q = check_probability(quantile, "quantile")
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
