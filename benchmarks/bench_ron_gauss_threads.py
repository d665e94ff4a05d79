"""Benchmark: RON-Gauss fit / (X @ W + Gram) at 1 and 2 BLAS threads, with the fit's parts (issue #27).

For each thread count (set with threadpoolctl for both sides), side by side in one run,
interleaved, best of ``--repeats``:

* limit: ``Z = X @ W`` then ``Z.T @ Z``;
* ``RONGauss(dim=p).fit(X)`` (unsupervised, replace-one, seeded);
* the fit's parts on the same X: the input's finiteness check (``check_finite_array``), the
  blocked one-pass statistics (``unit_row_pass``: row norms, sum of unit rows, ``X @ W``), the
  second read of X (``X @ mu``, needed because the centred rows' norms depend on the DP mean,
  known only after the first pass), and the centred projection (``centred_projection``, which
  includes ``X @ mu``).

Run: ``python benchmarks/bench_ron_gauss_threads.py [--n 400000] [--m 100] [--p 10]``.
Target: fit <= 1.2x the limit at 1 and at 2 threads.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import best_of, write_section  # noqa: E402

from threadpoolctl import threadpool_limits  # noqa: E402

from matrixdp._validation import check_finite_array  # noqa: E402
from matrixdp.synth import RONGauss, ron_matrix  # noqa: E402
from matrixdp.synth.preprocessing import centred_projection, unit_row_pass  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400_000)
    ap.add_argument("--m", type=int, default=100)
    ap.add_argument("--p", type=int, default=10)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    X = np.random.default_rng(0).normal(size=(args.n, args.m)) + 0.3
    W = ron_matrix(args.m, args.p, np.random.default_rng(3))
    mu = X[:1000].mean(axis=0)
    mu /= 2 * np.linalg.norm(mu)
    r, _, Y0 = unit_row_pass(X, W)

    parts = {
        "limit: X @ W + Gram": lambda: (lambda Z: Z.T @ Z)(X @ W),
        "RONGauss.fit": lambda: RONGauss(dim=args.p, epsilon=1.0, random_state=3).fit(X),
        "part: finiteness check of X": lambda: check_finite_array(X, "X"),
        "part: unit_row_pass (norms, sum, X @ W; 1 BLAS thread by design)":
            lambda: unit_row_pass(X, W),
        "part: X @ mu (second read of X)": lambda: X @ mu,
        "part: centred_projection (incl. X @ mu)":
            lambda: centred_projection(X, W, r, Y0.copy(), mu),
        "part: Gram of the n x p projection": lambda: Y0.T @ Y0,
    }
    loads = []
    results = {}
    for threads in args.threads:
        times = {k: math.inf for k in parts}
        with threadpool_limits(limits=threads, user_api="blas"):
            for fn in parts.values():
                fn()
            for _ in range(args.repeats):
                for name, fn in parts.items():
                    times[name] = min(times[name], best_of(fn, 1))
        loads.append(os.getloadavg()[0])
        results[threads] = times
        print(threads, {k: round(v, 4) for k, v in times.items()}, flush=True)

    head = "| what | " + " | ".join(f"{t} thread{'s' if t > 1 else ''} (s) | / limit"
                                      for t in args.threads) + " |"
    lines = [head, "|---|" + "---:|---:|" * len(args.threads)]
    for name in parts:
        cells = []
        for t in args.threads:
            v, lim = results[t][name], results[t]["limit: X @ W + Gram"]
            cells.append(f"{v:.4f} | {v / lim:.2f}x")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    verdict = []
    for t in args.threads:
        ratio = results[t]["RONGauss.fit"] / results[t]["limit: X @ W + Gram"]
        floor = (results[t]["limit: X @ W + Gram"] + results[t]["part: X @ mu (second read of X)"]
                 ) / results[t]["limit: X @ W + Gram"]
        verdict.append(f"{t} thread{'s' if t > 1 else ''}: fit = {ratio:.2f}x the limit "
                       f"({'meets' if ratio <= 1.2 else 'misses'} the 1.2x target"
                       + ("" if ratio <= 1.2 else f" by {ratio / 1.2:.2f}x")
                       + f"); the second read of X alone puts the floor at {floor:.2f}x")
    body = (
        f"`python benchmarks/bench_ron_gauss_threads.py`: X = {args.n:,} x {args.m} float64, "
        f"p = {args.p}, unsupervised RON-Gauss (epsilon = 1, seeded), both sides under the same "
        "threadpoolctl BLAS limit, variants interleaved, best of "
        f"{args.repeats}. Load average at the end of each thread count: "
        + ", ".join(f"{x:.1f}" for x in loads) + ". Target (issue #27): fit <= 1.2x the limit at 1 "
        "and at 2 threads.\n\n" + "\n".join(lines) + "\n\n" + "; ".join(verdict) + ".\n\n"
        "Not met, and not changed in this round (no code change to the fit's hot path was made "
        "here). What bounds it: the fit reads X three times where the limit reads it once — "
        "the input's finiteness check, the blocked pass (X @ W plus per-block row norms by "
        "einsum and the sum of unit rows, pinned to one BLAS thread: its excess over the limit "
        "is the table's unit_row_pass row minus 1), and X @ mu. The last is inherent to computing "
        "Algorithm 1 exactly: each centred row's norm depends on x . mu, and mu is the DP mean, "
        "released only after the first pass. Ways to close the gap, not done: fold the "
        "finiteness check into the blocked pass (it must then run before the budget is charged, "
        "so that bad input is refused without spending), run the blocked pass multi-threaded "
        "over row blocks at 2 threads (today it pins BLAS to 1 thread), and fuse the per-row "
        "scaling of the projection into one pass.")
    print(body)
    if not args.no_write:
        write_section("RON-Gauss fit at 1 and 2 BLAS threads (issue #27)", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
