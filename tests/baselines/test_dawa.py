"""DAWA on a grid: Hilbert order, dyadic costs, the partition program, stage-2 noise, privacy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from matrixdp import Relation
from matrixdp.baselines import DAWAMechanism, dyadic_deviations, dyadic_partition, hilbert_order
from matrixdp.errors import InvalidParameterError


def test_hilbert_order_is_a_path_of_adjacent_cells():
    for k in (1, 2, 3, 4):
        side = 2 ** k
        order = hilbert_order((side, side))
        assert sorted(order) == list(range(side * side))
        r, c = np.unravel_index(order, (side, side))
        assert np.all(np.abs(np.diff(r)) + np.abs(np.diff(c)) == 1)
    # a non-square grid: every cell once
    assert sorted(hilbert_order((5, 3))) == list(range(15))


def test_dyadic_deviations_by_hand():
    x = np.array([0, 0, 5, 5, 1, 9, 0, 0, 3, 3, 3])
    devs, sizes = dyadic_deviations(x)
    assert len(devs) == 5  # lengths 1, 2, 4, 8, 16 over n = 11
    np.testing.assert_allclose(devs[1][:6], [0, 0, 8, 0, 0, 0])
    np.testing.assert_allclose(devs[2][:3], [10, 13, 0])
    np.testing.assert_allclose(sizes[2], [4, 4, 3, 0])
    np.testing.assert_allclose(devs[4], [np.abs(x - x.mean()).sum()])


def _all_dyadic_partitions(lo, hi, n):
    """Every partition of [lo, hi) ∩ [0, n) into dyadic intervals (brute force)."""
    if lo >= n:
        yield []
        return
    yield [(lo, min(hi, n))]
    if hi - lo > 1:
        mid = (lo + hi) // 2
        for left in _all_dyadic_partitions(lo, mid, n):
            for right in _all_dyadic_partitions(mid, hi, n):
                yield left + right


@pytest.mark.parametrize("seed", range(5))
def test_partition_program_is_optimal(seed):
    """Against brute force over every dyadic partition of 11 cells, with random costs."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 6, size=11)
    devs, sizes = dyadic_deviations(x)
    costs = [d + rng.uniform(0, 3, size=d.shape) for d in devs]
    bucket = dyadic_partition(costs, sizes)

    def cost_of(interval):
        lo, hi = interval
        length = 1
        while length < hi - lo or lo % length:
            length *= 2
        return costs[length.bit_length() - 1][lo // length]

    best = min(sum(cost_of(b) for b in part) for part in _all_dyadic_partitions(0, 16, 11))
    starts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    ends = np.r_[starts[1:], 11]
    got = sum(cost_of((int(a), int(b))) for a, b in zip(starts, ends))
    assert got == pytest.approx(best)
    assert np.all(np.diff(bucket) >= 0) and bucket[0] == 0


def test_privacy_guarantee_values():
    m = DAWAMechanism((89, 89), epsilon=0.5)
    p = m.privacy
    assert (p.epsilon, p.delta, p.exact, p.refuted) == (0.5, 0.0, False, False)
    assert p.neighbouring == Relation.REPLACE_ONE
    assert m.levels == 13  # 7921 cells <= 2^13
    assert m.cost_sensitivity == 2 * (2 * 13 - 1) and m.count_sensitivity == 2
    assert m.cost_scale == pytest.approx(50 / 0.125) and m.count_scale == pytest.approx(2 / 0.375)
    a = DAWAMechanism((89, 89), epsilon=0.5, neighbouring="add-remove")
    assert a.cost_sensitivity == 26 and a.count_sensitivity == 1
    with pytest.raises(InvalidParameterError, match="ratio"):
        DAWAMechanism((4, 4), epsilon=1.0, ratio=0.0)


def _noisy_vector(x):
    devs, sizes = dyadic_deviations(x)
    return np.concatenate([d[s >= 2] for d, s in zip(devs, sizes)])


@pytest.mark.parametrize("n", [5, 6])
def test_cost_sensitivity_by_brute_force(n):
    """Over every count vector in {0, 1, 2}^n and every neighbour: the noised deviations move by at
    most Δ_cost in L1 (2L add/remove, 2(2L − 1) replace-one)."""
    add = DAWAMechanism((1, n), epsilon=1.0, neighbouring="add-remove")
    rep = DAWAMechanism((1, n), epsilon=1.0)
    worst_add = worst_rep = 0.0
    for x in itertools.product(range(3), repeat=n):
        x = np.array(x, dtype=float)
        base = _noisy_vector(x)
        for i in range(n):
            e = np.zeros(n)
            e[i] = 1.0
            worst_add = max(worst_add, np.abs(_noisy_vector(x + e) - base).sum())
            if x[i] > 0:
                for k in range(n):
                    if k != i:
                        moved = x - e
                        moved[k] += 1.0
                        worst_rep = max(worst_rep, np.abs(_noisy_vector(moved) - base).sum())
    assert worst_add <= add.cost_sensitivity
    assert worst_rep <= rep.cost_sensitivity
    assert worst_add > 0.6 * add.cost_sensitivity  # the bound is not loose by much


def test_stage_two_noise_scale_and_uniform_expansion():
    """Replaying a release's partition (same seed, same stage-1 draws): every bucket's released
    total is its count plus Laplace(s₂), E|error| = s₂ within ±10% (rejects 0.7x and 1.3x), and
    the bucket's cells share one value (uniform expansion)."""
    m = DAWAMechanism((8, 8), epsilon=2.0)
    x = np.random.default_rng(3).integers(0, 4, size=(8, 8)).astype(float).ravel()
    errors = []
    for seed in range(400):
        rel = m.release(x.reshape(8, 8), rng=seed).value.ravel()
        bucket = m.partition(x.reshape(8, 8), rng=seed).ravel()
        nb = bucket.max() + 1
        totals = np.bincount(bucket, weights=rel, minlength=nb)
        errors.append(totals - np.bincount(bucket, weights=x, minlength=nb))
        spread = np.bincount(bucket, weights=(rel - totals[bucket] / np.bincount(bucket)[bucket]) ** 2)
        assert np.all(spread < 1e-18)
    errors = np.concatenate(errors)
    assert errors.size > 2000
    est = float(np.mean(np.abs(errors)))
    assert est == pytest.approx(m.count_scale, rel=0.10)
    for wrong in (0.7, 1.3):
        assert est != pytest.approx(wrong * m.count_scale, rel=0.10)
    assert abs(float(errors.mean())) < 5 * np.sqrt(2) * m.count_scale / np.sqrt(errors.size)
