"""The MVG sampler and density (spec mvg.md §1.2, §5, §11 items 10-11)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.integrate
import scipy.stats

from matrixdp.errors import (
    InvalidParameterError,
    InvalidShapeError,
    NonFiniteInputError,
    NotPositiveSemidefiniteError,
)
from matrixdp.mechanisms.mvg_sampler import (
    KRONECKER_MAX_DIM,
    MVGSampler,
    covariance_factor,
    mvg_entropy,
    mvg_logpdf,
    sample_mvg,
    sample_mvg_eig,
)
from matrixdp._linalg import EigenCov, covariance_eigenvalues, vec


def _random_spd(dim, rng, spread=3.0):
    q, _ = np.linalg.qr(rng.standard_normal((dim, dim)))
    lam = np.exp(rng.uniform(-spread / 2, spread / 2, dim))
    return (q * lam) @ q.T, q, lam


@pytest.fixture(scope="module")
def covs():
    rng = np.random.default_rng(2024)
    row_cov, _, _ = _random_spd(4, rng)
    col_cov, _, _ = _random_spd(3, rng)
    return row_cov, col_cov


def _whitened_mean_square(draws, row_cov, col_cov):
    """Mean of the squared entries of L_Σ⁻¹ Z L_Ψ⁻ᵀ: 1 under the claimed law."""
    lr = np.linalg.cholesky(row_cov)
    lc = np.linalg.cholesky(col_cov)
    w = np.linalg.solve(lr, draws)                       # (k, m, n)
    w = np.linalg.solve(lc, np.swapaxes(w, 1, 2))        # (k, n, m)
    return float(np.mean(w * w)), w.size


# ----------------------------------------------------------------------------- moments
@pytest.mark.parametrize("method", ["affine", "kronecker"])
def test_row_and_column_second_moments(covs, method):
    row_cov, col_cov = covs
    k = 40_000
    z = sample_mvg(row_cov, col_cov, rng=7, method=method, size=k)
    assert z.shape == (k, 4, 3)
    row_emp = np.einsum("kij,klj->il", z, z) / k       # E[Z Zᵀ] = tr(Ψ) Σ
    col_emp = np.einsum("kij,kil->jl", z, z) / k       # E[Zᵀ Z] = tr(Σ) Ψ
    row_true = np.trace(col_cov) * row_cov
    col_true = np.trace(row_cov) * col_cov

    def rel_err(emp, true):
        return np.linalg.norm(emp - true) / np.linalg.norm(true)

    tol = 0.04  # Monte-Carlo relative error here is ~0.01
    assert rel_err(row_emp, row_true) < tol
    assert rel_err(col_emp, col_true) < tol
    for wrong in (0.7, 1.3):
        assert rel_err(row_emp, wrong * row_true) > tol
        assert rel_err(col_emp, wrong * col_true) > tol
    assert np.abs(z.mean(axis=0)).max() < 5 * np.sqrt(np.diag(row_cov).max() * np.diag(col_cov).max() / k)


@pytest.mark.parametrize("method", ["affine", "kronecker"])
def test_vec_covariance_is_kron_col_row(covs, method):
    row_cov, col_cov = covs
    k = 60_000
    z = sample_mvg(row_cov, col_cov, rng=8, method=method, size=k)
    v = z.transpose(0, 2, 1).reshape(k, -1)              # column-stacking vec of each draw
    assert np.array_equal(v[0], vec(z[0]))
    emp = v.T @ v / k
    kron = np.kron(col_cov, row_cov)
    scale = np.abs(kron).max()
    assert np.abs(emp - kron).max() < 0.05 * scale
    # row-major flattening would have Σ ⊗ Ψ instead, a different matrix
    assert np.abs(emp - np.kron(row_cov, col_cov)).max() > 0.2 * scale
    v_rowmajor = z.reshape(k, -1)
    assert np.abs(v_rowmajor.T @ v_rowmajor / k - np.kron(row_cov, col_cov)).max() < 0.05 * scale


@pytest.mark.parametrize("method", ["affine", "kronecker"])
def test_whitened_draws_are_standard_and_wrong_scale_rejected(covs, method):
    row_cov, col_cov = covs
    z = sample_mvg(row_cov, col_cov, rng=9, method=method, size=4000)
    ms, count = _whitened_mean_square(z, row_cov, col_cov)
    sd = np.sqrt(2.0 / count)
    assert abs(ms - 1.0) < 5 * sd
    for wrong in (0.7, 1.3):
        ms_wrong, _ = _whitened_mean_square(z, wrong * row_cov, col_cov)
        assert abs(ms_wrong - 1.0) > 20 * sd


def test_affine_and_kronecker_agree_in_distribution(covs):
    row_cov, col_cov = covs
    rng = np.random.default_rng(5)
    k = 20_000
    za = sample_mvg(row_cov, col_cov, rng=1, size=k).transpose(0, 2, 1).reshape(k, -1)
    zk = sample_mvg(row_cov, col_cov, rng=2, size=k, method="kronecker").transpose(0, 2, 1).reshape(k, -1)
    zw = sample_mvg(1.3 * row_cov, col_cov, rng=3, size=k, method="kronecker").transpose(0, 2, 1).reshape(k, -1)
    for _ in range(5):
        u = rng.standard_normal(za.shape[1])
        assert scipy.stats.ks_2samp(za @ u, zk @ u).pvalue > 1e-3
        assert scipy.stats.ks_2samp(za @ u, zw @ u).pvalue < 1e-6


# ----------------------------------------------------------------------------- affine paths
def _kinds(rng):
    """Covariance inputs exercising each factor kind: diagonal, dense (Cholesky), EigenCov."""
    full4, q4, lam4 = _random_spd(4, rng)
    full3, q3, lam3 = _random_spd(3, rng)
    return {
        "diag": (np.diag(lam4), np.diag(lam3)),
        "chol": (full4, full3),
        "eigen": (EigenCov(lam4, q4), EigenCov(lam3, q3)),
        "eigen_std": (EigenCov(lam4), EigenCov(lam3)),
        "identity": (np.eye(4), EigenCov(np.ones(3))),
    }


@pytest.mark.parametrize("row_kind", ["diag", "chol", "eigen", "eigen_std", "identity"])
@pytest.mark.parametrize("col_kind", ["diag", "chol", "eigen", "eigen_std", "identity"])
def test_single_draw_equals_factor_product_of_same_normals(row_kind, col_kind):
    """Every fast path (trmm, diagonal scaling, eigen factor) computes exactly B_Σ N B_Ψᵀ."""
    kinds = _kinds(np.random.default_rng(1))
    row_cov, col_cov = kinds[row_kind][0], kinds[col_kind][1]
    z = sample_mvg(row_cov, col_cov, rng=123)
    normals = np.random.default_rng(np.random.PCG64(123)).standard_normal((4, 3))
    br = covariance_factor(row_cov, "row_cov")
    bc = covariance_factor(col_cov, "col_cov")
    assert np.allclose(z, br @ normals @ bc.T, rtol=1e-12, atol=1e-12)
    batch = sample_mvg(row_cov, col_cov, rng=123, size=2)
    normals2 = np.random.default_rng(np.random.PCG64(123)).standard_normal((2, 4, 3))
    assert np.allclose(batch, br @ normals2 @ bc.T, rtol=1e-12, atol=1e-12)


def test_large_triangular_path_equals_factor_product(monkeypatch):
    """The BLAS trmm path (used for large draws) computes exactly L_Σ N L_Ψᵀ."""
    import matrixdp.mechanisms.mvg_sampler as mvg_module

    monkeypatch.setattr(mvg_module, "_TRMM_MIN_DIM", 1)
    kinds = _kinds(np.random.default_rng(2))
    for row_cov, col_cov in [(kinds["chol"][0], kinds["chol"][1]), (kinds["diag"][0], kinds["chol"][1]),
                             (kinds["chol"][0], kinds["eigen"][1]), (kinds["eigen"][0], kinds["chol"][1])]:
        z = sample_mvg(row_cov, col_cov, rng=77)
        normals = np.random.default_rng(np.random.PCG64(77)).standard_normal((4, 3))
        expected = covariance_factor(row_cov) @ normals @ covariance_factor(col_cov).T
        assert np.allclose(z, expected, rtol=1e-12, atol=1e-12)


def test_covariance_factor_reproduces_cov():
    rng = np.random.default_rng(4)
    full, q, lam = _random_spd(6, rng)
    for cov in (full, np.diag(lam), np.eye(6), EigenCov(lam, q)):
        b = covariance_factor(cov)
        dense = cov.matrix() if isinstance(cov, EigenCov) else cov
        assert np.allclose(b @ b.T, dense, rtol=1e-10, atol=1e-12)
    assert np.allclose(EigenCov(lam, q).matrix(), full, rtol=1e-10, atol=1e-12)


def test_singular_psd_covariance_uses_eigen_fallback():
    v = np.array([1.0, 2.0, -1.0])
    rank_one = np.outer(v, v)
    b = covariance_factor(rank_one, "row_cov")
    assert np.allclose(b @ b.T, rank_one, atol=1e-12)
    z = sample_mvg(rank_one, np.eye(5), rng=0)
    # every column lies in span(v)
    resid = z - np.outer(v, v @ z) / (v @ v)
    assert np.abs(resid).max() < 1e-10
    assert np.abs(z).max() > 0.1
    assert np.allclose(covariance_eigenvalues(rank_one), [0, 0, 6], atol=1e-12)
    # an exactly zero covariance is PSD too: no noise
    assert not sample_mvg(np.zeros((2, 2)), np.eye(2), rng=0).any()


def test_same_seed_same_draw_and_secure_default():
    row_cov, col_cov = np.diag([1.0, 2.0]), np.array([[2.0, 0.5], [0.5, 1.0]])
    assert np.array_equal(sample_mvg(row_cov, col_cov, rng=3), sample_mvg(row_cov, col_cov, rng=3))
    assert not np.array_equal(sample_mvg(row_cov, col_cov, rng=3), sample_mvg(row_cov, col_cov, rng=4))
    assert not np.array_equal(sample_mvg(row_cov, col_cov), sample_mvg(row_cov, col_cov))
    sampler = MVGSampler(row_cov, col_cov)
    assert sampler.shape == (2, 2)
    assert np.allclose(sampler.col_factor @ sampler.col_factor.T, col_cov)


def test_sample_mvg_eig_matches_dense_law():
    rng = np.random.default_rng(6)
    full, q, lam = _random_spd(3, rng)
    z = sample_mvg_eig(q, lam, None, np.array([1.0, 4.0]), rng=1, size=5000)
    ms, count = _whitened_mean_square(z, full, np.diag([1.0, 4.0]))
    assert abs(ms - 1) < 5 * np.sqrt(2 / count)
    z_id = sample_mvg_eig(q, lam, np.eye(4), rng=2)  # col_variances None: Ψ = I_4
    assert z_id.shape == (3, 4)
    with pytest.raises(InvalidParameterError, match="col_variances"):
        sample_mvg_eig(q, lam, rng=2)


# ----------------------------------------------------------------------------- validation
def test_rejects_non_square_asymmetric_indefinite_and_nonfinite():
    good = np.eye(2)
    with pytest.raises(InvalidShapeError) as info:
        sample_mvg(np.ones((2, 3)), good, rng=0)
    assert info.value.argument == "row_cov"
    with pytest.raises(NotPositiveSemidefiniteError, match="symmetric") as info:
        sample_mvg(good, np.array([[1.0, 0.5], [0.2, 1.0]]), rng=0)
    assert info.value.argument == "col_cov"
    with pytest.raises(NotPositiveSemidefiniteError, match="semi-definite") as info:
        sample_mvg(np.array([[1.0, 2.0], [2.0, 1.0]]), good, rng=0)
    assert info.value.argument == "row_cov"
    with pytest.raises(NotPositiveSemidefiniteError) as info:
        sample_mvg(good, np.diag([1.0, -1e-3]), rng=0)
    assert info.value.argument == "col_cov"
    with pytest.raises(NonFiniteInputError):
        sample_mvg(np.array([[1.0, np.nan], [np.nan, 1.0]]), good, rng=0)
    with pytest.raises(InvalidShapeError):
        sample_mvg(np.ones(3), good, rng=0)
    with pytest.raises(InvalidParameterError, match="method"):
        sample_mvg(good, good, rng=0, method="cholesky")
    with pytest.raises(InvalidParameterError, match="size"):
        sample_mvg(good, good, rng=0, size=0)
    with pytest.raises(NotPositiveSemidefiniteError):
        EigenCov(np.array([1.0, -1.0]))
    with pytest.raises(InvalidParameterError, match="orthonormal"):
        EigenCov(np.array([1.0, 1.0]), np.array([[1.0, 1.0], [0.0, 1.0]]))


def test_symmetry_tolerance_accepts_rounding():
    rng = np.random.default_rng(8)
    full, _, _ = _random_spd(5, rng)
    noisy = full + 1e-13 * rng.standard_normal((5, 5))
    assert sample_mvg(noisy, np.eye(2), rng=0).shape == (5, 2)


def test_kronecker_size_limit():
    side = int(np.sqrt(KRONECKER_MAX_DIM)) + 1
    with pytest.raises(InvalidShapeError, match="affine"):
        MVGSampler(np.eye(side), np.eye(side), method="kronecker")


# ----------------------------------------------------------------------------- density
def test_logpdf_and_entropy_match_multivariate_normal(covs):
    row_cov, col_cov = covs
    rng = np.random.default_rng(10)
    x = rng.standard_normal((4, 3))
    mean = rng.standard_normal((4, 3))
    mvn = scipy.stats.multivariate_normal(mean=vec(mean), cov=np.kron(col_cov, row_cov))
    assert mvg_logpdf(x, row_cov, col_cov, mean=mean) == pytest.approx(mvn.logpdf(vec(x)), rel=1e-10)
    assert mvg_entropy(row_cov, col_cov) == pytest.approx(mvn.entropy(), rel=1e-10)
    # the other vec convention gives a different density
    wrong = scipy.stats.multivariate_normal(mean=vec(mean), cov=np.kron(row_cov, col_cov)[:12, :12])
    assert mvg_logpdf(x, row_cov, col_cov, mean=mean) != pytest.approx(wrong.logpdf(vec(x)), rel=1e-3)
    with pytest.raises(NotPositiveSemidefiniteError):
        mvg_entropy(np.diag([1.0, 0.0]), np.eye(2))


# ----------------------------------------------------------------------------- privacy loss, information
def test_privacy_loss_of_mvg_noise_is_gaussian_with_mahalanobis_shift(covs):
    """§11.7: for a difference along the least-noisy direction the loss is N(μ²/2, μ²)."""
    row_cov, col_cov = covs
    lam_r, vec_r = np.linalg.eigh(row_cov)
    lam_c, vec_c = np.linalg.eigh(col_cov)
    s2 = 0.8
    diff = s2 * np.outer(vec_r[:, 0], vec_c[:, 0])          # ‖diff‖_F = s2
    mu = s2 / np.sqrt(lam_r[0] * lam_c[0])
    assert mu == pytest.approx(np.linalg.norm(np.linalg.solve(np.linalg.cholesky(np.kron(col_cov, row_cov)),
                                                              vec(diff))), rel=1e-10)
    k = 20_000
    z = sample_mvg(row_cov, col_cov, rng=21, size=k)
    f1, f2 = diff, np.zeros_like(diff)

    def quad(y, mean):  # batched tr[Ψ⁻¹ (Y-M)ᵀ Σ⁻¹ (Y-M)]
        lr, lc = np.linalg.cholesky(row_cov), np.linalg.cholesky(col_cov)
        w = np.linalg.solve(lr, y - mean)
        w = np.linalg.solve(lc, np.swapaxes(w, 1, 2))
        return np.sum(w * w, axis=(1, 2))

    loss = 0.5 * (quad(f1 + z, f2) - quad(f1 + z, f1))
    for i in range(20):  # the density itself gives the same loss
        direct = (mvg_logpdf(f1 + z[i], row_cov, col_cov, mean=f1)
                  - mvg_logpdf(f1 + z[i], row_cov, col_cov, mean=f2))
        assert direct == pytest.approx(loss[i], rel=1e-9, abs=1e-12)
    se_mean = mu / np.sqrt(k)
    assert abs(loss.mean() - mu ** 2 / 2) < 5 * se_mean
    assert abs(loss.std() / mu - 1) < 0.03
    for wrong in (0.7, 1.3):
        assert abs(loss.std() / (wrong * mu) - 1) > 0.15


def test_mutual_information_is_half_log_pnr():
    """§11.13 / Lemma 10: for Gaussian f, I(f; f + Z) = h(f + Z) - h(Z) = ½ log PNR."""
    rng = np.random.default_rng(30)
    sig_r, _, _ = _random_spd(3, rng)
    sig_c, _, _ = _random_spd(2, rng)
    noise_r, _, _ = _random_spd(3, rng)
    noise_c, _, _ = _random_spd(2, rng)
    k_f, k_z = np.kron(sig_c, sig_r), np.kron(noise_c, noise_r)
    h_y = scipy.stats.multivariate_normal(cov=k_f + k_z).entropy()
    mi = h_y - mvg_entropy(noise_r, noise_c)
    pnr = np.linalg.det(k_f + k_z) / np.linalg.det(k_z)
    assert mi == pytest.approx(0.5 * np.log(pnr), rel=1e-10)
    # Gaussian noise is the least informative at equal variance (Theorem 9, scalar case):
    s, n = 2.0, 1.5
    mi_gauss = 0.5 * np.log(1 + s / n)
    # uniform noise of variance n: h(Y) computed numerically, h(noise) = log(width)
    width = np.sqrt(12 * n)
    grid = np.linspace(-12, 12, 24001)
    dens = (scipy.stats.norm.cdf((grid + width / 2) / np.sqrt(s))
            - scipy.stats.norm.cdf((grid - width / 2) / np.sqrt(s))) / width
    h_y_uniform = -scipy.integrate.trapezoid(np.where(dens > 0, dens * np.log(dens), 0.0), grid)
    assert mi_gauss <= h_y_uniform - np.log(width)


def test_eigen_factor_is_applied_by_scaling_the_draw_at_large_d():
    """From d = 256 on, an EigenCov's factor W diag(√λ) is not formed: the draw is scaled by √λ
    before the product with W. Same seed: equal to the formed factor's draw up to rounding."""
    from matrixdp._linalg import EigenCov
    from matrixdp.mechanisms.mvg_sampler import MVGSampler
    from matrixdp.rng import random_directions

    d = 300
    w = random_directions(d, d, rng=1)
    lam = np.random.default_rng(2).uniform(0.5, 2.0, d)
    sampler = MVGSampler(np.eye(7), EigenCov(lam, w))
    got = sampler.sample(rng=5)
    z = np.random.Generator(np.random.PCG64(5)).standard_normal((7, d))
    want = z @ (w * np.sqrt(lam)).T
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max())
    np.testing.assert_allclose(sampler.col_factor, w * np.sqrt(lam), rtol=0, atol=0)
    batch = sampler.sample(rng=5, size=3)
    assert batch.shape == (3, 7, d)
