"""Precision allocations: validation, binary, water-filling / max-PNR (Theorem 7) and the exact-budget allocations (spec mvg.md §4.5, §6, §11 items 8, 9)."""

from __future__ import annotations

import math
import warnings
import numpy as np
import pytest

from matrixdp.calibration import mvg_theorems as cal
from matrixdp.calibration.allocation import (
    PNRAllocation,
    binary_allocation,
    check_precision_allocation,
    exact_max_pnr_allocation,
    max_pnr_allocation,
    mse_optimal_allocation,
    theorem7_closed_form,
    uniform_allocation,
    variances_from_allocation,
    water_filling,
)
from matrixdp.errors import InvalidParameterError, InvalidShapeError, NonFiniteInputError


def _orthonormal(dim, seed):
    q, r = np.linalg.qr(np.random.default_rng(seed).standard_normal((dim, dim)))
    return q * np.sign(np.diagonal(r))


# ----------------------------------------------------------------------------- directions
# ----------------------------------------------------------------------------- θ validation
def test_check_precision_allocation_valid_and_warns_on_unused_budget():
    theta = np.array([0.5, 0.25, 0.25])
    assert np.array_equal(check_precision_allocation(theta, 3), theta)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_precision_allocation(theta * (1 + 1e-12), 3)  # rounding above 1 is fine
    with pytest.warns(UserWarning, match="unused"):
        check_precision_allocation(theta * 0.9, 3)


@pytest.mark.parametrize("theta, error", [
    ([0.6, 0.5, -0.1], InvalidParameterError),
    ([0.5, 0.5, 0.0], InvalidParameterError),
    ([0.5, 0.4, 0.2], InvalidParameterError),    # sum 1.1
    ([0.5, 0.5], InvalidShapeError),
    ([[0.5, 0.25, 0.25]], InvalidShapeError),
    ([0.5, np.nan, 0.25], NonFiniteInputError),
])
def test_check_precision_allocation_rejects(theta, error):
    with pytest.raises(error) as info:
        check_precision_allocation(theta, 3)
    assert info.value.argument == "precision"


def test_variances_from_allocation_algorithm1_step3():
    theta = np.array([0.5, 0.3, 0.2])
    v = variances_from_allocation(theta, 4.0)
    assert np.allclose(v, 1 / np.sqrt(theta * 4.0))
    assert math.fsum(1 / v ** 2) == pytest.approx(4.0)   # the precision budget is spent exactly


# ----------------------------------------------------------------------------- binary
@pytest.mark.parametrize("tau", [55, 65, 75, 85, 95])
def test_binary_allocation_properties(tau):
    theta = binary_allocation([0, 4], tau, dim=6)
    assert math.fsum(theta) == pytest.approx(1.0, abs=1e-15)
    assert np.allclose(theta[[0, 4]], tau / 200)
    assert np.allclose(theta[[1, 2, 3, 5]], (1 - tau / 100) / 4)
    assert np.all((theta > 0) & (theta < 1))
    check_precision_allocation(theta, 6)


def test_binary_allocation_exp1_example_and_mask():
    # Exp I at tau = 95: ALT and Y get 0.475, the four others 0.0125
    theta = binary_allocation([2, 5], 95, dim=6)
    assert np.allclose(theta, [0.0125, 0.0125, 0.475, 0.0125, 0.0125, 0.475])
    mask = np.array([False, False, True, False, False, True])
    assert np.allclose(binary_allocation(mask, 95), theta)


@pytest.mark.parametrize("kwargs, argument", [
    (dict(important=[0], tau=0, dim=3), "tau"),
    (dict(important=[0], tau=100, dim=3), "tau"),
    (dict(important=[0], tau=-5, dim=3), "tau"),
    (dict(important=[], tau=80, dim=3), "important"),
    (dict(important=[0, 1, 2], tau=80, dim=3), "important"),
    (dict(important=[3], tau=80, dim=3), "important"),
    (dict(important=[1, 1], tau=80, dim=3), "important"),
    (dict(important=[0.5], tau=80, dim=3), "important"),
    (dict(important=[0], tau=80), "dim"),
])
def test_binary_allocation_errors(kwargs, argument):
    with pytest.raises(InvalidParameterError) as info:
        binary_allocation(**kwargs)
    assert info.value.argument == argument


