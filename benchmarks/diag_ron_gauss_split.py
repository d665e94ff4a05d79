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
3. What the two halves of the second pass contend on: ``centred_scatter`` and a one-call pass
   (``X_half @ mu`` per half, through the library's ``_run_halves``) with one thread, two
   threads left to the scheduler (the pinning switched off), two pinned threads (the library's
   default) and two forked processes (no shared GIL, no shared scheduler state); for the thread
   variants, in how many runs both halves ended on the same CPU (read from
   /proc/thread-self/stat). Linux only (fork, CPU affinity).
4. The second pass at 1 BLAS thread: the row-major centring of the previous code (inline copy)
   against the current one (the block's rows as a k x rows array), and the current one at
   blocks of 4096, 8192 and 16384 rows.

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
        one, alone = [], []
        first_half = pp._halves(n, c)[0][1]
        for _ in range(args.repeats):
            time.sleep(args.pause)
            t0 = time.perf_counter()
            split()
            one.append(time.perf_counter() - t0)
            time.sleep(args.pause)
            t0 = time.perf_counter()
            pp.unit_row_pass(X[:first_half], W, check_finite=True)
            alone.append(time.perf_counter() - t0)
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
              f"{np.median(one):.4f} |",
              f"| for reference: the first half alone, 1 BLAS thread (the other core idle) | "
              f"{min(alone):.4f} | {np.median(alone):.4f} |"]
    passes += [f"| {k} | {min(v):.4f} | {np.median(v):.4f} |" for k, v in runs.items()]
    text = (
        "# The two-thread split of RON-Gauss's blocked passes: what the halves contend on\n\n"
        f"`python benchmarks/diag_ron_gauss_split.py`: X = {n:,} x {m}, p = {p}, blocks of {c} "
        f"rows, best and median of {args.repeats}, pause {args.pause:g} s; load average "
        f"{os.getloadavg()[0]:.1f} (2 cores).\n\n"
        "## numpy products and the GIL\n\n" + "\n".join(gil) + "\n\n"
        "## The first blocked pass with two BLAS threads allowed\n\n" + "\n".join(passes) + "\n")
    text += second_pass(args, X, W)
    out = ROOT / "results" / "ron_gauss_split_diag.md"
    out.write_text(text)
    print(text)
    return 0


def _cpu() -> int:
    with open("/proc/thread-self/stat", "rb") as f:
        return int(f.read().rsplit(b")", 1)[1].split()[36])


def _two_processes(fn, ranges) -> float:
    """Wall time of ``fn(start, stop)`` for both ranges in two forked processes, started together
    (each child first runs ``fn`` on 10 rows: a forked child's first BLAS-limit change re-creates
    OpenBLAS's state, ~20 ms, which is not part of the pass)."""
    go_r, go_w = os.pipe()
    done_r, done_w = os.pipe()
    pids = []
    for start, stop in ranges:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            fn(start, start + 10)
            os.read(go_r, 1)
            fn(start, stop)
            os.write(done_w, b"x")
            os._exit(0)
        pids.append(pid)
    time.sleep(0.5)  # the children's warm-up done, their cores idle again
    t0 = time.perf_counter()
    os.write(go_w, b"gg")
    os.read(done_r, 1)
    os.read(done_r, 1)
    elapsed = time.perf_counter() - t0
    for pid in pids:
        os.waitpid(pid, 0)
    for fd in (go_r, go_w, done_r, done_w):
        os.close(fd)
    return elapsed


def _scatter_row_major(X, W, r, Y, mu, chunk_rows):
    """The previous code's centring (row-major blocks, inner loops over p), one thread."""
    b, mu2 = mu @ W, float(mu @ mu)
    scatter = np.zeros((W.shape[1],) * 2)
    for start in range(0, X.shape[0], chunk_rows):
        stop = min(X.shape[0], start + chunk_rows)
        xb, rb = X[start:stop], r[start:stop]
        inv = np.divide(1.0, rb, out=np.zeros_like(rb), where=rb > 0)
        t = (xb @ mu) * inv
        c2 = 1.0 - 2.0 * t + mu2
        c2[rb == 0] = mu2
        ub = Y[start:stop] * inv[:, None]
        ub -= b
        bad = c2 < pp._CANCEL_SQ
        ub /= np.sqrt(np.where(bad, 1.0, c2))[:, None]
        if bad.any():
            ub[bad] = pp.normalize_rows(pp.normalize_rows(xb[bad]) - mu) @ W
        scatter += np.dot(ub.T, ub)
    return scatter


def second_pass(args, X, W) -> str:
    n = X.shape[0]
    r, total, Y = pp.unit_row_pass(X, W)
    mu = total / n
    ranges = pp._halves(n, pp.SCATTER_ROWS)
    ends = []

    def half_xmu(i, start, stop):
        np.dot(X[start:stop], mu)
        ends.append(_cpu())

    def scatter():
        pp.centred_scatter(X, W, r, Y, mu)

    def scatter_range(start, stop):
        pp.centred_scatter(X[start:stop], W, r[start:stop], Y[start:stop], mu)

    def xmu_range(start, stop):
        np.dot(X[start:stop], mu)

    unpinned = lambda fn: _without_pinning(fn)  # noqa: E731
    cases = {
        ("centred_scatter", "1 thread"): (1, scatter),
        ("centred_scatter", "2 threads, left to the scheduler"): (2, unpinned(scatter)),
        ("centred_scatter", "2 threads, pinned (the library)"): (2, scatter),
        ("centred_scatter", "2 forked processes"): (1, lambda: _two_processes(scatter_range,
                                                                               ranges)),
        ("X_half @ mu per half", "1 thread"): (1, lambda: pp._run_halves(half_xmu, n,
                                                                        pp.SCATTER_ROWS)),
        ("X_half @ mu per half", "2 threads, left to the scheduler"):
            (2, unpinned(lambda: pp._run_halves(half_xmu, n, pp.SCATTER_ROWS))),
        ("X_half @ mu per half", "2 threads, pinned (the library)"):
            (2, lambda: pp._run_halves(half_xmu, n, pp.SCATTER_ROWS)),
        ("X_half @ mu per half", "2 forked processes"): (1, lambda: _two_processes(xmu_range,
                                                                                    ranges)),
    }
    runs: dict = {k: [] for k in cases}
    same: dict = {k: 0 for k in cases}
    for _ in range(args.repeats):
        for key, (threads, fn) in cases.items():
            with threadpool_limits(limits=threads, user_api="blas"):
                time.sleep(args.pause)
                ends.clear()
                t0 = time.perf_counter()
                got = fn()
                elapsed = time.perf_counter() - t0
            runs[key].append(got if isinstance(got, float) else elapsed)
            same[key] += len(ends) == 2 and ends[0] == ends[1]
    contend = ["| pass | run as | best (s) | median (s) | runs with both halves ending on one CPU |",
               "|---|---|---:|---:|---:|"]
    for key, v in runs.items():
        threaded = "threads" in key[1]
        count = f"{same[key]} of {len(v)}" if threaded and key[0].startswith("X_half") else "-"
        contend.append(f"| {key[0]} | {key[1]} | {min(v):.4f} | {np.median(v):.4f} | {count} |")

    sizes = {"row-major centring (previous code), blocks of 4096":
             lambda: _scatter_row_major(X, W, r, Y, mu, 4096)}
    for rows in (4096, 8192, 16384):
        sizes[f"k x rows centring (now), blocks of {rows}"] = (
            lambda rows=rows: pp.centred_scatter(X, W, r, Y, mu, chunk_rows=rows))
    one: dict = {k: [] for k in sizes}
    with threadpool_limits(limits=1, user_api="blas"):
        for fn in sizes.values():
            fn()
        for _ in range(args.repeats):
            for name, fn in sizes.items():
                time.sleep(0.05)
                t0 = time.perf_counter()
                fn()
                one[name].append(time.perf_counter() - t0)
    blocks = ["| centred_scatter, 1 BLAS thread | best (s) | median (s) |", "|---|---:|---:|"]
    blocks += [f"| {k} | {min(v):.4f} | {np.median(v):.4f} |" for k, v in one.items()]
    return (
        "\n## The second pass over two threads: what the halves contend on\n\n"
        f"Halves of {ranges[0][1]:,} and {n - ranges[0][1]:,} rows (blocks of {pp.SCATTER_ROWS}); "
        f"pause {args.pause:g} s before each run; load average {os.getloadavg()[0]:.1f}. The "
        "one-call pass has one GIL hand-over per half, so the GIL cannot be what slows it; the "
        "CPU column is read at the end of each half.\n\n" + "\n".join(contend) + "\n\n"
        "## The second pass at 1 BLAS thread: centring layout and block size\n\n"
        + "\n".join(blocks) + "\n")


def _without_pinning(fn):
    """``fn`` with the library's pinning of the two halves switched off (the previous code)."""

    def run():
        saved = pp._split_cpus
        pp._split_cpus = lambda: None
        try:
            return fn()
        finally:
            pp._split_cpus = saved

    return run


if __name__ == "__main__":
    raise SystemExit(main())
