"""DPLinearRegression / DPRidge: scikit-learn conventions, public bounds only, auto vs i.i.d., accuracy."""

from __future__ import annotations

import functools

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
    # auto against its own i.i.d. candidate (the full draw): noise="iid" is now the weighted
    # triangle release (task TR), never worse than that candidate
    assert auto.expected_loss_ < 0.5 * auto.noise_candidates_["iid"]
    assert iid.expected_loss_ <= auto.noise_candidates_["iid"] * (1 + 1e-12)
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
        assert a.expected_loss_ <= a.noise_candidates_["iid"] * (1 + 1e-12)
        assert i.expected_loss_ <= a.noise_candidates_["iid"] * (1 + 1e-12)


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


# --- issue #24: correct first -------------------------------------------------------------------

def _median_test_mse(make_est, X, y, Xt, yt, seeds=15, clip=None):
    out = []
    for s in range(seeds):
        pred = make_est(s).fit(X, y).predict(Xt)
        if clip is not None:
            pred = np.clip(pred, *clip)
        out.append(np.mean((pred - yt) ** 2))
    return float(np.median(out))


@pytest.mark.slow
def test_error_falls_with_epsilon_and_reaches_ols():
    """Well-conditioned problem: the median test MSE (15 seeds) falls at every step of ε until
    it is within 1% of OLS's, stays there, and is within 5% of OLS at ε = 1e4. (The boosted
    default reaches OLS's error at ε = 1e3 and then moves by ±0.2% around it: measured 2.2315e-6
    at 1e3 and 2.2354e-6 at 1e4 against OLS's 2.2385e-6; the single release fell at every step.)"""
    rng = np.random.default_rng(0)
    n, d = 20000, 5
    X = rng.uniform(-1, 1, (n, d))
    w = rng.uniform(-1, 1, d) / d * 2
    y = np.clip(X @ w + 0.1 * rng.standard_normal(n), -3, 3)
    Xt = rng.uniform(-1, 1, (4000, d))
    yt = Xt @ w
    ols = LinearRegression().fit(X, y)
    ols_mse = np.mean((ols.predict(Xt) - yt) ** 2)
    mses = [_median_test_mse(lambda s, e=eps: DPLinearRegression(
        epsilon=e, bounds_X=(-1, 1), bounds_y=(-3, 3), random_state=s), X, y, Xt, yt)
        for eps in (0.3, 1, 3, 10, 100, 1e3, 1e4)]
    floor = 1.01 * ols_mse
    assert all(a > b or (a <= floor and b <= floor) for a, b in zip(mses, mses[1:])), mses
    assert mses[-1] <= 1.05 * ols_mse, (mses[-1], ols_mse)


@pytest.mark.slow
def test_near_collinear_features_error_still_falls_with_epsilon():
    """Two features that nearly coincide: a plain solve of the (PSD-repaired) noisy Gram divides
    noise by noise along their difference, and its error rose from ε = 10 to 30 (4×, the bias of
    issue #24). The noise-aware ridge keeps the median test MSE falling."""
    rng = np.random.default_rng(0)

    def make(n):
        X = rng.uniform(0.1, 0.9, (n, 3))
        X[:, 1] = X[:, 0] + 0.02 * rng.uniform(-1, 1, n)
        return X

    X = make(5000)
    w = np.array([0.5, 0.5, -0.5])
    y = np.clip(X @ w + 0.1 * rng.standard_normal(5000), -2, 2)
    Xt = make(4000)
    yt = Xt @ w
    mses = [_median_test_mse(lambda s, e=eps: DPLinearRegression(
        epsilon=e, bounds_X=(0, 1), bounds_y=(-2, 2), random_state=s), X, y, Xt, yt, clip=(-2, 2))
        for eps in (1, 3, 10, 30, 100)]
    assert all(a > b for a, b in zip(mses, mses[1:])), mses


def test_ridge_never_divides_noise_by_alpha():
    """DPRidge(alpha) adds alpha before the adaptive lift (no eigenvalue is clipped and then left at
    alpha, as before: that divided noise by alpha). Never worse than the unpenalised fit
    by more than noise (10%), and its coefficients stay on the scale of the data (the old order,
    clip negative eigenvalues then add alpha, gave coefficients of 1e6 at alpha = 1)."""
    X, y = table(2000)
    Xt, yt = table(2000, seed=1)
    for eps in (0.3, 1.0, 3.0):
        ols = _median_test_mse(lambda s: DPLinearRegression(
            epsilon=eps, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, random_state=s), X, y, Xt, yt,
            seeds=9)
        for alpha in (1e-3, 1.0):
            ridge = _median_test_mse(lambda s: DPRidge(
                alpha=alpha, epsilon=eps, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, random_state=s),
                X, y, Xt, yt, seeds=9)
            assert ridge <= 1.1 * ols, (eps, alpha, ridge, ols)
            est = DPRidge(alpha=alpha, epsilon=eps, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y,
                          random_state=0).fit(X, y)
            # coefficient times the feature's range: bounded by the target's range (8) times a few
            assert np.all(np.abs(est.coef_ * HI) < 50), est.coef_ * HI


