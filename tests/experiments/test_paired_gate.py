"""experiments/_paired_gate.py: the paired per-cell gate fails on evidence of a loss, not on noise."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

pg = importlib.import_module("_paired_gate")


def _pair(shift, n=100, seed=0, spread=0.3):
    """Reference errors lognormal; the candidate shares each trial's value (paired) times
    ``shift`` with its own small noise."""
    rng = np.random.default_rng(seed)
    ref = np.exp(rng.normal(0.0, 1.0, n))
    cand = ref * shift * np.exp(rng.normal(0.0, spread, n))
    return cand, ref


def test_equal_in_law_passes_and_a_true_loss_fails():
    # 200 independent cells equal in law: the per-cell false failure is near alpha = 0.01
    fails = sum(pg.worse_than(*_pair(1.0, seed=s)) for s in range(200))
    assert fails <= 5
    # a true 1.3x loss (paired, spread 0.3, 100 trials) is detected in nearly every cell
    hits = sum(pg.worse_than(*_pair(1.3, seed=s)) for s in range(50))
    assert hits >= 45
    # and a 1.05x loss is not called worse than 1.10x
    assert sum(pg.worse_than(*_pair(1.05, seed=s)) for s in range(50)) <= 2


def test_pseudo_median_and_upper_bound_track_the_true_ratio():
    cand, ref = _pair(1.5, n=400, seed=3, spread=0.2)
    hl = pg.pseudo_median_ratio(cand, ref)
    assert hl == pytest.approx(1.5, rel=0.05)  # rejects 1.5 * 1.3 and 1.5 / 1.3
    up = pg.upper_bound_ratio(cand, ref)
    assert hl < up < 1.5 * 1.1
    v = pg.cell_verdict(cand, ref)
    assert v["fail"] and not v["inconclusive"]
    assert v["ratio_of_medians"] == pytest.approx(np.median(cand) / np.median(ref))


def test_a_wide_cell_is_inconclusive_not_passed_silently():
    cand, ref = _pair(1.0, n=10, seed=4, spread=1.0)
    v = pg.cell_verdict(cand, ref)
    assert not v["fail"] and v["inconclusive"] and v["upper"] > pg.INCONCLUSIVE_RATIO


def test_inputs_are_checked():
    with pytest.raises(ValueError, match="same length"):
        pg.worse_than([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="> 0"):
        pg.worse_than([1.0, 0.0], [1.0, 1.0])
