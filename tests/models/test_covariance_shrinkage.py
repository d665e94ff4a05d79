"""James–Stein shrinkage of DPCovariance releases (post-processing; docs/postprocessing.md)."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.feasible import james_stein_shrink, variance_groups
from matrixdp.models import DPCovariance

D = 8
LO, HI = np.zeros(D), np.ones(D)


def independent_table(n=300, seed=0):
    return np.random.default_rng(seed).uniform(0.0, 1.0, size=(n, D))


def correlated_table(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, D))
    z[:, 1:] += 0.8 * z[:, :1]
    return 1.0 / (1.0 + np.exp(-z))


# ----------------------------------------------------------------------------- the function

def _noisy(theta, v, rng):
    e = rng.normal(size=theta.shape) * np.sqrt(v)
    e = np.triu(e) + np.triu(e, 1).T  # independent entries, symmetric
    return theta + e


def test_james_stein_factor_has_the_oracle_scale():
    """With ‖θ_off‖² = E‖e_off‖² the oracle factor is 1/2: the median factor over 400 fixed-seed
    draws is within 0.1 of it (a noise variance wrong by ±30% moves it to ≈ 0.35 or 0.65)."""
    k = 30
    iu = np.triu_indices(k, 1)
    v = np.full((k, k), 0.04)
    rng = np.random.default_rng(1)
    theta = np.zeros((k, k))
    draw = rng.normal(size=iu[0].size)
    theta[iu] = draw * np.sqrt(np.sum(v[iu]) / np.sum(draw ** 2))  # Σ θ_ij² = Σ v_ij (i < j)
    theta = theta + theta.T + np.eye(k)
    factors = [james_stein_shrink(_noisy(theta, v, rng), v).factors[0, 1] for _ in range(400)]
    assert abs(np.median(factors) - 0.5) < 0.1


def test_james_stein_risk_bound_holds_on_average():
    """E‖S(y) - θ‖² <= min(E‖y - θ‖², ‖θ‖²) + 4 λ_max (docs/postprocessing.md), over the
    off-diagonal entries, for a weak, a moderate and a strong signal (2,000 fixed-seed draws;
    the Monte Carlo error of the means is below 1%)."""
    k = 12
    iu = np.triu_indices(k, 1)
    rng = np.random.default_rng(2)
    v = rng.uniform(0.5, 2.0, size=(k, k))
    v = np.triu(v) + np.triu(v, 1).T
    base = rng.normal(size=(k, k))
    base = np.triu(base, 1) + np.triu(base, 1).T
    for amp in (0.1, 1.0, 5.0):
        theta = amp * base
        shrunk, raw = [], []
        for _ in range(2000):
            y = _noisy(theta, v, rng)
            s = james_stein_shrink(y, v).matrix
            shrunk.append(2 * np.sum((s[iu] - theta[iu]) ** 2))
            raw.append(2 * np.sum((y[iu] - theta[iu]) ** 2))
        bound = min(np.mean(raw), 2 * np.sum(theta[iu] ** 2)) + 4 * 2 * v[iu].max()
        assert np.mean(shrunk) <= bound * 1.01
        assert np.mean(shrunk) <= np.mean(raw) * 1.01  # independent noise: dominance


def test_pure_noise_is_shrunk_towards_zero_and_a_small_group_is_kept():
    rng = np.random.default_rng(3)
    v = np.ones((20, 20))
    y = _noisy(np.eye(20), v, rng)
    res = james_stein_shrink(y, v)
    assert res.factors[0, 1] < 0.2
    np.testing.assert_array_equal(np.diagonal(res.matrix), np.diagonal(y))
    # two off-diagonal entries: c = tr Σ - 2 λ_max <= 0, nothing is shrunk
    small = _noisy(np.zeros((2, 2)), np.ones((2, 2)), rng)
    np.testing.assert_array_equal(james_stein_shrink(small, np.ones((2, 2))).matrix,
                                  0.5 * (small + small.T))


def test_variance_groups_bin_by_ratio():
    v = np.array([[0.0, 1.0, 0.3], [1.0, 0.0, 0.01], [0.3, 0.01, 0.0]])
    g = variance_groups(v, ratio=4.0)
    assert g[0, 1] == 0 and g[0, 2] == 0 and g[1, 2] == 3
    assert (np.diagonal(g) == -1).all()


# ----------------------------------------------------------------------------- DPCovariance

def test_shrinkage_is_post_processing_same_guarantee_same_release():
    X = correlated_table(500)
    calls = []

    class Ledger:
        def spend(self, guarantee, label=None):
            calls.append((guarantee, label))

    for kind, shrink in (("covariance", "off-diagonal"), ("covariance", "whole"),
                         ("correlation", "off-diagonal")):
        calls.clear()
        a = DPCovariance(bounds=(LO, HI), kind=kind, random_state=4, accountant=Ledger()).fit(X)
        b = DPCovariance(bounds=(LO, HI), kind=kind, random_state=4, accountant=Ledger(),
                         shrinkage=shrink).fit(X)
        assert calls[0] == calls[1] and len(calls) == 2
        assert a.privacy_ == b.privacy_
        np.testing.assert_array_equal(a.moments_, b.moments_)
        assert a.noise_summary_ == b.noise_summary_
        assert a.shrinkage_factors_ is None and b.shrinkage_factors_.shape == (D, D)


def test_shrinkage_vanishes_as_epsilon_grows():
    X = correlated_table()
    for kind, shrink in (("covariance", "off-diagonal"), ("covariance", "whole"),
                         ("correlation", "off-diagonal")):
        a = DPCovariance(epsilon=1e6, bounds=(LO, HI), kind=kind, random_state=5).fit(X)
        b = DPCovariance(epsilon=1e6, bounds=(LO, HI), kind=kind, random_state=5,
                         shrinkage=shrink).fit(X)
        assert b.shrinkage_factors_.min() > 1 - 1e-6
        np.testing.assert_allclose(b.covariance_, a.covariance_, atol=1e-7)


def test_pure_noise_release_is_shrunk_towards_the_target():
    """At ε = 0.02 (n = 300, independent features) the release is noise: over 20 fixed seeds the
    shrunk correlation is closer to the identity (the truth here, up to sampling) than the
    default's by at least half, and the whole-matrix covariance shrinkage is smaller in norm."""
    X = independent_table()
    R = np.corrcoef(X.T)
    C = np.cov(X.T, bias=True)
    err_a, err_b, cov_a, cov_b = [], [], [], []
    for s in range(20):
        kw = dict(epsilon=0.02, bounds=(LO, HI), random_state=s)
        a = DPCovariance(kind="correlation", **kw).fit(X)
        b = DPCovariance(kind="correlation", shrinkage="off-diagonal", **kw).fit(X)
        err_a.append(np.linalg.norm(a.covariance_ - R))
        err_b.append(np.linalg.norm(b.covariance_ - R))
        ca = DPCovariance(**kw).fit(X)
        cb = DPCovariance(shrinkage="whole", **kw).fit(X)
        cov_a.append(np.linalg.norm(ca.covariance_ - C))
        cov_b.append(np.linalg.norm(cb.covariance_ - C))
        assert np.linalg.eigvalsh(b.covariance_)[0] > -1e-9
        np.testing.assert_allclose(np.diagonal(b.covariance_), 1.0)
    assert np.mean(err_b) < 0.5 * np.mean(err_a)
    assert np.mean(cov_b) < np.mean(cov_a)