def _forced_allocation_errors(monkeypatch, widths, eps, seeds=20, n=20000):
    """(expected loss, measured coefficient error in half-width units) of every candidate."""
    import matrixdp.models._moments as moments

    rng = np.random.default_rng(1)
    d = widths.size
    X = rng.uniform(0, 1, (n, d)) * widths
    w = rng.uniform(-1, 1, d) / widths / np.sqrt(d) * 2
    y = np.clip(X @ w - (X @ w).mean() + 0.05 * rng.standard_normal(n), -1, 1)
    ols = LinearRegression().fit(X, y).coef_
    plan = moments.plan_second_moment
    out = {}
    from matrixdp.models.joint_release import REGRESSION_CANDIDATES

    for alloc in REGRESSION_CANDIDATES:  # exactly what noise="auto" compares
        monkeypatch.setattr(moments, "plan_second_moment",
                            lambda task, a=alloc, **kw: plan(task, epsilon=kw["epsilon"],
                                                             delta=kw["delta"], allocation=a))
        errs = []
        for s in range(seeds):
            # the allocation's own error: the single joint release (no boosting rounds)
            est = DPLinearRegression(epsilon=eps, bounds_X=(0, widths), bounds_y=(-1, 1),
                                     boost_rounds=0, random_state=s).fit(X, y)
            errs.append(np.sum(((est.coef_ - ols) * widths / 2) ** 2))
        out[alloc] = (est.expected_loss_, float(np.mean(errs)))
    monkeypatch.setattr(moments, "plan_second_moment", plan)
    return out


@pytest.mark.parametrize("widths", [np.ones(4), np.array([1.0, 10.0, 100.0, 1000.0])])
def test_auto_expected_loss_ranks_candidates_as_measured(monkeypatch, widths):
    """The expected-loss model behind noise="auto" against measured coefficient error (20 seeds,
    n = 20000 records filling a public box, ε = 10): every pair of candidates the model separates by more than
    1.3× is ordered the same way by the measurement; where no candidate needs the adaptive ridge
    (equal widths) the predicted ratios to the best match the measured ones within 30%; and auto
    picks a candidate whose measured error is within 30% of the best."""
    res = _forced_allocation_errors(monkeypatch, widths, eps=10.0)
    names = list(res)
    for a in names:
        for b in names:
            pa, pb = res[a][0], res[b][0]
            if pa > 1.3 * pb:
                assert res[a][1] > res[b][1], (a, b, res)
    best_pred = min(v[0] for v in res.values())
    best_meas = min(v[1] for v in res.values())
    if widths.max() == widths.min():
        for a, (p, m) in res.items():
            assert (p / best_pred) == pytest.approx(m / best_meas, rel=0.3), (a, res)
    auto = DPLinearRegression(epsilon=10.0, bounds_X=(0, widths), bounds_y=(-1, 1),
                              random_state=0).fit(np.zeros((5000, widths.size)), np.zeros(5000))
    assert res[auto.allocation_][1] <= 1.3 * best_meas, (auto.allocation_, res)
    assert set(auto.noise_candidates_) == set(names)


def _liver_like(n, seed):
    """n records, 5 features concentrated in a small part of wide public boxes, a skewed target
    in [0, 20] whose mean (≈ 3.6) is far from the box centre 10 and which the features barely
    predict (the regime of the liver table: n = 241, d = 5)."""
    rng = np.random.default_rng(seed)
    mean = np.array([90.0, 70.0, 30.0, 24.0, 37.0])
    sd = np.array([4.6, 18.0, 19.0, 9.0, 37.0])
    lo = np.array([50.0, 20.0, 2.0, 5.0, 5.0])
    hi = np.array([200.0, 200.0, 200.0, 100.0, 500.0])
    X = np.clip(mean + sd * rng.standard_normal((n, 5)), lo, hi)
    y = np.clip(rng.gamma(1.1, 3.2, n) + 0.3 * (X[:, 4] - 37.0) / 37.0, 0.0, 20.0)
    return X, y, lo, hi


def test_low_epsilon_skewed_target_is_not_pulled_to_the_box_centre():
    """Liver-like regime at ε = 0.3 (n = 241, d = 5; the features swamped by the noise): the
    adaptive ridge must not shrink the intercept towards the centre of the target's box when
    the release places the target's mean (here 4.2, the centre 10). Median test RMSE over 20
    seeds within 20% of predicting the (non-private) training mean (measured 1.13×); the
    previous rule (the constant coordinate lifted like the features) is more than 30% above it
    on the same releases (measured 1.40×; on liver itself 4.33 against 3.0)."""
    from matrixdp.models.joint_release import regression_task
    from matrixdp.models.normal_equations import solve_moments

    X, y, lo, hi = _liver_like(241, 0)
    Xt, yt, _, _ = _liver_like(4000, 1)
    n, d = X.shape
    const = np.sqrt(np.mean((yt - y.mean()) ** 2))
    task, cx, cy, t = regression_task(lo, hi, 0.0, 20.0, n, True)
    new, old = [], []
    for seed in range(20):
        est = DPLinearRegression(epsilon=0.3, bounds_X=(lo, hi), bounds_y=(0, 20),
                                 random_state=seed).fit(X, y)
        new.append(np.sqrt(np.mean((np.clip(est.predict(Xt), 0, 20) - yt) ** 2)))
        beta = solve_moments(est.moments_ * n, est.entry_variance_, task, n, t,
                             lift_intercept=True)[0]
        pred = Xt @ beta[:d] + cy - cx @ beta[:d] + beta[d] * t
        old.append(np.sqrt(np.mean((np.clip(pred, 0, 20) - yt) ** 2)))
    assert np.median(new) <= 1.2 * const, (np.median(new), const)
    assert np.median(old) >= 1.3 * const, (np.median(old), const)  # the test can tell them apart


