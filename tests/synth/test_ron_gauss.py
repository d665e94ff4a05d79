"""The RONGauss estimator (spec section 6, items 11-18, plus the covariance-noise scale)."""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

import matrixdp
from matrixdp import RONGauss
from matrixdp.errors import (
    InvalidParameterError,
    InvalidPrivacyParameterError,
    InvalidShapeError,
    NonFiniteInputError,
    OutOfBoundsError,
    PrivacyLeakWarning,
    RefutedGuaranteeWarning,
    UnsafeMechanismError,
)
from matrixdp.mechanisms.base import PrivacyGuarantee
from matrixdp.synth import cov_sensitivity, dfm_max_dim, normalize_rows
from matrixdp.synth._checks import NoiseDominatedWarning


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(1500, 20))
    y_reg = X[:, :3].sum(axis=1) / 3  # in [0, 1]
    y_cls = np.where(X[:, 0] + X[:, 1] > 1.0, "b", "a")
    return X, y_reg, y_cls


def projected(model, X):
    """The exact (non-private) projected rows given the released mean and W."""
    return normalize_rows(normalize_rows(X) - model.mean_) @ model.projection_


# ------------------------------------------------------------------ API
def test_reexported_and_init_only_stores_params():
    assert matrixdp.RONGauss is RONGauss
    model = RONGauss(dim=-3, epsilon="bad", task="nope")  # validation happens in fit
    assert model.dim == -3 and model.get_params()["task"] == "nope"
    with pytest.raises(InvalidParameterError):
        model.fit(np.ones((5, 5)))


def test_refit_leaves_no_stale_attributes(data):
    X, y, _ = data
    model = RONGauss(dim=3, epsilon=1.0, task="regression", label_bound=1.0, random_state=0)
    model.fit(X, y)
    assert hasattr(model, "label_shift_")
    model.set_params(task="unsupervised").fit(X)
    assert not hasattr(model, "label_shift_") and model.covariance_.shape == (3, 3)


def test_scikit_learn_clone_and_params():
    from sklearn.base import clone

    model = RONGauss(dim=3, epsilon=1.0, task="classification", classes=["a", "b"], random_state=1)
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    assert copy.set_params(dim=4).dim == 4
    assert "RONGauss(" in repr(model)


def test_unsupervised_shapes_attributes_and_reconstruction(data):
    X, _, _ = data
    model = RONGauss(dim=4, epsilon=1.0, random_state=0).fit(X)
    assert model.projection_.shape == (20, 4)
    assert model.mean_.shape == (20,)
    assert model.covariance_.shape == (4, 4)
    assert isinstance(model.privacy_, PrivacyGuarantee)
    Z = model.sample(300)
    assert Z.shape == (300, 4)
    assert model.transform(X[:7]).shape == (7, 4)
    rec = RONGauss(dim=4, epsilon=1.0, reconstruct=True, random_state=0).fit(X)
    Zr = rec.sample(300)
    assert Zr.shape == (300, 20)
    W = rec.projection_
    # reconstructed synthetic records lie in range(W)
    np.testing.assert_allclose(Zr - Zr @ W @ W.T, 0.0, atol=1e-12)
    assert rec.transform(X[:5]).shape == (5, 20)


def test_regression_shapes_and_label_shift(data):
    X, y, _ = data
    model = RONGauss(dim=3, epsilon=2.0, task="regression", label_bound=(0.0, 1.0),
                     random_state=1).fit(X, y)
    assert model.covariance_.shape == (4, 4)
    assert model.label_shift_ == 0.5 and model.label_bound_ == 0.5
    Xs, ys = model.sample(5000)
    assert Xs.shape == (5000, 3) and ys.shape == (5000,)
    assert abs(ys.mean() - 0.5) < 0.05  # the public shift is added back


