"""An empty table under add/remove is released like any other (docs/security.md, "Empty tables").

Under add/remove a table of 0 rows and one of 1 row are neighbours and the row count is private:
a fit that refuses the first and releases the second tells them apart with certainty, so it is
not DP for that pair. Before task EA (session 22) every estimator and generator refused the
empty table (``needs at least 1 sample``, ``has no rows``, ``has no samples``) — hunt DH's open
item 4, probe ``empty_table_under_add_remove``. The rule now lives in one place
(:func:`matrixdp._validation.min_records`): under add/remove the empty table is released (every
sum is 0, the release is noise only, charged as usual); under replace-one the row count is
public and the empty table is still refused, before any charge.

Over the catalogue of the generic contract tests (``tests/_estimator_cases.py``): every case
that runs under add/remove fits 0 rows, is charged exactly what a 1-row fit is charged, and
returns finite values wherever the 1-row fit does (same seed), PSD matrices and in-box means
where the class promises them, and samples in the public schema; every case that runs under
replace-one refuses 0 rows with nothing charged.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _estimator_cases import CASES  # noqa: E402

from matrixdp.accounting import Accountant  # noqa: E402
from matrixdp.errors import MatrixDPError  # noqa: E402

ADD_REMOVE = sorted(n for n, c in CASES.items() if "add-remove" in c.relations)
REPLACE_ONE = sorted(n for n, c in CASES.items() if "replace-one" in c.relations)


def _rows(data, k):
    X, y = data
    X = X.iloc[:k] if hasattr(X, "iloc") else X[:k]
    return X, (None if y is None else y[:k])


def _fit_rows(case, relation, k, seed=0):
    """Fit the case's first table cut to ``k`` rows inside an accountant: (model, spends)."""
    est = case.make(relation)
    est.random_state = seed
    D, _ = case.data(relation)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with Accountant(epsilon=100.0, delta=1e-3, relation=relation) as acc:
            model = case.fit(est, _rows(D, k))
    return model, acc.spends


def _numbers(value):
    """The numeric content of a fitted attribute as a float array, or None (not numeric)."""
    if value is None or isinstance(value, (str, bytes)):
        return None
    if hasattr(value, "select_dtypes"):  # a DataFrame
        return value.select_dtypes("number").to_numpy(dtype=np.float64)
    if isinstance(value, dict):
        parts = [_numbers(v) for v in value.values()]
        parts = [p.ravel() for p in parts if p is not None]
        return np.concatenate(parts) if parts else None
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        if isinstance(value, (list, tuple)):
            parts = [_numbers(v) for v in value]
            parts = [p.ravel() for p in parts if p is not None]
            return np.concatenate(parts) if parts else None
        return None


def _psd(M, tol=1e-9):
    M = np.asarray(M, dtype=np.float64)
    M = M.reshape((-1,) + M.shape[-2:])
    for A in M:
        assert np.allclose(A, A.T, atol=1e-12)
        assert np.linalg.eigvalsh(A).min() >= -tol * max(1.0, np.abs(A).max())


def _check_promises(name, model, case):
    """What the class promises of its output, on the empty table's release."""
    cls = type(model).__name__
    if cls == "DPCovariance":
        _psd(model.covariance_)
        if model.location_ is not None:  # the DP mean, clipped to the public box
            assert np.all((model.location_ >= -1) & (model.location_ <= 1))
        if model.kind == "correlation":
            np.testing.assert_allclose(np.diag(model.covariance_), 1.0)
    elif cls == "DPPCA":
        assert np.all(model.explained_variance_ >= 0)
        C = model.components_
        np.testing.assert_allclose(C @ C.T, np.eye(C.shape[0]), atol=1e-9)
        assert np.all((model.mean_ >= -1) & (model.mean_ <= 1))
    elif cls == "DPStandardScaler":
        assert np.all(model.var_ >= 0) and np.all(model.scale_ > 0)
    elif cls == "RONGauss":
        _psd(model.covariance_)
    elif cls in ("DPCopula", "DPTreeCopula"):
        _psd(model.correlation_)
        np.testing.assert_allclose(np.diagonal(model.correlation_, axis1=-2, axis2=-1), 1.0,
                                   atol=1e-9)
        priors = np.asarray(model.class_priors_, dtype=np.float64)
        assert np.all(priors >= 0) and priors.sum() == pytest.approx(1.0)
    if case.sample is not None:
        frame = case.sample(model)
        assert len(frame) == 40
        num = frame.select_dtypes("number").to_numpy(dtype=np.float64)
        assert np.all(np.isfinite(num))
        if cls in ("DPCopula", "DPTreeCopula"):  # the public schema: ranges and categories
            assert frame["age"].between(18, 90).all() and frame["income"].between(0, 100).all()
            assert set(frame["colour"]) <= {"red", "green", "blue"}


@pytest.mark.parametrize("name", ADD_REMOVE)
def test_an_empty_table_is_released_under_add_remove_as_one_record_is(name):
    case = CASES[name]
    empty, spends0 = _fit_rows(case, "add-remove", 0)
    one, spends1 = _fit_rows(case, "add-remove", 1)
    # charged exactly what one record is charged: the same entries, (ε, δ) and relation
    assert len(spends0) == len(spends1) >= 1
    for (_, g0), (_, g1) in zip(spends0, spends1):
        assert g0.epsilon == pytest.approx(g1.epsilon, rel=1e-12)
        assert g0.delta == pytest.approx(g1.delta, rel=1e-12, abs=0.0)
        assert g0.neighbouring == g1.neighbouring == "add-remove"
    # the same outputs, finite wherever the 1-row release is (a sentinel NaN/None stays one)
    for attr in sorted(case.released):
        a0, a1 = getattr(empty, attr, None), getattr(one, attr, None)
        assert type(a0) is type(a1), attr
        v0, v1 = _numbers(a0), _numbers(a1)
        if v1 is None:
            continue
        assert v0 is not None and v0.shape == v1.shape, attr
        assert np.all(np.isfinite(v0) | ~np.isfinite(v1)), attr
    _check_promises(name, empty, case)


