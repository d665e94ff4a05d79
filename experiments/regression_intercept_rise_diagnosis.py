"""Task RI (diagnosis, no default changed): why DPLinearRegression()'s intercept error RISES from
ε = 0.1 to 0.2 on the ε scan's small wide table (task HV's probe
``regression_rise_in_the_intercept``, ``results/defect_hunt_hv.md`` row 3b).

What is recorded. Every fit's FIRST call of ``solve_moments`` (the joint release's solve; in the
boosted default it is the start ``β₀`` of the rounds) is wrapped (in this script only, by
replacing the name in ``matrixdp.models.linear`` and ``matrixdp.models.boosted_fit``) to read,
from the release handed to it (post-processing of the release; nothing new is drawn):

* ``level_raw``: the released level ``c_y + G[y, t] / (n t)`` (the released mean of ``y``);
* ``level_sd``: its public noise sd ``sqrt(V[y, t]) / t``, and ``sd/h_y`` (``h_y`` the target's
  public half-width);
* ``informative``: ``normal_equations.target_mean_informative`` (``sd < h_y``), the rule that
  sets ``lift_intercept = not informative`` in ``solve_moments`` (replace-one);
* ``level_proj``: the level after the feasible projection (noise metric);
* ``lam``: the adaptive ridge's ``λ``; ``start_intercept``: the intercept of that first solve;
* the fit's ``intercept_``, ``intercept_std_``, ``boost_branch_``, the slopes' error.

Configurations (each paired by seed; ``random_state = seed``):

* ``default``: ``DPLinearRegression()`` (boosting rounds "auto");
* ``rounds0``: ``experimental=RegressionOptions(boost_rounds=0)`` (the single release);
* ``default/lift`` and ``rounds0/lift``: the same with ``lift_intercept=True`` forced in every
  solve (the ε = 0.1 branch at every ε); ``default/free``, ``rounds0/free``: ``False`` forced
  (the intercept never penalised: the ε ≥ 0.2 branch at every ε);
* ``level_prior=box``: ``RegressionOptions(level_prior="box")`` (the shipped opt-in posterior
  mean of the level under a uniform prior on the box; rounds 0 by its rule).

Tables:

* ``synthetic``: the scan's generator (``epsilon_monotonicity_scan.make_data``), n = 200,
  d = 10, truth intercept ≈ 0.3 (near the box centre c_y = 0, h_y = 8), 12 seeds;
* ``synthetic+5``: the same records with ``y + 5`` (truth ≈ 5.3, far from the centre; clipped
  to the same public [-8, 8]), 12 seeds;
* ``liver`` (benchmark table; n = 345, d = 5, drinks in the documented [0, 20]: mean ≈ 3.5,
  far from the centre 10) and ``wdbc`` subsampled to n = 200 (a row subsample per seed; target
  0/1, mean ≈ 0.37 near the centre 0.5), 12 seeds, ε in {0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1}.

Error: ``|intercept_ - b_OLS|`` with ``b_OLS`` the non-private OLS intercept on the same
(clipped) records; the slopes' error ``‖coef_ - w_OLS‖``. DIAGNOSIS on development tables only
(no gate, no held-out claim). Command (from the repository root, about 3 minutes on one core)::

    PYTHONPATH=src nice -n 15 python experiments/regression_intercept_rise_diagnosis.py

writes ``results/regression_intercept_rise_diagnosis.csv`` (one row per fit) and
``results/regression_intercept_rise_diagnosis.md`` (``--report``: the markdown again from the csv).
"""

from __future__ import annotations

import csv
import math
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "experiments"))

import matrixdp.models.boosted_fit as bf  # noqa: E402
import matrixdp.models.linear as lin  # noqa: E402
from matrixdp.models import DPLinearRegression, RegressionOptions  # noqa: E402
from matrixdp.models.normal_equations import (feasible_moments, projection_units,  # noqa: E402
                                              solve_moments, target_mean_informative)

