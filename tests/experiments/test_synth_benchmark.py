"""Bookkeeping of experiments/synth_benchmark.py's reference and significance parts (issue #26).

The threshold front of the non-private reference (``_pareto``) is checked against a brute force
over every threshold; the default-change rule (``_default_change_lines``) passes a variant
within one default sd and fails one beyond it, for a higher-is-better and a lower-is-better
metric.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
sb = importlib.import_module("synth_benchmark")


def test_pareto_front_matches_brute_force_over_thresholds():
    rng = np.random.default_rng(3)
    y = (rng.uniform(size=400) < 0.2).astype(int)
    prob = np.round(0.3 * y + rng.uniform(size=400), 2)  # ties on purpose
    front = sb._pareto(y, prob)
    p, n = y.sum(), y.size - y.sum()
    brute = []
    for t in np.concatenate([np.unique(prob), [np.inf]]):
        pred = (prob >= t).astype(int)
        tp, tn = int((pred & y).sum()), int(((1 - pred) & (1 - y)).sum())
        brute.append(((tp + tn) / y.size, 0.5 * (tp / p + tn / n)))
    for acc_min in (0.5, 0.7, 0.8, float(max(a for a, _ in brute))):
        want = max(b for a, b in brute if a >= acc_min - 1e-12)
        got = max(b for a, b in front if a >= acc_min - 1e-12)
        assert abs(got - want) < 1e-12
    accs = [a for a, _ in front]
    baccs = [b for _, b in front]
    assert accs == sorted(accs, reverse=True) and baccs == sorted(baccs)  # a front


def _rows(method, lr_auc, tv, seeds=range(5), sd=0.01):
    rng = np.random.default_rng(0)
    noise = rng.normal(size=len(seeds))
    noise = (noise - noise.mean()) / noise.std(ddof=1)  # exactly sd 1 over the seeds
    return pd.DataFrame({"table": "t", "epsilon": 1.0, "method": method, "seed": list(seeds),
                         "lr_acc": 0.8 + sd * noise, "lr_auc": lr_auc + sd * noise,
                         "lr_bacc": 0.7 + sd * noise, "tv_2way": tv + sd * noise,
                         "corr_max": 0.3 + sd * noise})


def test_default_change_rule_passes_within_one_sd_and_fails_beyond():
    base = _rows("DPTreeCopula", 0.90, 0.05)
    ok = _rows("DPTreeCopula (close)", 0.90 - 0.009, 0.05)        # AUC 0.9 sd lower
    bad_auc = _rows("DPTreeCopula (auc)", 0.90 - 0.02, 0.05)      # AUC 2 sd lower
    bad_tv = _rows("DPTreeCopula (tv)", 0.90, 0.05 + 0.015)       # TV 1.5 sd higher (worse)
    lines = sb._default_change_lines(pd.concat([base, ok, bad_auc, bad_tv], ignore_index=True))
    by = {line.split(" | ")[0].lstrip("| "): line for line in lines if line.startswith("| DPTree")}
    assert by["DPTreeCopula (close)"].endswith("| passes |")
    assert by["DPTreeCopula (auc)"].endswith("| FAILS |") and "LR AUC -0.0200" in by["DPTreeCopula (auc)"]
    assert by["DPTreeCopula (tv)"].endswith("| FAILS |") and "TV 2-way +0.0150" in by["DPTreeCopula (tv)"]