def test_classification_shapes_labels_and_weights(data):
    X, _, y = data
    model = RONGauss(dim=3, epsilon=1.0, task="classification", classes=["a", "b", "c"],
                     class_sizes="public", random_state=2)
    with pytest.raises(InvalidParameterError, match="no records"):
        model.fit(X, y)  # class "c" is empty (public sizes: saying so reveals nothing)
    model = RONGauss(dim=3, epsilon=1.0, task="classification", classes=["a", "b"],
                     class_weights="uniform", random_state=2).fit(X, y)
    assert model.covariance_.shape == (2, 3, 3) and model.mean_.shape == (2, 20)
    assert model.class_means_.shape == (2, 3)
    Xs, ys = model.sample(1001)
    assert Xs.shape == (1001, 3) and set(np.unique(ys)) <= {"a", "b"}
    counts = [np.sum(ys == c) for c in ("a", "b")]
    assert sorted(counts) == [500, 501]  # uniform policy
    for j in range(2):
        np.testing.assert_allclose(model.covariance_[j], model.covariance_[j].T, atol=0)
        assert np.linalg.eigvalsh(model.covariance_[j]).min() >= -1e-12


def test_classification_dp_weights_follow_noisy_counts_and_compose(data):
    X, _, y = data
    model = RONGauss(dim=3, epsilon=1.2, task="classification", classes=["a", "b"],
                     epsilon_counts=0.2, random_state=3).fit(X, y)  # class_weights="auto" -> dp
    assert model.epsilon_counts_ == 0.2
    assert model.epsilon_mean_ + model.epsilon_cov_ == pytest.approx(1.0)
    assert model.privacy_.epsilon == pytest.approx(1.2)
    Xs, ys = model.sample(10000)
    true_share = np.mean(y == "a")
    assert np.mean(ys == "a") == pytest.approx(true_share, abs=0.02)
    with pytest.raises(InvalidParameterError, match="epsilon_counts"):  # no total to take it from
        RONGauss(dim=3, epsilon_mean=0.5, epsilon_cov=0.5, task="classification",
                 classes=["a", "b"]).fit(X, y)
    with pytest.raises(InvalidParameterError, match="class_weights"):  # DP counts of public sizes
        RONGauss(dim=3, epsilon=1.0, task="classification", classes=["a", "b"],
                 class_sizes="public", class_weights="dp").fit(X, y)


def test_classification_exact_weights_are_unsafe(data):
    X, _, y = data
    with pytest.raises(UnsafeMechanismError):
        RONGauss(dim=3, epsilon=1.0, task="classification", classes=["a", "b"],
                 class_weights="exact").fit(X, y)
    with pytest.warns(PrivacyLeakWarning), pytest.warns(RefutedGuaranteeWarning):
        model = RONGauss(dim=3, epsilon=1.0, task="classification", classes=["a", "b"],
                         class_weights="exact", allow_unsafe=True, random_state=0).fit(X, y)
    assert model.privacy_.refuted


def test_classification_needs_public_classes_and_known_labels(data):
    X, _, y = data
    with pytest.raises(InvalidParameterError, match="classes"):
        RONGauss(dim=3, epsilon=1.0, task="classification").fit(X, y)
    with pytest.raises(InvalidParameterError, match="not in the public class list"):
        RONGauss(dim=3, epsilon=1.0, task="classification", classes=["a"]).fit(X, y)


def test_classification_uses_one_shared_projection(data):
    X, _, y = data
    model = RONGauss(dim=3, epsilon=1.0, task="classification", classes=["a", "b"],
                     random_state=4).fit(X, y)
    np.testing.assert_allclose(model.class_means_, model.mean_ @ model.projection_)
    np.testing.assert_allclose(model.transform(X[:4]), normalize_rows(X[:4]) @ model.projection_)


# ------------------------------------------------------ reproducibility
@pytest.mark.parametrize("task, kw", [("unsupervised", {}),
                                      ("regression", {"label_bound": 1.0}),
                                      ("classification", {"classes": ["a", "b"]})])
def test_same_seed_bit_identical_different_seed_differs(data, task, kw):
    X, y_reg, y_cls = data
    y = {"unsupervised": None, "regression": y_reg, "classification": y_cls}[task]

    def run(seed):
        out = RONGauss(dim=3, epsilon=1.0, task=task, random_state=seed, **kw).fit(X, y).sample(50)
        return out[0] if isinstance(out, tuple) else out

    np.testing.assert_array_equal(run(7), run(7))
    assert not np.array_equal(run(7), run(8))


