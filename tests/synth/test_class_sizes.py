"""RON-Gauss classification under its two relations: class sizes private (default) or public.

Under ``class_sizes="private"`` a neighbour replaces a record by any other (its label may
change), so no noise scale or fitted attribute may depend on the true class sizes; under
``class_sizes="public"`` they are public and "exact" class priors are not a leak.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import kstest, laplace

from matrixdp.errors import (
    InvalidParameterError,
    PrivacyLeakWarning,
    RefutedGuaranteeWarning,
    UnsafeMechanismError,
)
from matrixdp.synth import RONGauss
from matrixdp.synth.group import fit_group_add_remove, scatter_sensitivity_add_remove
from matrixdp.synth.preprocessing import normalize_rows
from matrixdp.synth.projection import ron_matrix
from matrixdp.synth.ron_gauss import DEFAULT_COUNTS_FRACTION

N, M, DIM = 2000, 8, 3


def _data(share_a: float, seed: int = 0):
    """n = N records, a public n, a class "a" of share ``share_a`` (the private class sizes)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, M)) + 0.5
    n_a = int(round(share_a * N))
    y = np.array(["a"] * n_a + ["b"] * (N - n_a))
    return X, y


def _fit(X, y, **kw):
    kw = {"dim": DIM, "epsilon": 1.0, "task": "classification", "classes": ["a", "b"],
          "random_state": 11, **kw}
    return RONGauss(**kw).fit(X, y)


def _recovered_sizes(model) -> np.ndarray:
    """The attack on the fitted attributes: the mean's scale is sensitivity / (n_c eps_mu) under
    public sizes, so n_c = 2 sqrt(m) / (eps_mu * mean_scale_) = 2 sqrt(m) / mean_sensitivity_."""
    from_scale = 2 * math.sqrt(M) / (model.epsilon_mean_ * np.asarray(model.mean_scale_))
    from_sensitivity = 2 * math.sqrt(M) / np.asarray(model.mean_sensitivity_)
    # the second moment's sensitivity is sqrt(2) p / n_c under public sizes (corrected, full noise)
    from_cov = math.sqrt(2) * DIM / np.asarray(model.cov_sensitivity_)
    from_cov_scale = math.sqrt(2) * DIM / (model.epsilon_cov_ * np.asarray(model.cov_scale_))
    return np.stack([from_scale, from_sensitivity, from_cov, from_cov_scale])


def test_private_sizes_are_the_default_and_the_exact_sizes_are_not_recoverable():
    X, y = _data(0.3)
    true = np.array([np.sum(y == "a"), np.sum(y == "b")], dtype=float)
    model = _fit(X, y)
    assert model.class_sizes_ == "private"
    assert np.all(np.abs(_recovered_sizes(model) - true) > 1e-3)
    # the same attack works under the public-sizes relation (the check has power)
    public = _fit(X, y, class_sizes="public")
    np.testing.assert_allclose(_recovered_sizes(public), np.stack([true] * 4), rtol=1e-12)


def test_under_private_sizes_nothing_but_dp_outputs_depends_on_the_class_sizes():
    """Same n, same features, same seed, different class sizes: every attribute that is not a
    DP output (or post-processing of one) is bit-identical."""
    X, y1 = _data(0.3)
    _, y2 = _data(0.6)
    a, b = _fit(X, y1), _fit(X, y2)
    dp_outputs = {"mean_", "class_means_", "covariance_raw_", "covariance_", "class_counts_",
                  "class_weights_", "mean_scale_", "cov_scale_", "privacy_"}
    public = [k for k in vars(a) if k.endswith("_") and k not in dp_outputs]
    assert {"projection_", "mean_sensitivity_", "cov_sensitivity_", "epsilon_counts_"} <= set(public)
    for key in public:
        va, vb = getattr(a, key), getattr(b, key)
        assert np.array_equal(np.asarray(va), np.asarray(vb)), key
    np.testing.assert_array_equal(a.mean_sensitivity_, [2 * math.sqrt(M)] * 2)
    np.testing.assert_array_equal(a.cov_sensitivity_, [2.0 * DIM] * 2)
    # the scales are the public noise scale on the sums divided by the released DP counts
    np.testing.assert_allclose(a.mean_scale_ * np.maximum(a.class_counts_, 1.0),
                               2 * math.sqrt(M) / a.epsilon_mean_, rtol=1e-12)
    np.testing.assert_allclose(a.cov_scale_ * np.maximum(a.class_counts_, 1.0),
                               2.0 * DIM / a.epsilon_cov_, rtol=1e-12)


def test_private_sizes_compose_counts_sums_and_scatters():
    X, y = _data(0.3)
    model = _fit(X, y, epsilon=1.5)
    assert model.epsilon_counts_ == pytest.approx(DEFAULT_COUNTS_FRACTION * 1.5)
    assert model.epsilon_mean_ + model.epsilon_cov_ + model.epsilon_counts_ == pytest.approx(1.5)
    g = model.privacy_
    assert g.epsilon == pytest.approx(1.5) and not g.refuted and g.neighbouring == "replace-one"
    text = " ".join(g.notes)
    assert "class sizes PRIVATE" in text and "sensitivity 2)" in text and "2*sqrt(m)" in text
    assert "class priors: dp" in text