def test_uniform_allocation_gives_iid_variance():
    # §4.4 / §11.9: uniform θ gives variance sqrt(mn)/B2 in Algorithm 1
    m, n = 3, 10
    p = cal.unimodal_precision_budget(1.0, 1e-3, (m, n), 1.0, 2.0)
    b2 = cal.theorem2_budget(1.0, 1e-3, (m, n), 1.0, 2.0)
    assert np.allclose(variances_from_allocation(uniform_allocation(m), p), math.sqrt(m * n) / b2)


# ----------------------------------------------------------------------------- water-filling
def _objective(x, a):
    return float(np.sum(np.log(x + a)))


@pytest.mark.parametrize("total", [1e-12, 0.05, 0.7, 5.0, 100.0])
def test_water_filling_feasible_kkt_and_optimal(total):
    rng = np.random.default_rng(int(total * 1000) + 1)
    a = rng.uniform(0.1, 2.0, size=7)
    x, level = water_filling(a, total)
    assert np.all(x >= 0)
    assert math.fsum(x) == pytest.approx(total, rel=1e-12)
    active = x > 0
    assert np.allclose(x[active] + a[active], level, rtol=1e-12)   # KKT: equal water level
    assert np.all(a[~active] >= level - 1e-15)                      # inactive are above it
    best = _objective(x, a)
    for _ in range(200):
        y = rng.dirichlet(np.ones(7)) * total
        assert _objective(y, a) <= best + 1e-12


def test_water_filling_matches_closed_form_when_all_positive():
    a = np.array([0.2, 0.5, 0.9, 1.0])
    total = 5.0
    x, _ = water_filling(a, total)
    assert np.allclose(x, theorem7_closed_form(a, total), rtol=1e-12)


def test_closed_form_raises_when_an_entry_is_not_positive():
    a = np.array([0.2, 0.5, 0.9, 1.0])
    with pytest.raises(InvalidParameterError, match="non-positive") as info:
        theorem7_closed_form(a, 0.1)
    assert info.value.argument == "total"


def test_water_filling_infinite_offsets_get_nothing():
    x, _ = water_filling(np.array([1.0, np.inf, 2.0]), 3.0)
    assert x[1] == 0 and math.fsum(x) == pytest.approx(3.0)


# ----------------------------------------------------------------------------- max-PNR
PAPER_P = cal.unimodal_precision_budget(1.0, 1 / 248, (6, 248), 2 * math.sqrt(6), math.sqrt(1488))
SIGNAL = np.array([29.0, 25.0, 22.0, 19.0, 17.0, 15.0])   # spec §6.3 illustration


def test_max_pnr_at_paper_budget_puts_everything_on_top_direction():
    details = max_pnr_allocation(SIGNAL, PAPER_P, return_details=True, rule="floor")
    assert isinstance(details, PNRAllocation)
    assert details.n_active == 1 and details.precisions[0] > 0
    assert math.fsum(details.precisions) == pytest.approx(math.sqrt(PAPER_P), rel=1e-10)
    with pytest.raises(InvalidParameterError, match="zero precision"):
        max_pnr_allocation(SIGNAL, PAPER_P, rule="waterfill")
    with pytest.raises(InvalidParameterError, match="non-positive"):
        max_pnr_allocation(SIGNAL, PAPER_P, rule="closed_form")


@pytest.mark.parametrize("rule", ["floor", "mix", "proportional"])
def test_max_pnr_rules_give_strictly_positive_theta_summing_to_one(rule):
    theta = max_pnr_allocation(SIGNAL, PAPER_P, rule=rule)
    assert np.all(theta > 0)
    assert math.fsum(theta) == pytest.approx(1.0, abs=1e-14)
    check_precision_allocation(theta, SIGNAL.size)
    assert np.all(np.diff(theta) <= 1e-15)          # more signal, more precision
    assert theta[0] > 1 / SIGNAL.size


def test_max_pnr_floor_mix_and_proportional_values():
    m = SIGNAL.size
    floor = max_pnr_allocation(SIGNAL, PAPER_P, rule="floor", min_share=0.02)
    expected = np.array([1.0] + [0.02] * (m - 1))
    assert np.allclose(floor, expected / expected.sum())
    default_floor = max_pnr_allocation(SIGNAL, PAPER_P)
    expected = np.array([1.0] + [0.1 / m] * (m - 1))
    assert np.allclose(default_floor, expected / expected.sum())
    mix = max_pnr_allocation(SIGNAL, PAPER_P, rule="mix", mix=0.3)
    assert np.allclose(mix, 0.7 * np.eye(m)[0] + 0.3 / m)
    prop = max_pnr_allocation(SIGNAL, PAPER_P, rule="proportional")
    assert np.allclose(prop, SIGNAL ** 2 / np.sum(SIGNAL ** 2))


