"""Default witness pairs."""

import numpy as np
import pytest

import matrixdp
from matrixdp.audit import default_witnesses, sensitivity_witness
from matrixdp.errors import InvalidParameterError


def test_sensitivity_witness_distance():
    a, b = sensitivity_witness(2.5, (3, 4))
    assert a.shape == b.shape == (3, 4)
    assert np.linalg.norm(b - a) == pytest.approx(2.5) and np.abs(b - a).sum() == pytest.approx(2.5)


def test_defaults_per_mechanism():
    lap = matrixdp.LaplaceMechanism(epsilon=1, sensitivity=2)
    (a, b), = default_witnesses(lap)
    assert a.shape == (3,) and np.abs(b - a).sum() == pytest.approx(2)
    g = matrixdp.GaussianMechanism(epsilon=1, delta=1e-5, sensitivity=0.5)
    (a, b), = default_witnesses(g, shape=(2, 2))
    assert a.shape == (2, 2) and np.linalg.norm(b - a) == pytest.approx(0.5)
    r = matrixdp.R1SMGMechanism(dim=30, epsilon=0.01, delta=1e-5, sensitivity=1.5,
                                allow_unsafe=True)
    (a, b), = default_witnesses(r)
    assert a.shape == (30,) and np.linalg.norm(b - a) == pytest.approx(1.5)


def test_query_witnesses_are_delegated():
    class Query:
        def witnesses(self):
            return [(np.zeros((2, 2)), np.ones((2, 2))), (np.ones((2, 2)), -np.ones((2, 2)))]
    pairs = default_witnesses(object(), query=Query())
    assert len(pairs) == 2 and np.array_equal(pairs[1][1], -np.ones((2, 2)))

    class Empty:
        def witnesses(self):
            return []
    with pytest.raises(InvalidParameterError, match="query"):
        default_witnesses(object(), query=Empty())
    with pytest.raises(InvalidParameterError, match="query"):
        default_witnesses(object())


def test_mechanism_query_and_covariances_are_used():
    seen = {}

    class Query:
        def witnesses(self, *, row_cov=None, col_cov=None):
            seen["row_cov"], seen["col_cov"] = row_cov, col_cov
            return [(np.zeros((2, 2)), np.eye(2))]

    class Mech:
        query = Query()
        row_cov = np.eye(2) * 2
        col_cov = np.eye(2) * 3

    (a, b), = default_witnesses(Mech())
    assert np.array_equal(b, np.eye(2))
    assert np.array_equal(seen["row_cov"], Mech.row_cov) and np.array_equal(seen["col_cov"], Mech.col_cov)

    class PlainQuery:
        def witnesses(self):
            return [(np.zeros(1), np.ones(1))]
    Mech.query = PlainQuery()
    assert len(default_witnesses(Mech())) == 1
