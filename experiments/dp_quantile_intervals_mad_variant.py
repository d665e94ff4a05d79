"""EXPLORATORY (not pre-registered, the default is NOT changed): the interval form with the MAD
taken at the MIDPOINT of its selected spread interval instead of its upper (outer) end.

Why look: with the upper end, a 70% point mass at 3 on the log grid gets ``[1.33, 4.22]``, two grid
steps below the interval ``[2.37, 3.16]`` holding it, and a constant column inside a [0, 100]
public domain gets a range 10 grid steps wide (the point form: 2). Everything else as
``dp_quantile_intervals.py`` (same tables, grids, ε, seeds; both through ExponentialMechanism and a
budget keeper). Any change of the default must be decided by a check written down and committed
before it runs, on tables this project has not seen; this file is only the design input.
Output ``results/dp_quantile_intervals_mad_variant.{md,csv}``.
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
from dp_quantile_intervals import after_bounds, tables  # noqa: E402

NAME = "dp_quantile_intervals_mad_variant"
FORMS = ("intervals, MAD upper end (default)", "intervals, MAD midpoint (variant)")


def variant_bounds(X, *, epsilon, spec, rng):
    """dp_bounds' median-MAD path with the MAD at its interval's midpoint (same charges)."""
    from matrixdp._budget import charge
    from matrixdp.accounting import Accountant
    from matrixdp.mechanisms.exponential import ExponentialMechanism
    from matrixdp.models.dp_bounds import _grids, _spread_grids, snap_outward
    from matrixdp.queries.quantile import quantile_scores

    d = X.shape[1]
    grids = _grids(spec, d)
    spreads = _spread_grids(spec, grids)
    rows = np.arange(d)
    mech = ExponentialMechanism(epsilon=epsilon / 2.0, sensitivity=1.0)
    with charge(mech.privacy + mech.privacy, accountant=Accountant(), label="variant"):
        rel = mech.release(np.concatenate([quantile_scores(X[:, j], grids[j], 0.5)
                                           for j in range(d)]), rng=rng)
        i = ExponentialMechanism.indices(rel)
        a, b = grids[rows, i], grids[rows, i + 1]
        mid = 0.5 * (a + b)
        rel = mech.release(np.concatenate([quantile_scores(np.abs(X[:, j] - mid[j]), spreads[j],
                                                           0.5) for j in range(d)]), rng=rng)
        k = ExponentialMechanism.indices(rel)
        mad = 0.5 * (spreads[rows, k] + spreads[rows, k + 1])
    return snap_outward(grids, np.minimum(a, mid - spec.widen * mad),
                        np.maximum(b, mid + spec.widen * mad))


def main(argv=None):
    from matrixdp.models.dp_bounds import DPBounds

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epsilons", nargs="+", type=float, default=[0.1, 1.0, 10.0])
    p.add_argument("--seeds", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    args = p.parse_args(argv)
    rows = []
    for name, X, lo_pub, hi_pub in tables():
        width_pub = np.where(hi_pub > lo_pub, hi_pub - lo_pub, 1.0)
        for grid_name, spec in (("log grid", DPBounds()),
                                ("public domain", DPBounds(domain=(lo_pub, hi_pub)))):
            for eps in args.epsilons:
                for form, fn in zip(FORMS, (after_bounds, variant_bounds)):
                    cov, wid, failed = [], [], []
                    start = time.perf_counter()
                    for s in range(args.seeds):
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore", UserWarning)
                            lo, hi = fn(X, epsilon=eps, spec=spec, rng=args.seed + s)
                        inside = np.mean((X >= lo) & (X <= hi), axis=0)
                        cov.append(float(np.mean(inside)))
                        wid.append(float(np.median((hi - lo) / width_pub)))
                        failed.append(float(np.mean(inside < 0.5)))
                    rows.append({"table": name, "n": X.shape[0], "d": X.shape[1],
                                 "grid": grid_name, "epsilon": eps, "form": form,
                                 "coverage_median": float(np.median(cov)),
                                 "coverage_mean": float(np.mean(cov)),
                                 "width_median": float(np.median(wid)),
                                 "failed_mean": float(np.mean(failed)), "seeds": args.seeds,
                                 "seconds": time.perf_counter() - start})
    args.out.mkdir(parents=True, exist_ok=True)
    uc.write_rows(args.out / f"{NAME}.csv", rows)
    cmd = (f"cd experiments && PYTHONPATH=../src python {NAME}.py --seeds {args.seeds} "
           f"--seed {args.seed} --epsilons {' '.join(map(str, args.epsilons))}")
    lines = [f"# EXPLORATORY: MAD at its interval's upper end (default) vs midpoint (generated by "
             f"experiments/{NAME}.py)", "", f"Command: `{cmd}`", "",
             "Not pre-registered; the default is not changed by this file (see the script's "
             "docstring). Same ε, replace-one, grids and seeds. coverage: mean over seeds of the "
             "share of records inside the range (mean over columns); width: median over seeds "
             "of the median over columns of width / public width; failed: share of (seed, "
             "column) with coverage < 1/2.", ""]
    for grid in ("log grid", "public domain"):
        lines += [f"## {grid}", "", "| table (n x d) | ε | coverage upper | coverage mid | "
                  "width upper | width mid | failed upper | failed mid |",
                  "|---|---|---|---|---|---|---|---|"]
        for r0 in [r for r in rows if r["grid"] == grid and r["form"] == FORMS[0]]:
            (r1,) = [r for r in rows if r["grid"] == grid and r["form"] == FORMS[1]
                     and r["table"] == r0["table"] and r["epsilon"] == r0["epsilon"]]
            lines.append(f"| {r0['table']} ({r0['n']} x {r0['d']}) | {r0['epsilon']:g} | "
                         f"{r0['coverage_mean']:.3f} | {r1['coverage_mean']:.3f} | "
                         f"{r0['width_median']:.3g} | {r1['width_median']:.3g} | "
                         f"{r0['failed_mean']:.3f} | {r1['failed_mean']:.3f} |")
        lines.append("")
    (args.out / f"{NAME}.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
