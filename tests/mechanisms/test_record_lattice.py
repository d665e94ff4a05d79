"""Exact per-record correlated Gaussian noise (used for Farokhi's Fisher noise)."""

import itertools
import math

import numpy as np
import pytest

from matrixdp.audit import audit_mechanism
from matrixdp.mechanisms.base import PrivacyGuarantee
from matrixdp.mechanisms.record_lattice import (
    box_sensitivity,
    max_box_norm,
    record_lattice_plan,
    record_lattice_release,
)
from matrixdp.rng import make_rng


def spd(p, seed):
    m = np.random.default_rng(seed).normal(size=(p, p))
    return m @ m.T + p * np.eye(p)


def powers(pi, power):
    w, v = np.linalg.eigh(pi)
    return (v * w ** power) @ v.T


def test_box_sensitivity_is_the_vertex_maximum_and_bounds_random_pairs():
    a = powers(spd(4, 0), 0.25)
    widths = np.array([1.0, 2.0, 0.5, 1.5])
    s = box_sensitivity(a, widths)
    brute = max(np.linalg.norm(a @ (widths * np.array(sg))) for sg in itertools.product((-1, 1), repeat=4))
    assert s == pytest.approx(brute, rel=1e-5) and s >= brute
    d = (np.random.default_rng(1).uniform(-1, 1, size=(5000, 4))) * widths
    assert np.max(np.linalg.norm(d @ a.T, axis=1)) <= s
    # beyond 16 features: a valid upper bound
    big = np.eye(20)
    assert box_sensitivity(big, np.ones(20)) >= math.sqrt(20)


@pytest.mark.parametrize("p", [17, 20, 24])
def test_box_sensitivity_beyond_16_features_bounds_every_vertex_of_a_correlated_whitening(p):
    # Pi = 0.2 I + 0.8 11^T (public weights that correlate the features): A = Pi^(1/4) has a
    # dominant all-ones direction, so the all-ones vertex reaches ||A 1|| ~ sqrt(p) ||A||_F-ish;
    # the p > 16 bound once used ||A diag(R)||_F, 2.5x below it at p = 20 (hunt DH)
    pi = 0.2 * np.eye(p) + 0.8 * np.ones((p, p))
    a = powers(pi, 0.25)
    widths = np.linspace(0.5, 2.0, p)
    s = box_sensitivity(a, widths)
    ones = float(np.linalg.norm(a @ widths))
    assert s >= ones
    signs = np.random.default_rng(p).choice([-1.0, 1.0], size=(2000, p))
    assert s >= float(np.max(np.linalg.norm((signs * widths) @ a.T, axis=1)))
    # and not vacuous: within a factor sqrt(p) of the attained vertex value
    assert s <= math.sqrt(p) * ones
    # a plan at these weights keeps the float path's sensitivity: never below it
    from matrixdp.calibration.fisher_ldp import norm_inf2
    assert s >= norm_inf2(a * widths[None, :])


class _Mech:
    """A minimal auditable wrapper around a record plan (one record per release)."""

    def __init__(self, plan, eps, delta):
        self.plan = plan
        self.privacy = PrivacyGuarantee(epsilon=eps, delta=delta, neighbouring="local")

    def release_batch(self, value, n, rng=None):
        X = np.broadcast_to(np.asarray(value, float), (n,) + np.shape(value))
        return record_lattice_release(X, self.plan, make_rng(rng))


def test_exact_record_release_is_coloured_lattice_noise_and_passes_the_bit_level_audit():
    pi = spd(3, 2)
    whiten, colour = powers(pi, 0.25), powers(pi, -0.25)
    low, high = np.zeros(3), np.ones(3)
    plan = record_lattice_plan(whiten, colour, high - low, max_box_norm(low, high), 1.0, 1e-5)
    assert plan.sensitivity_bound >= box_sensitivity(whiten, high - low)
    # analytic float sigma would be 3.7306 x the sensitivity at (1, 1e-5): the exact path costs < 15%
    assert 1.0 < plan.noise_scale / (3.7306 * plan.sensitivity_bound) < 1.15
    X = np.random.default_rng(3).uniform(size=(40_000, 3))
    Y = record_lattice_release(X, plan, make_rng(4))
    noise = Y - X
    cov = np.cov(noise.T)
    expected = plan.noise_scale ** 2 * colour @ colour.T
    assert np.allclose(cov, expected, rtol=0.05, atol=0.05 * np.max(np.abs(expected)))
    assert not np.allclose(cov, 1.3 ** 2 * expected, rtol=0.05, atol=0.05 * np.max(np.abs(expected)))
    w = (Y @ np.linalg.inv(colour).T) / plan.lattice.granularity
    assert np.max(np.abs(w - np.rint(w))) < 1e-6
    mech = _Mech(plan, 1.0, 1e-5)
    res = audit_mechanism(mech, low, high, n_samples=60_000, rng=0, resolution=0)
    assert res.passed, str(res)
