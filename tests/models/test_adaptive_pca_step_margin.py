"""The noise-level margin of the PCA ranking (task PK2, opt-in ``step_margin="noise-level"``,
``DPPCA(experimental=PCAOptions(adaptive_step_margin="noise-level"))``; ``docs/coinpress.md``
§ "Adaptive (PCA), continued: a margin for a noise-level first look (task PK2)")."""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.models import DPPCA
from matrixdp.models.adaptive import (AdaptiveOptions, STEP_MARGINS, adaptive_covariance,
                                      first_look_noise_level, noise_level_margin)
from matrixdp.models.experimental import PCAOptions


def _table(seed=0, n=200, d=7, scale=None):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    if scale is not None:
        X = X * np.asarray(scale)
    return X, -np.ones(d), np.ones(d)


def _skulls_like(seed=0, n=150):
    """A small table whose first look is noise-level at moderate ε: 4 measurements of sd 5 in
    a public box 100 wide and the 4 indicators of 5 equal groups (the shape of the outside
    audit's skulls, synthetic)."""
    rng = np.random.default_rng(seed)
    group = np.repeat(np.arange(5), n // 5)
    ind = (group[:, None] == np.arange(1, 5)[None, :]).astype(float)
    X = np.hstack([rng.standard_normal((n, 4)) * 5.0, ind])
    return X, np.r_[-50.0 * np.ones(4), np.zeros(4)], np.r_[50.0 * np.ones(4), np.ones(4)]


def test_noise_level_by_hand_and_its_limits():
    """ρ = 2·max_i (Σ_j W_ij)^{1/2} / λ̂₁ with W the entry variances of Ĉ = G − m̂m̂ᵀ written out
    by hand; no positive eigenvalue gives ∞; a tiny noise gives ρ ≈ 0."""
    k, t = 3, 4.0
    rng = np.random.default_rng(0)
    V1 = rng.uniform(0.5, 2.0, (k + 1, k + 1))
    V1 = 0.5 * (V1 + V1.T)
    m = np.array([0.3, -0.2, 0.0])
    C = np.diag([2.0, 1.0, 0.5])
    v = V1[:k, k] / t ** 2
    m2 = np.maximum(m ** 2 - v, 0.0)
    W = np.empty((k, k))
    for i in range(k):
        for j in range(k):
            W[i, j] = V1[i, j] + (4 * m2[i] * v[i] if i == j else m2[j] * v[i] + m2[i] * v[j])
    want = 2.0 * math.sqrt(W.sum(axis=1).max()) / 2.0
    assert first_look_noise_level(C, V1, m, t) == pytest.approx(want, rel=1e-12)
    assert first_look_noise_level(-C, V1, m, t) == math.inf
    assert first_look_noise_level(C, np.full((k + 1, k + 1), 1e-20), m, t) < 1e-9


def test_noise_norm_reads_the_spectral_norm_of_the_noise():
    """The norm read, 2·max_i (Σ_j W_ij)^{1/2}, against the median spectral norm of 400 draws of
    a symmetric matrix with those entry variances (k = 40, heterogeneous variances): within ±30%,
    and ±30% off is rejected by the same check (it could fail)."""
    k, t = 40, 1.0
    rng = np.random.default_rng(1)
    s = rng.uniform(0.5, 1.5, k)
    V1 = np.zeros((k + 1, k + 1))
    V1[:k, :k] = np.outer(s, s)
    m = np.zeros(k)
    C = np.eye(k)  # λ̂₁ = 1: ρ is the norm read
    read = first_look_noise_level(C, V1, m, t)
    norms = []
    for _ in range(400):
        E = rng.standard_normal((k, k)) * np.sqrt(V1[:k, :k])
        E = np.triu(E) + np.triu(E, 1).T
        norms.append(np.abs(np.linalg.eigvalsh(E)).max())
    truth = float(np.median(norms))
    assert abs(read / truth - 1) < 0.30
    assert not abs(1.3 * read / truth - 1) < 0.30 or not abs(0.7 * read / truth - 1) < 0.30


def test_margin_is_rho_beyond_one_and_non_decreasing():
    assert noise_level_margin(0.0) == 1.0
    assert noise_level_margin(0.7) == 1.0
    assert noise_level_margin(1.0) == 1.0
    assert noise_level_margin(3.0) == 3.0
    assert noise_level_margin(math.inf) == math.inf
    r = np.linspace(0, 5, 50)
    assert np.all(np.diff([noise_level_margin(x) for x in r]) >= 0)
    with pytest.raises(ValueError):
        noise_level_margin(-1.0)
    with pytest.raises(ValueError):
        noise_level_margin(math.nan)


def test_options_validated_and_none_is_the_default_byte_for_byte():
    X, lo, hi = _table()
    assert STEP_MARGINS == ("none", "noise-level")
    with pytest.raises(InvalidParameterError, match="step_margin"):
        AdaptiveOptions(step_margin="wide")
    with pytest.raises(InvalidParameterError, match="adaptive_step_margin"):
        PCAOptions(adaptive_step_margin="none")
    with pytest.raises(InvalidParameterError, match="step_margin"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=0, loss_statistic="median",
                            options=AdaptiveOptions(step_margin="noise-level"))
    for eps in (1.0, 10.0, 1e3):
        for seed in range(3):
            a = DPPCA(n_components=2, epsilon=eps, delta=1e-6, bounds=(lo, hi),
                      random_state=seed).fit(X)
            b = DPPCA(n_components=2, epsilon=eps, delta=1e-6, bounds=(lo, hi),
                      random_state=seed, experimental=PCAOptions()).fit(X)
            assert np.array_equal(a.components_, b.components_)
            assert a.adaptive_choice_ == b.adaptive_choice_
            assert a.adaptive_predicted_ == b.adaptive_predicted_
            assert "noise_level" not in a.adaptive_predicted_
    r0 = adaptive_covariance(X, lo, hi, epsilon=3.0, delta=1e-6, kind="pca", n_components=2,
                             rng=5)
    r1 = adaptive_covariance(X, lo, hi, epsilon=3.0, delta=1e-6, kind="pca", n_components=2,
                             rng=5, options=AdaptiveOptions(step_margin="none"))
    assert np.array_equal(r0.covariance, r1.covariance) and r0.predicted == r1.predicted


def _charged(seed, table, **kw):
    entered = []

    def charging(guarantee):
        entered.append(guarantee)
        return contextlib.nullcontext()

    X, lo, hi = table
    r = adaptive_covariance(X, lo, hi, kind="pca", n_components=2, rng=seed, delta=1e-6,
                            charging=charging, **kw)
    return r, entered


@pytest.mark.parametrize("branch", ["moments", "coinpress"])
def test_margin_is_post_processing_of_the_same_releases_and_charge(branch):
    """With the branch forced the option changes nothing but the report: the same draws,
    release, guarantee and the one charge."""
    tab = _table(1)
    r0, c0 = _charged(7, tab, epsilon=2.0, options=AdaptiveOptions(branch=branch))
    r1, c1 = _charged(7, tab, epsilon=2.0,
                      options=AdaptiveOptions(branch=branch, step_margin="noise-level"))
    assert np.array_equal(r0.covariance, r1.covariance)
    assert np.array_equal(r0.location, r1.location)
    assert r0.privacy == r1.privacy
    assert c0 == c1 and len(c1) == 1


def test_choice_follows_the_margin_and_changes_steps_to_moments():
    """On a small noise-level table (:func:`_skulls_like`) at ε = 3, 10, 30, 15 seeds each: the
    option takes the step iff margin·P_cp < P_mom (both as it reports them), the margin is
    max(1, ρ), the guarantee and single charge are the default's; where it keeps the default's
    branch the fit is the default's byte for byte (the same releases: only the final choice
    reads the margin); where it changes the branch, the default took the step with ρ > 1. At
    ε = 10 the default takes the step on most seeds with ρ > 1 and the option on few (the check
    can fail both ways)."""
    tab = _skulls_like()
    changed = {3.0: 0, 10.0: 0, 30.0: 0}
    for eps in changed:
        for seed in range(15):
            r0, c0 = _charged(seed, tab, epsilon=eps)
            r1, c1 = _charged(seed, tab, epsilon=eps,
                              options=AdaptiveOptions(step_margin="noise-level"))
            assert r0.privacy == r1.privacy and c0 == c1 and len(c1) == 1
            p = r1.predicted
            assert p["step_margin"] == max(1.0, p["noise_level"])
            assert (r1.choice == "coinpress") == (p["step_margin"] * p["coinpress"]
                                                  < p["moments"])
            if r0.choice == r1.choice:
                assert np.array_equal(r0.covariance, r1.covariance)
            else:
                assert r0.choice == "coinpress" and p["noise_level"] > 1.0
                changed[eps] += 1
    assert changed[10.0] >= 8


def test_decision_is_monotone_in_epsilon_on_a_fixed_first_look():
    """One seed is one first look up to its scale (the same standard draws at every ε): over a
    grid of ε from 0.3 to 10⁴ the option's choices switch at most once, from the moments release
    to the step (if the moments release is chosen at ε it is chosen at every smaller ε on that
    seed), on every one of 20 seeds of a small table and of a larger resolved one."""
    grid = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 1e3, 1e4)
    for tab in (_skulls_like(1), _table(5, n=150, scale=[1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4]),
                _table(6, n=2000, scale=[1.0, 0.5, 0.25, 0.12, 0.06, 0.03, 0.015])):
        for seed in range(20):
            steps = [_charged(seed, tab, epsilon=e, options=AdaptiveOptions(
                step_margin="noise-level"))[0].choice == "coinpress" for e in grid]
            first = steps.index(True) if True in steps else len(grid)
            assert all(steps[first:]), (seed, steps)
