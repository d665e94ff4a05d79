"""Benchmark: RON-Gauss fit / (X @ W + Gram) at 1 and 2 BLAS threads, with the fit's parts (issue #27).

For each thread count (set with threadpoolctl for both sides), side by side, interleaved, best
of ``--repeats``:

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
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import best_of, write_section  # noqa: E402

from threadpoolctl import threadpool_limits  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, sys, time
import numpy as np
from threadpoolctl import threadpool_limits
from matrixdp.synth import RONGauss, ron_matrix
n, m, p, threads, repeats = (int(a) for a in sys.argv[1:6])
X = np.random.default_rng(0).normal(size=(n, m)) + 0.3
W = ron_matrix(m, p, np.random.default_rng(3))
fns = {"limit": lambda: (lambda Z: Z.T @ Z)(X @ W),
       "fit": lambda: RONGauss(dim=p, epsilon=1.0, random_state=3).fit(X)}
best = {k: float("inf") for k in fns}
with threadpool_limits(limits=threads, user_api="blas"):
    for f in fns.values():
        f()
    for _ in range(repeats):
        for k, f in fns.items():
            t0 = time.perf_counter(); f(); best[k] = min(best[k], time.perf_counter() - t0)
cov = RONGauss(dim=p, epsilon=1.0, random_state=3).fit(X).covariance_raw_
best["cov"] = cov.tolist()
print(json.dumps(best))
"""


def child(src: Path, args, threads: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src))
    out = subprocess.run([sys.executable, "-c", _CHILD, str(args.n), str(args.m), str(args.p),
                          str(threads), str(args.repeats)], env=env, capture_output=True,
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
                    for k in ("limit", "fit"):
                        cur[k] = min(cur[k], got[k])
            print(threads, {k[0]: (round(v["limit"], 4), round(v["fit"], 4))
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
        "limit: X @ W + Gram": lambda: (lambda Z: Z.T @ Z)(X @ W),
        "RONGauss.fit": lambda: RONGauss(dim=args.p, epsilon=1.0, random_state=3).fit(X),
        "part: unit_row_pass with the finiteness check (norms, sum, X @ W; 1 BLAS thread)":
            lambda: unit_row_pass(X, W, check_finite=True),
        "part: X @ mu (second read of X)": lambda: X @ mu,
        "part: centred_scatter (X @ mu, centred rows, Gram; blocked, 1 BLAS thread)":
            lambda: centred_scatter(X, W, r, Y0, mu),
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

    tl = lambda t: f"{t} thread{'s' if t > 1 else ''}"  # noqa: E731
    blines = ["| code | BLAS threads | limit: X @ W + Gram (s) | RONGauss.fit (s) | fit / limit |",
              "|---|---:|---:|---:|---:|"]
    verdict = []
    for t in args.threads:
        for key in ("before", "now"):
            v = ba[(key, t)]
            blines.append(f"| {key if key == 'now' else f'before (`{args.before}`)'} | {t} | "
                          f"{v['limit']:.4f} | {v['fit']:.4f} | {v['fit'] / v['limit']:.2f}x |")
        ratio = ba[("now", t)]["fit"] / ba[("now", t)]["limit"]
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
                       + f"; before {ba[('before', t)]['fit'] / ba[('before', t)]['limit']:.2f}x); "
                       f"the second read of X alone puts the floor at {floor:.2f}x")
    head = "| part (this process, now) | " + " | ".join(f"{tl(t)} (s) | / limit"
                                                      for t in args.threads) + " |"
    lines = [head, "|---|" + "---:|---:|" * len(args.threads)]
    for name in parts:
        cells = []
        for t in args.threads:
            v, lim = results[t][name], results[t]["limit: X @ W + Gram"]
            cells.append(f"{v:.4f} | {v / lim:.2f}x")
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
        "Σx, Σxxᵀ cannot give the per-row re-normalisation). The blocked passes run on one BLAS "
        "thread (cache-sized calls), so at 2 threads the limit's multi-threaded X @ W gains "
        "where the fit does not. Splitting the row blocks into two fixed halves, each summed on "
        "its own thread of one BLAS thread (commit d4408a5, reverted in e959e4a), was measured "
        "again on an idle machine (load 0.8) with this script: fit / limit at 2 threads 2.16x "
        "against 2.13x without it, so it is not kept; what holds the fit back at 2 threads was "
        "not found.")
    print(body)
    if not args.no_write:
        write_section("RON-Gauss fit at 1 and 2 BLAS threads (issue #27)", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
