"""Dask inputs for the estimators: lazy validation and the reduced statistics of a fit.

A fit on a ``dask.array.Array`` or ``dask.dataframe.DataFrame`` never collects the records:
the public box is checked (clipped or raising) block by block, the per-block sums are added in
a tree (:func:`matrixdp._record_sums.bounded_record_sums`), and only the ``k + k²`` numbers of
the result reach the driver, where the estimator's usual release code draws the noise once.
The guarantee is the in-memory one (same query, same sensitivity, same mechanism); a seeded fit
gives the in-memory release up to floating-point summation order. See ``docs/scaling.md``.
"""

from __future__ import annotations

import numpy as np

from .._record_sums import (as_record_matrix, bounded_record_sums, dask_target_records,
                            is_dask_collection)
from ..errors import InvalidParameterError, InvalidShapeError
from .._validation import check_n_records

__all__ = ["is_dask_collection", "dask_records", "dask_target_records", "augmented_moments",
           "column_moments"]


def dask_records(estimator, X, *, reset: bool):
    """Lazy 2-D records of a Dask ``X``; sets (``reset``) or checks ``n_features_in_`` and
    ``feature_names_in_`` (a Dask DataFrame's columns) as scikit-learn's validation does."""
    from sklearn.utils.validation import _check_feature_names, _check_n_features

    if getattr(X, "ndim", 2) != 2:
        raise InvalidShapeError("X", "must be 2-D (n_samples, n_features)")
    _check_n_features(estimator, X, reset=reset)
    columns = getattr(X, "columns", None)
    if columns is not None and all(isinstance(c, str) for c in columns):
        names = np.asarray(list(columns), dtype=object)
        if reset:
            estimator.feature_names_in_ = names
        else:
            fitted = getattr(estimator, "feature_names_in_", None)
            if fitted is not None and (len(fitted) != len(names) or np.any(fitted != names)):
                raise InvalidParameterError("X", "feature names must match those seen in fit, "
                                                 "in the same order")
    else:
        _check_feature_names(estimator, np.empty((0, 0)), reset=reset)
    if hasattr(X, "dtypes"):
        if not all(np.issubdtype(t, np.number) or np.issubdtype(t, np.bool_) for t in X.dtypes):
            raise InvalidParameterError("X", "must be numeric: one-hot encode categorical columns "
                                             "(with public categories) or drop them")
    elif not (np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.bool_)):
        raise InvalidParameterError("X", "must be numeric")
    return as_record_matrix(X, "X")


def augmented_moments(Z, lower, upper, center, t: float, *, clip: bool, mean: bool = True):
    """``(n, G)``: ``G = (1/n) Σ z zᵀ`` (``mean=False``: the sum ``Σ z zᵀ``, add-remove) of the
    records ``z = (clip(x) - center, t)``.

    ``t = 0`` leaves the constant coordinate out. Exactly the matrix the in-memory path builds
    from the clipped, centred records (the task's ``query().compute``), up to summation order.
    """
    sums = bounded_record_sums(Z, lower, upper, clip=clip, gram=True, center=center)
    n = int(sums.n)
    # the sums (mean=False) are add-remove's: an empty table is released (min_records)
    check_n_records(n, "replace-one" if mean else "add-remove")
    d = sums.sum.size
    if t == 0.0:
        G = np.array(sums.gram, dtype=np.float64)
    else:
        G = np.empty((d + 1, d + 1))
        G[:d, :d] = sums.gram
        G[:d, d] = G[d, :d] = t * sums.sum
        G[d, d] = n * t * t
    if mean:
        G /= n
    return n, 0.5 * (G + G.T)


def column_moments(Z, lower, upper, *, clip: bool, squares: bool,
                   relation: str = "replace-one"):
    """``(n, Σ (x - c), Σ (x - c)² or None)`` of the clipped records, ``c`` the box centre."""
    center = 0.5 * (np.asarray(lower, dtype=np.float64) + np.asarray(upper, dtype=np.float64))
    sums = bounded_record_sums(Z, lower, upper, clip=clip, gram=squares, center=center)
    n = int(sums.n)
    check_n_records(n, relation)  # add-remove: an empty table is released (min_records)
    return n, sums.sum, (np.diagonal(sums.gram).copy() if squares else None)
