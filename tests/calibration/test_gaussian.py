"""Gaussian calibration against closed forms and the independent dp-accounting oracle."""

import math

import numpy as np
import pytest
from scipy.stats import norm

from matrixdp.calibration import (
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    gaussian_delta,
    gaussian_epsilon,
    max_gaussian_shift,
)
from matrixdp.errors import InvalidPrivacyParameterError

dp_gauss = pytest.importorskip("dp_accounting.gaussian_mechanism")

EPSILONS = np.geomspace(0.01, 20, 15)
DELTAS = np.geomspace(1e-12, 0.1, 9)


def test_reference_value():
    assert analytic_gaussian_sigma(1.0, 1e-5, 1.0) == pytest.approx(3.7306, abs=5e-5)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_analytic_sigma_matches_dp_accounting(epsilon):
    for delta in DELTAS:
        ours = analytic_gaussian_sigma(epsilon, delta, 1.0)
        oracle = dp_gauss.get_sigma_gaussian(epsilon, delta)
        assert ours == pytest.approx(oracle, rel=1e-6), (epsilon, delta)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_epsilon_inverse_matches_dp_accounting(epsilon):
    for delta in DELTAS:
        sigma = analytic_gaussian_sigma(epsilon, delta, 1.0)
        assert gaussian_epsilon(delta, sigma, 1.0) == pytest.approx(epsilon, rel=1e-8)
        assert dp_gauss.get_epsilon_gaussian(sigma, delta) == pytest.approx(epsilon, rel=1e-6)


def test_delta_is_the_closed_form_profile():
    for eps, sigma, sens in [(0.5, 2.0, 1.0), (1.0, 3.0, 2.0), (3.0, 0.7, 0.5)]:
        a, b = sens / (2 * sigma), eps * sigma / sens
        closed = norm.cdf(a - b) - math.exp(eps) * norm.cdf(-a - b)
        assert gaussian_delta(eps, sigma, sens) == pytest.approx(closed, rel=1e-10)


def test_analytic_sigma_meets_delta_tightly():
    for eps in EPSILONS:
        for delta in DELTAS:
            sigma = analytic_gaussian_sigma(eps, delta, 1.7)
            assert gaussian_delta(eps, sigma, 1.7) == pytest.approx(delta, rel=1e-7)
            # 1% less noise already breaks the claim: the calibration is tight.
            assert gaussian_delta(eps, 0.99 * sigma, 1.7) > delta


def test_sigma_scales_linearly_with_sensitivity():
    assert analytic_gaussian_sigma(0.3, 1e-6, 5.0) == pytest.approx(
        5.0 * analytic_gaussian_sigma(0.3, 1e-6, 1.0), rel=1e-12)


def test_shift_is_inverse_of_sigma():
    assert max_gaussian_shift(1.0, 1e-5) == pytest.approx(1 / 3.7306316, rel=1e-6)


def test_delta_is_stable_in_the_far_tail():
    # Both terms of the profile are ~1e-137 here; the log-space form keeps the digits
    # that a naive Phi(a) - e^eps Phi(b) loses. Reference: mpmath at 50 digits.
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    eps, mu = 5.0, 0.2
    ncdf = lambda x: mpmath.ncdf(x)
    exact = ncdf(mu / 2 - eps / mu) - mpmath.e ** eps * ncdf(-mu / 2 - eps / mu)
    ours = gaussian_delta(eps, 1.0 / mu, 1.0)
    assert 0 < ours < 1e-100
    assert ours == pytest.approx(float(exact), rel=1e-9)
    sigma = analytic_gaussian_sigma(0.01, 1e-12, 1.0)
    assert gaussian_delta(0.01, sigma, 1.0) == pytest.approx(1e-12, rel=1e-6)


def test_classic_closed_form_and_looser_than_analytic():
    for eps in [0.01, 0.1, 0.5, 0.99]:
        for delta in DELTAS:
            classic = classic_gaussian_sigma(eps, delta, 2.0)
            assert classic == pytest.approx(2.0 * math.sqrt(2 * math.log(1.25 / delta)) / eps)
            assert classic >= analytic_gaussian_sigma(eps, delta, 2.0)
            assert gaussian_delta(eps, classic, 2.0) <= delta


@pytest.mark.parametrize("eps", [1.0, 2.0, 20.0])
def test_classic_refuses_epsilon_at_least_one(eps):
    with pytest.raises(InvalidPrivacyParameterError, match="epsilon"):
        classic_gaussian_sigma(eps, 1e-5, 1.0)


@pytest.mark.parametrize("func", [analytic_gaussian_sigma, classic_gaussian_sigma])
@pytest.mark.parametrize("args,name", [
    ((0.0, 1e-5, 1.0), "epsilon"), ((-1.0, 1e-5, 1.0), "epsilon"), ((math.inf, 1e-5, 1.0), "epsilon"),
    ((math.nan, 1e-5, 1.0), "epsilon"), ((0.5, 0.0, 1.0), "delta"), ((0.5, 1.0, 1.0), "delta"),
    ((0.5, 1.5, 1.0), "delta"), ((0.5, 1e-5, 0.0), "sensitivity"), ((0.5, 1e-5, -2.0), "sensitivity"),
    ((0.5, 1e-5, math.inf), "sensitivity"), (("1", 1e-5, 1.0), "epsilon"),
])
def test_bad_arguments_name_the_argument(func, args, name):
    with pytest.raises(InvalidPrivacyParameterError, match=name) as info:
        func(*args)
    assert isinstance(info.value, ValueError)
    assert info.value.argument == name


