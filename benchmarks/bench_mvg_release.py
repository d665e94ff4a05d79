"""Benchmark: MVGMechanism.release of a 2000 x 2000 value with full (non-diagonal) Σ and Ψ.

The limit is what any implementation must do per release: draw the same N(0, 1) matrix from the
same generator and apply the two precomputed factors, ``x + B_Σ N B_Ψᵀ``, in bare numpy. The
mechanism precomputes its factors at construction (eigen-form ``W diag(√λ)``, no decomposition).
Also times the Kronecker (vec) route at a size where its ``mn x mn`` factor still fits.
Writes the "MVG release" section of BENCHMARKS.md.

Run: ``python benchmarks/bench_mvg_release.py [--size N] [--repeats R] [--no-write]``.
Target: the seeded release within 1.5x of the limit.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import best_of, write_section  # noqa: E402

import matrixdp  # noqa: E402
from matrixdp.mechanisms.mvg_sampler import MVGSampler  # noqa: E402
from matrixdp.rng import make_rng  # noqa: E402


def random_rotation(d: int, rng) -> np.ndarray:
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diagonal(r))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--kron-size", type=int, default=40)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    n = args.size
    gen = np.random.default_rng(0)
    value = gen.uniform(-1, 1, size=(n, n))
    value = 0.5 * (value + value.T)
    directions = random_rotation(n, gen)
    theta = gen.dirichlet(np.ones(n))

    t0 = time.perf_counter()
    mech = matrixdp.MVGMechanism(shape=(n, n), epsilon=1.0, delta=1e-6, sensitivity=1.0,
                                 mode="equimodal", directions=directions, precision=theta)
    t_build = time.perf_counter() - t0
    row_cov = mech.row_cov
    assert np.count_nonzero(row_cov - np.diag(np.diagonal(row_cov))) > 0  # full, not diagonal
    b_row = directions * np.sqrt(mech._row_eig.variances)
    b_col = directions * np.sqrt(mech._col_eig.variances)

    def limit():
        rng = np.random.default_rng(1)
        noise = rng.standard_normal((n, n))
        return value + (b_row @ noise) @ b_col.T

    def limit_secure():
        rng = make_rng(None)
        noise = rng.standard_normal((n, n))
        return value + (b_row @ noise) @ b_col.T

    # interleave the variants so that load from other processes hits them alike
    variants = [limit, limit_secure, lambda: mech.release(value, rng=np.random.default_rng(1)),
                lambda: mech.release(value)]
    best = [math.inf] * len(variants)
    for _ in range(args.repeats):
        for i, fn in enumerate(variants):
            best[i] = min(best[i], best_of(fn, 1))
    t_limit, t_limit_secure, t_seeded, t_secure = best
    # same draw => same output (the mechanism adds exactly B_row N B_colᵀ)
    same = np.allclose(mech.release(value, rng=np.random.default_rng(1)).value, limit(),
                       rtol=1e-9, atol=1e-9 * np.abs(limit()).max())

    k = args.kron_size
    cov_k = random_rotation(k, gen) @ np.diag(gen.uniform(0.5, 2, k))
    cov_k = cov_k @ cov_k.T
    t_kron_setup = best_of(lambda: MVGSampler(cov_k, cov_k, method="kronecker"), 1)
    kron = MVGSampler(cov_k, cov_k, method="kronecker")
    aff = MVGSampler(cov_k, cov_k, method="affine")
    kron.sample(rng=1), aff.sample(rng=1)  # warm-up
    t_kron = best_of(lambda: [kron.sample(rng=1) for _ in range(100)], args.repeats) / 100
    t_aff = best_of(lambda: [aff.sample(rng=1) for _ in range(100)], args.repeats) / 100

    lines = [f"Release of a {n}x{n} value, equimodal noise with random full (non-diagonal) "
             f"Σ = Ψ, exact calibration, epsilon=1, delta=1e-6; best of {args.repeats}, variants interleaved. "
             "Limit = the same N(0,1) draw plus two matrix products with precomputed factors in "
             "bare numpy. Target: seeded release within 1.5x of the limit.", "",
             "| variant | seconds | ratio to limit |", "|---|---:|---:|",
             f"| numpy limit: PCG64 draw + B_row N B_colᵀ + x | {t_limit:.3f} | 1.00x |",
             f"| numpy limit with the secure AES-CTR generator | {t_limit_secure:.3f} | "
             f"{t_limit_secure / t_limit:.2f}x |",
             f"| matrixdp MVGMechanism.release, seeded PCG64 | {t_seeded:.3f} | "
             f"{t_seeded / t_limit:.2f}x |",
             f"| matrixdp MVGMechanism.release, secure default rng | {t_secure:.3f} | "
             f"{t_secure / t_limit:.2f}x |", "",
             f"Construction (validation, exact calibration, factors): {t_build:.2f} s, once. "
             f"Seeded release equals the limit's output for the same draw: {same}.", "",
             f"Kronecker (vec) route at {k}x{k} (an {k * k}x{k * k} factor): set-up "
             f"{t_kron_setup:.3f} s, {t_kron * 1e3:.2f} ms per draw vs affine "
             f"{t_aff * 1e3:.3f} ms per draw ({t_kron / t_aff:.3g}x). "
             f"The Kronecker route at {n}x{n} would need a {n * n:,}-square matrix "
             f"({(n * n) ** 2 * 8 / 1e12:.0f} TB), so it is refused above m*n = 4096."]
    ratio = t_seeded / t_limit
    lines += ["", f"Seeded release: {ratio:.2f}x the limit "
                  f"({'meets' if ratio <= 1.5 else 'MISSES'} the 1.5x target). The machine is "
                  "shared with other jobs, so absolute times vary up to ~4x between runs; the "
                  "interleaved ratios are the meaningful numbers."]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section("MVG release", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
