"""DPLinearRegression / DPRidge: scikit-learn conventions, public bounds only, auto vs i.i.d., accuracy."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from matrixdp.errors import InvalidParameterError, OutOfBoundsError
from matrixdp.models import DPLinearRegression, DPRidge

HI = np.array([1.0, 10.0, 80.0, 600.0])
BOUNDS_X = (np.zeros(4), HI)
BOUNDS_Y = (-4.0, 4.0)


def table(n=5000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, HI, size=(n, 4))
    coef = np.array([1.0, -0.2, 0.02, 0.003])
    y = np.clip(X @ coef - 1.5 + rng.normal(0, 0.3, n), *BOUNDS_Y)
    return X, y


@parametrize_with_checks([DPLinearRegression(bounds_X=(-5, 5), bounds_y=(-10, 10), random_state=0),
                          DPRidge(bounds_X=(-5, 5), bounds_y=(-10, 10), random_state=0),
                          DPLinearRegression(bounds_X=(-5, 5), bounds_y=(-10, 10),
                                             fit_intercept=False, noise="iid", random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("missing", ["bounds_X", "bounds_y"])
def test_bounds_are_required(missing):
    kwargs = {"bounds_X": BOUNDS_X, "bounds_y": BOUNDS_Y, missing: None}
    X, y = table(100)
    with pytest.raises(InvalidParameterError, match=missing):
        DPLinearRegression(**kwargs).fit(X, y)


def test_ridge_alpha_is_validated():
    X, y = table(100)
    with pytest.raises(InvalidParameterError, match="alpha"):
        DPRidge(alpha=-1, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y).fit(X, y)


def test_planted_extreme_target_changes_nothing_public():
    X, y = table(500)
    planted = y.copy()
    planted[3] = 123456789.0
    a = DPLinearRegression(bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, random_state=1).fit(X, y)
    b = DPLinearRegression(bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, random_state=1).fit(X, planted)
    assert a.privacy_ == b.privacy_ and a.noise_summary_ == b.noise_summary_
    np.testing.assert_array_equal(a.entry_variance_, b.entry_variance_)
    with pytest.raises(OutOfBoundsError) as info:
        DPLinearRegression(bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, clip=False).fit(X, planted)
    assert "123456789" not in str(info.value)


def test_close_to_ols_with_a_large_budget():
    X, y = table(20000)
    ols = LinearRegression().fit(X, y)
    dp = DPLinearRegression(epsilon=50.0, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y,
                            random_state=0).fit(X, y)
    assert dp.score(X, y) > ols.score(X, y) - 0.01
    np.testing.assert_allclose(dp.coef_ * HI, ols.coef_ * HI, atol=0.05)


def test_auto_never_worse_than_iid_and_better_on_unequal_ranges():
    X, y = table(5000)
    auto = DPLinearRegression(bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, random_state=0).fit(X, y)
    iid = DPLinearRegression(bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, noise="iid",
                             random_state=0).fit(X, y)
    assert auto.noise_ == "mvg"
    assert auto.expected_loss_ < 0.5 * iid.expected_loss_
    r2 = {noise: np.median([DPLinearRegression(bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, noise=noise,
                                               random_state=s).fit(X, y).score(X, y)
                            for s in range(7)]) for noise in ("auto", "iid")}
    assert r2["auto"] > r2["iid"] and r2["auto"] > 0.8, r2
    rng = np.random.default_rng(4)
    for _ in range(3):  # equal-ish ranges: auto is never worse than iid in expected loss
        hi = rng.uniform(0.5, 1.5, 3)
        Xe = rng.uniform(0, hi, (300, 3))
        ye = rng.uniform(-1, 1, 300)
        a = DPLinearRegression(bounds_X=(0, hi), bounds_y=(-1, 1), random_state=0).fit(Xe, ye)
        i = DPLinearRegression(bounds_X=(0, hi), bounds_y=(-1, 1), noise="iid",
                               random_state=0).fit(Xe, ye)
        assert a.expected_loss_ <= i.expected_loss_ * (1 + 1e-12)


def test_ridge_is_post_processing_of_the_same_release():
    X, y = table(2000)
    ols = DPLinearRegression(bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, random_state=3).fit(X, y)
    r0 = DPRidge(alpha=0.0, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, random_state=3).fit(X, y)
    np.testing.assert_allclose(r0.coef_, ols.coef_)
    big = DPRidge(alpha=1e12, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, random_state=3).fit(X, y)
    assert np.all(np.abs(big.coef_) < 1e-3 * np.abs(ols.coef_) + 1e-9)
    assert big.privacy_ == ols.privacy_


def test_without_intercept_and_dataframe_input():
    pd = pytest.importorskip("pandas")
    X, y = table(3000)
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    est = DPLinearRegression(epsilon=20.0, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y,
                             fit_intercept=False, random_state=0).fit(df, y)
    assert est.intercept_ == 0.0
    assert list(est.feature_names_in_) == ["a", "b", "c", "d"]
    assert est.predict(df).shape == (3000,)


def test_accountant_label_names_the_estimator():
    calls = []

    class Ledger:
        def spend(self, guarantee, label=None):
            calls.append(label)

    X, y = table(200)
    DPRidge(bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, accountant=Ledger(), random_state=0).fit(X, y)
    assert calls == ["DPRidge.fit"]


def test_add_remove_relation_solves_on_sums():
    X, y = table(20000)
    ols = LinearRegression().fit(X, y)
    dp = DPLinearRegression(epsilon=50.0, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y,
                            neighbouring="add-remove", random_state=0).fit(X, y)
    assert dp.privacy_.neighbouring == "add-remove" and dp.privacy_.exact
    assert dp.score(X, y) > ols.score(X, y) - 0.01
    iid = DPLinearRegression(bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, neighbouring="add-remove",
                             noise="iid", random_state=0).fit(X, y)
    auto = DPLinearRegression(bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, neighbouring="add-remove",
                              random_state=0).fit(X, y)
    assert auto.expected_loss_ < iid.expected_loss_