OUT = ROOT / "results"
CSV = OUT / "regression_intercept_rise_diagnosis.csv"
MD = OUT / "regression_intercept_rise_diagnosis.md"
SEEDS = range(12)
EPS_SYN = (0.1, 0.15, 0.2, 0.3, 1.0)
EPS_DEV = (0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0)
DELTA = 1e-6

_STATE = {"force": None, "first": None, "calls": 0}


def _recording_solve(G, entry_variance, task, n, t, **kw):
    """``solve_moments`` with the first call's level readings recorded (and ``lift_intercept``
    forced where the configuration says so). Post-processing of the release only."""
    if _STATE["force"] is not None:
        kw["lift_intercept"] = _STATE["force"]
    out = solve_moments(G, entry_variance, task, n, t, **kw)
    _STATE["calls"] += 1
    if _STATE["first"] is None:
        d = G.shape[0] - 2
        ev = np.asarray(entry_variance, dtype=np.float64)
        noise_sd = np.sqrt(np.diag(ev)) * n
        Gp = feasible_moments(np.asarray(G, float), task, float(n),
                              projection_units("noise", task, noise_sd))
        _STATE["first"] = dict(
            level_raw_c=float(G[d, d + 1]) / (n * t),
            level_proj_c=float(Gp[d, d + 1]) / (n * t),
            level_sd=math.sqrt(max(float(ev[d, d + 1]), 0.0)) / t,
            informative=bool(target_mean_informative(ev, task, t)),
            lam=float(out[1]), beta=np.asarray(out[0], float).copy(), t=float(t))
    return out



CONFIGS = {
    "default": ({}, None),
    "default/lift": ({}, True),
    "default/free": ({}, False),
    "rounds0": ({"experimental": RegressionOptions(boost_rounds=0)}, None),
    "rounds0/lift": ({"experimental": RegressionOptions(boost_rounds=0)}, True),
    "rounds0/free": ({"experimental": RegressionOptions(boost_rounds=0)}, False),
    "level_prior=box": ({"experimental": RegressionOptions(level_prior="box")}, None),
}


def ols(X, y):
    xm, ym = X.mean(0), y.mean()
    w = np.linalg.lstsq(X - xm, y - ym, rcond=None)[0]
    return w, float(ym - xm @ w)


def tables():
    """(name, seed, X, y, (lo_x, hi_x), (lo_y, hi_y), eps grid)."""
    from epsilon_monotonicity_scan import make_data
    for s in SEEDS:
        X, y = make_data(200, 10, s)
        yield "synthetic", s, X, y, (-4.0, 4.0), (-8.0, 8.0), EPS_SYN
        yield "synthetic+5", s, X, np.clip(y + 5.0, -8.0, 8.0), (-4.0, 4.0), (-8.0, 8.0), EPS_SYN
    from _utility_common import load_table
    liver = load_table("liver")
    wdbc = load_table("wdbc")
    for s in SEEDS:
        yield ("liver", s, liver.X, liver.y, (liver.lo, liver.hi), (liver.y_lo, liver.y_hi),
               EPS_DEV)
        rows = np.random.default_rng(500 + s).choice(wdbc.n, 200, replace=False)
        yield ("wdbc[n=200]", s, wdbc.X[rows], wdbc.y[rows], (wdbc.lo, wdbc.hi),
               (wdbc.y_lo, wdbc.y_hi), EPS_DEV)


def run():
    # the recording solve replaces the name in the two modules for this run only (not on import)
    lin.solve_moments = _recording_solve
    bf.solve_moments = _recording_solve
    try:
        return _run()
    finally:
        lin.solve_moments = solve_moments
        bf.solve_moments = solve_moments