#: The public bounds of experiments/heldout_diabetes.py (documentation and clinical ranges,
#: written before that table was first used; results/heldout_diabetes.md).
DIABETES_BOUNDS = {"age": (0, 100), "sex": (1, 2), "bmi": (10, 60), "bp": (40, 160),
                   "s1": (50, 500), "s2": (0, 400), "s3": (10, 150), "s4": (1, 15), "s5": (2, 8),
                   "s6": (40, 400)}


def test_held_out_medical_table_issue_24_findings():
    """The table of issue #24's findings (scikit-learn's diabetes table, 442 × 10, public bounds,
    a fixed 80/20 split, 9 seeds). There the previous release's median test MSE stayed flat from
    ε = 3 to 30 and reached OLS only near ε = 10⁶, i.i.d. noise beat `auto` by 2.2× at ε = 1, and
    DPRidge gave coefficients of 10⁶ at alpha = 1. Checked: the default's median falls at every
    step of ε ∈ {1, 10, 10⁴} and is within 5% of OLS at 10⁴ (measured 1.00×); it is never worse
    than its own i.i.d. option by more than 10% (measured 0.99×, 0.77×, 0.90×); DPRidge at alpha 1e-3
    and 1 is within 10% of the default (measured 1.000×) with coefficients on the data's scale."""
    from sklearn.datasets import load_diabetes

    ds = load_diabetes(scaled=False)
    lo = np.array([DIABETES_BOUNDS[c][0] for c in ds.feature_names], float)
    hi = np.array([DIABETES_BOUNDS[c][1] for c in ds.feature_names], float)
    X, y = ds.data, ds.target
    perm = np.random.default_rng(0).permutation(len(y))
    te, tr = perm[:88], perm[88:]
    Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
    ols = float(np.mean((LinearRegression().fit(Xtr, ytr).predict(Xte) - yte) ** 2))
    default = []
    for eps in (1.0, 10.0, 1e4):
        kw = dict(epsilon=eps, bounds_X=(lo, hi), bounds_y=(25, 346))
        med = _median_test_mse(lambda s: DPLinearRegression(random_state=s, **kw), Xtr, ytr,
                               Xte, yte, seeds=9)
        default.append(med)
        iid = _median_test_mse(lambda s: DPLinearRegression(noise="iid", random_state=s, **kw),
                               Xtr, ytr, Xte, yte, seeds=9)
        assert med <= 1.1 * iid, (eps, med, iid)
        for alpha in (1e-3, 1.0):
            ridge = _median_test_mse(lambda s: DPRidge(alpha=alpha, random_state=s, **kw), Xtr,
                                     ytr, Xte, yte, seeds=9)
            assert ridge <= 1.1 * med, (eps, alpha, ridge, med)
            est = DPRidge(alpha=alpha, random_state=0, **kw).fit(Xtr, ytr)
            # slope × the feature's public width, against 10 × the target's range (321)
            assert np.all(np.abs(est.coef_ * (hi - lo)) < 3210), est.coef_ * (hi - lo)
    assert default[0] > default[1] > default[2], default
    assert default[2] <= 1.05 * ols, (default[2], ols)


# ----------------------------------------------------------------------------- error bars
@pytest.mark.parametrize("kwargs", [{}, {"fit_intercept": False}, {"neighbouring": "add-remove"},
                                    {"noise": "iid", "projection": "none", "boost_rounds": 0},
                                    {"boost_rounds": 0}])
def test_coef_std_matches_the_spread_over_seeds(kwargs):
    """coef_std_ / intercept_std_ (delta method, public variances) against the standard deviation of
    coef_ over 400 seeded fits of one table, at a budget where the noise is small against the data
    (the first-order regime it is derived for): within ±25% per coefficient, and a scale 1.5×
    off is rejected. (i.i.d. noise is checked unprojected and without boosting rounds: there the
    projection binds on the narrow feature and the bar overstates its spread, see the next test;
    with rounds the adaptive ridge lifts that feature and the bar overstates it too,
    test_linear_boosting.py.) The default boosts (``{}``); ``boost_rounds=0`` is the single
    release's delta-method bar."""
    X, y = table(20000, seed=3)
    fits = [DPLinearRegression(epsilon=50.0, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y,
                               random_state=s, **kwargs).fit(X, y) for s in range(400)]
    coefs = np.array([f.coef_ for f in fits])
    predicted = np.median([f.coef_std_ for f in fits], axis=0)
    ratio = coefs.std(axis=0, ddof=1) / predicted
    assert np.all(np.abs(ratio - 1.0) < 0.25), ratio
    assert not np.all(np.abs(ratio * 1.5 - 1.0) < 0.25)
    if kwargs.get("fit_intercept", True):
        spread = np.std([f.intercept_ for f in fits], ddof=1)
        icpt = np.median([f.intercept_std_ for f in fits])
        assert abs(spread / icpt - 1.0) < 0.25, spread / icpt
    else:
        assert all(f.intercept_std_ == 0.0 for f in fits)


