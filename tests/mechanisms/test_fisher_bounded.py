"""Bounded-support optimal noise (Theorem 2.6 / Corollary 2.7, corrected; spec §7, 12–16)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import trapezoid
from scipy.stats import kstest

from matrixdp.errors import InvalidParameterError
from matrixdp.mechanisms.fisher_bounded import BoundedOptimalNoise, box_ground_state


def test_normalised_nonnegative_zero_at_ends_and_samples_inside():
    noise = BoundedOptimalNoise(1.0, [-1.0, 0.0], [1.0, 3.0])
    for s in noise.states:
        assert trapezoid(s.pdf, s.grid) == pytest.approx(1.0, abs=1e-12)
        assert (s.pdf >= 0).all()
        assert s.pdf[0] == 0.0 and s.pdf[-1] == 0.0
    x = noise.sample(10_000, rng=0)
    assert (x >= noise.lower).all() and (x <= noise.upper).all()
    # the product density integrates to 1 on a 2-D grid
    g0, g1 = np.linspace(-1, 1, 401), np.linspace(0, 3, 401)
    pts = np.stack(np.meshgrid(g0, g1, indexing="ij"), axis=-1)
    assert trapezoid(trapezoid(noise.pdf(pts), g1, axis=1), g0) == pytest.approx(1.0, abs=1e-4)
    assert noise.pdf(np.array([[2.0, 1.0]]))[0] == 0.0


def test_samples_follow_grid_cdf_and_reject_wrong_scale():
    s = box_ground_state(1.0, 1.0, -3.0, 3.0)
    noise = BoundedOptimalNoise(1.0, -3.0, 3.0, n_features=1)
    x = noise.sample(10_000, rng=1)[:, 0]

    def cdf(t, scale=1.0):
        return np.interp(t / scale, s.grid, s.cdf)

    assert kstest(x, cdf).pvalue > 0.01
    for wrong in (0.7, 1.3):
        assert kstest(x, lambda t: cdf(t, wrong)).pvalue < 1e-4


def test_cos2_limit_small_lambda():
    s = box_ground_state(1e-8, 1.0, -1.0, 1.0)
    assert s.energy == pytest.approx(math.pi ** 2, rel=1e-6)
    assert s.fisher == pytest.approx(4 * math.pi ** 2 / 2.0 ** 2, rel=1e-5)
    assert s.second_moment == pytest.approx(4 * (1 / 12 - 1 / (2 * math.pi ** 2)), abs=1e-6)
    assert s.second_moment == pytest.approx(0.13069, abs=1e-5)
    assert np.abs(s.pdf - np.cos(math.pi * s.grid / 2) ** 2).max() < 1e-3


def test_cos2_limit_converges_as_lambda_shrinks():
    errs = [np.abs(box_ground_state(lam, 1.0, -1.0, 1.0).pdf
                   - np.cos(math.pi * np.linspace(-1, 1, 4002) / 2) ** 2).max()
            for lam in (10.0, 1.0, 0.1, 1e-3)]
    assert all(a > b for a, b in zip(errs, errs[1:]))


def test_large_box_recovers_gaussian():
    s = box_ground_state(1.0, 1.0, -10.0, 10.0)
    assert s.energy == pytest.approx(2.0, rel=1e-5)
    assert s.variance == pytest.approx(1.0, rel=1e-5)
    # catches the paper's z/n variable mix (A13): the literal form would give variance 20
    s = box_ground_state(0.01, 4.0, -20.0, 20.0)
    assert s.energy == pytest.approx(0.1, rel=1e-5)
    assert s.variance == pytest.approx(5.0, rel=1e-5)


@pytest.mark.parametrize("lam,theta,lo,hi", [(1.0, 1.0, -1.0, 1.0), (0.3, 2.0, -2.0, 5.0),
                                             (5.0, 0.5, 0.0, 3.0), (1e-3, 1.0, -4.0, 4.0)])
def test_energy_identity_and_lower_bound(lam, theta, lo, hi):
    s = box_ground_state(lam, theta, lo, hi)
    assert s.energy >= 2 * math.sqrt(lam / theta) * (1 - 1e-9)
    assert s.energy == pytest.approx(s.fisher / theta + lam * s.second_moment, rel=1e-5)


def test_known_values():
    s = box_ground_state(1.0, 1.0, -1.0, 1.0)
    assert s.energy == pytest.approx(10.000, abs=1e-3)
    assert s.fisher == pytest.approx(9.8699, abs=1e-3)
    assert s.second_moment == pytest.approx(0.1301, abs=1e-4)
    s = box_ground_state(1.0, 1.0, 0.0, 3.0)
    assert s.mean == pytest.approx(1.375, abs=1e-3)  # biased noise (A15)
    assert s.energy == pytest.approx(6.738, abs=1e-3)
    assert s.second_moment == pytest.approx(2.171, abs=1e-3)


def test_grid_refinement():
    a = box_ground_state(1.0, 1.0, -1.0, 2.0, n_grid=4000).energy
    b = box_ground_state(1.0, 1.0, -1.0, 2.0, n_grid=8000).energy
    assert abs(a - b) / b < 1e-5


def test_cost_is_sum_of_energies():
    noise = BoundedOptimalNoise(0.5, [-1.0, -2.0], [1.0, 2.0], weights=[1.0, 3.0])
    assert noise.cost == pytest.approx(noise.energies.sum(), rel=1e-5)


def test_bad_inputs():
    with pytest.raises(InvalidParameterError, match="weights"):
        BoundedOptimalNoise(1.0, [-1.0, -1.0], [1.0, 1.0], weights=[[2.0, 0.5], [0.5, 1.0]])
    with pytest.raises(InvalidParameterError, match="upper"):
        BoundedOptimalNoise(1.0, [0.0, 1.0], [1.0, 1.0])
    with pytest.raises(InvalidParameterError, match="lam"):
        BoundedOptimalNoise(0.0, -1.0, 1.0, n_features=1)
