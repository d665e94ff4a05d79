"""A NaN is reported as a missing value and an infinity as infinite (issue 25: a NaN was reported
as "(infinity)"); neither message quotes the data."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError, InvalidShapeError
from matrixdp.models import DPCovariance, DPLinearRegression


def test_nan_is_reported_as_missing_not_infinity():
    X = np.random.default_rng(0).uniform(size=(50, 3))
    X[4, 1] = np.nan
    with pytest.raises(InvalidParameterError) as info:
        DPCovariance(bounds=(0, 1)).fit(X)
    text = str(info.value)
    assert "NaN" in text and "missing" in text and "infinit" not in text


def test_infinity_is_reported_as_infinite():
    X = np.random.default_rng(0).uniform(size=(50, 3))
    X[4, 1] = np.inf
    with pytest.raises(InvalidParameterError) as info:
        DPLinearRegression(bounds_X=(0, 1), bounds_y=(0, 1)).fit(X, np.zeros(50))
    text = str(info.value)
    assert "infinite" in text and "NaN" not in text


# ---- task BA (session 18): the outsider's edge-case hunt ----------------------------------------
SUPERVISED = [
    lambda: DPLinearRegression(bounds_X=(0, 1), bounds_y=(0, 3), random_state=0),
    lambda: __import__("matrixdp.models", fromlist=["AdaSSPRegression"]).AdaSSPRegression(
        bounds_X=(0, 1), bounds_y=(0, 3), random_state=0),
]


@pytest.mark.parametrize("make", SUPERVISED)
@pytest.mark.parametrize("bad, word", [(np.nan, "NaN"), (np.inf, "infinite")])
def test_a_non_finite_label_is_reported_as_y_not_x(make, bad, word):
    """A NaN or infinity in ``y`` was reported as "X: contains NaN ..." (scikit-learn's "Input y
    contains NaN" mapped to X): the message must name y, the argument that holds it."""
    rng = np.random.default_rng(0)
    X, y = rng.uniform(size=(50, 3)), rng.uniform(0, 3, 50)
    y[7] = bad
    with pytest.raises(InvalidParameterError) as info:
        make().fit(X, y)
    assert info.value.argument == "y" and word in str(info.value)
    X[3, 0], y[7] = bad, 1.0  # and a bad X is still reported as X
    with pytest.raises(InvalidParameterError) as info:
        make().fit(X, y)
    assert info.value.argument == "X"


@pytest.mark.parametrize("where", ["X", "y"])
def test_complex_input_is_refused_without_quoting_the_data(where):
    """scikit-learn's "Complex data not supported" error prints the whole array; the message of
    a private fit must not quote the records."""
    rng = np.random.default_rng(0)
    X, y = rng.uniform(size=(50, 3)), rng.uniform(0, 3, 50)
    X[0, 0], y[0] = 0.123456789, 2.987654321  # a recognisable value
    if where == "X":
        X = X.astype(complex)
    else:
        y = y.astype(complex)
    with pytest.raises(InvalidParameterError) as info:
        DPLinearRegression(bounds_X=(0, 1), bounds_y=(0, 3)).fit(X, y)
    text = str(info.value)
    assert info.value.argument == where and "complex" in text.lower()
    assert "0.123" not in text and "2.98" not in text and "+0.j" not in text
    if where == "X":
        with pytest.raises(InvalidParameterError) as info:
            DPCovariance(bounds=(0, 1)).fit(X)
        assert "+0.j" not in str(info.value) and info.value.argument == "X"


def test_a_datetime_column_is_refused_as_not_numeric():
    """A pandas datetime column raised numpy's DTypePromotionError from deep inside the
    validation; it is a non-numeric column like a string one."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.uniform(size=40), "when": pd.date_range("2020", periods=40)})
    with pytest.raises(InvalidParameterError) as info:
        DPCovariance(bounds=(0, 1)).fit(frame)
    assert info.value.argument == "X" and "numeric" in str(info.value)


def test_an_empty_table_is_refused_naming_x():
    with pytest.raises(InvalidShapeError) as info:
        DPCovariance(bounds=(0, 1)).fit(np.empty((0, 3)))
    assert info.value.argument == "X" and "at least 1 sample" in str(info.value)



@pytest.mark.parametrize("make", SUPERVISED)
def test_a_two_column_target_is_refused_without_the_row_count(make):
    """scikit-learn's "y should be a 1d array, got an array of shape (137, 2)" printed the row
    count (private under add/remove)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(137, 3))
    Y = np.c_[X.sum(axis=1), X[:, 0]]
    est = make().set_params(neighbouring="add-remove")
    with pytest.raises(InvalidShapeError) as info:
        est.fit(X, Y)
    assert info.value.argument == "y" and "137" not in str(info.value)


@pytest.mark.parametrize("dtype", ["category", "string", "object"])
def test_a_non_numeric_pandas_target_is_refused_naming_y(dtype):
    """A categorical or text pandas target was refused as "X: must be numeric" (scikit-learn's
    "could not convert string to float: 'secret-0'" names no argument)."""
    pd = pytest.importorskip("pandas")
    X = np.random.default_rng(0).uniform(size=(50, 3))
    y = pd.Series([f"secret-{i % 3}" for i in range(50)]).astype(dtype)
    for make in SUPERVISED:
        with pytest.raises(InvalidParameterError) as info:
            make().fit(X, y)
        assert info.value.argument == "y" and "secret" not in str(info.value)
    make().fit(X, pd.Series(np.linspace(0, 3, 50)).astype("Float64"))  # numeric pandas: fits
    make().fit(X, pd.Series(np.linspace(0, 3, 50)).astype(object))  # numbers as objects: fit


def test_masked_entries_are_refused_not_released():
    """numpy.asarray drops a masked array's mask: the entries the caller marked missing were
    used in the release as their underlying values."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(50, 3))
    y = X.sum(axis=1)
    Xm = np.ma.masked_array(X, mask=X > 0.9)
    with pytest.raises(InvalidParameterError) as info:
        DPCovariance(bounds=(0, 1)).fit(Xm)
    assert info.value.argument == "X" and "masked" in str(info.value)
    with pytest.raises(InvalidParameterError) as info:
        DPLinearRegression(bounds_X=(0, 1), bounds_y=(0, 3)).fit(
            X, np.ma.masked_array(y, mask=y > 2.5))
    assert info.value.argument == "y"
    # a masked array with nothing masked is an ordinary table
    DPCovariance(bounds=(0, 1), random_state=0).fit(np.ma.masked_array(X, mask=False))
