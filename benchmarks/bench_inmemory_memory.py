"""Benchmark: peak extra memory of the in-memory second-moment estimators (issue #27).

DPCovariance, DPPCA and DPLinearRegression on a numpy table now clip, centre and sum the records
in row chunks (``matrixdp._record_sums``, as for Dask input) instead of building a clipped copy
and the augmented table. Each fit runs in its own fresh subprocess, measured with tracemalloc
(numpy registers its allocations with it): peak traced bytes during ``fit`` minus those before,
divided by the input's size. "before" runs the same script on the code of a given git revision
(default ``c0d2e39``, the integration branch before this change, unpacked with ``git archive``
into a temporary directory), "now" on this checkout, interleaved, in one run. The script also
reports the largest difference between the seeded outputs of before and now (summation order
only) for each estimator.

Run: ``python benchmarks/bench_inmemory_memory.py [--rows N] [--cols D] [--before REV]``.
Target: peak extra memory <= 0.25x the input.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import write_section  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, tracemalloc
import numpy as np
import matrixdp
from matrixdp.models import DPCovariance, DPPCA, DPLinearRegression

which, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(0)
X = rng.uniform(-1.2, 1.2, size=(n, d))        # some entries outside the public box: clipped
y = X[:, :3].sum(axis=1) + rng.normal(0, 0.1, n)
bounds = (-np.ones(d), np.ones(d))
if which == "DPCovariance":
    est = DPCovariance(epsilon=1.0, delta=1e-6, bounds=bounds, random_state=7)
    args = (X,)
elif which == "DPPCA":
    est = DPPCA(epsilon=1.0, delta=1e-6, bounds=bounds, n_components=3, random_state=7)
    args = (X,)
else:
    est = DPLinearRegression(epsilon=1.0, delta=1e-6, bounds_X=bounds, bounds_y=(-4.0, 4.0),
                             random_state=7)
    args = (X, y)
tracemalloc.start()
base = tracemalloc.get_traced_memory()[0]
est.fit(*args)
peak = tracemalloc.get_traced_memory()[1] - base
tracemalloc.stop()
out = {"peak": peak, "input": X.nbytes + (y.nbytes if which == "DPLinearRegression" else 0)}
for name in ("covariance_", "components_", "coef_", "moments_"):
    if hasattr(est, name):
        out[name] = np.asarray(getattr(est, name)).tolist()
print(json.dumps(out))
"""


def run(src: Path, which: str, n: int, d: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src), OPENBLAS_NUM_THREADS="1")
    res = subprocess.run([sys.executable, "-c", CHILD, which, str(n), str(d)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    import numpy as np

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--cols", type=int, default=20)
    parser.add_argument("--before", default="c0d2e39")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "src"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        before_src = Path(tmp) / "src"
        lines = ["| estimator | input (MB) | before: peak extra (MB) | before / input | "
                 "now: peak extra (MB) | now / input | target <= 0.25x | max abs diff of seeded "
                 "outputs (before vs now) |", "|---|---:|---:|---:|---:|---:|---|---|"]
        verdicts = []
        for which in ("DPCovariance", "DPPCA", "DPLinearRegression"):
            b = run(before_src, which, args.rows, args.cols)
            a = run(ROOT / "src", which, args.rows, args.cols)
            diffs = []
            for key in ("moments_", "covariance_", "components_", "coef_"):
                if key in a and key in b:
                    diffs.append(f"{key} {np.max(np.abs(np.subtract(a[key], b[key]))):.1e}")
            ratio_b, ratio_a = b["peak"] / b["input"], a["peak"] / a["input"]
            verdicts.append(ratio_a <= 0.25)
            lines.append(f"| {which} | {a['input'] / 2**20:.0f} | {b['peak'] / 2**20:.1f} | "
                         f"{ratio_b:.2f}x | {a['peak'] / 2**20:.1f} | {ratio_a:.3f}x | "
                         f"{'met' if ratio_a <= 0.25 else 'MISSED'} | {'; '.join(diffs)} |")
    body = (
        f"`python benchmarks/bench_inmemory_memory.py`: X = {args.rows:,} x {args.cols} float64 "
        "uniform on [-1.2, 1.2] (public box [-1, 1]: some entries are clipped), epsilon = 1, "
        "delta = 1e-6, random_state = 7. Peak extra = tracemalloc peak of the traced (numpy) "
        "allocations during `fit`, each fit in a fresh process; before = the code at "
        f"`{args.before}` (git archive), now = this checkout, run side by side. Target (issue #27): "
        "<= 0.25x the input.\n\n" + "\n".join(lines) + "\n\n"
        f"{'All three meet' if all(verdicts) else 'Not all meet'} the target. What remains is one "
        "row chunk of the clipped, centred records (min(65,536, max(4,096, n/8)) rows x d "
        "float64; for the regression the chunk of [X y], built once) and the d x d sums: about "
        "1/8 of the input, more only for tables under 32,768 rows (where the 4,096-row floor "
        "keeps BLAS calls large), plus the public planning of the noise, which depends on d only (for d + 1 <= 16 the exact box maximisation enumerates 2^(d+1) vertices: a few MB, independent of n). Before, the fit held a clipped copy of X, the augmented table Z and the query's own clipped copy of Z at once (about 4x the input, more than the issue's 'a full copy + a clipped copy'). The seeded outputs differ from before in the last bits only (summation "
        "order: row chunks instead of one Gram of the whole table); the changed outputs are "
        "`moments_` and everything derived from it (`covariance_`, `location_`, `components_`, "
        "`coef_`, `intercept_`) of DPCovariance, DPPCA and DPLinearRegression (and "
        "DPRidge, which shares the regression's fit) on numpy input.")
    print(body)
    if not args.no_write:
        write_section("In-memory estimators: peak extra memory (issue #27)", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
