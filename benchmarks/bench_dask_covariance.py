"""Benchmark: a DP covariance release on data larger than memory, with Dask.

Three measurements, side by side in one run:

1. **In memory vs Dask on the same data** (n = 10^6 and 10^7 rows x 20 float32 features, data that
   fits): the exact sufficient statistics (count, sum, Gram) of the clipped table through the
   in-memory path and through a Dask array of the same values (threaded scheduler), so the ratio
   isolates Dask's overhead; reported per core.
2. **Out of core** (n = 10^6, 10^7, 10^8 rows x 20 float32, generated block by block by Dask's
   random generator, never held whole: 10^8 rows are 8 GB in float32 and 16 GB in float64):
   wall time, rows/s and the peak resident memory of the process (threaded scheduler: the client
   and the workers are this process), to show that memory is bounded by the chunk size and time
   grows linearly in n.
3. The release itself (noise on the d x d result, drawn once on the driver) is timed apart: it
   does not depend on n.

Run: ``python benchmarks/bench_dask_covariance.py [--max-rows 1e8] [--chunk-rows 1e6]``.
Writes the "Dask covariance release" section of BENCHMARKS.md.
Targets (issue): peak memory <= 2 GiB for any n; throughput >= 50% of the in-memory numpy path per
core on data that fits; linear growth in n.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import write_section  # noqa: E402

import dask  # noqa: E402
import dask.array as da  # noqa: E402

from matrixdp._record_sums import bounded_record_sums  # noqa: E402

D = 20


def peak_rss_mib() -> float:
    """High-water resident memory of this process (VmHWM: unlike ru_maxrss, not inherited
    from the parent across fork + exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def release_covariance(sums, epsilon=1.0, delta=1e-6, rng=0):
    """Covariance release from public-bounds sums via the estimator when available."""
    from matrixdp import GaussianMechanism

    # Public unit box [0, 1]^d, replace-one: the Gram changes by x xᵀ - x' x'ᵀ, Frobenius <= d.
    mech = GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=float(D))
    return mech.release(sums.gram, rng=rng)


def out_of_core_row(n: int, chunk: int) -> str:
    """Generate n x D float32 rows block by block and reduce them; one markdown row."""
    dask.config.set(scheduler="threads")
    gen = da.random.default_rng(7)
    X = gen.random((n, D), chunks=(min(chunk, n), D), dtype=np.float32)
    t, sums = timed(lambda: bounded_record_sums(X, 0.0, 1.0))
    assert sums.n == n
    return (f"| {n:,} | {n * D * 4 / 2**30:.2f} GiB | {t:.2f} | {n / t:,.0f} | "
            f"{peak_rss_mib():,.0f} |")


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-rows", type=float, default=1e8)
    parser.add_argument("--chunk-rows", type=float, default=1e6)
    parser.add_argument("--out-of-core-rows", type=float, default=None,
                        help="internal: run one out-of-core measurement in this process and print it")
    args = parser.parse_args(argv)
    if args.out_of_core_rows is not None:
        print(out_of_core_row(int(args.out_of_core_rows), int(args.chunk_rows)))
        return
    chunk = int(args.chunk_rows)
    cores = os.cpu_count() or 1
    dask.config.set(scheduler="threads")

    lines = ["### In memory vs Dask on the same in-memory data (float32, 20 features, bounds [0, 1])", "",
             f"BLAS threads: {os.environ.get('OPENBLAS_NUM_THREADS', 'default')} "
             "(run with OPENBLAS_NUM_THREADS=1 so Dask's threads and BLAS's do not oversubscribe "
             "the cores).", "",
             "| rows | numpy path (s) | Dask path, threads (s) | Dask / numpy time | rows/s per core, numpy | rows/s per core, Dask |",
             "|---:|---:|---:|---:|---:|---:|"]
    for n in (10**6, 10**7):
        if n > args.max_rows:
            break
        X = np.random.default_rng(1).random((n, D), dtype=np.float32)
        t_np, ref = timed(lambda: bounded_record_sums(X, 0.0, 1.0))
        t_np = min(t_np, timed(lambda: bounded_record_sums(X, 0.0, 1.0))[0])
        Xd = da.from_array(X, chunks=(chunk, D))
        t_da, got = timed(lambda: bounded_record_sums(Xd, 0.0, 1.0))
        t_da = min(t_da, timed(lambda: bounded_record_sums(Xd, 0.0, 1.0))[0])
        assert got.n == ref.n and np.allclose(got.gram, ref.gram, rtol=1e-9)
        lines.append(f"| {n:,} | {t_np:.3f} | {t_da:.3f} | {t_da / t_np:.2f}x | "
                     f"{n / t_np / 1:,.0f} | {n / t_da / cores:,.0f} |")
        del X, Xd
    lines += ["", "The numpy path runs one BLAS call per chunk of 65,536 rows on one core (BLAS may use "
              "both); the Dask path runs one task per chunk of the given size on a thread per core. "
              "Per-core throughput divides Dask's rows/s by the cores it used.", ""]

    lines += ["### Out of core: data generated block by block, never held whole", "",
              "| rows | float32 size | wall (s) | rows/s | peak RSS of the process (MiB) |",
              "|---:|---:|---:|---:|---:|"]
    n = 10**6
    while n <= args.max_rows:
        # A fresh process per size, so the peak RSS is this size's alone.
        out = subprocess.run([sys.executable, __file__, "--out-of-core-rows", str(n),
                              "--chunk-rows", str(chunk)], capture_output=True, text=True, check=True)
        lines.append(out.stdout.strip().splitlines()[-1])
        print(lines[-1], flush=True)
        n *= 10
    sums = bounded_record_sums(np.random.default_rng(2).random((1000, D)), 0.0, 1.0)
    t_rel, rel = timed(lambda: release_covariance(sums))
    lines += ["", f"Generation of the random data is included in the out-of-core times (Dask's PCG64, "
              f"float32). Chunks of {chunk:,} rows; threaded scheduler on {cores} cores. The release on "
              f"the {D}x{D} result (one noise draw on the driver) takes {t_rel * 1e3:.2f} ms, whatever n. "
              "Peak RSS is the high-water mark of a fresh process per size (client and threaded workers "
              "are one process), including the Python interpreter and the imported libraries."]
    body = "\n".join(lines)
    print(body)
    write_section("Dask covariance release", body)


if __name__ == "__main__":
    main()
