"""experiments/covariance_default_power.py: the per-cell arithmetic on tiny synthetic rows, and a
tiny run whose forced-branch refits reproduce the default."""

from __future__ import annotations

import csv
import importlib
import sys
from pathlib import Path

import numpy as np

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

cdp = importlib.import_module("covariance_default_power")


def _trials(ds, eps, default, auto, mvg, coinpress, branch, forced_m=None, forced_c=None):
    """Synthetic per-trial rows (as the per-trial CSV holds them)."""
    T = len(default)
    forced_m = default if forced_m is None else forced_m
    forced_c = default if forced_c is None else forced_c
    rows = []
    for i in range(T):
        r = {k: 0.0 for k in cdp.TRIAL_FIELDS}
        r.update({"dataset": ds, "epsilon": eps, "n": 10, "d": 2, "trial": i, "seed": i,
                  "default": default[i], "auto": auto[i], "mvg": mvg[i],
                  "coinpress": coinpress[i], "branch": branch[i],
                  "forced_moments": forced_m[i], "forced_coinpress": forced_c[i],
                  "statistic": "counts", "moments_var_ratio": 1.0,
                  "match": int((forced_m if branch[i] == "moments" else forced_c)[i] == default[i])})
        rows.append(r)
    return rows


def test_cell_gate_picks_the_best_other_row_and_fails_a_real_loss():
    """Default 1.5× the lowest-median other row on every trial (with spread): FAIL at 1.10,
    significantly worse at 1.00; the best other row is the one with the lowest median."""
    rng = np.random.default_rng(0)
    base = np.exp(rng.normal(0.0, 0.3, 40))
    a = cdp.analyse_cell(_trials("t", 1.0, 1.5 * base * np.exp(rng.normal(0, 0.05, 40)),
                                 1.2 * base, base, 3.0 * base, ["moments"] * 40))
    assert a["best_other"] == "mvg"
    assert a["verdict"] == "FAIL" and a["fail"] and a["worse_1.00"]
    assert 1.4 < a["ratio_of_medians"] < 1.6 and 1.4 < a["pseudo_median_ratio"] < 1.6
    assert a["lowest"] == "mvg" and not a["within_1.2"]
    assert a["coinpress_share"] == 0.0 and a["match"] == 40


def test_cell_gate_passes_equal_law_rows_and_reads_the_first_15():
    """Default equal in law to the best row (independent draws): no fail, not worse at 1.00;
    the first-15 ratio uses the first 15 trials only."""
    rng = np.random.default_rng(1)
    T = 100
    d = np.exp(rng.normal(0.0, 0.5, T))
    b = np.exp(rng.normal(0.0, 0.5, T))
    d[:15], b[:15] = 2.0, 1.0  # the first 15: default 2× the best
    a = cdp.analyse_cell(_trials("t", 1.0, d, b, 10 * b, 10 * b, ["coinpress"] * T))
    assert a["best_other"] == "auto" and not a["fail"] and not a["worse_1.00"]
    np.testing.assert_allclose(a["ratio15"], 2.0)
    assert a["median15_default"] == 2.0 and a["coinpress_share"] == 1.0


def test_diagnosis_splits_by_branch_and_counts_wrong_choices():
    """Four trials on each branch; the step was wrong where its forced error exceeded the forced
    moments error."""
    default = np.array([1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0])
    fm = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0, 3.0])   # step trials: 2 wrong
    fc = np.array([0.5, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0])   # moments trials: 1 wrong
    br = ["moments"] * 4 + ["coinpress"] * 4
    rows = _trials("t", 1.0, default, default, default, default, br, fm, fc)
    dg = cdp.diagnose_cell(rows)
    assert dg["n_moments"] == 4 and dg["n_coinpress"] == 4
    assert dg["moments:wrong"] == 1 and dg["coinpress:wrong"] == 2
    assert dg["coinpress:default"] == 2.0 and dg["moments:forced_coinpress"] == 2.0
    np.testing.assert_allclose(dg["oracle"], np.median(np.minimum(fm, fc)))
    assert all(r["match"] == 1 for r in rows)


def test_write_and_analyse_round_trip(tmp_path):
    """The per-trial CSV written, read back by --analyse, gives the same per-cell verdicts."""
    rng = np.random.default_rng(2)
    base = np.exp(rng.normal(0.0, 0.3, 30))
    rows = (_trials("a", 1.0, 1.5 * base, base, 1.1 * base, 2 * base, ["moments"] * 30)
            + _trials("a", 5.0, base, base, base, base, ["coinpress"] * 30))
    cells = cdp.write(rows, tmp_path, "cmd")
    assert [c["verdict"] for c in cells] == ["FAIL", "pass"]
    with open(tmp_path / f"{cdp.NAME}_trials.csv") as fh:
        back = list(csv.DictReader(fh))
    assert len(back) == 60
    assert cdp.main(["--analyse", "--out", str(tmp_path)]) == 0
    with open(tmp_path / f"{cdp.NAME}.csv") as fh:
        again = list(csv.DictReader(fh))
    assert [c["verdict"] for c in again] == ["FAIL", "pass"]
    text = (tmp_path / f"{cdp.NAME}.md").read_text()
    assert "**1 of 2**" in text and "a ε = 1" in text


def test_tiny_run_forced_branch_reproduces_the_default(tmp_path, data_home):
    """On liver, 3 trials at two ε: the refit forced to the default's branch gives its error
    bit for bit; at ε = 1e6 the moments rows are close to the truth (CoinPress keeps its clipping
    bias), at ε = 1 no row is."""
    assert cdp.main(["--datasets", "liver", "--epsilons", "1", "1e6", "--trials", "3",
                     "--data-home", str(data_home),
                     "--out", str(tmp_path)]) == 0
    with open(tmp_path / f"{cdp.NAME}_trials.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 6 and all(r["match"] == "1" for r in rows)
    for r in rows:
        big = float(r["epsilon"]) == 1e6
        for k in (("auto", "mvg") if big else cdp.ROWS):
            assert (float(r[k]) < 1e-2) if big else (float(r[k]) > 1e-2), (k, r["epsilon"])
