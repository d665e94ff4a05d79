"""The clipping bias as gap shrinkage and its tail reading (task HT, opt-in;
``src/matrixdp/models/adaptive/tails.py``, ``docs/coinpress.md`` § "Heavy tails: the clipping bias
as gap shrinkage (task HT)")."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.models import DPPCA, PCAOptions
from matrixdp.models.adaptive import AdaptiveOptions, adaptive_covariance
from matrixdp.models.adaptive.counts import (clipping_loss_bins, clipping_loss_counts,
                                             clipping_losses, read_counts)
from matrixdp.models.adaptive.pca_losses import pca_deficit
from matrixdp.models.adaptive.tails import gap_shrink_bias, pair_tilt, tail_reading


def test_the_tilt_is_the_pair_deficit_over_its_gap():
    g = np.array([0.5, 1.0, 3.0, 10.0])
    s = np.array([0.01, 0.3, 2.0, 0.0])
    f, _ = pca_deficit(g, s)
    np.testing.assert_allclose(g * pair_tilt(g, s), f, rtol=1e-12, atol=1e-15)
    # a tie is either direction; no noise and a gap is no tilt
    assert pair_tilt(0.0, 1.0) == 0.5 and pair_tilt(0.0, 0.0) == 0.5 and pair_tilt(1.0, 0.0) == 0


def test_the_gap_shrinkage_of_one_direction():
    gaps = np.array([[4.0, 6.0, 9.0], [1.0, 3.0, 6.0]])  # (q = 2, k - q = 3)
    s = np.full_like(gaps, 0.05)
    assert gap_shrink_bias(gaps, s, 0.0) == 0.0
    vals = [gap_shrink_bias(gaps, s, b) for b in (0.1, 0.5, 1.0, 2.0, 5.0, 20.0)]
    assert all(b >= a for a, b in zip(vals, vals[1:])) and vals[0] > 0
    # all of b from ONE direction: a b beyond every gap tilts that direction's pairs to 1/2,
    # and the worse direction (the larger gaps) is charged, not the sum of both
    full = [float(np.sum(g * (0.5 - pair_tilt(g, 0.05)))) for g in gaps]
    assert vals[-1] == pytest.approx(max(full), rel=1e-12)
    assert vals[-1] < sum(full)
    # a b that closes no gap of the second direction but the first's smallest: by hand
    b = 2.0
    row0 = np.sum(gaps[0] * (pair_tilt(np.maximum(gaps[0] - b, 0), 0.05)
                             - pair_tilt(gaps[0], 0.05)))
    row1 = np.sum(gaps[1] * (pair_tilt(np.maximum(gaps[1] - b, 0), 0.05)
                             - pair_tilt(gaps[1], 0.05)))
    assert gap_shrink_bias(gaps, s, b) == pytest.approx(max(row0, row1), rel=1e-12)


def _t3_losses(n, seed, scale, df=3.0, k=4, box=100.0):
    """Records with Student-t tails (df = 3) clipped to a public box, in a whitened step with
    ``S = I`` at ``scale`` times the Gaussian radius of rate 0.1 (``scale > 1``: a whitening
    inflated by the first look's noise margin, so only the far tail is clipped, as on mathpnl)."""
    rng = np.random.default_rng(seed)
    X = np.clip(rng.standard_t(df, (n, k)), -box, box)
    r2 = scale * (k + 2.0 * math.sqrt(k * math.log(10.0)) + 2.0 * math.log(10.0))
    z = np.zeros(k)
    g = clipping_losses(X, z, z, np.eye(k), r2, np.ones(k))
    return X, r2, g, k * box * box


def _readings(X, r2, cap, thr, sigma=3.0, draws=200):
    k = X.shape[1]
    z = np.zeros(k)
    edges = clipping_loss_bins(thr, cap)
    counts = clipping_loss_counts(X, z, z, np.eye(k), r2, np.ones(k), edges)
    up, lo = [], []
    for seed in range(draws):  # the released counts, simulated (fixed seeds)
        noisy = counts + np.random.default_rng(1000 + seed).normal(0.0, sigma, counts.shape)
        up.append(tail_reading(noisy, np.minimum(edges, cap), sigma, X.shape[0], thr))
        lo.append(read_counts(noisy, np.minimum(edges, cap), sigma, X.shape[0], thr,
                              "threshold")[0])
    return np.array(up), np.array(lo)


def test_the_tail_reading_covers_a_dense_heavy_tail():
    """Student-t (3 dof), 17% of the records clipped: the upper reading of the simulated noisy
    counts (sd 3 counts) is at least the true mean clipping loss ``b`` in >= 95% of 200 draws,
    and not vacuous (median at most 3b)."""
    X, r2, g, cap = _t3_losses(1000, 0, 1.0)
    b = float(np.mean(g))
    assert 0.1 < np.mean(g > 0) < 0.3
    up, _ = _readings(X, r2, cap, b)
    assert np.mean(up >= b) >= 0.95
    assert np.median(up) <= 3.0 * b


def test_the_tail_reading_sees_a_sparse_far_tail_the_threshold_reading_reads_as_zero():
    """Only the far tail clipped (0.5% of 2000 records, a few per bin, below the counts' 3-sd
    threshold): the PCA ranking's threshold reading reads 0 in >= 90% of 200 draws (the blind
    spot of mathpnl, ``results/step_tails_diagnosis.md``); the upper reading's median lies within
    [0.5b, 2b] of the true ``b``. It is NOT a bound here: each unresolved record is read at most
    at the level ``L`` (the reading's noise is kept below the threshold/3), so a tail of a few
    records far beyond ``L`` is under-read (``docs/coinpress.md`` § task HT)."""
    X, r2, g, cap = _t3_losses(2000, 0, 10.0)
    b = float(np.mean(g))
    assert 0.002 < np.mean(g > 0) < 0.01
    up, lo = _readings(X, r2, cap, b)
    assert np.mean(lo == 0.0) >= 0.90
    assert 0.5 * b <= np.median(up) <= 2.0 * b


def _pca_table(seed=0, n=1200):
    rng = np.random.default_rng(seed)
    k = 6
    Z = rng.standard_t(3.0, (n, k)) * np.array([3.0, 2.0, 1.2, 0.5, 0.4, 0.3])
    lo, hi = np.full(k, -30.0), np.full(k, 30.0)
    return np.clip(Z, lo, hi), lo, hi


@pytest.mark.parametrize("branch", ["moments", "coinpress"])
def test_the_option_is_post_processing_of_the_same_releases(branch):
    """Forced to a branch, the release with the option is the default's bit for bit (the same
    releases, the same charge); the step's predicted loss can only grow (its bias term is the
    larger of the two), and the moments release's prediction is unchanged."""
    X, lo, hi = _pca_table()
    for seed in range(4):
        kw = dict(epsilon=3.0, delta=1e-6, rng=seed, kind="pca", n_components=2)
        a = adaptive_covariance(X, lo, hi, options=AdaptiveOptions(branch=branch), **kw)
        b = adaptive_covariance(X, lo, hi, options=AdaptiveOptions(branch=branch,
                                                                   tail_bias="gap-shrink"), **kw)
        np.testing.assert_array_equal(a.covariance, b.covariance)
        np.testing.assert_array_equal(a.location, b.location)
        assert a.mus == b.mus
        assert b.predicted["moments"] == a.predicted["moments"]
        assert b.predicted["coinpress"] >= a.predicted["coinpress"]
        assert "tail_bias" in b.predicted and "tail_bias" not in a.predicted


def test_the_default_is_unchanged_and_the_option_reaches_dppca():
    X, lo, hi = _pca_table(1)
    fits = {}
    for name, ex in (("none", None), ("empty", PCAOptions()),
                     ("tail", PCAOptions(adaptive_tail_bias="gap-shrink"))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits[name] = DPPCA(n_components=2, epsilon=3.0, delta=1e-6, bounds=(lo, hi),
                               random_state=5, experimental=ex).fit(X)
    np.testing.assert_array_equal(fits["none"].components_, fits["empty"].components_)
    assert fits["none"].adaptive_predicted_ == fits["empty"].adaptive_predicted_
    assert "tail_bias" not in fits["none"].adaptive_predicted_
    assert "tail_bias" in fits["tail"].adaptive_predicted_


def test_the_option_needs_the_pca_ranking():
    X, lo, hi = _pca_table()
    with pytest.raises(InvalidParameterError, match="tail_bias"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=0,
                            options=AdaptiveOptions(tail_bias="gap-shrink"))
    with pytest.raises(InvalidParameterError, match="tail_bias"):
        AdaptiveOptions(tail_bias="everywhere")


def test_the_option_is_read_and_can_only_move_the_choice_to_the_moments_release():
    """On a t3 table at ε = 3 and 10 (8 seeds) the tail term is positive where the counts are
    released and turns at least one of the default's steps into the moments release; it never
    turns a moments choice into a step (the step's bias term only grows)."""
    X, lo, hi = _pca_table()
    moved, positive = 0, 0
    for eps in (3.0, 10.0):
        for seed in range(4):
            kw = dict(epsilon=eps, delta=1e-6, rng=seed, kind="pca", n_components=2)
            a = adaptive_covariance(X, lo, hi, **kw)
            b = adaptive_covariance(X, lo, hi, options=AdaptiveOptions(tail_bias="gap-shrink"),
                                    **kw)
            assert not (a.choice == "moments" and b.choice == "coinpress")
            moved += a.choice != b.choice
            positive += b.predicted["statistic"] == "counts" and b.predicted["tail_bias"] > 0
    assert moved >= 1 and positive >= 4
