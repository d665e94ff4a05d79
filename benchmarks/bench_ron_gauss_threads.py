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
VAL = "part: input validation (as_feature_matrix: no copy of a float64 array, no read of X)"

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
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--pause", type=float, default=0.3,
                    help="seconds before each timed call (lets the BLAS workers park)")
    ap.add_argument("--before", nargs="+", default=["4d66303", "8253a83"],
                    help="git revisions timed as 'before' in child processes (default: the code "
                         "before issue #27's work, and the previous round)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    from matrixdp.synth import RONGauss, ron_matrix
    from matrixdp.synth._input import as_feature_matrix
    from matrixdp.synth.preprocessing import centred_scatter, unit_row_pass

    # before vs now, whole fits in child processes, alternated
    ba: dict = {}
    per_round: dict = {}  # each round's fit / limit (its own bests of --repeats)
    with tempfile.TemporaryDirectory() as tmp:
        codes = []
        for rev in args.before:
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"],
                                     capture_output=True, check=True).stdout
            (Path(tmp) / rev).mkdir()
            subprocess.run(["tar", "-x", "-C", str(Path(tmp) / rev)], input=archive, check=True)
            codes.append((rev, Path(tmp) / rev / "src"))
        codes.append(("now", ROOT / "src"))
        for threads in args.threads:
            for _ in range(args.rounds):
                for key, src in codes:
                    got = child(src, args, threads)
                    per_round.setdefault((key, threads), []).append(got["fit"] / got["limit"])
                    cur = ba.setdefault((key, threads), got)
                    for k in ("limit", "fit", "fit_after_limit"):
                        cur[k] = min(cur[k], got[k])
            print(threads, {k[0]: (round(v["limit"], 4), round(v["fit"], 4),
                                   round(v["fit_after_limit"], 4))
                            for k, v in ba.items() if k[1] == threads}, flush=True)
    cov = {key: np.array(v["cov"]) for key, v in ba.items()}
    diffs = {rev: max(float(np.max(np.abs(cov[("now", t)] - cov[(rev, t)]))) for t in args.threads)
             for rev in args.before}
    same_threads = all(np.array_equal(cov[("now", t)], cov[("now", args.threads[0])])
                       for t in args.threads)

    # the parts now, in this process
    X = np.random.default_rng(0).normal(size=(args.n, args.m)) + 0.3
    W = ron_matrix(args.m, args.p, np.random.default_rng(3))
    mu = X[:1000].mean(axis=0)
    mu /= 2 * np.linalg.norm(mu)
    r, _, Y0 = unit_row_pass(X, W)
    parts = {
        LIM: lambda: (lambda Z: Z.T @ Z)(X @ W),
        "RONGauss.fit": lambda: RONGauss(dim=args.p, epsilon=1.0, random_state=3).fit(X),
        VAL: lambda: as_feature_matrix(X, finite=False),
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
        for key in (*args.before, "now"):
            v = ba[(key, t)]
            blines.append(f"| {key if key == 'now' else f'before (`{key}`)'} | {t} | "
                          f"{v['limit']:.4f} | {v['fit']:.4f} | {v['fit'] / v['limit']:.2f}x | "
                          f"{v['fit_after_limit']:.4f} | "
                          f"{v['fit_after_limit'] / v['limit']:.2f}x |")
        ratio = ba[("now", t)]["fit"] / ba[("now", t)]["limit"]
        after = ba[("now", t)]["fit_after_limit"] / ba[("now", t)]["limit"]
        # on an overloaded machine multi-threaded BLAS can run slower than one thread: then the
        # t-thread limit is not a limit and its ratio demonstrates nothing
        slower = t > 1 and ba[("now", t)]["limit"] > ba[("now", min(args.threads))]["limit"]
        lim_t = results[t][LIM]
        second = results[t][XMU] / lim_t
        word = ("not demonstrated: the multi-threaded limit ran slower than the single-threaded "
                "one, so this ratio reflects the load, not the fit; compared with" if slower
                else "meets" if ratio <= 1.2 else "misses")
        verdict.append(f"{tl(t)}: fit = {ratio:.2f}x the limit "
                       f"({word} the 1.2x target"
                       + ("" if ratio <= 1.2 or slower else f" by {ratio / 1.2:.2f}x")
                       + "; before " + ", ".join(
                           f"{ba[(rev, t)]['fit'] / ba[(rev, t)]['limit']:.2f}x (`{rev}`)"
                           for rev in args.before) + "; "
                       f"straight after the limit {after:.2f}x; each round's own ratio "
                       f"{min(per_round[('now', t)]):.2f}-{max(per_round[('now', t)]):.2f}x); "
                       f"the second read of X (X @ mu) alone costs {second:.2f}x the limit; the "
                       f"first "
                       f"pass + centred_scatter = {(results[t][URP] + results[t][SCAT]) / lim_t:.2f}x, "
                       f"of which the centring and Gram of the projected rows (centred_scatter "
                       f"minus X @ mu) {(results[t][SCAT] - results[t][XMU]) / lim_t:.2f}x")
    head = "| part (this process, now) | " + " | ".join(f"{tl(t)}: best (s) | / limit | median (s)"
                                                      for t in args.threads) + " |"
    lines = [head, "|---|" + "---:|---:|---:|" * len(args.threads)]
    for name in parts:
        cells = []
        for t in args.threads:
            v, lim = results[t][name], results[t]["limit: X @ W + Gram"]
            cells.append(f"{v:.4f} | {v / lim:.2f}x | {medians[t][name]:.4f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    first, last = min(args.threads), tmax
    body = (
        f"`python benchmarks/bench_ron_gauss_threads.py`: X = {args.n:,} x {args.m} float64, "
        f"p = {args.p}, unsupervised RON-Gauss (epsilon = 1, seeded), both sides under the same "
        "threadpoolctl BLAS limit, variants interleaved. Before vs now: fresh child processes "
        "alternating the code at " + ", ".join(f"`{rev}`" for rev in args.before)
        + f" (git archive) and this checkout, {args.rounds} "
        f"rounds of best of {args.repeats}, each timed call after a {args.pause:g} s pause (a "
        "quiet BLAS pool). Load average at the end of each thread count: "
        + ", ".join(f"{x:.1f}" for x in loads) + " (2 cores). Target (issue #27): fit "
        "<= 1.2x the limit at 1 and at 2 threads.\n\n" + "\n".join(blines) + "\n\n"
        + "; ".join(verdict) + ".\n\n" + "\n".join(lines) + "\n\n"
        "Seeded `covariance_raw_`, now vs " + ", ".join(
            f"`{rev}`: max abs difference {d:.1e}" for rev, d in diffs.items())
        + " (summation order: the blocked scatter, and since this round its blocks of 8192 rows); "
        f"now at {' and '.join(tl(t) for t in args.threads)}: "
        + ("bit-identical" if same_threads else "NOT bit-identical") + ".\n\n"
        "What changed this round (the previous round is the second 'before' row): (1) the two "
        "halves of each blocked pass are pinned to different CPUs for the pass (Linux "
        "sched_setaffinity; the caller's affinity is restored). The 'halves slow each other' of "
        "the previous round was the scheduler running both threads on one core: every numpy call "
        "hands the GIL to the other thread, the woken thread is placed on the waker's core, and "
        "the pair stays there while the other core idles. results/ron_gauss_split_diag.md "
        "(`python benchmarks/diag_ron_gauss_split.py`) shows it: X_half @ mu, one call per half, "
        "ended with both halves on one CPU in most unpinned runs and then ran no faster than one "
        "thread (medians there); pinned, never, and it runs as fast as two forked processes, and "
        "so does centred_scatter. "
        "Not memory bandwidth (two processes gain), not the GIL as such (the one-call pass has "
        "no GIL traffic during its work), not false sharing (each half sums into its own array). "
        "(2) centred_scatter centres a block's projected rows as a k x rows array (the per-row "
        "scalars broadcast along rows of 8192 values instead of p = 10, numpy's short inner "
        "loops), skips the masked steps when a block has no zero or "
        "cancelling row, and uses blocks of 8192 rows (it keeps only the p projected rows per row "
        "in cache); the same operations on the same values, so bit-identical at equal blocks. "
        "(3) the first pass decides with two reductions (min, max of the squared norms) whether "
        "a block has a row to re-examine, and writes the norms in place. Checked and left: input "
        "validation reads nothing and copies nothing for a float64 array (the row above); the "
        "fit outside its two passes (the DP mean, the second moment's release, the PSD repair) "
        f"costs fit - first pass - centred_scatter = "
        f"{results[first]['RONGauss.fit'] - results[first][URP] - results[first][SCAT]:.4f} s at "
        f"{tl(first)} (bests of the table above). Tried in scratch runs, no gain, no result file: "
        "the product X_b @ W in the transposed layout (W^T X_b^T, column-major Y: faster from "
        "memory, slower once the norms' pass has brought the block into cache), first-pass "
        "blocks of 2048 or 8192 rows, the per-row scalars of a whole half at once (slower: "
        "arrays beyond the caches). What bounds the fit: it reads X "
        "twice where the limit reads it once; the first pass is about the limit's X @ W (the "
        f"gemm with p = {args.p} dominates: {results[first][URP]:.4f} s at {tl(first)} against "
        f"the limit's {results[first][LIM]:.4f} s including its Gram), and the second is the "
        f"memory-bound read X @ mu ({results[first][XMU]:.4f} s at {tl(first)}, "
        f"{results[last][XMU]:.4f} s at {tl(last)}) plus the centring and Gram of the projected "
        "rows. The second read is inherent to computing Algorithm 1 exactly: each centred row's "
        "norm depends on x . mu, and mu is the DP mean, released only after the first pass; the "
        "raw sums Σx, Σxxᵀ cannot give the per-row re-normalisation. At "
        f"{tl(last)} what is left is the hardware the two cores share: the second read gains "
        f"{results[first][XMU] / results[last][XMU]:.2f}x from the second core (X @ mu, "
        "memory-bound), and the first pass's two halves run together slower than one half "
        "alone (the first-pass table of results/ron_gauss_split_diag.md: 'the first half "
        "alone' against 'split, quiet pool'). Straight after a "
        "multi-threaded BLAS call (the last column) OpenBLAS's workers busy-wait on the cores "
        "for ~0.1-0.2 s (OPENBLAS_THREAD_TIMEOUT; lowering the BLAS limit does not park them), "
        "so the fit's second thread shares its core with a spinning worker: out of the "
        "library's control. The GIL test of the numpy products, the quiet / straight-after "
        "comparison of the first pass, the contention table and the second pass's block sizes "
        "are in results/ron_gauss_split_diag.md.")
    print(body)
    if not args.no_write:
        write_section("RON-Gauss fit at 1 and 2 BLAS threads (issue #27)", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