def test_metadata_holds_no_private_value():
    """The public attributes are the same for two tables differing in one record; the factors
    (a function of the release: DP) are the only new attribute."""
    X = correlated_table(400)
    Y = X.copy()
    Y[0] = 0.999
    a = DPCovariance(bounds=(LO, HI), random_state=6, shrinkage="whole").fit(X)
    b = DPCovariance(bounds=(LO, HI), random_state=6, shrinkage="whole").fit(Y)
    assert a.privacy_ == b.privacy_
    assert a.noise_summary_ == b.noise_summary_
    np.testing.assert_array_equal(a.entry_variance_, b.entry_variance_)
    assert a.noise_candidates_ == b.noise_candidates_
    assert "0.999" not in repr(a.privacy_) + repr(a.noise_summary_)


def test_shrinkage_is_validated():
    X = correlated_table(100)
    with pytest.raises(InvalidParameterError, match="shrinkage"):
        DPCovariance(bounds=(LO, HI), shrinkage="stein").fit(X)
    with pytest.raises(InvalidParameterError, match="shrinkage"):
        DPCovariance(bounds=(LO, HI), kind="gram", shrinkage="off-diagonal").fit(X)
    with pytest.raises(InvalidParameterError, match="shrinkage"):
        DPCovariance(bounds=(LO, HI), kind="correlation", shrinkage="whole").fit(X)
    with pytest.raises(InvalidParameterError, match="shrinkage"):
        DPCovariance(bounds=(LO, HI), method="coinpress", shrinkage="off-diagonal").fit(X)
    # add-remove: the release is divided by the released count; the shrinkage follows it
    est = DPCovariance(bounds=(LO, HI), neighbouring="add-remove", shrinkage="whole",
                       random_state=0).fit(X)
    assert np.all((est.shrinkage_factors_ >= 0) & (est.shrinkage_factors_ <= 1))
