"""Task RS (issue #24): ``slope_shrink="sure"`` on the outside audit's synthetic scenarios (DIAGNOSIS only).

The candidate (``DPLinearRegression(slope_shrink="sure")``, ``docs/regression.md`` §3d): after the
default's fit, a ridge ``λ ∈ [0, ∞]`` on the fitted coefficients (noise metric; the constant
refitted to the released means, not shrunk) chosen by an unbiased (SURE/Mallows) estimate of the
prediction risk from the release and its public noise. Post-processing: same release, same draws,
same charge.

Development set only: the audit's synthetic scenarios (``outside_audit.SCENARIOS``), which have
been read many times; nothing here is a gate or a held-out check. Rows on shared seeds (the
audit's 70/30 splits ``outside_audit.splits`` and mechanism seeds ``SeedSequence(seed + 1)``):
the default, the candidate, the default's own noise options (``iid``, ``iid, unit box``, ``mvg``:
``outside_audit.reg_fitter``) and the DP mean. Metric: test MSE of predictions clipped to the
target's public bounds (as the audit scores). Per cell: medians, candidate / default ratio of
medians, ``_paired_gate.cell_verdict`` of the candidate against the default and against the best
of the three options, and the median chosen ridge (``inf``: level only).

Output: ``results/regression_sure_dev.{md,csv}``, per trial ``results/regression_sure_dev_trials.csv``.
Command: ``cd experiments && PYTHONPATH=../src python regression_sure_dev.py``.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _paired_gate as pg  # noqa: E402
import _regression_sure as rsc  # noqa: E402
import _utility_common as uc  # noqa: E402
import outside_audit as oa  # noqa: E402
from matrixdp.models.experimental import RegressionOptions

NAME = "regression_sure_dev"
UNITS = ("corner", "heavy_tail", "collinear", "const_equal", "const_loose", "binary", "wide",
         "loose_label", "add_remove", "no_intercept")
OPTIONS = ("iid", "iid, unit box", "mvg")
ROWS = ("default", "sure", *OPTIONS, "DP mean")


def run_unit(u, epsilons, trials, seed, done, write_row):
    from matrixdp.models import DPLinearRegression

    sp = oa.splits(u.X.shape[0], trials, seed)
    seeds = [int(s) for s in np.random.SeedSequence(seed + 1).generate_state(trials)]
    for eps in epsilons:
        if (u.name, eps) in done:
            continue
        rows = []
        for i, ((tr, te), s) in enumerate(zip(sp, seeds)):
            Xtr, ytr, Xte, yte = u.X[tr], u.y[tr], u.X[te], u.y[te]
            row = {"unit": u.name, "epsilon": eps, "trial": i, "seed": s}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                base = dict(epsilon=eps, delta=oa.DELTA, bounds_X=(u.lo, u.hi),
                            bounds_y=(u.y_lo, u.y_hi), **u.kw)
                est = DPLinearRegression(random_state=s,
                                         **uc.experimental_keywords(DPLinearRegression, {**base,
                                                                                         "slope_shrink": "sure"})).fit(Xtr, ytr)
                preds = {"sure": est.predict(Xte)}
                row["lam"] = est.sure_ridge_ if est.sure_ridge_ is not None else float("nan")
                row["branch"] = est.boost_branch_
                for k in ("default", *OPTIONS, "DP mean"):
                    f = oa.reg_fitter(k, u, eps, Xtr, ytr)
                    preds[k] = None if f is None else f(s)(Xte)
            for k in ROWS:
                p = preds[k]
                row[k] = float("nan") if p is None else float(
                    np.mean((np.clip(p, u.y_lo, u.y_hi) - yte) ** 2))
            rows.append(row)
        for r in rows:
            write_row(r)


def analyse(trials):
    cells = rsc.cells_of(trials, "unit", "epsilon")
    out = []
    for (unit, eps), rs in cells.items():
        v = {k: np.array([float(r[k]) for r in rs]) for k in ROWS}
        med = {k: float(np.median(v[k])) for k in ROWS}
        opts = [k for k in OPTIONS if np.all(np.isfinite(v[k]))]
        best = min(opts, key=lambda k: med[k])
        vd = pg.cell_verdict(v["sure"], v["default"])
        vb_s = pg.cell_verdict(v["sure"], v[best])
        vb_d = pg.cell_verdict(v["default"], v[best])
        lam = np.array([float(r["lam"]) for r in rs])
        out.append({"unit": unit, "epsilon": eps, "trials": len(rs),
                    **{f"median_{k}": med[k] for k in ROWS},
                    "sure_over_default": med["sure"] / med["default"],
                    "sure_vs_default": pg.verdict_label(vd), "best_option": best,
                    "default_over_best": med["default"] / med[best],
                    "default_vs_best": pg.verdict_label(vb_d),
                    "sure_over_best": med["sure"] / med[best],
                    "sure_vs_best": pg.verdict_label(vb_s),
                    "level_only_share": float(np.mean(np.isinf(lam))),
                    "median_lam": float(np.median(lam))})
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--units", nargs="+", default=list(UNITS))
    p.add_argument("--trials", type=int, default=30)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(oa.EPSILONS))
    p.add_argument("--seed", type=int, default=20261128)
    p.add_argument("--out", type=Path, default=oa.REPO / "results")
    args = p.parse_args(argv)
    path = args.out / f"{NAME}_trials.csv"
    fields = ["unit", "epsilon", "trial", "seed", *ROWS, "lam", "branch"]
    done, trials = set(), []
    if path.exists():
        trials = list(csv.DictReader(open(path)))
        done = {(r["unit"], float(r["epsilon"])) for r in trials}
    fh = open(path, "a", newline="")
    w = csv.DictWriter(fh, fieldnames=fields)
    if not trials:
        w.writeheader()
    t0 = time.time()

    def write_row(r):
        w.writerow(r)
        fh.flush()
        trials.append({k: str(v) for k, v in r.items()})
    for u in oa.units(args.units):
        run_unit(u, args.epsilons, args.trials, args.seed, done, write_row)
        print(f"[{time.time() - t0:5.0f}s] {u.name}", flush=True)
    fh.close()
    cells = analyse(trials)
    uc.write_rows(args.out / f"{NAME}.csv", cells)
    L = ["# `slope_shrink=\"sure\"` on the outside audit's synthetic scenarios (diagnosis, task RS)", "",
         "Generated by `experiments/regression_sure_dev.py` (do not edit by hand). Command: "
         "`cd experiments && PYTHONPATH=../src python regression_sure_dev.py`. Development set "
         f"(read many times): diagnosis only, no gate. δ = 1e-6, {args.trials} paired trials per cell "
         "(the audit's splits and seeds); test MSE, predictions clipped to the target's public "
         "bounds; medians. 'vs' columns: `_paired_gate.cell_verdict` (FAIL = worse by > 1.10× at "
         "α = 0.01, one-sided Wilcoxon). best option = the lowest median of iid, iid unit box, mvg.", "",
         "| unit | ε | default | sure | sure / default | sure vs default | best option | default / best | "
         "default vs best | sure / best | sure vs best | level-only share | median λ | DP mean |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    f = oa._fmt
    for c in cells:
        L.append(f"| {c['unit']} | {c['epsilon']:g} | {f(c['median_default'])} | {f(c['median_sure'])} | "
                 f"{c['sure_over_default']:.3g} | {c['sure_vs_default']} | {c['best_option']} | "
                 f"{c['default_over_best']:.3g} | {c['default_vs_best']} | {c['sure_over_best']:.3g} | "
                 f"{c['sure_vs_best']} | {c['level_only_share']:.2f} | {c['median_lam']:.3g} | "
                 f"{f(c['median_DP mean'])} |")
    sd = [c["sure_over_default"] for c in cells]
    L += ["", f"Cells: {len(cells)}. sure / default: median {np.median(sd):.3f}, min {min(sd):.3f}, "
          f"max {max(sd):.3f}; cells where sure FAILS against the default: "
          f"{sum(c['sure_vs_default'].startswith('FAIL') for c in cells)}; default > 1.2× best option: "
          f"{sum(c['default_over_best'] > 1.2 for c in cells)}, sure > 1.2× best option: "
          f"{sum(c['sure_over_best'] > 1.2 for c in cells)}.", ""]
    (args.out / f"{NAME}.md").write_text("\n".join(L))
    print(f"wrote {args.out / NAME}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
