"""The interval utility of DP quantiles: exact against the -dist(q n, [L, U]) definition, 0 on
the interval that holds a point mass off the grid, and moving by at most (and as much as) the
stated sensitivity on neighbouring tables."""

import numpy as np
import pytest

from matrixdp.calibration.quantile import log_scale_grid, quantile_utility_sensitivity
from matrixdp.queries.quantile import quantile_scores


def _reference(x, grid, q):
    """-dist(q n, [#{x < g_i}, #{x <= g_i+1}]) interval by interval (a plain loop, the
    definition)."""
    n = len(x)
    out = []
    for lo, hi in zip(grid[:-1], grid[1:]):
        L, U = np.sum(x < lo), np.sum(x <= hi)
        out.append(-max(L - q * n, q * n - U, 0.0))
    return np.array(out)


@pytest.mark.parametrize("q", [0.1, 0.25, 0.5, 0.9])
def test_scores_are_minus_the_distance_of_qn_to_the_interval_counts(q):
    rng = np.random.default_rng(1)
    grid = np.linspace(-3, 3, 25)
    x = np.concatenate([rng.normal(size=150), np.full(40, 0.5), grid[[3, 7]]])  # ties on g
    np.testing.assert_allclose(quantile_scores(x, grid, q)[0], _reference(x, grid, q),
                               atol=1e-9)


@pytest.mark.parametrize("value", [5.0, 2.0, 3.0])
def test_a_point_mass_between_grid_points_is_held_by_exactly_one_interval(value):
    """The bug the interval form fixes: with every record at 5 (no grid point), the point form
    gave every grid point the utility -n/2 (the selection was uniform); now the one interval
    holding 5 scores 0 and every other -n/2."""
    grid = log_scale_grid()
    assert value not in grid
    n = 2000
    s = quantile_scores(np.full(n, value), grid, 0.5)[0]
    a = np.searchsorted(grid, value) - 1  # grid[a] < value < grid[a + 1]
    assert s.shape == (grid.size - 1,) and s[a] == 0.0
    assert np.all(np.delete(s, a) == -n / 2)
    # a 70% point mass with a spread rest: still the only interval of utility 0 for the median
    rng = np.random.default_rng(3)
    x = np.where(rng.random(n) < 0.7, value, rng.uniform(0.0, 10.0, n))
    s = quantile_scores(x, grid, 0.5)[0]
    assert np.flatnonzero(s == 0.0).tolist() == [a]
    assert np.max(np.delete(s, a)) <= -0.19 * n  # >= 20% of the records between it and q n


@pytest.mark.parametrize("q", [0.25, 0.5, 0.9])
@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_neighbouring_tables_move_every_score_by_at_most_the_sensitivity_and_reach_it(q, relation):
    """Random neighbouring pairs, including point masses on and off the grid: every interval's
    utility moves by <= the sensitivity, and some pair moves one by exactly it (so a sensitivity
    stated too small by any factor would fail here)."""
    rng = np.random.default_rng(7)
    grid = np.linspace(0.0, 10.0, 11)
    sens = quantile_utility_sensitivity(q, relation)
    worst = 0.0
    for t in range(300):
        kind = t % 3
        n = 40
        if kind == 0:
            x = rng.uniform(0, 10, n)
        elif kind == 1:
            x = np.full(n, rng.choice([2.5, 3.0, 7.2]))  # a constant column, on or off grid
        else:
            x = np.where(rng.random(n) < 0.7, 3.5, rng.uniform(0, 10, n))
        new = rng.choice([-1.0, 3.5, 5.0, 11.0, rng.uniform(0, 10)])
        if relation == "replace-one":
            y = x.copy()
            y[rng.integers(n)] = new
        else:
            y = np.append(x, new) if t % 2 else np.delete(x, rng.integers(n))
        diff = np.max(np.abs(quantile_scores(x, grid, q) - quantile_scores(y, grid, q)))
        assert diff <= sens + 1e-12
        worst = max(worst, diff)
    assert worst == pytest.approx(sens)
