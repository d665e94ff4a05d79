"""Summary of the utility comparison: reads ``results/utility_{covariance,pca,regression}.csv``
and writes ``results/utility_summary.md`` (the ε = 1 column of every task, the issue's targets, and
the cells each method wins). Nothing is typed by hand: rerun after the three scripts.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

#: Regression-only rows (``utility_regression.EXTRA_METHODS``), listed after the shared ones;
#: ``CHECK_ONLY`` rows are a check, not competitors (as in ``utility_regression.ratio_to_best``).
REGRESSION_METHODS = ("matrixdp (auto, unprojected)", "DPRidge (alpha = 1)", "AdaSSP",
                      "AdaSSP, unit box", "Boosted AdaSSP", "Boosted AdaSSP, unit box",
                      "Boosted AdaSSP, τ = 𝒴")
CHECK_ONLY = ("DPRidge (alpha = 1)",)
uc.METHODS = tuple(dict.fromkeys((uc.DEFAULT_ROW,) + uc.METHODS + REGRESSION_METHODS))
#: One-sided level of the paired test, and the fewest pairs at which it can reject at that level
#: (Wilcoxon signed-rank, exact: the smallest one-sided p with m pairs is 2^-m, 2^-5 = 0.031).
ALPHA = 0.05
MIN_PAIRS = 5

TASKS = (
    ("utility_covariance", "relative Frobenius error", "covariance, relative Frobenius error", True),
    ("utility_covariance", "correlation relative Frobenius error",
     "correlation, relative Frobenius error (matrixdp rows: DPCovariance(kind=\"correlation\"))",
     True),
    ("utility_pca", "captured-variance deficit, k=2", "PCA k = 2, captured-variance deficit", True),
    ("utility_pca", "captured-variance deficit, k=5", "PCA k = 5, captured-variance deficit", True),
    ("utility_regression", "test RMSE", "regression, test RMSE", True),
    ("utility_regression", "test R²", "regression, test R²", False),
)


def eps1_table(rows, metric, lower) -> list[str]:
    sel = [r for r in rows if r["metric"] == metric and r["status"] == "ok" and float(r["epsilon"]) == 1.0]
    datasets = list(dict.fromkeys(r["dataset"] for r in sel))
    methods = [m for m in uc.METHODS if any(r["method"] == m for r in sel)]
    lines = ["| method | " + " | ".join(datasets) + " |", "|---|" + "---|" * len(datasets)]
    best = {}
    for ds in datasets:
        cell = [r for r in sel if r["dataset"] == ds]
        sign = 1.0 if lower else -1.0
        top = min(sign * float(r["median"]) for r in cell)
        best[ds] = [r["method"] for r in cell if sign * float(r["median"]) <= top + uc.TIE * abs(top)]
    for m in methods:
        out = []
        for ds in datasets:
            r = next((x for x in sel if x["dataset"] == ds and x["method"] == m), None)
            text = "—" if r is None else uc.fmt(float(r["median"]))
            out.append(f"**{text}**" if r is not None and m in best[ds] else text)
        lines.append(f"| {m} | " + " | ".join(out) + " |")
    return lines + [""]


def win_counts(rows, metric, lower) -> list[str]:
    sel = [r for r in rows if r["metric"] == metric and r["status"] == "ok"]
    wins: dict[str, int] = {}
    cells = 0
    for key in dict.fromkeys((r["dataset"], float(r["epsilon"])) for r in sel):
        cell = [r for r in sel if (r["dataset"], float(r["epsilon"])) == key]
        sign = 1.0 if lower else -1.0
        top = min(sign * float(r["median"]) for r in cell)
        for r in cell:  # every method tied for the best median counts
            if sign * float(r["median"]) <= top + uc.TIE * abs(top):
                wins[r["method"]] = wins.get(r["method"], 0) + 1
        cells += 1
    parts = ", ".join(f"{m} {wins[m]}" for m in uc.METHODS if m in wins)
    return [f"Best median (ties counted for every tied method) in {cells} (dataset, ε) cells: "
            f"{parts}.", ""]


def auto_vs_iid_ratio(rows, metric) -> list[str]:
    sel = [r for r in rows if r["metric"] == metric and r["status"] == "ok"]
    ratios = []
    for key in dict.fromkeys((r["dataset"], float(r["epsilon"])) for r in sel):
        cell = {r["method"]: float(r["median"]) for r in sel if (r["dataset"], float(r["epsilon"])) == key}
        if "matrixdp (auto)" in cell and "matrixdp (iid)" in cell and cell["matrixdp (auto)"] > 0:
            ratios.append(cell["matrixdp (iid)"] / cell["matrixdp (auto)"])
    if not ratios:
        return []
    r = np.array(ratios)
    return [f"matrixdp (iid) / matrixdp (auto), median error ratio over {r.size} cells: "
            f"min {r.min():.3g}, median {np.median(r):.3g}, max {r.max():.3g}.", ""]


def paired_not_worse(rows, metric, lower) -> list[str]:
    """Beside the strict count: cells where the default is *not significantly worse* than the
    method with the best median, by a paired one-sided Wilcoxon signed-rank test over the trials
    both ran with the same seeds (every method of a cell runs the seeds of ``run_cell`` in the same
    order; OpenDP's fewer trials are the first ones). H0: the default's per-trial error minus the
    best's is symmetric about 0; H1: the default is worse. "Not significantly worse" is p >= ALPHA
    (exact p, ``scipy.stats.wilcoxon``, ``zero_method="zsplit"``). A cell whose best row has no
    recorded trial values (rows kept from a run before they were recorded) or fewer than MIN_PAIRS
    pairs is *not testable* and is not counted as not worse."""
    from scipy.stats import wilcoxon

    sel = [r for r in rows if r["metric"] == metric and r["status"] == "ok"
           and r["method"] not in CHECK_ONLY]
    sign = 1.0 if lower else -1.0
    n_cells = strict = not_worse = 0
    worse, untestable = [], []
    for key in dict.fromkeys((r["dataset"], float(r["epsilon"])) for r in sel):
        cell = {r["method"]: r for r in sel if (r["dataset"], float(r["epsilon"])) == key}
        default = uc.default_method(cell)
        if default is None:
            continue
        n_cells += 1
        top = min(sign * float(r["median"]) for r in cell.values())
        winners = [m for m, r in cell.items() if sign * float(r["median"]) <= top + uc.TIE * abs(top)]
        if default in winners:
            strict += 1
            not_worse += 1
            continue
        best = winners[0]
        a, b = uc.trial_values(cell[default]), uc.trial_values(cell[best])
        label = f"{key[0]} ε = {key[1]:g} ({best})"
        if a is None or b is None or min(a.size, b.size) < MIN_PAIRS:
            untestable.append(label + ("" if a is not None and b is not None
                                       else ": no per-trial values") )
            continue
        m = min(a.size, b.size)
        diff = sign * (a[:m] - b[:m])  # > 0 where the default is worse
        if not np.any(diff != 0):
            not_worse += 1
            continue
        p = float(wilcoxon(diff, alternative="greater", zero_method="zsplit").pvalue)
        if p >= ALPHA:
            not_worse += 1
        else:
            ratio = float(cell[default]["median"]) / float(cell[best]["median"])
            worse.append(f"{label}: p = {p:.2g}, {m} pairs, median ratio {ratio:.3g}")
    lines = [f"Default not significantly worse than the best (paired one-sided Wilcoxon signed-rank "
             f"test over the same trial seeds, α = {ALPHA:g}; strict best-median count first, it "
             f"stays the primary target): strict best {strict} of {n_cells}; not significantly "
             f"worse {not_worse} of {n_cells}; significantly worse {len(worse)}; not testable "
             f"{len(untestable)}.", ""]
    if worse:
        lines += ["Significantly worse: " + "; ".join(worse) + ".", ""]
    if untestable:
        lines += [f"Not testable (fewer than {MIN_PAIRS} paired trials, or the best row's per-trial "
                  "values were not recorded): " + "; ".join(untestable) + ".", ""]
    return lines


def _true(column: str):
    return lambda c: c[column] == "True"


def _candidate_lowest(c: dict) -> bool:
    """A gate file's candidate has a lower 100-trial median than the best other row."""
    return float(c["median_candidate"]) < float(c["median_best"])


def _candidate_within(c: dict) -> bool:
    """A gate file's candidate is within 1.2× of the best other row's 100-trial median."""
    return float(c["median_candidate"]) <= 1.2 * float(c["median_best"])


@dataclass(frozen=True)
class PowerSource:
    """One file of 100-trial paired measurements against the best other row, per cell: its stem,
    whose rows it measures (``who``), the rows it compares them with, the column holding the
    paired gate's verdict against the best row, and how to read "lowest median" and "within
    1.2×" from a cell (cells with an empty verdict, e.g. a gate's trap tables, are left out)."""

    stem: str
    who: str
    rows_text: str
    verdict: str
    lowest: Callable[[dict], bool]
    within: Callable[[dict], bool]


_COV_ROWS = "the moments rows (auto, mvg) and CoinPress"
_REG_ROWS = ("i.i.d. on the unit box, AdaSSP and Boosted AdaSSP on the unit box, Boosted AdaSSP "
             "with τ = 𝒴 and the unprojected default")
#: 100-trial paired measurements, per (results stem, metric): the current default first (the
#: gates that made it the default: tasks CV, RW), then the previous default (tasks CP, RP;
#: ``docs/decision_rules.md``, "The paired gate"). Covariance: both files measure defaults before
#: session 24's dominating triangle (task CV); the current default's 100-trial measurement is
#: ``cov_cells_power.md`` (:data:`POWER_NOTES`), which has no per-cell CSV.
POWER = {("utility_covariance", "relative Frobenius error"): (
             PowerSource("covariance_choice_gate", "the default before session 24 (task CV's median "
                         "ranking, the moments branch's full draw)",
                         _COV_ROWS, "verdict_candidate_best", _true("lowest"), _true("within")),
             PowerSource("covariance_default_power", "the default before that (the mean ranking)",
                         _COV_ROWS, "verdict", lambda c: c["lowest"] == "default",
                         _true("within_1.2"))),
         ("utility_regression", "test RMSE"): (
             PowerSource("regression_bias_gate", "the default (task RW's bias gate)",
                         _REG_ROWS + " (task RP's rows)", "cand_vs_best_verdict", _candidate_lowest,
                         _candidate_within),
             PowerSource("regression_default_power", "the previous default (§4e alone)",
                         _REG_ROWS, "verdict", lambda c: c["lowest"] == "default",
                         _true("within_1.2")))}


#: A pointer to a paired measurement at power of the current default kept as Markdown (covariance:
#: 100 trials; PCA: ``pca_cells_power.py``, whose per-cell CSV has a k column the sources of
#: ``POWER`` do not read).
POWER_NOTES = {("utility_covariance", "relative Frobenius error"): (
    "The current default (session 24, task CV: the moments branch's last release as a dominating "
    "triangle) at 100 paired trials per cell against the best of auto, mvg, CoinPress and Analyze "
    "Gauss, on the benchmark's seeds: `cov_cells_power.md`."),
    **{("utility_pca", f"captured-variance deficit, k={k}"): (
        "The default (`DPPCA()`) at 100 paired trials per cell (session 25, task PW; the first 8 "
        "seeds are this table's) against the best of the moments release with mvg, i.i.d. and "
        "unit-box noise, the unit-box i.i.d. row, CoinPress and Analyze Gauss (today's code: its "
        "i.i.d. and CoinPress rows differ from this table's), with the paired gate's verdict per "
        "cell and the counts (lowest median, within 1.2×, FAIL, inconclusive): "
        "`pca_cells_power.md`.") for k in (2, 5)}}


def power_lines(out: Path, name: str, metric: str) -> list[str]:
    """The default (and the previous default) at 100 paired trials per cell, read from the
    per-cell CSVs of ``POWER``, after the pointer of ``POWER_NOTES``."""
    lines = [POWER_NOTES[(name, metric)], ""] if (name, metric) in POWER_NOTES else []
    for src in POWER.get((name, metric), ()):
        path = out / f"{src.stem}.csv"
        if not path.is_file():
            lines += [f"`{path.name}` not found: run `experiments/{src.stem}.py`.", ""]
            continue
        cells = [c for c in uc.read_csv(path) if c[src.verdict]]
        label = lambda c: f"{c['dataset']} ε = {float(c['epsilon']):g}"  # noqa: E731
        fails = [label(c) for c in cells if c[src.verdict] == "FAIL"]
        unsure = [label(c) for c in cells if c[src.verdict] == "inconclusive"]
        lowest = sum(src.lowest(c) for c in cells)
        within = sum(src.within(c) for c in cells)
        trials = sorted({int(c["T"]) for c in cells})
        lines += [f"At {'/'.join(map(str, trials))} paired trials per cell (`{src.stem}.md`; "
                  f"{src.who} against the best of {src.rows_text}, on the same seeds): the "
                  f"paired gate (`docs/decision_rules.md`) finds it significantly "
                  f"worse than 1.10× the best in {len(fails)} of {len(cells)} cells"
                  + (f" ({'; '.join(fails)})" if fails else "")
                  + f", inconclusive in {len(unsure)}; it has the lowest median of those rows in "
                  f"{lowest} and is within 1.2× of the best in {within}.", ""]
    return lines


def main(argv=None) -> int:
    import argparse

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    args = p.parse_args(argv)
    lines = ["# Utility comparison — summary", "",
             "Generated by `experiments/utility_summary.py` from the three results CSVs; the full "
             "tables (median and IQR per ε, fit times, notes) are in `utility_covariance.md`, "
             "`utility_pca.md` and `utility_regression.md`.", "",
             "Tuning disclosure (issue 24): CoinPress' clipping rate β = 0.1 and its budget split "
             "(1/4 of μ² to the first step) were chosen among β ∈ {0.1, 0.01, 0.001} and 2 or 3 "
             "steps by looking at synthetic, liver, wdbc and ctg at ε ∈ {0.1, 1, 5}; adult, "
             "lending_club and movement_aal were not looked at before the committed run (held out). "
             "noise='auto' has no tuned constant: it minimises the exact expected loss. Its "
             "candidates were checked one by one, forced, on every table "
             "(`auto_allocation_check.md`); no rule of auto was changed by that check (a rule "
             "tuned on synthetic, liver, wdbc and ctg had to hold on adult, lending_club and "
             "movement_aal first; see `docs/when_mvg_wins.md` §7).", "",
             "Correlation rows: the matrixdp rows are `DPCovariance(kind=\"correlation\")` "
             "(the library's correlation estimator, its own release with the same seeds, with its "
             "default `shrinkage=\"auto\"`: `\"projected\"` for auto, mvg and iid, `\"none\"` "
             "for coinpress; `correlation_default_check.md`); `matrixdp (default)` is "
             "`DPCovariance(kind=\"correlation\")` as a user gets it, since task CR the "
             "correlation-ranked adaptive release (`correlation_adaptive_check.md`); the "
             "other rows are the correlation implied by their covariance release.", ""]
    for name, metric, label, lower in TASKS:
        path = Path(args.out) / f"{name}.csv"
        if not path.is_file():
            lines += [f"## {label}", "", f"`{path.name}` not found: run `experiments/{name}.py`.", ""]
            continue
        # the DPRidge row is a check of the ridge, not a competitor (utility_regression.CHECK_ONLY)
        rows = [r for r in uc.read_csv(path) if r["method"] not in CHECK_ONLY]
        lines += [f"## {label} ({'lower' if lower else 'higher'} is better)", "",
                  "Medians at ε = 1 (bold: best in the column):", ""]
        lines += eps1_table(rows, metric, lower)
        lines += win_counts(rows, metric, lower)
        lines += paired_not_worse(rows, metric, lower)
        lines += power_lines(Path(args.out), name, metric)
        if lower:
            lines += uc.target_lines(uc.target_check(rows, metric), label,
                                     "value divided by matrixdp's default")
            lines += auto_vs_iid_ratio(rows, metric)
            lines += ["Best method per cell, and matrixdp's default against it:", ""]
            lines += uc.best_ratio_lines(rows, metric, relative="relative" in metric)
        tasks = {r["task"] for r in rows if r["metric"] == metric}
        timeouts = [r for r in rows if r["status"] == "timeout" and r["task"] in tasks]
        if timeouts:
            lines += ["Timed-out cells: " + "; ".join(f"{r['dataset']} ε = {float(r['epsilon']):g} "
                                                      f"{r['method']} ({r['note']})" for r in timeouts), ""]
    path = Path(args.out) / "utility_summary.md"
    path.write_text("\n".join(lines))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