def test_coef_std_is_conservative_where_the_projection_binds():
    """The bar ignores the feasible projection (post-processing that can only pull the release
    towards the feasible set): with i.i.d. noise it binds on the narrow feature of this table, whose
    spread over 400 fits is then about a third of the bar; no coefficient's spread exceeds its bar
    by more than the ±25% sampling tolerance."""
    X, y = table(20000, seed=3)
    fits = [DPLinearRegression(epsilon=50.0, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, noise="iid",
                               boost_rounds=0, random_state=s).fit(X, y) for s in range(400)]
    ratio = np.array([f.coef_ for f in fits]).std(axis=0, ddof=1) / np.median(
        [f.coef_std_ for f in fits], axis=0)
    assert np.all(ratio < 1.25), ratio
    assert ratio[0] < 0.5, ratio  # the binding coordinate (if it stops binding, revisit the docs)


def test_coef_std_shrinks_with_epsilon():
    """With the rounds' clip fixed at τ₀ (the default before task RC) the error bars shrink with
    ε. The default's late clip (docs/regression.md §4i) is not monotone across its switch: on
    this table its rounds switch to the residual cap at ε = 100 and their noise (∝ τ_cap) is
    larger in the coefficients than at ε = 10 (next test)."""
    X, y = table(5000)
    std = [DPLinearRegression(epsilon=e, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, boost_clip="fixed",
                              random_state=0).fit(X, y).coef_std_ for e in (1.0, 10.0, 100.0)]
    assert np.all(std[0] > std[1]) and np.all(std[1] > std[2])


def test_the_late_clips_error_bars_rise_at_its_switch():
    """The documented cost of §4i on a table without a Huber bias (symmetric noise): once the
    rounds switch to the cap (ε = 100 here) the error bars are larger than the fixed clip's at the
    same ε, and than the default's own at ε = 10 where no round switches."""
    X, y = table(5000)
    fit = {(e, c): DPLinearRegression(epsilon=e, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y,
                                      boost_clip=c, random_state=0).fit(X, y)
           for e in (10.0, 100.0) for c in ("fixed", "late")}
    assert fit[(10.0, "late")].boost_clips_ == fit[(10.0, "fixed")].boost_clips_
    assert min(fit[(100.0, "late")].boost_clips_) > max(fit[(100.0, "fixed")].boost_clips_)
    assert np.all(fit[(100.0, "late")].coef_std_ > 3 * fit[(100.0, "fixed")].coef_std_)
    assert np.all(fit[(100.0, "late")].coef_std_ > fit[(10.0, "late")].coef_std_)


def test_projection_none_solves_the_raw_release():
    """projection="none" differs from the default only by the projection: same release (same
    seed), same guarantee; an unknown projection is refused before any noise is drawn."""
    X, y = table(300)
    kw = dict(epsilon=0.5, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, random_state=1)
    a = DPLinearRegression(**kw).fit(X, y)
    b = DPLinearRegression(projection="none", **kw).fit(X, y)
    np.testing.assert_array_equal(a.moments_, b.moments_)
    assert a.privacy_ == b.privacy_
    assert not np.allclose(a.coef_, b.coef_)  # at n = 300, eps = 0.5 the projection is active
    with pytest.raises(InvalidParameterError, match="projection"):
        DPRidge(projection="box", **kw).fit(X, y)


@pytest.mark.parametrize("kwargs", [{}, {"noise": "iid"}, {"neighbouring": "add-remove"},
                                    {"neighbouring": "add-remove", "noise": "iid"}])
def test_a_public_constant_feature_gets_coefficient_zero_with_no_noise(kwargs):
    """lower == upper for a feature (a public constant): with an intercept its centred sums are 0
    for every record whatever n is, so the projection pins them (replace-one: the entry box;
    add-remove: the PSD cone with those rows at 0) and its coefficient is 0 with a zero error bar;
    the other coefficients keep theirs. Without the projection the noise stays."""
    rng = np.random.default_rng(3)
    n = 500
    X = np.column_stack([rng.uniform(0, 10, n), rng.uniform(-1, 1, n), np.full(n, 3.0)])
    y = np.clip(0.5 * X[:, 0] + X[:, 1] + rng.normal(0, 0.5, n), -5, 10)
    common = dict(epsilon=1.0, bounds_X=([0, -1, 3], [10, 1, 3]), bounds_y=(-5, 10), **kwargs)
    for seed in range(3):
        m = DPLinearRegression(random_state=seed, **common).fit(X, y)
        assert abs(m.coef_[2]) < 1e-12 and m.coef_std_[2] == 0.0
        assert np.all(m.coef_std_[:2] > 0)
        raw = DPLinearRegression(random_state=seed, projection="none", **common).fit(X, y)
        assert raw.coef_std_[2] > 0 and abs(raw.coef_[2]) > 1e-6


def test_a_constant_feature_without_intercept_is_a_real_coefficient():
    """Without an intercept the features are not centred: a constant column of 3 carries the
    level, its coefficient is estimated (noisy) and keeps its error bar."""
    rng = np.random.default_rng(4)
    n = 500
    X = np.column_stack([rng.uniform(0, 10, n), np.full(n, 3.0)])
    y = np.clip(0.5 * X[:, 0] + 1.0 + rng.normal(0, 0.5, n), -5, 10)
    m = DPLinearRegression(epsilon=1.0, bounds_X=([0, 3], [10, 3]), bounds_y=(-5, 10),
                           fit_intercept=False, random_state=0).fit(X, y)
    assert m.coef_std_[1] > 0 and abs(m.coef_[1]) > 1e-3


# ----------------------------------------------------------------- level share and risk selection
# (docs/regression.md §3b; results/regression_floor_*.md)

