"""The RON matrix: orthonormality, Lemma 3 and the Haar law (spec section 6, items 4, 5)."""

import math

import numpy as np
import pytest
from scipy import stats

from matrixdp.errors import InvalidParameterError
from matrixdp.synth import data_preprocessing, ron_matrix


@pytest.mark.parametrize("method", ["haar", "paper_uniform_qr_columns", "code_uniform_qr_rows"])
def test_orthonormal_columns_shape_and_reproducible(method):
    W = ron_matrix(20, 6, rng=3, method=method)
    assert W.shape == (20, 6)
    np.testing.assert_allclose(W.T @ W, np.eye(6), atol=1e-10)
    np.testing.assert_array_equal(W, ron_matrix(20, 6, rng=3, method=method))
    assert not np.array_equal(W, ron_matrix(20, 6, rng=4, method=method))


@pytest.mark.parametrize("m, p", [(5, 5), (5, 6), (5, 0), (1, 1)])
def test_invalid_dimensions_raise(m, p):
    with pytest.raises(InvalidParameterError):
        ron_matrix(m, p, rng=0)


def test_unknown_method_raises():
    with pytest.raises(InvalidParameterError, match="projection"):
        ron_matrix(5, 2, rng=0, method="bernoulli")


def test_lemma3_projection_never_increases_norm():
    rng = np.random.default_rng(0)
    W = ron_matrix(30, 4, rng=rng)
    x = rng.normal(size=(5000, 30))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    assert np.linalg.norm(x @ W, axis=1).max() <= 1 + 1e-12
    c = rng.normal(size=(100, 4))
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    np.testing.assert_allclose(np.linalg.norm((c @ W.T) @ W, axis=1), 1.0, atol=1e-12)


def _mean_projected_second_moment(C, p, method, draws, seed):
    m = C.shape[0]
    rng = np.random.default_rng(seed)
    acc = np.zeros((p, p))
    for _ in range(draws):
        W = ron_matrix(m, p, rng=rng, method=method)
        acc += W.T @ C @ W
    return m * acc / draws


@pytest.fixture(scope="module")
def centred_second_moment():
    """Unit-trace PSD C of the spec's section 2.2 setup (m = 30, non-negative data, centred)."""
    X = np.random.default_rng(11).uniform(size=(4000, 30))
    X_bar, _, _ = data_preprocessing(X, 1e12, rng=0)
    return X_bar.T @ X_bar / X_bar.shape[0]


def test_haar_projection_preserves_the_average_second_moment(centred_second_moment):
    C = centred_second_moment
    assert np.trace(C) == pytest.approx(1.0, abs=1e-9)
    avg = _mean_projected_second_moment(C, 3, "haar", 2000, seed=1)
    np.testing.assert_allclose(avg, np.trace(C) * np.eye(3), atol=0.05)


def test_paper_uniform_columns_are_not_haar(centred_second_moment):
    avg = _mean_projected_second_moment(centred_second_moment, 3, "paper_uniform_qr_columns", 2000, 1)
    # documented expectation (spec section 2.2): the first column is nearly the all-ones
    # direction, which carries little variance after centring
    assert avg[0, 0] < 0.6
    assert abs(avg[0, 0] - 1.0) > 0.3


def test_haar_entries_follow_the_sphere_marginal_and_signs_are_symmetric():
    m, p, draws = 12, 3, 3000
    rng = np.random.default_rng(5)
    W = np.stack([ron_matrix(m, p, rng=rng) for _ in range(draws)])
    # a column of a Haar W is uniform on S^{m-1}: squared entries ~ Beta(1/2, (m-1)/2)
    for j in range(p):
        assert stats.kstest(W[:, 0, j] ** 2, "beta", args=(0.5, (m - 1) / 2)).pvalue > 1e-3
        assert abs(np.mean(W[:, 0, j] > 0) - 0.5) < 0.04
    # trace of the top p x p block: mean 0, variance p/m (E W_ij W_kl = delta/m)
    traces = np.trace(W[:, :p, :p], axis1=1, axis2=2)
    assert abs(traces.mean()) < 4 * math.sqrt(p / m / draws)
    assert traces.var() == pytest.approx(p / m, rel=0.1)


def test_gaussian_qr_without_sign_fix_is_rejected_by_the_haar_checks():
    m, p, draws = 12, 3, 3000
    rng = np.random.default_rng(5)
    W = np.stack([ron_matrix(m, p, rng=rng, method="gaussian_qr_unfixed") for _ in range(draws)])
    # LAPACK's Householder convention makes the first diagonal entry always <= 0
    assert np.mean(W[:, 0, 0] > 0) < 0.01
    traces = np.trace(W[:, :p, :p], axis1=1, axis2=2)
    assert abs(traces.mean()) > 10 * math.sqrt(p / m / draws)
