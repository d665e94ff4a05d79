"""experiments/adaptive_default_check.py: the pre-registered rule's arithmetic and a tiny run."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

adc = importlib.import_module("adaptive_default_check")
uc = importlib.import_module("_utility_common")


def _rows(ratios, auto_best=1.0):
    """Rows for the 30 fresh cells: auto 1.0, adaptive ``ratio``, coinpress and iid set so
    that auto / best is ``auto_best``."""
    rows = []
    it = iter(ratios)
    for ds in adc.TABLES:
        for eps in adc.EPSILONS:
            r = next(it)
            for m, v in ((adc.AUTO, 1.0), (adc.ADAPTIVE, r), (adc.COINPRESS, 1.0 / auto_best),
                         (adc.IID, 5.0)):
                rows.append({"dataset": ds, "n": 100, "d": 3, "epsilon": eps, "method": m,
                             "median": v, "coinpress_chosen": ""})
    return rows


def test_rule_A_is_the_median_of_ratios_of_medians():
    """(A) the median over the 30 cells of adaptive / auto ≤ 1.00: 15 cells at 0.9 and 15 at
    1.1 give 1.0 (passes); one more cell at 1.1 gives 1.1 (fails)."""
    ok = adc.rule(adc.cells(_rows([0.9] * 15 + [1.1] * 15)))
    assert ok["complete"] and abs(ok["A"] - 1.0) < 1e-12 and ok["A_pass"]
    assert ok["B_pass"] and ok["C_pass"] and ok["passes"]
    bad = adc.rule(adc.cells(_rows([0.9] * 14 + [1.1] * 16)))
    assert abs(bad["A"] - 1.1) < 1e-12 and not bad["A_pass"] and not bad["passes"]


def test_rule_B_counts_cells_above_1_2_and_refuses_any_above_2():
    three = adc.rule(adc.cells(_rows([0.5] * 27 + [1.3] * 3)))
    assert len(three["over12"]) == 3 and three["B_pass"]
    four = adc.rule(adc.cells(_rows([0.5] * 26 + [1.3] * 4)))
    assert len(four["over12"]) == 4 and not four["B_pass"] and not four["passes"]
    one_big = adc.rule(adc.cells(_rows([0.5] * 29 + [2.1])))
    assert len(one_big["over2"]) == 1 and not one_big["B_pass"]


def test_rule_C_best_includes_coinpress_and_iid():
    """With coinpress 1.5× better than auto everywhere, auto is never within 1.2× of best; an
    adaptive at 0.9× auto is not either (0.9 · 1.5 = 1.35), so C holds (0 ≥ 0); at 0.7× it is."""
    r = adc.rule(adc.cells(_rows([0.7] * 30, auto_best=1.5)))
    assert r["C_ad"] == 30 and r["C_au"] == 0 and r["C_pass"]
    r = adc.rule(adc.cells(_rows([1.0] * 29 + [1.25], auto_best=1.0)))
    assert r["C_ad"] == 29 and r["C_au"] == 30 and not r["C_pass"]


def test_rule_D_reads_the_committed_benchmark_cells():
    """Known before the run: 34 vs 28 of the 35 benchmark cells."""
    d = adc.benchmark_d()
    assert (d["cells"], d["adaptive"], d["auto"], d["passed"]) == (35, 34, 28, True)


def test_tiny_run_is_incomplete_and_cannot_pass(tmp_path, data_home):
    """At ε = 1e8 the moments rows reproduce the covariance; a run on a seen table is no
    decision."""
    assert adc.main(["--datasets", "liver", "--epsilons", "1e8", "--trials", "2",
                     "--out", str(tmp_path)]) == 0
    rows = uc.read_csv(tmp_path / "adaptive_default_check.csv")
    assert {r["method"] for r in rows} == set(adc.METHODS)
    for r in rows:
        if r["method"] in (adc.AUTO, adc.IID):
            assert float(r["median"]) < 1e-3, r["method"]
    text = (tmp_path / "adaptive_default_check.md").read_text()
    assert "incomplete run" in text and "the rule FAILS" in text and "PASSES" not in text


# --- the second check (task AD2): its tables, and (E) pooled with the first check's replicate --

def _rows2(ratios):
    rows = []
    it = iter(ratios)
    for ds in adc.TABLES2:
        for eps in adc.EPSILONS:
            r = next(it)
            for m, v in ((adc.AUTO, 1.0), (adc.ADAPTIVE, r), (adc.COINPRESS, 1.0), (adc.IID, 5.0)):
                rows.append({"dataset": ds, "n": 100, "d": 3, "epsilon": eps, "method": m,
                             "median": v, "coinpress_chosen": ""})
    return rows


def test_check2_E_pools_the_30_fresh_cells_with_the_replicates_30():
    """(E) is the median of 60 ratios: the 30 fresh ones and the committed replicate's 30 (its
    own median is 0.9904, results/adaptive_default_check_replicate/)."""
    import numpy as np

    rep = adc.replicate_ratios()
    assert len(rep) == 30 and abs(float(np.median(rep)) - 0.9904) < 5e-5
    fresh = [0.8] * 10 + [1.0] * 10 + [1.15] * 10
    r = adc.rule2(adc.cells(_rows2(fresh), adc.TABLES2))
    assert r["E_cells"] == 60 and abs(r["E"] - float(np.median(fresh + rep))) < 1e-12
    # all 30 fresh cells far above 1 pull the pooled median above 1: (E) fails, and so the rule
    high = adc.rule2(adc.cells(_rows2([1.5] * 30), adc.TABLES2))
    assert high["E"] > 1.0 and not high["E_pass"] and not high["passes"]
    # all 30 at 0.9: A-D and E pass
    low = adc.rule2(adc.cells(_rows2([0.9] * 30), adc.TABLES2))
    assert low["A_pass"] and low["B_pass"] and low["C_pass"] and low["D_pass"]
    assert low["E"] <= 1.0 and low["E_pass"] and low["passes"]


def test_check2_rule_is_the_first_checks_A_to_D_on_its_own_tables():
    """A fresh A failure fails the second check even when E would pass."""
    r = adc.rule2(adc.cells(_rows2([0.5] * 14 + [1.01] * 16), adc.TABLES2))
    assert r["complete"] and abs(r["A"] - 1.01) < 1e-12 and not r["A_pass"]
    assert not r["passes"]
    assert set(adc.TABLES2).isdisjoint(adc.TABLES)


def test_check2_tiny_run_writes_its_own_files_and_cannot_pass(tmp_path, data_home):
    assert adc.main(["--check", "2", "--datasets", "liver", "--epsilons", "1e8", "--trials", "2",
                     "--out", str(tmp_path)]) == 0
    assert not (tmp_path / "adaptive_default_check.csv").exists()
    rows = uc.read_csv(tmp_path / "adaptive_default_check2.csv")
    assert {r["method"] for r in rows} == set(adc.METHODS)
    text = (tmp_path / "adaptive_default_check2.md").read_text()
    assert "second attempt" in text and "--check 2 --trials 2" in text
    assert "incomplete run" in text and "the rule FAILS" in text and "PASSES" not in text
