"""DPTreeCopula's one-way marginals from noisy histograms: shrinkage, smoothing, the sparse cut,
pooled merged bins and the hierarchical histogram's inference.
(Moved from test_tree_copula.py with the module split; same assertions.)"""

import numpy as np
import pytest

from matrixdp.synth import copula as cop
from matrixdp.synth import tree_marginals as tm


def test_shrunk_counts_keep_a_strong_class_difference_and_drop_pure_noise():
    rng = np.random.default_rng(0)
    counts = np.array([900.0, 100.0])
    p0 = np.full(16, 1 / 16)
    p1 = np.r_[np.full(8, 0.115), np.full(8, 0.01)]  # a real class difference
    sigma = 1.0
    true = np.stack([counts[0] * p0, counts[1] * p1])
    # strong signal (sigma 1 against a class-1 excess of ~4.7 per bin over its pooled share):
    # little shrinkage
    noisy = true + sigma * rng.standard_normal(true.shape)
    out = tm.shrunk_counts(noisy, counts, sigma)
    assert np.abs(out - true).max() < 4 * sigma
    assert out[1, :8].sum() > 0.85 * counts[1]
    # no class difference, pure noise at sigma 40: shrunk to the pooled shape, far closer to the
    # truth than the raw counts (over 50 seeds, the mean error at least halves)
    same = np.stack([counts[0] * p0, counts[1] * p0])
    err_raw, err_shrunk = [], []
    for s in range(50):
        g = np.random.default_rng(s)
        noisy = same + 40.0 * g.standard_normal(same.shape)
        out = tm.shrunk_counts(noisy, counts, 40.0)
        err_raw.append(np.abs(noisy[1] - same[1]).sum())
        err_shrunk.append(np.abs(out[1] - same[1]).sum())
    assert np.mean(err_shrunk) < 0.5 * np.mean(err_raw)
    # no noise: nothing changes
    np.testing.assert_allclose(tm.shrunk_counts(true, counts, 0.0), true)


def test_smoothed_counts_average_noise_away_and_keep_a_sharp_shape():
    rng = np.random.default_rng(1)
    d = 32
    flat = np.full((200, d), 20.0)  # a flat histogram under sigma 20: grouping cuts the error
    noisy = flat + 20.0 * rng.standard_normal(flat.shape)
    out = tm.smoothed_counts(noisy, 20.0)
    err_raw = np.sqrt(((noisy - flat) ** 2).mean())
    err_out = np.sqrt(((out - flat) ** 2).mean())
    assert err_out < 0.5 * err_raw  # groups of 8 bins: ~0.35 of the raw error
    np.testing.assert_allclose(out.reshape(200, 4, 8).sum(axis=2), noisy.reshape(200, 4, 8).sum(axis=2))
    # a sharp shape (alternating 0 / 400) under sigma 5: never smoothed
    sharp = np.tile([0.0, 400.0], (50, d // 2))
    noisy = sharp + 5.0 * rng.standard_normal(sharp.shape)
    np.testing.assert_array_equal(tm.smoothed_counts(noisy, 5.0), noisy)


def test_sparse_tails_zero_the_noise_beyond_the_strong_span_and_keep_the_rest():
    # strong cells (>= the cut 90) 1 and 2: the span is [1, 2]; cells 3 and 7 lie beyond it
    counts = np.array([[-5.0, 500.0, 300.0, 80.0, -3.0, 0.0, 2.0, 40.0]])
    tails = tm.thresholded_probs(counts, 920.0, cut=90.0, tails=True)
    assert tails.shape == counts.shape and tails.sum() == pytest.approx(1.0)
    assert np.all(tails[0, [0, 3, 4, 5, 6, 7]] == 0.0) and np.all(tails[0, 1:3] > 0.0)
    # without sparse, the isolated noise cell 7 keeps mass after the projection
    assert cop.simplex_projection(counts / 920.0, 1.0)[0, 7] > 0.0
    counts2 = np.array([[-5.0, 500.0, 60.0, 300.0, -3.0, 0.0, 2.0, 40.0]])
    t2 = tm.thresholded_probs(counts2, 900.0, cut=90.0, tails=True)
    assert t2[0, 2] > 0.0 and t2[0, 7] == 0.0  # a weak cell inside the span is kept
    cells = tm.thresholded_probs(counts2, 900.0, cut=90.0, tails=False)
    assert cells[0, 2] == 0.0 and cells.sum() == pytest.approx(1.0)  # "cells" drops it
    # no strong cell: the simplex projection of all cells (as without sparse)
    weak = np.array([[10.0, 20.0, 5.0]])
    np.testing.assert_allclose(tm.thresholded_probs(weak, 35.0, cut=90.0),
                               cop.simplex_projection(weak / 35.0, 1.0))


def test_merged_bins_pooled_keeps_each_merged_cells_mass():
    P = np.array([[0.1, 0.3, 0.2, 0.4],      # a class on 4 fine bins
                  [0.25, 0.25, 0.25, 0.25]])  # a class on 2 merged cells of 2 bins, spread evenly
    out = tm.pooled_within_bins(P, np.array([300.0, 100.0]), np.array([1, 2]))
    np.testing.assert_allclose(out[0], P[0])
    np.testing.assert_allclose(out[1].reshape(2, 2).sum(axis=1), [0.5, 0.5])  # masses kept
    profile = 300 * P[0] + 100 * P[1]
    np.testing.assert_allclose(out[1][:2] / out[1][:2].sum(), profile[:2] / profile[:2].sum())


def test_tree_inference_is_exact_without_noise_and_reduces_the_leaf_variance():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 100, (3, 32)).astype(float)
    widths = tm.tree_levels(32, 4)
    nodes = [x.reshape(3, 32 // w, w).sum(axis=2) for w in widths]
    est, Minv = tm.tree_estimate(x, nodes, widths)
    np.testing.assert_allclose(est, x, atol=1e-9)  # consistent input is returned unchanged
    # least squares with equal noise: leaf variance sigma^2 M^-1_uu < sigma^2, and a node of 16
    # leaves is estimated with far less than the sum of 16 leaves' variance
    assert 0.7 < Minv[0, 0] < 0.85
    block = np.r_[np.ones(16), np.zeros(16)]
    assert block @ Minv @ block < 1.0 < 16.0
    # Monte Carlo: the estimate's covariance is sigma^2 M^-1 (+-10 %)
    noise = rng.standard_normal((4000, 32 + sum(32 // w for w in widths)))
    leaves, rest = noise[:, :32], noise[:, 32:]
    parts = np.split(rest, np.cumsum([32 // w for w in widths])[:-1], axis=1)
    e, _ = tm.tree_estimate(leaves, parts, widths)
    assert e[:, 0].var() == pytest.approx(Minv[0, 0], rel=0.1)
    assert (e @ block).var() == pytest.approx(block @ Minv @ block, rel=0.1)
