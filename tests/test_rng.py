import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.rng import is_secure, make_rng


def test_default_is_a_csprng_and_differs_between_calls():
    a, b = make_rng(), make_rng()
    assert is_secure(a) and is_secure(b)
    assert not np.array_equal(a.standard_normal(8), b.standard_normal(8))


def test_seed_repeats():
    assert np.array_equal(make_rng(42).standard_normal(8), make_rng(42).standard_normal(8))
    assert not np.array_equal(make_rng(42).standard_normal(8), make_rng(43).standard_normal(8))
    assert not is_secure(make_rng(42))


def test_generator_passes_through():
    gen = np.random.default_rng(0)
    assert make_rng(gen) is gen


@pytest.mark.parametrize("bad", [-1, 1.5, "seed", True, np.random.RandomState(0)])
def test_bad_rng(bad):
    with pytest.raises(InvalidParameterError, match="rng"):
        make_rng(bad)


def test_secure_stream_is_statistically_uniform():
    from scipy.stats import kstest

    u = make_rng().random(20000)
    assert kstest(u, "uniform").pvalue > 1e-6
