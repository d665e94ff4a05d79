"""R1SMG calibration: ψ, σ*, the paper's constants and moment ratios, and the true profile.

Golden values are from the spec (shared/specs/r1smg.md §2.7, §8.1, §9).
"""

import math

import numpy as np
import pytest
from scipy import special, stats

from matrixdp.calibration.gaussian import analytic_gaussian_sigma
from matrixdp.calibration.r1smg import (
    Remark1Warning,
    gaussian_loss_kurtosis,
    gaussian_loss_raw_moments,
    gaussian_loss_skewness,
    iid_gaussian_kurtosis,
    iid_gaussian_skewness,
    lemma2_angle_bound,
    paper_analytic_constant,
    paper_classic_constant,
    paper_mvg_constant,
    r1smg_accuracy_loss_constant,
    r1smg_ball_delta_lower_bound,
    r1smg_equivalent_gaussian_epsilon,
    r1smg_expected_accuracy_loss,
    r1smg_kurtosis,
    r1smg_log_noise_density,
    r1smg_log_psi,
    r1smg_privacy_loss,
    r1smg_psi,
    r1smg_sigma_star,
    r1smg_skewness,
    r1smg_theta0,
    r1smg_true_delta,
)
from matrixdp.errors import InvalidParameterError, InvalidPrivacyParameterError


# ------------------------------------------------------------------ T-C1..C4
@pytest.mark.parametrize("delta", [0.9, 0.1, 1e-5, 1e-10])
def test_psi_closed_forms_at_m3_m4(delta):
    assert r1smg_psi(3, delta) == pytest.approx((2 * delta / math.pi) ** 2, rel=1e-12)
    assert r1smg_psi(4, delta) == pytest.approx(delta / 2, rel=1e-12)


@pytest.mark.parametrize("dim,delta,expected", [
    (10, 1e-5, 0.0406644), (100, 1e-5, 0.75096), (1000, 1e-5, 0.970014),
    (7921, 1e-7, 0.994752), (100, 1e-10, 0.593712), (5, 1e-7, 1.21673e-5),
    (20, 1e-7, 0.138331), (10**6, 1e-5, 0.999963)])
def test_psi_table(dim, delta, expected):
    assert r1smg_psi(dim, delta) == pytest.approx(expected, rel=1e-5)


def test_psi_range_and_monotonicity():
    dims = np.array([3, 4, 5, 10, 50, 100, 1000, 10**4, 10**5, 10**6])
    for delta in (0.9, 0.5, 1e-3, 1e-10):
        psi = np.array([r1smg_psi(int(m), delta) for m in dims])
        assert np.all((psi > 0) & (psi < 1))
        assert np.all(np.diff(psi) > 0)
    for m in (3, 10, 1000):
        psi_d = [r1smg_psi(m, d) for d in (1e-12, 1e-7, 1e-3, 0.5)]
        assert np.all(np.diff(psi_d) > 0)
    assert r1smg_psi(10**9, 1e-5) == pytest.approx(1.0, abs=1e-7)


def test_psi_is_stable_for_millions_and_matches_gamma_formula():
    # T-C3: log-space computation finite at M = 5.76e6; direct Γ formula agrees where it is usable.
    log_psi = r1smg_log_psi(5_760_000, 1e-7)
    assert math.isfinite(log_psi) and r1smg_psi(5_760_000, 1e-7) == pytest.approx(0.999992, abs=2e-6)
    for m, d in ((7, 1e-3), (30, 1e-5), (120, 1e-7)):
        direct = (d * special.gamma((m - 1) / 2) / (math.sqrt(math.pi) * special.gamma(m / 2))) ** (2 / (m - 2))
        assert r1smg_psi(m, d) == pytest.approx(direct, rel=1e-12)
    theta = r1smg_theta0(10, 1e-5)
    assert math.cos(theta) ** 2 == pytest.approx(r1smg_psi(10, 1e-5), rel=1e-12)
    assert math.degrees(theta) == pytest.approx(78.37, abs=0.01)


def test_sigma_star():
    # T-C2: Uber setting.
    s = r1smg_sigma_star(1e-5, 1e-7, math.sqrt(2), 7921)
    assert s == pytest.approx(4.0211e5, rel=1e-4)
    assert s * 1e-5 * r1smg_psi(7921, 1e-7) / (2 * 2) == pytest.approx(1.0, rel=1e-14)
    base = r1smg_sigma_star(0.01, 1e-5, 1.0, 50)
    assert r1smg_sigma_star(0.01, 1e-5, 3.0, 50) == pytest.approx(9 * base, rel=1e-12)
    assert r1smg_sigma_star(0.005, 1e-5, 1.0, 50) == pytest.approx(2 * base, rel=1e-12)
    assert r1smg_expected_accuracy_loss(0.01, 1e-5, 1.0, 50) == pytest.approx(base)


