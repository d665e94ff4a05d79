"""Benchmark: floating-point-safe (exact) noise against the float path and OpenDP, in one run.

* Vector release of 10^6 entries at epsilon=1, delta=1e-5, L2 sensitivity 1: matrixdp's
  GaussianMechanism with ``numerics="float"`` and ``numerics="exact"`` (secure default
  generator), and OpenDP's exact Gaussian at the *same sigma* (the exact path's): its
  float-vector measurement (``make_gaussian`` on ``vector_domain(atom_domain(T=float))``,
  the like-for-like real-valued release) and its integer-vector one (the discrete
  Gaussian alone). Also the exact Laplace at epsilon=1, L1 sensitivity 1.
* MVG 1000x1000: ``MVGMechanism`` float vs exact, iid noise and unimodal noise with
  dense random directions.

Run with a Python that has opendp installed (kept out of matrixdp's dependencies), e.g.
``PYTHONPATH=src .venv-opendp/bin/python benchmarks/bench_exact_noise.py`` (a venv with opendp).
Writes the "Exact noise" section of BENCHMARKS.md. Target: the exact path >= 100x faster
than OpenDP per value.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import best_of, write_section  # noqa: E402

import matrixdp  # noqa: E402


def opendp_measurements(sigma: float):
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")
    flt = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                             dp.l2_distance(T=float), scale=sigma)
    integer = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=int)),
                                 dp.l2_distance(T=int), scale=sigma)
    import opendp

    version = getattr(opendp, "__version__", None)
    if version is None:
        from importlib.metadata import version as _v
        version = _v("opendp")
    return flt, integer, version


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--opendp-entries", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--mvg-size", type=int, default=1000)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    n, reps = args.entries, args.repeats
    x = np.zeros(n)

    flt = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    exact = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0, numerics="exact")
    lap_flt = matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
    lap_exact = matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0, numerics="exact")
    sigma = exact.noise_summary((n,)).scale
    rows = []   # (what, entries timed, seconds, seconds per value)

    def timed(name, fn, entries, repeats):
        t = best_of(fn, repeats)
        rows.append((name, entries, t, t / entries))
        print(f"{name}: {t:.4f} s ({t / entries * 1e6:.3f} us/value)", flush=True)
        return t

    # float vs exact Gaussian interleaved round by round (a shared machine drifts): best of each
    # and the median of the per-round ratios. "Previous sampler" = Algorithm 3 of Canonne et al.
    # (the exact path before the table sampler), forced by raising the table's minimum size.
    from matrixdp.mechanisms import exact_sampling as _es

    def exact_previous():
        keep = _es._TABLE_MIN_SIZE
        _es._TABLE_MIN_SIZE = 1 << 62
        try:
            exact.release(x)
        finally:
            _es._TABLE_MIN_SIZE = keep

    t0 = time.perf_counter()
    _es._TABLE_CACHE.clear()
    _es._table_plan(exact._plan(n).sigma2)
    setup = time.perf_counter() - t0
    cands = {"float": lambda: flt.release(x), "exact": lambda: exact.release(x),
             "previous": exact_previous}
    per_round = {k: [] for k in cands}
    for _ in range(reps):
        for k, fn in cands.items():
            t0 = time.perf_counter()
            fn()
            per_round[k].append(time.perf_counter() - t0)
    ratio_rounds = sorted(e / f for e, f in zip(per_round["exact"], per_round["float"]))
    ratio_median = ratio_rounds[len(ratio_rounds) // 2]
    for name, key in (("matrixdp Gaussian, numerics='float' (secure rng)", "float"),
                      ("matrixdp Gaussian, numerics='exact' (secure rng), table sampler", "exact"),
                      ("matrixdp Gaussian, numerics='exact', previous sampler (CKS Algorithm 3)",
                       "previous")):
        t = min(per_round[key])
        rows.append((name, n, t, t / n))
        print(f"{name}: {t:.4f} s", flush=True)
    t_exact = min(per_round["exact"])
    timed("matrixdp Laplace, numerics='float' (secure rng)", lambda: lap_flt.release(x), n, reps)
    timed("matrixdp Laplace, numerics='exact' (secure rng)", lambda: lap_exact.release(x), n, reps)
    odp = opendp_measurements(sigma)
    opendp_note = "OpenDP not installed: its rows are missing."
    per_exact = t_exact / n
    ratios = {}
    if odp is not None:
        m_flt, m_int, version = odp
        k = args.opendp_entries
        xf, xi = [0.0] * k, [0] * k
        tf = timed(f"OpenDP {version} make_gaussian, float vector (exact sampler)", lambda: m_flt(xf), k, 1)
        ti = timed(f"OpenDP {version} make_gaussian, integer vector (discrete Gaussian)", lambda: m_int(xi), k, 1)
        ratios = {"float": tf / k / per_exact, "int": ti / k / per_exact}
        opendp_note = (f"OpenDP at the same sigma = {sigma:.6g}, timed once on {k:,} entries "
                       "(its per-call cost is linear in the entries).")

    # ---- MVG 1000 x 1000
    size = args.mvg_size
    rng = np.random.default_rng(0)
    dirs, _ = np.linalg.qr(rng.normal(size=(size, size)))
    value = np.zeros((size, size))
    mvg_rows = []
    for label, kw in (("iid", {}),
                      ("unimodal, dense random directions",
                       {"mode": "unimodal", "directions": dirs})):
        mechs = {num: matrixdp.MVGMechanism(shape=(size, size), epsilon=1.0, delta=1e-5,
                                            sensitivity=1.0, gamma=10.0, numerics=num, **kw)
                 for num in ("float", "exact")}
        times = {num: best_of(lambda m=m: m.release(value), reps) for num, m in mechs.items()}
        noise = {num: m.noise_summary().scale for num, m in mechs.items()}
        mvg_rows.append((label, times["float"], times["exact"], noise["exact"] / noise["float"]))
        print(label, times, flush=True)

    lines = [
        f"`PYTHONPATH=src python benchmarks/bench_exact_noise.py` (opendp in its own venv): one run, "
        f"side by side. Vector release of {n:,} zeros at epsilon=1, delta=1e-5, sensitivity 1 "
        f"(Laplace: epsilon=1, L1 sensitivity 1); matrixdp rows best of {reps}, secure default "
        "generator (AES-CTR). The exact path's sigma is the discrete Gaussian's, calibrated through "
        "its proven zCDP bound on the lattice sensitivity; the float path's is the analytic one.",
        "",
        "| what | entries timed | seconds | us per value | vs exact path |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, k, t, per in rows:
        lines.append(f"| {name} | {k:,} | {t:.4f} | {per * 1e6:.3f} | {per / per_exact:.3g}x |")
    lines += ["", opendp_note]
    t_float = rows[0][2]
    verdict = []
    if ratios:
        verdict.append(
            f"Per value, the exact path is **{ratios['float']:.0f}x** faster than OpenDP's float-vector "
            f"Gaussian (target >= 1000x: {'met' if ratios['float'] >= 1000 else 'NOT met'}) and "
            f"**{ratios['int']:.0f}x** faster than its integer-vector (discrete) Gaussian (target >= 200x: "
            f"{'met' if ratios['int'] >= 200 else 'NOT met'}).")
    verdict.append(
        f"The exact Gaussian costs **{t_exact / t_float:.2f}x** the float path (best of {reps} each; "
        f"median of the {reps} interleaved per-round ratios {ratio_median:.2f}x; target <= 3x: "
        f"{'met' if ratio_median <= 3 else 'NOT met'}); the previous sampler cost "
        f"{min(per_round['previous']) / t_float:.1f}x. The table sampler's one-off set-up for this "
        f"sigma (integer tables from exact exp bounds, cached per sigma^2) took {setup * 1e3:.0f} ms, "
        "not included in the release times.")
    lines += ["", " ".join(verdict), "",
              f"MVG {size}x{size} (gamma = 10, Frobenius sensitivity 1), best of {reps}:", "",
              "| noise | float s | exact s | exact/float time | exact/float noise std |",
              "|---|---:|---:|---:|---:|"]
    for label, tf, te, ns in mvg_rows:
        lines.append(f"| {label} | {tf:.3f} | {te:.3f} | {te / tf:.2f}x | {ns:.4f} |")
    lines += ["", "The exact MVG release whitens the value (two dense products with directions), "
              "samples one discrete Gaussian per entry and colours the result (two more products); its noise "
              "is larger by the discrete Gaussian's zCDP-bound factor (and 2^-10 of rounding "
              "inflation)."]
    import os

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines += ["", f"Load average at the end of the run: {load} (the 2 cores are shared by other "
              "jobs; every row of a table ran in the same run, so the ratios compare like with like)."]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section("Exact noise", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
