"""Shared linear algebra: vec/unvec and orthonormal directions (matrixdp._linalg)."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp._linalg import check_directions, standard_directions, unvec, vec
from matrixdp.errors import InvalidParameterError, InvalidShapeError, NonFiniteInputError


def _orthonormal(dim, seed):
    q, r = np.linalg.qr(np.random.default_rng(seed).standard_normal((dim, dim)))
    return q * np.sign(np.diagonal(r))


def test_check_directions_accepts_orthonormal_and_standard_basis():
    q = _orthonormal(5, 0)
    assert np.array_equal(check_directions(q, 5), q)
    assert np.array_equal(check_directions(standard_directions(3), 3), np.eye(3))


@pytest.mark.parametrize("bad, error", [
    (1.01 * _orthonormal(4, 1), InvalidParameterError),                  # not unit norm
    (np.array([[1.0, 0.1, 0, 0], [0, 1.0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0]]), InvalidParameterError),
    (np.ones((4, 3)), InvalidShapeError),                                  # not square
    (np.eye(3), InvalidShapeError),                                        # wrong dim
    (np.where(np.eye(4) > 0, np.nan, 0.0), NonFiniteInputError),
])
def test_check_directions_rejects(bad, error):
    with pytest.raises(error) as info:
        check_directions(bad, 4, "directions")
    assert info.value.argument == "directions"


def test_vec_unvec_round_trip():
    a = np.arange(6.0).reshape(2, 3)
    assert vec(a).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    assert np.array_equal(unvec(vec(a), (2, 3)), a)