def test_validation_and_remark1_policy():
    # T-C4
    for dim in (2, 1, 0, -3):
        with pytest.raises(InvalidParameterError, match="dim"):
            r1smg_psi(dim, 1e-5)
    with pytest.raises(InvalidParameterError, match="dim"):
        r1smg_psi(3.5, 1e-5)
    for delta in (0.0, 1.0, -0.1, float("nan")):
        with pytest.raises(InvalidPrivacyParameterError, match="delta"):
            r1smg_psi(10, delta)
    for eps in (0.0, -1.0, float("inf")):
        with pytest.raises(InvalidPrivacyParameterError, match="epsilon"):
            r1smg_sigma_star(eps, 1e-5, 1.0, 10)
    with pytest.warns(Remark1Warning, match="Remark 1"):
        r1smg_sigma_star(0.2, 1e-5, 1.0, 10)
    with pytest.raises(InvalidParameterError, match="Remark 1"):
        r1smg_sigma_star(0.2, 1e-5, 1.0, 10, remark1="raise")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r1smg_sigma_star(0.05, 1e-5, 1.0, 10)          # eps < 1/M: silent
        r1smg_sigma_star(0.2, 1e-5, 1.0, 10, remark1="ignore")


# ------------------------------------------------------------------ T-C7
def test_paper_constants():
    assert paper_mvg_constant(0.5, 89, 89) == pytest.approx(84790.06, abs=0.01)
    assert paper_classic_constant(0.5, 1e-7, 1) == pytest.approx(130.730, rel=1e-5)
    assert paper_analytic_constant(1.0, 1e-5, 1) == pytest.approx(19.1893, rel=1e-5)
    # Erratum A1: the calibrated analytic variance is below the paper's "lower bound" C_A.
    for eps, delta in ((1.0, 1e-5), (0.1, 1e-5), (0.5, 1e-7)):
        sigma2 = analytic_gaussian_sigma(eps, delta, 1.0) ** 2
        assert sigma2 * 10 < paper_analytic_constant(eps, delta, 10)
    c_r = [r1smg_accuracy_loss_constant(0.1, 1e-5, m) for m in (10, 100, 1000, 10**5, 10**7)]
    assert np.all(np.diff(c_r) < 0) and c_r[-1] == pytest.approx(2 / 0.1, rel=1e-5)


# ------------------------------------------------------------------ T-M1..M3
def test_moment_ratios_closed_forms():
    assert r1smg_kurtosis() == pytest.approx(35 / 3)
    assert r1smg_skewness() == pytest.approx(5 * math.sqrt(3) / 3)
    assert iid_gaussian_kurtosis(2) == pytest.approx(6.0)
    assert iid_gaussian_kurtosis(10) == pytest.approx(1.86667, rel=1e-5)
    assert iid_gaussian_skewness(10) == pytest.approx(1.27802, rel=1e-5)
    assert iid_gaussian_kurtosis(1) == pytest.approx(35 / 3)
    assert iid_gaussian_skewness(1) == pytest.approx(5 * math.sqrt(3) / 3)
    for m in (2, 5, 100):
        assert iid_gaussian_kurtosis(m) < r1smg_kurtosis()
        assert iid_gaussian_skewness(m) < r1smg_skewness()
        # The Lemma 1 formulas reduce to the closed forms for i.i.d. noise.
        assert gaussian_loss_kurtosis(np.ones(m)) == pytest.approx(iid_gaussian_kurtosis(m))
        assert gaussian_loss_skewness(np.ones(m)) == pytest.approx(iid_gaussian_skewness(m))
    assert gaussian_loss_kurtosis([2.5]) == pytest.approx(35 / 3)


def test_r1smg_moment_ratios_by_monte_carlo():
    rng = np.random.default_rng(11)
    loss = 3.0 * rng.standard_normal(4_000_000) ** 2   # ℒ = σ* z²
    m2, m3, m4 = (np.mean(loss ** k) for k in (2, 3, 4))
    assert m4 / m2 ** 2 == pytest.approx(35 / 3, rel=0.05)
    assert m3 / m2 ** 1.5 == pytest.approx(5 * math.sqrt(3) / 3, rel=0.02)


