"""Benchmark of the MVG sampler: affine route vs the bare numpy limit, and the Kronecker route.

The *limit* is what any affine MVG sampler must do at least: draw the m x n
standard normals and multiply by precomputed factors on both sides
(``B_Σ @ N @ B_Ψᵀ``, two dense matmuls). We time:

- ``sample_mvg`` with dense full (non-diagonal) Σ and Ψ: validation, two Cholesky
  factorisations, the draw and two triangular products (BLAS trmm);
- ``MVGSampler.sample`` with the factors cached (what a mechanism does per release);
- ``sample_mvg`` with ``EigenCov`` inputs (the mechanism's directional form, no decomposition);
- the Kronecker route at a size where the (mn x mn) covariance still fits.

Run: ``python benchmarks/bench_mvg_sampler.py [--size 2000] [--repeat 3]``. Prints a
markdown table and writes the section "MVG sampler" of BENCHMARKS.md (other
sections are kept).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import write_section  # noqa: E402

from matrixdp.mechanisms.mvg_sampler import EigenCov, MVGSampler, sample_mvg  # noqa: E402

SECTION = "MVG sampler"


def _spd(dim: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q, _ = np.linalg.qr(rng.standard_normal((dim, dim)))
    lam = np.exp(rng.uniform(-1, 1, dim))
    cov = (q * lam) @ q.T
    return 0.5 * (cov + cov.T), q, lam


def _interleaved(funcs: list, repeat: int) -> list[float]:
    """Best-of-``repeat`` times, running the candidates in turn each round (fair on a shared machine)."""
    best = [float("inf")] * len(funcs)
    for _ in range(repeat):
        for i, func in enumerate(funcs):
            t0 = time.perf_counter()
            func()
            best[i] = min(best[i], time.perf_counter() - t0)
    return best


def run(size: int, kron_shape: tuple[int, int], repeat: int) -> list[tuple[str, str, float, str]]:
    rng = np.random.default_rng(0)
    row_cov, row_q, row_lam = _spd(size, rng)
    col_cov, col_q, col_lam = _spd(size, rng)
    row_b = np.linalg.cholesky(row_cov)
    col_b = np.linalg.cholesky(col_cov)

    def limit():
        noise = np.random.default_rng(1).standard_normal((size, size))
        return row_b @ noise @ col_b.T

    sampler = MVGSampler(row_cov, col_cov)
    row_e, col_e = EigenCov(row_lam, row_q), EigenCov(col_lam, col_q)
    candidates = [
        ("bare limit: draw + 2 matmuls by precomputed factors (numpy)", limit),
        ("sample_mvg, dense full Σ, Ψ (validate + 2 Cholesky + trmm)",
         lambda: sample_mvg(row_cov, col_cov, rng=np.random.default_rng(1))),
        ("MVGSampler.sample, factors cached (per-release cost of a mechanism)",
         lambda: sampler.sample(np.random.default_rng(1))),
        ("sample_mvg, EigenCov Σ, Ψ (W diag(√λ), no decomposition)",
         lambda: sample_mvg(row_e, col_e, rng=np.random.default_rng(1))),
    ]
    times = _interleaved([f for _, f in candidates], repeat)
    rows = [(label, f"{size}x{size}", t, f"{t / times[0]:.2f}x")
            for (label, _), t in zip(candidates, times)]

    m, n = kron_shape
    small_row, _, _ = _spd(m, rng)
    small_col, _, _ = _spd(n, rng)
    sb_row, sb_col = np.linalg.cholesky(small_row), np.linalg.cholesky(small_col)
    small = [
        ("bare limit: draw + 2 matmuls by precomputed factors (numpy)",
         lambda: sb_row @ np.random.default_rng(1).standard_normal((m, n)) @ sb_col.T),
        ("sample_mvg, affine", lambda: sample_mvg(small_row, small_col, rng=1)),
        ("sample_mvg, Kronecker (factor the mn x mn Ψ⊗Σ)",
         lambda: sample_mvg(small_row, small_col, rng=1, method="kronecker")),
    ]
    times = _interleaved([f for _, f in small], repeat)
    rows += [(label, f"{m}x{n}", t, f"{t / times[0]:.2f}x") for (label, _), t in zip(small, times)]
    return rows


def table(rows) -> str:
    lines = ["| what | shape | best time (s) | vs limit |", "|---|---|---|---|"]
    lines += [f"| {label} | {shape} | {t:.4f} | {ratio} |" for label, shape, t, ratio in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--kron", type=int, nargs=2, default=(40, 50), metavar=("M", "N"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows = run(args.size, tuple(args.kron), args.repeat)
    md = table(rows)
    print(md)
    big = [r for r in rows if r[1] == f"{args.size}x{args.size}"]
    dense = big[1][2] / big[0][2]
    verdict = "meets" if dense <= 1.5 else "misses"
    body = (f"`python benchmarks/bench_mvg_sampler.py --repeat {args.repeat}`: one draw of "
            f"MVG(0, Σ, Ψ) with dense, full (non-diagonal) Σ and Ψ; best of {args.repeat}, "
            "candidates interleaved each round; the same PCG64 draw in every row. Target: dense "
            f"`sample_mvg` within 1.5x of the limit: **{dense:.2f}x** ({verdict} the target).\n\n"
            f"{md}\n\n"
            "The limit multiplies one standard-normal draw by *precomputed* Cholesky factors (two "
            "dense matmuls). `sample_mvg` on dense matrices also validates both covariances "
            "(symmetry, finiteness) and Cholesky-factors them, then applies the triangular factors "
            "with BLAS `trmm` (half the flops of a dense product); with the factors cached "
            "(`MVGSampler`, what a mechanism does per release) or given in eigen-form (`EigenCov`, "
            "how the MVG mechanism builds Σ = W diag(λ) Wᵀ) no factorisation is needed. The "
            "Kronecker route factors the (mn x mn) covariance, O((mn)^3): a test reference only "
            "(allowed up to mn = 4096). The machine is shared by several agents, so timings "
            "fluctuate between runs; the dense row is the most load-sensitive (LAPACK potrf "
            "scales worse than gemm on a busy machine: it measured 2.0x at load average 6 on "
            "the 2 cores, 1.4x at load 4).\n")
    if not args.no_write:
        write_section(SECTION, body)


if __name__ == "__main__":
    main()