def _loose_label_table(n, seed=0):
    """Labels in [0, 1] (a linear signal plus noise), declared in the box [-50, 50]."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 4))
    y = np.clip(0.5 + X @ np.array([0.15, -0.1, 0.1, 0.05]) + 0.1 * rng.standard_normal(n), 0, 1)
    return X, y


LOOSE = dict(bounds_X=(-1, 1), bounds_y=(-50, 50))


def test_level_share_and_selection_use_only_the_release(monkeypatch):
    """After the release nothing private is read: the exact moments and the records are
    overwritten right after the (joint + mean) release, and the fitted model is unchanged."""
    import matrixdp.models.linear as lin

    X, y = _loose_label_table(3000, seed=1)
    kw = dict(epsilon=1.0, random_state=5, level_share=0.4, select="risk", **LOOSE)
    clean = DPLinearRegression(**kw).fit(X, y)
    X2, y2 = X.copy(), y.copy()
    original = lin.release_with_target_mean

    def release_then_forget(value, *args, **kwargs):
        out = original(value, *args, **kwargs)
        value[...] = np.nan  # the exact (private) moments
        X2[...] = 1e6
        y2[...] = -1e6
        return out

    monkeypatch.setattr(lin, "release_with_target_mean", release_then_forget)
    est = DPLinearRegression(**kw).fit(X2, y2)
    assert est.selected_ == clean.selected_
    np.testing.assert_array_equal(est.coef_, clean.coef_)
    assert est.intercept_ == clean.intercept_
    # and the public rule takes public inputs only
    import inspect

    from matrixdp.models.joint_release import auto_level_share

    assert list(inspect.signature(auto_level_share).parameters) == [
        "task", "t", "n", "lo_y", "hi_y", "epsilon", "delta", "noise"]


def test_level_share_composes_exactly_and_is_charged_once_before_any_draw(monkeypatch):
    from matrixdp.accounting import Accountant
    from matrixdp.calibration.gaussian import max_gaussian_shift
    from matrixdp.errors import BudgetExceededError
    from matrixdp.mechanisms import GaussianMechanism, MVGMechanism

    X, y = _loose_label_table(2000)
    draws = []
    for cls in (GaussianMechanism, MVGMechanism):
        original = cls.release

        def spy(self, value, rng=None, _original=original):
            draws.append(type(self).__name__)
            return _original(self, value, rng=rng)

        monkeypatch.setattr(cls, "release", spy)
    small = Accountant(epsilon=0.5, delta=1e-6)
    with pytest.raises(BudgetExceededError):
        DPLinearRegression(epsilon=1.0, delta=1e-6, level_share=0.3, accountant=small,
                           random_state=0, **LOOSE).fit(X, y)
    assert small.spends == () and draws == []
    acc = Accountant(epsilon=1.0, delta=1e-6)
    est = DPLinearRegression(epsilon=1.0, delta=1e-6, level_share=0.3, accountant=acc,
                             random_state=0, **LOOSE).fit(X, y)
    assert len(acc.spends) == 1 and len(draws) == 2  # the joint release and the mean
    assert acc.spends[0][1].epsilon == pytest.approx(1.0, rel=1e-9)
    assert est.privacy_.epsilon == pytest.approx(1.0, rel=1e-9)
    assert est.privacy_.delta == 1e-6
    assert est.privacy_.mu == pytest.approx(max_gaussian_shift(1.0, 1e-6), rel=1e-9)
    assert est.level_share_ == 0.3 and est.target_mean_ is not None


@functools.lru_cache(maxsize=1)
def _dedicated_mean_errors():
    n, eps, share = 500, 1.0, 0.5
    X, y = _loose_label_table(n, seed=2)
    errs, var = [], None
    for s in range(400):
        est = DPLinearRegression(epsilon=eps, level_share=share, random_state=s, **LOOSE).fit(X, y)
        errs.append(est.target_mean_ - y.mean())
        var = est.target_mean_variance_
    return np.array(errs), var


@pytest.mark.slow
@pytest.mark.parametrize("factor,accept", [(1.0, True), (1.3, False)])
def test_dedicated_mean_has_the_calibrated_noise(factor, accept):
    """The dedicated mean's noise sd is ((hi - lo)/n) / (μ* √s) (the share s of μ*² in Gaussian
    DP); ±10% on 400 seeded fits (sd of the estimate ≈ 3.5%) accepts it and rejects ×1.3."""
    from matrixdp.calibration.gaussian import max_gaussian_shift

    sigma = (100.0 / 500) / (max_gaussian_shift(1.0, 1e-6) * np.sqrt(0.5))
    errs, var = _dedicated_mean_errors()
    assert var == pytest.approx(sigma ** 2, rel=1e-9)
    ratio = np.std(errs) / (factor * sigma)
    assert (abs(ratio - 1.0) < 0.10) == accept, ratio


def test_loose_label_box_risk_selection_is_near_the_dp_mean():
    """Labels in [0, 1] declared in [-50, 50], ε = 1, n = 5000: the noise of the released Xᵀy
    swamps the slopes. The previous solve is > 5× the DP mean's median test MSE (20 seeds);
    with half the budget on the target's mean and the risk selection it is ≤ 1.2×."""
    from matrixdp.models import DPMean

    X, y = _loose_label_table(5000)
    Xt, yt = _loose_label_table(4000, seed=9)

    def med(make):
        return np.median([np.mean((np.clip(make(s), -50, 50) - yt) ** 2) for s in range(20)])

    old = med(lambda s: DPLinearRegression(epsilon=1.0, random_state=s, **LOOSE).fit(X, y)
              .predict(Xt))
    new = med(lambda s: DPLinearRegression(epsilon=1.0, random_state=s, level_share=0.5,
                                           select="risk", **LOOSE).fit(X, y).predict(Xt))
    mean = med(lambda s: np.full(len(Xt), DPMean(epsilon=1.0, bounds=(-50, 50), random_state=s)
                                 .fit(y[:, None]).mean_[0]))
    assert old > 5 * mean, (old, mean)
    assert new <= 1.2 * mean, (new, mean)