def test_profile_rejects_bad_sigma():
    with pytest.raises(InvalidPrivacyParameterError, match="sigma"):
        gaussian_delta(1.0, 0.0, 1.0)
    with pytest.raises(InvalidPrivacyParameterError, match="sigma"):
        gaussian_epsilon(1e-5, -1.0, 1.0)


@pytest.mark.parametrize("epsilon,delta", [(1e-4, 1e-300), (1e-3, 1e-50), (1e-6, 1e-10), (1e-8, 1e-300),
                                           (0.01, 1e-12), (1.0, 1e-5), (20.0, 1e-12), (50.0, 0.5)])
def test_calibration_never_claims_less_delta_than_it_has(epsilon, delta):
    # Regression: with tiny epsilon and delta the two terms of the profile nearly cancel and
    # double precision alone returned shifts whose true delta exceeded the claim by up to
    # 2.4e-6 relative. Truth: 100-digit arithmetic.
    mpmath = pytest.importorskip("mpmath")
    mu = max_gaussian_shift(epsilon, delta)
    with mpmath.workdps(100):
        e, m = mpmath.mpf(epsilon), mpmath.mpf(mu)
        true = mpmath.ncdf(m / 2 - e / m) - mpmath.exp(e) * mpmath.ncdf(-m / 2 - e / m)
        rel = float((true - delta) / delta)
    assert rel <= 0.0, rel          # never more delta than claimed
    assert rel > -1e-6, rel         # and still tight


@pytest.mark.parametrize("sens", [1e-3, 0.3, 1.0, 40.0, 1e3])
@pytest.mark.parametrize("delta", [1e-300, 1e-50, 1e-12, 1e-5, 0.1])
def test_reported_epsilon_never_understates_delta(sens, delta):
    # gaussian_epsilon's epsilon must have true delta <= the requested delta (100-digit truth).
    mpmath = pytest.importorskip("mpmath")
    eps = gaussian_epsilon(delta, 1.0, sens)
    with mpmath.workdps(100):
        e, m = mpmath.mpf(eps), mpmath.mpf(sens)
        true = mpmath.ncdf(m / 2 - e / m) - mpmath.exp(e) * mpmath.ncdf(-m / 2 - e / m)
        rel = float((true - delta) / delta)
    assert rel <= 0.0, rel
    if eps > 0:            # epsilon = 0 is returned only when delta(0) is already below delta
        assert rel > -1e-6, rel


# ------------------------------------------------- extreme public inputs (hunt HY, session 19)
def test_profile_at_huge_epsilon_is_zero_not_nan():
    # -inf - (-inf) made the profile NaN and the calibration's root finder fail
    assert gaussian_delta(1e300, 1.0, 1.0) == 0.0
    assert not math.isnan(gaussian_delta(1e200, 1e-3, 1.0))
    sigma = analytic_gaussian_sigma(1e300, 1e-6, 1.0)
    # mu* -> sqrt(2 eps) as eps grows: sigma = 1/sqrt(2e300), and the claim holds
    assert sigma == pytest.approx(1.0 / math.sqrt(2e300), rel=1e-6)
    assert gaussian_delta(1e300, sigma, 1.0) <= 1e-6
    # a wrong (30% smaller) sigma breaks the claim at a finite but large epsilon
    s = analytic_gaussian_sigma(1e20, 1e-6, 1.0)
    assert gaussian_delta(1e20, s, 1.0) <= 1e-6 < gaussian_delta(1e20, 0.7 * s, 1.0)


def test_profile_of_a_tiny_shift_does_not_overflow():
    # the extended-precision path squared 1/shift (OverflowError for shift 1e-300)
    d = gaussian_delta(0.0, 1e300, 1.0)   # shift 1e-300: delta(0) = 2 Phi(mu/2) - 1 ~ mu phi(0)
    assert d == pytest.approx(1e-300 * norm.pdf(0.0), rel=1e-6)
    assert gaussian_epsilon(1e-6, 1e300, 1.0) == 0.0


def test_epsilon_beyond_float_range_is_inf():
    # shift 1e300 needs eps ~ shift^2 / 2, beyond float64: inf, not a solver's ValueError
    assert gaussian_epsilon(1e-6, 1e-300, 1.0) == math.inf
    # a large but representable one is still found, and meets delta
    eps = gaussian_epsilon(1e-6, 1e-100, 1.0)
    assert math.isfinite(eps) and gaussian_delta(eps, 1e-100, 1.0) <= 1e-6


@pytest.mark.parametrize("args,name", [
    ((1.0, 1e-6, 1e300), "sensitivity"),      # sigma^2 overflows
    ((1e300, 1e-6, 1e-300), "sensitivity"),   # sigma underflows to 0: no noise
    ((1e20, 1e-6, 5e-324), "sensitivity"),
])
def test_analytic_sigma_that_under_or_overflows_is_refused(args, name):
    with pytest.raises(InvalidPrivacyParameterError, match=f"^{name}: .*(underflows|overflows)"):
        analytic_gaussian_sigma(*args)


def test_classic_sigma_that_overflows_is_refused():
    with pytest.raises(InvalidPrivacyParameterError, match="^sensitivity: .*overflows"):
        classic_gaussian_sigma(0.5, 1e-6, 1e300)
