"""Benchmark: a DP covariance release (``DPCovariance.fit``) on data larger than memory, with Dask.

End to end through the estimator: validation against the public box, blockwise clip and sums,
one noise draw on the driver. Three measurements, in one run:

1. **In memory vs Dask on the same data that fits** (float32, 20 features): ``DPCovariance.fit``
   on the numpy array and on a Dask array of the same values (threaded scheduler, both cores);
   the ratio of per-core throughputs (target >= 50%). The numpy path runs on one core
   (``OPENBLAS_NUM_THREADS=1``).
2. **Out of core** (n = 10^6, 10^7, 10^8 rows x 20 float32, generated block by block by Dask's
   random generator and never held whole: 10^8 rows are 7.5 GiB in float32 and 15 GiB in
   float64): wall time, rows/s and peak resident memory (VmHWM of fresh processes), with the
   threaded scheduler (client = workers = one process) and with a ``distributed.LocalCluster`` of
   2 worker processes (the client's and each worker's peak).
3. Linear growth: seconds per 10^6 rows at each n.

Run: ``OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/bench_dask_covariance.py``
(``--max-rows 1e7`` for a quick run). Writes the "Dask covariance release" section of
BENCHMARKS.md and ``results/dask_covariance.csv``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import write_section  # noqa: E402

D = 20
ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "results" / "dask_covariance.csv"


def vm_hwm_mib() -> float:
    """High-water resident memory of this process (VmHWM; not inherited across fork + exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def cpu_seconds() -> float:
    """User + system CPU time of this process, all its threads (less sensitive than wall time
    to other jobs on a shared machine)."""
    import resource

    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def _estimator():
    from matrixdp.models import DPCovariance

    # public unit box, as the generated data; the seed only makes the benchmark replayable
    return DPCovariance(epsilon=1.0, delta=1e-6, bounds=(0.0, 1.0), random_state=0)


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def out_of_core(n: int, chunk: int, scheduler: str) -> dict:
    """One fit on n generated rows in this (fresh) process; returns the measurements."""
    import dask
    import dask.array as da

    client = cluster = None
    if scheduler == "distributed":
        import distributed

        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, memory_limit="4GiB")
        client = distributed.Client(cluster)
    else:
        dask.config.set(scheduler="threads")
    X = da.random.default_rng(7).random((n, D), chunks=(min(chunk, n), D), dtype=np.float32)
    cpu0 = cpu_seconds()
    worker_cpu0 = client.run(cpu_seconds) if client is not None else {}
    t, est = timed(lambda: _estimator().fit(X))
    cpu = cpu_seconds() - cpu0
    assert est.covariance_.shape == (D, D)
    workers = []
    if client is not None:
        cpu += sum(v - worker_cpu0.get(k, 0.0) for k, v in client.run(cpu_seconds).items())
        workers = sorted(client.run(vm_hwm_mib).values())
        client.close()
        cluster.close()
    return dict(n=n, scheduler=scheduler, seconds=t, rows_per_s=n / t, cpu_seconds=cpu,
                client_mib=vm_hwm_mib(), worker_mib=max(workers) if workers else None)


