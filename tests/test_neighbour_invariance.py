"""Neighbour-invariant metadata: what is not a noisy release must not depend on one record.

For every shipped estimator and generator (``tests/_estimator_cases.py``; enumerated from the
package) and every neighbouring relation it supports, fit on D and on a neighbour D′ with the
same seed (so the noise is the same draw): every fitted attribute that is not a noisy release
(or its post-processing) must be identical — column types, integer columns, classes, shapes,
counts under add/remove. Noisy releases may differ in value but not in type, dtype or shape.
A generator's synthetic sample must have the same columns and dtypes.

On main before issue 23 this failed for DPStandardScaler(neighbouring="add-remove")
(``n_samples_seen_`` was the exact count) and DPCopula (``integer_columns_`` and the synthetic
column's dtype were read from the data's dtypes).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _estimator_cases import CASES  # noqa: E402

PAIRS = [(name, rel) for name in sorted(CASES) for rel in CASES[name].relations]


def _fitted(est) -> dict:
    return {k: v for k, v in vars(est).items()
            if k.endswith("_") and not k.startswith("_") and not k.endswith("__")}


def _meta(value):
    """Type, dtype and shape: metadata even of a noisy release."""
    if isinstance(value, dict):
        return ("dict", tuple(sorted(map(str, value))), tuple(_meta(value[k]) for k in value))
    if isinstance(value, np.ndarray):
        return ("ndarray", str(value.dtype), value.shape)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, len(value))
    return (type(value).__name__,)


def _same(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.all(
            (a == b) | ((a != a) & (b != b)) if a.dtype.kind == "f" else a == b))
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - objects without equality: compare their state
        return repr(a) == repr(b)


def _fit_both(case, relation):
    D, D2 = case.data(relation)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = case.fit(case.make(relation), D)
        b = case.fit(case.make(relation), D2)
    return a, b


@pytest.mark.parametrize("name, relation", PAIRS)
def test_non_noisy_fitted_attributes_do_not_depend_on_one_record(name, relation):
    case = CASES[name]
    a, b = _fit_both(case, relation)
    fa, fb = _fitted(a), _fitted(b)
    assert fa.keys() == fb.keys(), "the set of fitted attributes depends on one record"
    differing = []
    for key in sorted(fa):
        if key in case.released:
            if _meta(fa[key]) != _meta(fb[key]):
                differing.append(f"{key} (type/dtype/shape of a release)")
        elif not _same(fa[key], fb[key]):
            differing.append(key)
    assert not differing, (f"{name} ({relation}): fitted attributes that are not noisy "
                           f"releases differ between neighbours: {differing}")


@pytest.mark.parametrize("name, relation",
                         [p for p in PAIRS if CASES[p[0]].sample is not None])
def test_synthetic_columns_and_dtypes_do_not_depend_on_one_record(name, relation):
    case = CASES[name]
    a, b = _fit_both(case, relation)
    sa, sb = case.sample(a), case.sample(b)
    assert list(sa.columns) == list(sb.columns)
    assert [str(t) for t in sa.dtypes] == [str(t) for t in sb.dtypes]


def test_a_column_the_schema_does_not_name_integer_is_continuous():
    """Public schema only: an integer dtype in the data does not make a column integer."""
    case = CASES["DPCopula"]
    (frame, y), _ = case.data("add-remove")
    assert frame["age"].dtype == np.int64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = case.fit(case.make("add-remove"), (frame, y))
    assert model.integer_columns_ == ()
    assert case.sample(model)["age"].dtype == np.float64


def test_the_comparison_is_not_vacuous():
    """A fitted attribute read from the data (the exact n under add/remove) is reported."""
    case = CASES["DPMean"]
    a, b = _fit_both(case, "add-remove")
    a.n_probe_, b.n_probe_ = 120, 119
    assert not _same(a.n_probe_, b.n_probe_)
    assert _meta(np.zeros(2)) != _meta(np.zeros(3))
