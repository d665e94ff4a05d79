"""experiments/pca_step_reuse_check.render's verdict with the second check's minimum number of
changed cells (task PC2): on synthetic trials, never on a table."""

from __future__ import annotations

import csv
import importlib
import sys
from pathlib import Path

import numpy as np

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

first = importlib.import_module("pca_step_reuse_check")
second = importlib.import_module("pca_step_reuse_check2")


def _trials(path, cells, ratio, changed):
    """``cells`` cells of 30 trials; the candidate is the default times ``ratio`` in the first
    ``changed`` cells and equal to it elsewhere."""
    rng = np.random.default_rng(0)
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=first.FIELDS)
        w.writeheader()
        for c in range(cells):
            base = rng.uniform(0.1, 1.0, 30)
            vals = {"default": base, "candidate": base * (ratio if c < changed else 1.0),
                    "coinpress": base * 2.0}
            for row, v in vals.items():
                for i, x in enumerate(v):
                    w.writerow({"table": f"t{c}", "k": 2, "epsilon": 1.0, "row": row,
                                "trial": i, "seed": i, "deficit": repr(float(x)), "choice": ""})


def _verdict(tmp_path, cells, ratio, changed, min_changed):
    path = tmp_path / "x_trials.csv"
    _trials(path, cells, ratio, changed)
    md, verdict = first.render(path, {}, name="x", min_changed=min_changed)
    assert md.exists()
    return verdict


def test_too_few_changed_cells_is_inconclusive_not_a_pass(tmp_path):
    assert _verdict(tmp_path, 12, 0.5, 9, second.MIN_CHANGED) == "INCONCLUSIVE"
    assert _verdict(tmp_path, 12, 0.5, 10, second.MIN_CHANGED) == "PASSED"


def test_the_first_checks_rule_is_unchanged(tmp_path):
    """min_changed = 1 (the first check): any changed cell is enough; none is FAILED on B."""
    assert _verdict(tmp_path, 12, 0.5, 1, 1) == "PASSED"
    assert _verdict(tmp_path, 12, 0.5, 0, 1) == "FAILED"


def test_median_and_fail_rules(tmp_path):
    assert _verdict(tmp_path, 12, 0.995, 12, second.MIN_CHANGED) == "FAILED"  # B: > 0.99
    assert _verdict(tmp_path, 12, 1.5, 3, second.MIN_CHANGED) == "FAILED"  # A beats INCONCLUSIVE
