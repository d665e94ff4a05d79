"""Benchmark: releasing 10^7 float64 entries with GaussianMechanism.

Compares matrixdp (secure default RNG and seeded PCG64) against the bare numpy
limit ``x + rng.normal(0, sigma, x.shape)`` and, when installed, diffprivlib's
``GaussianAnalytic.randomise`` called per scalar (timed on 10^5 entries and
scaled to 10^7). Writes the "Gaussian release" section of BENCHMARKS.md.

Run: ``python benchmarks/bench_gaussian.py [--entries N] [--repeats R]``.
Target: the secure default within 3x of the numpy limit.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import types
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import write_section  # noqa: E402

import matrixdp  # noqa: E402


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def load_diffprivlib_mechanisms():
    """Import ``diffprivlib.mechanisms`` without the package ``__init__``.

    diffprivlib's top-level import pulls in its models, which fail against recent
    scikit-learn; the mechanisms subpackage itself does not need them.
    """
    try:
        spec = importlib.util.find_spec("diffprivlib")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    if "diffprivlib" not in sys.modules:
        pkg = types.ModuleType("diffprivlib")
        pkg.__path__ = list(spec.submodule_search_locations)
        sys.modules["diffprivlib"] = pkg
    try:
        return importlib.import_module("diffprivlib.mechanisms")
    except Exception as exc:  # pragma: no cover - depends on the installed version
        print(f"diffprivlib unavailable: {exc}", file=sys.stderr)
        return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10 ** 7)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="print only; do not touch BENCHMARKS.md")
    args = parser.parse_args(argv)

    n = args.entries
    x = np.zeros(n)
    mech = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    sigma = mech.sigma

    gen_limit = np.random.default_rng(0)
    t_limit = best_of(lambda: x + gen_limit.normal(0.0, sigma, x.shape), args.repeats)
    t_secure = best_of(lambda: mech.release(x), args.repeats)
    seeded = np.random.Generator(np.random.PCG64(0))
    t_seeded = best_of(lambda: mech.release(x, rng=seeded), args.repeats)
    secure_gen = matrixdp.rng.make_rng()
    t_secure_limit = best_of(lambda: x + secure_gen.normal(0.0, sigma, x.shape), args.repeats)

    rows = [
        ("numpy limit: x + PCG64 normal", t_limit),
        ("numpy + secure AES-CTR generator (bare)", t_secure_limit),
        ("matrixdp GaussianMechanism, secure default rng", t_secure),
        ("matrixdp GaussianMechanism, seeded PCG64", t_seeded),
    ]

    mechs = load_diffprivlib_mechanisms()
    dpl_note = "diffprivlib not installed: skipped."
    if mechs is not None:
        dpl = mechs.GaussianAnalytic(epsilon=1.0, delta=1e-5, sensitivity=1.0)
        k = 10 ** 5
        t_k = best_of(lambda: [dpl.randomise(0.0) for _ in range(k)], 1)
        rows.append((f"diffprivlib GaussianAnalytic.randomise per scalar (10^5 timed, x{n // k})",
                     t_k * n / k))
        dpl_note = ("diffprivlib's mechanisms subpackage was imported without its package "
                    "__init__ (whose models fail to import with scikit-learn >= 1.6).")

    lines = [f"Release of {n:,} float64 entries, epsilon=1, delta=1e-5, sensitivity 1; "
             f"best of {args.repeats}. Target: secure default within 3x of the numpy limit.", "",
             "| variant | seconds | ratio to numpy limit |", "|---|---:|---:|"]
    for name, t in rows:
        lines.append(f"| {name} | {t:.4f} | {t / t_limit:.2f}x |")
    ratio = t_secure / t_limit
    lines += ["", f"Secure default: {ratio:.2f}x the limit "
                  f"({'meets' if ratio <= 3 else 'MISSES'} the 3x target). {dpl_note}"]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section("Gaussian release", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
