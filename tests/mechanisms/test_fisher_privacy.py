"""Independent review checks of the Fisher release (tests/coverage/fisher.md).

(a) the reported LDP epsilon equals the exact analytic-Gaussian epsilon of the covariance that is
    actually sampled, for the PUBLIC feature ranges, recomputed here without the library's
    sensitivity code (brute-force Mahalanobis sup over the box corners, own Balle-Wang solve);
(b) the correlated-noise release cannot pass for a DP release;
(d) every sampler accepts its true scale and rejects x0.7 and x1.3.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy.linalg import fractional_matrix_power
from scipy.optimize import brentq
from scipy.stats import chi2, kstest, laplace, norm

from matrixdp.errors import InvalidParameterError, RefutedGuaranteeWarning
from matrixdp.mechanisms.fisher import FisherNoiseMechanism
from matrixdp.mechanisms.fisher import sample_fisher_matched_laplace, sample_optimal_gaussian
from matrixdp.models.svm import CorrelatedSVMNoise, correlated_svm_noise, fit_svm

ALPHA = 1e-4
WRONG = (0.7, 1.3)


def _random_spd(p, seed):
    a = np.random.default_rng(seed).standard_normal((p, p))
    return a @ a.T + 0.3 * np.eye(p)


def _independent_cov(lam, pi):
    """Pi^{-1/2} / sqrt(lam) via scipy's fractional power (not the library's spd_power)."""
    return np.real(fractional_matrix_power(pi, -0.5)) / math.sqrt(lam)


def _corner_sup_mahalanobis(cov, widths):
    """max over v in {-1,+1}^p of sqrt(d^T cov^{-1} d), d = widths * v (brute force)."""
    p = widths.size
    corners = np.array(list(itertools.product((-1.0, 1.0), repeat=p))) * widths
    quad = np.einsum("ij,jk,ik->i", corners, np.linalg.inv(cov), corners)
    return float(np.sqrt(quad.max()))


def _balle_wang_epsilon(delta, shift):
    """Smallest eps with Phi(s/2 - eps/s) - e^eps Phi(-s/2 - eps/s) <= delta (unit noise)."""
    def excess(eps):
        a = norm.cdf(shift / 2 - eps / shift)
        b = math.exp(eps + norm.logcdf(-shift / 2 - eps / shift))
        return a - b - delta

    if excess(0.0) <= 0:
        return 0.0
    hi = 1.0
    while excess(hi) > 0:
        hi *= 2
    return brentq(excess, 0.0, hi, xtol=1e-13, rtol=1e-13)


# ------------------------------------------------------------------------------ (a)
@pytest.mark.parametrize("seed,lam,delta", [(0, 0.5, 1e-6), (1, 3.0, 1e-5), (2, 1e-3, 1e-8)])
def test_reported_epsilon_is_exact_for_sampled_covariance_and_public_ranges(seed, lam, delta):
    p = 5
    rng = np.random.default_rng(100 + seed)
    pi = _random_spd(p, seed)
    low = rng.uniform(-5, 5, p)
    widths = rng.uniform(0.2, 4.0, p)
    ranges = np.column_stack([low, low + widths])
    mech = FisherNoiseMechanism(lam=lam, delta=delta, weights=pi, feature_ranges=ranges)
    cov = _independent_cov(lam, pi)
    # the covariance actually sampled by the mechanism is Pi^{-1/2}/sqrt(lam)
    noise = mech.sample_noise((300_000, p), np.random.default_rng(seed))
    emp = noise.T @ noise / noise.shape[0]
    whitened = np.linalg.cholesky(np.linalg.inv(cov)).T
    assert np.abs(whitened @ emp @ whitened.T - np.eye(p)).max() < 0.015
    for wrong in WRONG:  # the same check rejects a mis-scaled covariance
        assert np.abs(whitened @ (wrong ** 2 * emp) @ whitened.T - np.eye(p)).max() > 0.1
    # brute-force sensitivity over the public box's corners, and the exact epsilon
    shift = _corner_sup_mahalanobis(cov, widths)
    assert mech.whitened_sensitivity == pytest.approx(shift, rel=1e-9)
    assert mech.privacy.exact is True
    assert mech.privacy.epsilon == pytest.approx(_balle_wang_epsilon(delta, shift), rel=1e-7)
    # the same computed from the EMPIRICAL covariance agrees to MC precision
    assert mech.privacy.epsilon == pytest.approx(
        _balle_wang_epsilon(delta, _corner_sup_mahalanobis(emp, widths)), rel=0.02)
    # the corners dominate every interior difference of two points of the box
    a = rng.uniform(low, low + widths, (20_000, p))
    b = rng.uniform(low, low + widths, (20_000, p))
    d = a - b
    assert np.sqrt(np.einsum("ij,jk,ik->i", d, np.linalg.inv(cov), d)).max() <= shift


def test_reported_epsilon_is_sufficient_when_sensitivity_is_upper_bounded():
    # p > 20 with a non-diagonal Pi: the sensitivity is a safe upper bound, never below the truth
    p = 21
    pi = _random_spd(p, 7)
    widths = np.random.default_rng(8).uniform(0.5, 2.0, p)
    ranges = np.column_stack([np.zeros(p), widths])
    mech = FisherNoiseMechanism(lam=0.2, delta=1e-6, weights=pi, feature_ranges=ranges)
    assert mech.privacy.exact is False
    cov = _independent_cov(0.2, pi)
    v = np.random.default_rng(9).choice([-1.0, 1.0], (50_000, p)) * widths
    lower = float(np.sqrt(np.einsum("ij,jk,ik->i", v, np.linalg.inv(cov), v).max()))
    assert mech.whitened_sensitivity >= lower
    assert mech.privacy.epsilon >= _balle_wang_epsilon(1e-6, lower)


def test_calibrated_release_meets_target_for_public_ranges():
    pi = _random_spd(4, 3)
    ranges = np.array([[0.0, 1.0], [-2.0, 2.0], [10.0, 10.5], [0.0, 3.0]])
    mech = FisherNoiseMechanism(epsilon=2.0, delta=1e-6, weights=pi, feature_ranges=ranges)
    shift = _corner_sup_mahalanobis(_independent_cov(mech.lam, pi), ranges[:, 1] - ranges[:, 0])
    assert _balle_wang_epsilon(1e-6, shift) == pytest.approx(2.0, rel=1e-7)


def test_ranges_not_data_change_the_guarantee():
    # the guarantee depends only on the public ranges, never on the data released
    ranges = [[0.0, 4.0], [0.0, 4.0]]
    mech = FisherNoiseMechanism(lam=1.0, delta=1e-5, feature_ranges=ranges)
    narrow = mech.release(np.full((50, 2), 2.0)).privacy.epsilon
    wide = mech.release(np.array([[0.0, 0.0], [4.0, 4.0]])).privacy.epsilon
    assert narrow == wide == mech.privacy.epsilon
    assert mech.privacy.epsilon == pytest.approx(
        _balle_wang_epsilon(1e-5, math.sqrt(2) * 4.0), rel=1e-7)


def test_laplace_epsilon_matches_bruteforce_for_nondiagonal_weights():
    p = 4
    pi = _random_spd(p, 11)
    widths = np.array([1.0, 0.5, 2.0, 3.0])
    ranges = np.column_stack([np.zeros(p), widths])
    lam = 0.8
    mech = FisherNoiseMechanism(lam=lam, weights=pi, feature_ranges=ranges, kind="laplace")
    theta, basis = np.linalg.eigh(pi)
    scales = (lam * theta) ** -0.25
    corners = np.array(list(itertools.product((-1.0, 1.0), repeat=p))) * widths
    # log-density ratio of a shift d is sum_j |u_j^T d| / b_j; its sup over the box's corners
    eps = float((np.abs(corners @ basis) / scales).sum(axis=1).max())
    assert mech.privacy.epsilon == pytest.approx(eps, rel=1e-10)
    assert mech.privacy.delta == 0.0


def test_invalid_lambda_and_weights_rejected():
    for bad in (math.nan, math.inf, 0.0):
        with pytest.raises(InvalidParameterError):
            FisherNoiseMechanism(lam=bad, feature_ranges=[[0.0, 1.0]])
    with pytest.raises(InvalidParameterError):
        FisherNoiseMechanism(lam=1.0, feature_ranges=[[0.0, math.inf]])
    with pytest.raises(InvalidParameterError):
        FisherNoiseMechanism(lam=1.0, feature_ranges=[[0.0, 1.0]] * 2, weights=[1.0, math.nan])
    with pytest.raises(InvalidParameterError, match="kind"):
        FisherNoiseMechanism(lam=1.0, feature_ranges=[[0.0, 1.0]], kind="correlated")


@pytest.mark.parametrize("kind,extra", [("laplace", {}),
                                        ("bounded", {"noise_support": [[-1.0, 1.0]]})])
@pytest.mark.parametrize("delta", [1e-5, math.nan, 7.0])
def test_delta_is_never_silently_ignored(kind, extra, delta):
    # a delta given to a kind that has none (or a NaN / out-of-range one) is an error, not ignored
    with pytest.raises(InvalidParameterError) as info:
        FisherNoiseMechanism(lam=1.0, delta=delta, kind=kind, feature_ranges=[[0.0, 1.0]], **extra)
    assert info.value.argument == "delta"
    FisherNoiseMechanism(lam=1.0, delta=None, kind=kind, feature_ranges=[[0.0, 1.0]], **extra)
    FisherNoiseMechanism(lam=1.0, delta=0.0, kind=kind, feature_ranges=[[0.0, 1.0]], **extra)


# ------------------------------------------------------------------------------ (d)
def _ks_true_and_wrong(samples, dist_factory):
    assert kstest(samples, dist_factory(1.0).cdf).pvalue > ALPHA
    for wrong in WRONG:
        assert kstest(samples, dist_factory(wrong).cdf).pvalue < ALPHA


def test_gaussian_sampler_scale_nondiagonal_weights():
    pi = _random_spd(3, 21)
    lam = 0.05
    n = sample_optimal_gaussian(10_000, lam, pi, rng=4)
    # whiten with an independently computed Sigma^{-1/2}: N(0, 1) entries
    white = n @ np.real(fractional_matrix_power(_independent_cov(lam, pi), -0.5)).T
    _ks_true_and_wrong(white.ravel(), lambda s: norm(scale=s))


def test_release_gaussian_scale_nondiagonal_weights():
    pi = _random_spd(3, 22)
    mech = FisherNoiseMechanism(lam=2.0, weights=pi, feature_ranges=[[0.0, 1.0]] * 3)
    noise = mech.release(np.full((10_000, 3), 0.5), rng=5).value - 0.5
    white = noise @ np.real(fractional_matrix_power(_independent_cov(2.0, pi), -0.5)).T
    _ks_true_and_wrong(white.ravel(), lambda s: norm(scale=s))


def test_laplace_sampler_scale_nondiagonal_weights():
    pi = _random_spd(3, 23)
    lam = 0.3
    theta, basis = np.linalg.eigh(pi)
    scales = (lam * theta) ** -0.25
    n = sample_fisher_matched_laplace(10_000, lam, pi, rng=6)
    _ks_true_and_wrong(((n @ basis) / scales).ravel(), lambda s: laplace(scale=s))
    mech = FisherNoiseMechanism(lam=lam, weights=pi, feature_ranges=[[0.0, 1.0]] * 3,
                                kind="laplace")
    noise = mech.release(np.zeros((10_000, 3)), rng=7).value
    _ks_true_and_wrong(((noise @ basis) / scales).ravel(), lambda s: laplace(scale=s))


def test_release_bounded_scale_against_gaussian_limit():
    # a box much wider than the noise: the optimum is N(0, 1/sqrt(lam*theta)) per coordinate
    # (spec §3.3 limits), with theta = 4 catching the paper's variable mix (A13) in the sampler
    mech = FisherNoiseMechanism(lam=0.01, weights=[1.0, 4.0], feature_ranges=[[0.0, 1.0]] * 2,
                                kind="bounded", noise_support=[[-40.0, 40.0], [-25.0, 25.0]],
                                n_grid=6000)
    noise = mech.release(np.zeros((10_000, 2)), rng=8).value
    for j, theta in enumerate((1.0, 4.0)):
        std = (0.01 * theta) ** -0.25
        _ks_true_and_wrong(noise[:, j], lambda s, std=std: norm(scale=s * std))


def test_correlated_noise_scale():
    # ||W||^2 / m ~ chi2 with k = (q-1)(p-1) degrees of freedom (a projected N(0, m I))
    rng = np.random.default_rng(10)
    q, p = 12, 3
    y = np.where(np.arange(q) % 2 == 0, 1.0, -1.0)
    X = rng.standard_normal((q, p)) + 0.8 * y[:, None]
    fit = fit_svm(X, y)
    m = 7.0
    k = (q - 1) * (p - 1)
    norms = np.array([(correlated_svm_noise(fit, m, rng) ** 2).sum() for _ in range(3000)])
    _ks_true_and_wrong(norms, lambda s: chi2(k, scale=m * s * s))


# ------------------------------------------------------------------------------ (b)
def test_correlated_release_cannot_pass_for_dp():
    rng = np.random.default_rng(12)
    X = np.vstack([rng.standard_normal((20, 2)), rng.standard_normal((20, 2)) + [0.0, 5.0]])
    y = np.concatenate([np.ones(20), -np.ones(20)])
    mech = CorrelatedSVMNoise(m=10.0, allow_unsafe=True)
    for _ in range(2):  # every release warns, not only the first
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = mech.release(X, y, rng=0)
        assert any(issubclass(w.category, RefutedGuaranteeWarning) for w in caught)
    assert "REFUTED" in str(out.privacy)
    assert math.isinf(out.privacy.epsilon) and out.privacy.delta == 1.0
    assert out.privacy.calibration == "none"
    assert not hasattr(mech, "to_dp_event")
    assert not hasattr(mech, "privacy_profile")
    # and the leak it documents is real: alpha^T x_i is released exactly
    fit = out.metadata["fit"]
    np.testing.assert_allclose(out.value @ fit.alpha, X @ fit.alpha, rtol=0, atol=1e-9)
    # the raw sampler's documentation says so too
    assert "no differential-privacy guarantee" in correlated_svm_noise.__doc__.lower()
