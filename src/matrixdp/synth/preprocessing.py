"""RON-Gauss pre-processing (Algorithm 1): sample-wise normalisation, a DP mean, centring and
re-normalisation.

See ``docs/synth/ron_gauss.md`` for the derivation of the mean's sensitivity (Lemma 2).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_epsilon
from ..errors import InvalidParameterError
from ..mechanisms import LaplaceMechanism
from ..rng import make_rng

__all__ = ["SENSITIVITY_MODES", "normalize_rows", "mean_sensitivity", "dp_mean",
           "dp_mean_from_sum", "data_preprocessing"]

#: ``"corrected"`` is the default and the only mode whose guarantees are all valid.
#: ``"paper"`` uses the paper's Lemma 4/5 covariance sensitivities (too small for p >= 3);
#: ``"reference_code"`` additionally uses the official code's mean noise (half of Lemma 2).
SENSITIVITY_MODES = ("corrected", "paper", "reference_code")


def normalize_rows(X: np.ndarray) -> np.ndarray:
    """Scale every row of ``X`` to unit Euclidean norm; zero rows stay zero.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)

    Returns
    -------
    ndarray of the same shape (a new array)

    Notes
    -----
    Zero rows have no direction; keeping them at 0 keeps every row norm <= 1,
    which is all the sensitivity bounds use (spec I19).

    Each row is first divided by its largest absolute entry, so the norm is computed
    on entries in [-1, 1]: a plain ``x / np.linalg.norm(x)`` overflows for rows of
    magnitude ~1e155 (silently giving a zero row) and loses precision for rows of
    magnitude ~1e-160 (giving norms up to ~1.001, which breaks the norm <= 1 premise
    of the sensitivities).
    """
    X = np.asarray(X, dtype=np.float64)
    peak = np.max(np.abs(X), axis=1, keepdims=True) if X.shape[1] else np.zeros((X.shape[0], 1))
    scaled = X / np.where(peak > 0, peak, 1.0)
    norms = np.linalg.norm(scaled, axis=1, keepdims=True)
    return scaled / np.where(norms > 0, norms, 1.0)


def mean_sensitivity(m: int, n: int, mode: str = "corrected") -> float:
    r"""L1 sensitivity of the mean of n rows of norm <= 1 in R^m (replace-one).

    Lemma 2: :math:`\|\bar x - \bar x'\|_1 \le \sqrt m\,\|x_i - x_i'\|_2 / n \le 2\sqrt m / n`,
    attained by an antipodal pair :math:`x = \mathbf 1/\sqrt m`, :math:`x' = -x`. The
    official code uses :math:`\sqrt m / n` (``mode="reference_code"``), which is too small.

    Parameters
    ----------
    m, n : int
        Number of features and of records (n is public under replace-one).
    mode : {"corrected", "paper", "reference_code"}

    Returns
    -------
    float

    References
    ----------
    .. [1] T. Chanyaswad, C. Liu, P. Mittal, "RON-Gauss", PoPETs 2019, Lemma 2.
    """
    check_sensitivity_mode(mode)
    factor = 1.0 if mode == "reference_code" else 2.0
    return factor * math.sqrt(m) / n


def dp_mean(X_normalized: np.ndarray, epsilon: float, rng=None, *,
            mode: str = "corrected", numerics: str = "float") -> tuple[np.ndarray, LaplaceMechanism]:
    """The ε-DP mean of unit-norm rows (Algorithm 1, step 2), with its Laplace mechanism.

    ``numerics="exact"`` uses the lattice discrete Laplace (floating-point safe).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    n, m = X_normalized.shape
    mech = LaplaceMechanism(epsilon=epsilon, sensitivity=mean_sensitivity(m, n, mode),
                            numerics=numerics)
    released = mech.release(X_normalized.mean(axis=0), rng=make_rng(rng))
    return np.asarray(released.value, dtype=np.float64), mech


def dp_mean_from_sum(total, n: int, m: int, epsilon: float, rng=None, *, mode: str = "corrected",
                     numerics: str = "float") -> tuple[np.ndarray, LaplaceMechanism]:
    """:func:`dp_mean` from the (private) sum of the ``n`` normalised rows, e.g. reduced block
    by block on a Dask cluster: the same mechanism and the same draws from ``rng``."""
    mech = LaplaceMechanism(epsilon=epsilon, sensitivity=mean_sensitivity(m, n, mode),
                            numerics=numerics)
    released = mech.release(np.asarray(total, dtype=np.float64) / n, rng=make_rng(rng))
    return np.asarray(released.value, dtype=np.float64), mech


def data_preprocessing(X, epsilon_mean: float, rng=None, *, mode: str = "corrected",
                       numerics: str = "float"):
    r"""Algorithm 1 of RON-Gauss (records in rows).

    1. normalise every record to unit norm;
    2. release the mean with Laplace noise of scale :math:`2\sqrt m/(n\varepsilon_\mu)`;
    3. subtract the DP mean from every record;
    4. re-normalise every record.

    Parameters
    ----------
    X : ndarray of shape (n, m)
        Finite data (validated by the caller).
    epsilon_mean : float
        Budget ε_μ of the DP mean.
    rng : None, int or numpy.random.Generator
    mode : {"corrected", "paper", "reference_code"}
        Mean-noise convention (see :func:`mean_sensitivity`).

    Returns
    -------
    X_bar : ndarray of shape (n, m)
        Centred, re-normalised records (rows of norm 1, or 0). Never released.
    mu_dp : ndarray of shape (m,)
        The ε_μ-DP mean of the normalised records (a public output).
    mechanism : LaplaceMechanism
        The mechanism used for the mean.

    References
    ----------
    .. [1] T. Chanyaswad, C. Liu, P. Mittal, "RON-Gauss", PoPETs 2019, Algorithm 1.

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    check_epsilon(epsilon_mean, "epsilon_mean")
    X_norm = normalize_rows(X)
    mu_dp, mech = dp_mean(X_norm, epsilon_mean, rng, mode=mode, numerics=numerics)
    return normalize_rows(X_norm - mu_dp), mu_dp, mech


def check_sensitivity_mode(mode: str) -> None:
    """Raise unless ``mode`` is one of :data:`SENSITIVITY_MODES` (the ``sensitivity`` argument)."""
    if mode not in SENSITIVITY_MODES:
        raise InvalidParameterError("sensitivity", f"must be one of {SENSITIVITY_MODES}, got {mode!r}")
