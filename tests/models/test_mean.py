"""DPMean / DPStandardScaler: exact sensitivity of the moment vector, claimed noise, Cauchy-Schwarz gain."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from matrixdp.calibration.gaussian import analytic_gaussian_sigma, max_gaussian_shift
from matrixdp.errors import InvalidParameterError, InvalidShapeError, OutOfBoundsError
from matrixdp.models import DPMean, DPStandardScaler
from matrixdp.models.mean import _max_square_term

EPS, DELTA = 1.0, 1e-6
HI = np.array([1.0, 3.0, 20.0, 150.0])


def table(n=2000, seed=0):
    return np.random.default_rng(seed).uniform(0, 1, (n, HI.size)) ** 1.5 * HI


@parametrize_with_checks([DPMean(bounds=(-5, 5), random_state=0),
                          DPStandardScaler(bounds=(-5, 5), random_state=0),
                          DPStandardScaler(bounds=(-5, 5), with_std=False, noise="iid",
                                           random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_bounds_are_required():
    with pytest.raises(InvalidParameterError, match="bounds"):
        DPMean().fit(table(10))
    with pytest.raises(InvalidParameterError, match="bounds"):
        DPStandardScaler().fit(table(10))


def test_max_square_term_against_a_grid():
    rng = np.random.default_rng(1)
    for _ in range(60):
        h, p = rng.uniform(0.1, 5), rng.uniform(0.01, 3)
        q = rng.uniform(0.01, 3) * rng.choice([1e-3, 1.0, 100.0])
        g = np.linspace(-h, h, 401)
        a, b = np.meshgrid(g, g)
        brute = np.max(p * (a - b) ** 2 + q * (a * a - b * b) ** 2)
        value, _ = _max_square_term(np.array([h]), np.array([p]), np.array([q]))
        assert brute * (1 - 1e-12) <= value[0] <= brute * (1 + 2e-3)


@pytest.mark.parametrize("noise", ["mvg", "iid"])
def test_mean_noise_matches_the_claimed_variances(noise):
    """Per-coordinate error variance = noise_variance_ (pooled, ±10%); 0.7x/1.3x scale rejected."""
    X = table(500)
    truth = X.mean(axis=0)
    # project=False: the raw release, whose noise noise_variance_ describes
    errs = np.array([DPMean(bounds=(0, HI), noise=noise, random_state=s, project=False).fit(X)
                     .mean_ - truth for s in range(400)])
    var = DPMean(bounds=(0, HI), noise=noise, random_state=0).fit(X).noise_variance_
    ratio = np.mean(errs ** 2 / var)
    assert abs(ratio - 1) < 0.1, ratio
    for wrong in (0.49, 1.69):
        assert abs(ratio / wrong - 1) > 0.1


def test_mean_calibration_is_exact_and_cauchy_schwarz_gain():
    """loss="original": the MVG allocation (variance ∝ w_j) gains d Σw²/(Σw)² over i.i.d."""
    X, n = table(500), 500
    mvg = DPMean(bounds=(0, HI), noise="mvg", random_state=0, loss="original").fit(X)
    iid = DPMean(bounds=(0, HI), noise="iid", random_state=0, loss="original").fit(X)
    w = HI / n  # the box of neighbouring differences is [-w, w]
    mu_star = max_gaussian_shift(EPS, DELTA)
    assert np.sqrt(np.sum(w * w / mvg.noise_variance_)) == pytest.approx(mu_star, rel=1e-9)
    sigma = analytic_gaussian_sigma(EPS, DELTA, float(np.linalg.norm(w)))
    np.testing.assert_allclose(iid.noise_variance_, sigma ** 2, rtol=1e-9)
    gain = iid.noise_variance_.sum() / mvg.noise_variance_.sum()
    d = HI.size
    assert gain == pytest.approx(d * np.sum(w * w) / np.sum(w) ** 2, rel=1e-6)
    auto = DPMean(bounds=(0, HI), random_state=0, loss="original").fit(X)
    assert auto.noise_ == "mvg" and auto.expected_loss_ == pytest.approx(mvg.expected_loss_)
    equal = DPMean(bounds=(0, 2.0), random_state=0).fit(X / HI * 2)
    assert equal.expected_loss_ <= DPMean(bounds=(0, 2.0), noise="iid").fit(X / HI * 2).expected_loss_


@pytest.mark.parametrize("noise", ["auto", "mvg"])
def test_mean_release_does_not_depend_on_the_units_of_a_column(noise):
    """loss="relative" (default): a column written in other units (bounds to match) gets the same
    relative release on the same seed; loss="original" moves budget with the units (the check
    can fail)."""
    X = table(500)
    units = np.array([1.0, 1000.0, 1e-3, 1.0])
    rel = DPMean(bounds=(0, HI), noise=noise, random_state=5, project=False).fit(X)
    rel_u = DPMean(bounds=(0, HI * units), noise=noise, random_state=5,
                   project=False).fit(X * units)
    np.testing.assert_allclose(rel_u.mean_ / units, rel.mean_, rtol=1e-9)
    np.testing.assert_allclose(rel_u.noise_variance_ / units ** 2, rel.noise_variance_, rtol=1e-9)
    org = DPMean(bounds=(0, HI), noise=noise, random_state=5, loss="original").fit(X)
    org_u = DPMean(bounds=(0, HI * units), noise=noise, random_state=5,
                   loss="original").fit(X * units)
    moved = np.abs(org_u.noise_variance_ / units ** 2 / org.noise_variance_ - 1)
    assert moved.max() > 0.3


def test_relative_loss_gives_a_narrow_column_its_share_of_the_budget():
    """A 0/1 share beside a wide column: its noise relative to its range is far smaller with
    loss="relative" than with "original" (which spends the budget on the wide column's units),
    and the relative noise is spread more evenly (largest relative sd smaller)."""
    rng = np.random.default_rng(0)
    n = 400
    X = np.column_stack([rng.uniform(0, 1e5, n), rng.integers(0, 2, n), rng.uniform(0, 100, n)])
    lo, hi = np.zeros(3), np.array([1e5, 1.0, 100.0])
    sd = {loss: np.sqrt(DPMean(bounds=(lo, hi), loss=loss, random_state=0).fit(X)
                        .noise_variance_) / (hi - lo) for loss in ("relative", "original")}
    assert sd["relative"][1] < 0.2 * sd["original"][1]
    assert sd["relative"].max() < 0.5 * sd["original"].max()


def test_mean_loss_is_validated_before_any_charge():
    from matrixdp import Accountant
    acc = Accountant(epsilon=10.0, delta=1e-3)
    with pytest.raises(InvalidParameterError, match="loss"):
        DPMean(bounds=(0, HI), loss="absolute", accountant=acc).fit(table(50))
    assert len(acc.spends) == 0


def test_scaler_sensitivity_holds_on_a_grid_of_record_pairs():
    X, n = table(300), 300
    for noise in ("mvg", "iid"):
        est = DPStandardScaler(bounds=(0, HI), noise=noise, random_state=0).fit(X)
        var = est.noise_variance_
        d = HI.size
        h = HI / 2
        worst = 0.0
        for j in range(d):
            g = np.linspace(-h[j], h[j], 401)
            a, b = np.meshgrid(g, g)
            worst += np.max((a - b) ** 2 / var[j] + (a * a - b * b) ** 2 / var[d + j]) / n ** 2
        mu_star = max_gaussian_shift(EPS, DELTA)
        assert np.sqrt(worst) <= mu_star * (1 + 1e-9)
        assert np.sqrt(worst) >= mu_star * 0.999  # exact: not more noise than needed
        assert est.privacy_.exact


def test_scaler_is_close_with_a_large_budget_and_keeps_column_names():
    pd = pytest.importorskip("pandas")
    X = table(20000)
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    est = DPStandardScaler(epsilon=20.0, bounds=(0, HI), random_state=0)
    est.set_output(transform="pandas").fit(df)
    assert np.all(np.abs(est.mean_ - X.mean(axis=0)) < 0.01 * HI)
    np.testing.assert_allclose(est.scale_, X.std(axis=0), rtol=0.05)
    out = est.transform(df)
    assert list(out.columns) == ["a", "b", "c", "d"]
    np.testing.assert_allclose(est.inverse_transform(out.to_numpy()), X, rtol=1e-9, atol=1e-9)


def test_planted_extreme_value_changes_nothing_public():
    X = table(300)
    planted = X.copy()
    planted[5, 3] = 31415926.0
    a = DPStandardScaler(bounds=(0, HI), random_state=0).fit(X)
    b = DPStandardScaler(bounds=(0, HI), random_state=0).fit(planted)
    assert a.privacy_ == b.privacy_
    np.testing.assert_array_equal(a.noise_variance_, b.noise_variance_)
    with pytest.raises(OutOfBoundsError) as info:
        DPMean(bounds=(0, HI), clip=False).fit(planted)
    assert "31415926" not in str(info.value)


@pytest.mark.parametrize("cls", [DPMean, DPStandardScaler])
def test_add_remove_calibration_is_exact(cls):
    """Add-remove: one record's vector (x - c, [(x - c)²], t) is the difference; μ = μ* exactly."""
    X = table(3000)
    for noise in ("mvg", "iid"):
        est = cls(bounds=(0, HI), noise=noise, neighbouring="add-remove", random_state=0).fit(X)
        h = HI / 2
        t = float(np.sqrt(np.mean(h * h)))
        w = np.concatenate([h, h * h, [t]]) if cls is DPStandardScaler else np.append(h, t)
        mu = np.sqrt(np.sum(w * w / est.noise_variance_))
        assert mu == pytest.approx(max_gaussian_shift(EPS, DELTA), rel=1e-9)
        assert est.privacy_.neighbouring == "add-remove" and est.privacy_.exact
        if noise == "mvg":  # (i.i.d. noise sized for the h⁴ of the widest feature is useless here)
            assert np.all(np.abs(est.mean_ - X.mean(axis=0)) < 0.05 * HI)


# ---- task BA (session 18) ------------------------------------------------------------------------
@pytest.mark.parametrize("neighbouring", ["replace-one", "add-remove"])
@pytest.mark.parametrize("noise", ["auto", "iid", "mvg"])
def test_a_public_constant_feature_gets_its_only_possible_mean(neighbouring, noise):
    """A feature declared constant (lower == upper = 3) came back with a noisy mean (3.0008 in
    one fit: outside its public range) and the scaler with a non-zero var_ for it; the other
    features' release is unchanged (post-processing only)."""
    rng = np.random.default_rng(0)
    X = np.c_[rng.uniform(-1, 1, (300, 2)), np.full(300, 3.0)]
    bounds = ([-1, -1, 3.0], [1, 1, 3.0])
    kw = dict(epsilon=0.5, bounds=bounds, neighbouring=neighbouring, noise=noise, random_state=1)
    m = DPMean(**kw).fit(X)
    assert m.mean_[2] == 3.0
    s = DPStandardScaler(**kw).fit(X)
    assert s.mean_[2] == 3.0 and s.var_[2] == 0.0 and s.scale_[2] == 1.0
    assert np.all(s.transform(X)[:, 2] == 0.0)
    # the free features are released as before: under replace-one and i.i.d. noise the same
    # seed without the constant column gives them the same noise (same sensitivity, same draws)
    if noise == "iid" and neighbouring == "replace-one":
        ref = DPMean(**{**kw, "bounds": ([-1, -1], [1, 1])}).fit(X[:, :2])
        np.testing.assert_allclose(m.mean_[:2], ref.mean_, rtol=1e-12)
        assert not np.allclose(m.mean_[:2], X[:, :2].mean(axis=0), atol=1e-6)  # noisy


@pytest.mark.parametrize("bad", [np.zeros((4, 2)), np.zeros(3), np.zeros((4, 4))])
def test_scaler_inverse_transform_names_a_wrong_width(bad):
    """inverse_transform of a table of the wrong width raised numpy's "operands could not be
    broadcast together" (a 1-D row was silently broadcast); it names X and the width."""
    X = np.random.default_rng(0).uniform(size=(50, 3))
    s = DPStandardScaler(bounds=(0, 1), random_state=0).fit(X)
    with pytest.raises(InvalidShapeError) as info:
        s.inverse_transform(bad)
    assert info.value.argument == "X" and "3 columns" in str(info.value)
    np.testing.assert_allclose(s.inverse_transform(s.transform(X)), X, atol=1e-12)


@pytest.mark.parametrize("neighbouring", ["replace-one", "add-remove"])
def test_the_released_mean_is_projected_onto_the_public_box(neighbouring):
    """Post-processing with the public bounds: every mean_ lies in the box, and on a coordinate
    whose noise often crosses an end the projected error is below the raw noise's (the
    projection never moves a release further from a truth inside the box)."""
    X = table(500)
    truth = X.mean(axis=0)
    fits = [DPMean(bounds=(0, HI), noise="iid", neighbouring=neighbouring, random_state=s).fit(X)
            for s in range(200)]
    means = np.array([f.mean_ for f in fits])
    assert np.all(means >= 0) and np.all(means <= HI)
    raw = np.array([DPMean(bounds=(0, HI), noise="iid", neighbouring=neighbouring,
                           random_state=s, project=False).fit(X).mean_ for s in range(200)])
    outside = (raw < 0) | (raw > HI)
    assert outside[:, 0].mean() > 0.3  # the raw release often leaves coordinate 0's box [0, 1]
    assert np.array_equal(means[~outside], raw[~outside])  # inside, nothing moves
    err_p = np.sqrt(np.mean((means[:, 0] - truth[0]) ** 2))
    err_r = np.sqrt(np.mean((raw[:, 0] - truth[0]) ** 2))
    assert err_p < 0.7 * err_r
