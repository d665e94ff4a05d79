"""Are the regression default's losses real? 100 paired trials per benchmark cell (task RP, issue 24).

Measurement only: no rule or default is decided by this run.

Rows, built by importing ``utility_regression.regression_fitter`` (the benchmark's own fitters, not
re-implemented): *default* = ``matrixdp (auto)`` (``DPLinearRegression()``), ``iid, unit box``,
``AdaSSP, unit box``, ``Boosted AdaSSP, unit box``, ``Boosted AdaSSP, τ = 𝒴`` and ``matrixdp (auto,
unprojected)`` (the default without the feasible-set projection). The 40 benchmark cells (8 tables
× ε ∈ {0.3, 1, 3, 10, 30}), the benchmark's fixed 70/30 split (seed 0), public bounds
(``uc.load_table``), δ = 1e-6, replace-one. Seeds: ``SeedSequence(20261124).generate_state(T)``
(the first 20 are the benchmark's), T = 100 unless ``--trials-of TABLE=T`` says fewer (stated in
the results file). Every row of a trial is fitted on that trial's seed. Metric: test RMSE of the
predictions clipped to the public target bounds (``utility_regression``'s metric).

Per cell: the medians; the paired gate (``_paired_gate.cell_verdict``) of the default against the
best other row (lowest T-trial median among the other rows run here): FAIL (pseudo-median ratio
significantly > 1.10 at α = 0.01), inconclusive (99 % upper bound > 1.20 without a fail), pass;
and the same test at ratio 1.00 (``wilcoxon_p(..., ratio=1.0) < 0.01``). The first-20 medians of
every row are compared with the committed 20-trial medians of ``results/utility_regression.csv``.

Diagnosis (every trial; read for the cells that fail): the default refitted on the same seed
(``DPLinearRegression(...)`` as the benchmark builds it; the refit's RMSE must equal the row's,
counted in ``match``) for its ``boost_branch_``, ``boost_rounds_``, ``boost_clips_`` (first and
last, over h_y) and the released residual scale's lower value (``boost_residual_scale_``, over h_y);
and three existing opt-in settings of the same estimator on the same seed (post-hoc diagnostics,
decide nothing): ``boost_rounds=2`` (the rounds unconditionally), ``boost_rounds="ls-fallback"``
(§4g) and ``boost_rounds="ls-signal"`` (§4h).

Command::

    cd experiments && MATRIXDP_DATA=/work/shared/datasets PYTHONPATH=../src python regression_default_power.py

Output: ``results/regression_default_power.{md,csv}`` (per cell) and
``results/regression_default_power_trials.csv`` (per trial). ``--analyse`` rewrites the .md and the
per-cell .csv from the committed per-trial CSV.

Diagnostic only: it reads the private records (the test split) and decides nothing.
"""

from __future__ import annotations

import csv
import math
import re
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _utility_common as uc  # noqa: E402
import utility_regression as ur  # noqa: E402
from covariance_default_power import (_cell_text, _vals, bench_medians, cell_plan,  # noqa: E402
                                      cell_parser, command_prefix, g, group)

NAME = "regression_default_power"
SEED = 20261124
TRIALS = 100
BENCH_TRIALS = 20
EPSILONS = ur.EPSILONS
#: short key -> the benchmark's row name
METHOD = {"default": "matrixdp (auto)", "iid_unit": "iid, unit box",
          "adassp_unit": "AdaSSP, unit box", "boosted_unit": "Boosted AdaSSP, unit box",
          "boosted_tau_y": "Boosted AdaSSP, τ = 𝒴", "unprojected": "matrixdp (auto, unprojected)"}
ROWS = tuple(METHOD)
OTHERS = ROWS[1:]
#: diagnostic refits of the default estimator on the same seed: key -> DPLinearRegression kwargs
VARIANTS = {"forced_rounds": {"boost_rounds": 2}, "ls_fallback": {"boost_rounds": "ls-fallback"},
            "ls_signal": {"boost_rounds": "ls-signal"}}
TRIAL_FIELDS = ("dataset", "epsilon", "n", "d", "trial", "seed", *ROWS, "branch", "rounds",
                "clip_first", "clip_last", "resid_lower", *VARIANTS, "match")
