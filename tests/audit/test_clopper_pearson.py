"""Clopper–Pearson bounds: agreement with scipy on known counts, edge cases, coverage."""

import numpy as np
import pytest
from scipy import stats

from matrixdp.audit import clopper_pearson_interval, clopper_pearson_lower, clopper_pearson_upper
from matrixdp.errors import InvalidParameterError

COUNTS = [(0, 10), (1, 10), (5, 10), (10, 10), (3, 1000), (217, 10000), (0, 5000), (4999, 5000)]


@pytest.mark.parametrize("k,n", COUNTS)
def test_two_sided_matches_scipy_exact(k, n):
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    lo, hi = clopper_pearson_interval(k, n, 0.95)
    assert lo == pytest.approx(ci.low, rel=1e-7, abs=1e-15)
    assert hi == pytest.approx(ci.high, rel=1e-7, abs=1e-15)


@pytest.mark.parametrize("k,n", COUNTS)
@pytest.mark.parametrize("alpha", [0.05, 0.00625, 1e-4])
def test_one_sided_match_scipy(k, n, alpha):
    up = stats.binomtest(k, n, alternative="less").proportion_ci(1 - alpha, method="exact").high
    low = stats.binomtest(k, n, alternative="greater").proportion_ci(1 - alpha, method="exact").low
    assert clopper_pearson_upper(k, n, alpha) == pytest.approx(up, rel=1e-7, abs=1e-15)
    assert clopper_pearson_lower(k, n, alpha) == pytest.approx(low, rel=1e-7, abs=1e-15)


def test_known_closed_forms_and_vectorisation():
    # k = 0: upper = 1 − α^{1/n};  k = n: upper = 1, lower = α^{1/n}.
    assert clopper_pearson_upper(0, 5000, 0.01) == pytest.approx(1 - 0.01 ** (1 / 5000), rel=1e-10)
    assert clopper_pearson_upper(7, 7, 0.05) == 1.0
    assert clopper_pearson_lower(7, 7, 0.05) == pytest.approx(0.05 ** (1 / 7), rel=1e-10)
    assert clopper_pearson_lower(0, 7, 0.05) == 0.0
    ks = np.array([0, 3, 10])
    vec = clopper_pearson_upper(ks, np.array([10, 10, 10]), 0.05)
    assert np.allclose(vec, [clopper_pearson_upper(int(k), 10, 0.05) for k in ks])


def test_invalid_counts():
    for k, n in ((-1, 10), (11, 10), (0, 0)):
        with pytest.raises(InvalidParameterError):
            clopper_pearson_upper(k, n, 0.05)
    with pytest.raises(InvalidParameterError):
        clopper_pearson_upper(1.5, 10, 0.05)
    with pytest.raises(InvalidParameterError, match="alpha"):
        clopper_pearson_upper(1, 10, 1.5)


def test_upper_bound_coverage():
    # The one-sided bound covers p with probability >= 1 − α (exact, so also at small n).
    rng = np.random.default_rng(0)
    for p, n in ((0.01, 200), (0.3, 50), (0.9, 30)):
        k = rng.binomial(n, p, size=20_000)
        miss = np.mean(clopper_pearson_upper(k, np.full_like(k, n), 0.05) < p)
        assert miss <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 20_000)
