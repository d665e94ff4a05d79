"""Issue #24 (PCA), the deciding check: should ``DPPCA(noise="unit-box")`` replace the default?

Pre-registered rule (written and committed before the deciding run, ``--part check``; not to be
changed after seeing its result):

* Candidate: ``DPPCA(noise="unit-box")`` (i.i.d. Gaussian noise on the records rescaled to the
  public unit box, the default projection) in place of today's default ``noise="auto"``.
* Cells: the six never-seen tables of ``_check_tables_pca.py`` (bfi, uis, loomis, BudgetUK, fgl,
  BudgetItaly; bounds from their documentation, committed before any run), k ∈ {2, 5} with
  k < d, ε ∈ {0.1, 0.5, 1, 2, 5}, δ = 1e-6, replace-one with n public, 30 trials per cell
  (seed 20261124; the same seeds for every method of a cell).
* Metric: the captured-variance deficit of the top-k subspace in the original units (as
  ``utility_pca.py``); per cell the median over the trials.
* It passes iff all three hold:
  (a) median(new) ≤ 1.05 × median(current default) in ≥ 90% of the cells;
  (b) median(new) ≤ 1.2 × median(current default) in every cell;
  (c) in every cell where median(current default) > min(median(iid), median(iid, unit box)),
      median(new) ≤ that minimum (``iid``: ``DPPCA(noise="iid")``; ``iid, unit box``: the
      benchmark's recipe, ``DPCovariance`` with ``noise="iid"`` on the records rescaled to
      [0, 1], its default projection, mapped back, as ``utility_pca.py``).
  Medians within a relative 1e-9 of each other count as equal.
* If it passes, ``noise="unit-box"`` becomes DPPCA's default; otherwise it ships as an option
  with these numbers.

``--part benchmark`` runs the same four methods and criteria on the seven benchmark tables of
``_utility_common.py`` (the tables the candidate was looked at on: not deciding), with the same
seeds (the first 8 trials are ``utility_pca.py``'s).

Output: ``results/pca_auto_check.{md,csv}`` (check) or ``results/pca_auto_check_benchmark.{md,csv}``.
Command: ``cd experiments && PYTHONPATH=../src python pca_auto_check.py --part check`` (and
``--part benchmark``).
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

import _utility_common as uc  # noqa: E402

SEED = 20261124
TRIALS = 30
KS = (2, 5)
METHODS = ("current default (auto)", "new (unit-box)", "iid", "iid, unit box")
TIE = 1e-9


def deficit(V, C, best):
    q, _ = np.linalg.qr(np.asarray(V, float).T)
    return 1.0 - float(np.trace(q.T @ C @ q)) / best


def fitter(method, t, eps, k):
    from matrixdp.models import DPCovariance, DPPCA

    if method == "iid, unit box":
        w = t.hi - t.lo
        Xu = (t.X - t.lo) / w

        def fit(s):
            cu = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(0.0, 1.0), noise="iid",
                              random_state=s).fit(Xu).covariance_
            cov = w[:, None] * cu * w
            _, vec = np.linalg.eigh(0.5 * (cov + cov.T))
            return vec[:, ::-1][:, :k].T
        return fit
    noise = {"current default (auto)": "auto", "new (unit-box)": "unit-box", "iid": "iid"}[method]
    return lambda s: DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                           noise=noise, method="moments", random_state=s).fit(t.X).components_


def run(tables, trials):
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(trials)]
    rows = []
    t0 = time.time()
    for t in tables:
        C = np.cov(t.X.T, bias=True)
        lam = np.sort(np.linalg.eigvalsh(C))[::-1]
        for k in KS:
            if k >= t.d:
                continue
            best = float(lam[:k].sum())
            for eps in uc.EPSILONS:
                for m in METHODS:
                    fit = fitter(m, t, eps, k)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        vals = [deficit(fit(s), C, best) for s in seeds]
                    rows.append({"dataset": t.name, "n": t.n, "d": t.d, "k": k, "epsilon": eps,
                                 "method": m, "median": float(np.median(vals)),
                                 "q25": float(np.quantile(vals, 0.25)),
                                 "q75": float(np.quantile(vals, 0.75)), "trials": len(vals),
                                 "values": " ".join(f"{v:.6g}" for v in vals)})
                print(f"{t.name} k={k} eps={eps:g} ({time.time() - t0:.0f} s)", flush=True)
    return rows


def le(a, b):
    return a <= b * (1 + TIE) or abs(a - b) <= TIE * max(abs(a), abs(b))


def verdict(rows):
    cells = {}
    for r in rows:
        cells.setdefault((r["dataset"], int(r["k"]), float(r["epsilon"])), {})[r["method"]] = \
            float(r["median"])
    out = []
    for key, v in cells.items():
        cur, new = v["current default (auto)"], v["new (unit-box)"]
        ref = min(v["iid"], v["iid, unit box"])
        ratio = new / cur if cur > 0 else 1.0
        loses = not le(cur, ref)
        out.append({"cell": key, "v": v, "ratio": ratio, "a": le(new, 1.05 * cur),
                    "b": le(new, 1.2 * cur), "loses": loses, "c": (not loses) or le(new, ref),
                    "ref": ref})
    n = len(out)
    na = sum(o["a"] for o in out)
    a_ok = na >= 0.9 * n
    b_ok = all(o["b"] for o in out)
    c_cells = [o for o in out if o["loses"]]
    c_ok = all(o["c"] for o in out)
    return out, (a_ok, na, n), b_ok, (c_ok, c_cells)


def write(rows, args, name, title, tables):
    out = Path(args.out)
    with open(out / f"{name}.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    res, (a_ok, na, n), b_ok, (c_ok, c_cells) = verdict(rows)
    L = [f"# {title}", "",
         f"Generated by `experiments/pca_auto_check.py --part {args.part}` ({args.trials} "
         f"trials per cell, seed {SEED}, the same seeds for every method; δ = 1e-6; replace-one, "
         "n public; every method sees the same clipped records and public bounds). Command: "
         f"`cd experiments && PYTHONPATH=../src python pca_auto_check.py --part {args.part}`.",
         "", "The rule (pre-registered in the script's docstring, committed before the deciding "
         "run): `DPPCA(noise=\"unit-box\")` replaces the default `noise=\"auto\"` iff (a) its "
         "median deficit ≤ 1.05× the default's in ≥ 90% of the cells, (b) ≤ 1.2× in every cell, "
         "(c) ≤ min(iid, iid unit box) in every cell where the default's median is above that "
         "minimum." + (" **Deciding run** (never-seen tables)." if args.part == "check" else
                       " Benchmark tables (the candidate was looked at on them: not deciding)."),
         "", "| table | n | d | bounds |", "|---|---|---|---|"]
    for t in tables:
        L.append(f"| {t.name} | {t.n} | {t.d} | {t.bounds_source} |")
    L += ["", "Median captured-variance deficit (25th–75th percentile); *new / default*: the "
          "ratio of medians; *ref*: min(iid, iid unit box).", "",
          "| table | k | ε | " + " | ".join(METHODS) + " | new / default | default > ref | "
          "new ≤ ref |", "|---|---|---|" + "---|" * (len(METHODS) + 3)]
    by = {(r["dataset"], int(r["k"]), float(r["epsilon"]), r["method"]): r for r in rows}
    for o in res:
        ds, k, eps = o["cell"]
        cells = [f"{by[(ds, k, eps, m)]['median']:.3g} ({by[(ds, k, eps, m)]['q25']:.3g}–"
                 f"{by[(ds, k, eps, m)]['q75']:.3g})" for m in METHODS]
        L.append(f"| {ds} | {k} | {eps:g} | " + " | ".join(cells) + f" | {o['ratio']:.3g} | "
                 f"{'yes' if o['loses'] else 'no'} | "
                 f"{('yes' if o['c'] else '**no**') if o['loses'] else '—'} |")
    ratios = np.array([o["ratio"] for o in res])
    L += ["", "## Verdict", "",
          f"- (a) new ≤ 1.05× default in {na} of {n} cells ({100 * na / n:.0f}%; needs ≥ 90%): "
          f"{'met' if a_ok else '**NOT met**'}.",
          f"- (b) never > 1.2× the default: {'met' if b_ok else '**NOT met**'} (max ratio "
          f"{ratios.max():.3g}; > 1.2 in {int((ratios > 1.2 * (1 + TIE)).sum())} cells).",
          f"- (c) in the {len(c_cells)} cells where the default loses to min(iid, iid unit box), "
          f"new ≤ that minimum in {sum(o['c'] for o in c_cells)}: "
          f"{'met' if c_ok else '**NOT met**'}"
          + (" (" + "; ".join(f"{o['cell'][0]} k = {o['cell'][1]} ε = {o['cell'][2]:g}: new / "
                              f"ref {o['v']['new (unit-box)'] / o['ref']:.3g}"
                              for o in c_cells if not o["c"]) + ")" if not c_ok else "") + ".",
          f"- new / default over all cells: median {np.median(ratios):.3g}, min "
          f"{ratios.min():.3g}, max {ratios.max():.3g}.", "",
          "**Rule " + ("PASSES" if a_ok and b_ok and c_ok else "FAILS") + ".**", ""]
    (out / f"{name}.md").write_text("\n".join(L) + "\n")
    print("wrote", out / f"{name}.md")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("check", "benchmark"), required=True)
    p.add_argument("--trials", type=int, default=TRIALS)
    p.add_argument("--out", default=str(uc.DEFAULT_OUT))
    args = p.parse_args(argv)
    if args.part == "check":
        import _check_tables_pca as ct

        tables = [ct.load(name) for name in ct.CHECK_TABLES]
        name, title = "pca_auto_check", ("DPPCA: noise=\"unit-box\" vs the default noise=\"auto\" "
                                         "on six never-seen tables (issue #24)")
    else:
        tables = [uc.load_table(ds, None) for ds in uc.DATASETS]
        name, title = "pca_auto_check_benchmark", ("DPPCA: noise=\"unit-box\" vs the default "
                                                   "noise=\"auto\" on the benchmark tables")
    rows = run(tables, args.trials)
    write(rows, args, name, title, tables)


if __name__ == "__main__":
    main()
