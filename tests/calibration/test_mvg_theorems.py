"""Theorem 2/3 precision budgets of the MVG mechanism (spec mvg.md §1.4, §2, §4, §11 items 1-6, 9)."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

from matrixdp.calibration import mvg_theorems as cal
from matrixdp.calibration.gaussian import gaussian_delta, gaussian_log_delta_for_shift
from matrixdp.calibration.allocation import (
    binary_allocation,
    uniform_allocation,
    variances_from_allocation,
)
from matrixdp.errors import InvalidParameterError, InvalidPrivacyParameterError, InvalidShapeError

SQ6 = math.sqrt(6.0)


# ----------------------------------------------------------------------------- §2.4 golden numbers
@pytest.mark.parametrize("r, h, h_half", [
    (2, 1.5, 1.70710678119), (3, 1.83333333333, 2.28445705038), (4, 2.0833333, 2.7844571),
    (6, 2.45, 3.6399189), (12, 3.1032107, 5.6111844), (13, 3.1801338, 5.8885345),
    (21, 3.6453587, 7.8134729)])
def test_harmonic_numbers_match_spec(r, h, h_half):
    assert cal.harmonic_number(r) == pytest.approx(h, rel=1e-7)
    assert cal.harmonic_number_half(r) == pytest.approx(h_half, rel=1e-7)


def test_harmonic_numbers_large_r_asymptotics_are_accurate():
    # the asymptotic branch (r > 1e6) must agree with the exact sum near the switch
    r = 1_000_000
    exact_h, exact_half = cal.harmonic_number(r), cal.harmonic_number_half(r)
    x = r + 1
    assert cal.harmonic_number(x) == pytest.approx(exact_h + 1 / x, rel=1e-13)
    assert cal.harmonic_number_half(x) == pytest.approx(exact_half + 1 / math.sqrt(x), rel=1e-13)
    assert float(mpmath.harmonic(r)) == pytest.approx(exact_h, rel=1e-14)


def test_zeta_formula_monotone_and_domain():
    assert cal.zeta_delta(1e-2, 2, 3) == pytest.approx(25.7233839115, rel=1e-10)
    assert cal.zeta_delta(1e-3, 3, 3) == pytest.approx(38.5850758672, rel=1e-10)
    assert cal.zeta_delta(1 / 248, 6, 248) == pytest.approx(1680.178528, rel=1e-9)
    assert cal.zeta_delta(1 / 10176, 4, 4) == pytest.approx(58.75739315, rel=1e-9)
    assert cal.zeta_delta(1 / 2126, 21, 2126) == pytest.approx(45831.0719, rel=1e-9)
    deltas = [0.9, 0.5, 1e-2, 1e-6, 1e-12, 1e-300]
    values = [cal.zeta_delta(d, 3, 4) for d in deltas]
    assert all(b > a for a, b in zip(values, values[1:]))
    for bad in (0, 1, -0.1, 1.5, float("nan")):
        with pytest.raises(InvalidPrivacyParameterError, match="delta"):
            cal.zeta_delta(bad, 2, 2)


def test_toy_case_theorem2():
    alpha, beta = cal.theorem2_coefficients(0.5, 1e-2, (2, 3), 1.0, 2.0)
    assert alpha == pytest.approx(18.8284271247, rel=1e-10)
    assert beta == pytest.approx(120.777814522, rel=1e-10)
    assert cal.theorem2_budget(0.5, 1e-2, (2, 3), 1.0, 2.0) == pytest.approx(6.83764746856e-05, rel=1e-10)


def test_toy_case_theorems_2_and_3_square():
    alpha, beta = cal.theorem2_coefficients(1.0, 1e-3, (3, 3), 0.5, 1.0)
    assert (alpha, beta) == (pytest.approx(5.95112371704, rel=1e-10), pytest.approx(122.524071663, rel=1e-10))
    omega, beta3 = cal.theorem3_coefficients(1.0, 1e-3, 3, 0.5, 1.0)
    assert omega == pytest.approx(3.66666666667, rel=1e-10)
    assert beta3 == pytest.approx(beta, rel=1e-15)
    b2 = cal.theorem2_budget(1.0, 1e-3, (3, 3), 0.5, 1.0)
    b3 = cal.theorem3_budget(1.0, 1e-3, 3, 0.5, 1.0)
    assert b2 == pytest.approx(2.66029203764e-04, rel=1e-10)
    assert b3 == pytest.approx(2.66190873113e-04, rel=1e-10)
    assert b3 > b2
    # a square shape tuple is accepted for r
    assert cal.theorem3_budget(1.0, 1e-3, (3, 3), 0.5, 1.0) == b3


EXPERIMENTS = {
    # name: (shape, s2, gamma, delta, alpha_or_omega, beta, budget, theorem)
    "exp1": ((6, 248), 2 * SQ6, math.sqrt(1488), 1 / 248, 9987.782703, 250500.0772, 6.374468606e-11, 2),
    "exp2_t2": ((4, 4), 8e4 / 10176, 4e4, 1 / 10176, 7.789774886e9, 3849.409929, 2.489498707e-10, 2),
    "exp2_t3": ((4, 4), 8e4 / 10176, 4e4, 1 / 10176, 2620545.073, 3849.409929, 1.655400917e-07, 3),
    "exp3": ((21, 2126), math.sqrt(21), math.sqrt(21 * 2126), 1 / 2126, 518650.4518, 2.225797068e7,
             8.07400209e-15, 2),
}


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_paper_experiment_budgets(name):
    shape, s2, gamma, delta, quad, beta, budget, theorem = EXPERIMENTS[name]
    if theorem == 2:
        coef = cal.theorem2_coefficients(1.0, delta, shape, s2, gamma)
        got = cal.theorem2_budget(1.0, delta, shape, s2, gamma)
    else:
        coef = cal.theorem3_coefficients(1.0, delta, shape[0], s2, gamma)
        got = cal.theorem3_budget(1.0, delta, shape[0], s2, gamma)
    assert coef[0] == pytest.approx(quad, rel=1e-9)
    assert coef[1] == pytest.approx(beta, rel=1e-9)
    assert got == pytest.approx(budget, rel=1e-7)


def test_unimodal_precision_budgets_of_experiments():
    p1 = cal.unimodal_precision_budget(1.0, 1 / 248, (6, 248), 2 * SQ6, math.sqrt(1488))
    assert p1 == pytest.approx(1.638461694e-23, rel=1e-7)
    p3 = cal.unimodal_precision_budget(1.0, 1 / 2126, (21, 2126), math.sqrt(21), math.sqrt(21 * 2126))
    assert p3 == pytest.approx(3.066298672e-32, rel=1e-7)
    b2 = cal.theorem2_budget(1.0, 1 / 248, (6, 248), 2 * SQ6, math.sqrt(1488))
    assert p1 == pytest.approx(b2 ** 2 / 248, rel=1e-14)


def _naive_budget_mp(quad, beta, eps, digits=50):
    with mpmath.workdps(digits):
        q, b, e = mpmath.mpf(quad), mpmath.mpf(beta), mpmath.mpf(eps)
        return (-b + mpmath.sqrt(b * b + 8 * q * e)) ** 2 / (4 * q * q)


def test_exp3_budget_against_50_digit_value():
    shape, s2, gamma, delta = (21, 2126), math.sqrt(21), math.sqrt(21 * 2126), 1 / 2126
    alpha, beta = cal.theorem2_coefficients(1.0, delta, shape, s2, gamma)
    reference = _naive_budget_mp(alpha, beta, 1.0)
    got = cal.theorem2_budget(1.0, delta, shape, s2, gamma)
    assert got == pytest.approx(float(reference), rel=1e-13)
    assert got == pytest.approx(8.07400209085e-15, rel=1e-11)
    # the naive double-precision form is off in the 7th digit: the stable form matters here
    naive = (-beta + math.sqrt(beta ** 2 + 8 * alpha)) ** 2 / (4 * alpha ** 2)
    assert abs(naive / float(reference) - 1) > 1e-8


def test_stable_form_agrees_with_naive_when_well_conditioned():
    for eps, delta, shape, s2, gamma in [(0.5, 1e-2, (2, 3), 1.0, 2.0), (5.0, 0.3, (1, 1), 1.0, 1.0),
                                         (50.0, 0.5, (2, 2), 0.1, 0.2)]:
        alpha, beta = cal.theorem2_coefficients(eps, delta, shape, s2, gamma)
        naive = (-beta + math.sqrt(beta ** 2 + 8 * alpha * eps)) ** 2 / (4 * alpha ** 2)
        assert cal.theorem2_budget(eps, delta, shape, s2, gamma) == pytest.approx(naive, rel=1e-9)
        assert cal.theorem2_budget(eps, delta, shape, s2, gamma) == pytest.approx(
            float(_naive_budget_mp(alpha, beta, eps)), rel=1e-13)


def test_equimodal_budget_is_b2_or_b3():
    args = (1.0, 1 / 10176, 4, 8e4 / 10176, 4e4)
    assert cal.equimodal_precision_budget(*args, theorem=2) == cal.theorem2_budget(
        1.0, 1 / 10176, (4, 4), 8e4 / 10176, 4e4)
    assert cal.equimodal_precision_budget(*args, theorem=3) == pytest.approx(1.655400917e-07, rel=1e-7)
    with pytest.raises(InvalidParameterError, match="theorem"):
        cal.equimodal_precision_budget(*args, theorem=4)


# ----------------------------------------------------------------------------- validity
@pytest.mark.parametrize("kwargs, argument", [
    (dict(epsilon=0), "epsilon"), (dict(epsilon=-1), "epsilon"), (dict(epsilon=float("inf")), "epsilon"),
    (dict(delta=0), "delta"), (dict(delta=1), "delta"), (dict(delta=1.2), "delta"),
    (dict(sensitivity=0), "sensitivity"), (dict(sensitivity=-1), "sensitivity"),
    (dict(gamma=None), "gamma"), (dict(gamma=0), "gamma"), (dict(gamma=0.4, sensitivity=1.0), "gamma"),
])
def test_invalid_privacy_arguments_are_named(kwargs, argument):
    base = dict(epsilon=1.0, delta=1e-3, shape=(3, 4), sensitivity=1.0, gamma=2.0)
    base.update(kwargs)
    with pytest.raises(InvalidPrivacyParameterError) as info:
        cal.theorem2_budget(**base)
    assert info.value.argument == argument
    r_args = dict(base, r=3)
    del r_args["shape"]
    with pytest.raises(InvalidPrivacyParameterError) as info:
        cal.theorem3_budget(**r_args)
    assert info.value.argument == argument


@pytest.mark.parametrize("shape", [(0, 3), (2,), "ab", (2.5, 3), (True, 2), (3, -1)])
def test_invalid_shapes(shape):
    with pytest.raises(InvalidParameterError):
        cal.theorem2_budget(1.0, 1e-3, shape, 1.0, 1.0)


def test_theorem3_rejects_non_square_shape():
    with pytest.raises(InvalidShapeError, match="square"):
        cal.theorem3_budget(1.0, 1e-3, (3, 4), 1.0, 1.0)


def test_sensitivity_equal_to_twice_gamma_is_allowed():
    assert cal.theorem2_budget(1.0, 1e-3, (2, 2), 2.0, 1.0) > 0


# ----------------------------------------------------------------------------- monotonicity, Thm 4
def test_budget_monotonicity():
    base = dict(epsilon=1.0, delta=1e-3, shape=(3, 5), sensitivity=1.0, gamma=4.0)
    b = cal.theorem2_budget(**base)
    assert cal.theorem2_budget(**dict(base, epsilon=1.5)) > b
    assert cal.theorem2_budget(**dict(base, delta=1e-2)) > b
    assert cal.theorem2_budget(**dict(base, sensitivity=1.5)) < b
    assert cal.theorem2_budget(**dict(base, gamma=5.0)) < b
    assert cal.theorem2_budget(**dict(base, shape=(4, 5))) < b
    assert cal.theorem2_budget(**dict(base, shape=(3, 6))) < b
    b3 = cal.theorem3_budget(1.0, 1e-3, 4, 1.0, 4.0)
    assert cal.theorem3_budget(2.0, 1e-3, 4, 1.0, 4.0) > b3
    assert cal.theorem3_budget(1.0, 1e-2, 4, 1.0, 4.0) > b3
    assert cal.theorem3_budget(1.0, 1e-3, 4, 1.5, 4.0) < b3
    assert cal.theorem3_budget(1.0, 1e-3, 4, 1.0, 5.0) < b3
    assert cal.theorem3_budget(1.0, 1e-3, 5, 1.0, 4.0) < b3


def test_theorem4_route2_b3_at_least_b2_when_sensitivity_le_gamma():
    for r, ratio, eps, delta in itertools.product([1, 2, 3, 5, 8, 20], [0.1, 0.5, 1.0], [0.1, 1, 10],
                                                  [1e-6, 1e-2]):
        gamma = 1.0
        b2 = cal.theorem2_budget(eps, delta, (r, r), ratio * gamma, gamma)
        b3 = cal.theorem3_budget(eps, delta, r, ratio * gamma, gamma)
        assert b3 >= b2 * (1 - 1e-12)


def test_theorem4_route1_r13_and_small_r_counterexample():
    # s2 <= sqrt(2) gamma and r >= 13 gives B3 >= B2 ...
    for r in (13, 14, 20, 40):
        b2 = cal.theorem2_budget(1.0, 1e-3, (r, r), 1.41, 1.0)
        assert cal.theorem3_budget(1.0, 1e-3, r, 1.41, 1.0) >= b2
    # ... the threshold is real: H_{12,1/2} < (2 sqrt 2 - 1) H_12 but not at 13
    assert cal.harmonic_number_half(12) < (2 * math.sqrt(2) - 1) * cal.harmonic_number(12)
    assert cal.harmonic_number_half(13) >= (2 * math.sqrt(2) - 1) * cal.harmonic_number(13)
    # ... and fails for small r with s2 close to sqrt(2) gamma
    assert cal.theorem2_budget(1.0, 1e-3, (1, 1), 1.4, 1.0) > cal.theorem3_budget(1.0, 1e-3, 1, 1.4, 1.0)


# ----------------------------------------------------------------------------- Algorithms 1 and 2
def _random_orthonormal(dim, rng):
    q, r = np.linalg.qr(rng.standard_normal((dim, dim)))
    return q * np.sign(np.diagonal(r))


def test_algorithm1_hits_theorem2_with_equality_and_rescaling_invariance():
    rng = np.random.default_rng(3)
    m, n = 5, 7
    args = (0.8, 1e-4, (m, n), 1.0, 3.0)
    p = cal.unimodal_precision_budget(*args)
    w = _random_orthonormal(m, rng)
    theta = binary_allocation([1, 3], 85, dim=m)
    variances = variances_from_allocation(theta, p)
    row_cov = (w * variances) @ w.T
    col_cov = np.eye(n)
    eig, vecs = np.linalg.eigh(row_cov)
    assert np.allclose(np.sort(eig), np.sort(variances), rtol=1e-10)
    assert np.allclose(row_cov @ w, w * variances, rtol=1e-9, atol=0)  # eigenvectors are W's columns
    b2 = cal.theorem2_budget(*args)
    value = cal.precision_norm_product(row_cov, col_cov)
    assert value == pytest.approx(b2, rel=1e-9)
    assert cal.precision_norm_product(2.5 * row_cov, col_cov / 2.5) == pytest.approx(value, rel=1e-9)
    strict = cal.precision_norm_product((w * variances_from_allocation(0.9 * theta, p)) @ w.T, col_cov)
    assert strict < b2 * (1 - 1e-3)
    over = cal.precision_norm_product((w * variances_from_allocation(1.1 * theta, p)) @ w.T, col_cov)
    assert over > b2


def test_algorithm2_hits_its_budget_with_equality():
    m = 4
    for theorem in (2, 3):
        p = cal.equimodal_precision_budget(1.0, 1e-3, m, 0.5, 1.0, theorem=theorem)
        row_cov = np.diag(variances_from_allocation(uniform_allocation(m), p))
        assert cal.precision_norm_product(row_cov, row_cov) == pytest.approx(p, rel=1e-9)
        # the i.i.d. special case: variance m / P
        assert row_cov[0, 0] == pytest.approx(math.sqrt(m / p), rel=1e-12)
        assert row_cov[0, 0] ** 2 == pytest.approx(m / p, rel=1e-12)


def test_iid_special_case_variance_algorithm1():
    m, n = 6, 248
    args = (1.0, 1 / 248, (m, n), 2 * SQ6, math.sqrt(1488))
    p = cal.unimodal_precision_budget(*args)
    b2 = cal.theorem2_budget(*args)
    v = variances_from_allocation(uniform_allocation(m), p)
    assert np.allclose(v, math.sqrt(m * n) / b2, rtol=1e-12)
    # spec §2.5: Exp I per-entry std about 7.78e5
    assert math.sqrt(v[0]) == pytest.approx(7.78e5, rel=5e-3)


def test_precision_norm_product_rejects_singular():
    from matrixdp.errors import NotPositiveSemidefiniteError

    with pytest.raises(NotPositiveSemidefiniteError) as info:
        cal.precision_norm_product(np.diag([1.0, 0.0]), np.eye(2))
    assert info.value.argument == "row_cov"


# ----------------------------------------------------------------------------- §2.6 soundness
def _delta_exact(eps, mu):
    return math.exp(gaussian_log_delta_for_shift(eps, mu))


def test_soundness_grid_worst_case_allocation():
    """Every (Σ, Ψ) accepted by Thm 2 / Thm 3 has exact δ(ε) <= δ (spec §2.6 grid)."""
    worst = 0.0
    for eps, delta, m, n, ratio in itertools.product(
            [1e-3, 0.01, 0.1, 0.5, 1, 2, 5, 10, 50, 100, 300],
            [1e-12, 1e-6, 1e-3, 0.01, 0.1, 0.5, 0.9, 0.99],
            [1, 2, 3, 5, 10, 30], [1, 2, 4, 10, 50], [0.5, 1, 2, 10, 1000]):
        s2, gamma = 1.0, ratio
        b2 = cal.theorem2_budget(eps, delta, (m, n), s2, gamma)
        # sup over accepted (Σ, Ψ) of σ1(Σ⁻¹)σ1(Ψ⁻¹) is B2: all precision in one direction
        mu = s2 * math.sqrt(b2)
        assert mu <= cal.theorem2_shift_bound(eps, delta, (m, n)) * (1 + 1e-12)
        ratio_2 = _delta_exact(eps, mu) / delta
        worst = max(worst, ratio_2)
        if m == n or n == 1:
            r = m
            b3 = cal.theorem3_budget(eps, delta, r, s2, gamma)
            mu3 = s2 * math.sqrt(b3)
            assert mu3 <= cal.theorem3_shift_bound(eps, delta, r) * (1 + 1e-12)
            worst = max(worst, _delta_exact(eps, mu3) / delta)
    assert worst <= 1.0
    assert worst < 0.03  # spec §2.6 found 0.023: the theorems are sound but very loose


def test_soundness_of_concrete_theorem_calibrated_covariances():
    """Build Σ (Algorithm 1 / 2) from random directions and allocations; check δ_exact via gaussian_delta."""
    rng = np.random.default_rng(11)
    for trial in range(40):
        m = int(rng.integers(1, 6))
        n = int(rng.integers(1, 8))
        eps = float(rng.choice([0.1, 1.0, 10.0, 100.0]))
        delta = float(rng.choice([1e-8, 1e-3, 0.3]))
        s2 = float(rng.uniform(0.1, 2))
        gamma = s2 * float(rng.uniform(0.5, 50))
        theta = rng.dirichlet(np.full(m, 0.3))
        theta = np.maximum(theta, 1e-12)
        theta /= theta.sum()
        w = _random_orthonormal(m, rng)
        p = cal.unimodal_precision_budget(eps, delta, (m, n), s2, gamma)
        row_cov = (w * variances_from_allocation(theta, p)) @ w.T
        lam_min = np.linalg.eigvalsh(row_cov)[0]
        mu = s2 / math.sqrt(lam_min * 1.0)
        assert gaussian_delta(eps, 1.0, mu) <= delta
        # equimodal, Theorem 3
        p3 = cal.equimodal_precision_budget(eps, delta, m, s2, gamma, theorem=3)
        row_cov3 = (w * variances_from_allocation(theta, p3)) @ w.T
        lam3 = np.linalg.eigvalsh(row_cov3)[0]
        assert gaussian_delta(eps, 1.0, s2 / lam3) <= delta


def test_shift_bound_alone_is_not_an_oracle_but_the_budget_is_sound_at_large_epsilon():
    # hunt HY: theorem2_shift_bound's docstring called it "a soundness oracle: the exact delta at
    # this shift is far below delta"; at (1, 1), eps=100, delta=0.5 that delta is ~1. The
    # mechanisms stay sound because B2 also keeps phi^2 <= 2 eps / alpha: checked to eps = 1e8.
    assert _delta_exact(100.0, cal.theorem2_shift_bound(100.0, 0.5, (1, 1))) > 0.5
    worst = 0.0
    for eps, delta, m, n, ratio in itertools.product(
            [300, 1e3, 1e4, 1e6, 1e8], [1e-12, 1e-6, 0.1, 0.5, 0.9, 0.99], [1, 2, 5, 30],
            [1, 2, 50], [0.5, 1, 1000]):
        mu = math.sqrt(cal.theorem2_budget(eps, delta, (m, n), 1.0, ratio))
        worst = max(worst, _delta_exact(eps, mu) / delta)
        if m == n:
            mu3 = math.sqrt(cal.theorem3_budget(eps, delta, m, 1.0, ratio))
            worst = max(worst, _delta_exact(eps, mu3) / delta)
    assert worst <= 1.0
