"""Exact (Clopper–Pearson) confidence bounds for a binomial proportion (pure)."""

from __future__ import annotations

import numpy as np
from .._validation import check_probability
from ..errors import InvalidParameterError

__all__ = ["clopper_pearson_upper", "clopper_pearson_lower", "clopper_pearson_interval"]


def _check_counts(successes, trials):
    k = np.asarray(successes)
    n = np.asarray(trials)
    if not (np.issubdtype(k.dtype, np.integer) and np.issubdtype(n.dtype, np.integer)):
        raise InvalidParameterError("successes", "counts must be integers")
    if np.any(n <= 0) or np.any(k < 0) or np.any(k > n):
        raise InvalidParameterError("successes", "need 0 <= successes <= trials and trials > 0")
    return k.astype(float), n.astype(float)


def clopper_pearson_upper(successes, trials, alpha):
    r"""One-sided upper confidence bound on p with level 1 − α (Clopper–Pearson).

    The bound is the Beta(k + 1, n − k) quantile at 1 − α (1 when k = n); it holds
    with probability at least 1 − α for every p, so it is exact, not asymptotic.

    Parameters
    ----------
    successes, trials : int or array of int
        k successes out of n trials.
    alpha : float
        Error probability in (0, 1).

    Returns
    -------
    float or ndarray

    References
    ----------
    .. [1] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits
       illustrated in the case of the binomial", Biometrika 26(4), 1934.
    """
    from scipy import stats as _stats  # lazy: keeps ``import matrixdp`` light

    a = check_probability(alpha, "alpha")
    k, n = _check_counts(successes, trials)
    with np.errstate(invalid="ignore"):
        upper = _stats.beta.ppf(1.0 - a, k + 1.0, np.maximum(n - k, 1e-300))
    upper = np.where(k >= n, 1.0, upper)
    return float(upper) if np.ndim(upper) == 0 else upper


def clopper_pearson_lower(successes, trials, alpha):
    """One-sided lower confidence bound on p with level 1 − α (0 when k = 0)."""
    from scipy import stats as _stats

    a = check_probability(alpha, "alpha")
    k, n = _check_counts(successes, trials)
    with np.errstate(invalid="ignore"):
        lower = _stats.beta.ppf(a, np.maximum(k, 1e-300), n - k + 1.0)
    lower = np.where(k <= 0, 0.0, lower)
    return float(lower) if np.ndim(lower) == 0 else lower


def clopper_pearson_interval(successes, trials, confidence=0.95):
    """Two-sided Clopper–Pearson interval (each tail gets (1 − confidence)/2)."""
    alpha = 1.0 - check_probability(confidence, "confidence")
    return (clopper_pearson_lower(successes, trials, alpha / 2.0),
            clopper_pearson_upper(successes, trials, alpha / 2.0))
