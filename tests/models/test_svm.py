"""The paper's SVM (2) with multipliers, and the correlated noise of Theorem 2.10 (spec §7, 17–24)."""

from __future__ import annotations

import math
import numpy as np
import pytest
from dataclasses import replace
from scipy.linalg import null_space

from matrixdp.errors import InvalidParameterError, RefutedGuaranteeWarning, UnsafeMechanismError
from matrixdp.models.svm import (
    CorrelatedSVMNoise,
    correlated_noise_projector,
    correlated_privacy_level,
    correlated_svm_noise,
    fit_svm,
    hinge_objective,
)


def toy_2d(seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.standard_normal((50, 2)), rng.standard_normal((50, 2)) + [0.0, 5.0]])
    y = np.concatenate([np.ones(50), -np.ones(50)])
    return X, y


def small_overlapping(seed=0, q=12, p=3):
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(q) % 2 == 0, 1.0, -1.0)
    X = rng.standard_normal((q, p)) + 0.8 * y[:, None]
    return X, y


@pytest.fixture(scope="module")
def wdbc():
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    return data.data, np.where(data.target == 0, 1.0, -1.0)  # malignant = +1


def _rel(a, b):
    return float(np.abs(a - b).max() / max(1.0, np.abs(b).max()))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kkt_and_hinge_form(seed):
    X, y = small_overlapping(seed, q=40, p=3)
    fit = fit_svm(X, y, rho=1e-2, theta=1.0)
    res = fit.kkt_residuals(X, y)
    assert max(res.values()) < 1e-8
    assert hinge_objective(fit.alpha, fit.beta, X, y, rho=1e-2, theta=1.0) == pytest.approx(
        fit.objective, rel=1e-12)
    np.testing.assert_allclose(fit.xi, np.maximum(0, 1 - y * fit.decision_function(X)))
    np.testing.assert_allclose(fit.xi, np.maximum(fit.omega - 1.0, 0) / 1e-2, atol=1e-7)
    assert (fit.omega >= 0).all()
    # theta != 1: xi = max(omega - theta, 0) / rho (the fix of the paper's (15b))
    fit = fit_svm(X, y, rho=1e-2, theta=0.3)
    np.testing.assert_allclose(fit.xi, np.maximum(fit.omega - 0.3, 0) / 1e-2, atol=1e-7)
    assert (fit.omega > 0.3 + 1e-6).any()  # multipliers are not capped at theta


def test_hinge_objective_is_minimised():
    X, y = small_overlapping(3, q=40, p=3)
    fit = fit_svm(X, y)
    rng = np.random.default_rng(0)
    best = fit.objective
    for _ in range(200):
        a = fit.alpha + 1e-3 * rng.standard_normal(3)
        b = fit.beta + 1e-3 * rng.standard_normal()
        assert hinge_objective(a, b, X, y, rho=1e-2, theta=1.0) >= best - 1e-10


def test_proposition_2_1_rho_to_zero():
    X, y = small_overlapping(4, q=40, p=3)
    base = fit_svm(X, y, rho=0.0)
    opt = 0.5 * base.alpha @ base.alpha + base.xi.sum()
    gaps = []
    for rho in (1e-2, 1e-3, 1e-4, 1e-5, 1e-6):
        f = fit_svm(X, y, rho=rho)
        val = 0.5 * f.alpha @ f.alpha + f.xi.sum()
        assert val >= opt - 1e-7
        gaps.append(val - opt)
    # converges (monotonicity is not guaranteed, so it is not tested)
    assert abs(gaps[-1]) < 1e-6 * max(1.0, opt)


def test_toy_2d_reproduction():
    X, y = toy_2d(0)
    fit = fit_svm(X, y)
    assert fit.accuracy(X, y) == 1.0


def test_wdbc_baseline_anchor(wdbc):
    X, y = wdbc
    fit = fit_svm(X, y, rho=1e-2, theta=1.0)
    assert fit.accuracy(X, y) == pytest.approx(547 / 569)
    assert round(fit.accuracy(X, y), 4) == 0.9613
    assert fit.n_support == 60


def test_wdbc_correlated_privacy_anchor(wdbc):
    X, y = wdbc
    fit = fit_svm(X, y)
    level = correlated_privacy_level(fit, 1.0)
    assert level == pytest.approx(28.413, abs=0.005)
    assert correlated_privacy_level(fit, 100.0) == pytest.approx(2841.3, abs=0.5)
    r = fit.dual_coef ** 2 / (fit.dual_coef @ fit.dual_coef)
    assert level == pytest.approx((30 - 1) * (1 - r.max()))


def test_null_space_constraints_hold():
    X, y = toy_2d(1)
    fit = fit_svm(X, y)
    m = 100.0
    W = correlated_svm_noise(fit, m, rng=0)
    assert np.abs(W @ fit.alpha).max() < 1e-10 * math.sqrt(m) * np.linalg.norm(fit.alpha)
    assert np.abs(fit.dual_coef @ W).max() < 1e-10 * math.sqrt(m) * np.linalg.norm(fit.dual_coef)


def _omega_matrix(fit):
    q, p = fit.dual_coef.size, fit.alpha.size
    top = np.kron(fit.dual_coef[None, :], np.eye(p))
    bottom = np.kron(np.eye(q), fit.alpha[None, :])
    return np.vstack([top, bottom])


