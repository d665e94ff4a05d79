"""Benchmark: RON-Gauss fit / (X @ W + Gram) at 1 and 2 BLAS threads, with the fit's parts (issue #27).

For each thread count (set with threadpoolctl for both sides), side by side, interleaved, best
of ``--repeats``, each timed call after a ``--pause`` (0.3 s) so that it starts from a quiet BLAS
pool: after a multi-threaded call OpenBLAS's pthreads workers busy-wait ~0.1-0.2 s for the next
job (``OPENBLAS_THREAD_TIMEOUT``) and hold the second core, which the fit's second thread needs.
The fit is also timed straight after the limit's ``X @ W`` (no pause: the workers still spinning),
reported in its own column:

* before vs now: fresh child processes alternating the code at ``--before`` (git archive) and
  this checkout, each timing the limit ``Z = X @ W; Z.T @ Z`` and ``RONGauss(dim=p).fit(X)``
  (unsupervised, replace-one, seeded) interleaved;
* the fit's parts now, in this process: the first blocked pass (``unit_row_pass`` with the
  finiteness check folded in: row norms, sum of unit rows, ``X @ W``), the second read of X
  (``X @ mu``, needed because the centred rows' norms depend on the DP mean, known only after
  the first pass) and the blocked scatter (``centred_scatter``: ``X @ mu``, the centred rows
  and their Gram, block by block).

Run: ``python benchmarks/bench_ron_gauss_threads.py [--n 400000] [--m 100] [--p 10]``.
Target: fit <= 1.2x the limit at 1 and at 2 threads.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import best_of, write_section  # noqa: E402

from threadpoolctl import threadpool_limits  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LIM = "limit: X @ W + Gram"
URP = ("part: unit_row_pass with the finiteness check (norms, sum, X @ W; blocked, 1 BLAS thread "
       "per half)")
XMU = "part: X @ mu (second read of X)"
SCAT = "part: centred_scatter (X @ mu, centred rows, Gram; blocked, 1 BLAS thread per half)"

_CHILD = r"""
import json, sys, time
import numpy as np
from threadpoolctl import threadpool_limits
from matrixdp.synth import RONGauss, ron_matrix
n, m, p, threads, repeats = (int(a) for a in sys.argv[1:6])
pause = float(sys.argv[6])
X = np.random.default_rng(0).normal(size=(n, m)) + 0.3
W = ron_matrix(m, p, np.random.default_rng(3))
fns = {"limit": lambda: (lambda Z: Z.T @ Z)(X @ W),
       "fit": lambda: RONGauss(dim=p, epsilon=1.0, random_state=3).fit(X)}
best = {k: float("inf") for k in (*fns, "fit_after_limit")}
with threadpool_limits(limits=threads, user_api="blas"):
    for f in fns.values():
        f()
    for _ in range(repeats):
        for k, f in fns.items():
            time.sleep(pause)
            t0 = time.perf_counter(); f(); best[k] = min(best[k], time.perf_counter() - t0)
        time.sleep(pause)
        fns["limit"]()
        t0 = time.perf_counter(); fns["fit"]()
        best["fit_after_limit"] = min(best["fit_after_limit"], time.perf_counter() - t0)