# ------------------------------------------------- high-eps consistency
def test_high_epsilon_recovers_the_second_moment(data):
    X, _, _ = data
    model = RONGauss(dim=4, epsilon=1e9, random_state=5).fit(X)
    Xt = projected(model, X)
    S = Xt.T @ Xt / X.shape[0]
    np.testing.assert_allclose(model.covariance_, S, atol=1e-7)
    Z = model.sample(200000, rng=6)
    np.testing.assert_allclose(Z.T @ Z / Z.shape[0], S, atol=4 * np.sqrt(2 * S.max() ** 2 / 200000) + 1e-3)


def test_high_epsilon_regression_matches_ols_through_origin(data):
    X, y, _ = data
    model = RONGauss(dim=3, epsilon=1e9, task="regression", label_bound=1.0, random_state=6).fit(X, y)
    Xt = projected(model, X)
    beta_real = np.linalg.lstsq(Xt, y, rcond=None)[0]
    Xs, ys = model.sample(300000, rng=7)
    beta_syn = np.linalg.lstsq(Xs, ys, rcond=None)[0]
    np.testing.assert_allclose(beta_syn, beta_real, rtol=0.05, atol=0.05)


# ------------------------------------------------------ label validation
def test_label_bound_is_required_and_enforced(data):
    X, y, _ = data
    with pytest.raises(InvalidParameterError, match="label_bound"):
        RONGauss(dim=3, epsilon=1.0, task="regression").fit(X, y)
    with pytest.raises(OutOfBoundsError, match="outside the public label bound"):
        RONGauss(dim=3, epsilon=1.0, task="regression", label_bound=0.5).fit(X, y)
    with pytest.raises(InvalidParameterError, match="label_bound"):
        RONGauss(dim=3, epsilon=1.0, task="regression", label_bound=(1.0, 0.0)).fit(X, y)
    with pytest.raises(InvalidParameterError):
        RONGauss(dim=3, epsilon=1.0, task="regression", label_bound=1.0).fit(X)  # y missing
    with pytest.raises(NonFiniteInputError):
        RONGauss(dim=3, epsilon=1.0, task="regression", label_bound=1.0).fit(
            X, np.where(np.arange(len(y)) == 3, np.nan, y))


def test_clip_labels_clips_before_the_second_moment(data):
    X, y, _ = data
    a = 0.5
    clipped = RONGauss(dim=3, epsilon=1e9, task="regression", label_bound=a, clip_labels=True,
                       random_state=8).fit(X, y)
    assert clipped.covariance_[3, 3] == pytest.approx(np.mean(np.clip(y, -a, a) ** 2), rel=1e-6)
    assert clipped.cov_sensitivity_ == pytest.approx(
        (math.sqrt(2) * 3 + 4 * a * math.sqrt(3) + a * a) / X.shape[0])


# ------------------------------------------------------------ accounting
def test_composed_epsilon_split_and_explicit(data):
    X, _, _ = data
    model = RONGauss(dim=3, epsilon=2.0, mean_fraction=0.25, random_state=0).fit(X)
    assert (model.epsilon_mean_, model.epsilon_cov_) == pytest.approx((0.5, 1.5))
    assert model.privacy_.epsilon == pytest.approx(2.0) == model.epsilon_total_
    assert model.privacy_.delta == 0 and model.privacy_.neighbouring == "replace-one"
    assert not model.privacy_.refuted and model.privacy_valid_
    explicit = RONGauss(dim=3, epsilon_mean=0.3, epsilon_cov=0.9, random_state=0).fit(X)
    assert explicit.privacy_.epsilon == pytest.approx(1.2)
    n, m = X.shape
    assert explicit.mean_scale_ == pytest.approx(2 * math.sqrt(m) / (n * 0.3))
    assert explicit.cov_scale_ == pytest.approx(math.sqrt(2) * 3 / (n * 0.9))
    with pytest.raises(InvalidParameterError, match="epsilon"):
        RONGauss(dim=3, epsilon=1.0, epsilon_mean=0.5, epsilon_cov=0.5).fit(X)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        RONGauss(dim=3, epsilon_mean=0.5).fit(X)
    with pytest.raises(InvalidPrivacyParameterError):
        RONGauss(dim=3, epsilon=-1.0).fit(X)
    with pytest.raises(InvalidParameterError, match="mean_fraction"):
        RONGauss(dim=3, epsilon=1.0, mean_fraction=1.0).fit(X)


