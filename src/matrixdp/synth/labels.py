"""Class labels against the PUBLIC class list, and the deterministic split of a sample by class.

Shared by the synthetic-data generators (DPCopula, DPTreeCopula, RON-Gauss).
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidParameterError, InvalidShapeError

__all__ = ["generator_labels", "public_class_labels", "largest_remainder"]


def public_class_labels(classes, y, n: int):
    """``(classes, codes)``: the public class list as an array and each label's index in it.

    The class list must be public (reading it from ``y`` would reveal which labels occur); a label
    outside it is refused with a message that says neither how many nor which (it may reach a log).
    """
    if classes is None:
        raise InvalidParameterError(
            "classes", "labels need the PUBLIC class list (reading it from y would reveal "
                       "which labels occur)")
    classes = np.asarray(list(classes))
    if classes.ndim != 1 or classes.size < 1 or np.unique(classes).size != classes.size:
        raise InvalidParameterError("classes", "must be a non-empty list without duplicates")
    y_arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if y_arr.shape != (n,):
        raise InvalidShapeError("y", "must be 1-D with one entry per row of X")
    import pandas as pd

    codes = np.asarray(pd.Index(classes.tolist(), dtype=object).get_indexer(
        y_arr.astype(object)), dtype=np.int64)
    if (codes < 0).any():
        raise InvalidParameterError(
            "y", "has labels that are not in the public class list; add the missing classes "
                 "to the public list or drop those records")
    return classes, codes


def generator_labels(classes, y, n: int):
    """``(classes, codes)`` of a synthetic-data generator's fit: without ``y``, the one class
    ``[None]`` and every code 0 (and ``classes`` must then be None); with ``y``,
    :func:`public_class_labels`."""
    if y is None:
        if classes is not None:
            raise InvalidParameterError("y", "is required when classes are given")
        return np.array([None], dtype=object), np.zeros(n, dtype=np.int64)
    return public_class_labels(classes, y, n)


def largest_remainder(n_samples: int, weights) -> np.ndarray:
    """Split ``n_samples`` by ``weights`` with the largest-remainder rule (deterministic)."""
    raw = n_samples * np.asarray(weights, dtype=np.float64)
    counts = np.floor(raw).astype(np.int64)
    short = n_samples - int(counts.sum())
    if short > 0:
        counts[np.argsort(-(raw - counts), kind="stable")[:short]] += 1
    return counts
