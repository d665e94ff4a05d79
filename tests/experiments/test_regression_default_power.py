"""experiments/regression_default_power.py: the per-cell arithmetic on tiny synthetic rows, the
20-trial summary parser, and a tiny run whose diagnostic refit reproduces the default."""

from __future__ import annotations

import csv
import importlib
import sys
from pathlib import Path

import numpy as np

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

rdp = importlib.import_module("regression_default_power")


def _trials(ds, eps, default, others, branch=None):
    """Synthetic per-trial rows (as the per-trial CSV holds them); ``others``: {row: values}."""
    T = len(default)
    branch = ["rounds"] * T if branch is None else branch
    rows = []
    for i in range(T):
        r = {k: 0.0 for k in rdp.TRIAL_FIELDS}
        r.update({"dataset": ds, "epsilon": eps, "n": 10, "d": 2, "trial": i, "seed": i,
                  "default": default[i], "branch": branch[i], "rounds": 2, "clip_first": 0.25,
                  "clip_last": 0.25, "resid_lower": 0.2, "match": 1})
        for k in rdp.OTHERS:
            r[k] = others.get(k, 10.0 * np.ones(T))[i]
        for k in rdp.VARIANTS:
            r[k] = default[i]
        rows.append(r)
    return rows


def test_cell_gate_picks_the_best_other_row_and_fails_a_real_loss():
    """Default 1.5× the lowest-median other row on every trial (with spread): FAIL at 1.10,
    significantly worse at 1.00; the best other row is the one with the lowest median."""
    rng = np.random.default_rng(0)
    base = np.exp(rng.normal(0.0, 0.3, 40))
    a = rdp.analyse_cell(_trials("t", 1.0, 1.5 * base * np.exp(rng.normal(0, 0.05, 40)),
                                 {"iid_unit": 1.2 * base, "boosted_tau_y": base}))
    assert a["best_other"] == "boosted_tau_y"
    assert a["verdict"] == "FAIL" and a["fail"] and a["worse_1.00"]
    assert 1.4 < a["ratio_of_medians"] < 1.6 and 1.4 < a["pseudo_median_ratio"] < 1.6
    assert a["lowest"] == "boosted_tau_y" and not a["within_1.2"]
    assert a["match"] == 40


def test_cell_gate_passes_equal_law_rows_and_reads_the_first_20():
    """Default equal in law to the best row (independent draws): no fail, not worse at 1.00;
    the first-20 ratio uses the first 20 trials only."""
    rng = np.random.default_rng(1)
    T = 100
    d = np.exp(rng.normal(0.0, 0.5, T))
    b = np.exp(rng.normal(0.0, 0.5, T))
    a = rdp.analyse_cell(_trials("t", 1.0, d, {"iid_unit": b}))
    assert a["best_other"] == "iid_unit" and not a["fail"] and not a["worse_1.00"]
    np.testing.assert_allclose(a["ratio20"], np.median(d[:20]) / np.median(b[:20]))
    assert a["median20_default"] == np.median(d[:20]) != np.median(d)


def test_small_real_loss_is_worse_at_1_but_passes_at_1_10():
    """Default exactly 1.03× the best on every trial: significant at ratio 1.00, not at 1.10."""
    rng = np.random.default_rng(3)
    b = np.exp(rng.normal(0.0, 0.3, 100))
    a = rdp.analyse_cell(_trials("t", 1.0, 1.03 * b * np.exp(rng.normal(0, 0.01, 100)),
                                 {"adassp_unit": b}))
    assert a["verdict"] == "pass" and a["worse_1.00"]
    np.testing.assert_allclose(a["pseudo_median_ratio"], 1.03, rtol=0.01)


def test_diagnosis_splits_by_branch():
    """Two branches: counts and per-branch medians of the default and the best row."""
    default = np.array([1.0, 1.0, 1.0, 2.0, 2.0, 2.0])
    best = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    br = ["rounds"] * 3 + ["second-release"] * 3
    dg = rdp.diagnose_cell(_trials("t", 1.0, default, {"iid_unit": best}, br))
    assert dg["best_other"] == "iid_unit"
    assert dg["branches"] == {"rounds": 3, "second-release": 3}
    assert dg["rounds:default"] == 1.0 and dg["second-release:default"] == 2.0
    np.testing.assert_allclose(dg["second-release:pm_vs_best"], 2.0)
    np.testing.assert_allclose(dg["clip_first"], 0.25)


