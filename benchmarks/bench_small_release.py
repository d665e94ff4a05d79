"""Benchmark: the fixed cost of a small release (10 values) with the secure default generator.

Before the per-process secure stream, ``make_rng(None)`` built (and OS-keyed) a new AES-CTR
generator on every call; now it returns the process's stream. Both paths are timed side by
side in one run, interleaved: the old path is reproduced by passing a freshly built secure
generator as ``rng`` (exactly what ``make_rng(None)`` used to return). Writes the "Small
releases" section of BENCHMARKS.md.

Run: ``python benchmarks/bench_small_release.py [--calls N] [--repeats R]``.
Targets: the secure default release costs no more than 1.2x the same release with a reused
numpy PCG64 generator (the generator no longer dominates the cost); and (issue #27) the secure
default ``GaussianMechanism.release`` of 10 values at most 5 us, i.e. (measured as a ratio on a
loaded machine) at most 5 / 1.4 = 3.6x the numpy limit ``x + sigma * PCG64 normal``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import write_section  # noqa: E402

import matrixdp  # noqa: E402
from matrixdp.rng import make_rng, secure_bit_generator  # noqa: E402


def per_call(fn, calls: int, repeats: int) -> float:
    """Best (over ``repeats``) mean wall-clock time of one call, in microseconds."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6


_CHILD = r"""
import sys, time
import numpy as np
import matrixdp
calls, repeats = int(sys.argv[1]), int(sys.argv[2])
x = np.zeros(10)
g = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0)
pcg = np.random.Generator(np.random.PCG64(0))
s = g.sigma
fns = [lambda: x + s * pcg.standard_normal(x.shape), lambda: g.release(x)]
for f in fns:
    f()
best = [float("inf")] * 2
for _ in range(repeats):
    for i, f in enumerate(fns):
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        best[i] = min(best[i], (time.perf_counter() - t0) / calls * 1e6)
print(best[0], best[1])
"""


