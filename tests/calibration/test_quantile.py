import numpy as np
import pytest

from matrixdp.calibration.quantile import (linear_grid, log_scale_grid,
                                           quantile_utility_sensitivity)
from matrixdp.errors import InvalidParameterError
from matrixdp.queries.quantile import quantile_scores


def test_scores_peak_at_the_quantile_and_move_by_at_most_the_sensitivity():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    grid = np.linspace(-4, 4, 161)
    for q in (0.1, 0.5, 0.9):
        s = quantile_scores(X, grid, q)
        best = grid[s.argmax(axis=1)]
        np.testing.assert_allclose(best, np.quantile(X, q, axis=0), atol=0.06)
        # replace-one: any record replaced by any other moves every score by <= 1
        Y = X.copy()
        Y[7] = [10.0, -10.0]
        assert np.max(np.abs(quantile_scores(Y, grid, q) - s)) <= 1.0 + 1e-12
        # add/remove: <= max(q, 1 - q)
        Z = np.vstack([X, [[3.0, -3.0]]])
        assert np.max(np.abs(quantile_scores(Z, grid, q) - s)) <= max(q, 1 - q) + 1e-12
        assert quantile_utility_sensitivity(q, "add-remove") == max(q, 1 - q)
    assert quantile_utility_sensitivity(0.3) == 1.0


def test_grids_are_public_and_validated():
    g = log_scale_grid()
    assert g[0] == -1e9 and g[-1] == 1e9 and 0.0 in g and np.all(np.diff(g) > 0)
    assert log_scale_grid(lower=0.0)[0] == 0.0
    assert linear_grid(0, 1, 11)[1] == pytest.approx(0.1)
    with pytest.raises(InvalidParameterError):
        linear_grid(1, 0)
    with pytest.raises(InvalidParameterError):
        quantile_scores(np.zeros((3, 1)), [1.0, 0.0], 0.5)
