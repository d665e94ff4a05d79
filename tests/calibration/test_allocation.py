"""Directions, precision allocations and DP directions (spec mvg.md §4.5, §6, §11 items 8, 9, 12, 15)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from matrixdp.calibration import mvg_theorems as cal
from matrixdp.calibration.gaussian import analytic_gaussian_sigma, classic_gaussian_sigma
from matrixdp.models.dp_directions import (
    DPEigenDecomposition,
    dp_covariance_eigen,
    dp_svd_directions,
    gram_sensitivity,
)
from matrixdp.calibration.allocation import (
    PNRAllocation,
    binary_allocation,
    check_precision_allocation,
    max_pnr_allocation,
    theorem7_closed_form,
    uniform_allocation,
    variances_from_allocation,
    water_filling,
)
from matrixdp._linalg import check_directions, standard_directions
from matrixdp.errors import (
    InvalidParameterError,
    InvalidPrivacyParameterError,
    InvalidShapeError,
    NonFiniteInputError,
    OutOfBoundsError,
)
from matrixdp.mechanisms.base import PrivacyGuarantee


def _orthonormal(dim, seed):
    q, r = np.linalg.qr(np.random.default_rng(seed).standard_normal((dim, dim)))
    return q * np.sign(np.diagonal(r))


# ----------------------------------------------------------------------------- directions
def test_check_directions_accepts_orthonormal_and_standard_basis():
    q = _orthonormal(5, 0)
    assert np.array_equal(check_directions(q, 5), q)
    assert np.array_equal(check_directions(standard_directions(3), 3), np.eye(3))


@pytest.mark.parametrize("bad, error", [
    (1.01 * _orthonormal(4, 1), InvalidParameterError),                  # not unit norm
    (np.array([[1.0, 0.1, 0, 0], [0, 1.0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0]]), InvalidParameterError),
    (np.ones((4, 3)), InvalidShapeError),                                  # not square
    (np.eye(3), InvalidShapeError),                                        # wrong dim
    (np.where(np.eye(4) > 0, np.nan, 0.0), NonFiniteInputError),
])
def test_check_directions_rejects(bad, error):
    with pytest.raises(error) as info:
        check_directions(bad, 4, "directions")
    assert info.value.argument == "directions"


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
@pytest.fixture(scope="module")
def liver_like():
    rng = np.random.default_rng(42)
    basis = _orthonormal(6, 3)
    scales = np.array([0.5, 0.3, 0.15, 0.08, 0.05, 0.02])
    x = (rng.standard_normal((248, 6)) * scales) @ basis.T
    return np.clip(x, -1, 1), basis


def test_dp_svd_directions_shape_orthonormal_and_guarantee(liver_like):
    x, _ = liver_like
    w, privacy = dp_svd_directions(x, epsilon=0.2, delta=0.2 / 248, bounds=(-1, 1), rng=0)
    assert w.shape == (6, 6)
    check_directions(w, 6)
    assert isinstance(privacy, PrivacyGuarantee)
    assert (privacy.epsilon, privacy.delta) == (0.2, pytest.approx(0.2 / 248))
    assert privacy.calibration == "classic" and not privacy.exact
    w2, _ = dp_svd_directions(x, epsilon=0.2, delta=0.2 / 248, bounds=(-1, 1), rng=0, n_components=2)
    assert np.allclose(w2, w[:, :2])


def test_dp_covariance_noise_scale_is_from_public_bounds(liver_like):
    x, _ = liver_like
    result = dp_covariance_eigen(x, epsilon=0.2, delta=1e-3, bounds=(-1, 1), rng=1)
    assert isinstance(result, DPEigenDecomposition)
    assert result.sensitivity == 12.0      # 2 max||x||² = 2*6 for [-1, 1]^6 (spec §6.5)
    assert result.noise_scale == pytest.approx(classic_gaussian_sigma(0.2, 1e-3, 12.0))
    # the same for other data in the same bounds: nothing is read from the data
    other = dp_covariance_eigen(0.01 * x, epsilon=0.2, delta=1e-3, bounds=(-1, 1), rng=1)
    assert other.noise_scale == result.noise_scale
    analytic = dp_covariance_eigen(x, epsilon=2.0, delta=1e-3, norm_bound=2.0, calibration="analytic", rng=1)
    assert analytic.sensitivity == 8.0
    assert analytic.noise_scale == pytest.approx(analytic_gaussian_sigma(2.0, 1e-3, 8.0))
    assert gram_sensitivity(bounds=([-1, 0, -2], [1, 3, 1]), n_features=3) == 2 * (1 + 9 + 4)


def test_dp_covariance_noise_is_symmetric_gaussian_with_stated_scale(liver_like):
    x, _ = liver_like
    gram = x.T @ x
    sigma = classic_gaussian_sigma(0.5, 1e-3, 12.0)
    diffs = []
    for seed in range(300):
        r = dp_covariance_eigen(x, epsilon=0.5, delta=1e-3, bounds=(-1, 1), rng=seed)
        noisy = (r.directions * r.eigenvalues) @ r.directions.T
        diffs.append(noisy - gram)
    diffs = np.array(diffs)
    assert np.allclose(diffs, np.swapaxes(diffs, 1, 2), atol=1e-8)
    upper = diffs[:, np.triu_indices(6)[0], np.triu_indices(6)[1]]
    sd = upper.std()
    # 300 x 21 samples: relative sd error ~ 1/sqrt(2*6300) ~ 0.009
    assert abs(sd / sigma - 1) < 0.05
    assert abs(sd / (0.7 * sigma) - 1) > 0.2 and abs(sd / (1.3 * sigma) - 1) > 0.2
    assert abs(np.corrcoef(upper[:, 0], upper[:, 1])[0, 1]) < 0.2


def test_dp_directions_recover_true_basis_with_large_budget(liver_like):
    x, _ = liver_like
    lam, vecs = np.linalg.eigh(x.T @ x)
    exact = vecs[:, ::-1]
    w, _ = dp_svd_directions(x, epsilon=1e6, delta=0.1, bounds=(-1, 1), calibration="analytic", rng=2)
    assert abs(w[:, 0] @ exact[:, 0]) > 1 - 1e-6
    assert abs(w[:, 1] @ exact[:, 1]) > 1 - 1e-6
    # at a realistic budget the noise does move them (the test above is not vacuous)
    w_noisy, _ = dp_svd_directions(x, epsilon=0.2, delta=1e-3, bounds=(-1, 1), rng=2)
    assert abs(w_noisy[:, 5] @ exact[:, 5]) < 1 - 1e-3


def test_dp_directions_input_errors(liver_like):
    x, _ = liver_like
    with pytest.raises(OutOfBoundsError):
        dp_svd_directions(2 * x + 0.5, epsilon=0.2, delta=1e-3, bounds=(-1, 1), rng=0)
    clipped, _ = dp_svd_directions(2 * x + 0.5, epsilon=0.2, delta=1e-3, bounds=(-1, 1), clip=True, rng=0)
    check_directions(clipped, 6)
    with pytest.raises(OutOfBoundsError):
        dp_svd_directions(x, epsilon=0.2, delta=1e-3, norm_bound=0.1, rng=0)
    with pytest.raises(InvalidParameterError, match="never read") as info:
        dp_svd_directions(x, epsilon=0.2, delta=1e-3, rng=0)
    assert info.value.argument == "bounds"
    with pytest.raises(InvalidPrivacyParameterError) as info:
        dp_svd_directions(x, epsilon=0.0, delta=1e-3, bounds=(-1, 1), rng=0)
    assert info.value.argument == "epsilon"
    with pytest.raises(InvalidPrivacyParameterError):   # classic needs epsilon < 1
        dp_svd_directions(x, epsilon=2.0, delta=1e-3, bounds=(-1, 1), rng=0)
    with pytest.raises(InvalidShapeError) as info:
        dp_svd_directions(x, epsilon=0.2, delta=1e-3, bounds=([-1, -1], [1, 1]), rng=0)
    assert info.value.argument == "bounds"
    with pytest.raises(InvalidParameterError, match="lower must be"):
        dp_svd_directions(x, epsilon=0.2, delta=1e-3, bounds=(1, -1), rng=0)
    with pytest.raises(NonFiniteInputError):
        dp_svd_directions(np.where(x > 0.4, np.nan, x), epsilon=0.2, delta=1e-3, bounds=(-1, 1), rng=0)
    with pytest.raises(InvalidParameterError) as info:
        dp_svd_directions(x, epsilon=0.2, delta=1e-3, bounds=(-1, 1), n_components=7, rng=0)
    assert info.value.argument == "n_components"


def test_budget_split_composes_to_total():
    # §11.15: DP-SVD at (0.2ε, 0.2δ) plus MVG at (0.8ε, 0.8δ) sums to (ε, δ) by basic composition
    eps, delta = 1.0, 1 / 248
    _, svd_privacy = dp_svd_directions(np.zeros((5, 3)), epsilon=0.2 * eps, delta=0.2 * delta,
                                       bounds=(-1, 1), rng=0)
    assert svd_privacy.epsilon + 0.8 * eps == pytest.approx(eps)
    assert svd_privacy.delta + 0.8 * delta == pytest.approx(delta)


def test_binary_allocation_warns_on_fraction_like_tau():
    with pytest.warns(UserWarning, match="percentage"):
        theta = binary_allocation([0], 0.95, dim=3)
    assert theta[0] == pytest.approx(0.0095)


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
