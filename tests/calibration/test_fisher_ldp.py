"""Local DP of the optimal Gaussian noise: Theorem 2.5 versus the exact profile (spec §7, 5–11)."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import norm

from matrixdp.calibration.gaussian import gaussian_delta
from matrixdp.errors import InvalidParameterError, RefutedGuaranteeWarning
from matrixdp.calibration.fisher import optimal_gaussian_cov, spd_power
from matrixdp.calibration.fisher_ldp import (
    gaussian_ldp_delta,
    gaussian_ldp_epsilon,
    lambda_for_laplace_ldp,
    lambda_for_ldp,
    laplace_ldp_epsilon,
    norm_inf1,
    norm_inf2,
    paper_ldp_epsilon,
    whitened_sensitivity,
)


def _brute_inf2(a, n=200_000, seed=0):
    """Monte-Carlo lower estimate of ||A||_{inf,2} over the whole cube (not just vertices)."""
    x = np.random.default_rng(seed).uniform(-1, 1, (n, a.shape[1]))
    return float(np.sqrt(((x @ a.T) ** 2).sum(axis=1)).max())


def test_norm_inf2_diagonal_and_enumeration():
    a = spd_power(np.diag([4.0, 1.0]), 0.25)
    assert norm_inf2(a) == pytest.approx(math.sqrt(3.0))
    assert norm_inf2(np.eye(30)) == pytest.approx(math.sqrt(30))
    rng = np.random.default_rng(1)
    for _ in range(5):
        a = rng.standard_normal((4, 4))
        exact = max(np.linalg.norm(a @ np.array(v)) for v in itertools.product((-1, 1), repeat=4))
        assert norm_inf2(a) == pytest.approx(exact)
        assert _brute_inf2(a) <= exact + 1e-12
        bound, is_exact = norm_inf2(a, exact_max_p=2, return_exact=True)
        assert not is_exact and bound >= exact - 1e-12


def test_norm_inf1():
    assert norm_inf1(np.diag([1.0, -2.0])) == 3.0
    a = np.array([[1.0, 1.0], [1.0, -1.0]])
    assert norm_inf1(a) == pytest.approx(2.0)
    assert norm_inf1(a, exact_max_p=1) == pytest.approx(4.0)


@pytest.mark.parametrize("lam,paper,exact", [(1e-4, 0.8200, 0.4970), (1e-2, 2.5932, 1.7601),
                                              (1.0, 8.2004, 6.5730)])
def test_epsilon_values_2d(lam, paper, exact):
    assert paper_ldp_epsilon(lam, 1e-5, ranges=np.ones(2)) == pytest.approx(paper, abs=1e-4)
    assert gaussian_ldp_epsilon(lam, 1e-5, ranges=np.ones(2)) == pytest.approx(exact, abs=1e-4)
    assert 1 + math.sqrt(2 * math.log(1e5)) == pytest.approx(5.798526, abs=1e-6)


def test_paper_bound_sound_in_valid_regime():
    for d2 in np.linspace(0.05, 2.0, 12):
        for delta in (1e-12, 1e-8, 1e-5, 1e-3, 0.1):
            lam = (d2 / math.sqrt(2)) ** 4  # p = 2, unit ranges -> Delta_2 = d2
            eps = paper_ldp_epsilon(lam, delta, ranges=np.ones(2))
            assert gaussian_delta(eps, 1.0, d2) <= delta * (1 + 1e-9)


def test_paper_bound_fails_where_spec_says():
    ranges = np.ones(30)
    eps_paper = paper_ldp_epsilon(1.0, 1e-5, ranges=ranges)
    assert eps_paper == pytest.approx(31.76, abs=0.01)
    true_delta = gaussian_ldp_delta(eps_paper, 1.0, ranges=ranges)
    assert true_delta == pytest.approx(6.8e-4, rel=0.02)
    assert true_delta > 1e-5
    with pytest.warns(RefutedGuaranteeWarning):
        gaussian_ldp_epsilon(1.0, 1e-5, ranges=ranges, method="paper")
    exact = gaussian_ldp_epsilon(1.0, 1e-5, ranges=ranges)
    assert exact == pytest.approx(37.62, abs=0.01)
    assert gaussian_delta(exact, 1.0, whitened_sensitivity(1.0, ranges=ranges)) <= 1e-5 * (1 + 1e-9)
    # and the exact epsilon is tight: a bit less and delta is exceeded
    assert gaussian_delta(exact * 0.99, 1.0, math.sqrt(30)) > 1e-5


def test_no_warning_when_paper_bound_holds():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gaussian_ldp_epsilon(1.0, 1e-5, ranges=np.ones(2), method="paper")


def test_whitened_sensitivity_attained_at_vertex():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 3))
    pi = a @ a.T + np.eye(3)
    lam = 0.4
    d2 = whitened_sensitivity(lam, pi, np.ones(3))
    cov = optimal_gaussian_cov(lam, pi)
    w = spd_power(cov, -0.5)
    diffs = rng.uniform(-1, 1, (5000, 3))
    assert np.sqrt(((diffs @ w.T) ** 2).sum(axis=1)).max() <= d2 + 1e-12
    vertex_vals = [np.linalg.norm(w @ np.array(v)) for v in itertools.product((-1, 1), repeat=3)]
    assert max(vertex_vals) == pytest.approx(d2)


def test_ranges_scale_sensitivity():
    # a feature range of width R multiplies that coordinate's shift by R
    d_unit = whitened_sensitivity(1.0, ranges=[1.0, 1.0])
    d_wide = whitened_sensitivity(1.0, ranges=[3.0, 4.0])
    assert d_unit == pytest.approx(math.sqrt(2))
    assert d_wide == pytest.approx(5.0)


def test_hockey_stick_numerically_1d():
    d2, eps = 1.3, 0.8

    def integrand(t):
        return max(0.0, norm.pdf(t - d2) - math.exp(eps) * norm.pdf(t))

    numeric, _ = quad(integrand, -20, 20, points=[d2 / 2 + eps / d2], limit=200)
    lam = d2 ** 4  # p = 1, unit range
    assert gaussian_ldp_delta(eps, lam, ranges=[1.0]) == pytest.approx(numeric, rel=1e-6)


def test_lambda_for_ldp_round_trips():
    pi = np.diag([4.0, 1.0, 2.0])
    ranges = np.array([1.0, 2.0, 0.5])
    for eps, delta in [(0.5, 1e-6), (2.0, 1e-5), (8.0, 1e-3)]:
        lam = lambda_for_ldp(eps, delta, pi, ranges)
        assert gaussian_ldp_epsilon(lam, delta, pi, ranges) == pytest.approx(eps, rel=1e-8)
        lam_p = lambda_for_ldp(eps, delta, pi, ranges, method="paper")
        assert paper_ldp_epsilon(lam_p, delta, pi, ranges) == pytest.approx(eps, rel=1e-10)
        assert lam >= lam_p  # the exact calibration needs less noise in this regime


def test_laplace_ldp():
    assert laplace_ldp_epsilon(1e-4, ranges=np.ones(2)) == pytest.approx(0.2)
    assert laplace_ldp_epsilon(1.0, ranges=np.ones(2)) == pytest.approx(2.0)
    lam = lambda_for_laplace_ldp(1.5, np.diag([4.0, 1.0]), [2.0, 1.0])
    assert laplace_ldp_epsilon(lam, np.diag([4.0, 1.0]), [2.0, 1.0]) == pytest.approx(1.5)


def test_bad_ldp_inputs():
    with pytest.raises(InvalidParameterError, match="ranges"):
        whitened_sensitivity(1.0, ranges=None)
    with pytest.raises(InvalidParameterError, match="ranges"):
        whitened_sensitivity(1.0, ranges=[1.0, 0.0])
    with pytest.raises(InvalidParameterError, match="method"):
        gaussian_ldp_epsilon(1.0, 1e-5, ranges=[1.0], method="ntz")
    with pytest.raises(InvalidParameterError, match="delta"):
        gaussian_ldp_epsilon(1.0, 0.0, ranges=[1.0])
    with pytest.raises(InvalidParameterError, match="lam"):
        gaussian_ldp_epsilon(0.0, 1e-5, ranges=[1.0])


def test_crb_for_ldp_figures_1_and_2():
    # Fig. 1: lam^{1/4} ||Pi^{1/4}|| = 0.1 -> eps >= 0.57985 at delta = 1e-5
    assert paper_ldp_epsilon(1e-4, 1e-5, ranges=[1.0]) == pytest.approx(0.57985, abs=1e-5)
    # Fig. 2: normalisation Tr(Pi^{1/2}) ||Pi^{1/4}||^2 = 1 (p = 1): eps = 1, delta = 1e-5 -> 33.62
    from matrixdp.calibration.fisher_ldp import crb_for_ldp

    assert crb_for_ldp(1.0, 1e-5, ranges=[1.0], method="paper") == pytest.approx(33.62, abs=0.01)
    exact = crb_for_ldp(1.0, 1e-5, ranges=[1.0])
    assert exact < 33.62  # the exact calibration needs less noise here (low Delta_2)
    # Theta(ln(1/delta)): the ratio to ln(1/delta) settles, the ratio to ln^2 keeps falling
    vals = [crb_for_ldp(1.0, d, ranges=[1.0]) for d in (1e-10, 1e-20, 1e-40, 1e-80)]
    logs = [math.log(1 / d) for d in (1e-10, 1e-20, 1e-40, 1e-80)]
    r1 = [v / l_ for v, l_ in zip(vals, logs)]
    r2 = [v / l_ ** 2 for v, l_ in zip(vals, logs)]
    assert abs(r1[-1] / r1[-2] - 1) < 0.1
    assert r2[-1] / r2[-2] < 0.6