def test_summary_parser_reads_the_20_trial_verdicts(tmp_path):
    (tmp_path / "utility_summary.md").write_text(
        "## covariance, x\n\nSignificantly worse: adult ε = 1 (nope): p = 0.01, 15 pairs, "
        "median ratio 2\n\n## regression, test RMSE (lower is better)\n\nSignificantly worse: "
        "wdbc ε = 1 (Boosted AdaSSP, τ = 𝒴): p = 9.5e-06, 20 pairs, median ratio 1.26; ctg ε = 0.3 "
        "(Boosted AdaSSP, unit box): p = 8.4e-05, 20 pairs, median ratio 1.1.\n\n## regression, "
        "test R²\n")
    w = rdp.summary_worse(tmp_path / "utility_summary.md")
    assert w == {("wdbc", 1.0): ("Boosted AdaSSP, τ = 𝒴", 1.26),
                 ("ctg", 0.3): ("Boosted AdaSSP, unit box", 1.1)}


def test_write_merge_and_analyse_round_trip(tmp_path):
    """Two per-trial parts merged by --analyse --merge-from give the verdicts written directly."""
    rng = np.random.default_rng(2)
    base = np.exp(rng.normal(0.0, 0.3, 30))
    a = _trials("a", 1.0, 1.5 * base, {"iid_unit": base, "boosted_unit": 1.1 * base})
    b = _trials("a", 3.0, base, {"iid_unit": base})
    cells = rdp.write(a + b, tmp_path, "cmd")
    assert [c["verdict"] for c in cells] == ["FAIL", "pass"]
    rdp.write(a, tmp_path, "cmd", name="p1")
    rdp.write(b, tmp_path, "cmd", name="p2")
    assert rdp.main(["--analyse", "--merge-from", "p1", "p2", "--name", "merged",
                     "--out", str(tmp_path)]) == 0
    with open(tmp_path / "merged.csv") as fh:
        again = list(csv.DictReader(fh))
    assert [c["verdict"] for c in again] == ["FAIL", "pass"]
    with open(tmp_path / "merged_trials.csv") as fh:
        assert len(list(csv.DictReader(fh))) == 60
    text = (tmp_path / "merged.md").read_text()
    assert "**1 of 2**" in text and "a ε = 1" in text


def test_tiny_run_refit_reproduces_the_default(tmp_path, data_home):
    """On liver, 3 trials at two ε: the diagnostic refit gives the default row's RMSE bit for
    bit; at ε = 1e6 the default and the unit-box i.i.d. row are within 5% of non-private OLS's
    test RMSE on the same split."""
    assert rdp.main(["--datasets", "liver", "--epsilons", "0.3", "1e6", "--trials", "3",
                     "--data-home", str(data_home), "--out", str(tmp_path)]) == 0
    with open(tmp_path / f"{rdp.NAME}_trials.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 6 and all(r["match"] == "1" for r in rows)
    ols = rdp.ur.ols_rmse(rdp.uc.load_table("liver", data_home))
    # the post-hoc probe on the same per-trial rows: one row per (cell, variant); its
    # "T = 2, τ = h_y/4" variant is boost_rounds=2 at the fixed clip: the forced_rounds refit
    # (the default's consistent clip) where no round switches to the cap (ε = 0.3), not at 1e6
    res = rdp.probe(rows, "liver", tmp_path, "cmd", data_home)
    assert len(res) == 2 * len(rdp.PROBE)
    assert (tmp_path / f"{rdp.NAME}_probe.md").exists()
    fr = {e: np.median([float(r["forced_rounds"]) for r in rows if float(r["epsilon"]) == e])
          for e in (0.3, 1e6)}
    pr = {x["epsilon"]: x["median"] for x in res if x["variant"] == "T = 2, τ = h_y/4"}
    np.testing.assert_allclose(pr[0.3], fr[0.3], rtol=1e-12)
    assert abs(pr[1e6] / fr[1e6] - 1) > 1e-3
    big = [r for r in rows if float(r["epsilon"]) == 1e6]
    assert len(big) == 3
    for r in big:
        for k in ("default", "iid_unit"):
            assert 0.95 < float(r[k]) / ols < 1.05, (k, r[k], ols)