def test_level_share_and_select_defaults_and_where_they_do_not_apply():
    X, y = _loose_label_table(400)
    est = DPLinearRegression(epsilon=1.0, random_state=0, **LOOSE).fit(X, y)
    assert est.level_share_ == 0.0 and est.target_mean_ is None and est.selected_ == "fit"
    assert est.risk_estimates_ is None
    for kw in ({"neighbouring": "add-remove"}, {"fit_intercept": False}):
        e = DPLinearRegression(epsilon=1.0, random_state=0, level_share=0.5, **kw,
                               **LOOSE).fit(X, y)
        assert e.level_share_ == 0.0 and e.target_mean_ is None
    # without an intercept the risk selection compares the fit with the zero predictor
    e = DPLinearRegression(epsilon=1.0, random_state=0, select="risk", fit_intercept=False,
                           **LOOSE).fit(X, y)
    assert e.selected_ in ("fit", "constant") and set(e.risk_estimates_) == {"fit", "constant"}


@pytest.mark.parametrize("kw", [{"level_share": 1.0}, {"level_share": -0.1},
                                {"level_share": "half"}, {"level_share": True},
                                {"select": "cp"}])
def test_level_share_and_select_are_validated(kw):
    X, y = _loose_label_table(100)
    with pytest.raises(InvalidParameterError):
        DPLinearRegression(epsilon=1.0, random_state=0, **kw, **LOOSE).fit(X, y)


def test_auto_level_share_follows_the_public_slope_capacity():
    """``level_share="auto"`` from public inputs only: on 20 records in a loose box at ε = 0.3
    no slope can be resolved (slope capacity < 0.5), so 95% of the budget buys the mean and the
    constant model is returned; on 20,000 records at ε = 10 the share is tiny and the slopes
    are kept (and the fit is within 2% of the single release's test MSE, boost_rounds=0)."""
    from matrixdp.models.joint_release import HOPELESS_SHARE

    rng = np.random.default_rng(3)
    X = rng.uniform(0, 10, (20, 3))
    y = X @ np.array([1.0, -0.5, 0.2]) + rng.standard_normal(20)
    tiny = DPLinearRegression(epsilon=0.3, bounds_X=(0, 100), bounds_y=(-100, 100),
                              level_share="auto", random_state=0).fit(X, y)
    assert tiny.level_share_ == HOPELESS_SHARE and tiny.selected_ == "constant"
    np.testing.assert_array_equal(tiny.coef_, np.zeros(3))
    assert tiny.privacy_.epsilon == pytest.approx(0.3, rel=1e-9)

    X = rng.uniform(-1, 1, (20000, 4))
    w = np.array([0.5, -0.3, 0.2, 0.1])
    y = np.clip(X @ w + 0.1 * rng.standard_normal(20000), -2, 2)
    Xt = rng.uniform(-1, 1, (4000, 4))
    kw = dict(epsilon=10.0, bounds_X=(-1, 1), bounds_y=(-2, 2))
    big = DPLinearRegression(level_share="auto", random_state=0, **kw).fit(X, y)
    assert 0 < big.level_share_ < 0.05 and big.selected_ == "fit"
    auto = _median_test_mse(lambda s: DPLinearRegression(level_share="auto", random_state=s, **kw),
                            X, y, Xt, Xt @ w, seeds=8)
    # the single release it was designed against (a level share turns the rounds off)
    default = _median_test_mse(lambda s: DPLinearRegression(boost_rounds=0, random_state=s, **kw),
                               X, y, Xt, Xt @ w, seeds=8)
    assert auto <= 1.02 * default, (auto, default)


def test_a_public_constant_feature_does_not_set_the_ridge_of_the_others():
    """The pinned constant's zero diagonal is left out of the adaptive ridge's λ_min: with a
    large budget nothing is lifted (ridge_ == 0, as without the column) and the other
    coefficients are OLS's; before, λ sat at the noise edge whatever ε was."""
    rng = np.random.default_rng(5)
    n = 2000
    X = np.column_stack([rng.uniform(0, 10, n), rng.uniform(-1, 1, n), np.full(n, 3.0)])
    y = np.clip(0.5 * X[:, 0] + X[:, 1] + rng.normal(0, 0.5, n), -5, 10)
    ols = LinearRegression().fit(X[:, :2], y).coef_
    for kw in ({}, {"neighbouring": "add-remove"}):
        m = DPLinearRegression(epsilon=1e4, bounds_X=([0, -1, 3], [10, 1, 3]), bounds_y=(-5, 10),
                               random_state=0, **kw).fit(X, y)
        assert m.ridge_ == 0.0
        np.testing.assert_allclose(m.coef_[:2], ols, rtol=0.02)
        assert m.coef_[2] == 0.0
    # the pinned rows add no variance to the other bars: the intercept's bar is of the size it
    # has without the column (it was 300x larger when the pinned rows' noise was counted)
    for prior in ("none", "gauss"):
        kw = dict(epsilon=0.5, bounds_y=(-5, 10), random_state=0, level_prior=prior)
        a = DPLinearRegression(bounds_X=([0, -1, 3], [10, 1, 3]), **kw).fit(X, y)
        b = DPLinearRegression(bounds_X=([0, -1], [10, 1]), **kw).fit(X[:, :2], y)
        assert 0.5 < a.intercept_std_ / b.intercept_std_ < 2.0