cov = RONGauss(dim=p, epsilon=1.0, random_state=3).fit(X).covariance_raw_
best["cov"] = cov.tolist()
print(json.dumps(best))
"""


def child(src: Path, args, threads: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src))
    out = subprocess.run([sys.executable, "-c", _CHILD, str(args.n), str(args.m), str(args.p),
                          str(threads), str(args.repeats), str(args.pause)], env=env,
                         capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400_000)
    ap.add_argument("--m", type=int, default=100)
    ap.add_argument("--p", type=int, default=10)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--pause", type=float, default=0.3,
                    help="seconds before each timed call (lets the BLAS workers park)")
    ap.add_argument("--before", default="4d66303",
                    help="git revision timed as 'before' in a child process")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    from matrixdp.synth import RONGauss, ron_matrix
    from matrixdp.synth.preprocessing import centred_scatter, unit_row_pass

    # before vs now, whole fits in child processes, alternated
    ba: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "src"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        for threads in args.threads:
            for _ in range(args.rounds):
                for key, src in (("before", Path(tmp) / "src"), ("now", ROOT / "src")):
                    got = child(src, args, threads)
                    cur = ba.setdefault((key, threads), got)
                    for k in ("limit", "fit", "fit_after_limit"):
                        cur[k] = min(cur[k], got[k])
            print(threads, {k[0]: (round(v["limit"], 4), round(v["fit"], 4),
                                   round(v["fit_after_limit"], 4))
                            for k, v in ba.items() if k[1] == threads}, flush=True)
    diff = max(float(np.max(np.abs(np.array(ba[("now", t)]["cov"]) -
                                   np.array(ba[("before", t)]["cov"])))) for t in args.threads)

    # the parts now, in this process
    X = np.random.default_rng(0).normal(size=(args.n, args.m)) + 0.3
    W = ron_matrix(args.m, args.p, np.random.default_rng(3))
    mu = X[:1000].mean(axis=0)
    mu /= 2 * np.linalg.norm(mu)
    r, _, Y0 = unit_row_pass(X, W)
    parts = {
        LIM: lambda: (lambda Z: Z.T @ Z)(X @ W),
        "RONGauss.fit": lambda: RONGauss(dim=args.p, epsilon=1.0, random_state=3).fit(X),
        URP: lambda: unit_row_pass(X, W, check_finite=True),
        XMU: lambda: X @ mu,
        SCAT: lambda: centred_scatter(X, W, r, Y0, mu),
    }
    loads = []
    results = {}
    medians = {}
    for threads in args.threads:
        times = {k: math.inf for k in parts}
        runs: dict = {k: [] for k in parts}
        with threadpool_limits(limits=threads, user_api="blas"):
            for fn in parts.values():
                fn()
            for _ in range(args.repeats):
                for name, fn in parts.items():
                    time.sleep(args.pause)
                    runs[name].append(best_of(fn, 1))
                    times[name] = min(times[name], runs[name][-1])
        loads.append(os.getloadavg()[0])
        results[threads] = times
        medians[threads] = {k: float(np.median(v)) for k, v in runs.items()}

    tl = lambda t: f"{t} thread{'s' if t > 1 else ''}"  # noqa: E731
    tmax = max(args.threads)
    blines = ["| code | BLAS threads | limit: X @ W + Gram (s) | RONGauss.fit (s) | fit / limit "
              "| fit straight after the limit (s) | / limit |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    verdict = []
    for t in args.threads:
        for key in ("before", "now"):
            v = ba[(key, t)]
            blines.append(f"| {key if key == 'now' else f'before (`{args.before}`)'} | {t} | "
                          f"{v['limit']:.4f} | {v['fit']:.4f} | {v['fit'] / v['limit']:.2f}x | "
                          f"{v['fit_after_limit']:.4f} | "
                          f"{v['fit_after_limit'] / v['limit']:.2f}x |")
        ratio = ba[("now", t)]["fit"] / ba[("now", t)]["limit"]
        after = ba[("now", t)]["fit_after_limit"] / ba[("now", t)]["limit"]
        # on an overloaded machine multi-threaded BLAS can run slower than one thread: then the
        # t-thread limit is not a limit and its ratio demonstrates nothing
        slower = t > 1 and ba[("now", t)]["limit"] > ba[("now", min(args.threads))]["limit"]
        floor = (results[t]["limit: X @ W + Gram"] + results[t]["part: X @ mu (second read of X)"]
                 ) / results[t]["limit: X @ W + Gram"]
        word = ("not demonstrated: the multi-threaded limit ran slower than the single-threaded "
                "one, so this ratio reflects the load, not the fit; compared with" if slower
                else "meets" if ratio <= 1.2 else "misses")
        verdict.append(f"{tl(t)}: fit = {ratio:.2f}x the limit "
                       f"({word} the 1.2x target"
                       + ("" if ratio <= 1.2 or slower else f" by {ratio / 1.2:.2f}x")
                       + f"; before {ba[('before', t)]['fit'] / ba[('before', t)]['limit']:.2f}x; "
                       f"straight after the limit {after:.2f}x); "
                       f"the second read of X alone puts the floor at {floor:.2f}x")
    head = "| part (this process, now) | " + " | ".join(f"{tl(t)}: best (s) | / limit | median (s)"
                                                      for t in args.threads) + " |"
    lines = [head, "|---|" + "---:|---:|---:|" * len(args.threads)]
    for name in parts:
        cells = []
        for t in args.threads:
            v, lim = results[t][name], results[t]["limit: X @ W + Gram"]
            cells.append(f"{v:.4f} | {v / lim:.2f}x | {medians[t][name]:.4f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    body = (
        f"`python benchmarks/bench_ron_gauss_threads.py`: X = {args.n:,} x {args.m} float64, "
        f"p = {args.p}, unsupervised RON-Gauss (epsilon = 1, seeded), both sides under the same "
        "threadpoolctl BLAS limit, variants interleaved. Before vs now: fresh child processes "
        f"alternating the code at `{args.before}` (git archive) and this checkout, {args.rounds} "
        f"rounds of best of {args.repeats}. Load average at the end of each thread count: "
        + ", ".join(f"{x:.1f}" for x in loads) + " (2 cores, shared). Target (issue #27): fit "
        "<= 1.2x the limit at 1 and at 2 threads.\n\n" + "\n".join(blines) + "\n\n"
        + "; ".join(verdict) + ".\n\n" + "\n".join(lines) + "\n\n"
        f"Seeded `covariance_raw_` before vs now: max abs difference {diff:.1e} (summation order "
        "of the blocked scatter). What changed: the finiteness check of X is folded into the first "
        "blocked pass (a NaN/inf entry makes the row's squared norm non-finite, and those rows are "
        "re-examined anyway), which now runs before the budget is charged, so bad input still "
        "costs nothing; the centred, re-normalised projected rows are no longer materialised: "
        "`centred_scatter` computes X_b @ mu, the rows and their Gram block by block in cache. "
        "What bounds it: the fit reads X twice where the limit reads it once; the second read "
        "(X @ mu) is inherent to computing Algorithm 1 exactly (each centred row's norm depends "
        "on x . mu, and mu is the DP mean, released only after the first pass; the raw sums "
        "Σx, Σxxᵀ cannot give the per-row re-normalisation). With two or more BLAS threads "
        "allowed, the blocked passes split the rows into two fixed halves (set by n alone, so the "
        "outputs are bit-identical at 1 and 2 threads), each on its own thread of one BLAS thread "
        "(cache-sized calls). That split (d4408a5) had been reverted (e959e4a) for showing no "
        "gain; two causes were found: numpy's `@` keeps the GIL for products with a small output "
        "((1/r) @ X_b and the block Gram; now `np.dot`, which releases it), and this script timed "
        "the fit straight after the limit, whose 2-thread X @ W leaves OpenBLAS's worker "
        "busy-waiting on the second core for ~0.1-0.2 s (OPENBLAS_THREAD_TIMEOUT; lowering the "
        "BLAS limit does not park it), so the fit's second thread had no core. Each timed call "
        f"now follows a {args.pause:g} s pause; the column 'fit straight after the limit' is the "
        "other case, what a caller sees when the fit follows a multi-threaded BLAS call within "
        "~0.2 s: there the split gains little or nothing. What remains at "
        f"{tl(tmax)} (quiet pool): the first pass ({results[tmax][URP]:.4f} s) is about the "
        f"limit's X @ W (both a gemm with p = {args.p} on every core; the limit "
        f"{results[tmax][LIM]:.4f} s includes its Gram), and centred_scatter "
        f"({results[tmax][SCAT]:.4f} s, median {medians[tmax][SCAT]:.4f} s; "
        f"{results[min(args.threads)][SCAT]:.4f} s with {tl(min(args.threads))}) is the "
        f"memory-bound second read of X ({results[tmax][XMU]:.4f} s with {tl(tmax)}) plus the "
        "centring of the projected rows. The two halves of centred_scatter often slow each other "
        "down (compare its best and median at 2 threads); the cause was not found (tried in "
        "scratch runs, no result file, no gain: a shorter interpreter switch interval, malloc "
        "settings, blocks of 8192 or 16384 rows, the per-row scalars of a whole half at once, "
        "np.dot for X_b @ mu). The GIL test and the quiet / straight-after / one-thread-with-"
        "2-thread-BLAS comparison of the first pass are in results/ron_gauss_split_diag.md "
        "(`python benchmarks/diag_ron_gauss_split.py`); one Python thread with 2-thread BLAS "
        "calls per block does not depend on the workers' state but is slower than the split "
        "from a quiet pool, so the split is kept.")
    print(body)
    if not args.no_write:
        write_section("RON-Gauss fit at 1 and 2 BLAS threads (issue #27)", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
