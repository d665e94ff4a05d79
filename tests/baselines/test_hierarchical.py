"""H_b (hierarchical histogram with constrained inference): calibration, inference, privacy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from matrixdp import Relation
from matrixdp.baselines import (HierarchicalHistogramMechanism, consistent_leaves, hb_branching,
                                hb_leaf_variance, hb_levels, level_counts)
from matrixdp.errors import InvalidParameterError


def _design(side: int, b: int, h: int) -> np.ndarray:
    """The node-by-leaf 0/1 matrix T of the measured levels (stacked as ``level_counts``)."""
    cols = []
    for i in range(side * side):
        e = np.zeros(side * side)
        e[i] = 1.0
        cols.append(np.concatenate([lvl.ravel() for lvl in level_counts(e.reshape(side, side), b, h)]))
    return np.array(cols).T


def test_branching_rule_and_levels():
    # argmin_b b*h(b)^2 over b in [2, n]: for n = 89, b = 10 (h = 2) beats b = 5 (h = 3: 45 > 40)
    assert (hb_branching(89), hb_levels(89, 10)) == (10, 2)
    assert hb_levels(100, 10) == 2 and hb_levels(101, 10) == 3 and hb_levels(8, 2) == 3
    assert hb_branching(4) == 4  # b = n, h = 1 (4) beats b = 2, h = 2 (8)
    m = HierarchicalHistogramMechanism((89, 89), epsilon=0.5)
    assert (m.branching, m.levels) == (10, 2)
    with pytest.raises(InvalidParameterError, match="branching"):
        HierarchicalHistogramMechanism((4, 4), epsilon=1.0, branching=1)
    with pytest.raises(InvalidParameterError, match="shape"):
        HierarchicalHistogramMechanism((4,), epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="neighbouring"):
        HierarchicalHistogramMechanism((4, 4), epsilon=1.0, neighbouring="local")


def test_privacy_guarantee_values():
    rep = HierarchicalHistogramMechanism((89, 89), epsilon=0.5)
    p = rep.privacy
    assert (p.epsilon, p.delta, p.exact, p.refuted) == (0.5, 0.0, True, False)
    assert p.neighbouring == Relation.REPLACE_ONE
    assert rep.sensitivity == 4.0 and rep.scale == pytest.approx(8.0)
    add = HierarchicalHistogramMechanism((89, 89), epsilon=0.5, neighbouring="add-remove")
    assert add.privacy.neighbouring == Relation.ADD_REMOVE
    assert add.sensitivity == 2.0 and add.scale == pytest.approx(4.0)


@pytest.mark.parametrize("shape,b", [((5, 3), 2), ((4, 4), 2), ((7, 9), 3)])
def test_sensitivity_by_brute_force(shape, b):
    """Every single record: adding it changes the stacked level counts by exactly h in L1;
    moving it changes them by at most 2h, and some move attains 2h."""
    mech = HierarchicalHistogramMechanism(shape, epsilon=1.0, branching=b, neighbouring="add-remove")
    h = mech.levels
    cells = list(itertools.product(range(shape[0]), range(shape[1])))

    def stacked(cell):
        x = np.zeros(shape)
        x[cell] = 1.0
        return np.concatenate([lvl.ravel() for lvl in level_counts(x, b, h)])

    vecs = {c: stacked(c) for c in cells}
    assert all(np.abs(v).sum() == h for v in vecs.values())
    moves = [np.abs(vecs[a] - vecs[c]).sum() for a, c in itertools.combinations(cells, 2)]
    assert max(moves) == 2 * h == HierarchicalHistogramMechanism(
        shape, epsilon=1.0, branching=b).sensitivity
    assert mech.sensitivity == h
    # the audit witness attains the replace-one bound
    x, xp = HierarchicalHistogramMechanism(shape, epsilon=1.0, branching=b).witnesses()[0]
    d = [a - c for a, c in zip(level_counts(x, b, h), level_counts(xp, b, h))]
    assert sum(np.abs(v).sum() for v in d) == 2 * h


def test_noise_scale_per_level():
    """Each level's noise is Laplace(2h/ε) (replace-one): E|η| = scale within ±10%, which
    rejects a scale 0.7x or 1.3x. Fixed seed; 1000 draws of a 8 x 8 grid, b = 2, h = 3."""
    mech = HierarchicalHistogramMechanism((8, 8), epsilon=1.5, branching=2)
    assert mech.levels == 3 and mech.scale == pytest.approx(4.0)
    counts = np.arange(64.0).reshape(8, 8)
    exact = level_counts(counts, 2, 3)
    rng = np.random.default_rng(2024)
    draws = [mech.noisy_levels(counts, rng=rng) for _ in range(1000)]
    for j in range(3):
        eta = np.stack([d[j] for d in draws]) - exact[j]
        est = float(np.mean(np.abs(eta)))  # 4000 entries at the top level: rel. sd 1.6%
        assert est == pytest.approx(mech.scale, rel=0.10), j
        for wrong in (0.7, 1.3):
            assert est != pytest.approx(wrong * mech.scale, rel=0.10)
        assert abs(float(np.mean(eta))) < 5 * np.sqrt(2) * mech.scale / np.sqrt(eta.size)


@pytest.mark.parametrize("b,h", [(2, 3), (3, 2)])
def test_inference_is_the_least_squares_consistent_estimate(b, h):
    side = b ** h
    T = _design(side, b, h)
    rng = np.random.default_rng(5)
    noisy = [rng.laplace(0, 3.0, size=(side // b ** j,) * 2) for j in range(h)]
    y = np.concatenate([lvl.ravel() for lvl in noisy])
    ls = np.linalg.lstsq(T, y, rcond=None)[0]
    est = consistent_leaves(noisy, b)
    np.testing.assert_allclose(est.ravel(), ls, atol=1e-10)
    # consistency: the fitted node counts T·est are exact sums of their children, and the
    # residual is orthogonal to every consistent tree (the normal equations)
    fitted = level_counts(est, b, h)
    for j in range(1, h):
        child_sums = fitted[j - 1].reshape(side // b ** j, b, side // b ** j, b).sum(axis=(1, 3))
        np.testing.assert_allclose(fitted[j], child_sums, atol=1e-10)
    np.testing.assert_allclose(T.T @ (y - T @ est.ravel()), 0.0, atol=1e-9)
    # exact (consistent) counts come back unchanged, so the release is counts + L(noise)
    x = rng.integers(0, 9, size=(side, side)).astype(float)
    np.testing.assert_allclose(consistent_leaves(level_counts(x, b, h), b), x, atol=1e-10)
    # a batch axis is kept
    batch = [np.stack([lvl, 2 * lvl]) for lvl in noisy]
    np.testing.assert_allclose(consistent_leaves(batch, b)[1], 2 * est, atol=1e-10)


@pytest.mark.parametrize("b,h", [(2, 3), (3, 2), (2, 1)])
def test_leaf_variance_closed_form(b, h):
    side = b ** h
    T = _design(side, b, h)
    scale = 1.7
    diag = 2 * scale ** 2 * np.diag(np.linalg.inv(T.T @ T))
    np.testing.assert_allclose(diag, hb_leaf_variance(b, h, scale), rtol=1e-10)


def test_release_is_unbiased_with_the_stated_variance():
    """Mean error over 20,000 draws within 5 standard errors of 0 in every cell; pooled variance
    within 5% of the closed form (rejects ±30%)."""
    mech = HierarchicalHistogramMechanism((6, 5), epsilon=1.0, branching=2)
    counts = np.random.default_rng(1).integers(0, 30, size=(6, 5)).astype(float)
    noise = mech.sample_noise_batch(20_000, (6, 5), rng=77)
    var = mech.variance
    assert np.all(np.abs(noise.mean(axis=0)) < 5 * np.sqrt(var / 20_000))
    emp = float(noise.var(axis=0).mean())
    assert emp == pytest.approx(var, rel=0.05)
    for wrong in (0.7, 1.3):
        assert emp != pytest.approx(wrong * var, rel=0.05)
    # the release is counts + the same noise (same seed, same draws)
    rel = mech.release(counts, rng=3).value
    np.testing.assert_allclose(rel - counts, mech.sample_noise((6, 5), rng=3), atol=1e-9)
    assert rel.shape == (6, 5)


def test_value_shape_is_checked():
    mech = HierarchicalHistogramMechanism((6, 5), epsilon=1.0, branching=2)
    with pytest.raises(InvalidParameterError):
        mech.release(np.zeros((5, 6)), rng=0)


def _leaf_log_density(z, mean_tree, scale):
    """log p(z) of the consistent leaves of one k = 4 tree (b = 2, h = 2), up to a constant.

    The measured tree y = (4 leaves, parent) has i.i.d. Laplace(scale) noise around
    ``mean_tree``; the leaves estimate z = L(y) fixes y up to the kernel direction
    v = (1, 1, 1, 1, −1) ⟂ col(T), so p(z) ∝ ∫ exp(−‖T z + t v − mean‖₁/scale) dt
    (integrated on a fine grid; the integrand is piecewise exponential)."""
    from scipy.special import logsumexp

    tz = np.r_[z, np.sum(z)]
    v = np.array([1.0, 1.0, 1.0, 1.0, -1.0])
    span = np.abs(tz).max() + np.abs(mean_tree).max() + 60 * scale
    t = np.arange(-span, span, 0.002)
    g = np.abs(tz[None, :] + t[:, None] * v[None, :] - mean_tree[None, :]).sum(axis=1)
    return float(logsumexp(-g / scale))


def test_released_leaves_are_exactly_epsilon_private():
    """The guarantee is tight after inference (``exact=True``): on one record added to a leaf, the
    privacy loss of the consistent leaves stays <= ε everywhere and tends to ε far out along the
    record's direction (docs/baselines.md). A mis-stated scale (e.g. Δ₁ = 1 instead of h) fails."""
    mech = HierarchicalHistogramMechanism((4, 4), epsilon=1.0, branching=2,
                                          neighbouring="add-remove")
    assert (mech.levels, mech.scale) == (2, 2.0)
    # one top node's tree: record in its first leaf -> the leaf and the parent move by 1
    x_tree = np.zeros(5)
    x_prime_tree = np.array([1.0, 0.0, 0.0, 0.0, 1.0])

    def loss(z):
        return (_leaf_log_density(z, x_prime_tree, mech.scale)
                - _leaf_log_density(z, x_tree, mech.scale))

    far = [loss(np.array([m, 0.0, 0.0, 0.0])) for m in (2.0, 8.0, 20.0, 40.0)]
    assert all(a <= b + 1e-6 for a, b in zip(far, far[1:]))
    assert far[-1] == pytest.approx(mech.epsilon, abs=1e-3)
    rng = np.random.default_rng(0)
    for z in rng.normal(0, 10, size=(30, 4)):
        assert abs(loss(z)) <= mech.epsilon + 1e-6
