"""Diagnostic: what DPPCA's feasible-set projection (units of the half-widths) does to the PCA deficit.

``DPPCA`` projects every released covariance onto the feasible set in units of the public
half-widths before its eigendecomposition. The PCA-loss ranking of ``method="adaptive"`` predicts the
deficit of the released matrix before that projection. This script measures, on the tuning tables
only (synthetic, liver, wdbc, ctg; k = 2 and 5 where k < d; the seeds of
``adaptive_covariance.py``), the captured-variance deficit of

* ``auto``: ``DPPCA()``'s release with the library's projection (``unit-box``), the projection in
  the original units (``original``) and no projection (``none``);
* ``adaptive, moments branch``: ``adaptive_covariance(kind="pca", branch="moments")`` (the averaged
  moments release) with the same three post-processings;
* ``adaptive, coinpress branch``: the same with ``branch="coinpress"`` (already projected in the
  original units by the branch), and how often the PCA-loss prediction picked it (``picks cp``).

The held-out tables (adult, lending_club, movement_aal) may be run too, to diagnose the held-out
misses of ``results/adaptive_pca.md`` after the fact (nothing is tuned on them).

Output: ``results/adaptive_pca_projection.{md,csv}``. A diagnostic: nothing in the library is
chosen from it.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

NAME = "adaptive_pca_projection"
TABLES = ("synthetic", "liver", "wdbc", "ctg", "adult", "lending_club", "movement_aal")
UNITS = ("unit-box", "original", "none")


def run(args):
    import matrixdp.models.pca as pca_mod
    from matrixdp.models import DPPCA
    from matrixdp.models.adaptive import adaptive_covariance
    from matrixdp.models.covariance import project_feasible

    seeds = np.random.SeedSequence(args.seed).generate_state(args.trials)
    rows = []
    for ds in args.datasets:
        t = uc.load_table(ds, args.data_home)
        C = np.cov(t.X.T, bias=True)
        lam = np.sort(np.linalg.eigvalsh(C))[::-1]
        for k in (2, 5):
            if k >= t.d:
                continue
            best = float(lam[:k].sum())

            def deficit(cov, k=k, best=best):
                top = np.linalg.eigh(0.5 * (cov + cov.T))[1][:, ::-1][:, :k]
                return 1.0 - float(np.trace(top.T @ C @ top)) / best

            for eps in args.epsilons:
                methods = ("auto", "adaptive, moments branch", "adaptive, coinpress branch")
                vals = {(m, u): [] for m in methods for u in UNITS}
                picks = 0
                for s in seeds:
                    captured = {}
                    orig = pca_mod.project_feasible

                    def grab(cov, *a, **kw):
                        captured["cov"] = cov
                        return orig(cov, *a, **kw)
                    pca_mod.project_feasible = grab
                    try:
                        DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                              random_state=int(s)).fit(t.X)
                    finally:
                        pca_mod.project_feasible = orig
                    mom = adaptive_covariance(t.X, t.lo, t.hi, epsilon=eps, delta=uc.DELTA,
                                              kind="pca", n_components=k, rng=int(s),
                                              branch="moments")
                    cp = adaptive_covariance(t.X, t.lo, t.hi, epsilon=eps, delta=uc.DELTA,
                                             kind="pca", n_components=k, rng=int(s),
                                             branch="coinpress")
                    picks += mom.predicted["coinpress"] < mom.predicted["moments"]
                    for m, cov in (("auto", captured["cov"]),
                                   ("adaptive, moments branch", mom.covariance),
                                   ("adaptive, coinpress branch", cp.covariance)):
                        for u in UNITS:
                            c = cov if u == "none" else project_feasible(
                                cov, t.lo, t.hi, "covariance", units=u)
                            vals[(m, u)].append(deficit(c))
                for (m, u), v in vals.items():
                    rows.append({"dataset": ds, "task": f"pca k={k}", "epsilon": eps,
                                 "method": m, "projection": u, "median": float(np.median(v)),
                                 "trials": len(v), "picks_cp": f"{picks}/{len(v)}"})
                print(f"  {ds} k = {k} ε = {eps:g} done", flush=True)
    return rows


def write(rows, args):
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"{NAME}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = ["# DPPCA's projection (units of the half-widths) and the PCA deficit: a diagnostic",
             "", f"Generated by `experiments/{NAME}.py --trials {args.trials}` (seed "
             f"{args.seed}, the seeds of `adaptive_covariance.py`); tuning tables only. Median "
             "captured-variance deficit (lower is better) of the same released matrices "
             "post-processed three ways: the library's projection onto the feasible set in "
             "units of the half-widths (`unit-box`), the same projection in the original units "
             "(`original`), none (`none`).", "",
             "`picks cp`: how often the PCA-loss prediction chose the CoinPress branch (same "
             "seeds). The prediction ranks the matrices before the projection (`none`).", "",
             "| dataset | task | ε | method | unit-box (library) | original | none | "
             "unit-box / none | picks cp |", "|---|---|---|---|---|---|---|---|---|"]
    cells = {}
    pick = {}
    for r in rows:
        cells.setdefault((r["dataset"], r["task"], r["epsilon"], r["method"]), {})[
            r["projection"]] = r["median"]
        pick[(r["dataset"], r["task"], r["epsilon"])] = r["picks_cp"]
    for (ds, task, eps, m), by in cells.items():
        lines.append(f"| {ds} | {task} | {eps:g} | {m} | " + " | ".join(
            uc.fmt(by[u]) for u in UNITS) + f" | {by['unit-box'] / by['none']:.3g} | "
            + (pick[(ds, task, eps)] if m == "auto" else "") + " |")
    (out / f"{NAME}.md").write_text("\n".join(lines) + "\n")
    return out / f"{NAME}.md"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(uc.EPSILONS))
    p.add_argument("--datasets", nargs="+", default=list(TABLES[:4]), choices=list(TABLES))
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=20261124)
    p.add_argument("--data-home", type=Path, default=None)
    args = p.parse_args(argv)
    print(f"wrote {write(run(args), args)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
