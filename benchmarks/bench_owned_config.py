"""Benchmark: the cost of copying configuration on the way in (the constructor seam).

Every ``Mechanism`` and query receives its constructor arguments through
:func:`matrixdp._owned.owned` (read-only copies of arrays, a deep copy of a query). This
script times, paired and interleaved in one process (one BLAS thread), the construction of an
``MVGMechanism`` with random orthonormal directions at d = 2000 — the largest array a mechanism is
configured with (32 MB) — through the seam and with the seam bypassed (the class's unwrapped
``__init__``, which then shares the caller's arrays: what the code did before the seam), next to
one release of a (50, d) value. A release copies nothing: it is timed for scale only. The
fixed cost of the seam on a small mechanism (``GaussianMechanism``, scalar arguments, built
per release by some estimators) is timed the same way, over batches of constructions.

Run: ``python benchmarks/bench_owned_config.py [--dim 2000] [--repeats 7]``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from _report import write_section  # noqa: E402


def main(argv=None) -> None:
    import time

    ap = argparse.ArgumentParser()
    ap.add_argument("--dim", type=int, default=2000)
    ap.add_argument("--records", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--batch", type=int, default=2000)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits

    from matrixdp.mechanisms import MVGMechanism
    from matrixdp.queries import IdentityQuery
    from matrixdp.rng import random_directions

    threadpool_limits(1)
    d, n = args.dim, args.records
    D = random_directions(d, d, rng=0)
    q = IdentityQuery(bounds=(0.0, 1.0), n_features=d, n_samples=n)
    kwargs = dict(shape=(n, d), epsilon=1.0, delta=1e-5, sensitivity=q, directions=D)
    unwrapped = MVGMechanism.__init__.__wrapped__

    def seam():
        return MVGMechanism(**kwargs)

    def bypass():
        mech = MVGMechanism.__new__(MVGMechanism)
        unwrapped(mech, **kwargs)
        return mech

    value = np.random.default_rng(1).uniform(size=(n, d))
    mech = seam()
    same = bool(np.array_equal(mech.precisions, bypass().precisions))
    times = {"seam": [], "bypass": [], "release": []}
    for _ in range(args.repeats):          # interleaved: each sees the same load
        for name, fn in (("seam", seam), ("bypass", bypass),
                         ("release", lambda: mech.release(value, rng=0))):
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    from matrixdp.mechanisms import GaussianMechanism

    g_unwrapped = GaussianMechanism.__init__.__wrapped__
    g_kwargs = dict(epsilon=1.0, delta=1e-5, sensitivity=1.0)

    def g_seam():
        for _ in range(args.batch):
            GaussianMechanism(**g_kwargs)

    def g_bypass():
        for _ in range(args.batch):
            g_unwrapped(GaussianMechanism.__new__(GaussianMechanism), **g_kwargs)

    small = {"seam": [], "bypass": []}
    for _ in range(args.repeats):
        for name, fn in (("seam", g_seam), ("bypass", g_bypass)):
            t0 = time.perf_counter()
            fn()
            small[name].append((time.perf_counter() - t0) / args.batch)
    g_best = {k: min(v) for k, v in small.items()}
    best = {k: min(v) for k, v in times.items()}
    med = {k: float(np.median(v)) for k, v in times.items()}
    copy_t = min(
        (lambda t0: (np.array(D, copy=True), time.perf_counter() - t0)[1])(time.perf_counter())
        for _ in range(args.repeats))
    load = os.getloadavg()[0]
    lines = [
        "| construction | best (s) | median (s) | / one release (best) |",
        "|---|---:|---:|---:|",
        f"| through the seam (copies D once, copies the query object) | {best['seam']:.4f} | "
        f"{med['seam']:.4f} | {best['seam'] / best['release']:.2f}x |",
        f"| seam bypassed (shares the caller's D and query) | {best['bypass']:.4f} | "
        f"{med['bypass']:.4f} | {best['bypass'] / best['release']:.2f}x |",
        f"| one release (copies nothing) | {best['release']:.4f} | {med['release']:.4f} | 1.00x |",
    ]
    body = "\n".join([
        f"`MVGMechanism(shape=({n}, {d}), sensitivity=IdentityQuery(bounds=(0, 1)), "
        f"directions=<random orthonormal {d}x{d}>)`, one BLAS thread. Produced by "
        f"`benchmarks/bench_owned_config.py`: the three rows interleaved in one process, "
        f"{args.repeats} rounds. Load average at the end: {load:.1f} (2 cores, shared).", "",
        *lines, "",
        f"The seam costs {best['seam'] - best['bypass']:+.4f} s per construction (best) "
        f"({best['seam'] / best['bypass']:.2f}x the bypassed construction); a bare copy of D "
        f"({D.nbytes / 2**20:.0f} MB) takes {copy_t:.4f} s here. Same calibration both ways: "
        f"{same}. Nothing is copied per release (tests/mechanisms/test_contract.py counts the "
        f"copies: one of D per construction, none per release).", "",
        "| small mechanism: `GaussianMechanism(epsilon=1, delta=1e-5, sensitivity=1)` | "
        "best per construction (µs) |", "|---|---:|",
        f"| through the seam | {1e6 * g_best['seam']:.1f} |",
        f"| seam bypassed | {1e6 * g_best['bypass']:.1f} |", "",
        f"Fixed cost of the seam: {1e6 * (g_best['seam'] - g_best['bypass']):+.1f} µs per "
        f"construction (batches of {args.batch}, best of {args.repeats})."])
    print(body)
    if not args.no_write:
        write_section("Configuration copied on the way in", body)


if __name__ == "__main__":
    main()
