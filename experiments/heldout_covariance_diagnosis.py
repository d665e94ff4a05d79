"""Diagnosis of the held-out measurement (task HC, issue #24): why the defaults lose where they do.

A diagnosis, not a rule: nothing here changes a default or decides one. Two parts:

- ``--part fill``: per held-out table, how much of its public box the records fill (non-private
  facts of the clipped features, read for the diagnosis only): ``fill = tr(C) / Σ h_j²`` (C the
  ``1/n`` covariance, ``h`` the public half-widths) and the per-feature ``sd_j / h_j`` (median,
  max), and the top-2 eigenvalues' share of ``tr(C)``. CoinPress wins where the records fill a
  small part of the box (``docs/coinpress.md``, "When it wins").
- ``--part pca-adaptive``: one extra row, ``DPPCA(method="adaptive")`` (the existing opt-in;
  "Experimental, not recommended", not the default), on every PCA k = 2 cell with the same 30
  trial seeds as ``heldout_covariance.py --part pca``: would the existing private choice have
  avoided the default's losses? Paired against the default and CoinPress
  (``_paired_gate.cell_verdict``); its choices counted.

- ``--part power`` (declared here before it was run, after the 50/30-trial results): every cell
  that is *inconclusive* at 50 (covariance, correlation) or 30 (PCA) trials gets 100 more paired
  trials of the default and of the best other row named at the first run (no other row), on the
  next seeds of the same stream (``SeedSequence(20261129).generate_state(N)``, whose first 50/30
  are the first run's): the paired gate on all trials (150 or 130) is reported beside the first
  run's verdict. The first run's counts stay the primary result; this only says which way the
  undecided cells go.

Outputs ``results/heldout_covariance_fill.csv`` and ``results/heldout_pca_adaptive_trials.csv``;
the written diagnosis is ``results/heldout_covariance_diagnosis.md`` (its tables, below its
marker line, from ``--part render``; the text above the marker is kept). Commands::

    cd experiments && nice -n 5 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        PYTHONPATH=../src python heldout_covariance_diagnosis.py --part fill
    ... python heldout_covariance_diagnosis.py --part pca-adaptive --trials 30
    ... python heldout_covariance_diagnosis.py --part power
    ... python heldout_covariance_diagnosis.py --part render
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _utility_common as uc  # noqa: E402
import heldout_covariance as hc  # noqa: E402

ADAPTIVE = "matrixdp (adaptive, opt-in)"
#: Everything below this line of ``results/heldout_covariance_diagnosis.md`` is written by
#: ``--part render``; the written diagnosis above it is kept.
MARKER = "<!-- tables below: heldout_covariance_diagnosis.py --part render -->"


def fill_row(t: uc.Table) -> dict:
    C = np.cov(t.X.T, bias=True)
    h = 0.5 * (t.hi - t.lo)
    ratio = np.sqrt(np.maximum(np.diag(C), 0.0)) / h
    lam = np.sort(np.linalg.eigvalsh(C))[::-1]
    return {"table": t.name, "n": t.n, "d": t.d, "fill": float(np.trace(C) / (h @ h)),
            "sd_over_h_median": float(np.median(ratio)), "sd_over_h_max": float(ratio.max()),
            "sd_over_h_min": float(ratio.min()), "top2_share": float(lam[:2].sum() / lam.sum())}


def run_pca_adaptive(t: uc.Table, eps: float, seeds, k: int = 2) -> list[dict]:
    from matrixdp.models import DPPCA

    C = np.cov(t.X.T, bias=True)
    best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
    out = []
    for i, s in enumerate(seeds):
        t0 = time.perf_counter()
        est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                    method="adaptive", random_state=s).fit(t.X)
        q, _ = np.linalg.qr(np.asarray(est.components_, float).T)
        err = 1.0 - float(np.trace(q.T @ C @ q)) / best
        out.append(hc._row(t.name, f"pca k={k}", eps, ADAPTIVE, i, s, err,
                           time.perf_counter() - t0, hc._attrs(est)))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("fill", "pca-adaptive", "power", "render"), required=True)
    p.add_argument("--trials", type=int, default=30)
    p.add_argument("--seed", type=int, default=hc.SEED)
    p.add_argument("--tables", nargs="+", default=None)
    p.add_argument("--out", type=Path, default=hc.RESULTS)
    p.add_argument("--data-home", type=Path, default=None)
    args = p.parse_args(argv)
    from _check_tables_heldout import heldout_table, specs

    names = args.tables or list(specs())
    if args.part == "fill":
        rows = [dict(fill_row(heldout_table(n)), set="held-out") for n in names]
        # the benchmark's seven tables, for comparison (their bounds: `utility_bounds.md`)
        rows += [dict(fill_row(uc.load_table(n, args.data_home)), set="benchmark")
                 for n in uc.DATASETS]
        with open(args.out / "heldout_covariance_fill.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        for r in rows:
            print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()})
        return 0
    if args.part == "pca-adaptive":
        seeds = hc.trial_seeds(args.seed, args.trials)
        rows = []
        path = args.out / "heldout_pca_adaptive_trials.csv"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for n in names:
                t = heldout_table(n)
                for e in uc.EPSILONS:
                    t0 = time.perf_counter()
                    rows += run_pca_adaptive(t, e, seeds)
                    print(f"{n} ε={e:g}: {time.perf_counter() - t0:.1f} s", flush=True)
                with open(path, "w", newline="") as fh:
                    w = csv.DictWriter(fh, fieldnames=hc.TRIAL_FIELDS)
                    w.writeheader()
                    w.writerows(rows)
        return 0
    if args.part == "power":
        run_power(args.out, args.seed)
        return 0
    tables = "\n".join(render_lines(args.out) + power_lines(args.out))
    md = args.out / "heldout_covariance_diagnosis.md"
    head = md.read_text().split(MARKER)[0] if md.exists() else "# Diagnosis\n\n"
    md.write_text(head + MARKER + "\n\n" + tables + "\n")
    print(f"wrote {md}")
    return 0


NED_BINS = (0, 50, 200, 500, 1000, 5000, math.inf)
BENCH_CSV = {"pca k=2": ("utility_pca.csv", "captured-variance deficit, k=2", "matrixdp (auto)"),
             "covariance": ("utility_covariance.csv", "relative Frobenius error", hc.DEFAULT_COV),
             "correlation": ("utility_covariance.csv", "correlation relative Frobenius error",
                             hc.DEFAULT_COV)}


def regime_points(task: str, out: Path) -> list[tuple]:
    """``(set, table, ε, n·ε/d, coinpress median / default median)`` of every cell of ``task``,
    benchmark (its committed CSV) and held-out (this run's trials)."""
    fill = {r["table"]: r for r in uc.read_csv(out / "heldout_covariance_fill.csv")}
    fname, metric, default = BENCH_CSV[task]
    pts = []
    bench: dict = {}
    for r in uc.read_csv(out / fname):
        if r["metric"] == metric and r["status"] == "ok":
            bench.setdefault((r["dataset"], float(r["epsilon"])), {})[r["method"]] = float(r["median"])
    for (ds, e), c in bench.items():
        if default in c and "matrixdp (coinpress)" in c and ds in fill:
            f = fill[ds]
            pts.append(("benchmark", ds, e, int(f["n"]) * e / int(f["d"]),
                        c["matrixdp (coinpress)"] / c[default]))
    trials = out / ("heldout_pca_trials.csv" if task == "pca k=2" else "heldout_covariance_trials.csv")
    if trials.exists():
        for (tk, ds, e), c in hc.cells_of(hc.read_trials(trials)).items():
            if tk == task and ds in fill:
                f = fill[ds]
                pts.append(("held-out", ds, e, int(f["n"]) * e / int(f["d"]),
                            float(np.median(c["matrixdp (coinpress)"]) / np.median(c[hc.TASKS[task]]))))
    return pts


def regime_lines(task: str, out: Path) -> list[str]:
    pts = regime_points(task, out)
    lines = [f"### {task}: CoinPress against the default by n·ε/d (medians; both sets)", "",
             "| n·ε/d | benchmark cells | CoinPress lower | median CoinPress/default | held-out cells "
             "| CoinPress lower | median CoinPress/default |", "|---|---|---|---|---|---|---|"]
    for a, b in zip(NED_BINS, NED_BINS[1:]):
        row = [f"[{a:g}, {b:g})"]
        for s in ("benchmark", "held-out"):
            v = [p[4] for p in pts if p[0] == s and a <= p[3] < b]
            row += ([str(len(v)), str(sum(x < 1 for x in v)), f"{np.median(v):.3g}"] if v
                    else ["0", "—", "—"])
        lines.append("| " + " | ".join(row) + " |")
    return lines + [""]


def branch_lines(task: str, out: Path) -> list[str]:
    """Per cell of ``task`` that does not pass: the default's errors split by the branch it took,
    beside the CoinPress and moments (``matrixdp (auto)``) rows on the same trials, and the
    medians of the errors the choice predicted (``adaptive_predicted_``)."""
    path = out / "heldout_covariance_trials.csv"
    if not path.exists():
        return []
    trials = [r for r in hc.read_trials(path) if r["task"] == task]
    cells = hc.cells_of(trials)
    lines = [f"### {task}: the default's error by the branch it took (cells that do not pass)", "",
             "| table | ε | gate | best other | moments-branch trials: default / auto row / "
             "CoinPress row | coinpress-branch trials: default / auto row / CoinPress row | "
             "predicted moments, coinpress (median) |", "|---|---|---|---|---|---|---|"]
    for key, c in cells.items():
        s = hc.cell_summary(c, hc.DEFAULT_COV)
        if s["label"] == "pass":
            continue
        rs = sorted((r for r in trials if r["table"] == key[1] and float(r["epsilon"]) == key[2]
                     and r["method"] == hc.DEFAULT_COV), key=lambda r: int(r["trial"]))
        choice = np.array([r["choice"] for r in rs])
        parts = []
        for b in ("moments", "coinpress"):
            m = choice == b
            if m.any():
                parts.append(f"{m.sum()}: {uc.fmt(np.median(c[hc.DEFAULT_COV][m]))} / "
                             f"{uc.fmt(np.median(c['matrixdp (auto)'][m]))} / "
                             f"{uc.fmt(np.median(c['matrixdp (coinpress)'][m]))}")
            else:
                parts.append("0")
        pm = [float(r["pred_moments"]) for r in rs if r["pred_moments"]]
        pc = [float(r["pred_coinpress"]) for r in rs if r["pred_coinpress"]]
        pred = f"{np.median(pm):.3g}, {np.median(pc):.3g}" if pm and pc else "—"
        lines.append(f"| {key[1]} | {key[2]:g} | {s['label']} | {s['best_other']} | {parts[0]} | "
                     f"{parts[1]} | {pred} |")
    return lines + [""]


POWER_EXTRA = 100


def undecided_cells(out: Path) -> list[tuple]:
    """``(task, table, ε, best other row, first-run trials)`` of every inconclusive cell."""
    cells = []
    for name in ("heldout_covariance.csv", "heldout_pca.csv"):
        for r in uc.read_csv(out / name):
            if r["is_default"] == "True" and r["gate"] == "inconclusive":
                cells.append((r["task"], r["table"], float(r["epsilon"]), r["best_other"],
                              int(r["trials"])))
    return cells


def power_fit(task: str, method: str, t: uc.Table, eps: float):
    """``seed -> error`` of one row of one task, as ``heldout_covariance`` scores it."""
    from utility_covariance import correlation, correlation_fitter, covariance_fitter
    from utility_pca import pca_fitter

    C = np.cov(t.X.T, bias=True)
    if task == "pca k=2":
        fit = (hc.default_pca_fit(t, eps, 2) if method == hc.DEFAULT_PCA
               else pca_fitter(method, t, eps, 2))
        best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:2].sum())

        def score(s):
            V = fit(s)
            V = V[0] if isinstance(V, tuple) else V
            q, _ = np.linalg.qr(np.asarray(V, float).T)
            return 1.0 - float(np.trace(q.T @ C @ q)) / best
        return score
    if task == "covariance":
        fit = (hc.default_cov_fit(t, eps, "covariance") if method == hc.DEFAULT_COV
               else covariance_fitter(method, t, eps))
        ref, norm = C, np.linalg.norm(C)
    else:
        R = correlation(C)
        ref, norm = R, np.linalg.norm(R)
        if method == hc.DEFAULT_COV:
            fit = hc.default_cov_fit(t, eps, "correlation")
        else:
            cf = correlation_fitter(method, t, eps)
            if cf is None:
                cov = covariance_fitter(method, t, eps)

                def cf(s, cov=cov):
                    Ch = cov(s)
                    return correlation(Ch[0] if isinstance(Ch, tuple) else Ch)
            fit = cf

    def score(s):
        M = fit(s)
        M = M[0] if isinstance(M, tuple) else M
        return float(np.linalg.norm(M - ref) / norm)
    return score


