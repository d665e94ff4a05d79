"""experiments/regression_ls_signal.py's dev rule (task R9) on hand-made rows: the gate's
evaluation from one seed's fits, the wdbc constraint, the cell count and the STOP."""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

rls = importlib.import_module("regression_ls_signal")


def row(ds, eps, seed, default, ls, lower, branch="second-release"):
    return {"dataset": ds, "epsilon": eps, "seed": seed, "single": default, "default": default,
            "default branch": branch, "ls": ls, "r2 lower": lower}


def table(wdbc_lower, other_lower, other_ls):
    """wdbc gains 15% at ε = 3, 10 where the gate opens; 'other' loses other_ls× where it opens."""
    rows = []
    for s in range(3):
        for eps in (3.0, 10.0):
            rows.append(row("wdbc", eps, s, 1.0, 0.85, wdbc_lower))
            rows.append(row("other", eps, s, 1.0, other_ls, other_lower))
    rows.append(row("rounds", 3.0, 0, 1.0, 1.0, math.nan, branch="rounds"))
    return rows


def test_gated_reads_the_lower_value_and_nan_keeps_the_default():
    r = row("x", 1.0, 0, 1.0, 0.5, 0.25)
    assert rls.gated(r, 0.2) == 0.5 and rls.gated(r, 0.3) == 1.0
    assert rls.gated(row("x", 1.0, 0, 1.0, 0.5, math.nan), -math.inf) == 1.0


def test_the_rule_takes_the_most_good_cells_among_the_wdbc_passing_r0():
    # wdbc's released R² lower 0.25: r0 = 0.1, 0.2 open it (0.85×), 0.3, 0.5 do not.
    # 'other' at 0.15: r0 = 0.1 opens it (1.05×, 2 bad cells), 0.2 does not -> 0.2.
    chosen, lines, unconstrained, _ = rls.dev_rule(table(0.25, 0.15, 1.05))
    assert chosen == 0.2 and unconstrained == 0.2
    by = {ln[0]: ln for ln in lines}
    assert by[0.1][1] == 3 and by[0.2][1] == 5 and by[0.3][1] == 5  # cells ≤ 1.02× of 5
    assert by[0.2][7] and not by[0.3][7]  # the wdbc condition


def test_the_wdbc_constraint_overrides_the_cell_count():
    # wdbc's gate opens only at r0 = 0.1, where 'other' (0.15) loses 5% too: unconstrained,
    # r0 = 0.2 wins (5 good cells, all gates closed; 0.3 and 0.5 tie and are larger), but only
    # r0 = 0.1 meets the wdbc condition
    chosen, _, unconstrained, _ = rls.dev_rule(table(0.12, 0.15, 1.05))
    assert chosen == 0.1 and unconstrained == 0.2


def test_no_r0_meets_the_wdbc_condition_stops():
    chosen, _, _, _ = rls.dev_rule(table(0.05, 0.15, 1.0))
    assert chosen is None