def fits_in_memory(n: int, chunk: int, repeats: int) -> dict:
    import dask
    import dask.array as da

    dask.config.set(scheduler="threads")
    X = np.random.default_rng(1).random((n, D), dtype=np.float32)
    Xd = da.from_array(X, chunks=(chunk, D))
    t_np, t_da, c_np, c_da = [], [], [], []
    for _ in range(repeats):  # interleaved: the machine's load hits both paths alike
        c0 = cpu_seconds()
        t, ref = timed(lambda: _estimator().fit(X))
        t_np.append(t)
        c_np.append(cpu_seconds() - c0)
        c0 = cpu_seconds()
        t, got = timed(lambda: _estimator().fit(Xd))
        t_da.append(t)
        c_da.append(cpu_seconds() - c0)
    np.testing.assert_allclose(got.covariance_, ref.covariance_, rtol=1e-6, atol=1e-9)
    return dict(n=n, numpy_s=min(t_np), dask_s=min(t_da), numpy_cpu=min(c_np),
                dask_cpu=min(c_da))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-rows", type=float, default=1e8)
    parser.add_argument("--chunk-rows", type=float, default=1e6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--one", nargs=2, metavar=("ROWS", "SCHEDULER"), default=None,
                        help="internal: one out-of-core measurement in this process (JSON)")
    args = parser.parse_args(argv)
    chunk = int(args.chunk_rows)
    if args.one is not None:
        print(json.dumps(out_of_core(int(float(args.one[0])), chunk, args.one[1])))
        return
    cores = os.cpu_count() or 1
    blas = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    rows = []

    lines = ["### In memory vs Dask on the same data that fits (float32, 20 features, bounds [0, 1])",
             "", "`DPCovariance(bounds=(0, 1)).fit(X)` on the numpy array and on "
             f"`da.from_array(X, chunks=({chunk:,}, 20))` (threaded scheduler, {cores} threads). "
             f"BLAS threads: {blas}. Best of {args.repeats} interleaved runs.", "",
             "| rows | numpy fit, wall (s) | Dask fit, wall (s) | numpy, CPU (s) | Dask, CPU (s) | "
             "rows per CPU-second, numpy | rows per CPU-second, Dask | Dask / numpy per core |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in (10**6, 4 * 10**6):
        r = fits_in_memory(n, min(chunk, n // 4), args.repeats)
        per_np, per_da = n / r["numpy_cpu"], n / r["dask_cpu"]
        lines.append(f"| {n:,} | {r['numpy_s']:.3f} | {r['dask_s']:.3f} | {r['numpy_cpu']:.3f} | "
                     f"{r['dask_cpu']:.3f} | {per_np:,.0f} | {per_da:,.0f} | "
                     f"{per_da / per_np:.0%} |")
        rows.append(dict(kind="in-memory", n=n, scheduler="numpy", seconds=r["numpy_s"],
                         rows_per_s=n / r["numpy_s"], cpu_seconds=r["numpy_cpu"]))
        rows.append(dict(kind="in-memory", n=n, scheduler="threads", seconds=r["dask_s"],
                         rows_per_s=n / r["dask_s"], cpu_seconds=r["dask_cpu"]))
        print(lines[-1], flush=True)
    lines += ["", "Per core = rows per CPU-second (user + system time of the process, all "
              "threads), which a loaded shared machine distorts less than wall time. ",
              "The numpy path validates and copies the table to float64 (scikit-learn's "
              "validation), clips it and builds the centred records before one Gram product; the "
              "Dask path does clip + Gram per block of float32 rows, in parallel.", ""]

    lines += ["### Out of core: generated block by block, never held whole", "",
              "| rows | float32 size | scheduler | wall (s) | rows/s | CPU (s) | "
              "CPU s per 10^6 rows | peak RSS client (MiB) | peak RSS per worker (MiB) |",
              "|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    n = 10**6
    while n <= args.max_rows:
        for scheduler in ("threads", "distributed"):
            out = subprocess.run([sys.executable, __file__, "--one", str(n), scheduler,
                                  "--chunk-rows", str(chunk)], capture_output=True, text=True)
            if out.returncode != 0:
                print(out.stderr[-2000:], file=sys.stderr)
                lines.append(f"| {n:,} | | {scheduler} | failed | | | | | |")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            worker = f"{r['worker_mib']:,.0f}" if r["worker_mib"] else "(same process)"
            lines.append(f"| {n:,} | {n * D * 4 / 2**30:.2f} GiB | {scheduler} | "
                         f"{r['seconds']:.1f} | {r['rows_per_s']:,.0f} | {r['cpu_seconds']:.1f} | "
                         f"{r['cpu_seconds'] / n * 1e6:.2f} | {r['client_mib']:,.0f} | {worker} |")
            rows.append(dict(kind="out-of-core", n=n, scheduler=scheduler, seconds=r["seconds"],
                             rows_per_s=r["rows_per_s"], cpu_seconds=r["cpu_seconds"],
                             client_mib=r["client_mib"],
                             worker_mib=r["worker_mib"]))
            print(lines[-1], flush=True)
        n *= 10
    lines += ["", f"Chunks of {chunk:,} rows (76 MiB of float32). Generation of the random data "
              "(Dask's PCG64) is included in the times. Peak RSS is VmHWM of fresh processes: "
              "the benchmark's process per size (client; with the threaded scheduler also the "
              "workers) and, for `distributed`, the larger of the 2 worker processes "
              "(`LocalCluster(n_workers=2, threads_per_worker=1, processes=True)`); CPU time adds the "
              "client's and the workers'. The distributed times include starting the cluster's "
              "processes (a few seconds, more under load). Timings on a shared 2-core machine "
              "under load from other jobs: wall times vary between runs; compare rows of one run "
              "and prefer the CPU columns for linearity.",
              "", "Raw numbers: `results/dask_covariance.csv`."]
    CSV.parent.mkdir(exist_ok=True)
    keys = ["kind", "n", "scheduler", "seconds", "rows_per_s", "cpu_seconds", "client_mib",
            "worker_mib"]
    with CSV.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in keys})
    body = "\n".join(lines)
    print(body)
    write_section("Dask covariance release", body)


if __name__ == "__main__":
    main()
