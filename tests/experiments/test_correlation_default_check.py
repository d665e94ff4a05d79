"""experiments/correlation_default_check.py: the pre-registered rule's logic and a tiny run."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

cdc = importlib.import_module("correlation_default_check")
uc = importlib.import_module("_utility_common")


def _rows(ds, eps, default, projected):
    return [{"dataset": ds, "epsilon": eps, "method": m, "status": "ok", "note": "n=10 d=2",
             "values": " ".join(repr(float(v)) for v in vals)}
            for m, vals in ((cdc.DEFAULT, default), (cdc.PROJECTED, projected))]


def test_rule_is_the_ratio_of_medians_with_the_strict_branch():
    """≤ 1.02× everywhere; strictly below where the default's median is ≥ 0.5. Paired
    statistics do not enter the decision."""
    d = np.array([0.1, 0.2, 0.3])
    rows = (_rows("a", 1.0, d, 1.019 * d)            # small error, 1.019×: passes
            + _rows("b", 1.0, d, 1.021 * d)          # 1.021×: fails (ratio)
            + _rows("c", 1.0, d + 0.5, d + 0.5)      # default ≥ 0.5, equal: fails (strict)
            + _rows("d", 1.0, d + 0.5, 0.99 * (d + 0.5)))  # default ≥ 0.5, below: passes
    cells = {c["dataset"]: c for c in cdc.cells(rows)}
    assert cells["a"]["passes"] and cells["d"]["passes"]
    assert not cells["b"]["passes"] and "ratio" in cells["b"]["why"]
    assert not cells["c"]["passes"] and "strictly" in cells["c"]["why"]
    np.testing.assert_allclose(cells["b"]["ratio"], 1.021)


def test_tiny_run_scores_against_the_true_correlation_and_is_not_a_decision(tmp_path, data_home):
    """At ε = 1e8 both rows reproduce the table's correlation; a partial run says it decides
    nothing."""
    assert cdc.main(["--datasets", "liver", "--epsilons", "1", "1e8", "--trials", "2",
                     "--out", str(tmp_path)]) == 0
    rows = uc.read_csv(tmp_path / "correlation_default_check.csv")
    assert len(rows) == 4
    for r in rows:
        if float(r["epsilon"]) == 1e8:
            assert float(r["median"]) < 1e-3, r["method"]
        else:
            assert float(r["median"]) > 1e-2, r["method"]
    text = (tmp_path / "correlation_default_check.md").read_text()
    assert "NOT DECIDED" in text and "PASSES" not in text
