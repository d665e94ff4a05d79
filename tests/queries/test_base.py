"""The Frobenius ball structure (what a bare sensitivity means)."""

import numpy as np
import pytest

from matrixdp.queries import FrobeniusBall, as_structure


def test_frobenius_ball_witness_and_costs():
    fb = as_structure(2.0, (3, 4))
    assert isinstance(fb, FrobeniusBall) and as_structure(fb) is fb
    [(a, b)] = fb.witnesses()
    assert np.linalg.norm(b - a) == pytest.approx(2.0)
    costs = fb.direction_costs(row_dirs=np.eye(3))
    np.testing.assert_allclose(costs.costs, 4.0)
