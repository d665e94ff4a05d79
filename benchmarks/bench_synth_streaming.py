"""Benchmark: `matrixdp synth` memory does not grow with ``--n`` (rows are streamed in chunks).

Runs the command in a fresh process for several ``--n`` on the same small CSV and reads each
process's peak resident memory (``resource.getrusage(RUSAGE_CHILDREN)`` of a one-shot child,
Linux/macOS) and wall time. Writes the "Synthetic data: streaming to the output file" section
of BENCHMARKS.md.

Run: ``python benchmarks/bench_synth_streaming.py [--sizes 100000 1000000 4000000]``.
Target: peak memory at the largest ``--n`` within 1.2x of the smallest (constant in ``--n``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import write_section  # noqa: E402

SRC = Path(__file__).resolve().parents[1] / "src"

CHILD = """
import resource, subprocess, sys, time
t0 = time.perf_counter()
code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
elapsed = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(code, rss, elapsed)
"""


def run_one(csv: Path, out: Path, n: int) -> tuple[float, float]:
    """(peak RSS in MiB, seconds) of one `matrixdp synth --n n` process."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    cmd = [sys.executable, "-c", CHILD, sys.executable, "-m", "matrixdp", "synth", str(csv),
           "--epsilon", "1", "--dim", "3", "--n", str(n), "--out", str(out), "--force",
           "--quiet", "--seed", "0"]
    code, rss_kib, elapsed = subprocess.check_output(cmd, env=env, text=True).split()
    if int(code) != 0:
        raise RuntimeError(f"matrixdp synth --n {n} failed with status {code}")
    scale = 1024 * 1024 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS
    return int(rss_kib) * 1024 / scale / 1024, float(elapsed)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 4_000_000])
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "table.csv"
        X = rng.uniform(size=(5000, 8))
        np.savetxt(csv, X, delimiter=",", header=",".join(f"f{j}" for j in range(8)), comments="")
        rows = []
        for n in args.sizes:
            rss, seconds = run_one(csv, Path(tmp) / "syn.csv", n)
            rows.append((n, rss, seconds))
            print(f"--n {n:>9}: peak {rss:7.1f} MiB, {seconds:6.1f} s", flush=True)
    ratio = rows[-1][1] / rows[0][1]
    lines = ["`python benchmarks/bench_synth_streaming.py`: `matrixdp synth` on a 5000 x 8 CSV "
             "(unsupervised, dim 3) writing `--n` synthetic rows; peak resident memory of the "
             "whole process and wall time. Rows are sampled and appended in chunks of 50,000. "
             f"Target: peak memory at the largest `--n` within 1.2x of the smallest: **{ratio:.2f}x** "
             f"({'meets' if ratio <= 1.2 else 'misses'} the target).", "",
             "| --n | peak memory (MiB) | seconds |", "|---:|---:|---:|"]
    lines += [f"| {n:,} | {rss:.1f} | {sec:.1f} |" for n, rss, sec in rows]
    if not args.no_write:
        write_section("Synthetic data: streaming to the output file", "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