def test_quadratic_form_moments_match_monte_carlo_for_correlated_noise():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 4))
    row = a @ a.T + 0.5 * np.eye(4)
    b = rng.standard_normal((3, 3))
    col = b @ b.T + 0.5 * np.eye(3)
    xi = np.kron(row, col)
    eig = np.linalg.eigvalsh(xi)
    n = rng.multivariate_normal(np.zeros(12), xi, size=400_000)
    q = np.sum(n ** 2, axis=1)
    moments = gaussian_loss_raw_moments(eig)
    for k in range(4):
        assert np.mean(q ** (k + 1)) == pytest.approx(moments[k], rel=0.03 * (k + 1))
    assert moments[0] == pytest.approx(np.trace(row) * np.trace(col))
    assert gaussian_loss_kurtosis(eig) < 35 / 3 and gaussian_loss_skewness(eig) < 5 * math.sqrt(3) / 3


# ------------------------------------------------------------------ T-L2
@pytest.mark.parametrize("p", [3, 5, 10, 100])
@pytest.mark.parametrize("theta0", [0.1, 0.3, 0.6, 1.0])
def test_lemma2_bound_dominates_exact(p, theta0):
    # |cos θ| ~ |u₁|, u₁² ~ Beta(1/2, (P−1)/2); |θ − π/2| ≥ θ₀ ⇔ u₁² ≥ sin²θ₀.
    exact = stats.beta.sf(math.sin(theta0) ** 2, 0.5, (p - 1) / 2)
    assert exact <= lemma2_angle_bound(p, theta0)


def test_lemma2_examples():
    assert stats.beta.sf(math.sin(0.6) ** 2, 0.5, 4.5) == pytest.approx(0.07034, rel=1e-3)
    assert lemma2_angle_bound(10, 0.6) == pytest.approx(0.7874, rel=1e-3)
    assert lemma2_angle_bound(100, 0.3) == pytest.approx(0.1413, rel=1e-3)


# ------------------------------------------------------------------ T-E6, T-P2..P4
def test_equivalent_gaussian_epsilon():
    assert r1smg_equivalent_gaussian_epsilon(1e-5, 1e-7, 7921) == pytest.approx(1.1347, rel=1e-4)
    assert r1smg_equivalent_gaussian_epsilon(2e-8, 1e-7, 5_760_000) == pytest.approx(1.3720, rel=1e-4)
    # At the paper's "feasible maximum" eps = 1/M it tends to sqrt(ln(1.25/delta)).
    assert r1smg_equivalent_gaussian_epsilon(1e-6, 1e-5, 10**6) == pytest.approx(
        math.sqrt(math.log(1.25e5)), rel=1e-3)


def test_ball_event_closed_form():
    s = r1smg_sigma_star(1e-5, 1e-7, math.sqrt(2), 7921)
    p_x = 2 * special.ndtr(math.sqrt(2) / (2 * math.sqrt(s))) - 1
    assert p_x == pytest.approx(8.9e-4, rel=0.01)
    assert p_x == pytest.approx(math.sqrt(1e-5 * r1smg_psi(7921, 1e-7) / (4 * math.pi)), rel=1e-3)
    lb = r1smg_ball_delta_lower_bound(1e-5, 7921, s, math.sqrt(2))
    assert lb == pytest.approx(p_x, rel=1e-9) and lb > 1000 * 1e-7


@pytest.mark.parametrize("dim,eps,delta,expected", [
    (10, 0.05, 1e-5, 0.106), (100, 0.009, 1e-5, 0.435), (1000, 9e-4, 1e-5, 0.472),
    (7921, 1e-5, 1e-7, 0.217), (7921, 1.25e-4, 1e-7, 0.489), (10**6, 1e-7, 1e-10, 0.236)])
def test_true_delta_table(dim, eps, delta, expected):
    # Spec §8.1.4 (2e6-sample MC, ±1 in the last digit): the paper's claim is off by 4-9 orders.
    s = r1smg_sigma_star(eps, delta, 1.0, dim, remark1="ignore")
    true = r1smg_true_delta(eps, dim, s, 1.0)
    assert true == pytest.approx(expected, abs=1.5e-3)
    assert true > 1e3 * delta
    assert true >= r1smg_ball_delta_lower_bound(eps, dim, s, 1.0)


def test_true_delta_matches_monte_carlo_and_quadrature_converges():
    dim, eps = 10, 0.05
    s = r1smg_sigma_star(eps, 1e-5, 1.0, dim)
    rng = np.random.default_rng(2)
    n = 2_000_000
    a = math.sqrt(s) * np.abs(rng.standard_normal(n))
    u = 2 * rng.beta((dim - 1) / 2, (dim - 1) / 2, n) - 1
    b = np.sqrt(a ** 2 + 2 * a * u + 1)
    mc = np.mean(np.maximum(0, -np.expm1(eps - r1smg_privacy_loss(a, b, dim, s))))
    q = r1smg_true_delta(eps, dim, s, 1.0)
    assert q == pytest.approx(mc, abs=4 * math.sqrt(q / n))
    assert r1smg_true_delta(eps, dim, s, 1.0, order=48, panels=80) == pytest.approx(q, abs=1e-5)