def run_power(out: Path, seed: int) -> None:
    from _check_tables_heldout import heldout_table

    rows = []
    path = out / "heldout_power_trials.csv"
    tables = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for task, tb, e, other, n0 in undecided_cells(out):
            t = tables.setdefault(tb, heldout_table(tb))
            seeds = hc.trial_seeds(seed, n0 + POWER_EXTRA)[n0:]
            t0 = time.perf_counter()
            for m in (hc.TASKS[task], other):
                score = power_fit(task, m, t, e)
                for i, s in enumerate(seeds):
                    rows.append(hc._row(tb, task, e, m, n0 + i, s, score(s), 0.0))
            print(f"{task} {tb} ε={e:g}: {time.perf_counter() - t0:.1f} s", flush=True)
            with open(path, "w", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=hc.TRIAL_FIELDS)
                w.writeheader()
                w.writerows(rows)


def power_lines(out: Path) -> list[str]:
    path = out / "heldout_power_trials.csv"
    if not path.exists():
        return []
    extra = hc.cells_of(hc.read_trials(path))
    first = {}
    for name in ("heldout_covariance_trials.csv", "heldout_pca_trials.csv"):
        first.update(hc.cells_of(hc.read_trials(out / name)))
    lines = ["### The inconclusive cells with 100 more paired trials (`--part power`)", "",
             "| task | table | ε | best other (first run) | trials | HL ratio (99% upper) | "
             "paired gate | first run |", "|---|---|---|---|---|---|---|---|"]
    tally: dict = {}
    for task, tb, e, other, n0 in undecided_cells(out):
        key = (task, tb, e)
        if key not in extra:
            continue
        d = np.concatenate([first[key][hc.TASKS[task]], extra[key][hc.TASKS[task]]])
        o = np.concatenate([first[key][other], extra[key][other]])
        v = pg.cell_verdict(np.maximum(d, hc.FLOOR), np.maximum(o, hc.FLOOR))
        lab = pg.verdict_label(v)
        tally.setdefault(task, {}).setdefault(lab, 0)
        tally[task][lab] += 1
        lines.append(f"| {task} | {tb} | {e:g} | {other} | {d.size} | "
                     f"{v['pseudo_median_ratio']:.3g} ({v['upper']:.3g}) | {lab} | inconclusive |")
    lines += [""] + [f"- {task}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
                     for task, c in tally.items()] + [""]
    return lines


