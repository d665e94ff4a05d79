"""Input conversion for the synthetic-data estimators (arrays or pandas DataFrames)."""

from __future__ import annotations

import numpy as np

from .._validation import check_finite_array, check_n_records
from ..errors import InvalidParameterError, InvalidShapeError, OutOfBoundsError

__all__ = ["as_feature_matrix", "as_label_vector", "label_range_text", "checked_centred_labels",
           "classes_outside"]


def label_range_text(shift: float, bound: float) -> str:
    """The public label range ``[shift - bound, shift + bound]`` as text."""
    return f"[{shift - bound:g}, {shift + bound:g}]"


def checked_centred_labels(y_centred: np.ndarray, shift: float, bound: float,
                           clip: bool) -> np.ndarray:
    """Labels centred at the public range's middle ``shift``, within ``±bound``: clipped to it
    (``clip=True``) or refused with a message that names no value and no count (it may reach a
    log). The bound is public: never read from the labels."""
    if np.any(np.abs(y_centred) > bound):
        if not clip:
            raise OutOfBoundsError(
                "y", f"has labels outside the public label bound {label_range_text(shift, bound)}; "
                     "clip them first or pass clip_labels=True (CLI: --clip-labels), or widen the "
                     "bound from domain knowledge (it must never be read from the data)")
        return np.clip(y_centred, -bound, bound)
    return y_centred


def classes_outside(classes) -> str:
    """The message for labels outside the public class list (which values, and how many, stay
    with the data: the message may reach a log)."""
    return (f"has labels that are not in the public class list "
            f"classes={np.asarray(classes).tolist()}; "
            "add the missing classes to the public list or drop those records")


def _is_dataframe(X) -> bool:
    # Duck-typed so pandas is only imported by callers that pass a DataFrame.
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "to_numpy")


def as_feature_matrix(X, argument: str = "X", *, finite: bool = True,
                      relation: str = "replace-one") -> tuple[np.ndarray, np.ndarray | None]:
    """Return ``X`` as a finite float64 (n_samples, n_features) array and its column names.

    DataFrames must have numeric (or boolean) columns only; other columns are named in
    the error with a hint to one-hot encode them. ``finite=False``: the caller checks
    finiteness in its own first pass over ``X``, before any budget is charged.
    """
    names = None
    if _is_dataframe(X):
        import pandas as pd

        bad = [str(c) for c, dt in X.dtypes.items()
               if not (pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt))]
        if bad:
            raise InvalidParameterError(
                argument, f"non-numeric column(s) {bad}; RON-Gauss needs numeric features - "
                          "one-hot encode categorical columns first (e.g. pandas.get_dummies) "
                          "or drop them")
        names = np.asarray([str(c) for c in X.columns], dtype=object)
        X = X.to_numpy(dtype=np.float64)
    arr = check_finite_array(X, argument, finite=finite)
    if arr.ndim != 2:
        raise InvalidShapeError(argument, f"must be 2-D (n_samples, n_features), got shape {arr.shape}")
    # add-remove: an empty table is released like any other (min_records)
    check_n_records(arr.shape[0], relation, argument, "has no samples")
    return arr, names


def as_label_vector(y, n_samples: int, *, numeric: bool, argument: str = "y") -> np.ndarray:
    """Return ``y`` as a 1-D array of length ``n_samples`` (float64 and finite if ``numeric``)."""
    if y is None:
        raise InvalidParameterError(argument, "is required for this task")
    if _is_dataframe(y):
        if y.shape[1] != 1:
            raise InvalidShapeError(argument, f"must be one column, got {y.shape[1]}")
        y = y.iloc[:, 0]
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    if numeric:
        arr = check_finite_array(y, argument)
    else:
        arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1 or arr.shape[0] != n_samples:
        raise InvalidShapeError(argument, "must be 1-D with one entry per row of X")
    return arr
