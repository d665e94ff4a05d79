"""Long distribution tests of the exact integer samplers (10^6 draws each, marked slow).

Chi-squared against the exact pmf accepts the true parameter and rejects it 10% off either way;
the sample mean and variance agree with the closed forms within 5 standard errors."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from matrixdp.calibration.discrete import (
    discrete_gaussian_pmf,
    discrete_gaussian_variance,
    discrete_laplace_variance,
)
from matrixdp.mechanisms.exact_sampling import discrete_gaussian, discrete_laplace
from matrixdp.rng import make_rng

pytestmark = pytest.mark.slow

N = 1_000_000
ALPHA = 1e-4


def laplace_pmf(k, scale):
    q = math.exp(-1.0 / float(scale))
    return (1 - q) / (1 + q) * q ** np.abs(np.asarray(k, dtype=float))


def chi2_pvalue(draws, pmf):
    span = int(np.abs(draws).max()) + 1
    ks = np.arange(-span, span + 1)
    inner = ks[draws.size * pmf(ks) >= 20]
    a, b = int(inner.min()), int(inner.max())
    counts = np.bincount(np.clip(draws, a - 1, b + 1) - (a - 1), minlength=b - a + 3)
    far = 20 * span + 20
    expected = np.concatenate([[pmf(np.arange(-far, a)).sum()], pmf(np.arange(a, b + 1)),
                               [pmf(np.arange(b + 1, far)).sum()]])
    expected *= draws.size / expected.sum()
    return stats.chisquare(counts, expected).pvalue


def moments_ok(draws, pmf, var):
    ks = np.arange(-int(60 * math.sqrt(var)) - 60, int(60 * math.sqrt(var)) + 61)
    mu4 = float((ks.astype(float) ** 4 * pmf(ks)).sum())
    n = draws.size
    mean_ok = abs(draws.mean()) <= 5 * math.sqrt(var / n)
    var_ok = abs(np.mean(draws.astype(float) ** 2) - var) <= 5 * math.sqrt((mu4 - var ** 2) / n)
    return mean_ok and var_ok


@pytest.mark.parametrize("sigma2", [Fraction(10, 3), Fraction(400)])
def test_discrete_gaussian_million_draws(sigma2):
    draws = discrete_gaussian(N, sigma2, make_rng(11))
    assert chi2_pvalue(draws, lambda k: discrete_gaussian_pmf(k, sigma2)) > ALPHA
    for wrong in (0.9, 1.1):
        assert chi2_pvalue(draws, lambda k: discrete_gaussian_pmf(k, float(sigma2) * wrong ** 2)) < ALPHA
    var = discrete_gaussian_variance(sigma2)
    assert moments_ok(draws, lambda k: discrete_gaussian_pmf(k, sigma2), var)
    wrong_var = discrete_gaussian_variance(float(sigma2) * 0.9 ** 2)
    assert not moments_ok(draws, lambda k: discrete_gaussian_pmf(k, float(sigma2) * 0.81), wrong_var)


@pytest.mark.parametrize("sigma2", [Fraction(10, 3), Fraction(400), Fraction(3 * 2000 ** 2 + 1, 3)])
def test_table_sampler_million_draws_reject_a_sigma_two_percent_off(sigma2):
    # The default discrete_gaussian path for >= 64 draws is the table sampler (issue #27); at
    # 10^6 draws chi-squared against the exact pmf accepts the true sigma and rejects sigma +-2%.
    from matrixdp.mechanisms.exact_sampling import _table_plan

    assert _table_plan(sigma2) is not None
    draws = discrete_gaussian(N, sigma2, make_rng(21))
    if sigma2 > 10_000:       # wide support: bins of sigma/16 against the exact pmf summed per bin
        sigma = math.sqrt(sigma2)
        edges = np.round(np.arange(-5, 5.001, 1 / 16) * sigma).astype(np.int64)
        ks = np.arange(-int(12 * sigma), int(12 * sigma) + 1)

        def pvalue(s2):
            p = discrete_gaussian_pmf(ks, s2)
            exp = np.bincount(np.searchsorted(edges, ks, side="right"), weights=p, minlength=edges.size + 1)
            obs = np.bincount(np.searchsorted(edges, draws, side="right"), minlength=edges.size + 1)
            return stats.chisquare(obs, exp / exp.sum() * N).pvalue
    else:
        def pvalue(s2):
            return chi2_pvalue(draws, lambda k: discrete_gaussian_pmf(k, s2))
    assert pvalue(sigma2) > ALPHA
    for wrong in (0.98, 1.02):
        assert pvalue(float(sigma2) * wrong ** 2) < ALPHA


@pytest.mark.parametrize("scale", [Fraction(5, 2), Fraction(30)])
def test_discrete_laplace_million_draws(scale):
    draws = discrete_laplace(N, scale, make_rng(12))
    assert chi2_pvalue(draws, lambda k: laplace_pmf(k, scale)) > ALPHA
    for wrong in (0.9, 1.1):
        assert chi2_pvalue(draws, lambda k: laplace_pmf(k, float(scale) * wrong)) < ALPHA
    assert moments_ok(draws, lambda k: laplace_pmf(k, scale), discrete_laplace_variance(scale))


def test_secure_generator_draws_match_too():
    # the default CSPRNG feeds the same algorithm: same law
    draws = discrete_gaussian(N, Fraction(50), make_rng(None))
    assert chi2_pvalue(draws, lambda k: discrete_gaussian_pmf(k, 50.0)) > ALPHA / 10