def test_true_delta_monotone_and_sqrt_decay():
    dim = 10
    sig = [1e2, 1e3, 1e4, 1e6, 1e8]
    deltas = [r1smg_true_delta(1.0, dim, s, 1.0) for s in sig]
    assert np.all(np.diff(deltas) < 0)
    # δ ≈ 1.29/√σ* for M = 10, ε = 1 (spec §8.1.4).
    for s, d in zip(sig[2:], deltas[2:]):
        assert d * math.sqrt(s) == pytest.approx(1.29, rel=0.03)
    eps_grid = [0.0, 0.5, 1.0, 5.0, 20.0]
    prof = [r1smg_true_delta(e, 100, 3.0, 1.0) for e in eps_grid]
    assert np.all(np.diff(prof) <= 0) and prof[-1] > 0.01  # not even (20, 0.01)-DP


def test_marginal_density_integrates_to_one():
    # T-P4: radial density p_R(r) = S_{M−1} r^{M−1} p(n) = 2 φ(r/√σ*)/√σ*.
    dim, s = 12, 7.0
    r = np.linspace(1e-6, 40, 400_001)
    surface = 2 * math.pi ** (dim / 2) / special.gamma(dim / 2)
    radial = surface * r ** (dim - 1) * np.exp(r1smg_log_noise_density(r, dim, s))
    assert np.allclose(radial, 2 * stats.norm.pdf(r / math.sqrt(s)) / math.sqrt(s), rtol=1e-10)
    assert np.trapezoid(radial, r) == pytest.approx(1.0, abs=1e-6)


# ------------------------------------------------------------------ T-C5, T-C6, T-M4 (spec §1.7 table)
@pytest.mark.parametrize("eps,delta,sigma2_analytic,ca_over_m,classic_sigma2", [
    (1.0, 1e-5, 13.9176, 19.1893, 23.4721), (1.0, 1e-7, 21.8899, 28.0331, 32.6825),
    (0.5, 1e-7, 80.9223, 110.132, 130.730), (0.1, 1e-5, 945.536, 1828.93, 2347.21),
    (0.01, 1e-5, 59431.3, 181993, 234721), (1e-5, 1e-7, 2.97251e10, 2.70331e11, 3.26825e11)])
def test_baseline_calibration_table(eps, delta, sigma2_analytic, ca_over_m, classic_sigma2):
    from matrixdp.calibration.gaussian import classic_gaussian_sigma, gaussian_delta

    sigma_a = analytic_gaussian_sigma(eps, delta, 1.0)
    assert sigma_a ** 2 == pytest.approx(sigma2_analytic, rel=1e-4)
    # Balle-Wang condition (2) holds with equality at the calibrated sigma.
    assert gaussian_delta(eps, sigma_a, 1.0) == pytest.approx(delta, rel=1e-9)
    assert paper_analytic_constant(eps, delta, 1) == pytest.approx(ca_over_m, rel=1e-5)
    assert paper_classic_constant(eps, delta, 1) == pytest.approx(classic_sigma2, rel=1e-5)
    if eps < 1:
        sigma_c = classic_gaussian_sigma(eps, delta, 1.0)
        assert sigma_c ** 2 == pytest.approx(classic_sigma2, rel=1e-5)
        assert sigma_a < sigma_c
    else:
        with pytest.raises(ValueError, match="epsilon"):
            classic_gaussian_sigma(eps, delta, 1.0)
    # Erratum A1: the calibrated variance is below the paper's "lower bound" C_A / M.
    assert sigma_a ** 2 < ca_over_m


def test_iid_gaussian_accuracy_loss_is_m_sigma2_by_monte_carlo():
    # T-M4: E||n||^2 = M sigma^2 for the classic mechanism; the check rejects 0.7x / 1.3x sigma^2.
    from matrixdp.mechanisms import GaussianMechanism

    dim, k = 20, 50_000
    mech = GaussianMechanism(epsilon=0.5, delta=1e-5, sensitivity=1.0, calibration="classic")
    loss = np.sum(mech.sample_noise((k, dim), rng=3) ** 2, axis=1)
    expected = dim * mech.sigma ** 2
    tol = 5 * math.sqrt(2 / (k * dim))
    assert abs(loss.mean() / expected - 1) < tol
    for wrong in (0.7, 1.3):
        assert abs(loss.mean() / (wrong * expected) - 1) > tol
    assert gaussian_loss_raw_moments(np.full(dim, mech.sigma ** 2))[0] == pytest.approx(expected)
