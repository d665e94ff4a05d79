"""The exponential mechanism: exact selection probabilities, a wrong epsilon rejected, charging."""

import math

import numpy as np
import pytest
from scipy import stats

from matrixdp.accounting import Accountant
from matrixdp.calibration.quantile import exponential_log_probabilities
from matrixdp.errors import BudgetExceededError, InvalidParameterError
from matrixdp.mechanisms import ExponentialMechanism

U = np.array([0.0, -1.0, -2.0, -3.0, -5.0, -8.0])
N = 200_000  # selections, each an independent row
ALPHA = 1e-6


def _formula(eps, sens=1.0):
    w = np.exp(eps * U / (2 * sens))
    return w / w.sum()


def _counts(eps, sens=1.0, seed=2024):
    # N rows released at once: the release's epsilon N * eps gives each row eps
    mech = ExponentialMechanism(epsilon=N * eps, sensitivity=sens)
    rel = mech.release(np.tile(U, (N, 1)), rng=seed)
    assert rel.value.shape == (N, U.size) and np.all(rel.value.sum(axis=1) == 1.0)
    return np.bincount(ExponentialMechanism.indices(rel), minlength=U.size)


@pytest.mark.parametrize("eps,sens", [(1.0, 1.0), (0.5, 1.0), (2.0, 0.5)])
def test_selection_frequencies_follow_the_formula_and_reject_a_wrong_epsilon(eps, sens):
    counts = _counts(eps, sens)
    p = _formula(eps, sens)
    np.testing.assert_allclose(ExponentialMechanism(epsilon=eps, sensitivity=sens)
                               .probabilities(U), p, rtol=1e-12)
    assert stats.chisquare(counts, N * p).pvalue > ALPHA
    for wrong in (0.7, 1.3):  # the same test has power against an epsilon 30% off
        assert stats.chisquare(counts, N * _formula(wrong * eps, sens)).pvalue < ALPHA


def test_log_probabilities_are_normalised_and_stable():
    lp = exponential_log_probabilities(np.array([[0.0, -1e6, -2e6], [5.0, 5.0, 5.0]]), 1.0)
    np.testing.assert_allclose(np.exp(lp).sum(axis=1), 1.0)
    assert lp[0, 0] == pytest.approx(0.0) and np.allclose(lp[1], -math.log(3))
    with pytest.raises(InvalidParameterError):
        exponential_log_probabilities(U, -1.0)


def test_rows_share_epsilon_and_the_release_is_charged_first():
    mech = ExponentialMechanism(epsilon=1.0)
    scores = np.tile(U, (4, 1))
    np.testing.assert_allclose(mech.probabilities(scores)[0], _formula(0.25))
    tight = Accountant(epsilon=0.5, delta=0.0)
    with pytest.raises(BudgetExceededError):
        mech.release(scores, accountant=tight)
    roomy = Accountant()
    mech.release(scores, accountant=roomy)
    assert roomy.total(delta=1e-9).epsilon == pytest.approx(1.0)
    p = mech.privacy
    assert p.delta == 0.0 and p.epsilon == 1.0 and p.exact is False


def test_a_zero_probability_candidate_is_never_selected():
    mech = ExponentialMechanism(epsilon=1.0)
    rel = mech.release(np.tile([0.0, -1e9, 0.0], (1, 1)), rng=1)
    assert ExponentialMechanism.indices(rel)[0] != 1
    idx = ExponentialMechanism.indices(ExponentialMechanism(epsilon=5000.0).release(
        np.tile([0.0, -1e9, 0.0], (5000, 1)), rng=2))
    assert not np.any(idx == 1)


@pytest.mark.parametrize("q,relation", [(0.5, "replace-one"), (0.25, "replace-one"),
                                        (0.5, "add-remove"), (0.9, "add-remove")])
def test_exact_privacy_loss_of_a_quantile_selection_on_neighbouring_tables(q, relation):
    """The exact log-ratio of the selection probabilities on neighbouring tables stays within
    epsilon, and comes close to it: a calibration off by a factor 2 (dropping the 2 of
    exp(eps u / 2 Delta)) would exceed epsilon on these pairs."""
    from matrixdp.calibration.quantile import quantile_utility_sensitivity
    from matrixdp.queries.quantile import quantile_scores

    rng = np.random.default_rng(11)
    grid = np.linspace(-3, 3, 61)
    eps = 0.8
    sens = quantile_utility_sensitivity(q, relation)
    mech = ExponentialMechanism(epsilon=eps, sensitivity=sens, neighbouring=relation)
    worst = 0.0
    for _ in range(40):
        X = rng.normal(size=(25, 1))
        Y = X.copy()
        if relation == "replace-one":
            Y[rng.integers(25)] = rng.choice([-10.0, 10.0])
        else:
            Y = np.vstack([X, [[rng.choice([-10.0, 10.0])]]])
        p = mech.probabilities(quantile_scores(X, grid, q))
        p2 = mech.probabilities(quantile_scores(Y, grid, q))
        worst = max(worst, float(np.max(np.abs(np.log(p) - np.log(p2)))))
    assert worst <= eps * (1 + 1e-9)
    assert worst > 0.5 * eps  # so the same check refutes a mechanism twice as loose


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_exact_privacy_loss_of_the_interval_quantile_on_point_mass_tables(relation):
    """The interval utilities of docs/bounds.md on the tables that broke the point form: a
    constant column off the grid, a 70% point mass, values on grid points. Every neighbouring
    pair (one record moved to each of several places, or added/removed) keeps the exact
    log-ratio of every selection probability within epsilon (uniform base measure, no width
    weighting), and some pair comes within a factor 2 of it."""
    from matrixdp.calibration.quantile import log_scale_grid, quantile_utility_sensitivity
    from matrixdp.queries.quantile import quantile_scores

    rng = np.random.default_rng(12)
    grid = log_scale_grid(per_decade=4, min_exponent=-1, max_exponent=2)
    eps = 1.0
    mech = ExponentialMechanism(epsilon=eps, sensitivity=quantile_utility_sensitivity(0.5,
                                                                                      relation),
                                neighbouring=relation)
    tables = [np.full(9, 5.0), np.full(9, 1.0),  # off and on a grid point
              np.where(rng.random(9) < 0.7, 3.0, rng.uniform(0, 10, 9))]
    worst = 0.0
    for x in tables:
        p = mech.probabilities(quantile_scores(x, grid, 0.5))
        for new in (-100.0, -0.05, 0.0, 1.0, 2.9, 3.0, 5.0, 7.0, 100.0):
            if relation == "replace-one":
                ys = [np.where(np.arange(9) == k, new, x) for k in (0, 8)]
            else:
                ys = [np.append(x, new), np.delete(x, 0)]
            for y in ys:
                p2 = mech.probabilities(quantile_scores(y, grid, 0.5))
                worst = max(worst, float(np.max(np.abs(np.log(p) - np.log(p2)))))
    assert worst <= eps * (1 + 1e-9)
    assert worst > 0.5 * eps
