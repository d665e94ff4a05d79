"""R1SMGMechanism: unsafe opt-in, release contract, sampler distribution (spec §9 T-S*, T-P1)."""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

import matrixdp
from matrixdp.calibration.r1smg import Remark1Warning
from matrixdp.errors import (
    InvalidParameterError,
    InvalidShapeError,
    RefutedGuaranteeWarning,
    UnsafeMechanismError,
)

ALPHA = 1e-6


def make(dim=10, epsilon=None, delta=1e-5, sensitivity=1.0):
    epsilon = 0.5 / dim if epsilon is None else epsilon   # inside the paper's Remark 1
    return matrixdp.R1SMGMechanism(dim=dim, epsilon=epsilon, delta=delta,
                                   sensitivity=sensitivity, allow_unsafe=True)


def test_requires_explicit_unsafe_opt_in():
    for flag in (False, None, 1, "yes"):
        with pytest.raises(UnsafeMechanismError) as info:
            matrixdp.R1SMGMechanism(dim=10, epsilon=0.05, delta=1e-5, sensitivity=1.0,
                                    allow_unsafe=flag)
        msg = str(info.value)
        assert "does not give" in msg and "differential privacy" in msg
        assert "docs/r1smg.md" in msg
    with pytest.raises(UnsafeMechanismError):
        matrixdp.R1SMGMechanism(dim=10, epsilon=0.05, delta=1e-5, sensitivity=1.0)
    assert isinstance(make(), matrixdp.mechanisms.R1SMGMechanism)


def test_parameters_and_validation():
    m = make(dim=7921, epsilon=1e-5, delta=1e-7, sensitivity=math.sqrt(2))
    assert m.sigma_star == pytest.approx(4.0211e5, rel=1e-4)
    assert m.per_entry_variance == pytest.approx(m.sigma_star / 7921)
    assert m.equivalent_gaussian_epsilon == pytest.approx(1.1347, rel=1e-4)
    with pytest.raises(InvalidParameterError, match="dim"):
        make(dim=2)
    with pytest.raises(InvalidParameterError, match="delta"):
        make(delta=1.0)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        make(epsilon=0)
    with pytest.raises(InvalidParameterError, match="sensitivity"):
        make(sensitivity=-1)
    with pytest.warns(Remark1Warning):
        make(dim=100, epsilon=1.0)


def test_release_is_marked_refuted_and_warns():
    m = make(dim=12)
    with pytest.warns(RefutedGuaranteeWarning, match="NOT differentially private"):
        rel = m.release(np.arange(12.0).reshape(3, 4), rng=0)
    assert rel.value.shape == (3, 4)
    p = rel.privacy
    assert p.refuted is True and p.exact is False
    assert (p.epsilon, p.delta) == (0.5 / 12, 1e-5)
    assert any("NOT a valid DP guarantee" in note for note in p.notes)
    assert rel.noise.expected_squared_error == pytest.approx(m.sigma_star)
    assert rel.noise.per_entry_variance == pytest.approx(m.sigma_star / 12)
    assert rel.metadata["docs"] == "docs/r1smg.md"
    with pytest.raises(InvalidShapeError, match="dim=12"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.release(np.zeros(11), rng=0)


def test_refuses_to_enter_an_accountant():
    with pytest.raises(UnsafeMechanismError, match="accountant"):
        make().to_dp_event()


def test_true_profile_exceeds_claim():
    m = make(dim=100, epsilon=0.009)
    assert m.privacy_profile(0.009) == pytest.approx(0.435, abs=1.5e-3)
    assert matrixdp.audit.exact_delta(m, 0.009) > 1e4 * m.delta


# ------------------------------------------------------------ sampler (T-S*)
def test_norm_squared_is_sigma_chi2_1_and_rejects_wrong_scale():
    m = make(dim=10)
    n = m.sample_noise_batch(100_000, rng=1)
    ratio = np.sum(n ** 2, axis=1) / m.sigma_star
    assert stats.kstest(ratio, stats.chi2(1).cdf).pvalue > ALPHA
    for wrong in (0.7, 1.3):
        assert stats.kstest(ratio / wrong, stats.chi2(1).cdf).pvalue < ALPHA
    assert np.median(ratio) == pytest.approx(0.454936, rel=0.02)
    k = ratio.size
    assert abs(ratio.mean() - 1) < 5 * math.sqrt(2 / k)            # T-S3


def test_single_release_noise_has_same_law():
    m = make(dim=5)
    draws = np.array([np.sum(m.sample_noise(5, rng=g) ** 2)
                      for g in np.random.default_rng(4).integers(0, 2**32, 3000)])
    assert stats.kstest(draws / m.sigma_star, stats.chi2(1).cdf).pvalue > ALPHA


def test_coordinates_variance_kurtosis_and_projections():
    dim = 10
    m = make(dim=dim)
    n = m.sample_noise_batch(400_000, rng=2)
    var = n.var(axis=0)
    assert np.allclose(var / (m.sigma_star / dim), 1.0, atol=0.03)          # T-S5
    kurt = np.mean(n ** 4, axis=0) / np.mean(n ** 2, axis=0) ** 2
    assert np.allclose(kurt, 9 * dim / (dim + 2), rtol=0.06)                  # 7.5 at M=10
    u = np.random.default_rng(3).standard_normal(dim)
    u /= np.linalg.norm(u)
    assert np.var(n @ u) == pytest.approx(m.sigma_star / dim, rel=0.03)      # T-S6
    # Wrong scales are rejected by the same tolerance.
    assert not np.allclose(0.7 * var / (m.sigma_star / dim), 1.0, atol=0.03)
    assert not np.allclose(1.3 * var / (m.sigma_star / dim), 1.0, atol=0.03)


def test_direction_is_uniform_on_sphere():
    dim = 20
    m = make(dim=dim)
    n = m.sample_noise_batch(200_000, rng=5)
    v = n / np.linalg.norm(n, axis=1, keepdims=True)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-12)           # T-S1
    assert np.all(np.abs(v.mean(axis=0)) < 5 / math.sqrt(200_000 * dim))
    cov = v.T @ v / len(v)
    assert np.abs(cov - np.eye(dim) / dim).max() < 0.003
    # u₁² ~ Beta(1/2, (M−1)/2) for a uniform direction.
    assert stats.kstest(v[:, 0] ** 2, stats.beta(0.5, (dim - 1) / 2).cdf).pvalue > ALPHA


