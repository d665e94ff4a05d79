"""Benchmark: exact projection onto public feasible sets for badly scaled releases (d = 10, 50, 200).

Covariance releases whose public feature ranges run from 0.5 to 700 (variance bounds
``(range/2)²`` from 0.0625 to 122,500), with Gaussian noise proportional to the public scales
so that variance bounds and the PSD cone both bind. In one run, for each d:

* ``project_covariance`` (semismooth Newton on the dual over the diagonal multipliers, now);
* the same projection by Dykstra's alternating projections (``project_psd_box(...,
  method="dykstra")``, the previous solver) with its previous defaults (tol 1e-10, 500 sweeps);
* ``project_psd_box`` on second-moment bounds of records in ``[0, range]`` (every entry >= 0, a
  bound PSD does not imply): projected Newton on the dual over the matrix of multipliers,
  warm-started from the diagonal solution (Dykstra only as a fallback, which no row needs);
* ``nearest_correlation`` of the release scaled to unit variances.

Reported: best-of time, whether the method met its stopping rule, the worst violation of a
diagonal bound relative to that bound (``max_i (C_ii - v_i)_+ / v_i``) and of any entry's bound
relative to that bound's scale ``max(|l_ij|, |u_ij|)``.

Run: ``python benchmarks/bench_feasible.py [--repeats 3]``. BLAS is limited to one thread.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from _report import best_of, write_section  # noqa: E402

from matrixdp import feasible  # noqa: E402


def release(d, seed=0):
    rng = np.random.default_rng(seed)
    ranges = np.geomspace(0.5, 700.0, d)
    lo = -ranges / 2
    hi = ranges / 2
    v = ranges ** 2 / 4
    a = rng.standard_normal((d, 2 * d))
    c = a @ a.T / (2 * d)
    s = np.sqrt(np.diag(c))
    true = c / np.outer(s, s) * np.sqrt(np.outer(v, v)) * 0.8
    e = rng.standard_normal((d, d)) * np.sqrt(np.outer(v, v)) * 0.7
    return true + (e + e.T) / 2, v, lo, hi


def diag_violation(m, v):
    return float(np.max(np.maximum(np.diag(m) - v, 0.0) / v))


def entry_violation(m, lo, hi):
    scale = np.maximum(np.abs(lo), np.abs(hi))
    scale = np.where(scale > 0, scale, 1.0)
    return float(np.max(np.maximum(np.maximum(lo - m, m - hi), 0.0) / scale))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dims", type=int, nargs="+", default=[10, 50, 100, 200])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    rows = []
    for d in args.dims:
        noisy, v, lo, hi = release(d)
        clo, chi = feasible.covariance_entry_bounds(v)
        res = feasible.project_psd_diagonal(noisy, 0.0, v, return_info=True)
        t_newton = best_of(lambda: feasible.project_covariance(noisy, variance_max=v), args.repeats)
        rows.append((d, "covariance: dual Newton (`project_covariance`)", t_newton, res.converged,
                     f"{res.iterations} Newton steps", diag_violation(res.matrix, v),
                     entry_violation(res.matrix, clo, chi), np.linalg.norm(res.matrix - noisy)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            dyk = feasible.project_psd_box(noisy, clo, chi, return_info=True, method="dykstra")
            t_dyk = best_of(lambda: feasible.project_psd_box(noisy, clo, chi, method="dykstra"), 1)
        rows.append((d, "covariance: Dykstra (previous solver, tol 1e-10, 500 sweeps)", t_dyk,
                     dyk.converged, f"{dyk.iterations} sweeps", diag_violation(dyk.matrix, v),
                     entry_violation(dyk.matrix, clo, chi), np.linalg.norm(dyk.matrix - noisy)))
        # records in [0, range]: second moments are >= 0 entrywise, a bound PSD does not imply
        mlo, mhi = feasible.second_moment_entry_bounds(np.zeros(d), hi - lo)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            gram = feasible.project_psd_box(noisy, mlo, mhi, return_info=True)
            t_gram = best_of(lambda: feasible.project_psd_box(noisy, mlo, mhi), args.repeats)
            first = feasible.project_psd_diagonal(noisy, np.maximum(np.diag(mlo), 0.0),
                                                  np.diag(mhi), return_info=True)
            steps = feasible._box_projected_newton(noisy, mlo, mhi, tol=1e-12, max_iter=300,
                                                   y0=np.diag(first.dual)).iterations
        rows.append((d, "second moments: entrywise box (`project_psd_box`)", t_gram, gram.converged,
                     f"{steps} projected Newton steps" if gram.iterations == 0
                     else f"{gram.iterations} Dykstra sweeps",
                     diag_violation(gram.matrix, np.diag(mhi)),
                     entry_violation(gram.matrix, mlo, mhi), np.linalg.norm(gram.matrix - noisy)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            gdyk = feasible.project_psd_box(noisy, mlo, mhi, return_info=True, method="dykstra")
            t_gdyk = best_of(lambda: feasible.project_psd_box(noisy, mlo, mhi, method="dykstra"), 1)
        rows.append((d, "second moments: Dykstra (tol 1e-10, 500 sweeps)", t_gdyk, gdyk.converged,
                     f"{gdyk.iterations} sweeps", diag_violation(gdyk.matrix, np.diag(mhi)),
                     entry_violation(gdyk.matrix, mlo, mhi), np.linalg.norm(gdyk.matrix - noisy)))
        corr = noisy / np.sqrt(np.outer(v, v))
        t_corr = best_of(lambda: feasible.nearest_correlation(corr), args.repeats)
        out = feasible.nearest_correlation(corr)
        rows.append((d, "correlation (`nearest_correlation`)", t_corr, True, "",
                     float(np.max(np.abs(np.diag(out) - 1))), float(np.max(np.abs(np.diag(out) - 1))),
                     np.linalg.norm(out - corr)))
    lines = ["| d | problem / solver | time (s) | converged | steps | worst diagonal bound violation (relative) | worst entry bound violation (relative) | ‖P − C‖_F |",
             "|---|---|---|---|---|---|---|---|"]
    for d, name, t, conv, steps, viol, eviol, dist in rows:
        lines.append(f"| {d} | {name} | {t:.4f} | {conv} | {steps} | {viol:.1e} | {eviol:.1e} | {dist:.6g} |")
    body = ("Badly scaled covariance releases: public ranges geometrically spaced from 0.5 to 700 "
            "(variance bounds 0.0625 … 122,500), noise ∝ the public scales, seed 0; best of "
            f"{args.repeats} (Dykstra: 1), one BLAS thread. Produced by `benchmarks/bench_feasible.py`.\n\n"
            + "\n".join(lines) + "\n\n"
            "Dykstra's ‖P − C‖_F can be *below* the exact projection's because its point is not "
            "feasible (a variance above its bound); the exact projection is the nearest feasible "
            "point (checked by the variational inequality in `tests/test_feasible.py`).")
    failed = [f"{r[0]} ({r[1]})" for r in rows if not r[3] and "Dykstra" not in r[1]]
    body += ("\n\nThe second-moment box is solved by projected Newton on the dual (Bertsekas 1982) at "
             "every d; its optimality is checked against Clarabel's interior point (d = 5, 20, 50) "
             "and by the KKT certificate (d = 5, 20, 50, 100) in `tests/test_feasible.py`. "
             "Dykstra rows are the alternating projections on the same problem, for comparison.")
    if failed:
        body += "\n\nNOT solved (stopping rule not met): " + "; ".join(failed) + "."
    body += ("\n\nTimes on a shared 2-core machine (other jobs running); the ratios within a row "
             "group are what the table shows.")
    print(body)
    if not args.no_write:
        write_section("Feasible-set projections (badly scaled)", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