READING = """\
- **How the run was made.** Two processes split by table, concatenated into the committed
  per-trial CSV (every trial on its own seed, so the same as one process): `cd experiments &&
  MATRIXDP_DATA=/work/shared/datasets PYTHONPATH=../src python regression_default_power.py
  --datasets adult wdbc ctg lending_club --name regression_default_power_partA` and the same with
  `--datasets liver movement_aal synthetic holdout_synthetic --name regression_default_power_partB`,
  then `--analyse --merge-from regression_default_power_partA regression_default_power_partB`;
  this file and the per-cell CSV are `--analyse` of the committed per-trial CSV (byte-identical to
  the merged ones). 100 trials on every table: the time probe projected ~15 min on two processes.
- **Of the 15 cells the 20-trial summary calls significantly worse, 4 are real beyond 1.10×, all
  on wdbc:** ε = 1, 3, 10 against `Boosted AdaSSP, τ = 𝒴` (HL 1.25, 1.37, 1.22; the default is
  below that row on 13, 3, 4 of 100 seeds) and ε = 30 against `Boosted AdaSSP, unit box` (HL 1.14;
  below it on 0 of 100). The other 11 pass. Five of them are ties at HL 1.000–1.004 (adult
  ε = 0.3, lending_club ε = 10, 30, synthetic ε = 3, holdout_synthetic ε = 10 against `iid, unit
  box`), significant at ratio 1.00 only because 100 paired trials resolve a 0.1–0.4% difference;
  wdbc ε = 0.3 (HL 1.055 vs `iid, unit box`) and ctg ε = 0.3, 1, 10, 30 (HL 1.04–1.08 vs the
  Boosted rows) are small real losses (p(1.00) ≤ 1e-5) below the gate's 1.10; ctg ε = 3 (1.08× at
  20 trials) was noise: 0.997× by medians, HL 1.006, p(1.00) 0.32. New at ratio 1.00 only:
  movement_aal ε = 30 (HL 1.000, p 0.0095). No cell is inconclusive (99 % upper bounds ≤ 1.43,
  > 1.20 only in the failing cells). The default has the lowest median of the six rows in 12 of 40
  cells and is within 1.2× of the best other row in 37 (outside: wdbc ε = 1, 3, 10), as at 20.
- **Why wdbc fails (398 training rows, 30 features, a 0/1 target: test RMSE of OLS 0.245,
  of predicting the training mean 0.481).** The default's §4e decision reads the released residual scale's lower
  value at 0.41–0.62 h_y (medians on those fits; > τ₀ = h_y/4) and falls back to the second joint release on 55, 99,
  93, 64 of 100 fits at ε = 1, 3, 10, 30: the single release's law, whose adaptive ridge shrinks a
  30-feature fit on 398 rows hard (median 0.46 at ε = 1, near the mean's 0.481); on the other
  fits (release noise-dominated, lower value 0) it runs 2 rounds clipped at h_y/4, which do not
  remove that shrinkage either (HL 1.07–1.31 vs the best on those fits). The winning row runs
  AdaSSP's Gram once, then 100 rounds at τ = 𝒴 = h_y (every residual of a 0/1 target within the
  clip wherever the fit predicts inside [0, 1]): many unclipped steps through a fixed solve converge towards
  least squares whatever the Gram noise and the ridge. The post-hoc probe
  (`results/regression_default_power_probe.md`, the same seeds, existing options of the same
  estimator, decides nothing) says which part matters on matrixdp's own release: more rounds at a
  wider clip. `boost_rounds=10, boost_clip=h_y` is 0.75×, 0.77×, 0.86× the default at ε = 3, 10,
  30 and passes the gate against the best row there (HL 1.04, 0.93, 0.98); `boost_rounds=100` at
  h_y/4 does about the same (1.04, 0.94, 0.97); 100 rounds at h_y are worse than the default
  (1.04–1.36×: the rounds' noise ∝ τ√T), and 2 rounds at h_y pass only at ε ≥ 10. At ε = 1 no
  variant passes (best: 100 rounds at h_y/4 and 10 at h_y, HL 1.13 and 1.14 vs the best, both
  inconclusive) and at ε = 0.3 every
  variant with more rounds or a wider clip loses (1.11–1.36× the default). The opt-ins in the per-trial file agree:
  `ls-fallback`/`ls-signal` (3 rounds at h_y in the fallback branch) pass at ε = 10, 30 (HL 0.99,
  1.03) and cut ε = 3 to 1.16 (still FAIL) and ε = 1 to 1.22 (FAIL); `boost_rounds=2` (no
  decision) fails at ε = 1, 3, 10.
- **A candidate for a future pre-registered gate (not implemented; public facts only).** The gap
  is the shrinkage the rounds would remove against the noise they add, and both are readable
  from the joint release: the adaptive ridge's lift and `β₀` give the bias the rounds contract
  (the factor `(I − M⁻¹A)^T` of §4c after T steps, `A` estimated by the release's `M₀`;
  §4f's missing bias estimate, as §4h's post hoc reading says), and each round's noise at
  a clip τ is the public `σ_r² (τ/τ₀)² tr(W M⁻¹ W)/n` of §4i/§4j. A rule "in §4e's fallback
  branch, run T ∈ {3, 10} rounds at τ = min(h_y, τ_cap) iff the predicted removed squared bias
  exceeds the predicted added noise" would have opened on wdbc ε ≥ 3 (where 10 rounds at h_y
  pass) and must stay shut on small low-signal 0/1 tables (§4g's and §4h's checks failed on lbw,
  burn, FriendFoe: three LS rounds fit noise there). This is the fourth attempt at the wdbc gap
  (§4f, §4g, §4h failed); its T and threshold would be chosen on seen tables, so it needs the rule
  written and committed before a check on never-seen tables, and wdbc ε = 1 may stay out of reach
  (no probed variant passes there). The ctg losses (HL 1.04–1.08) point the same way: in the
  fallback branch, `ls-fallback` is 0.97× the best row at ε = 10, 30.
- Limits: "best other row" and "lowest median" are among the six rows run here (the benchmark's
  other rows never beat these in the 20-trial summary's significantly-worse cells); the gate is
  per cell, not family-wise (40 tests at α = 0.01: ~0.4 false FAILs expected under a 1.10× null;
  the four wdbc FAILs have p ≤ 2e-7). The probe was chosen after this table was read."""


