"""DP bounds before vs after the interval form of the exponential-mechanism quantile (issue #24/#26).

``before``: the point form this project used until this change (frozen below): every grid POINT g
scored ``-|(1-q) L(g) - q R(g)|`` (ties half), the selected points are the median and MAD, bounds
``median ± 4.5 MAD`` snapped outward. With the mass of a column strictly between two grid points
every point scores the same and the selection is uniform over the grid.
``after``: :func:`matrixdp.models.dp_bounds.dp_bounds` (grid INTERVALS scored
``-dist(q n, [#{x<g_i}, #{x<=g_i+1}])``, outer ends, docs/bounds.md).

Side by side in one run: same ε (the whole estimate: ε/2 per median, ε/2 per MAD, basic
composition), replace-one, same public grids, same seeds (50), both through
``ExponentialMechanism`` and a budget keeper. Grids: the default log-scale grid (``bounds="dp"``)
and a 1001-point linear grid in the benchmark's declared public bounds. Tables: the benchmark
tables' numeric columns (synthetic, liver, wdbc, ctg) and synthetic columns (n = 2000): constant
at 5, constant at 2, a 70% point mass at 3 with the rest uniform on [0, 10], N(50, 10); their
public domain is [0, 100] (a fact of how they are generated).

Metrics per (table, ε, grid, form), over seeds and columns: coverage = share of the column's
records inside the DP range (mean over columns, then median [q25, q75] over seeds);
width = DP range's width / the column's declared public width (linear-grid and log-grid alike;
for the synthetic columns the public width is 100), median [q25, q75] over seeds of the median
over columns; and ``failed`` = share of (seed, column) whose DP range holds under half of the
column's records. Output ``results/dp_quantile_intervals.{md,csv}``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

NAME = "dp_quantile_intervals"
FORMS = ("before (points)", "after (intervals)")


def _point_scores(X, grid, q):
    """The point form of the utility before this change (frozen copy, for the comparison)."""
    g = np.asarray(grid, dtype=np.float64)
    A = np.asarray(X, dtype=np.float64)
    A = A[:, None] if A.ndim == 1 else A
    n = A.shape[0]
    S = np.sort(A, axis=0)
    below = np.stack([0.5 * (np.searchsorted(S[:, j], g, side="left")
                             + np.searchsorted(S[:, j], g, side="right"))
                      for j in range(A.shape[1])])
    return -np.abs((1.0 - q) * below - q * (n - below))


def before_bounds(X, *, epsilon, spec, rng):
    """The median-MAD path of dp_bounds before this change (point form), charged first."""
    from matrixdp._budget import charge
    from matrixdp.accounting import Accountant
    from matrixdp.mechanisms.exponential import ExponentialMechanism
    from matrixdp.models.dp_bounds import _grids, _spread_grids, snap_outward

    d = X.shape[1]
    grids = _grids(spec, d)
    spreads = _spread_grids(spec, grids)
    rows = np.arange(d)
    mech = ExponentialMechanism(epsilon=epsilon / 2.0, sensitivity=1.0)
    with charge(mech.privacy + mech.privacy, accountant=Accountant(), label="before"):
        rel = mech.release(np.concatenate([_point_scores(X[:, j], grids[j], 0.5)
                                           for j in range(d)]), rng=rng)
        med = grids[rows, ExponentialMechanism.indices(rel)]
        dev = np.abs(X - med)
        rel = mech.release(np.concatenate([_point_scores(dev[:, j], spreads[j], 0.5)
                                           for j in range(d)]), rng=rng)
        mad = spreads[rows, ExponentialMechanism.indices(rel)]
    return snap_outward(grids, med - spec.widen * mad, med + spec.widen * mad)


def after_bounds(X, *, epsilon, spec, rng):
    from matrixdp.models.dp_bounds import dp_bounds

    lo, hi, _ = dp_bounds(X, epsilon=epsilon, spec=spec, rng=rng)
    return lo, hi


def synthetic_columns(n=2000, seed=3):
    rng = np.random.default_rng(seed)
    cols = {"constant 5": np.full(n, 5.0), "constant 2": np.full(n, 2.0),
            "70% at 3": np.where(rng.random(n) < 0.7, 3.0, rng.uniform(0, 10, n)),
            "normal(50, 10)": rng.normal(50, 10, n)}
    return cols


def tables():
    """(name, X, lo, hi) with public bounds lo/hi per column."""
    out = []
    for name, x in synthetic_columns().items():
        out.append((f"synthetic column: {name}", x[:, None], np.zeros(1), np.full(1, 100.0)))
    for name in ("synthetic", "liver", "wdbc", "ctg"):
        t = uc.load_table(name)
        out.append((name, t.X, np.asarray(t.lo, float), np.asarray(t.hi, float)))
    return out


def run(epsilons, seeds, seed0):
    from matrixdp.models.dp_bounds import DPBounds

    rows = []
    for name, X, lo_pub, hi_pub in tables():
        n, d = X.shape
        width_pub = np.where(hi_pub > lo_pub, hi_pub - lo_pub, 1.0)
        for grid_name, spec in (("log grid", DPBounds()),
                                ("public domain", DPBounds(domain=(lo_pub, hi_pub)))):
            for eps in epsilons:
                for form, fn in zip(FORMS, (before_bounds, after_bounds)):
                    cov, wid, failed = [], [], []
                    start = time.perf_counter()
                    for k in range(seeds):
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore", UserWarning)
                            lo, hi = fn(X, epsilon=eps, spec=spec, rng=seed0 + k)
                        inside = np.mean((X >= lo) & (X <= hi), axis=0)
                        cov.append(float(np.mean(inside)))
                        wid.append(float(np.median((hi - lo) / width_pub)))
                        failed.append(float(np.mean(inside < 0.5)))
                    secs = time.perf_counter() - start
                    for metric, vals in (("coverage", cov), ("width / public width", wid),
                                         ("failed (range holds < half)", failed)):
                        q25, med, q75 = np.quantile(vals, [0.25, 0.5, 0.75])
                        rows.append({"table": name, "n": n, "d": d, "grid": grid_name,
                                     "epsilon": eps, "form": form, "metric": metric,
                                     "median": med, "q25": q25, "q75": q75,
                                     "mean": float(np.mean(vals)), "seeds": seeds,
                                     "seconds": secs})
                    print(f"{name} {grid_name} eps={eps} {form}: coverage {np.median(cov):.3f}"
                          f" width {np.median(wid):.3g} failed {np.mean(failed):.3f}",
                          file=sys.stderr)
    return rows


def write(rows, out: Path, args):
    out.mkdir(parents=True, exist_ok=True)
    uc.write_rows(out / f"{NAME}.csv", rows)
    cmd = (f"cd experiments && PYTHONPATH=../src python {NAME}.py --seeds {args.seeds} "
           f"--seed {args.seed} --epsilons {' '.join(map(str, args.epsilons))}")
    lines = [f"# DP bounds: point form (before) vs interval form (after) (generated by "
             f"experiments/{NAME}.py)", "", f"Command: `{cmd}`", "",
             "Same ε for the whole estimate (median ε/2 + MAD ε/2), replace-one, same public "
             "grids and seeds, bounds median ± 4.5 MAD (docs/bounds.md). `coverage`: share of "
             "the column's records inside the DP range (mean over columns; median [q25, q75] "
             "over seeds, higher is better). `width`: DP width / declared public width (median "
             "over columns; median [q25, q75] over seeds; smaller is tighter, but only with "
             "coverage). `failed`: share of (seed, column) whose range holds < half of the "
             "records (mean over seeds; lower is better).", ""]
    for grid in ("log grid", "public domain"):
        lines += [f"## {grid}", "", "| table (n x d) | ε | coverage before | coverage after | "
                  "width before | width after | failed before | failed after |",
                  "|---|---|---|---|---|---|---|---|"]
        keys = []
        for r in rows:
            k = (r["table"], r["n"], r["d"], r["epsilon"])
            if r["grid"] == grid and k not in keys:
                keys.append(k)
        for tab, n, d, eps in keys:
            def cell(form, metric, mean=False):
                (r,) = [r for r in rows if r["table"] == tab and r["epsilon"] == eps and
                        r["grid"] == grid and r["form"] == form and r["metric"] == metric]
                if mean:
                    return f"{r['mean']:.3f}"
                return f"{r['median']:.3g} [{r['q25']:.3g}, {r['q75']:.3g}]"
            lines.append(f"| {tab} ({n} x {d}) | {eps:g} | "
                         + " | ".join([cell(FORMS[0], "coverage"), cell(FORMS[1], "coverage"),
                                       cell(FORMS[0], "width / public width"),
                                       cell(FORMS[1], "width / public width"),
                                       cell(FORMS[0], "failed (range holds < half)", True),
                                       cell(FORMS[1], "failed (range holds < half)", True)])
                         + " |")
        lines.append("")
    (out / f"{NAME}.md").write_text("\n".join(lines))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epsilons", nargs="+", type=float, default=[0.1, 1.0, 10.0])
    p.add_argument("--seeds", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    args = p.parse_args(argv)
    write(run(args.epsilons, args.seeds, args.seed), args.out, args)


if __name__ == "__main__":
    main()
