"""Tests of matrixdp.baselines: calibrations, noise scales, samplers and their failure modes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from matrixdp import baselines as B
from matrixdp.calibration.gaussian import gaussian_delta
from matrixdp.errors import InvalidParameterError, InvalidPrivacyParameterError, OutOfBoundsError


# ----------------------------------------------------------------------------- classic Gaussian

def test_dwork_roth_sigma_formula_and_exact_check():
    sigma = B.dwork_roth_sigma(0.5, 1e-5, 2.0)
    assert sigma == pytest.approx(2.0 * math.sqrt(2 * math.log(1.25e5)) / 0.5, rel=1e-12)
    # ε = 1 (the MVG paper's setting) is outside the theorem but the exact profile confirms it.
    s = B.dwork_roth_sigma(1.0, 1 / 248, 2 * math.sqrt(6))
    assert gaussian_delta(1.0, s, 2 * math.sqrt(6)) <= 1 / 248
    # For large ε the classic formula over-claims: refused.
    with pytest.raises(InvalidPrivacyParameterError, match="epsilon"):
        B.dwork_roth_sigma(10.0, 1e-5, 1.0)


def test_classic_gaussian_baseline_noise_scale():
    mech = B.ClassicGaussianBaseline(epsilon=1.0, delta=1e-3, sensitivity=1.0)
    assert mech.privacy.delta == 1e-3 and mech.privacy.exact is False
    assert "classic" in mech.privacy.calibration
    noise = mech.sample_noise(200_000, rng=3)
    sd = noise.std()
    assert sd == pytest.approx(mech.sigma, rel=0.01)
    assert not (0.7 * mech.sigma * 0.99 < sd < 0.7 * mech.sigma * 1.01)
    assert not (1.3 * mech.sigma * 0.99 < sd < 1.3 * mech.sigma * 1.01)
    rel = mech.release(np.zeros((3, 4)), rng=1)
    assert rel.value.shape == (3, 4)


# ----------------------------------------------------------------------------- symmetric noise

def test_covariance_upper_sensitivity_values_and_bound():
    assert B.covariance_upper_sensitivity(4, 100, 10176, norm=1) == pytest.approx(19.654088, rel=1e-6)
    assert B.covariance_upper_sensitivity(4, 100, 10176, norm=2) == pytest.approx(7.861635, rel=1e-6)
    # Brute force over corner records: no replace-one pair exceeds the bounds.
    rng = np.random.default_rng(0)
    d, c, n = 4, 1.0, 10
    x = rng.choice([-c, c], size=(500, d)) * rng.uniform(0, 1, size=(500, 1))
    y = rng.choice([-c, c], size=(500, d))
    iu = np.triu_indices(d)
    diff = (np.einsum("ij,ik->ijk", x, x) - np.einsum("ij,ik->ijk", y, y))[:, iu[0], iu[1]] / n
    assert np.abs(diff).sum(axis=1).max() <= B.covariance_upper_sensitivity(d, c, n, norm=1) + 1e-12
    assert np.linalg.norm(diff, axis=1).max() <= B.covariance_upper_sensitivity(d, c, n, norm=2) + 1e-12
    with pytest.raises(InvalidParameterError, match="norm"):
        B.covariance_upper_sensitivity(4, 1, 10, norm=3)


def test_symmetric_release_is_symmetric_with_the_mechanism_scale():
    from matrixdp import LaplaceMechanism

    mech = LaplaceMechanism(epsilon=1.0, sensitivity=2.0)
    a = np.diag([1.0, 2.0, 3.0])
    draws = np.stack([B.symmetric_release(a, mech, rng=s) for s in range(3000)])
    np.testing.assert_allclose(draws, np.transpose(draws, (0, 2, 1)))
    upper = (draws - a)[:, [0, 0, 1], [1, 2, 2]].ravel()
    assert upper.var() == pytest.approx(mech.variance, rel=0.05)
    with pytest.raises(InvalidParameterError, match="symmetric"):
        B.symmetric_release(np.array([[1.0, 2.0], [0.0, 1.0]]), mech)


def test_analyze_gauss():
    a = np.eye(5)
    draws = np.stack([B.analyze_gauss(a, sigma=0.5, rng=s) for s in range(2000)])
    np.testing.assert_allclose(draws, np.transpose(draws, (0, 2, 1)))
    assert (draws[:, 1, 3]).std() == pytest.approx(0.5, rel=0.05)
    assert (draws[:, 2, 2] - 1).std() == pytest.approx(0.5, rel=0.05)


# ----------------------------------------------------------------------------- PPCA / Bingham

def _importance_reference(m: np.ndarray, n: int = 400_000) -> np.ndarray:
    rng = np.random.default_rng(123)
    u = rng.standard_normal((n, m.shape[0]))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    w = np.exp(np.einsum("ij,jk,ik->i", u, m, u))
    return (u ** 2 * w[:, None]).sum(axis=0) / w.sum()


def test_bingham_sampler_matches_density_and_rejects_wrong_scales():
    m = np.diag([3.0, 1.0, 0.0, 0.0])
    draws = B.sample_bingham(m, 40_000, rng=1)
    np.testing.assert_allclose(np.linalg.norm(draws, axis=1), 1.0)
    moments = np.mean(draws ** 2, axis=0)
    np.testing.assert_allclose(moments, _importance_reference(m), atol=0.01)
    for wrong in (0.7, 1.3):
        assert np.abs(moments - _importance_reference(wrong * m)).max() > 0.05


def test_bingham_sampler_in_a_rotated_basis_and_high_concentration():
    rng = np.random.default_rng(5)
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    m = q @ np.diag([2000.0, 10.0, 0.0, 0.0]) @ q.T
    draws = B.sample_bingham(m, 2000, rng=2)
    # Concentrated around ±q[:, 0]: E[1 − (vᵀq₀)²] ≈ Σ_i 1/(2(λ₁ − λ_i)) for large gaps.
    off = 1 - (draws @ q[:, 0]) ** 2
    expected = 1 / (2 * 1990.0) + 2 / (2 * 2000.0)
    assert off.mean() == pytest.approx(expected, rel=0.1)


def test_ppca_top_component():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5000, 3)) * np.array([1.0, 0.2, 0.1])
    x /= np.linalg.norm(x, axis=1).max()
    v = B.ppca_top_component(x, epsilon=5.0, row_norm_bound=1.0, rng=1)
    assert np.linalg.norm(v) == pytest.approx(1.0)
    assert abs(v[0]) > 0.95
    # Tiny ε: close to uniform (|v₀| is not concentrated near 1).
    small = np.array([abs(B.ppca_top_component(x, epsilon=1e-4, row_norm_bound=1.0, rng=s)[0])
                      for s in range(300)])
    assert small.mean() == pytest.approx(0.5, abs=0.06)  # E|v₀| = 1/2 on S²
    with pytest.raises(OutOfBoundsError):
        B.ppca_top_component(x * 2, epsilon=1.0, row_norm_bound=1.0)


# ----------------------------------------------------------------------------- JL (Blocki et al.)

def test_blocki_w_formula():
    assert B.blocki_w(4, 1.0, 1e-3) == pytest.approx(16 * math.sqrt(4 * math.log(2e3)) * math.log(64e3))
    with pytest.raises(InvalidParameterError, match="r"):
        B.blocki_w(0, 1.0, 1e-3)


def test_blocki_jl_covariance_is_unbiased():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=(400, 3))
    target = x.T @ x / 400
    estimates = np.stack([B.blocki_jl_covariance(x, epsilon=50.0, delta=0.1, r=64, row_norm_bound=2.0,
                                                 rng=s).covariance for s in range(400)])
    single = B.blocki_jl_covariance(x, epsilon=50.0, delta=0.1, r=64, row_norm_bound=2.0, rng=0)
    assert single.sketch.shape == (64, 3) and single.scale == 4.0
    spread = estimates.std(axis=0) / math.sqrt(len(estimates))
    assert np.all(np.abs(estimates.mean(axis=0) - target) < 4 * spread)
    with pytest.raises(OutOfBoundsError):
        B.blocki_jl_covariance(x, epsilon=1.0, delta=0.1, r=4, row_norm_bound=0.5)


# ----------------------------------------------------------------------------- random guesses

def test_random_guesses():
    v = B.random_unit_vector(7, rng=0)
    assert v.shape == (7,) and np.linalg.norm(v) == pytest.approx(1.0)
    q = B.random_orthonormal_basis(5, rng=0)
    np.testing.assert_allclose(q.T @ q, np.eye(5), atol=1e-12)
    # Haar: the first column is uniform on the sphere, E[q₀₀²] = 1/5.
    firsts = np.array([B.random_orthonormal_basis(5, rng=s)[0, 0] for s in range(4000)])
    assert np.mean(firsts ** 2) == pytest.approx(0.2, abs=0.02)
    p = B.uniform_predictions(10_000, -1.0, 3.0, rng=0)
    assert p.min() >= -1 and p.max() <= 3 and p.mean() == pytest.approx(1.0, abs=0.05)
    with pytest.raises(InvalidParameterError):
        B.uniform_predictions(3, 2.0, 1.0)
    with pytest.raises(InvalidParameterError):
        B.random_unit_vector(0)


def test_not_reproduced_reasons():
    assert set(B.NOT_REPRODUCED) == {"jl-upadhyay", "exponential-blr"}
    assert all(len(reason) > 80 for reason in B.NOT_REPRODUCED.values())


def test_covariance_upper_sensitivity_holds_for_the_norm_ball():
    """The bounds need only ‖x‖² ≤ d c² (used for centred data whose entries leave [−c, c])."""
    rng = np.random.default_rng(1)
    d, c, n = 4, 1.0, 1
    radius = math.sqrt(d) * c
    x = rng.standard_normal((4000, d))
    x *= radius / np.linalg.norm(x, axis=1, keepdims=True)  # on the sphere of radius 2c
    y = -x[::-1]
    iu = np.triu_indices(d)
    diff = (np.einsum("ij,ik->ijk", x, x) - np.einsum("ij,ik->ijk", y, y))[:, iu[0], iu[1]] / n
    assert np.abs(x).max() > c  # entries do leave [−c, c]
    assert np.abs(diff).sum(axis=1).max() <= B.covariance_upper_sensitivity(d, c, n, norm=1) + 1e-9
    assert np.linalg.norm(diff, axis=1).max() <= B.covariance_upper_sensitivity(d, c, n, norm=2) + 1e-9


def test_blocki_jl_noise_floor_has_the_claimed_scale():
    # The sketch's rows are N(0, aᵀa + w²I) (a = X/2R): its second moment pins the noise floor w
    # of Blocki et al. A floor of 0.7w or 1.3w (a wrong calibration) is rejected.
    x = np.random.default_rng(1).uniform(-1, 1, size=(50, 3))
    eps, delta, r = 1.0, 1e-3, 8
    w = B.blocki_w(r, eps, delta)
    a = x / 4.0  # row_norm_bound 2 -> scale 2R = 4
    second = np.mean([(lambda s: s.T @ s / r)(B.blocki_jl_covariance(
        x, epsilon=eps, delta=delta, r=r, row_norm_bound=2.0, rng=seed).sketch) for seed in range(2000)],
        axis=0)
    ratio = np.diag(second) / np.diag(a.T @ a + w * w * np.eye(3))
    assert np.all(np.abs(ratio - 1) < 0.05), ratio          # 16,000 squares each: sd ~1.1%
    for wrong in (0.7, 1.3):
        wrong_ratio = np.diag(second) / np.diag(a.T @ a + (wrong * w) ** 2 * np.eye(3))
        assert np.all(np.abs(wrong_ratio - 1) > 0.3), wrong_ratio


def test_symmetric_release_is_charged_and_draws_as_before():
    """Task PA (session 18): symmetric_release drew through ``mechanism.sample_noise`` (the
    uncharged auditing path). It now releases the upper triangle through the mechanism: one
    charge of the mechanism's guarantee, and the same draws as before for a seed (so the
    experiments that use it reproduce their numbers)."""
    from matrixdp import LaplaceMechanism
    from matrixdp.accounting import Accountant
    from matrixdp.baselines import symmetric_release
    from matrixdp.baselines.symmetric import mirror_upper

    X = np.random.default_rng(0).uniform(-1, 1, (50, 4))
    A = X.T @ X / 50
    mech = LaplaceMechanism(epsilon=0.7, sensitivity=0.1)
    acc = Accountant(epsilon=1.0)
    out = symmetric_release(A, mech, rng=3, accountant=acc)
    before = A + mirror_upper(mech.sample_noise(10, rng=np.random.default_rng(3)), 4)
    assert np.array_equal(out, before)
    assert np.array_equal(out, out.T)
    assert len(acc.spends) == 1 and acc.spends[0][1].epsilon == pytest.approx(0.7)
    assert not np.array_equal(symmetric_release(A, mech, rng=4), out)  # a real draw


def test_augmented_upper_sensitivity_bounds_every_pair_and_is_attained():
    """Hunt HW: the mirrored triangle of (1/n) Σ z zᵀ, z = (x - c, t), moves by at most R²/n
    (R² = ‖h‖² + t²), not the whole matrix's √2·R²/n. 20,000 random record pairs (vertices and
    interior points) in 6 boxes never exceed it; the vertex pair with uᵀu' = -t² (balanced t)
    attains it to 1e-12 (on at least 3 of the boxes), so a value 30% smaller or larger fails."""
    from matrixdp.models._moments import balanced_constant

    rng = np.random.default_rng(20)
    attained_boxes = 0
    for d in (1, 2, 3, 4, 5, 6):
        h = rng.uniform(0.2, 3.0, d)
        t = balanced_constant(h, float(np.mean(h * h)))
        n = 7
        bound = B.augmented_upper_sensitivity(h, t, n)
        assert bound == pytest.approx((h @ h + t * t) / n, rel=1e-15)
        iu = np.triu_indices(d + 1)
        u = rng.uniform(-h, h, (20000 // 6, d))
        up = rng.uniform(-h, h, u.shape)
        vert = rng.random(u.shape) < 0.5          # half the coordinates at a vertex
        u = np.where(vert, np.sign(u) * h, u)
        up = np.where(vert, np.sign(up) * h, up)
        z = np.column_stack([u, np.full(len(u), t)])
        zp = np.column_stack([up, np.full(len(up), t)])
        D = (np.einsum("ki,kj->kij", z, z) - np.einsum("ki,kj->kij", zp, zp)) / n
        change = np.sqrt((D[:, iu[0], iu[1]] ** 2).sum(-1))
        assert change.max() <= bound * (1 + 1e-12)
        # the attaining pair: vertices s, s' with Σ s_i s'_i h_i² = -t² (balanced_constant's t)
        signs = np.array(list(np.ndindex(*(2,) * d))) * 2 - 1
        sums = signs @ (h * h)
        k = int(np.argmin(np.abs(np.abs(sums) - t * t)))
        if abs(abs(sums[k]) - t * t) > 1e-9 * t * t:
            continue  # t not an achievable value (unequal widths): the bound is not attained
        a = h.copy()
        b = signs[k] * h * (-np.sign(sums[k]))
        za, zb = np.append(a, t), np.append(b, t)
        Dab = (np.outer(za, za) - np.outer(zb, zb)) / n
        attained = float(np.sqrt((Dab[iu] ** 2).sum()))
        assert attained == pytest.approx(bound, rel=1e-12)
        whole = float(np.linalg.norm(Dab))
        assert whole == pytest.approx(math.sqrt(2) * bound, rel=1e-12)
        attained_boxes += 1
    assert attained_boxes >= 3  # equality (a 30% smaller or larger value fails) checked on >= 3


def test_augmented_upper_sensitivity_refuses_bad_inputs():
    for kwargs, name in [(dict(half_widths=[-1.0], t=1.0, n=3), "half_widths"),
                         (dict(half_widths=[1.0], t=-1.0, n=3), "t"),
                         (dict(half_widths=[1.0], t=1.0, n=0), "n")]:
        with pytest.raises(InvalidParameterError, match=name):
            B.augmented_upper_sensitivity(**kwargs)
