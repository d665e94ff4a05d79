"""Task RS (issue #24): the dev gate of ``slope_shrink="sure"`` against the current regression default.

The candidate (ONE, fixed before this run): ``DPLinearRegression(slope_shrink="sure")``
(``docs/regression.md`` §3d): the default's fit, then a ridge ``λ ∈ [0, ∞]`` on its fitted
coefficients (noise metric of the released Gram's diagonal; the constant refitted to the released
means) chosen on the fixed grid ``risk_shrink.SURE_GRID`` by the unbiased risk estimate
``R̂(λ)`` from the release and the fit's first-order public noise covariance ``Ω`` read at half
its delta-method value (``risk_shrink.SURE_NOISE_SCALES = (0.5,)``: the delta method ignores the
feasible projection, which contracts the noise; measured variance ratios 0.45-0.7 on the audit's
synthetic scenarios where it binds, a choice made on those development scenarios) and the ridge
on the solve's own diagonal (``risk_shrink.SURE_METRIC = "gram"``). Post-processing:
the candidate shares EVERY release of the default (same seed, same draws, same charge), so the
pairing is exact and a cell where the chosen ``λ`` is 0 in every trial is unchanged.

The rule (``docs/decision_rules.md``, the paired gate with the session-16 amendment), written and
committed BEFORE the run:

- Cells: the 40 benchmark regression cells (``utility_regression``: the 7 tables of
  ``_utility_common.DATASETS`` and ``holdout_synthetic``, ε ∈ {0.3, 1, 3, 10, 30}) AND the 12
  MEASUREMENT tables' regression cells (``_check_tables_heldout.MEASUREMENT`` with their committed
  specs, ``heldout_table``; the same 5 ε): 100 cells.
- Setup: ``utility_regression.split`` (seed 0, 70/30), δ = 1e-6, replace-one, the public bounds of
  each table (the estimator arguments ``heldout_regression.fit_default`` builds); metric: test RMSE
  of the predictions clipped to the public target bounds (``utility_regression.test_metrics``).
- Trials: 30 per cell, seeds ``SeedSequence(20261201).generate_state(30)``; default and candidate on
  each trial's seed.
- (G1) the candidate FAILS in 0 of the 100 cells: ``_paired_gate.cell_verdict(candidate,
  default)["fail"]`` (one-sided Wilcoxon of log(candidate/default) against log 1.10, α = 0.01);
- (G2) the median, over the CHANGED cells (the candidate's RMSE differs from the default's in at
  least one trial), of median(candidate) / median(default) is ≤ 0.99, and at least one cell changed.
- PASS iff G1 and G2. Cells reported inconclusive (99% upper bound of the pseudo-median ratio
  > 1.20 without a FAIL) are listed, not rerun (no time in this session). No change of rule or
  candidate after reading a result; a failed gate ships the candidate as an option only.

Output: ``results/regression_sure_gate.{md,csv}``, per trial ``results/regression_sure_gate_trials.csv``
(checkpointed per cell: a killed run resumes). Command:
``cd experiments && PYTHONPATH=../src python regression_sure_gate.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _check_tables_heldout as ht  # noqa: E402
import _paired_gate as pg  # noqa: E402
import _regression_sure as rsc  # noqa: E402
import _utility_common as uc  # noqa: E402
import utility_regression as ur  # noqa: E402

NAME = "regression_sure_gate"
SEED = 20261201
TRIALS = 30
EPSILONS = ur.EPSILONS
MEDIAN_MAX = 0.99


def tables():
    bench = [(name, "benchmark") for name in uc.DATASETS]
    specs = ht.specs()
    meas = [(name, "measurement") for name in ht.MEASUREMENT if name in specs]
    return bench + meas


def load(name, kind):
    return uc.load_table(name) if kind == "benchmark" else ht.heldout_table(name)


def run_cell(t, kind, eps, seeds):
    Xtr, ytr, Xte, yte = ur.split(t)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, s in enumerate(seeds):
            rows.append({"set": kind, "dataset": t.name, "epsilon": eps, "trial": i, "seed": s,
                         **rsc.paired_trial(t, eps, Xtr, ytr, Xte, yte, s)})
    return rows


def analyse(trials):
    cells = rsc.cells_of(trials, "set", "dataset", "epsilon")
    out = []
    for (kind, ds, eps), rs in cells.items():
        a = np.array([float(r["sure"]) for r in rs])
        b = np.array([float(r["default"]) for r in rs])
        lam = np.array([float(r["lam"]) for r in rs])
        v = pg.cell_verdict(a, b)
        out.append({"set": kind, "dataset": ds, "epsilon": eps, "trials": len(rs),
                    "median_default": float(np.median(b)), "median_sure": float(np.median(a)),
                    "ratio": float(np.median(a) / np.median(b)),
                    "hl_ratio": float(v["pseudo_median_ratio"]), "upper": float(v["upper"]),
                    "verdict": pg.verdict_label(v), "changed": bool(np.any(a != b)),
                    "lam_zero_share": float(np.mean(lam == 0)),
                    "level_only_share": float(np.mean(np.isinf(lam)))})
    return out


def report(cells, cmd, elapsed):
    fails = [c for c in cells if c["verdict"] == "FAIL"]
    inc = [c for c in cells if c["verdict"] == "inconclusive"]
    changed = [c for c in cells if c["changed"]]
    med = float(np.median([c["ratio"] for c in changed])) if changed else float("nan")
    g1, g2 = not fails, bool(changed) and med <= MEDIAN_MAX
    verdict = "PASS" if g1 and g2 else "FAIL"
    L = ["# Dev gate of `slope_shrink=\"sure\"` against the regression default (task RS, issue #24)", "",
         f"Generated by `experiments/regression_sure_gate.py` (do not edit by hand). Command: `{cmd}` "
         f"({elapsed / 60:.0f} min). The rule is the script's docstring, committed before the run. "
         f"{len(cells)} cells, {cells[0]['trials'] if cells else 0} paired trials each (shared "
         "releases: the candidate is post-processing of the default's fit); test RMSE, predictions "
         "clipped to the public target bounds.", "",
         f"## Verdict: **{verdict}**", "",
         f"- (G1) cells where the candidate FAILS against the default: **{len(fails)}**"
         + (" (" + ", ".join(f"{c['dataset']} ε={c['epsilon']:g}: {c['ratio']:.3g}" for c in fails) + ")"
            if fails else ""),
         f"- (G2) median over the {len(changed)} changed cells of median(sure)/median(default): "
         f"**{med:.4f}** (needs ≤ {MEDIAN_MAX})",
         f"- inconclusive (no FAIL, 99% upper bound > 1.20): {len(inc)}"
         + (" (" + ", ".join(f"{c['dataset']} ε={c['epsilon']:g}" for c in inc) + ")" if inc else ""),
         f"- cells better by ≥ 10% (ratio ≤ 0.90): {sum(c['ratio'] <= 0.90 for c in cells)}; "
         f"worse by ≥ 10% (ratio ≥ 1.10): {sum(c['ratio'] >= 1.10 for c in cells)}", "",
         "| set | table | ε | default | sure | sure / default | HL ratio (99% upper) | verdict | λ = 0 share | level-only share |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        L.append(f"| {c['set']} | {c['dataset']} | {c['epsilon']:g} | {c['median_default']:.4g} | "
                 f"{c['median_sure']:.4g} | {c['ratio']:.3f} | {c['hl_ratio']:.3f} ({c['upper']:.3f}) | "
                 f"{c['verdict']} | "
                 f"{c['lam_zero_share']:.2f} | {c['level_only_share']:.2f} |")
    L.append("")
    return "\n".join(L)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=TRIALS)
    p.add_argument("--datasets", nargs="+", default=None)
    p.add_argument("--analyse", action="store_true")
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "results")
    args = p.parse_args(argv)
    cmd = "cd experiments && PYTHONPATH=../src python regression_sure_gate.py"
    path = args.out / f"{NAME}_trials.csv"
    fields = ["set", "dataset", "epsilon", "trial", "seed", "default", "sure", "lam", "branch"]
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(args.trials)]
    t0 = time.time()
    kinds = {name: kind for name, kind in tables()
             if not args.datasets or name in args.datasets}
    trials = rsc.run_cells(path, fields, kinds, lambda name: load(name, kinds[name]),
                           lambda name, t, eps: run_cell(t, kinds[name], eps, seeds), EPSILONS, t0,
                           run=not args.analyse)
    cells = analyse(trials)
    uc.write_rows(args.out / f"{NAME}.csv", cells)
    (args.out / f"{NAME}.md").write_text(report(cells, cmd, time.time() - t0))
    print(f"wrote {args.out / NAME}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
