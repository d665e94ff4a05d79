from __future__ import annotations

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


def test_random_directions_are_orthonormal_and_sign_fixed():
    from matrixdp.rng import random_directions

    W = random_directions(7, 3, rng=11)
    assert W.shape == (7, 3) and np.allclose(W.T @ W, np.eye(3), atol=1e-12)
    assert random_directions(5, rng=0).shape == (5, 5)
    # the sign fix: Q diag(sign(diag R)) of the same Gaussian draw (the Haar law itself is
    # tested through RON-Gauss's projection, tests/synth/test_projection.py)
    g = np.random.default_rng(11).standard_normal((7, 3))
    q, r = np.linalg.qr(g, mode="reduced")
    assert np.array_equal(W, q * np.sign(np.diag(r)))
    with pytest.raises(InvalidParameterError, match="n_directions"):
        random_directions(3, 4)
    with pytest.raises(InvalidParameterError, match="dim"):
        random_directions(0)