def _run():
    rows = []
    for name, s, X, y, bx, by, grid in tables():
        w, b = ols(X, y)
        lo_x = np.broadcast_to(np.asarray(bx[0], float), (X.shape[1],))
        hi_x = np.broadcast_to(np.asarray(bx[1], float), (X.shape[1],))
        cx, cy, hy = 0.5 * (lo_x + hi_x), 0.5 * (by[0] + by[1]), 0.5 * (by[1] - by[0])
        for eps in grid:
            for cname, (kw, force) in CONFIGS.items():
                _STATE.update(force=force, first=None, calls=0)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    m = DPLinearRegression(epsilon=eps, delta=DELTA, bounds_X=bx, bounds_y=by,
                                           random_state=s, **kw).fit(X, y)
                f = _STATE["first"]
                d = X.shape[1]
                start = cy - cx @ f["beta"][:d] + f["beta"][d] * f["t"]
                rows.append(dict(
                    table=name, seed=s, eps=eps, config=cname, truth_intercept=round(b, 6),
                    level_raw=round(cy + f["level_raw_c"], 6),
                    level_proj=round(cy + f["level_proj_c"], 6),
                    level_sd=round(f["level_sd"], 6), sd_over_hy=round(f["level_sd"] / hy, 4),
                    informative=int(f["informative"]), lam=round(f["lam"], 6),
                    start_intercept=round(float(start), 6), intercept=round(m.intercept_, 6),
                    intercept_std=round(float(m.intercept_std_), 6),
                    intercept_err=round(abs(m.intercept_ - b), 6),
                    slope_err=round(float(np.linalg.norm(m.coef_ - w)), 6),
                    level_err=round(abs(m.intercept_ + X.mean(0) @ m.coef_ - y.mean()), 6),
                    y_mean=round(float(y.mean()), 6), c_y=cy, h_y=hy,
                    branch=m.boost_branch_, solves=_STATE["calls"]))
        print(name, s, flush=True)
    OUT.mkdir(exist_ok=True)
    with open(CSV, "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    return rows


def report(rows):
    import pandas as pd
    df = pd.DataFrame(rows).sort_values(["table", "eps"], kind="stable")
    lines = ["# Why DPLinearRegression()'s intercept error rises from ε = 0.1 to 0.2 (task RI, "
             "diagnosis)", "",
             "Produced by `experiments/regression_intercept_rise_diagnosis.py` (its docstring "
             "says what is recorded); one row per fit in "
             "`results/regression_intercept_rise_diagnosis.csv`. 12 seeds per cell, medians "
             "over seeds; errors against the non-private OLS on the same clipped records. "
             "DIAGNOSIS on development tables (no gate, nothing held out).", ""]
    lines += ["## 1. The switch (the joint release's level, read at the first solve; "
              "configuration `default`)", "",
              "The released level and its projection against ȳ (the level); the start and the "
              "fit's intercept against the OLS intercept (on liver and wdbc an extrapolation to "
              "x = 0, dominated by the slopes' error and the adaptive ridge's bias, which the "
              "bar leaves out: `results/boosted_bar_coverage.md`).", "",
              "| table | ε | level sd | sd / h_y | informative (share of seeds) | median |level_raw - ȳ| "
              "| median |level_proj - ȳ| | median λ | median |start intercept - truth| "
              "| median intercept error | median intercept_std_ | covered (share of seeds with error "
              "<= 1.96 intercept_std_) | median slopes' error |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    dd = df[df.config == "default"]
    for (tb, e), g in dd.groupby(["table", "eps"], sort=False):
        lines.append(
            f"| {tb} | {e:g} | {g.level_sd.median():.3g} | {g.sd_over_hy.median():.3f} | "
            f"{g.informative.mean():.2f} | {(g.level_raw - g.y_mean).abs().median():.3g} | "
            f"{(g.level_proj - g.y_mean).abs().median():.3g} | {g.lam.median():.3g} | "
            f"{(g.start_intercept - g.truth_intercept).abs().median():.3g} | "
            f"{g.intercept_err.median():.3g} | {g.intercept_std.median():.3g} | "
            f"{(g.intercept_err <= 1.96 * g.intercept_std).mean():.2f} | "
            f"{g.slope_err.median():.3g} |")
    lines += ["", "## 2. Median intercept error by configuration (the branch forced)", "",
              "`/lift`: `lift_intercept=True` in every solve (the ε = 0.1 branch everywhere); "
              "`/free`: `False` (the intercept never penalised).", ""]
    cfgs = list(CONFIGS)
    lines += ["| table | ε | " + " | ".join(cfgs) + " |", "|---|---|" + "---|" * len(cfgs)]
    piv = df.pivot_table(index=["table", "eps"], columns="config", values="intercept_err",
                         aggfunc="median", sort=False).sort_index()
    for (tb, e), r in piv.iterrows():
        lines.append(f"| {tb} | {e:g} | " + " | ".join(f"{r[c]:.3g}" for c in cfgs) + " |")
    lines += ["", "## 2b. Median error of the level (the fit's prediction at the records' mean "
              "x̄ against ȳ; on liver and wdbc the intercept is an extrapolation to x = 0 "
              "and its error is the slopes' error times |x̄|)", "",
              "| table | ε | " + " | ".join(cfgs) + " |", "|---|---|" + "---|" * len(cfgs)]
    piv = df.pivot_table(index=["table", "eps"], columns="config", values="level_err",
                         aggfunc="median", sort=False).sort_index()
    for (tb, e), r in piv.iterrows():
        lines.append(f"| {tb} | {e:g} | " + " | ".join(f"{r[c]:.3g}" for c in cfgs) + " |")
    # a PREVIEW of the proposed fix on the level alone (not a fit): the minimax linear estimator
    # of a Gaussian mean known to lie in [c_y - h_y, c_y + h_y], c_y + c (L̂ - c_y) with
    # c = h_y² / (h_y² + sd²) (Bickel 1981; Donoho, Liu, MacGibbon 1990), on the raw released
    # level of the default's joint release, against ȳ; beside the raw level and the default fit
    c = dd.h_y ** 2 / (dd.h_y ** 2 + dd.level_sd ** 2)
    pre = dd.assign(raw=(dd.level_raw - dd.y_mean).abs(),
                    mm=(dd.c_y + c * (dd.level_raw - dd.c_y) - dd.y_mean).abs(), c=c)
    lines += ["", "## 2c. PREVIEW of the proposed fix on the level alone (not a fit)", "",
              "The default's raw released level `L̂` shrunk towards the box centre by the "
              "minimax linear factor `c = h_y²/(h_y² + sd²)` (continuous in ε; `c = 1/2` where "
              "the shipped rule switches), against ȳ. Medians over the 12 seeds.", "",
              "| table | ε | c | raw level error | shrunk level error | default fit's level error |",
              "|---|---|---|---|---|---|"]
    for (tb, e), g in pre.groupby(["table", "eps"], sort=False):
        lines.append(f"| {tb} | {e:g} | {g.c.median():.3f} | {g.raw.median():.3g} | "
                     f"{g.mm.median():.3g} | {g.level_err.median():.3g} |")
    lines += ["", "## 3. Median slopes' error by configuration", "",
              "| table | ε | " + " | ".join(cfgs) + " |", "|---|---|" + "---|" * len(cfgs)]
    piv = df.pivot_table(index=["table", "eps"], columns="config", values="slope_err",
                         aggfunc="median", sort=False).sort_index()
    for (tb, e), r in piv.iterrows():
        lines.append(f"| {tb} | {e:g} | " + " | ".join(f"{r[c]:.3g}" for c in cfgs) + " |")
    MD.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    if "--report" in sys.argv:  # the markdown again from the committed csv
        import pandas as pd
        report(pd.read_csv(CSV).to_dict("records"))
    else:
        report(run())
