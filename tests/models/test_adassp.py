"""AdaSSPRegression (Wang 2018, Algorithm 2): privacy split, charging, accuracy, conventions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from matrixdp.calibration.gaussian import max_gaussian_shift
from matrixdp.errors import InvalidParameterError
from matrixdp.models import AdaSSPRegression
from matrixdp.models.adassp import adassp_plan


def table(n=5000, seed=0, d=4):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    y = np.clip(X @ (np.arange(1, d + 1) / d) + 0.1 * rng.standard_normal(n), -3, 3)
    return X, y


@parametrize_with_checks([AdaSSPRegression(bounds_X=(-5, 5), bounds_y=(-10, 10), random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_three_releases_compose_to_the_budget(relation):
    eps, delta = 1.0, 1e-6
    m1, m2, m3, total = adassp_plan(eps, delta, 3.0, 2.0, 5, relation)
    mu = max_gaussian_shift(eps, delta)
    for m in (m1, m2, m3):  # the paper's equal split, in Gaussian DP: μ*²/3 each
        assert m.sensitivity / m.sigma == pytest.approx(mu / math.sqrt(3), rel=1e-9)
        assert m.neighbouring == relation
    assert total.epsilon == pytest.approx(eps, rel=1e-6) and total.delta == delta
    assert total.mu == pytest.approx(mu, rel=1e-9)
    factor = 2.0 if relation == "replace-one" else 1.0
    assert m1.sensitivity == pytest.approx(9.0)  # λ_min moves by at most 𝒳² (Weyl)
    assert m2.sensitivity == pytest.approx(math.sqrt(factor) * 9.0)  # ‖xxᵀ - x'x'ᵀ‖_F
    assert m3.sensitivity == pytest.approx(factor * 6.0)  # ‖xy - x'y'‖


def test_charged_once_before_noise():
    calls = []

    class Ledger:
        def spend(self, guarantee, label=None):
            calls.append((guarantee.epsilon, label))

    X, y = table(300)
    est = AdaSSPRegression(epsilon=0.7, bounds_X=(-1, 1), bounds_y=(-3, 3), accountant=Ledger(),
                           random_state=0).fit(X, y)
    assert len(calls) == 1 and calls[0][1] == "AdaSSPRegression.fit"
    assert calls[0][0] == pytest.approx(0.7, rel=1e-6) and est.privacy_.epsilon == calls[0][0]


def test_close_to_ols_with_a_large_budget_and_ridge_vanishes():
    X, y = table(20000)
    ols = LinearRegression().fit(X, y)
    est = AdaSSPRegression(epsilon=1e4, bounds_X=(-1, 1), bounds_y=(-3, 3), random_state=0).fit(X, y)
    np.testing.assert_allclose(est.coef_, ols.coef_, atol=2e-3)
    assert est.intercept_ == pytest.approx(ols.intercept_, abs=2e-3)
    assert est.ridge_ == 0.0
    small = AdaSSPRegression(epsilon=0.1, bounds_X=(-1, 1), bounds_y=(-3, 3), random_state=0).fit(
        X[:200], y[:200])
    assert small.ridge_ > 0  # little data for the noise: the private ridge is active


def test_public_attributes_do_not_depend_on_the_data():
    X, y = table(500)
    X2 = X.copy()
    X2[0] = 1.0
    a = AdaSSPRegression(bounds_X=(-1, 1), bounds_y=(-3, 3), random_state=1).fit(X, y)
    b = AdaSSPRegression(bounds_X=(-1, 1), bounds_y=(-3, 3), random_state=1).fit(X2, y)
    assert a.privacy_ == b.privacy_


def test_rho_is_validated():
    X, y = table(100)
    with pytest.raises(InvalidParameterError, match="rho"):
        AdaSSPRegression(rho=1.5, bounds_X=(-1, 1), bounds_y=(-3, 3)).fit(X, y)


# ---- task BA (session 18) ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["AdaSSPRegression", "BoostedAdaSSPRegression"])
def test_a_public_constant_feature_has_coefficient_zero_next_to_an_intercept(name):
    """With an intercept a feature declared constant (lower == upper = 3) is 0 in every centred
    record, and its coefficient was pure noise traded against the intercept (9.4 and -16.2 in
    two fits of Boosted AdaSSP, intercept -23 and 49): now 0, with the same predictions."""
    import matrixdp.models as models

    rng = np.random.default_rng(0)
    X = np.c_[rng.uniform(0, 1, (2000, 2)), np.full(2000, 3.0)]
    y = X[:, :2] @ [1.0, -1.0] + 0.1 * rng.standard_normal(2000)
    kw = dict(bounds_X=([0, 0, 3.0], [1, 1, 3.0]), bounds_y=(-2, 2))
    for seed in range(3):
        est = getattr(models, name)(random_state=seed, **kw).fit(X, y)
        assert est.coef_[2] == 0.0 and abs(est.intercept_) < 2.0
        assert est.score(X, y) > 0.8
    # without an intercept the constant column is the model's level: kept
    est = getattr(models, name)(random_state=0, fit_intercept=False, **kw).fit(X, y)
    assert est.coef_[2] != 0.0