def _fit_default(t, eps, Xtr, ytr, seed, **kw):
    from matrixdp.models import DPLinearRegression

    return DPLinearRegression(epsilon=eps, delta=uc.DELTA, bounds_X=(t.lo, t.hi),
                              bounds_y=(t.y_lo, t.y_hi),
                              random_state=seed, **uc.experimental_keywords(DPLinearRegression, kw)).fit(Xtr, ytr)


def run(args):
    trials_of = {k: int(v) for k, v in (kv.split("=") for kv in args.trials_of)}
    out = []
    for ds, epsilons in cell_plan(args):
        t = uc.load_table(ds, args.data_home)
        Xtr, ytr, Xte, yte = ur.split(t)
        hy = 0.5 * (t.y_hi - t.y_lo)
        T = trials_of.get(ds, args.trials)
        seeds = [int(s) for s in np.random.SeedSequence(args.seed).generate_state(T)]
        for eps in epsilons:
            t0 = time.perf_counter()
            fits = {k: ur.regression_fitter(METHOD[k], t, eps, Xtr, ytr, Xte) for k in ROWS}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for i, s in enumerate(seeds):
                    row = {"dataset": ds, "epsilon": eps, "n": t.n, "d": t.d, "trial": i, "seed": s}
                    for k in ROWS:
                        pred = np.asarray(fits[k](s), float).ravel()
                        row[k] = ur.test_metrics(t, yte, pred)[0]
                    m = _fit_default(t, eps, Xtr, ytr, s)
                    row["match"] = int(ur.test_metrics(t, yte, m.predict(Xte))[0] == row["default"])
                    row["branch"] = str(m.boost_branch_)
                    row["rounds"] = int(m.boost_rounds_)
                    clips = m.boost_clips_ or ()
                    row["clip_first"] = float(clips[0]) / hy if clips else math.nan
                    row["clip_last"] = float(clips[-1]) / hy if clips else math.nan
                    rs = m.boost_residual_scale_
                    row["resid_lower"] = (float(rs["lower"]) / hy if rs is not None
                                          else math.nan)
                    for k, kw in VARIANTS.items():
                        v = _fit_default(t, eps, Xtr, ytr, s, **kw)
                        row[k] = ur.test_metrics(t, yte, v.predict(Xte))[0]
                    out.append(row)
            print(f"  {ds} ε = {eps:g}: {T} trials, {time.perf_counter() - t0:.1f} s", flush=True)
    return out


