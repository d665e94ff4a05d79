"""Task LS (issue #24): the intercept's flag and bias bound, and the minimax level shrinkage
(``RegressionOptions(level_shrinkage="minimax")``, ``docs/regression.md`` §3a). DIAGNOSIS and
PREDICTION only: no gate is run here, no default is changed, nothing is held out.

Parts (each writes its own section of ``results/regression_level_shrinkage.md`` and its rows of
``results/regression_level_shrinkage.csv``; ``--part all`` runs them in order):

* ``coverage``: the scan's small wide cell (``epsilon_monotonicity_scan.make_data``, n = 200,
  d = 10, box [-4, 4]^d x [-8, 8]) at ε = 0.1 (the shipped rule lifts the intercept there),
  the target shifted by ``s ∈ {0, +5, +7.5, -7.5}`` (clipped to the same public box), 100 seeds
  (``random_state = seed``). Truth: the non-private OLS intercept on the same clipped records.
  Shares of seeds with ``|intercept_ - truth| <= 1.96 intercept_std_`` (the bar alone),
  ``<= 1.96 intercept_std_ + intercept_bias_bound_`` and ``<= 1.96 intercept_std_ + 0.7 ×
  intercept_bias_bound_`` (a bound 30% smaller), for the default and for ``"minimax"``.
* ``scan``: the same cell, truth near (s = 0) and far (s = +5), ε ∈ {0.05, 0.1, 0.15, 0.2, 0.3,
  0.5, 1}, 30 seeds; median intercept error of the default and of ``"minimax"`` (paired seeds),
  the share of seeds where each fit's flag is set and the minimax factor ``c``.
* ``dev``: where the switch acts on development tables (RI's rows): liver (n = 345, d = 5) and
  wdbc subsampled to n = 200 (a row subsample per seed, ``default_rng(500 + seed)``, as in
  ``regression_intercept_rise_diagnosis.py``), ε ∈ {0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1}, 30 seeds;
  median error of the intercept (against the non-private OLS on the same clipped records) and of
  the level (the prediction at the records' mean x̄ against ȳ), default and ``"minimax"``.
* ``cells``: the PREDICTION of the dev gate (``docs/decision_rules.md``): for each gate cell (the
  8 benchmark tables of ``regression_default_power`` x ε ∈ {0.3, 1, 3, 10, 30}, and the 12
  MEASUREMENT tables of ``_check_tables_heldout`` x the same ε) the PUBLIC minimax factor
  ``c = h_y²/(h_y² + s²)`` (``s`` the joint release's public level noise sd, read off one
  ``"minimax"`` fit's ``intercept_bias_bound_ = (1 - c) h_y``; it depends on the public n, d,
  bounds and ε only) and whether the shipped rule lifts the intercept (``intercept_shrunk_`` of
  one default fit, also public). Where ``c`` is within 1% of 1 and the shipped rule does not
  lift, the candidate's fit differs from the default's only by moving the level by at most
  ``(1 - c) h_y``; the gate's median half (median over cells of the ratio of medians ≤ 0.99) needs
  half the cells to gain ≥ 1%. Then 20 paired trials (``SeedSequence(20261130)``) of the test RMSE
  (``utility_regression.test_metrics``, the split ``utility_regression.split``) on the cells where
  ``c < 0.99`` or the rule lifts, and on 3 cells where neither holds (the first 3 in order), to
  check the prediction. Not the gate (20 trials, no Wilcoxon verdict).

Command (from the repository root; about 10 minutes on one core)::

    MATRIXDP_DATA=/work/shared/datasets PYTHONPATH=src nice -n 10 python \
        experiments/regression_level_shrinkage.py --part all

Outputs ``results/regression_level_shrinkage.{md,csv}``. Reads private records (the training
split); the tables are development tables only.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "experiments"))

from matrixdp.models import DPLinearRegression, RegressionOptions  # noqa: E402

OUT = ROOT / "results"
NAME = "regression_level_shrinkage"
DELTA = 1e-6
MINIMAX = RegressionOptions(level_shrinkage="minimax")
SHIFTS = (0.0, 5.0, 7.5, -7.5)
SCAN_EPS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0)
GATE_EPS = (0.3, 1.0, 3.0, 10.0, 30.0)
BENCH = ("adult", "wdbc", "ctg", "lending_club", "liver", "movement_aal", "synthetic",
         "holdout_synthetic")
PAIR_SEED = 20261130
PAIR_TRIALS = 20


def scan_cell(seed, shift):
    from epsilon_monotonicity_scan import make_data
    X, y = make_data(200, 10, seed)
    y = np.clip(y + shift, -8.0, 8.0)
    xm = X.mean(0)
    w = np.linalg.lstsq(X - xm, y - y.mean(), rcond=None)[0]
    return X, y, float(y.mean() - xm @ w)


def fit_scan(X, y, eps, seed, opts=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return DPLinearRegression(epsilon=eps, delta=DELTA, bounds_X=(-4.0, 4.0),
                                  bounds_y=(-8.0, 8.0), random_state=seed,
                                  experimental=opts).fit(X, y)


def part_coverage():
    rows = []
    for shift in SHIFTS:
        for seed in range(100):
            X, y, b = scan_cell(seed, shift)
            for cfg, opts in (("default", None), ("minimax", MINIMAX)):
                m = fit_scan(X, y, 0.1, seed, opts)
                rows.append({"part": "coverage", "table": f"scan+{shift:g}", "epsilon": 0.1,
                             "seed": seed, "config": cfg, "error": abs(m.intercept_ - b),
                             "std": m.intercept_std_, "bound": m.intercept_bias_bound_,
                             "shrunk": int(m.intercept_shrunk_)})
    return rows


def part_scan():
    rows = []
    for shift in (0.0, 5.0):
        for seed in range(30):
            X, y, b = scan_cell(seed, shift)
            for eps in SCAN_EPS:
                for cfg, opts in (("default", None), ("minimax", MINIMAX)):
                    m = fit_scan(X, y, eps, seed, opts)
                    rows.append({"part": "scan", "table": f"scan+{shift:g}", "epsilon": eps,
                                 "seed": seed, "config": cfg, "error": abs(m.intercept_ - b),
                                 "std": m.intercept_std_, "bound": m.intercept_bias_bound_,
                                 "shrunk": int(m.intercept_shrunk_)})
    return rows


def part_dev():
    import _utility_common as uc
    rows = []
    liver, wdbc = uc.load_table("liver"), uc.load_table("wdbc")
    for seed in range(30):
        sub = np.random.default_rng(500 + seed).choice(wdbc.n, 200, replace=False)
        for name, t, idx in (("liver", liver, slice(None)), ("wdbc[n=200]", wdbc, sub)):
            X, y = t.X[idx], t.y[idx]
            Xc = np.clip(X, t.lo, t.hi)
            yc = np.clip(y, t.y_lo, t.y_hi)
            xm = Xc.mean(0)
            w = np.linalg.lstsq(Xc - xm, yc - yc.mean(), rcond=None)[0]
            b = float(yc.mean() - xm @ w)
            for eps in SCAN_EPS:
                for cfg, opts in (("default", None), ("minimax", MINIMAX)):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        m = DPLinearRegression(epsilon=eps, delta=DELTA, bounds_X=(t.lo, t.hi),
                                               bounds_y=(t.y_lo, t.y_hi), random_state=seed,
                                               experimental=opts).fit(X, y)
                    level = float(m.intercept_ + xm @ m.coef_)
                    rows.append({"part": "dev", "table": name, "epsilon": eps, "seed": seed,
                                 "config": cfg, "error": abs(m.intercept_ - b),
                                 "level_error": abs(level - float(yc.mean())),
                                 "std": m.intercept_std_, "bound": m.intercept_bias_bound_,
                                 "shrunk": int(m.intercept_shrunk_)})
    return rows


def gate_tables():
    import _check_tables_heldout as ch
    import _utility_common as uc
    for name in BENCH:
        yield name, uc.load_table(name)
    for name in ch.MEASUREMENT:
        yield name, ch.heldout_table(name)


def part_cells():
    import utility_regression as ur
    rows = []
    seeds = [int(s) for s in np.random.SeedSequence(PAIR_SEED).generate_state(PAIR_TRIALS)]
    quiet = 0
    for name, t in gate_tables():
        Xtr, ytr, Xte, yte = ur.split(t)
        hy = 0.5 * (t.y_hi - t.y_lo)
        for eps in GATE_EPS:
            def fit(s, opts):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return DPLinearRegression(epsilon=eps, delta=DELTA, bounds_X=(t.lo, t.hi),
                                              bounds_y=(t.y_lo, t.y_hi), random_state=s,
                                              experimental=opts).fit(Xtr, ytr)
            mm, md = fit(seeds[0], MINIMAX), fit(seeds[0], None)
            c = 1.0 - mm.intercept_bias_bound_ / hy
            lifted = bool(md.intercept_shrunk_)
            run = c < 0.99 or lifted
            if not run and quiet < 3:
                quiet, run = quiet + 1, True
            row = {"part": "cells", "table": name, "epsilon": eps, "n": t.n, "d": t.d, "c": c,
                   "shrunk": int(lifted), "median_default": math.nan,
                   "median_minimax": math.nan, "ratio": math.nan, "wins": math.nan}
            if run:
                r_d, r_m = [], []
                for s in seeds:
                    r_d.append(ur.test_metrics(t, yte, fit(s, None).predict(Xte))[0])
                    r_m.append(ur.test_metrics(t, yte, fit(s, MINIMAX).predict(Xte))[0])
                r_d, r_m = np.array(r_d), np.array(r_m)
                row.update(median_default=float(np.median(r_d)),
                           median_minimax=float(np.median(r_m)),
                           ratio=float(np.median(r_m) / np.median(r_d)),
                           wins=int(np.sum(r_m < r_d)))
            rows.append(row)
            print(name, eps, f"c={c:.4f}", lifted, row["ratio"], flush=True)
    return rows


FIELDS = ("part", "table", "epsilon", "seed", "config", "error", "level_error", "std", "bound",
          "shrunk", "n",
          "d", "c", "median_default", "median_minimax", "ratio", "wins")


def write_csv(rows):
    with open(OUT / f"{NAME}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})


def read_csv():
    with open(OUT / f"{NAME}.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def _f(v):
    return float(v) if v not in ("", None) else math.nan


def g(v):
    return f"{v:.3g}" if np.isfinite(v) else "—"


def report(rows):
    out = ["# The intercept's flag and bias bound; the minimax level shrinkage (task LS)", "",
           "Produced by `experiments/regression_level_shrinkage.py` (its docstring says what is "
           "measured); rows in `results/regression_level_shrinkage.csv`. DIAGNOSIS and "
           "PREDICTION on development tables: no gate run, nothing held out, no default "
           "changed.", ""]
    cov = [r for r in rows if r["part"] == "coverage"]
    if cov:
        out += ["## 1. Coverage of the intercept's bar, with and without the bias bound "
                "(n = 200, d = 10, ε = 0.1, 100 seeds)", "",
                "| truth shift | config | flag set | median error | median intercept_std_ | "
                "median bound | covered by 1.96·std | by 1.96·std + bound | "
                "by 1.96·std + 0.7·bound |", "|---|---|---|---|---|---|---|---|---|"]
        for shift in SHIFTS:
            for cfg in ("default", "minimax"):
                rr = [r for r in cov if r["table"] == f"scan+{shift:g}" and r["config"] == cfg]
                e, s, b = (np.array([_f(r[k]) for r in rr]) for k in ("error", "std", "bound"))
                sh = np.mean([_f(r["shrunk"]) for r in rr])
                out.append(f"| {shift:+g} | {cfg} | {sh:.2f} | {g(np.median(e))} | "
                           f"{g(np.median(s))} | {g(np.median(b))} | "
                           f"{np.mean(e <= 1.96 * s):.2f} | {np.mean(e <= 1.96 * s + b):.2f} | "
                           f"{np.mean(e <= 1.96 * s + 0.7 * b):.2f} |")
        out.append("")
    sc = [r for r in rows if r["part"] == "scan"]
    if sc:
        out += ["## 2. The scan's cell: median intercept error by ε (30 seeds, paired)", "",
                "| truth shift | ε | default | minimax | minimax / default | default flag share "
                "| minimax c |", "|---|---|---|---|---|---|---|"]
        for shift in (0.0, 5.0):
            for eps in SCAN_EPS:
                def col(cfg, k):
                    return np.array([_f(r[k]) for r in sc if r["table"] == f"scan+{shift:g}"
                                     and _f(r["epsilon"]) == eps and r["config"] == cfg])
                ed, em = np.median(col("default", "error")), np.median(col("minimax", "error"))
                c = 1.0 - np.median(col("minimax", "bound")) / 8.0
                out.append(f"| {shift:+g} | {eps:g} | {g(ed)} | {g(em)} | {em / ed:.3f} | "
                           f"{np.mean(col('default', 'shrunk')):.2f} | {c:.3f} |")
        out.append("")
    dv = [r for r in rows if r["part"] == "dev"]
    if dv:
        out += ["## 2b. Development tables where the switch acts (30 seeds, paired; medians)", "",
                "| table | ε | default flag share | intercept error default | minimax | "
                "level error default | minimax | minimax / default (level) | "
                "covered by 1.96·std + bound (default) |",
                "|---|---|---|---|---|---|---|---|---|"]
        for name in ("liver", "wdbc[n=200]"):
            for eps in SCAN_EPS:
                def col(cfg, k):
                    return np.array([_f(r[k]) for r in dv if r["table"] == name
                                     and _f(r["epsilon"]) == eps and r["config"] == cfg])
                ld, lm = np.median(col("default", "level_error")), np.median(
                    col("minimax", "level_error"))
                cov = np.mean(col("default", "error") <= 1.96 * col("default", "std")
                              + col("default", "bound"))
                out.append(f"| {name} | {eps:g} | {np.mean(col('default', 'shrunk')):.2f} | "
                           f"{g(np.median(col('default', 'error')))} | "
                           f"{g(np.median(col('minimax', 'error')))} | {g(ld)} | {g(lm)} | "
                           f"{lm / ld:.3f} | {cov:.2f} |")
        out.append("")
    cells = [r for r in rows if r["part"] == "cells"]
    if cells:
        cs = np.array([_f(r["c"]) for r in cells])
        lifted = np.array([_f(r["shrunk"]) for r in cells]) > 0
        quiet = (cs >= 0.99) & ~lifted
        ratios = np.array([_f(r["ratio"]) for r in cells])
        out += ["## 3. Prediction of the dev gate (the 100 cells: 8 benchmark + 12 MEASUREMENT "
                "tables × ε ∈ {0.3, 1, 3, 10, 30})", "",
                f"- cells where the public minimax factor c ≥ 0.99 and the shipped rule does not "
                f"lift the intercept: **{int(quiet.sum())} of {len(cells)}** (there the candidate "
                f"moves the level by at most (1 − c)·h_y, ≤ 1% of the half-width);",
                f"- cells where the shipped rule lifts the intercept: {int(lifted.sum())}; "
                f"cells with c < 0.99: {int((cs < 0.99).sum())};",
                f"- ratio of 20-trial medians minimax / default on the cells run: median "
                f"{g(np.nanmedian(ratios))}, min {g(np.nanmin(ratios))}, max "
                f"{g(np.nanmax(ratios))} over {int(np.isfinite(ratios).sum())} cells.", "",
                "| table | ε | n | d | c | rule lifts | median RMSE default | median RMSE minimax "
                "| ratio | minimax better (of 20) |", "|---|---|---|---|---|---|---|---|---|---|"]
        for r in cells:
            out.append(f"| {r['table']} | {_f(r['epsilon']):g} | {r['n']} | {r['d']} | "
                       f"{_f(r['c']):.4f} | {'yes' if _f(r['shrunk']) > 0 else 'no'} | "
                       f"{g(_f(r['median_default']))} | {g(_f(r['median_minimax']))} | "
                       f"{g(_f(r['ratio']))} | "
                       f"{'' if not np.isfinite(_f(r['wins'])) else int(_f(r['wins']))} |")
        out.append("")
    (OUT / f"{NAME}.md").write_text("\n".join(out))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--part", choices=("coverage", "scan", "dev", "cells", "all"), default="all")
    p.add_argument("--report", action="store_true", help="rewrite the .md from the csv")
    a = p.parse_args(argv)
    if a.report:
        report(read_csv())
        return
    old = [] if not (OUT / f"{NAME}.csv").exists() else read_csv()
    parts = ("coverage", "scan", "dev", "cells") if a.part == "all" else (a.part,)
    keep = [r for r in old if r["part"] not in parts]
    new = []
    for part in parts:
        new += {"coverage": part_coverage, "scan": part_scan, "dev": part_dev,
                "cells": part_cells}[part]()
        write_csv(keep + new)  # checkpoint per part
    report(read_csv())


if __name__ == "__main__":
    main()
