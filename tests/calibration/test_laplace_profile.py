"""Exact privacy profile of a Laplace release on a vector difference (composition of per-coordinate
Laplace losses), checked against closed forms and an independent Monte Carlo hockey-stick estimate."""

import builtins
import math

import numpy as np
import pytest

from matrixdp.audit import NoExactProfileError, laplace_delta
from matrixdp.calibration.laplace_profile import laplace_vector_delta, laplace_vector_delta_bounds
from matrixdp.errors import InvalidParameterError

pytest.importorskip("dp_accounting")


def mc_delta(epsilon, scale, difference, n=400_000, seed=0):
    """E_{y ~ value}[(1 − e^{ε − L(y)})_+] with L = log p(y|0)/p(y|d), by Monte Carlo."""
    d = np.ravel(difference)
    y = np.random.default_rng(seed).laplace(0.0, scale, size=(n, d.size))
    loss = np.sum(np.abs(y - d) - np.abs(y), axis=1) / scale
    terms = np.maximum(0.0, -np.expm1(epsilon - loss))
    return terms.mean(), terms.std() / math.sqrt(n)


def test_pure_case_is_exactly_zero_without_numerics():
    # ||d||_1 / b = 1 <= eps: the loss never exceeds eps.
    d = np.array([0.25, -0.25, 0.5])
    assert laplace_vector_delta(1.0, 1.0, d) == 0.0
    assert laplace_vector_delta_bounds(1.2, 1.0, d) == (0.0, 0.0)
    # Slightly above: no longer zero.
    assert laplace_vector_delta(0.99, 1.0, d) > 0.0


@pytest.mark.parametrize("eps0", [0.5, 1.0, 3.0])
def test_one_coordinate_matches_the_closed_form(eps0):
    for eps in (0.0, 0.2 * eps0, 0.7 * eps0):
        exact = laplace_delta(eps, eps0)
        lo, hi = laplace_vector_delta_bounds(eps, 1.0 / eps0, [1.0])
        assert lo <= exact * (1 + 1e-9) and exact <= hi * (1 + 1e-9)
        assert hi - lo < 2e-3 * max(exact, 1e-3)


@pytest.mark.parametrize("difference,scale,eps", [
    ([0.6, 0.6, 0.6, 0.6], 1.0, 1.0),          # 4 equal shifts, max loss 2.4 > 1
    ([0.9, -0.3, 0.3, 0.15], 0.5, 1.5),        # mixed magnitudes and signs, grouped compositions
])
def test_composition_matches_independent_monte_carlo_and_rejects_wrong_scales(difference, scale, eps):
    lo, hi = laplace_vector_delta_bounds(eps, scale, difference)
    mc, se = mc_delta(eps, scale, difference)
    assert lo <= hi and hi - lo < 0.01 * hi
    assert lo - 5 * se <= mc <= hi + 5 * se
    # The same check rejects the profile of a wrong noise scale.
    for wrong in (0.7, 1.3):
        lo_w, hi_w = laplace_vector_delta_bounds(eps, wrong * scale, difference)
        assert not (lo_w - 5 * se <= mc <= hi_w + 5 * se)


def test_ron_gauss_paper_witness_is_certifiably_refuted():
    # The paper's scale 2 sqrt(p)/(n eps) on the p^2-entry witness: delta(1) ~ 1.7e-7 > 0 certified
    # by the optimistic (lower) PLD bound; the corrected scale sqrt(2) p/(n eps) gives exactly 0.
    from matrixdp.synth import cov_sensitivity, cov_witness_pair

    p, n = 10, 1000
    a, b = cov_witness_pair(p)
    d = (np.outer(b, b) - np.outer(a, a)) / n
    lo, hi = laplace_vector_delta_bounds(1.0, cov_sensitivity(p, n, "paper"), d)
    assert 1e-7 < lo <= hi < 3e-7
    assert laplace_vector_delta(1.0, cov_sensitivity(p, n, "paper"), d) == hi
    assert laplace_vector_delta(1.0, cov_sensitivity(p, n, "corrected"), d) == 0.0


def test_without_dp_accounting_only_the_exact_zero_is_available(monkeypatch):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("dp_accounting"):
            raise ImportError("no dp_accounting")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    assert laplace_vector_delta(1.0, 1.0, [0.5, 0.5]) == 0.0
    with pytest.raises(NoExactProfileError, match="dp-accounting"):
        laplace_vector_delta(1.0, 1.0, [0.6, 0.6])


def test_input_validation():
    with pytest.raises(InvalidParameterError, match="difference"):
        laplace_vector_delta(1.0, 1.0, [0.0, 0.0])
    with pytest.raises(InvalidParameterError, match="difference"):
        laplace_vector_delta(1.0, 1.0, [np.nan, 1.0])
    with pytest.raises(ValueError, match="scale"):
        laplace_vector_delta(1.0, -1.0, [1.0])
    with pytest.raises(ValueError, match="epsilon"):
        laplace_vector_delta(-1.0, 1.0, [1.0])


def test_per_coordinate_scales_equal_rescaled_differences():
    d = np.array([0.9, -0.3, 0.3])
    scales = np.array([0.5, 1.0, 0.25])
    lo, hi = laplace_vector_delta_bounds(1.0, scales, d)
    assert (lo, hi) == pytest.approx(laplace_vector_delta_bounds(1.0, 1.0, d / scales), rel=1e-12)
    mc, se = mc_delta_scaled(1.0, scales, d)
    assert lo - 5 * se <= mc <= hi + 5 * se
    with pytest.raises(InvalidParameterError, match="scale"):
        laplace_vector_delta(1.0, [1.0, 2.0], d)


def mc_delta_scaled(epsilon, scales, d, n=400_000, seed=1):
    y = np.random.default_rng(seed).laplace(0.0, scales, size=(n, d.size))
    loss = np.sum((np.abs(y - d) - np.abs(y)) / scales, axis=1)
    terms = np.maximum(0.0, -np.expm1(epsilon - loss))
    return terms.mean(), terms.std() / math.sqrt(n)