def analyse_cell(trials, rows=ROWS):
    """Per-cell statistics of the default against the best other row (lowest median)."""
    rows = tuple(k for k in rows if k in trials[0])
    others = tuple(k for k in rows if k != "default")
    v = {k: _vals(trials, k) for k in rows}
    med = {k: float(np.median(v[k])) for k in rows}
    best = min(others, key=lambda k: med[k])
    vd = pg.cell_verdict(v["default"], v[best])
    a = {"T": len(trials), **{f"median_{k}": med[k] for k in rows}, "best_other": best,
         "ratio_of_medians": vd["ratio_of_medians"], "pseudo_median_ratio": vd["pseudo_median_ratio"],
         "upper": vd["upper"], "p_1.10": vd["p"], "fail": bool(vd["fail"]),
         "inconclusive": bool(vd["inconclusive"]),
         "p_1.00": pg.wilcoxon_p(v["default"], v[best], ratio=1.0), "verdict": pg.verdict_label(vd)}
    a["worse_1.00"] = a["p_1.00"] < pg.ALPHA
    a["lowest"] = min(rows, key=lambda k: med[k])
    a["within_1.2"] = a["ratio_of_medians"] <= 1.2
    k20 = min(BENCH_TRIALS, len(trials))
    m20 = {k: float(np.median(v[k][:k20])) for k in rows}
    b20 = min(others, key=lambda k: m20[k])
    a.update({f"median20_{k}": m20[k] for k in rows})
    a["best_other20"] = b20
    a["ratio20"] = m20["default"] / m20[b20]
    a["lowest20"] = min(rows, key=lambda k: m20[k])
    a["match"] = int(sum(int(float(r.get("match", 1))) for r in trials))
    return a


def diagnose_cell(trials):
    """The default's branch and clip per trial, and the opt-in refits against the best row."""
    a = analyse_cell(trials)
    best = a["best_other"]
    v = {k: _vals(trials, k) for k in ("default", best, *VARIANTS, "rounds", "clip_first",
                                       "clip_last", "resid_lower")}
    br = np.array([r["branch"] for r in trials])
    out = {"best_other": best, "branches": {b: int(np.sum(br == b)) for b in sorted(set(br))}}
    for b in out["branches"]:
        m = br == b
        out[f"{b}:default"] = float(np.median(v["default"][m]))
        out[f"{b}:best"] = float(np.median(v[best][m]))
        out[f"{b}:pm_vs_best"] = pg.pseudo_median_ratio(v["default"][m], v[best][m])
        out[f"{b}:resid_lower"] = float(np.nanmedian(v["resid_lower"][m])) \
            if np.any(np.isfinite(v["resid_lower"][m])) else math.nan
    fin = np.isfinite(v["clip_first"])
    out["clip_first"] = float(np.median(v["clip_first"][fin])) if fin.any() else math.nan
    out["clip_last"] = float(np.median(v["clip_last"][fin])) if fin.any() else math.nan
    out["rounds"] = float(np.median(v["rounds"]))
    for k in VARIANTS:
        vd = pg.cell_verdict(v[k], v[best])
        out[f"{k}:median"] = float(np.median(v[k]))
        out[f"{k}:pm_vs_best"] = vd["pseudo_median_ratio"]
        out[f"{k}:verdict"] = pg.verdict_label(vd)
        out[f"{k}:pm_vs_default"] = pg.pseudo_median_ratio(v[k], v["default"])
    return out