def test_paper_sensitivity_is_unsafe_and_refuted_for_p_at_least_3(data):
    X, _, _ = data
    with pytest.raises(UnsafeMechanismError, match="allow_unsafe"):
        RONGauss(dim=4, epsilon=1.0, sensitivity="paper").fit(X)
    with pytest.warns(RefutedGuaranteeWarning):
        model = RONGauss(dim=4, epsilon=1.0, sensitivity="paper", allow_unsafe=True,
                         random_state=0).fit(X)
    assert model.privacy_.refuted and not model.privacy_valid_
    assert "REFUTED" in str(model.privacy_)
    assert model.cov_sensitivity_ == pytest.approx(cov_sensitivity(4, X.shape[0], "paper"))
    # the paper's Lemma 4 happens to be valid for p <= 2; the reference code's mean never is
    with warnings.catch_warnings():
        warnings.simplefilter("error", RefutedGuaranteeWarning)
        two = RONGauss(dim=2, epsilon=1.0, sensitivity="paper", allow_unsafe=True,
                       random_state=0).fit(X)
    assert not two.privacy_.refuted
    with pytest.warns(RefutedGuaranteeWarning):
        code = RONGauss(dim=2, epsilon=1.0, sensitivity="reference_code", allow_unsafe=True,
                        random_state=0).fit(X)
    assert code.privacy_.refuted
    assert code.mean_scale_ == pytest.approx(two.mean_scale_ / 2)


def test_regression_paper_mode_refuted(data):
    X, y, _ = data
    with pytest.warns(RefutedGuaranteeWarning):
        model = RONGauss(dim=8, epsilon=1.0, task="regression", label_bound=0.25, clip_labels=True,
                         sensitivity="paper", allow_unsafe=True, random_state=0).fit(X, y)
    assert model.privacy_.refuted


# ---------------------------------------------- the covariance noise scale
def _pooled_cov_noise(X, p, eps_cov, fits, seed, task="unsupervised", y=None, a=None):
    gen = np.random.default_rng(seed)
    noise = []
    for _ in range(fits):
        kw = {"label_bound": a} if task == "regression" else {}
        model = RONGauss(dim=p, epsilon_mean=1.0, epsilon_cov=eps_cov, task=task,
                         random_state=gen, **kw).fit(X, y)
        Xt = projected(model, X)
        if task == "regression":
            Xt = np.hstack([Xt, y[:, None]])
        noise.append((model.covariance_raw_ - Xt.T @ Xt / X.shape[0]).ravel())
    return np.concatenate(noise)


def test_covariance_noise_has_the_corrected_laplace_scale(data):
    X, _, _ = data
    n, p, eps = 400, 8, 0.5
    z = _pooled_cov_noise(X[:n], p, eps, fits=250, seed=10)  # 16 000 noise values
    b = math.sqrt(2) * p / (n * eps)
    assert stats.kstest(z, "laplace", args=(0, b)).pvalue > 1e-3
    for wrong in (0.7 * b, 1.3 * b):
        assert stats.kstest(z, "laplace", args=(0, wrong)).pvalue < 1e-6


def test_augmented_covariance_noise_has_the_corrected_laplace_scale(data):
    X, y, _ = data
    n, p, eps, a = 400, 5, 1.0, 1.0
    z = _pooled_cov_noise(X[:n], p, eps, fits=450, seed=11, task="regression", y=y[:n], a=a)
    b = (math.sqrt(2) * p + 4 * a * math.sqrt(p) + a * a) / (n * eps)
    assert stats.kstest(z, "laplace", args=(0, b)).pvalue > 1e-3
    for wrong in (0.7 * b, 1.3 * b):
        assert stats.kstest(z, "laplace", args=(0, wrong)).pvalue < 1e-6


def test_released_covariance_is_the_symmetric_psd_repair_of_the_raw(data):
    X, _, _ = data
    model = RONGauss(dim=6, epsilon=0.05, random_state=12).fit(X[:100])
    raw, cov = model.covariance_raw_, model.covariance_
    assert not np.allclose(raw, raw.T)
    np.testing.assert_array_equal(cov, cov.T)
    assert np.linalg.eigvalsh(cov).min() >= -1e-12
    assert np.linalg.eigvalsh((raw + raw.T) / 2).min() < 0  # the repair was needed here


