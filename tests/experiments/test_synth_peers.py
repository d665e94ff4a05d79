"""The fixed peer sampler of the synthetic-data benchmark (experiments/_synth_peers.py, issue #26).

Only its numpy core is tested here (mbi/smartnoise live in the peers' own venv): two children drawn
given the same parent groups must be independent within each group (mbi 1.1.0's positional ranks
make them comonotone) and each child must match its conditional distribution.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
peers = importlib.import_module("_synth_peers")

COND = np.array([[0.5, 0.3, 0.2, 0.0, 0.0],
                 [0.1, 0.2, 0.4, 0.2, 0.1],
                 [0.0, 0.0, 0.2, 0.3, 0.5]])


def _within_corr(keys, b, c):
    return np.array([np.corrcoef(b[keys == g], c[keys == g])[0, 1] for g in range(COND.shape[0])])


def test_children_independent_given_parents():
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 3, 30_000)  # ~10,000 records per group: sd of a correlation ~0.01
    b = peers.conditional_draw(COND, keys, rng)
    c = peers.conditional_draw(COND, keys, rng)
    assert np.all(np.abs(_within_corr(keys, b, c)) < 0.05)


def test_positional_ranks_are_comonotone():
    """The defect the fix removes: the same check fails for mbi 1.1.0's positional ranks."""
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 3, 30_000)
    b = peers.conditional_draw(COND, keys, rng, positional=True)
    c = peers.conditional_draw(COND, keys, rng, positional=True)
    assert np.all(_within_corr(keys, b, c) > 0.9)


def test_counts_match_the_conditional():
    """Stratified: every category's count in a group is within 2 of n_g x p (iid: sd ~ 45)."""
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 3, 30_000)
    b = peers.conditional_draw(COND, keys, rng)
    for g in range(3):
        n_g = (keys == g).sum()
        counts = np.bincount(b[keys == g], minlength=5)
        assert np.all(np.abs(counts - n_g * COND[g]) <= 2)
    # a wrong conditional (one category's share scaled by 1.3) is rejected by the same bound
    wrong = COND[1] * np.array([1.3, 1, 1, 1, 1])
    wrong /= wrong.sum()
    n_1 = (keys == 1).sum()
    assert np.any(np.abs(np.bincount(b[keys == 1], minlength=5) - n_1 * wrong) > 2)


def test_empty_parent_row_is_uniform_and_codes_in_range():
    rng = np.random.default_rng(2)
    cond = np.vstack([COND, np.zeros(5)])
    keys = np.full(5_000, 3)
    b = peers.conditional_draw(cond, keys, rng)
    assert b.min() >= 0 and b.max() <= 4
    assert np.all(np.abs(np.bincount(b, minlength=5) - 1_000) <= 2)