# ----------------------------------------------------------------- level prior (docs/regression.md §3c)


def _tiny_level_table(offset, n=20, seed=3):
    """20 records, three features in a loose box; the target's mean at ``offset`` half-widths
    from the centre of its box [-100, 100]."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 10, (n, 3))
    y = offset * 100.0 + X @ np.array([1.0, -0.5, 0.2]) - 3.5 + rng.standard_normal(n)
    return X, np.clip(y, -100, 100)


TINY = dict(bounds_X=(0, 100), bounds_y=(-100, 100))


def test_level_prior_weight_is_public_and_uses_only_the_release(monkeypatch):
    """The Gaussian weight depends only on public inputs (bounds, n, ε, δ, the allocation): two
    tables of the same shape give the same weight, equal to the formula on the release's public
    variance; and nothing private is read after the release (the exact moments and the records
    are overwritten right after it: the fitted model is unchanged)."""
    import matrixdp.models.linear as lin
    from matrixdp.models.joint_release import level_prior_weight, regression_task

    X, y = _tiny_level_table(0.0)
    X2, y2 = _tiny_level_table(0.8, seed=11)
    kw = dict(epsilon=1.0, level_prior="gauss", random_state=4, **TINY)
    a = DPLinearRegression(**kw).fit(X, y)
    b = DPLinearRegression(**kw).fit(X2, y2)
    assert a.level_weight_ == b.level_weight_ and 0.0 < a.level_weight_ < 1.0
    d = X.shape[1]
    task, _, _, t = regression_task(np.zeros(d), np.full(d, 100.0), -100.0, 100.0, 20, True)
    v = a.entry_variance_[d, d + 1] / t ** 2
    assert a.level_weight_ == pytest.approx(level_prior_weight(v, 100.0, 1.0 / 3.0), rel=1e-12)

    for prior in ("gauss", "box"):
        kw = dict(epsilon=1.0, level_prior=prior, random_state=4, **TINY)
        clean = DPLinearRegression(**kw).fit(X, y)
        Xc, yc = X.copy(), y.copy()
        original = lin.release_second_moment

        def release_then_forget(Z, task, *args, value=None, **kwargs):
            out = original(Z, task, *args, value=value, **kwargs)
            value[...] = np.nan  # the exact (private) moments
            Xc[...] = 1e6
            yc[...] = -1e6
            return out

        monkeypatch.setattr(lin, "release_second_moment", release_then_forget)
        est = DPLinearRegression(**kw).fit(Xc, yc)
        monkeypatch.setattr(lin, "release_second_moment", original)
        np.testing.assert_array_equal(est.coef_, clean.coef_)
        assert est.intercept_ == clean.intercept_ and est.level_weight_ == clean.level_weight_


def test_level_prior_keeps_the_slopes_and_where_it_does_not_apply():
    X, y = _tiny_level_table(0.5)
    base = DPLinearRegression(epsilon=1.0, random_state=2, boost_rounds=0, **TINY).fit(X, y)
    assert base.level_weight_ == 1.0
    est = DPLinearRegression(epsilon=1.0, random_state=2, level_prior="gauss", **TINY).fit(X, y)
    np.testing.assert_array_equal(est.coef_, base.coef_)  # only the level moves
    assert est.intercept_ != base.intercept_
    assert est.privacy_ == base.privacy_  # post-processing: the same release
    # precise level (large n, large ε): weight ≈ 1, the fit is (nearly) the default's
    rng = np.random.default_rng(0)
    Xb = rng.uniform(0, 1, (20000, 2))
    yb = np.clip(0.3 + Xb @ np.array([0.2, 0.1]) + 0.05 * rng.standard_normal(20000), 0, 1)
    kw = dict(epsilon=10.0, bounds_X=(0, 1), bounds_y=(0, 1), random_state=1)
    big = DPLinearRegression(level_prior="gauss", **kw).fit(Xb, yb)
    ref = DPLinearRegression(boost_rounds=0, **kw).fit(Xb, yb)
    assert big.level_weight_ > 0.999
    assert big.intercept_ == pytest.approx(ref.intercept_, abs=2e-3)
    # with select="risk" the prior moves the kept model's level only (same selection)
    sel = DPLinearRegression(epsilon=1.0, random_state=2, select="risk", **TINY).fit(X, y)
    selp = DPLinearRegression(epsilon=1.0, random_state=2, select="risk", level_prior="gauss",
                              **TINY).fit(X, y)
    assert selp.selected_ == sel.selected_ and selp.risk_estimates_ == sel.risk_estimates_
    np.testing.assert_array_equal(selp.coef_, sel.coef_)
    for other in ({"neighbouring": "add-remove"}, {"fit_intercept": False}):
        e = DPLinearRegression(epsilon=1.0, random_state=2, level_prior="gauss", **other,
                               **TINY).fit(X, y)
        r = DPLinearRegression(epsilon=1.0, random_state=2, boost_rounds=0, **other,
                               **TINY).fit(X, y)
        assert e.level_weight_ == 1.0
        np.testing.assert_array_equal(e.coef_, r.coef_)
        assert e.intercept_ == r.intercept_


@pytest.mark.parametrize("prior", ["uniform", 0.0, -1.0, True, np.nan])
def test_level_prior_is_validated(prior):
    X, y = _tiny_level_table(0.0)
    with pytest.raises(InvalidParameterError):
        DPLinearRegression(epsilon=1.0, random_state=0, level_prior=prior, **TINY).fit(X, y)


@functools.lru_cache(maxsize=4)
def _tiny_level_errors(offset):
    """Level errors of the constant model (``level_share="auto"`` on 20 records at ε = 0.3
    returns it: the slopes are hopeless) with and without the Gaussian prior, 300 seeds."""
    X, y = _tiny_level_table(offset)
    raw, post, w, v, bar = [], [], None, None, None
    for s in range(300):
        kw = dict(epsilon=0.3, level_share="auto", random_state=s, **TINY)
        a = DPLinearRegression(**kw).fit(X, y)
        b = DPLinearRegression(level_prior="gauss", **kw).fit(X, y)
        assert a.selected_ == b.selected_ == "constant"
        raw.append(a.intercept_ - y.mean())
        post.append(b.intercept_ - y.mean())
        w = b.level_weight_
        v = a.intercept_std_ ** 2
        bar = b.intercept_std_
    return np.array(raw), np.array(post), w, v, bar, y.mean()


@pytest.mark.slow
@pytest.mark.parametrize("offset", [0.0, 0.8])
def test_level_prior_mse_is_near_the_better_of_centre_and_raw_level(offset):
    """A tiny table (20 records, ε = 0.3) with the target's mean at the centre of its box and
    one at 0.8 half-widths: the Gaussian-prior level's MSE (300 seeded fits) is at most the
    better of the box centre's and the raw DP level's, plus 0.05 h² (stated tolerance: at the
    centre the prior's estimator cannot be exactly 0), and within ±15% of its closed form
    ``w² v + (1 - w)² m²`` (at the centre this rejects a weight off by 30%). The constant
    model's ``intercept_std_`` is ``w`` times the raw level's and matches the spread (±15%)."""
    raw, post, w, v, bar, mean = _tiny_level_errors(offset)
    h = 100.0
    m2 = mean ** 2  # centred coordinates: the box centre is 0
    mse_post, mse_raw = float(np.mean(post ** 2)), float(np.mean(raw ** 2))
    assert mse_raw == pytest.approx(v, rel=0.2)  # the raw level's noise is the public one
    assert mse_post <= min(m2, mse_raw) + 0.05 * h * h, (mse_post, m2, mse_raw)
    expected = w * w * v + (1 - w) ** 2 * m2
    assert mse_post == pytest.approx(expected, rel=0.15)
    if offset == 0.0:  # there the MSE is the noise w² v: a weight off by 30% is rejected
        for wrong in (1.3 * w, w / 1.3):
            alt = wrong ** 2 * v + (1 - wrong) ** 2 * m2
            assert abs(mse_post - alt) > 0.15 * alt, (mse_post, alt)
    # the constant model's error bar is the shrunk level's noise std w·sd (the bias not in it)
    assert bar == pytest.approx(w * np.sqrt(v), rel=1e-9)
    assert np.std(post) == pytest.approx(bar, rel=0.15)
    assert np.std(raw) == pytest.approx(np.sqrt(v), rel=0.15)


def test_level_prior_intercept_bar_covers_the_spread():
    """With the fitted slopes kept, ``intercept_std_`` (first order: the level's noise scaled by
    ``w``, the slopes' and the released feature means') is not below the intercept's spread
    over 100 seeded fits (it ignores the feasible projection, like the default's bar, so it may
    overstate it), and ``DPRidge`` passes ``level_prior`` through."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 10, (60, 3))
    y = np.clip(20 + X @ np.array([1.0, -0.5, 0.2]) + rng.standard_normal(60), -100, 100)
    fits = [DPLinearRegression(epsilon=1.0, level_prior="gauss", random_state=s, **TINY)
            .fit(X, y) for s in range(100)]
    w = fits[0].level_weight_
    assert 0.3 < w < 0.95
    spread = np.std([f.intercept_ for f in fits])
    bar = np.median([f.intercept_std_ for f in fits])
    assert spread <= bar <= 3.0 * spread, (spread, bar)
    r = DPRidge(alpha=1.0, epsilon=1.0, level_prior="gauss", random_state=0, **TINY).fit(X, y)
    assert r.level_weight_ == w


def test_a_refit_without_a_level_share_leaves_no_stale_target_mean():
    """``target_mean_`` and ``target_mean_variance_`` are None without a level share, also after
    a fit that had one (the variance used to survive the refit)."""
    X, y = table(n=500)
    m = DPLinearRegression(epsilon=1.0, bounds_X=BOUNDS_X, bounds_y=BOUNDS_Y, level_share=0.3,
                           random_state=0).fit(X, y)
    assert m.target_mean_ is not None and m.target_mean_variance_ > 0
    m.set_params(level_share=0.0).fit(X, y)
    assert m.target_mean_ is None and m.target_mean_variance_ is None
