"""Diagnosis: why the two-thread split of RON-Gauss's blocked passes can gain nothing (issue #27).

Two measurements, in one process, on X = ``--n`` x ``--m`` float64, p = ``--p``:

1. Which numpy products of the blocked passes keep the GIL: a second Python thread counts in a
   loop while this thread calls the product for 0.3 s with one BLAS thread. A product that
   releases the GIL around its BLAS call lets the counter take the GIL and this thread then
   waits for it (the interpreter's 5 ms switch interval): few calls. One that keeps it runs
   freely: many calls.
2. ``unit_row_pass`` (two halves, two threads of one BLAS thread each, with 2 BLAS threads
   allowed) from a quiet BLAS pool (after a pause) and straight after a 2-thread ``X @ W``
   (OpenBLAS's workers still busy-waiting for their next job), and one Python thread with
   2-thread BLAS calls per block; best and median of ``--repeats``.

Run: ``python benchmarks/diag_ron_gauss_split.py``; writes results/ron_gauss_split_diag.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from matrixdp.synth import ron_matrix  # noqa: E402
from matrixdp.synth import preprocessing as pp  # noqa: E402


def calls_beside_a_counter(fn, seconds=0.3) -> int:
    stop = []

    def counter():
        k = 0
        while not stop:
            k += 1

    thread = threading.Thread(target=counter)
    thread.start()
    t0, calls = time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        fn()
        calls += 1
    stop.append(True)
    thread.join()
    return calls


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400_000)
    ap.add_argument("--m", type=int, default=100)
    ap.add_argument("--p", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--pause", type=float, default=0.3)
    args = ap.parse_args(argv)
    n, m, p, c = args.n, args.m, args.p, pp.CHUNK_ROWS
    X = np.random.default_rng(0).normal(size=(n, m)) + 0.3
    W = ron_matrix(m, p, np.random.default_rng(3))
    xb, inv = X[:c].copy(), 1.0 / np.linalg.norm(X[:c], axis=1)
    ub = xb @ W
    mu = X[:1000].mean(axis=0)

    products = {
        "`inv @ X_b` (1 x 100 output)": lambda: inv @ xb,
        "`np.dot(inv, X_b)`": lambda: np.dot(inv, xb),
        "`U_b.T @ U_b` (10 x 10 output)": lambda: ub.T @ ub,
        "`np.dot(U_b.T, U_b)`": lambda: np.dot(ub.T, ub),
        "`X_b @ mu` (4096 outputs)": lambda: xb @ mu,
        "`np.dot(X_b, mu)`": lambda: np.dot(xb, mu),
        "`X_b @ W` (4096 x 10 output)": lambda: xb @ W,
    }
    gil = ["| product (one block of 4096 rows, 1 BLAS thread) | calls in 0.3 s beside a counting "
           "thread | verdict |", "|---|---:|---|"]
    with threadpool_limits(limits=1, user_api="blas"):
        for name, fn in products.items():
            fn()
            calls = calls_beside_a_counter(fn)
            verdict = "keeps the GIL" if calls > 4 * 0.3 / 0.005 else "releases the GIL"
            gil.append(f"| {name} | {calls} | {verdict} |")

    def blas2_pass():
        r, total, Y = np.empty(n), np.zeros(m), np.empty((n, p))
        pp._unit_row_blocks(X, W, r, total, Y, c, True)  # one Python thread, BLAS limit as set

    limit = lambda: (lambda Z: Z.T @ Z)(X @ W)  # noqa: E731
    split = lambda: pp.unit_row_pass(X, W, check_finite=True)  # noqa: E731
    cases = {"split, quiet pool (after a pause)": (split, False),
             "split, straight after a 2-thread X @ W": (split, True),
             "one Python thread, 2-thread BLAS per block, quiet pool": (blas2_pass, False),
             "one Python thread, 2-thread BLAS per block, straight after X @ W": (blas2_pass, True)}
    runs: dict = {k: [] for k in cases}
    with threadpool_limits(limits=1, user_api="blas"):
        one = []
        for _ in range(args.repeats):
            time.sleep(args.pause)
            t0 = time.perf_counter()
            split()
            one.append(time.perf_counter() - t0)
    with threadpool_limits(limits=2, user_api="blas"):
        for _ in range(args.repeats):
            for name, (fn, after) in cases.items():
                time.sleep(args.pause)
                if after:
                    limit()
                t0 = time.perf_counter()
                fn()
                runs[name].append(time.perf_counter() - t0)
    passes = ["| unit_row_pass, 2 BLAS threads allowed | best (s) | median (s) |",
              "|---|---:|---:|",
              f"| for reference: 1 BLAS thread (sequential halves) | {min(one):.4f} | "
              f"{np.median(one):.4f} |"]
    passes += [f"| {k} | {min(v):.4f} | {np.median(v):.4f} |" for k, v in runs.items()]
    text = (
        "# Why the two-thread split of RON-Gauss's blocked passes can gain nothing\n\n"
        f"`python benchmarks/diag_ron_gauss_split.py`: X = {n:,} x {m}, p = {p}, blocks of {c} "
        f"rows, best and median of {args.repeats}, pause {args.pause:g} s; load average "
        f"{os.getloadavg()[0]:.1f} (2 cores).\n\n"
        "## numpy products and the GIL\n\n" + "\n".join(gil) + "\n\n"
        "## The first blocked pass with two BLAS threads allowed\n\n" + "\n".join(passes) + "\n")
    out = ROOT / "results" / "ron_gauss_split_diag.md"
    out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
