"""Farokhi's Fisher noise with numerics="exact": whitened records on a lattice, exact discrete
Gaussian noise, coloured back; same (epsilon, delta), noise scaled by sigma_W."""

import math

import numpy as np
import pytest

from matrixdp.audit import audit_mechanism
from matrixdp.errors import InvalidParameterError
from matrixdp.mechanisms.fisher import FisherNoiseMechanism


def make(numerics, **kw):
    return FisherNoiseMechanism(epsilon=2.0, delta=1e-6, feature_ranges=[(0, 1), (-1, 2), (0, 5)],
                                weights=[[2.0, 0.3, 0.0], [0.3, 1.0, 0.1], [0.0, 0.1, 0.5]],
                                numerics=numerics, **kw)


def test_same_guarantee_with_noise_scaled_by_sigma_w():
    flt, ex = make("float"), make("exact")
    assert ex.privacy.epsilon == flt.privacy.epsilon and ex.privacy.delta == flt.privacy.delta
    assert ex.privacy.numerics == "exact" and ex.privacy.calibration == "discrete-zcdp"
    assert flt.privacy.numerics == "float"
    sigma_w = ex._lattice.noise_scale
    assert 1.0 < sigma_w < 1.15
    assert ex.noise_summary((10, 3)).per_entry_variance == pytest.approx(
        sigma_w ** 2 * flt.noise_summary((10, 3)).per_entry_variance)
    assert ex.privacy_profile(2.0) <= 1e-6
    X = np.random.default_rng(0).uniform([0, -1, 0], [1, 2, 5], size=(30_000, 3))
    noise = ex.release(X, rng=1).value - X
    emp = noise.var(axis=0).mean()
    want = ex.noise_summary((1, 3)).per_entry_variance
    tol = 5 * want * math.sqrt(2 / 30_000) * 2
    assert abs(emp - want) < tol and abs(emp - 1.3 ** 2 * want) > tol


def test_bit_level_audit_clears_the_exact_fisher_release():
    ex = make("exact")
    low, high = np.array([[0.0, -1.0, 0.0]]), np.array([[1.0, 2.0, 5.0]])
    res = audit_mechanism(ex, low, high, n_samples=40_000, rng=0, resolution=0)
    assert res.passed, str(res)


def test_exact_numerics_only_for_the_gaussian_kind():
    with pytest.raises(InvalidParameterError, match="numerics"):
        FisherNoiseMechanism(epsilon=2.0, feature_ranges=[(0, 1)], kind="laplace", numerics="exact")
