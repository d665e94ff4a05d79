"""What a public constant column (lower == upper) costs the other columns' releases.

Round 3's notes recorded a suspected inefficiency: a column whose public bounds are equal is pinned
after the release (its entries are known exactly), but it stays in the released matrix, so it
might take a share of the noise allocation or inflate a dimension-dependent calibration. This
script measures it: each fit is run twice on the same records and seed, once on the table and once
on the table with one extra public constant column appended (value 0.3, bounds [0.3, 0.3]), and
the error on the columns the two fits share is compared.

- covariance: ``DPCovariance`` (defaults), relative Frobenius error of the shared block against
  the non-private covariance of the clipped records;
- regression: ``DPLinearRegression`` (defaults), L2 error of the shared coefficients against
  non-private OLS on the same records.

Tables: a synthetic table (n = 2000, d = 4 correlated uniform features in [-1, 1], a linear
target with noise, label box [-2, 2]) and the benchmark's liver table (bounds and regression target as in
``results/utility_bounds.md``). Both neighbouring relations (replace-one
with public n; add-remove). ε ∈ {0.3, 1, 3}, δ = 1e-6.

Reported per cell: the median over trials of error(with constant) / error(without) — paired, the
same seed for both fits; the two fits draw different noise (the released matrix has another shape),
so the ratio of single trials is noisy and only its median is read — and a 95% bootstrap interval
of that median (2000 resamples of the trials). A cost shows as a median ratio above 1 with an
interval excluding 1.

Command: ``cd experiments && python constant_column_cost.py [--trials 200]`` → writes
``results/constant_column_cost.{md,csv}``.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

from matrixdp.models import DPCovariance, DPLinearRegression

RESULTS = Path(__file__).resolve().parent.parent / "results"
EPSILONS = (0.3, 1.0, 3.0)
RELATIONS = ("replace-one", "add-remove")
CONSTANT = 0.3


def synthetic():
    rng = np.random.default_rng(0)
    n, d = 2000, 4
    X = rng.uniform(-1, 1, (n, d))
    X[:, 1] = np.clip(X[:, 1] + 0.5 * X[:, 0], -1, 1)
    y = np.clip(X @ np.array([0.5, -0.3, 0.2, 0.1]) + 0.1 * rng.normal(size=n), -2, 2)
    return "synthetic", X, y, -np.ones(d), np.ones(d), (-2.0, 2.0)


def liver():
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _utility_common import load_table

    t = load_table("liver")  # records already clipped to the declared public bounds
    return ("liver", np.asarray(t.X, float), np.asarray(t.y, float), np.asarray(t.lo, float),
            np.asarray(t.hi, float), (float(t.y_lo), float(t.y_hi)))


def with_constant(X, lo, hi):
    return (np.column_stack([X, np.full(len(X), CONSTANT)]), np.append(lo, CONSTANT),
            np.append(hi, CONSTANT))


def median_interval(ratios, rng):
    ratios = np.asarray(ratios)
    boots = np.median(rng.choice(ratios, size=(2000, ratios.size)), axis=1)
    return float(np.median(ratios)), float(np.quantile(boots, 0.025)), \
        float(np.quantile(boots, 0.975))


def run(trials: int):
    rows = []
    boot = np.random.default_rng(20261129)
    for name, X, y, lo, hi, ybox in (synthetic(), liver()):
        d = X.shape[1]
        Xc, loc, hic = with_constant(X, lo, hi)
        C = np.cov(X, rowvar=False, bias=True)
        ols = np.linalg.lstsq(np.column_stack([X, np.ones(len(X))]), y, rcond=None)[0][:d]
        for relation in RELATIONS:
            for eps in EPSILONS:
                cov_r, coef_r = [], []
                for s in range(trials):
                    kw = dict(epsilon=eps, delta=1e-6, random_state=s, neighbouring=relation,
                              method="moments")  # the default before round 3e
                    a = DPCovariance(bounds=(lo, hi), **kw).fit(X).covariance_
                    b = DPCovariance(bounds=(loc, hic), **kw).fit(Xc).covariance_[:d, :d]
                    cov_r.append(np.linalg.norm(b - C) / np.linalg.norm(a - C))
                    a = DPLinearRegression(bounds_X=(lo, hi), bounds_y=ybox, **kw).fit(X, y).coef_
                    b = DPLinearRegression(bounds_X=(loc, hic), bounds_y=ybox,
                                           **kw).fit(Xc, y).coef_[:d]
                    coef_r.append(np.linalg.norm(b - ols) / np.linalg.norm(a - ols))
                for query, ratios in (("covariance", cov_r), ("regression", coef_r)):
                    med, lo95, hi95 = median_interval(ratios, boot)
                    rows.append(dict(table=name, relation=relation, epsilon=eps, query=query,
                                     trials=trials, median_ratio=med, ci_low=lo95, ci_high=hi95))
                    print(rows[-1], flush=True)
    return rows


def write(rows, argv_note):
    with open(RESULTS / "constant_column_cost.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = ["# What a public constant column costs the other columns", "",
             f"Generated by `experiments/constant_column_cost.py{argv_note}` (the script's docstring "
             "has the protocol). Each cell: the median over paired trials (same records, same seed) "
             "of error(with one extra public constant column) / error(without), on the shared "
             "columns, and a 95% bootstrap interval of that median. Above 1 with the interval "
             "excluding 1 = the constant column costs the others accuracy.", "",
             "| table | relation | ε | query | trials | median ratio | 95% interval |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['table']} | {r['relation']} | {r['epsilon']:g} | {r['query']} | "
                     f"{r['trials']} | {r['median_ratio']:.3f} | "
                     f"{r['ci_low']:.3f}–{r['ci_high']:.3f} |")
    worse = [r for r in rows if r["ci_low"] > 1.0]
    better = [r for r in rows if r["ci_high"] < 1.0]
    lines += ["", f"Cells where the constant column costs accuracy (interval above 1): "
                  f"{len(worse)} of {len(rows)}"
              + ("" if not worse else ": " + "; ".join(
                  f"{r['table']} {r['relation']} ε = {r['epsilon']:g} {r['query']} "
                  f"({r['median_ratio']:.2f}×)" for r in worse)) + ".",
              f"Cells where the fit with it is better (interval below 1): {len(better)} of "
              f"{len(rows)}" + ("" if not better else ": " + "; ".join(
                  f"{r['table']} {r['relation']} ε = {r['epsilon']:g} {r['query']} "
                  f"({r['median_ratio']:.2f}×)" for r in better)) + "."]
    (RESULTS / "constant_column_cost.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=200)
    a = p.parse_args()
    write(run(a.trials), "" if a.trials == 200 else f" --trials {a.trials}")
