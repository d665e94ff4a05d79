"""method='adaptive' (issue 24): a private first look decides between the box and CoinPress."""

from __future__ import annotations

import math

import numpy as np
import pytest

from matrixdp.calibration.gaussian import max_gaussian_shift
from matrixdp.errors import InvalidParameterError
from matrixdp.models import DPCovariance, DPPCA
from matrixdp.models.adaptive import adaptive_covariance


def concentrated_table(n, seed=0):
    """Gaussian records whose spread is a small part of the public box [-10, 10]^4."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(4, 4))
    cov = a @ a.T / 4 + 0.2 * np.eye(4)
    return np.clip(rng.multivariate_normal([1.0, -2.0, 0.5, 3.0], cov, size=n), -10, 10)


def filling_table(n, seed=0):
    """Records spread over the whole public box [-10, 10]^4 (nothing to shrink)."""
    return np.random.default_rng(seed).uniform(-10, 10, (n, 4))


@pytest.mark.parametrize("make", [concentrated_table, filling_table])
def test_the_three_releases_compose_to_the_budget(make):
    """Exact GDP composition: √(μ₁² + μ_b² + μ₂²) equals μ*(ε, δ) (the whole budget is used and
    never exceeded), whichever kind the last release is."""
    X = make(3000)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    for eps in (0.3, 2.0):
        res = adaptive_covariance(X, lo, hi, epsilon=eps, delta=1e-6, rng=1)
        mu_star = max_gaussian_shift(eps, 1e-6)
        total = math.sqrt(sum(m * m for m in res.mus))
        assert total <= mu_star * (1 + 1e-9)
        assert total == pytest.approx(mu_star, rel=1e-6)
        assert res.privacy.mu == pytest.approx(mu_star)
        assert (res.privacy.epsilon, res.privacy.delta) == (eps, 1e-6)
        assert not res.privacy.exact


def test_charges_once_before_noise_and_is_reproducible():
    from matrixdp.accounting import Accountant

    X = concentrated_table(2000)
    acc = Accountant(epsilon=5.0, delta=1e-5)
    est = DPCovariance(epsilon=1.0, bounds=(-10, 10), method="adaptive", random_state=4,
                       accountant=acc).fit(X)
    assert est.noise_ == "adaptive"
    assert est.adaptive_choice_ in ("moments", "coinpress")
    assert set(est.adaptive_predicted_) == {"moments", "coinpress", "clipping_loss",
                                           "clipping_loss_sd"}
    assert len(acc.spends) == 1 and acc.spends[0][1] == est.privacy_
    assert est.privacy_.mu == pytest.approx(max_gaussian_shift(1.0, 1e-6))
    again = DPCovariance(epsilon=1.0, bounds=(-10, 10), method="adaptive",
                         random_state=4).fit(X)
    np.testing.assert_array_equal(est.covariance_, again.covariance_)
    other = DPCovariance(epsilon=1.0, bounds=(-10, 10), method="adaptive",
                         random_state=5).fit(X)
    assert not np.array_equal(est.covariance_, other.covariance_)


def test_rejects_what_it_does_not_support():
    X = np.zeros((10, 2))
    with pytest.raises(InvalidParameterError, match="method"):
        DPCovariance(bounds=(0, 1), method="adaptive", kind="gram").fit(X)
    with pytest.raises(InvalidParameterError, match="method"):
        DPCovariance(bounds=(0, 1), method="adaptive", neighbouring="add-remove").fit(X)
    with pytest.raises(InvalidParameterError, match="method"):
        DPPCA(bounds=(0, 1), method="adaptive", neighbouring="add-remove").fit(X)
    with pytest.raises(InvalidParameterError, match="share"):
        adaptive_covariance(X, [0, 0], [1, 1], epsilon=1.0, delta=1e-6, first_share=0.99,
                            bias_share=0.02)


def test_the_moments_branch_has_the_stated_noise_scale():
    """When the records fill the box the last release is a second moments release, averaged
    with the first by inverse variances. The released mean's error, divided by the exact
    standard deviation the result states, has unit variance: 300 fits × 4 features = 1200
    z-scores, whose standard deviation is checked in [0.9, 1.1] (its sampling error is ~0.02;
    a ±30% wrong scale gives 0.7 or 1.3 and fails)."""
    X = filling_table(400, seed=3)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    truth = X.mean(axis=0)
    z = []
    for s in range(300):
        res = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=s)
        assert res.choice == "moments"
        t2 = res.entry_variance.shape[0] - 1
        sd_mean = np.sqrt(res.entry_variance[:t2, t2]) / _t(lo, hi, X.shape[0])
        z.append((res.location - truth) / sd_mean)
    z = np.concatenate(z)
    assert abs(float(np.mean(z))) < 0.1
    assert 0.9 < float(np.std(z)) < 1.1


def _t(lo, hi, n):
    from matrixdp.models._moments import augmented_task

    return augmented_task(np.asarray(lo), np.asarray(hi), n, "covariance")[2]


def test_the_moments_branch_loses_little_where_there_is_nothing_to_shrink():
    """Records that fill the box: adaptive spends the rest on the moments release and its error
    stays within 15% of the one-shot default (measured median ratio ~1.0; the averaged release
    has 1/0.97 of the one-shot variance, the clipping-loss scalar took 3% of μ²)."""
    X = filling_table(5000, seed=1)
    truth = np.cov(X.T, bias=True)
    med = {}
    for method in ("moments", "adaptive"):
        errs = [np.linalg.norm(DPCovariance(epsilon=1.0, bounds=(-10, 10), method=method,
                                            random_state=s).fit(X).covariance_ - truth)
                for s in range(30)]
        med[method] = float(np.median(errs))
    assert med["adaptive"] < 1.15 * med["moments"], med


def test_it_shrinks_the_box_where_the_records_are_concentrated():
    """Records in a small ellipsoid of a wide box, large ε n: the private first look sees it,
    the last release is the whitened CoinPress step, and the error is well below the one-shot
    default's (measured ratio ~0.3 at these seeds; the check is < 0.6) and close to CoinPress'."""
    X = concentrated_table(20000)
    truth = np.cov(X.T, bias=True)
    med, chosen = {}, []
    for method in ("moments", "coinpress", "adaptive"):
        errs = []
        for s in range(10):
            est = DPCovariance(epsilon=2.0, bounds=(-10, 10), method=method,
                               random_state=s).fit(X)
            errs.append(np.linalg.norm(est.covariance_ - truth))
            if method == "adaptive":
                chosen.append(est.adaptive_choice_)
        med[method] = float(np.median(errs))
    assert chosen.count("coinpress") == len(chosen)
    assert med["adaptive"] < 0.6 * med["moments"], med
    assert med["adaptive"] < 1.3 * med["coinpress"], med


def test_pca_adaptive_gives_orthonormal_components_near_pca():
    X = concentrated_table(5000)
    est = DPPCA(n_components=2, epsilon=5.0, bounds=(-10, 10), method="adaptive",
                random_state=0).fit(X)
    np.testing.assert_allclose(est.components_ @ est.components_.T, np.eye(2), atol=1e-10)
    assert est.noise_ == "adaptive"
    assert est.privacy_.mu == pytest.approx(max_gaussian_shift(5.0, 1e-6))
    lam, vec = np.linalg.eigh(np.cov(X.T, bias=True))
    top = vec[:, ::-1][:, :2]
    captured = np.trace(est.components_ @ np.cov(X.T, bias=True) @ est.components_.T)
    assert captured > 0.95 * lam[::-1][:2].sum()
    assert top.shape == (4, 2)
