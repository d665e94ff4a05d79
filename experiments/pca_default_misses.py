"""Diagnosis (issue #24, task PK): why ``DPPCA()``'s default misses the benchmark's PCA cells.

``DPPCA()`` resolves to the adaptive release (``method="adaptive"``, task PX). In
``results/utility_summary.md`` (8 trials) it is more than 1.1x the best row in the cells of
``CELLS`` below. For each of them, on the benchmark's own trial seeds (``SeedSequence(20261124)``,
as ``_utility_common.run_cell``; the first 8 are the benchmark's trials), this script runs side by
side, every row on the same seeds:

* ``default``: ``DPPCA(n_components=k, epsilon, delta, bounds)`` as a user gets it; per trial its
  ``adaptive_choice_``, the predictions of ``adaptive_predicted_`` and ``allocation_``;
* ``forced moments`` / ``forced coinpress``: the same fit with the last release forced to one
  branch (``adaptive_covariance(branch=...)`` through ``_utility_common.adaptive_options``): the
  first look, the counts and the predictions are the default's own draws on that seed, only the
  last release differs where the default chose the other branch;
* ``forced moments, pca first``: ``adaptive_first="pca"`` with the moments branch forced (the
  first look allocated for the PCA task, as the second release): what the lead's hypothesis says
  the moments branch loses to the covariance-allocated first look;
* ``moments``: ``DPPCA(method="moments")`` (one release at the whole budget, ``noise="auto"``, the
  PCA task's allocation);
* the benchmark's reference rows ``matrixdp (mvg)`` (the moments release, task-weighted MVG),
  ``matrixdp (coinpress)`` and ``iid, unit box`` (``utility_pca.pca_fitter``).

Metric: the captured-variance deficit of the top-k subspace (``utility_pca.py``). Per cell the
results give each row's median, the default's ratio to the best reference row, the choice count,
and the classification:

* **(a) branch choice**: the better forced branch (ratio of medians) is within 1.2x of the best
  reference row while the default is not (choosing that branch would close the miss);
* **(b) within the branch**: even the better forced branch is above 1.2x the best reference row
  (the miss is a cost inside the branch: first look, split budget, allocation, or the step);
* **closed**: the default itself is within 1.2x at these trial counts (the 8-trial miss was noise).

Non-private diagnostic (deficits against the true covariance, as the benchmark); every fit is an
ordinary (epsilon, delta)-DP fit. Nothing in the library is chosen from this run by itself.

Outputs: ``results/pca_default_misses.md``, ``results/pca_default_misses.csv`` (per cell and row)
and ``results/pca_default_misses_trials.csv`` (per trial; the run resumes from it per cell).

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_default_misses.py --trials 50
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
import _utility_common as uc  # noqa: E402

SEED = 20261124  # utility_pca.py's (uc.parse_args' default)
#: The missed cells of results/utility_summary.md (task PK's brief): (table, k, eps).
CELLS = (
    [("adult", 5, e) for e in (0.5, 1.0, 2.0, 5.0)]
    + [("synthetic", 5, e) for e in (0.1, 0.5, 1.0, 2.0, 5.0)]
    + [("lending_club", 5, 5.0), ("ctg", 5, 1.0), ("ctg", 5, 2.0)]
    + [("ctg", 2, e) for e in (0.5, 1.0, 2.0)]
    + [("movement_aal", 2, e) for e in (0.5, 1.0, 2.0, 5.0)]
    + [("adult", 2, 2.0), ("adult", 2, 5.0), ("lending_club", 2, 2.0), ("adult", 2, 0.1),
       ("wdbc", 2, 0.1)]
)
DEFAULT = "default"
FORCED = ("forced moments", "forced coinpress", "forced moments, pca first")
REFERENCE = ("moments", "matrixdp (mvg)", "matrixdp (coinpress)", "iid, unit box")
ROWS = (DEFAULT,) + FORCED + REFERENCE
WITHIN = 1.2
FLOOR = 1e-300
RESULTS = uc.REPO_ROOT / "results"
NAME = "pca_default_misses"
FIELDS = ["table", "k", "epsilon", "row", "trial", "seed", "deficit", "choice", "allocation",
          "pred_moments", "pred_coinpress", "statistic"]


def dppca_fit(t: uc.Table, eps: float, k: int, options: dict | None = None, **kw):
    """``seed -> (components, attrs)`` of ``DPPCA(**kw)``, inside ``adaptive_options(**options)``."""
    from matrixdp.models import DPPCA

    def fit(s):
        ctx = uc.adaptive_options(**options) if options else _null()
        with ctx:
            est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                        random_state=int(s), **uc.experimental_keywords(DPPCA, kw)).fit(t.X)
        pred = getattr(est, "adaptive_predicted_", None) or {}
        return est.components_, {"choice": getattr(est, "adaptive_choice_", ""),
                                 "allocation": getattr(est, "allocation_", ""),
                                 "pred_moments": pred.get("moments", ""),
                                 "pred_coinpress": pred.get("coinpress", ""),
                                 "statistic": pred.get("statistic", "")}
    return fit


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def fitter(row: str, t: uc.Table, eps: float, k: int):
    from utility_pca import pca_fitter

    if row == DEFAULT:
        return dppca_fit(t, eps, k)
    if row == "forced moments":
        return dppca_fit(t, eps, k, {"branch": "moments"})
    if row == "forced coinpress":
        return dppca_fit(t, eps, k, {"branch": "coinpress"})
    if row == "forced moments, pca first":
        return dppca_fit(t, eps, k, {"branch": "moments"}, method="adaptive",
                         adaptive_first="pca")
    if row == "moments":
        return dppca_fit(t, eps, k, method="moments")
    f = pca_fitter(row, t, eps, k)
    return lambda s: (f(s), {})


def run(trials: int, out: Path, cells=CELLS) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{NAME}_trials.csv"
    done = set()
    if path.exists():
        with path.open() as fh:
            for r in csv.DictReader(fh):
                done.add((r["table"], int(r["k"]), float(r["epsilon"])))
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(trials)]
    tables = {}
    new = not path.exists()
    with path.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for ds, k, eps in cells:
            if (ds, k, float(eps)) in done:
                continue
            t = tables.get(ds) or tables.setdefault(ds, uc.load_table(ds, None))
            C = np.cov(t.X.T, bias=True)
            best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
            rows = []
            t0 = time.perf_counter()
            for row in ROWS:
                fit = fitter(row, t, eps, k)
                for i, s in enumerate(seeds):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        V, attrs = fit(s)
                    q, _ = np.linalg.qr(np.asarray(V, float).T)
                    err = 1.0 - float(np.trace(q.T @ C @ q)) / best
                    rows.append({"table": ds, "k": k, "epsilon": eps, "row": row, "trial": i,
                                 "seed": s, "deficit": repr(err), **attrs})
            w.writerows(rows)  # one cell at a time: a killed run resumes at the next cell
            fh.flush()
            print(f"{ds} k={k} eps={eps:g}: {time.perf_counter() - t0:.1f} s", flush=True)
    return path


def load(path: Path) -> dict:
    cells = {}
    with path.open() as fh:
        for r in csv.DictReader(fh):
            key = (r["table"], int(r["k"]), float(r["epsilon"]))
            cells.setdefault(key, {}).setdefault(r["row"], []).append(r)
    return cells


def _vals(rs):
    return np.array([float(r["deficit"]) for r in sorted(rs, key=lambda r: int(r["trial"]))])


def analyse(path: Path, out: Path) -> Path:
    cells = load(path)
    summary, lines = [], []
    n_trials = None
    counts = {"a": 0, "b": 0, "closed": 0, "a+b": 0}
    for ds, k, eps in CELLS:
        rows = cells.get((ds, k, float(eps)))
        if not rows:
            continue
        v = {r: np.maximum(_vals(rows[r]), FLOOR) for r in ROWS}
        n_trials = len(v[DEFAULT])
        med = {r: float(np.median(x)) for r, x in v.items()}
        ref_best = min(REFERENCE, key=med.get)
        rb = med[ref_best]
        d = rows[DEFAULT]
        n_cp = sum(r["choice"] == "coinpress" for r in d)
        n_stat = sum(r["statistic"] == "counts" for r in d)
        alloc_mom = sorted({r["allocation"] for r in rows["forced moments"]})
        alloc_one = sorted({r["allocation"] for r in rows["moments"]})
        fm, fc = med["forced moments"], med["forced coinpress"]
        better = "moments" if fm <= fc else "coinpress"
        fb = min(fm, fc)
        per_trial_cp_better = int(np.sum(v["forced coinpress"] < v["forced moments"]))
        # the per-trial oracle branch (the better of the two forced releases on that seed)
        oracle = float(np.median(np.minimum(v["forced moments"], v["forced coinpress"])))
        dflt = med[DEFAULT] / rb
        if dflt <= WITHIN:
            cls = "closed"
        elif fb / rb <= WITHIN:
            cls = "a"
        elif med[DEFAULT] > 1.1 * fb:
            cls = "a+b"
        else:
            cls = "b"
        counts[cls] += 1
        verdict = pg.cell_verdict(v[DEFAULT], v[ref_best], ratio=1.0)
        summary.append({
            "table": ds, "k": k, "epsilon": eps, "trials": n_trials,
            **{f"median {r}": med[r] for r in ROWS},
            "best reference": ref_best, "default/best": dflt,
            "forced moments/best": fm / rb, "forced coinpress/best": fc / rb,
            "pca-first moments/best": med["forced moments, pca first"] / rb,
            "oracle branch/best": oracle / rb,
            "chose coinpress": n_cp, "counts released": n_stat,
            "coinpress better (per trial)": per_trial_cp_better,
            "better forced branch": better, "class": cls,
            "moments allocation (2nd release)": "/".join(alloc_mom),
            "moments allocation (one release)": "/".join(alloc_one),
            "paired p (default > best ref.)": verdict["p"],
            "pseudo-median default/best": verdict["pseudo_median_ratio"]})
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / f"{NAME}.csv"
    with csv_path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(summary[0]))
        w.writeheader()
        for s in summary:
            w.writerow({k: (f"{x:.4g}" if isinstance(x, float) else x) for k, x in s.items()})
    f = uc.fmt
    lines += [
        "# Why DPPCA()'s default misses benchmark PCA cells (issue #24, task PK, diagnosis)", "",
        f"Generated by `experiments/{NAME}.py --trials {n_trials}` (seed {SEED}: the benchmark's "
        "trial seeds, its 8 trials are the first 8 here). Every row on the same seeds; δ = 1e-6, "
        "replace-one, the benchmark's public bounds. Deficit: 1 − captured variance of the "
        "released top-k subspace / the non-private top-k variance. Ratios are ratios of medians "
        "to the best REFERENCE row (`moments`, `matrixdp (mvg)`, `matrixdp (coinpress)`, "
        "`iid, unit box`). Per-trial values: `results/pca_default_misses_trials.csv`.", "",
        "Classes (script docstring): **a** the better forced branch is within 1.2× of the best "
        "reference (branch choice); **b** even the better forced branch is above 1.2× (cost "
        "inside the branch); **a+b** both (the default > 1.1× its better forced branch, which "
        "is itself > 1.2×); **closed** the default is within 1.2× here.", "",
        "| table | k | ε | best ref. | default / best | chose cp | counts | forced moments | "
        "forced cp | cp better (trials) | pca-first moments | oracle branch | moments (one "
        "release) | mvg | class | alloc. 2nd / one |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        rb = min(s[f"median {r}"] for r in REFERENCE)
        lines.append(
            f"| {s['table']} | {s['k']} | {s['epsilon']:g} | {s['best reference']} "
            f"({f(rb)}) | **{s['default/best']:.3g}** | {s['chose coinpress']}/{s['trials']} | "
            f"{s['counts released']} | {s['forced moments/best']:.3g} | "
            f"{s['forced coinpress/best']:.3g} | {s['coinpress better (per trial)']} | "
            f"{s['pca-first moments/best']:.3g} | {s['oracle branch/best']:.3g} | "
            f"{s['median moments'] / rb:.3g} | {s['median matrixdp (mvg)'] / rb:.3g} | "
            f"{s['class']} | {s['moments allocation (2nd release)']} / "
            f"{s['moments allocation (one release)']} |")
    lines += ["", f"Counts: a {counts['a']}, b {counts['b']}, a+b {counts['a+b']}, closed "
              f"{counts['closed']} (of {len(summary)} cells).", ""]
    md = out / f"{NAME}.md"
    md.write_text("\n".join(lines) + "\n")
    return md


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--trials", type=int, default=50)
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--analyse", action="store_true", help="rewrite the .md/.csv from the trials")
    a = p.parse_args(argv)
    path = a.out / f"{NAME}_trials.csv"
    if not a.analyse:
        path = run(a.trials, a.out)
    print(f"wrote {analyse(path, a.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