# ------------------------------------------------------------ inputs
def test_dataframe_input_and_non_numeric_columns(data):
    pd = pytest.importorskip("pandas")
    X, _, _ = data
    frame = pd.DataFrame(X[:200, :6], columns=list("abcdef"))
    model = RONGauss(dim=2, epsilon=1.0, random_state=0).fit(frame)
    assert list(model.feature_names_in_) == list("abcdef")
    assert model.transform(frame).shape == (200, 2)
    frame["colour"] = "red"
    frame["city"] = pd.Categorical(["x"] * 200)
    with pytest.raises(InvalidParameterError, match=r"\['colour', 'city'\].*one-hot"):
        RONGauss(dim=2, epsilon=1.0).fit(frame)


def test_bad_shapes_and_values_raise(data):
    X, _, _ = data
    with pytest.raises(InvalidParameterError, match="dim"):
        RONGauss(dim=20, epsilon=1.0).fit(X)
    with pytest.raises(InvalidShapeError):
        RONGauss(dim=2, epsilon=1.0).fit(X[0])
    bad = X.copy()
    bad[0, 0] = np.inf
    with pytest.raises(NonFiniteInputError):
        RONGauss(dim=2, epsilon=1.0).fit(bad)
    model = RONGauss(dim=2, epsilon=1.0, random_state=0).fit(X)
    with pytest.raises(InvalidShapeError, match="features"):
        model.transform(X[:, :5])
    with pytest.raises(InvalidParameterError, match="n_samples"):
        model.sample(0)
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        RONGauss(dim=2, epsilon=1.0).sample(3)


# ------------------------------------------------------------------ DFM
def test_dfm_guidance_values_and_guard():
    assert dfm_max_dim(100, log_base=10) == 13
    assert dfm_max_dim(100, log_base=math.e) == 6
    with pytest.raises(InvalidParameterError):
        dfm_max_dim(10, log_base=10)
    with pytest.raises(InvalidParameterError):
        dfm_max_dim(2, log_base=math.e)