def child_times(src, calls: int, repeats: int):
    """(numpy limit, secure Gaussian release) in microseconds, for the package at ``src``."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(src), OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", _CHILD, str(calls), str(repeats)], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def before_and_now(rev: str, calls: int, repeats: int, rounds: int = 3):
    """Best-of-``rounds`` child runs of the code at git ``rev`` and of this checkout, alternated."""
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(root), "archive", rev, "src"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        res = {"before": [float("inf")] * 2, "now": [float("inf")] * 2}
        for _ in range(rounds):
            for key, src in (("before", Path(tmp) / "src"), ("now", root / "src")):
                lim, rel = child_times(src, calls, repeats)
                res[key] = [min(res[key][0], lim), min(res[key][1], rel)]
    return res


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--before", default="4d66303",
                        help="git revision timed as 'before' in a child process")
    parser.add_argument("--no-write", action="store_true", help="print only; do not touch BENCHMARKS.md")
    args = parser.parse_args(argv)

    x = np.zeros(args.size)
    mech = matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
    scale = mech.scale
    pcg = np.random.Generator(np.random.PCG64(0))
    gauss = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0)
    sigma = gauss.sigma

    def build_per_call():
        return np.random.Generator(secure_bit_generator())

    rows = [
        ("numpy limit: x + PCG64 Laplace (generator reused)", lambda: x + pcg.laplace(0.0, scale, x.shape)),
        ("make_rng(None) before: a new OS-keyed AES-CTR generator per call", build_per_call),
        ("make_rng(None) now: the per-process secure stream", lambda: make_rng(None)),
        ("LaplaceMechanism.release, secure generator built per call (before)",
         lambda: mech.release(x, rng=build_per_call())),
        ("LaplaceMechanism.release, rng=None (now: per-process stream)", lambda: mech.release(x)),
        ("LaplaceMechanism.release, PCG64 generator reused", lambda: mech.release(x, rng=pcg)),
        ("numpy limit: x + sigma * PCG64 normal (generator reused)",
         lambda: x + sigma * pcg.standard_normal(x.shape)),
        ("GaussianMechanism.release, rng=None (secure default)", lambda: gauss.release(x)),
    ]
    for _, fn in rows:  # warm up (imports, first key schedule)
        fn()
    times = {name: float("inf") for name, _ in rows}
    for _ in range(args.repeats):  # interleave the variants so load affects all alike
        for name, fn in rows:
            times[name] = min(times[name], per_call(fn, args.calls, 1))

    limit = times[rows[0][0]]
    lines = ["| what | microseconds per call | ratio to numpy limit |", "|---|---:|---:|"]
    for name, _ in rows:
        lines.append(f"| {name} | {times[name]:.1f} | {times[name] / limit:.2f}x |")
    before = times[rows[3][0]]
    now = times[rows[4][0]]
    reused = times[rows[5][0]]
    body = (
        f"`python benchmarks/bench_small_release.py`: a {args.size}-value release with "
        f"LaplaceMechanism(epsilon=1, sensitivity=1); mean of {args.calls} calls, best of "
        f"{args.repeats} rounds, variants interleaved. Target: the secure default release within 1.2x "
        "of the same release with a reused PCG64 generator.\n\n" + "\n".join(lines) + "\n\n"
        f"Secure default release: {before:.1f} us before, {now:.1f} us now ({before / now:.1f}x "
        f"faster), {now / reused:.2f}x the release with a reused PCG64 generator "
        f"({'meets' if now <= 1.2 * reused else 'misses'} the 1.2x target). What remains above the "
        "numpy limit is the mechanism's own per-call work (validation, the Release and its "
        "guarantee), not the generator. The stream is keyed from the "
        "OS once per process, re-keyed in a forked child, and refuses pickling and copying, so no "
        "returned object can carry it (see docs/security.md). Seeded runs (rng=int) still build a "
        "PCG64 generator per call and are bit-identical to before.")
    ba = before_and_now(args.before, args.calls, max(1, args.repeats // 2))
    glimit = times[rows[6][0]]
    gnow = times[rows[7][0]]
    glines = ["| what | microseconds per call | ratio to numpy limit |", "|---|---:|---:|"]
    for name, _ in rows[6:]:
        glines.append(f"| {name} | {times[name]:.1f} | {times[name] / glimit:.2f}x |")
    gtarget = 5.0 / 1.4
    gbody = (
        f"`python benchmarks/bench_small_release.py` (same run as \"Small releases\"): a {args.size}-value "
        f"GaussianMechanism(epsilon=1, delta=1e-6, sensitivity=1).release(x) with the secure default "
        f"generator against the numpy limit, mean of {args.calls} calls, best of {args.repeats} "
        "interleaved rounds. Target (issue #27): <= 5 us when the numpy limit is 1.4 us, i.e. "
        f"<= {gtarget:.1f}x the numpy limit measured side by side (the issue's 38 us before was "
        "measured at a 1.4 us limit, 27x; the code before this change is timed below).\n\n"
        + "\n".join(glines) + "\n\n"
        f"Before vs now, same run: fresh child processes alternating the code at `{args.before}` "
        "(git archive) and this checkout, best of 3 each:\n\n"
        "| code | numpy limit (us) | secure Gaussian release of 10 values (us) | ratio |\n"
        "|---|---:|---:|---:|\n"
        + "".join(f"| {k} | {v[0]:.1f} | {v[1]:.1f} | {v[1] / v[0]:.2f}x |\n"
                  for k, v in ba.items())
        + f"\nSpeed-up of the release: {ba['before'][1] / ba['now'][1]:.1f}x.\n\n"
        f"Secure default Gaussian release: {gnow:.1f} us, {gnow / glimit:.2f}x the numpy limit "
        f"({'meets' if gnow <= gtarget * glimit else 'misses'} the {gtarget:.1f}x target; "
        f"{gnow / glimit * 1.4:.1f} us scaled to the 1.4 us limit of an idle machine). Load average "
        f"during the run: {os.getloadavg()[0]:.1f}. What the call still does: validation of the value "
        "(a float64 array: one BLAS dot, whose finite sum of squares proves every entry finite — "
        "no boolean temporary; a non-finite or overflowing sum, or anything else: the full "
        "check), the cached "
        "guarantee and noise summary (frozen, public, per shape; forgotten when the mechanism's "
        "configuration changes), the budget seam (skipped only when no keeper is given or made "
        "default, where charge() is a no-op; with a keeper the charge still precedes the draw), the "
        "secure stream's fork check (os.getpid; the stream is fetched directly for rng=None), the "
        "draw, one in-place scaling and add, and the Release (built without the frozen "
        "dataclass's per-field setattr). Outputs are unchanged (seeded and secure paths draw "
        "the same numbers in the same order).")
    print(gbody)
    if not args.no_write:
        write_section("Small releases", body)
        write_section("Small release: Gaussian, secure default (issue #27)", gbody)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
