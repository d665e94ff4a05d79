"""The floating-point attack (Mironov 2012) on both numerics, and the bit-level auditor.

Float path: value + noise is rounded to the float grid around the value, so some outputs can
only come from one neighbour. With value 0 the output is the noise itself (fine low bits); with
value 1 it is fl(1 + noise), always a multiple of 2^-53. The attack's event "the output has bits
below 2^-53" then has probability ~1/2 under one neighbour and 0 under the other: no finite
epsilon survives. Exact path: every output is a lattice point g*k that both neighbours produce."""

import numpy as np
import pytest

import matrixdp
from matrixdp.audit import audit_mechanism
from matrixdp.audit.statistics import named_statistic


@named_statistic("low-bits")
def low_bits(outputs, value, value_prime):
    """0 when the output has a bit below 2^-53 (only value 0 can produce it), else 1.

    Oriented as the auditor expects: large values point to value_prime (here 1).
    """
    y = np.asarray(outputs, dtype=float).reshape(len(outputs))
    scaled = y * 2.0 ** 53
    return (scaled == np.floor(scaled)).astype(float)


def attack(mech, n=40_000, seed=0):
    return audit_mechanism(mech, np.zeros(1), np.ones(1), statistic=low_bits, n_samples=n,
                           rng=seed, resolution=0)


@pytest.mark.parametrize("mech", [
    matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0),
    matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0),
], ids=["laplace", "gaussian"])
def test_low_bit_attack_refutes_the_float_path(mech):
    res = attack(mech)
    # the event is seen only under value 0, never under value 1
    assert not res.passed and res.epsilon_lower_bound > 5
    assert res.false_positives == 0 or res.false_negatives == 0


@pytest.mark.parametrize("mech", [
    matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0, numerics="exact"),
    matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0, numerics="exact"),
], ids=["laplace", "gaussian"])
def test_low_bit_attack_finds_nothing_on_the_exact_path(mech):
    res = attack(mech)
    assert res.passed and res.epsilon_lower_bound == 0.0


def test_bit_level_auditor_clears_exact_laplace_and_refutes_float_laplace():
    # resolution=0: the auditor sees every bit; the exact LLR statistic is the most powerful test
    exact = matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0, numerics="exact")
    flt = matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
    for seed in (0, 1):
        res = audit_mechanism(exact, np.zeros(1), np.ones(1), n_samples=100_000, rng=seed, resolution=0)
        assert res.passed, str(res)
    bits = audit_mechanism(flt, np.zeros(1), np.ones(1), n_samples=100_000, rng=0, resolution=0)
    assert not bits.passed and bits.epsilon_lower_bound > 1.1


def test_bit_level_auditor_clears_exact_gaussian():
    exact = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0, numerics="exact")
    res = audit_mechanism(exact, np.zeros(3), np.eye(3)[0], n_samples=100_000, rng=0, resolution=0)
    assert res.passed, str(res)