@pytest.mark.parametrize("name", ADD_REMOVE)
def test_the_empty_release_is_noise_not_a_constant(name):
    """Two seeds give two releases: the empty table's output is drawn, not a fixed fallback
    (a refusal or a constant would tell it apart from its 1-row neighbour)."""
    case = CASES[name]
    a, _ = _fit_rows(case, "add-remove", 0, seed=1)
    b, _ = _fit_rows(case, "add-remove", 0, seed=2)
    differs = []
    for attr in sorted(case.released):
        va, vb = _numbers(getattr(a, attr, None)), _numbers(getattr(b, attr, None))
        if va is not None and vb is not None and va.shape == vb.shape:
            differs.append(not np.array_equal(va, vb, equal_nan=True))
    assert any(differs)


@pytest.mark.parametrize("name", REPLACE_ONE)
def test_an_empty_table_is_still_refused_under_replace_one_before_any_charge(name):
    """Under replace-one the row count is public: refusing the empty table reveals nothing."""
    case = CASES[name]
    est = case.make("replace-one")
    D, _ = case.data("replace-one")
    acc = Accountant(epsilon=100.0, delta=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(MatrixDPError):
            with acc:
                case.fit(est, _rows(D, 0))
    assert acc.spends == ()


def test_the_rule_lives_in_one_place():
    from matrixdp._validation import check_n_records, min_records
    from matrixdp.errors import InvalidShapeError

    assert min_records("add-remove") == 0 and min_records("replace-one") == 1
    assert check_n_records(0, "add-remove") == 0
    with pytest.raises(InvalidShapeError) as info:
        check_n_records(0, "replace-one")
    assert info.value.argument == "X" and "needs at least 1 sample" in str(info.value)


MOMENTS = [n for n in ADD_REMOVE if "moments_" in CASES[n].released]


@pytest.mark.parametrize("name", MOMENTS)
def test_the_empty_release_is_the_same_noise_without_the_record(name):
    """With one seed, the 1-row release minus the 0-row release of the record sums
    (``moments_``) is the record's own contribution ``z zᵀ``: PSD of rank one. The empty table
    is released with the very noise (calibration, allocation and draw) of its neighbour."""
    case = CASES[name]
    empty, _ = _fit_rows(case, "add-remove", 0, seed=5)
    one, _ = _fit_rows(case, "add-remove", 1, seed=5)
    diff = np.asarray(one.moments_) - np.asarray(empty.moments_)
    ev = np.linalg.eigvalsh(0.5 * (diff + diff.T))
    assert ev[-1] > 0.1  # the record's ‖z‖² (t = 1 in the constant coordinate)
    assert np.all(np.abs(ev[:-1]) <= 1e-9 * ev[-1])


def test_the_empty_covariance_release_is_centred_noise_of_the_stated_variance():
    """DPCovariance(method="moments") under add/remove on 0 rows, 400 seeds: the released sums
    (``moments_``) are pure noise, so their entries over their stated sd (``entry_variance_``)
    have mean 0 (|mean| < 0.08) and variance 1 (within 0.1: 0.7 and 1.3 are rejected, the
    estimate's sd is about 0.02 over 4,000 entries)."""
    from matrixdp.models import DPCovariance

    iu = np.triu_indices(4)
    z = []
    for seed in range(400):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = DPCovariance(bounds=(-1, 1), method="moments", neighbouring="add-remove",
                             random_state=seed).fit(np.empty((0, 3)))
        z.append(m.moments_[iu] / np.sqrt(m.entry_variance_[iu]))
    z = np.concatenate(z)
    assert abs(z.mean()) < 0.08
    assert abs(z.var() - 1.0) < 0.1
    for wrong in (0.7, 1.3):  # a variance off by 30% would be caught
        assert abs(z.var() / wrong - 1.0) >= 0.1


#: post-processing of the release the case list does not name yet (linear.py's
#: ``_set_intercept_shrinkage``): ``tests/test_neighbour_invariance.py`` fails on it for 12
#: regression cases on integration 40ab21c already (reported to the lead, task EA)
_ALSO_RELEASED = frozenset({"intercept_bias_bound_"})


@pytest.mark.parametrize("name", ADD_REMOVE)
def test_what_is_not_released_is_the_same_for_0_and_1_record(name):
    """The pair (0 rows, 1 row) under the neighbour-invariance rule
    (``tests/test_neighbour_invariance.py``): with one seed, every fitted attribute that is
    not a noisy release is identical, and releases keep their type, dtype and shape."""
    import test_neighbour_invariance as NI

    case = CASES[name]
    empty, _ = _fit_rows(case, "add-remove", 0)
    one, _ = _fit_rows(case, "add-remove", 1)
    fa, fb = NI._fitted(empty), NI._fitted(one)
    assert fa.keys() == fb.keys()
    released = case.released | _ALSO_RELEASED
    differing = [k for k in sorted(fa)
                 if (NI._meta(fa[k]) != NI._meta(fb[k]) if k in released
                     else not NI._same(fa[k], fb[k]))]
    assert not differing, differing