def test_max_pnr_large_budget_exact_waterfill_and_conversion():
    # a large budget keeps every direction active: θ_i = x_i² / Σ x_j² with x the water-filling
    lam = np.array([4.0, 2.0, 1.0])
    p = 100.0
    theta = max_pnr_allocation(lam, p, rule="waterfill")
    x, _ = water_filling(1 / lam, math.sqrt(p))
    assert np.all(x > 0)
    assert np.allclose(theta, x ** 2 / np.sum(x ** 2))
    assert np.allclose(max_pnr_allocation(lam, p, rule="closed_form"), theta)
    # the L2 budget is met: Σ 1/σ_i² = Σ θ_i P = P, and the L1-relaxed precisions were within sqrt(P)
    assert math.fsum(1 / variances_from_allocation(theta, p) ** 2) == pytest.approx(p)


def test_max_pnr_non_positive_signal_means_no_signal():
    theta = max_pnr_allocation(np.array([3.0, -0.5, 1.0]), 1e-6, rule="floor")
    assert np.all(theta > 0) and theta[1] == theta.min()


@pytest.mark.parametrize("kwargs, argument", [
    (dict(signal_variances=[1.0, 2.0], precision_budget=0.0), "precision_budget"),
    (dict(signal_variances=[-1.0, 0.0], precision_budget=1.0), "signal_variances"),
    (dict(signal_variances=[1.0, np.nan], precision_budget=1.0), "signal_variances"),
    (dict(signal_variances=[1.0, 2.0], precision_budget=1.0, rule="best"), "rule"),
    (dict(signal_variances=[1.0, 2.0], precision_budget=1.0, min_share=0.9), "min_share"),
    (dict(signal_variances=[1.0, 2.0], precision_budget=1.0, rule="mix", mix=1.5), "mix"),
    (dict(signal_variances=[1.0, -2.0], precision_budget=1.0, rule="proportional"), "signal_variances"),
])
def test_max_pnr_errors(kwargs, argument):
    with pytest.raises(InvalidParameterError) as info:
        max_pnr_allocation(**kwargs)
    assert info.value.argument == argument


# ----------------------------------------------------------------------------- DP directions
def test_binary_allocation_warns_on_fraction_like_tau():
    with pytest.warns(UserWarning, match="percentage"):
        theta = binary_allocation([0], 0.95, dim=3)
    assert theta[0] == pytest.approx(0.0095)


def test_mse_optimal_allocation_beats_iid():
    rng = np.random.default_rng(5)
    for _ in range(20):
        c = rng.uniform(0.1, 10, 6)
        theta = mse_optimal_allocation(c)
        assert theta.sum() == pytest.approx(1.0)
        total_opt = np.sum(c / theta)            # budget B = 1
        total_iid = len(c) * c.sum()             # equal precisions p = 1/sum(c)
        assert total_opt <= total_iid * (1 + 1e-12)
        other = rng.dirichlet(np.ones(6))
        assert total_opt <= np.sum(c / other) * (1 + 1e-12)


def test_exact_max_pnr_allocation_is_optimal_and_positive():
    rng = np.random.default_rng(6)
    c = rng.uniform(0.5, 2, 5)
    lam = rng.uniform(0.1, 5, 5)
    budget = 50.0
    theta = exact_max_pnr_allocation(lam, c, budget, rule="waterfill")
    assert theta.sum() == pytest.approx(1.0) and np.all(theta > 0)

    def objective(th):
        return np.sum(np.log1p(lam * th * budget / c))

    for _ in range(200):
        assert objective(theta) >= objective(rng.dirichlet(np.ones(5))) - 1e-12
    floored = exact_max_pnr_allocation(np.array([100.0, 1e-6, 1e-6]), np.ones(3), 1e-3)
    assert np.all(floored > 0) and floored.sum() == pytest.approx(1.0)
    with pytest.raises(InvalidParameterError):
        exact_max_pnr_allocation(np.array([100.0, 1e-6, 1e-6]), np.ones(3), 1e-3, rule="waterfill")
