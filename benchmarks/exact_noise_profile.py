"""Where the exact Gaussian's CPU goes, part by part, next to the float path (one process).

Times, interleaved round by round with ``time.process_time`` (CPU of this process), a release of
``--entries`` zeros at epsilon=1, delta=1e-5 (secure default generator) on both paths, and the
exact path's parts: the generator's words alone, the table sampler's first round per block
without its special rows, with them, and the whole noise (with the rejected rows' new rounds).
Differences of these give the cost of each part. BLAS runs one thread (set before numpy is
imported) so that idle BLAS workers spinning after the value check do not blur the parts.

    nice -n 10 python benchmarks/exact_noise_profile.py

Writes ``results/exact_noise_profile.txt``.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import matrixdp  # noqa: E402
from matrixdp.mechanisms import exact_sampling as es  # noqa: E402
from matrixdp.rng import secure_stream  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results" / "exact_noise_profile.txt"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    n = args.entries
    exact = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0, numerics="exact")
    flt = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    plan = es._table_plan(exact._plan(n).sigma2)
    rng = secure_stream()
    x = np.zeros(n)
    block = es._TABLE_BLOCK
    work, y = es._TableWork(block), np.empty(block, dtype=np.int64)
    special = es._table_special

    def draws():
        for s in range(0, n, block):
            es._draw_top_bits(rng, min(block, n - s), plan.nbits)

    def first_rounds():
        for s in range(0, n, block):
            es._table_round(y[:min(block, n - s)], plan, rng, work)

    def first_rounds_no_special():
        # timing only: the special rows are left undecided (the output is not used)
        es._table_special = lambda *a: None
        try:
            first_rounds()
        finally:
            es._table_special = special

    parts = {
        "float release (standard normal, scale, add)": lambda: flt.release(x),
        "float: standard normal draw alone": lambda: rng.standard_normal(n),
        "exact release (noise, lattice rounding, scale back)": lambda: exact.release(x),
        "exact: whole noise (first rounds, special rows, new rounds for rejected rows)":
            lambda: es._gaussian_table(n, plan, rng),
        "exact: first round per block with special rows": first_rounds,
        "exact: first round per block without special rows": first_rounds_no_special,
        "exact: generator words alone (one 64-bit word per value)": draws,
    }
    times = {k: [] for k in parts}
    for fn in parts.values():
        fn()
    for _ in range(args.rounds):
        for k, fn in parts.items():
            t0 = time.process_time()
            fn()
            times[k].append(time.process_time() - t0)
    med = {k: float(np.median(v)) for k, v in times.items()}
    best = {k: min(v) for k, v in times.items()}
    keys = list(parts)
    derived = [
        ("passes and gathers of the common row", med[keys[5]] - med[keys[6]]),
        ("special rows (~3.5%) on index arrays", med[keys[4]] - med[keys[5]]),
        ("new rounds for the rejected rows (~0.2%), one per block", med[keys[3]] - med[keys[4]]),
        ("release around the noise (value check, lattice rounding, scale back)", med[keys[2]] - med[keys[3]]),
    ]
    load = os.getloadavg()
    lines = [f"CPU of this process (time.process_time), {args.rounds} interleaved rounds, {n:,} values, "
             f"1 BLAS thread; blocks of {block} values; load average at the end {load[0]:.1f}.",
             f"Produced by benchmarks/exact_noise_profile.py.", "",
             f"{'part':80s} {'best ms':>9s} {'median ms':>10s}"]
    lines += [f"{k:80s} {best[k] * 1e3:9.2f} {med[k] * 1e3:10.2f}" for k in keys]
    lines += ["", "Derived (differences of medians):"]
    lines += [f"{k:80s} {v * 1e3:20.2f}" for k, v in derived]
    lines += ["", f"exact release / float release (medians): {med[keys[2]] / med[keys[0]]:.2f}x; "
              f"exact noise / standard normal draw: {med[keys[3]] / med[keys[1]]:.2f}x"]
    text = "\n".join(lines) + "\n"
    RESULTS.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
