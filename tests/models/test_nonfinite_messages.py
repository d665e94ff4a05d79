"""A NaN is reported as a missing value and an infinity as infinite (issue 25: a NaN was reported
as "(infinity)"); neither message quotes the data."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
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