def summary_worse(path):
    """``{(dataset, ε): (best row, ratio)}``: the 20-trial "Significantly worse" cells of the
    regression section of ``results/utility_summary.md`` (α = 0.05)."""
    out = {}
    if not Path(path).exists():
        return out
    text = Path(path).read_text()
    sec = text.split("## regression, test RMSE", 1)[-1].split("\n## ", 1)[0]
    line = next((ln for ln in sec.splitlines() if ln.startswith("Significantly worse:")), "")
    for ds, e, best, r in re.findall(r"(\w+) ε = ([\d.]+) \(([^)]*)\): p = [^,]+, \d+ pairs, "
                                      r"median ratio (\d+(?:\.\d+)?)", line):
        out[(ds, float(e))] = (best, float(r))
    return out



CELL_FIELDS = ("dataset", "epsilon", "n", "d", "T", *(f"median_{k}" for k in ROWS), "best_other",
               "ratio_of_medians", "pseudo_median_ratio", "upper", "p_1.10", "verdict", "p_1.00",
               "worse_1.00", "lowest", "within_1.2", "median20_default", "best_other20", "ratio20",
               "lowest20", "match", "reproduced20", "reproduced20_rows", "worse20", "best20_bench")



def write(trial_rows, out: Path, cmd: str, write_trials=True, name: str = NAME, note: str = "",
          bench_dir: Path | None = None):
    out = Path(out)
    bench_dir = out if bench_dir is None else Path(bench_dir)
    if write_trials:
        with open(out / f"{name}_trials.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(TRIAL_FIELDS))
            w.writeheader()
            for r in trial_rows:
                w.writerow({k: _cell_text(r[k]) for k in TRIAL_FIELDS})
    bench = bench_medians(bench_dir / "utility_regression.csv", metric="test RMSE")
    worse20 = summary_worse(bench_dir / "utility_summary.md")
    cells = []
    for (ds, eps), tr in group(trial_rows).items():
        a = analyse_cell(tr)
        rep = [abs(a[f"median20_{k}"] - bench.get((ds, eps, METHOD[k]), math.nan))
               <= 1e-12 * max(1.0, a[f"median20_{k}"]) for k in ROWS] if a["T"] >= BENCH_TRIALS else []
        a["reproduced20"] = int(len(rep) == len(ROWS) and all(rep))
        a["reproduced20_rows"] = int(sum(rep))
        w20 = worse20.get((ds, eps))
        a["worse20"] = int(w20 is not None)
        a["best20_bench"] = "" if w20 is None else f"{w20[0]} ({w20[1]:g})"
        cells.append({"dataset": ds, "epsilon": eps, "n": tr[0]["n"], "d": tr[0]["d"], **a,
                      "diag": diagnose_cell(tr)})
    with open(out / f"{name}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(CELL_FIELDS))
        w.writeheader()
        for c in cells:
            w.writerow({k: _cell_text(c[k]) for k in CELL_FIELDS})
    (out / f"{name}.md").write_text(report(cells, cmd, note=note))
    return cells


def report(cells, cmd, note=""):
    n = len(cells)
    fails = [c for c in cells if c["fail"]]
    inconc = [c for c in cells if c["inconclusive"]]
    worse1 = [c for c in cells if c["worse_1.00"]]
    w20 = [c for c in cells if c["worse20"]]
    low = sum(c["lowest"] == "default" for c in cells)
    low20 = sum(c["lowest20"] == "default" for c in cells)
    within = sum(c["within_1.2"] for c in cells)
    within20 = sum(c["ratio20"] <= 1.2 for c in cells)
    rep = sum(c["reproduced20"] for c in cells)
    rep_rows = sum(c["reproduced20_rows"] for c in cells)
    match = sum(c["match"] for c in cells)
    total = sum(c["T"] for c in cells)
    tstr = ", ".join(dict.fromkeys(f"{c['dataset']} {c['T']}" for c in cells))

    def names(cs):
        return "; ".join(f"{c['dataset']} ε = {c['epsilon']:g}" for c in cs)

    L = ["# Task RP: are the regression default's losses real? (issue 24; measurement only)", "",
         f"Generated by `experiments/regression_default_power.py`; command: `{cmd}`. "
         "δ = 1e-06; replace-one; the benchmark's public bounds (`uc.load_table`) and fixed 70/30 "
         f"split (`utility_regression.split`, seed 0); seeds `SeedSequence({SEED}).generate_state(T)` "
         f"(the first {BENCH_TRIALS} are the benchmark's), T = {tstr}; every row of a trial is "
         "fitted on the trial's seed by `utility_regression.regression_fitter`. Metric: test RMSE "
         "(predictions clipped to the public target bounds). Rows: default = `matrixdp (auto)` "
         "(`DPLinearRegression()`); " + ", ".join(f"{k} = `{METHOD[k]}`" for k in OTHERS) + ". "
         "Gate: `_paired_gate.cell_verdict(default, best other row)` (`docs/decision_rules.md`, "
         "\"The paired gate\"; best other = lowest T-trial median among the other rows run here, "
         "not the benchmark's full row set): FAIL iff the one-sided Wilcoxon test of "
         "pseudo-median(log default/best) ≤ log 1.10 rejects at α = 0.01; inconclusive = 99 % "
         "upper bound > 1.20 without a fail; per cell, not family-wise. Measurement only: no rule "
         "is decided by this run.", "",
         "## Outcome", "",
         f"- Significantly worse than 1.10 × the best other row (gate FAIL): **{len(fails)} of {n}**"
         + (f" ({names(fails)})" if fails else "") + f"; inconclusive: {len(inconc)}"
         + (f" ({names(inconc)})" if inconc else "") + "; significantly worse at all "
         f"(ratio 1.00, α = 0.01): {len(worse1)}" + (f" ({names(worse1)})" if worse1 else "") + ".",
         f"- Default has the lowest median of the {len(ROWS)} rows: **{low} of {n}** at T trials "
         f"({low20} on the first {BENCH_TRIALS}); within 1.2× of the best other row's median: "
         f"**{within} of {n}** ({within20} on the first {BENCH_TRIALS}).",
         f"- Reproduction: the first-{BENCH_TRIALS} medians of all {len(ROWS)} rows equal the "
         f"committed {BENCH_TRIALS}-trial medians of `results/utility_regression.csv` in {rep} of "
         f"{n} cells ({rep_rows} of {len(ROWS) * n} cell-rows).",
         f"- The default refitted for its diagnostics reproduces the row's RMSE in {match} of "
         f"{total} trials.",
         f"- The {len(w20)} cells `results/utility_summary.md` calls significantly worse (20 "
         "trials, α = 0.05, against the best of all its rows): "
         + "; ".join(f"{c['dataset']} ε = {c['epsilon']:g} [{c['best20_bench']}] → "
                     f"{c['verdict']} (HL {c['pseudo_median_ratio']:.3f}, p(1.00) "
                     f"{c['p_1.00']:.2g})" for c in w20) + ".", "",
         "## Cells", "",
         "| table | n × d | ε | T | " + " | ".join(ROWS) + " | best other | default/best "
         "(medians) | HL ratio | 99% upper | p (1.10) | verdict | p (1.00) | default/best, first "
         f"{BENCH_TRIALS} | 20-trial summary |",
         "|---|---|---|---|" + "---|" * len(ROWS) + "---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        L.append(f"| {c['dataset']} | {c['n']} × {c['d']} | {c['epsilon']:g} | {c['T']} | "
                 + " | ".join(g(c[f'median_{k}']) for k in ROWS)
                 + f" | {c['best_other']} | {c['ratio_of_medians']:.3f} | "
                 f"{c['pseudo_median_ratio']:.3f} | {c['upper']:.3f} | {c['p_1.10']:.2g} | "
                 f"{c['verdict']} | {c['p_1.00']:.2g} | {c['ratio20']:.3f} ({c['best_other20']}) | "
                 f"{('worse: ' + c['best20_bench']) if c['worse20'] else '—'} |")
    diag = [c for c in cells if c["fail"] or c["inconclusive"] or c["worse_1.00"]]
    L += ["", "## Diagnosis (every cell that fails the gate, is inconclusive or is significantly "
          "worse at 1.00)", "",
          "The default refitted on the same seed: its branch (`boost_branch_`) per trial, the "
          "median default and best-row RMSE and their HL ratio on those trials, the released "
          "residual scale's lower value (`boost_residual_scale_['lower']`, over h_y: the §4e "
          "decision runs the rounds iff it is ≤ 1/4). Clips `boost_clips_` (first, last) over h_y, "
          "median over the fits with rounds. Opt-in refits of the same estimator on the same seed "
          "(post-hoc, decide nothing): `rounds` = `boost_rounds=2`, `ls-fallback` (§4g), "
          "`ls-signal` (§4h); HL ratio against the best row (verdict of the same gate).", "",
          "| cell | best | branch: fits, default, best, HL, residual lower/h_y | clip first/last "
          "(h_y) | rounds: median, HL vs best (verdict) | ls-fallback | ls-signal |",
          "|---|---|---|---|---|---|---|"]
    for c in diag:
        d = c["diag"]
        br = "; ".join(f"{b}: {k}, {g(d[f'{b}:default'])}, {g(d[f'{b}:best'])}, "
                       f"{d[f'{b}:pm_vs_best']:.3f}, {g(d[f'{b}:resid_lower'])}"
                       for b, k in d["branches"].items())
        var = [f"{g(d[f'{k}:median'])}, {d[f'{k}:pm_vs_best']:.3f} ({d[f'{k}:verdict']})"
               for k in VARIANTS]
        L.append(f"| {c['dataset']} ε = {c['epsilon']:g} | {d['best_other']} | {br} | "
                 f"{g(d['clip_first'])} / {g(d['clip_last'])} | " + " | ".join(var) + " |")
    L += ["", "## Reading (written after the run; post-hoc, no rule decided)", "", note, ""]
    return "\n".join(L) + "\n"


#: Post-hoc probe of the FAIL cells (``--probe``): the default estimator with ``T`` rounds at the
#: public clip ``τ`` (a float, in units of h_y), ``boost_rounds=T, boost_clip=τ·h_y``; existing
#: options, same seeds; decides nothing.
PROBE = (("T = 2, τ = h_y/4", 2, 0.25), ("T = 2, τ = h_y", 2, 1.0), ("T = 10, τ = h_y", 10, 1.0),
         ("T = 30, τ = h_y", 30, 1.0), ("T = 100, τ = h_y", 100, 1.0),
         ("T = 100, τ = h_y/4", 100, 0.25))


def probe(trial_rows, table, out: Path, cmd: str, data_home=None, name: str = NAME):
    """Refit the default estimator with more rounds / a wider clip on one table's cells, on the
    seeds of ``trial_rows``; the best other row per cell and its per-trial values come from the
    per-trial rows (same seeds). Writes ``{name}_probe.{csv,md}``."""
    t = uc.load_table(table, data_home)
    Xtr, ytr, Xte, yte = ur.split(t)
    hy = 0.5 * (t.y_hi - t.y_lo)
    res, lines = [], []
    for (ds, eps), tr in group(trial_rows).items():
        if ds != table:
            continue
        a = analyse_cell(tr)
        best = a["best_other"]
        ref = _vals(tr, best)
        dflt = _vals(tr, "default")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for label, T, c in PROBE:
                v = np.array([ur.test_metrics(t, yte, _fit_default(
                    t, eps, Xtr, ytr, int(r["seed"]), boost_rounds=T,
                    boost_clip=c * hy).predict(Xte))[0] for r in tr])
                vd = pg.cell_verdict(v, ref)
                res.append({"dataset": ds, "epsilon": eps, "T": len(tr), "variant": label,
                            "rounds": T, "clip_over_hy": c, "median": float(np.median(v)),
                            "best_other": best, "median_best": float(np.median(ref)),
                            "hl_vs_best": vd["pseudo_median_ratio"], "upper": vd["upper"],
                            "verdict": pg.verdict_label(vd),
                            "hl_vs_default": pg.pseudo_median_ratio(v, dflt),
                            "median_default": float(np.median(dflt))})
        print(f"  probe {ds} ε = {eps:g} done", flush=True)
    fields = list(res[0])
    with open(out / f"{name}_probe.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for r in res:
            w.writerow({k: _cell_text(r[k]) for k in fields})
    lines = [f"# Task RP, post-hoc probe on {table}: more rounds and a wider clip (decides nothing)",
             "", f"Generated by `experiments/regression_default_power.py`; command: `{cmd}`. Run "
             "AFTER `results/regression_default_power.md` was read (its FAIL cells are this "
             "table's); a diagnosis, not a rule. Same split, bounds, (ε, δ = 1e-6), replace-one and "
             "the same 100 seeds as that file; each variant is `DPLinearRegression(boost_rounds=T, "
             "boost_clip=τ)` (existing options: T rounds after the joint release at 70 % of μ*², "
             "each at μ*√(0.3/T), residuals clipped at the public τ; no §4e decision), compared "
             "with the cell's best other row of that file on the same seeds by the paired gate "
             "(HL ratio, 99 % upper bound, verdict) and with the default (HL).", "",
             "| ε | default | best other (median) | variant | median | HL vs best | 99% upper | "
             "verdict | HL vs default |", "|---|---|---|---|---|---|---|---|---|"]
    for r in res:
        lines.append(f"| {r['epsilon']:g} | {g(r['median_default'])} | {r['best_other']} "
                     f"({g(r['median_best'])}) | {r['variant']} | {g(r['median'])} | "
                     f"{r['hl_vs_best']:.3f} | {r['upper']:.3f} | {r['verdict']} | "
                     f"{r['hl_vs_default']:.3f} |")
    (out / f"{name}_probe.md").write_text("\n".join(lines) + "\n")
    return res


def main(argv=None):
    p = cell_parser(__doc__, name=NAME, epsilons=EPSILONS, trials=TRIALS, seed=SEED)
    p.add_argument("--merge-from", nargs="*", default=[],
                   help="with --analyse: per-trial CSV stems (under --out) to concatenate, e.g. the "
                        "parts of a run split by --datasets; written under --name")
    p.add_argument("--probe", default=None, metavar="TABLE",
                   help="post-hoc: refit the default with more rounds / a wider clip on TABLE's "
                        "cells of the committed per-trial CSV (writes {name}_probe.{md,csv})")
    p.add_argument("--bench-dir", default=None,
                   help="where utility_regression.csv / utility_summary.md are (default: --out)")
    args = p.parse_args(argv)
    if args.seed != SEED:
        raise SystemExit("--seed other than the benchmark's is not supported by this report")
    out = Path(args.out)
    cmd = (command_prefix("regression_default_power.py", args, TRIALS)
           + (" --datasets " + " ".join(args.datasets)
              if not args.cells and list(args.datasets) != list(uc.DATASETS) else "")
           + (f" --name {args.name}" if args.name != NAME else "")
           + (" --analyse" if args.analyse else "")
           + (f" --probe {args.probe}" if args.probe else "")
           + (" --merge-from " + " ".join(args.merge_from) if args.merge_from else ""))
    if args.probe:
        with open(out / f"{args.name}_trials.csv") as fh:
            rows = list(csv.DictReader(fh))
        probe(rows, args.probe, out, cmd, args.data_home, args.name)
        return 0
    if args.merge_from and not args.analyse:
        raise SystemExit("--merge-from needs --analyse")
    if args.analyse:
        rows = []
        for stem in args.merge_from or [args.name]:
            with open(out / f"{stem}_trials.csv") as fh:
                rows += list(csv.DictReader(fh))
    else:
        from matrixdp.models import boosting

        # the default as it was when this file was written (§4e alone; task RW made "auto"
        # §4e + §4k's bias gate): the committed rows reproduce
        with uc.pinned_constants(boosting, BOOST_AUTO_RULE="auto"):
            rows = run(args)
    write(rows, out, cmd, write_trials=not args.analyse or bool(args.merge_from), name=args.name,
          note=READING, bench_dir=args.bench_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