def test_fresh_direction_each_call_and_seeded_reproducibility():
    m = make(dim=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RefutedGuaranteeWarning)
        r1 = m.release(np.zeros(50)).value
        r2 = m.release(np.zeros(50)).value
        assert abs(r1 @ r2) / (np.linalg.norm(r1) * np.linalg.norm(r2)) < 1 - 1e-9   # T-S2
        assert np.array_equal(m.release(np.zeros(50), rng=9).value,
                              m.release(np.zeros(50), rng=9).value)                  # T-S8
    assert np.array_equal(m.sample_noise_batch(5, rng=1), m.sample_noise_batch(5, rng=1))


def test_matrix_query_flattened_and_reshaped():
    # T-S7: ‖N‖_F² ~ σ*χ²(1); reshape order irrelevant in distribution; symmetrisation keeps it symmetric.
    m = make(dim=12)
    n = m.sample_noise_batch(50_000, (3, 4), rng=6)
    assert n.shape == (50_000, 3, 4)
    fro = np.sum(n ** 2, axis=(1, 2)) / m.sigma_star
    assert stats.kstest(fro, stats.chi2(1).cdf).pvalue > ALPHA
    f_order = n.reshape(50_000, 12, order="F")[:, 0]
    c_order = n.reshape(50_000, 12)[:, 0]
    assert stats.ks_2samp(f_order, c_order).pvalue > ALPHA
    sq = make(dim=9)
    with pytest.warns(RefutedGuaranteeWarning):
        out = sq.release(np.eye(3), rng=1).value
    sym = (out + out.T) / 2
    assert np.array_equal(sym, sym.T)
    with pytest.raises(InvalidShapeError):
        m.sample_noise_batch(3, (5, 5), rng=0)


def test_ball_event_counterexample():
    # T-P1 (documents known unsoundness): P_x[‖s − f(x)‖ < Δ/2] ≈ 0.0127 ≫ δ, P_x'[·] ≈ 0.
    m = make(dim=10, epsilon=0.05, delta=1e-5)
    assert m.sigma_star == pytest.approx(983.7, rel=1e-4)
    n = m.sample_noise_batch(1_000_000, rng=7)
    d = np.zeros(10)
    d[0] = 1.0
    in_ball_x = np.mean(np.linalg.norm(n, axis=1) < 0.5)
    in_ball_xp = np.mean(np.linalg.norm(d + n, axis=1) < 0.5)
    assert in_ball_x == pytest.approx(0.0127, abs=0.0006)
    assert in_ball_xp < 2e-5
    # Claimed guarantee violated: P_x[B] > e^ε P_x'[B] + δ.
    assert in_ball_x > math.exp(0.05) * in_ball_xp + 1e-5


def test_log_likelihood_ratio_matches_density():
    m = make(dim=6, epsilon=0.1)
    rng = np.random.default_rng(0)
    a, b = np.zeros(6), np.eye(6)[0]
    y = rng.standard_normal((5, 6)) * 3
    from matrixdp.calibration.r1smg import r1smg_log_noise_density
    expected = (r1smg_log_noise_density(np.linalg.norm(y - b, axis=1), 6, m.sigma_star)
                - r1smg_log_noise_density(np.linalg.norm(y - a, axis=1), 6, m.sigma_star))
    assert np.allclose(m.log_likelihood_ratio(y, a, b), expected, rtol=1e-12)


def test_non_finite_values_are_rejected():
    from matrixdp.errors import NonFiniteInputError

    m = make(dim=4)
    for bad in (np.array([np.nan, 0, 0, 0]), np.array([0, np.inf, 0, 0]), np.array([0, 0, 0, -np.inf])):
        with pytest.raises(NonFiniteInputError, match="value"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.release(bad, rng=0)
    with pytest.raises(ValueError, match="value_prime"):
        matrixdp.audit.audit_mechanism(m, np.zeros(4), np.array([np.inf, 0, 0, 0]), n_samples=100)