@pytest.mark.parametrize("seed", [0, 1])
def test_projector_rank_and_closed_form(seed):
    X, y = small_overlapping(seed, q=10, p=3)
    fit = fit_svm(X, y)
    q, p = X.shape
    omega_mat = _omega_matrix(fit)
    assert np.linalg.matrix_rank(omega_mat) == q + p - 1
    psi = null_space(omega_mat)
    assert psi.shape[1] == (q - 1) * (p - 1)
    P = correlated_noise_projector(fit)
    assert np.abs(P - psi @ psi.T).max() < 1e-12
    # block diagonal: P_ii = (1 - r_i) P_alpha, so min_i Tr(P_ii) is the privacy number
    traces = [np.trace(P[i * p:(i + 1) * p, i * p:(i + 1) * p]) for i in range(q)]
    assert correlated_privacy_level(fit, 3.0) == pytest.approx(3.0 * min(traces))


def test_monte_carlo_covariance():
    X, y = small_overlapping(5, q=6, p=3)
    fit = fit_svm(X, y)
    m = 2.5
    rng = np.random.default_rng(7)
    n = 100_000
    samples = np.stack([correlated_svm_noise(fit, m, rng).ravel() for _ in range(n)])
    emp = samples.T @ samples / n
    assert np.abs(emp - m * correlated_noise_projector(fit)).max() < 0.05 * m


def test_retraining_invariance_2d():
    X, y = toy_2d(2)
    fit = fit_svm(X, y)
    for seed in range(3):
        W = correlated_svm_noise(fit, 100.0, rng=seed)
        refit = fit_svm(X + W, y)
        assert _rel(refit.alpha, fit.alpha) < 1e-7
        assert abs(refit.beta - fit.beta) < 1e-6
        assert np.abs(refit.xi - fit.xi).max() < 1e-6


def test_retraining_invariance_wdbc_and_negative_control(wdbc):
    X, y = wdbc
    fit = fit_svm(X, y)
    for seed in range(2):
        W = correlated_svm_noise(fit, 100.0, rng=seed)
        refit = fit_svm(X + W, y)
        assert _rel(refit.alpha, fit.alpha) < 1e-6
        assert abs(refit.beta - fit.beta) < 1e-6
        assert np.abs(refit.xi - fit.xi).max() < 1e-6
        assert refit.accuracy(X, y) == fit.accuracy(X, y)
    # i.i.d. noise with the same per-entry variance changes the classifier
    per_entry = float(np.mean(W ** 2))
    iid = np.random.default_rng(9).standard_normal(X.shape) * math.sqrt(per_entry)
    moved = fit_svm(X + iid, y)
    assert _rel(moved.alpha, fit.alpha) > 1e-2


def test_inaccurate_multipliers_break_invariance(wdbc):
    X, y = wdbc
    fit = fit_svm(X, y)
    rng = np.random.default_rng(0)
    bad_omega = fit.omega * (1 + 1e-3 * rng.standard_normal(fit.omega.size))
    bad = replace(fit, omega=bad_omega, dual_coef=bad_omega * y)
    W = correlated_svm_noise(bad, 100.0, rng=1)
    refit = fit_svm(X + W, y)
    assert _rel(refit.alpha, fit.alpha) > 1e-5


def test_correlated_release_requires_opt_in_and_says_no_dp():
    X, y = toy_2d(4)
    with pytest.raises(UnsafeMechanismError, match="no differential-privacy"):
        CorrelatedSVMNoise(m=100.0)
    mech = CorrelatedSVMNoise(m=100.0, allow_unsafe=True)
    with pytest.warns(RefutedGuaranteeWarning):
        out = mech.release(X, y, rng=0)
    assert out.privacy.exact is False
    assert out.privacy.refuted is True
    assert math.isinf(out.privacy.epsilon)
    assert any("NO differential-privacy guarantee" in n for n in out.privacy.notes)
    np.testing.assert_array_equal(out.metadata["y"], y)
    refit = fit_svm(out.value, y)
    assert _rel(refit.alpha, out.metadata["fit"].alpha) < 1e-7
    assert 0 < out.metadata["privacy_level"] <= 100.0 * (2 - 1)


def test_bad_svm_inputs():
    X, y = toy_2d(0)
    with pytest.raises(InvalidParameterError, match="y"):
        fit_svm(X, (y > 0).astype(float))
    with pytest.raises(InvalidParameterError, match="rho"):
        fit_svm(X, y, rho=-1.0)
    with pytest.raises(InvalidParameterError, match="theta"):
        fit_svm(X, y, theta=0.0)
    with pytest.raises(InvalidParameterError, match="m"):
        correlated_svm_noise(fit_svm(X, y), 0.0)


def test_noisy_classifier_deviation_shrinks_with_lambda():
    from matrixdp.mechanisms.fisher import sample_optimal_gaussian

    X, y = toy_2d(5)
    fit = fit_svm(X, y)
    z = np.concatenate([fit.alpha, [fit.beta], fit.xi])
    medians, ratios, coverage = [], [], []
    for lam in (1.0, 1e2, 1e4, 1e6):
        devs = []
        for seed in range(30):
            f = fit_svm(X + sample_optimal_gaussian(100, lam, n_features=2, rng=seed), y)
            devs.append(np.linalg.norm(np.concatenate([f.alpha, [f.beta], f.xi]) - z))
        medians.append(np.median(devs))
        ratios.append(np.median(devs) / lam ** -0.25)
        coverage.append(np.mean(np.array(devs) <= 0.5))  # empirical D(varepsilon = 0.5)
    assert all(a > b for a, b in zip(medians, medians[1:]))
    assert max(ratios) / min(ratios) < 2.0  # deviation ~ lam^{-1/4} for large lam
    assert coverage[-1] == 1.0 and coverage[0] < 1.0
