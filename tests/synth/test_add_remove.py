"""The strict add/remove variant (spec section 3.3 (c)): DP counts, DP sums, DP scatters."""

import math

import numpy as np
import pytest
from scipy import stats

from matrixdp import RONGauss
from matrixdp.errors import InvalidParameterError
from matrixdp.synth import normalize_rows, ron_matrix
from matrixdp.synth.group import fit_group_add_remove, scatter_sensitivity_add_remove


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(1200, 15))
    y = np.where(X[:, 0] > 0.6, 1, 0)
    return X, y


def test_scatter_sensitivity_sound_and_tight():
    rng = np.random.default_rng(1)
    p, a = 6, 0.7
    u = normalize_rows(rng.normal(size=(20000, p))) * rng.uniform(0, 1, size=(20000, 1))
    assert (np.abs(u).sum(axis=1) ** 2).max() <= scatter_sensitivity_add_remove(p)
    flat = np.full(p, 1 / math.sqrt(p))
    assert np.abs(np.outer(flat, flat)).sum() == pytest.approx(scatter_sensitivity_add_remove(p))
    ua = np.append(flat, a)
    assert np.abs(np.outer(ua, ua)).sum() == pytest.approx(scatter_sensitivity_add_remove(p, a))


def test_guarantee_budget_and_attributes(data):
    X, y = data
    model = RONGauss(dim=3, epsilon=1.0, epsilon_counts=0.1, neighbouring="add-remove",
                     task="classification", classes=[0, 1], class_weights="dp",
                     random_state=0).fit(X, y)
    g = model.privacy_
    assert g.neighbouring == "add-remove" and g.epsilon == pytest.approx(1.0) and not g.refuted
    assert model.epsilon_mean_ == pytest.approx(0.45) and model.epsilon_cov_ == pytest.approx(0.45)
    assert model.class_counts_.shape == (2,)
    assert np.abs(model.class_counts_ - np.bincount(y)).max() < 100  # Lap(10): sanity only
    _, ys = model.sample(4000)
    assert np.mean(ys == 1) == pytest.approx(np.mean(y == 1), abs=0.03)  # reuses the DP counts


def test_counts_budget_defaults_to_a_share_of_epsilon_and_corrected_mode_is_required(data):
    from matrixdp.synth.ron_gauss import DEFAULT_COUNTS_FRACTION

    X, _ = data
    model = RONGauss(dim=3, epsilon=1.0, neighbouring="add-remove", random_state=0).fit(X)
    assert model.epsilon_counts_ == pytest.approx(DEFAULT_COUNTS_FRACTION)
    assert model.epsilon_mean_ + model.epsilon_cov_ + model.epsilon_counts_ == pytest.approx(1.0)
    with pytest.raises(InvalidParameterError, match="epsilon_counts"):  # no total to take it from
        RONGauss(dim=3, epsilon_mean=0.5, epsilon_cov=0.5, neighbouring="add-remove").fit(X)
    with pytest.raises(InvalidParameterError, match="sensitivity"):
        RONGauss(dim=3, epsilon=1.0, epsilon_counts=0.1, neighbouring="add-remove",
                 sensitivity="paper", allow_unsafe=True).fit(X)
    with pytest.raises(InvalidParameterError, match="neighbouring"):
        RONGauss(dim=3, epsilon=1.0, neighbouring="swap").fit(X)


def test_empty_class_is_fine_under_add_remove(data):
    X, y = data
    model = RONGauss(dim=3, epsilon=1.0, epsilon_counts=0.2, neighbouring="add-remove",
                     task="classification", classes=[0, 1, 2], random_state=2).fit(X, y)
    assert model.covariance_.shape == (3, 3, 3)
    assert np.isfinite(model.covariance_).all()


def test_high_epsilon_matches_the_replace_one_model(data):
    X, y = data
    kw = dict(dim=4, task="regression", label_bound=1.0, random_state=3)
    strict = RONGauss(epsilon_mean=1e9, epsilon_cov=1e9, epsilon_counts=1e9,
                      neighbouring="add-remove", **kw).fit(X, y / 2)
    bounded = RONGauss(epsilon_mean=1e9, epsilon_cov=1e9, **kw).fit(X, y / 2)
    np.testing.assert_allclose(strict.mean_, bounded.mean_, atol=1e-6)
    np.testing.assert_allclose(strict.covariance_, bounded.covariance_, atol=1e-6)
    assert strict.n_records_ == pytest.approx(X.shape[0], abs=1e-3)


def test_scatter_noise_has_the_claimed_laplace_scale():
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(300, 12))
    W = ron_matrix(12, 6, rng=5)
    eps_cov = 0.8
    b = scatter_sensitivity_add_remove(6) / eps_cov
    z = []
    for _ in range(450):
        fit = fit_group_add_remove(X, W, epsilon_counts=1.0, epsilon_mean=1.0,
                                   epsilon_cov=eps_cov, rng=rng)
        Xt = normalize_rows(normalize_rows(X) - fit.mean) @ W
        z.append((fit.covariance_raw * max(fit.count, 1.0) - Xt.T @ Xt).ravel())
    z = np.concatenate(z)  # 16 200 values
    assert stats.kstest(z, "laplace", args=(0, b)).pvalue > 1e-3
    for wrong in (0.7 * b, 1.3 * b):
        assert stats.kstest(z, "laplace", args=(0, wrong)).pvalue < 1e-6