def test_default_priors_keep_the_real_class_balance():
    X, y = _data(0.25)
    model = _fit(X, y)
    _, ys = model.sample(20000, rng=1)
    assert np.mean(ys == "a") == pytest.approx(0.25, abs=0.02)
    _, ys_uniform = _fit(X, y, class_weights="uniform").sample(20000, rng=1)
    assert np.mean(ys_uniform == "a") == pytest.approx(0.5, abs=0.001)


def test_public_sizes_make_exact_priors_legitimate():
    X, y = _data(0.25)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no PrivacyLeakWarning, no RefutedGuaranteeWarning
        model = _fit(X, y, class_sizes="public")  # auto -> exact
    assert not model.privacy_.refuted and model.epsilon_counts_ == 0.0
    np.testing.assert_allclose(model.class_weights_, [0.25, 0.75])
    assert "class sizes PUBLIC" in " ".join(model.privacy_.notes)
    assert not hasattr(model, "class_counts_")


def test_exact_priors_under_private_sizes_stay_an_unsafe_opt_in():
    X, y = _data(0.25)
    with pytest.raises(UnsafeMechanismError, match="class_sizes='public'"):
        _fit(X, y, class_weights="exact")
    with pytest.warns(PrivacyLeakWarning), pytest.warns(RefutedGuaranteeWarning):
        model = _fit(X, y, class_weights="exact", allow_unsafe=True)
    assert model.privacy_.refuted


@pytest.mark.parametrize("kw, argument", [
    ({"class_sizes": "public", "neighbouring": "add-remove"}, "class_sizes"),
    ({"class_sizes": "public", "class_weights": "dp"}, "class_weights"),
    ({"sensitivity": "paper", "allow_unsafe": True}, "sensitivity"),
    ({"noise": "triu"}, "noise"),
    ({"class_sizes": "secret"}, "class_sizes"),
])
def test_incoherent_combinations_are_refused(kw, argument):
    X, y = _data(0.3)
    with pytest.raises(InvalidParameterError, match=argument):
        _fit(X, y, **kw)


def test_an_empty_public_class_is_fine_under_private_sizes():
    X, y = _data(0.3)
    model = _fit(X, y, classes=["a", "b", "c"])
    assert model.class_counts_.shape == (3,)
    assert model.covariance_.shape == (3, DIM, DIM)


# ------------------------------------------------------------- the sensitivities are sound
def test_label_change_doubles_the_add_remove_sensitivities_and_attains_them():
    """Worst case of the joint (all classes) statistics when a record changes class: it leaves
    class a and enters class b, moving the counts by 2, the sums by 2 sqrt(m) and the scatters by
    2p in L1; a replacement within a class moves them by at most as much."""
    rng = np.random.default_rng(3)
    ones = np.full(M, 1 / math.sqrt(M))
    u = np.full(DIM, 1 / math.sqrt(DIM))  # a unit projected row with ||u||_1^2 = p
    count_change = 1 + 1
    sum_change = np.abs(ones).sum() + np.abs(-ones).sum()  # x leaves a, x' = -x enters b
    scatter_change = np.abs(np.outer(u, u)).sum() * 2
    assert count_change == 2
    assert sum_change == pytest.approx(2 * math.sqrt(M))
    assert scatter_change == pytest.approx(2 * scatter_sensitivity_add_remove(DIM))
    # within a class the change is bounded by the same constants (random unit pairs)
    x, x2 = normalize_rows(rng.normal(size=(2000, M))), normalize_rows(rng.normal(size=(2000, M)))
    assert np.abs(x - x2).sum(axis=1).max() <= 2 * math.sqrt(M)
    v, v2 = normalize_rows(rng.normal(size=(2000, DIM))), normalize_rows(rng.normal(size=(2000, DIM)))
    within = np.abs(np.einsum("ni,nj->nij", v, v) - np.einsum("ni,nj->nij", v2, v2)).sum(axis=(1, 2))
    assert within.max() <= 2 * DIM


def test_private_size_group_noise_has_the_doubled_laplace_scales():
    """The count and sum noise of a class are Laplace(2/eps_n) and Laplace(2 sqrt(m)/eps_mu):
    the KS test accepts the true scale and rejects 0.7x and 1.3x."""
    rng = np.random.default_rng(4)
    X = normalize_rows(rng.normal(size=(50, M)))
    W = ron_matrix(M, DIM, np.random.default_rng(5), "haar")
    gen = np.random.default_rng(6)
    eps_n, eps_mu = 0.5, 0.8
    count_noise, sum_noise = [], []
    for _ in range(1500):
        fit = fit_group_add_remove(X, W, epsilon_counts=eps_n, epsilon_mean=eps_mu,
                                   epsilon_cov=1.0, rng=gen, relation="replace-one")
        count_noise.append(fit.count - X.shape[0])
        sum_noise.append(fit.mean[0] * max(fit.count, 1.0) - X[:, 0].sum())
    for noise, scale in ((np.array(count_noise), 2 / eps_n),
                         (np.array(sum_noise), 2 * math.sqrt(M) / eps_mu)):
        assert kstest(noise, laplace(scale=scale).cdf).pvalue > 1e-3
        for wrong in (0.7, 1.3):
            assert kstest(noise, laplace(scale=wrong * scale).cdf).pvalue < 1e-3
