"""Task RS (issue #24): the pre-registered check of ``slope_shrink="sure"`` on never-seen tables.

Run ONLY if the dev gate (``regression_sure_gate.py``, ``results/regression_sure_gate.md``) passed.
The candidate is the gate's, unchanged: ``DPLinearRegression(slope_shrink="sure")`` with
``risk_shrink.SURE_NOISE_SCALES = (0.5,)``, ``SURE_METRIC = "gram"``, ``SURE_GRID`` as committed
(``docs/regression.md`` §3d).

The rule, written and committed with the tables' specs (``_check_tables_rs.py``) BEFORE any of
the tables is loaded:

- Tables: ``_check_tables_rs.CHECK_TABLES`` = bwght2, jtrain98, econmath, gpa3, fringe, hprice2
  (all six; none dropped after a run), public bounds from their documentation, loaded by
  ``_check_tables_rs.rs_table``.
- Setup: ``utility_regression.split`` (seed 0, 70/30), δ = 1e-6, replace-one,
  ε ∈ {0.3, 1, 3, 10, 30}; 30 trials per cell, seeds ``SeedSequence(20261202).generate_state(30)``;
  on each trial's seed: the default (``DPLinearRegression()``), the candidate, and the default's own
  noise options (``utility_regression.regression_fitter`` rows ``matrixdp (iid)``,
  ``iid, unit box``, ``matrixdp (mvg)``). Metric: test RMSE of the predictions clipped to the
  public target bounds (``utility_regression.test_metrics``).
- (C1) the candidate FAILS against the default in 0 of the 30 cells
  (``_paired_gate.cell_verdict(candidate, default)["fail"]``: one-sided Wilcoxon of
  log(candidate/default) against log 1.10, α = 0.01);
- (C2) the median, over the changed cells (the candidate differs from the default in at least one
  trial), of median(candidate)/median(default) is ≤ 0.99, with at least one changed cell;
- (C3) the count of cells where the candidate is worse than the best of the three options by more
  than 1.2× with significance (``cell_verdict(candidate, best option, ratio=1.2)["fail"]``; best
  option = the lowest 30-trial median of the three in that cell) is not larger than the same count
  for the default (``cell_verdict(default, best option, ratio=1.2)["fail"]``).
- PASS iff C1, C2 and C3. If it passes, the candidate becomes the default (task RS's brief step 6);
  otherwise it stays an option, documented with these numbers. No change of rule, candidate or
  table after reading a result.

Output: ``results/regression_sure_check.{md,csv}``, per trial
``results/regression_sure_check_trials.csv`` (checkpointed per cell). Command:
``cd experiments && PYTHONPATH=../src python regression_sure_check.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _check_tables_rs as rs  # noqa: E402
import _paired_gate as pg  # noqa: E402
import _regression_sure as rsc  # noqa: E402
import _utility_common as uc  # noqa: E402
import utility_regression as ur  # noqa: E402

NAME = "regression_sure_check"
SEED = 20261202
TRIALS = 30
EPSILONS = ur.EPSILONS
MEDIAN_MAX = 0.99
OPTION_RATIO = 1.2
OPTIONS = {"iid": "matrixdp (iid)", "iid_unit": "iid, unit box", "mvg": "matrixdp (mvg)"}
ROWS = ("default", "sure", *OPTIONS)


def run_cell(t, eps, seeds):
    Xtr, ytr, Xte, yte = ur.split(t)
    fitters = {k: ur.regression_fitter(m, t, eps, Xtr, ytr, Xte) for k, m in OPTIONS.items()}
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, s in enumerate(seeds):
            row = {"dataset": t.name, "epsilon": eps, "n": t.n, "d": t.d, "trial": i, "seed": s,
                   **rsc.paired_trial(t, eps, Xtr, ytr, Xte, yte, s)}
            for k, f in fitters.items():
                row[k] = ur.test_metrics(t, yte, np.asarray(f(s), float).ravel())[0]
            rows.append(row)
    return rows


def analyse(trials):
    cells = rsc.cells_of(trials, "dataset", "epsilon")
    out = []
    for (ds, eps), rs_ in cells.items():
        v = {k: np.array([float(r[k]) for r in rs_]) for k in ROWS}
        med = {k: float(np.median(v[k])) for k in ROWS}
        best = min(OPTIONS, key=lambda k: med[k])
        vd = pg.cell_verdict(v["sure"], v["default"])
        vs = pg.cell_verdict(v["sure"], v[best], ratio=OPTION_RATIO)
        vo = pg.cell_verdict(v["default"], v[best], ratio=OPTION_RATIO)
        lam = np.array([float(r["lam"]) for r in rs_])
        out.append({"dataset": ds, "epsilon": eps, "n": rs_[0]["n"], "d": rs_[0]["d"],
                    "trials": len(rs_), **{f"median_{k}": med[k] for k in ROWS},
                    "ratio": med["sure"] / med["default"], "verdict": pg.verdict_label(vd),
                    "hl_ratio": vd["pseudo_median_ratio"], "upper": vd["upper"],
                    "changed": bool(np.any(v["sure"] != v["default"])), "best_option": best,
                    "sure_over_best": med["sure"] / med[best], "sure_fails_best": bool(vs["fail"]),
                    "default_over_best": med["default"] / med[best],
                    "default_fails_best": bool(vo["fail"]),
                    "lam_zero_share": float(np.mean(lam == 0)),
                    "level_only_share": float(np.mean(np.isinf(lam)))})
    return out


def report(cells, cmd, elapsed):
    fails = [c for c in cells if c["verdict"] == "FAIL"]
    changed = [c for c in cells if c["changed"]]
    med = float(np.median([c["ratio"] for c in changed])) if changed else float("nan")
    n_s = sum(c["sure_fails_best"] for c in cells)
    n_d = sum(c["default_fails_best"] for c in cells)
    c1, c2, c3 = not fails, bool(changed) and med <= MEDIAN_MAX, n_s <= n_d
    verdict = "PASS" if c1 and c2 and c3 else "FAIL"
    L = ["# Check of `slope_shrink=\"sure\"` on never-seen tables (task RS, issue #24)", "",
         f"Generated by `experiments/regression_sure_check.py` (do not edit by hand). Command: "
         f"`{cmd}` ({elapsed / 60:.0f} min). The rule is the script's docstring, committed with the "
         "tables' specs (`experiments/_check_tables_rs.py`) before any table was loaded. "
         f"{len(cells)} cells, {cells[0]['trials'] if cells else 0} paired trials each; test RMSE, "
         "predictions clipped to the public target bounds.", "",
         f"## Verdict: **{verdict}**", "",
         f"- (C1) cells where the candidate FAILS against the default: **{len(fails)}**"
         + (" (" + ", ".join(f"{c['dataset']} ε={c['epsilon']:g}: {c['ratio']:.3g}" for c in fails)
            + ")" if fails else "") + f" → {'pass' if c1 else 'FAIL'}",
         f"- (C2) median over the {len(changed)} changed cells of median(sure)/median(default): "
         f"**{med:.4f}** (needs ≤ {MEDIAN_MAX}) → {'pass' if c2 else 'FAIL'}",
         f"- (C3) cells worse than the best option by > {OPTION_RATIO}× with significance: "
         f"candidate **{n_s}**, default **{n_d}** → {'pass' if c3 else 'FAIL'}", "",
         "| table | n | d | ε | default | sure | sure / default | HL (99% upper) | verdict | best option "
         "| default / best | default > 1.2× best (sig.) | sure / best | sure > 1.2× best (sig.) "
         "| λ = 0 share | level-only share |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        L.append(f"| {c['dataset']} | {c['n']} | {c['d']} | {c['epsilon']:g} | {c['median_default']:.4g} | "
                 f"{c['median_sure']:.4g} | {c['ratio']:.3f} | {c['hl_ratio']:.3f} ({c['upper']:.3f}) | "
                 f"{c['verdict']} | {c['best_option']} | {c['default_over_best']:.3f} | "
                 f"{'yes' if c['default_fails_best'] else 'no'} | {c['sure_over_best']:.3f} | "
                 f"{'yes' if c['sure_fails_best'] else 'no'} | {c['lam_zero_share']:.2f} | "
                 f"{c['level_only_share']:.2f} |")
    L.append("")
    return "\n".join(L)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--analyse", action="store_true")
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "results")
    args = p.parse_args(argv)
    cmd = "cd experiments && PYTHONPATH=../src python regression_sure_check.py"
    path = args.out / f"{NAME}_trials.csv"
    fields = ["dataset", "epsilon", "n", "d", "trial", "seed", *ROWS, "lam", "branch"]
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    t0 = time.time()
    trials = rsc.run_cells(path, fields, rs.CHECK_TABLES, rs.rs_table,
                           lambda name, t, eps: run_cell(t, eps, seeds), EPSILONS, t0,
                           run=not args.analyse)
    cells = analyse(trials)
    uc.write_rows(args.out / f"{NAME}.csv", cells)
    (args.out / f"{NAME}.md").write_text(report(cells, cmd, time.time() - t0))
    print(f"wrote {args.out / NAME}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