def test_warns_when_dim_far_above_dfm_guidance():
    X = np.random.default_rng(0).uniform(size=(300, 100))
    with pytest.warns(UserWarning, match="DFM"):
        RONGauss(dim=40, epsilon=1.0, random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", NoiseDominatedWarning)  # 300 records: noise dominates
        RONGauss(dim=13, epsilon=1.0, random_state=0).fit(X)


def test_dfm_projected_coordinates_look_gaussian():
    """Spec item 17: uniform features, m = 500, n = 20k: Haar p = 3 coordinates have kurtosis ~ 3."""
    rng = np.random.default_rng(13)
    X = rng.uniform(size=(20000, 500))
    model = RONGauss(dim=3, epsilon=1e6, random_state=14).fit(X)
    Z = model.transform(X)
    kurt = stats.kurtosis(Z, axis=0, fisher=False)
    assert np.all(np.abs(kurt - 3) < 0.3)
    raw_kurt = stats.kurtosis(X[:, :3], axis=0, fisher=False)
    assert np.all(np.abs(raw_kurt - 3) > 1.0)  # uniform: 1.8


def test_gmm_spread_inflation_documented():
    """Spec item 18: at eps -> inf the per-class synthetic trace exceeds the projected
    pre-normalised class covariance trace by about 1/(1 - ||mu_c||^2)."""
    rng = np.random.default_rng(15)
    m, n = 40, 4000
    direction = np.ones(m) / math.sqrt(m)
    X = 2.0 * direction + rng.normal(size=(n, m)) / math.sqrt(m)
    y = np.zeros(n, dtype=int)
    ratios = []
    for seed in range(30):
        model = RONGauss(dim=10, epsilon=1e9, task="classification", classes=[0],
                         random_state=seed).fit(X, y)
        Xn = normalize_rows(X) @ model.projection_
        pre_trace = np.trace(np.cov(Xn.T, bias=True))
        ratios.append(np.trace(model.covariance_[0]) / pre_trace)
    mu = normalize_rows(X).mean(axis=0)
    expected = 1 / (1 - mu @ mu)
    assert expected > 3
    assert np.mean(ratios) == pytest.approx(expected, rel=0.1)


# ------------------------------------------------------------ add_mean (spec I6)
@pytest.mark.parametrize("reconstruct", [False, True])
def test_add_mean_shifts_by_the_dp_mean_in_the_output_space(data, reconstruct):
    X, y, _ = data
    for task, kw, lab in (("unsupervised", {}, None), ("regression", {"label_bound": 1.0}, y)):
        model = RONGauss(dim=3, epsilon=1.0, task=task, reconstruct=reconstruct, random_state=20,
                         **kw).fit(X, lab)
        plain = model.sample(400, rng=21)
        shifted = model.sample(400, rng=21, add_mean=True)
        if task == "regression":
            np.testing.assert_array_equal(plain[1], shifted[1])  # the label gets no mean
            plain, shifted = plain[0], shifted[0]
        W = model.projection_
        offset = model.mean_ if reconstruct else model.mean_ @ W
        assert np.linalg.norm(offset) > 0.1
        np.testing.assert_allclose(shifted - plain, np.broadcast_to(offset, plain.shape), atol=1e-12)


def test_add_mean_is_refused_for_classification(data):
    X, _, y = data
    model = RONGauss(dim=3, epsilon=1.0, task="classification", classes=["a", "b"],
                     random_state=22).fit(X, y)
    with pytest.raises(InvalidParameterError, match="add_mean"):
        model.sample(10, add_mean=True)


def test_high_epsilon_regression_model_is_ols_through_the_origin_tightly(data):
    """Spec item 13, without a loose absolute tolerance: the released model's population
    regression Sigma_xx^-1 Sigma_xy equals OLS through the origin on the real projected data,
    and the sampled OLS is within 5 standard errors of it."""
    X, y, _ = data
    model = RONGauss(dim=3, epsilon=1e9, task="regression", label_bound=1.0, random_state=6).fit(X, y)
    Xt = projected(model, X)
    beta_real = np.linalg.lstsq(Xt, y, rcond=None)[0]
    C = model.covariance_
    np.testing.assert_allclose(np.linalg.solve(C[:3, :3], C[:3, 3]), beta_real, rtol=1e-6, atol=1e-9)
    Xs, ys = model.sample(300000, rng=7)
    beta_syn, res, *_ = np.linalg.lstsq(Xs, ys, rcond=None)
    se = np.sqrt(res[0] / (len(ys) - 3) * np.diag(np.linalg.inv(Xs.T @ Xs)))
    assert np.all(np.abs(beta_syn - beta_real) < 5 * se)
    assert np.all(5 * se < 0.3 * np.abs(beta_real).max())  # the check has power


def test_classification_exact_weights_follow_the_true_class_sizes(data):
    X, _, y = data
    with pytest.warns(PrivacyLeakWarning), pytest.warns(RefutedGuaranteeWarning):
        model = RONGauss(dim=3, epsilon=1.0, task="classification", classes=["b", "a"],
                         class_weights="exact", allow_unsafe=True, random_state=23).fit(X, y)
    share_b = np.mean(y == "b")
    np.testing.assert_allclose(model.class_weights_, [share_b, 1 - share_b])
    _, ys = model.sample(1000)
    assert np.sum(ys == "b") == round(1000 * share_b)


# ----------------------------------------------------------------------------- DP label mean
def _regression_data(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = np.clip(30 + 5 * X[:, 0] + rng.normal(size=n), 0, 100)
    return X, y


def test_dp_label_mean_keeps_the_real_mean_and_its_budget_is_composed():
    X, y = _regression_data(20_000)
    faithful = RONGauss(dim=3, epsilon=2.0, task="regression", label_bound=(0, 100),
                        random_state=1).fit(X, y)
    dp = RONGauss(dim=3, epsilon=2.0, task="regression", label_bound=(0, 100), label_mean="dp",
                  random_state=1).fit(X, y)
    # the paper's Algorithm 4 centres labels at the public midpoint (50); "dp" at the DP mean
    assert abs(faithful.sample(20_000)[1].mean() - 50) < 1.0
    assert abs(dp.sample(20_000)[1].mean() - y.mean()) < 1.0
    assert dp.epsilon_label_ == pytest.approx(0.2)
    assert dp.privacy_.epsilon == pytest.approx(2.0)
    assert dp.epsilon_mean_ + dp.epsilon_cov_ + dp.epsilon_label_ == pytest.approx(2.0)
    assert any("epsilon_label" in note for note in dp.privacy_.notes)


def test_dp_label_mean_noise_has_the_claimed_scale():
    """Laplace scale 2a/(n ε_label): the released mean's spread over 600 seeds accepts the claimed
    scale within ±15% and rejects 0.7x and 1.3x of it."""
    X, y = _regression_data(200, seed=3)
    a, n, eps_label = 50.0, 200, 0.1
    scale = 2 * a / (n * eps_label)
    released = np.array([
        RONGauss(dim=2, epsilon=1.0, task="regression", label_bound=(0, 100), label_mean="dp",
                 epsilon_label=eps_label, random_state=s).fit(X, y).label_mean_
        for s in range(600)])
    sd = (released - y.mean()).std()
    claimed = math.sqrt(2) * scale
    assert abs(sd / claimed - 1) < 0.15
    assert abs(sd / (0.7 * claimed) - 1) > 0.15 and abs(sd / (1.3 * claimed) - 1) > 0.15


def test_dp_label_mean_arguments_name_themselves():
    X, y = _regression_data(500)
    with pytest.raises(InvalidParameterError) as info:
        RONGauss(dim=2, epsilon=1.0, task="classification", classes=[0, 1],
                 label_mean="dp").fit(X, (y > 30).astype(int))
    assert info.value.argument == "label_mean"
    with pytest.raises(InvalidParameterError) as info:
        RONGauss(dim=2, epsilon=1.0, task="regression", label_bound=(0, 100),
                 epsilon_label=0.1).fit(X, y)
    assert info.value.argument == "epsilon_label"
    with pytest.raises(InvalidParameterError) as info:
        RONGauss(dim=2, epsilon=1.0, task="regression", label_bound=(0, 100), label_mean="dp",
                 epsilon_label=1.5).fit(X, y)
    assert info.value.argument == "epsilon_label"


@pytest.mark.parametrize("task", ["unsupervised", "classification"])
def test_non_finite_records_are_refused_before_the_budget_is_charged(task):
    """The finiteness check now runs inside the first blocked pass: still before the charge."""
    from matrixdp.accounting import Accountant

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = np.where(np.arange(300) % 2 == 0, "a", "b")
    X[201, 3] = np.nan                  # in class "b"
    acct = Accountant(epsilon=10.0)
    kw = {"classes": ["a", "b"], "task": "classification"} if task == "classification" else {}
    with pytest.raises(NonFiniteInputError):
        RONGauss(dim=2, epsilon=1.0, random_state=0, **kw).fit(
            X, y if task == "classification" else None, accountant=acct)
    assert acct.remaining()[0] == 10.0


def test_sample_takes_random_state_like_the_copulas():
    """``sample(n, random_state=...)`` is ``sample(n, rng=...)`` (DPCopula and DPTreeCopula name
    it ``random_state``; task BB found ``random_state=`` refused with a TypeError); both at once
    is refused naming random_state."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    model = RONGauss(dim=2, epsilon=1.0, random_state=0).fit(X)
    a = model.sample(50, rng=7)
    b = model.sample(50, random_state=7)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, model.sample(50, random_state=8))
    with pytest.raises(InvalidParameterError, match="random_state"):
        model.sample(50, rng=7, random_state=7)


def test_transform_refuses_a_frame_with_the_columns_in_another_order():
    # task HZ: transform matched a DataFrame's columns by position, so the fitted columns in
    # another order mapped every record wrongly, silently (scikit-learn refuses this)
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 3)) * [1.0, 5.0, 25.0], columns=["a", "b", "c"])
    model = RONGauss(dim=2, epsilon=1.0, random_state=0).fit(X)
    np.testing.assert_allclose(model.transform(X), model.transform(X.to_numpy()))
    with pytest.raises(InvalidShapeError, match=r"\['c', 'b', 'a'\].*fitted on \['a', 'b', 'c'\]"):
        model.transform(X[["c", "b", "a"]])
    assert model.transform(X[["a", "b", "c"]]).shape == (200, 2)