def render_lines(out: Path) -> list[str]:
    """Markdown tables for the diagnosis: the fill per table, and the adaptive PCA row."""
    lines = ["### Box fill per table (non-private, diagnosis only; `heldout_covariance_fill.csv`)",
             "", "| set | table | n | d | fill = tr(C)/Σh² | sd/h median | sd/h max | top-2 share of tr(C) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in uc.read_csv(out / "heldout_covariance_fill.csv"):
        lines.append(f"| {r['set']} | {r['table']} | {r['n']} | {r['d']} | {float(r['fill']):.3g} | "
                     f"{float(r['sd_over_h_median']):.3g} | {float(r['sd_over_h_max']):.3g} | "
                     f"{float(r['top2_share']):.3g} |")
    lines.append("")
    for task in ("covariance", "correlation"):
        lines += branch_lines(task, out)
    for task in ("covariance", "correlation", "pca k=2"):
        lines += regime_lines(task, out)
    ad_path = out / "heldout_pca_adaptive_trials.csv"
    if not ad_path.exists():
        return lines
    main = hc.cells_of(hc.read_trials(out / "heldout_pca_trials.csv"))
    ad_rows = hc.read_trials(ad_path)
    ad = hc.cells_of(ad_rows)
    lines += ["### PCA k = 2: the opt-in `DPPCA(method=\"adaptive\")` on the same seeds", "",
              "| table | ε | default | coinpress | adaptive | adaptive chose coinpress | "
              "adaptive vs default: HL (gate) | adaptive vs coinpress: HL (gate) |",
              "|---|---|---|---|---|---|---|---|"]
    n_better = n_worse = n_vs_cp_fail = 0
    for key in sorted(ad, key=lambda k: (list(dict.fromkeys(r["table"] for r in ad_rows)).index(k[1]), k[2])):
        a = ad[key][ADAPTIVE]
        dft = main[key][hc.DEFAULT_PCA]
        cp = main[key]["matrixdp (coinpress)"]
        v_d = pg.cell_verdict(np.maximum(a, hc.FLOOR), np.maximum(dft, hc.FLOOR))
        v_dr = pg.cell_verdict(np.maximum(dft, hc.FLOOR), np.maximum(a, hc.FLOOR))
        v_c = pg.cell_verdict(np.maximum(a, hc.FLOOR), np.maximum(cp, hc.FLOOR))
        n_worse += v_d["fail"]
        n_better += v_dr["fail"]
        n_vs_cp_fail += v_c["fail"]
        ch = [r["choice"] for r in ad_rows if r["table"] == key[1] and float(r["epsilon"]) == key[2]]
        lines.append(f"| {key[1]} | {key[2]:g} | {uc.fmt(np.median(dft))} | {uc.fmt(np.median(cp))} | "
                     f"{uc.fmt(np.median(a))} | {ch.count('coinpress')}/{len(ch)} | "
                     f"{v_d['pseudo_median_ratio']:.3g} ({pg.verdict_label(v_d)}) | "
                     f"{v_c['pseudo_median_ratio']:.3g} ({pg.verdict_label(v_c)}) |")
    # the brief's counts with the adaptive row in the default's place (the same five rows else)
    swapped = []
    for key, c in ad.items():
        cell = {m: v for m, v in main[key].items() if m != hc.DEFAULT_PCA}
        cell[ADAPTIVE] = c[ADAPTIVE]
        swapped.append(hc.cell_summary(cell, ADAPTIVE))
    kept = [hc.cell_summary(main[key], hc.DEFAULT_PCA) for key in ad]
    n_sw, n_df = hc.counts(swapped), hc.counts(kept)
    lines += ["", "Counts with the adaptive row in the default's place (against the other four rows, "
              "the same seeds) beside the default's: lowest median "
              f"{n_sw['lowest']} vs {n_df['lowest']} of {n_sw['cells']}; within 1.2× of the best "
              f"{n_sw['within']} vs {n_df['within']}; paired-gate FAIL vs the best other row "
              f"{n_sw['fail']} vs {n_df['fail']}; inconclusive {n_sw['inconclusive']} vs "
              f"{n_df['inconclusive']}."]
    lines += ["", f"Adaptive worse than 1.10× the default (paired gate FAIL): {n_worse} cells; the "
              f"default worse than 1.10× adaptive: {n_better} cells; adaptive worse than 1.10× "
              f"CoinPress: {n_vs_cp_fail} cells (of {len(ad)}).", ""]
    return lines


if __name__ == "__main__":
    sys.exit(main())
