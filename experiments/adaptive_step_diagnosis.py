"""Task AC (issue #24): where the adaptive covariance default takes the whitened step and should not.

The known misses of ``DPCovariance()`` (``method="auto"`` -> ``"adaptive"``) look alike: the two
predicted errors are close and the whitened CoinPress step's REAL error is above its prediction.
This script takes the whitened step apart, term by term, on the same seeds with the last release
forced to each branch (``adaptive_covariance(branch=...)``; the first release and the counts are
the same draws, as in ``outside_audit_diagnosis.py`` part 1):

- ``raw``: the step's estimate before any projection, ``S^{1/2} (Ĝ_y − m̂_y m̂_yᵀ) S^{1/2}``;
- ``noise``: ``raw`` minus the same step without its noise (the clipped records' exact whitened
  moments); split into ``noise, N`` (the i.i.d. noise of the second-moment block, what the
  prediction ``(σ²/2)(tr(M)² + tr(M²))`` models) and ``noise, mean`` (the rest: the noise of the
  whitened mean ``m̂_y`` through ``− m̂_y m̂_yᵀ``, which the prediction leaves out);
- ``bias``: the noiseless step minus the truth ``C`` (the clipping), split into ``bias, moments``
  ``(1/n) Σ (f_i² − 1) a_i a_iᵀ`` (``a_i = x_i − c − m̂``: what the bound
  ``b = (1/n) Σ (1 − f_i²)‖a_i‖²`` of the prediction bounds) and ``bias, mean`` the change of the
  covariance's mean term ``ā ā ᵀ − ā_f ā_fᵀ`` (``ā_f = (1/n)Σ f_i a_i``: clipping about a centre
  ``c + m̂`` that is not the records' mean moves the mean; not in the bound);
- ``bias, true centre``: the noiseless step's bias had it clipped about the records' mean (same
  ``A``, same radius): the part of the bias due to the first look's mean error;
- ``b (true)``: the bound ``b`` itself (the statistic's target), ``b used``: ``√`` of the bias term
  the choice added (``adaptive_predicted_["coinpress_bias"]``, read from the released counts);
- ``final``: the estimator's output (both projections), as scored.

All as ``‖·‖_F / ‖C‖_F``; the table shows medians over the fits and ``rms`` (root of the mean
square, the unit of the predictions, which are expected squared errors). The moments branch: its
prediction against its real error without (``project_psd=False``) and with the projection.

Cells: grunfeld ε = 100 (the outside audit's records and bounds, its replicate seeds
``SeedSequence(20261128 + 3)``, 200 fits), adult ε = 1 and 5 and lending_club ε = 5 (the benchmark's
records and bounds, seed 20261124 as ``adaptive_covariance.py``), movies ε = 1 (AD2's table, seed
20261201). δ = 1e-6, replace-one.

Diagnostic only: it reads the private records (the truth) and decides nothing.

Run::

    cd experiments && nice -n 5 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        PYTHONPATH=../src python adaptive_step_diagnosis.py --trials 100

Output: ``results/adaptive_step_diagnosis.{md,csv}``.
"""

from __future__ import annotations

import argparse
import csv
import functools
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

import _check_tables  # noqa: E402
import _utility_common as uc  # noqa: E402

NAME = "adaptive_step_diagnosis"
DELTA = 1e-6
#: (table, ε, source of records and seeds)
CELLS = (("grunfeld", 100.0, "outside_audit"), ("adult", 1.0, "benchmark"),
         ("adult", 5.0, "benchmark"), ("lending_club", 5.0, "benchmark"),
         ("movies", 1.0, "ad2"))
SEEDS = {"outside_audit": None, "benchmark": 20261124, "ad2": 20261201}


def load(name, source):
    """``(X, lo, hi)`` with the records clipped to the public bounds."""
    if source == "outside_audit":
        import outside_audit as oa
        u = oa.units([name])[0]
        Z, lo, hi = oa.cov_data(u)
        return np.asarray(Z, float), np.asarray(lo, float), np.asarray(hi, float)
    t = _check_tables.load(name) if name in _check_tables.LOADERS else uc.load_table(name)
    return np.asarray(t.X, float), np.asarray(t.lo, float), np.asarray(t.hi, float)


def seeds_for(source, trials):
    if source == "outside_audit":
        import outside_audit as oa
        base = oa.SEED if hasattr(oa, "SEED") else 20261128
        return [int(s) for s in np.random.SeedSequence(base + 3).generate_state(trials)]
    return [int(s) for s in np.random.SeedSequence(SEEDS[source]).generate_state(trials)]


def _unwhiten(G, r2, A_inv, k, my=None):
    t = math.sqrt(r2 / k)
    if my is None:
        my = G[:k, k] / t
    Cy = G[:k, :k] - np.outer(my, my)
    C = A_inv @ Cy @ A_inv
    return 0.5 * (C + C.T), my


def fit_cell(X, lo, hi, eps, seeds):
    from matrixdp.models import DPCovariance
    from matrixdp.models import adaptive as ad

    orig_ad, orig_wr = ad.adaptive_covariance, ad.whitened_release
    orig_cc, orig_rc = ad.clipping_loss_counts, ad.read_counts
    live = (hi - lo) > 0
    Xl = X[:, live]
    n, k = Xl.shape
    C = np.cov(Xl.T, bias=True)
    cn = float(np.linalg.norm(C))
    xbar = Xl.mean(axis=0)
    cap = {}

    def spy(Xl_, center, m, A, r2, mu_t, epsilon, delta, gen, Z=None, Y=None):
        out = orig_wr(Xl_, center, m, A, r2, mu_t, epsilon, delta, gen, Z, Y)
        cap.update(center=center.copy(), m=m.copy(), A=A.copy(), r2=r2, G=out[0].copy(),
                   sigma=out[1])
        return out

    def spy_counts(*a, **kw):
        c = orig_cc(*a, **kw)
        cap["counts"] = c.copy()
        return c

    def spy_read(noisy, edges, sigma, n_, threshold, reading="capped", z=ad.COUNT_Z):
        out = orig_rc(noisy, edges, sigma, n_, threshold, reading, z)
        cap.update(noisy=np.asarray(noisy, float).copy(), edges=np.asarray(edges, float).copy(),
                   sigma_c=sigma, threshold=threshold, reading=out, z=z)
        return out

    rows = []
    try:
        uc.set_adaptive("whitened_release", spy)
        uc.set_adaptive("clipping_loss_counts", spy_counts)
        uc.set_adaptive("read_counts", spy_read)
        for i, s in enumerate(seeds):
            r = {"trial": i, "seed": s}
            for br, proj in (("coinpress", True), ("moments", True), ("moments", False)):
                ad.adaptive_covariance = functools.partial(
                    orig_ad, options=ad.AdaptiveOptions(branch=br))
                cap.clear()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = DPCovariance(epsilon=eps, delta=DELTA, bounds=(lo, hi),
                                       random_state=s, project_psd=proj).fit(X)
                assert est.method_ == "adaptive" and est.adaptive_choice_ == br
                err = float(np.linalg.norm(est.covariance_[np.ix_(live, live)] - C) / cn)
                if br == "moments":
                    r["moments_final" if proj else "moments_raw"] = err
                    continue
                p = est.adaptive_predicted_
                r["final"] = err
                r["choice"] = "coinpress" if p["coinpress"] < p["moments"] else "moments"
                r["statistic"] = p["statistic"]
                r["pred_moments"] = math.sqrt(max(p["moments"], 0.0)) / cn
                r["pred_coinpress"] = math.sqrt(max(p["coinpress"], 0.0)) / cn
                r["pred_noise"] = math.sqrt(max(p["coinpress"] - p["coinpress_bias"], 0.0)) / cn
                r["b_used"] = math.sqrt(max(p["coinpress_bias"], 0.0)) / cn
                center, m, A, r2, G = cap["center"], cap["m"], cap["A"], cap["r2"], cap["G"]
                w, V = np.linalg.eigh(A)
                A_inv = (V / w) @ V.T
                raw, _ = _unwhiten(G, r2, A_inv, k)
                # the noiseless step: the clipped records' exact whitened moments
                a = Xl - center - m
                Y = a @ A
                nr = np.sqrt(np.einsum("ij,ij->i", Y, Y))
                f = np.minimum(1.0, math.sqrt(r2) / np.maximum(nr, 1e-300))
                af = a * f[:, None]
                abar, afbar = a.mean(axis=0), af.mean(axis=0)
                C0 = af.T @ af / n - np.outer(afbar, afbar)
                t = math.sqrt(r2 / k)
                my_clean = (Y * f[:, None]).mean(axis=0)
                # the noise of the second-moment block only (the whitened mean exact)
                C_lin, _ = _unwhiten(G, r2, A_inv, k, my=my_clean)
                B2 = (af.T @ af - a.T @ a) / n
                Mterm = np.outer(abar, abar) - np.outer(afbar, afbar)
                # clipping about the records' own mean (same A, same radius)
                a2 = Xl - xbar
                Y2 = a2 @ A
                f2 = np.minimum(1.0, math.sqrt(r2) / np.maximum(
                    np.sqrt(np.einsum("ij,ij->i", Y2, Y2)), 1e-300))
                af2 = a2 * f2[:, None]
                C0t = af2.T @ af2 / n - np.outer(af2.mean(0), af2.mean(0))
                g = (1.0 - f * f) * np.einsum("ij,ij->i", a, a)
                nf = lambda M: float(np.linalg.norm(M)) / cn  # noqa: E731
                r.update(raw=nf(raw - C), noise=nf(raw - C0), noise_N=nf(C_lin - C0),
                         noise_mean=nf(raw - C_lin), bias=nf(C0 - C), bias_moments=nf(B2),
                         bias_mean=nf(Mterm), bias_true_centre=nf(C0t - C),
                         b_true=float(np.mean(g)) / cn, clipped=int(np.sum(f < 1)),
                         mean_err_white=float(np.linalg.norm((xbar - center - m) @ A)),
                         sigma=cap["sigma"], t=t)
            if "counts" in cap and "noisy" in cap:
                # the reading taken apart (task AC): the true counts read at the bins' upper
                # edges, the capped reading without its noise, the noisy reading
                tau = cap["edges"][1:]
                nj, y = cap["counts"], cap["noisy"]
                b_hat, b_sd, L = cap["reading"]
                wj = np.minimum(tau, L)
                res = y > cap["z"] * cap["sigma_c"]
                b_edges = float(np.sum(tau * nj)) / n
                b_cap_clean = (float(np.sum(wj * nj)) + float(np.sum((tau - wj) * nj * res))) / n
                r.update(read_edges=b_edges / cn, read_capped_clean=b_cap_clean / cn,
                         read_noisy=b_hat / cn, read_sd=b_sd / cn,
                         above_L_unresolved=(b_edges - b_cap_clean) / cn,
                         threshold=cap["threshold"] / cn, sigma_c=cap["sigma_c"],
                         records_above_L=float(np.sum(nj[tau > L])),
                         records_above_L_unresolved=float(np.sum(nj[(tau > L) & ~res])))
            r["default"] = r["final"] if r["choice"] == "coinpress" else r["moments_final"]
            rows.append(r)
    finally:
        ad.adaptive_covariance = orig_ad
        uc.set_adaptive("whitened_release", orig_wr)
        uc.set_adaptive("clipping_loss_counts", orig_cc)
        uc.set_adaptive("read_counts", orig_rc)
    return rows


COLS = (("final", "CoinPress branch, final"), ("raw", "raw (no projection)"),
        ("pred_coinpress", "predicted √P_cp"), ("noise", "noise"), ("noise_N", "noise, N"),
        ("pred_noise", "predicted noise"), ("noise_mean", "noise, mean"), ("bias", "bias"),
        ("bias_moments", "bias, moments"), ("bias_mean", "bias, mean"),
        ("bias_true_centre", "bias, true centre"), ("b_true", "b (true)"),
        ("b_used", "b used"))


def med(rs, key):
    return float(np.median([r[key] for r in rs]))


def rms(rs, key):
    return float(np.sqrt(np.mean([r[key] ** 2 for r in rs])))


def report(allrows, args, secs):
    L = ["# The adaptive default's whitened step, term by term (task AC, issue #24)", "",
         f"Generated by `cd experiments && nice -n 5 env OMP_NUM_THREADS=1 "
         f"OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=../src python {NAME}.py "
         f"--trials {args.trials}` ({secs / 60:.1f} min). δ = {DELTA:g}, replace-one, public "
         "bounds; grunfeld: the outside audit's records, bounds and replicate seeds "
         "(`SeedSequence(20261128 + 3)`); adult, lending_club: the benchmark's (seed 20261124); "
         "movies: AD2's (seed 20261201). Every fit three times on the same seed: the last "
         "release forced to the whitened step, to the moments release, and the moments release "
         "without the estimator's projection (`project_psd=False`); the first release and the "
         "counts are the same draws. Non-private (reads the truth); decides nothing. The terms "
         "are defined in the script's docstring; all as ‖·‖_F / ‖C‖_F.", "",
         "## Medians over the fits", "",
         "| cell | fits | default / moments branch | step chosen | moments branch, final | "
         "moments, raw | predicted √P_mom | "
         + " | ".join(c[1] for c in COLS) + " |",
         "|" + "---|" * (7 + len(COLS))]
    summary = []
    for (ds, eps), rs in allrows.items():
        ch = sum(r["choice"] == "coinpress" for r in rs)
        ratio = med(rs, "default") / med(rs, "moments_final")
        L.append(f"| {ds} ε = {eps:g} | {len(rs)} | {ratio:.3g} | {ch}/{len(rs)} | "
                 f"{med(rs, 'moments_final'):.3g} | {med(rs, 'moments_raw'):.3g} | "
                 f"{med(rs, 'pred_moments'):.3g} | "
                 + " | ".join(f"{med(rs, c[0]):.3g}" for c in COLS) + " |")
        summary.append((ds, eps, rs))
    L += ["", "## Root mean squares over the fits (the predictions' unit: expected squared "
          "errors)", "",
          "| cell | moments, final | moments, raw | predicted √P_mom | "
          + " | ".join(c[1] for c in COLS) + " |", "|" + "---|" * (4 + len(COLS))]
    for ds, eps, rs in summary:
        L.append(f"| {ds} ε = {eps:g} | {rms(rs, 'moments_final'):.3g} | "
                 f"{rms(rs, 'moments_raw'):.3g} | {rms(rs, 'pred_moments'):.3g} | "
                 + " | ".join(f"{rms(rs, c[0]):.3g}" for c in COLS) + " |")
    L += ["", "## The fits where the whitened step was chosen (medians)", "",
          "| cell | chosen | CoinPress final | moments final | predicted √P_cp | predicted √P_mom "
          "| noise | predicted noise | bias | b (true) | b used | bias, true centre | clipped "
          "records |", "|" + "---|" * 13]
    for ds, eps, rs in summary:
        c = [r for r in rs if r["choice"] == "coinpress"]
        if not c:
            L.append(f"| {ds} ε = {eps:g} | 0 |" + " |" * 11)
            continue
        L.append(f"| {ds} ε = {eps:g} | {len(c)} | {med(c, 'final'):.3g} | "
                 f"{med(c, 'moments_final'):.3g} | {med(c, 'pred_coinpress'):.3g} | "
                 f"{med(c, 'pred_moments'):.3g} | {med(c, 'noise'):.3g} | "
                 f"{med(c, 'pred_noise'):.3g} | {med(c, 'bias'):.3g} | {med(c, 'b_true'):.3g} | "
                 f"{med(c, 'b_used'):.3g} | {med(c, 'bias_true_centre'):.3g} | "
                 f"{med(c, 'clipped'):.0f} |")
    L += ["", "## The reading of the clipping bias taken apart (fits where the whitened step was "
          "chosen; medians)", "",
          "`b (true)` = (1/n) Σ g_i; `at upper edges` = the true counts read at their bins' upper "
          "edges (what the histogram can say at best); `capped, no noise` = the capped reading "
          "of the true counts (each record at most at the level L unless its bin's NOISY count "
          "is resolved); `above L, unresolved` = their difference; `noisy reading` = b̂; "
          "`b used` = b̂ + 1.5 sd (what the choice used); `threshold` = √(P_mom − P_cp,noise); "
          "σ_c = the counts' noise sd (records).", "",
          "| cell | chosen | b (true) | at upper edges | capped, no noise | above L, unresolved | "
          "noisy reading | sd of reading | b used | threshold | σ_c | records above L | of "
          "them unresolved |", "|" + "---|" * 13]
    for ds, eps, rs in summary:
        c = [r for r in rs if r["choice"] == "coinpress" and "read_edges" in r]
        if not c:
            L.append(f"| {ds} ε = {eps:g} | 0 |" + " |" * 11)
            continue
        L.append(f"| {ds} ε = {eps:g} | {len(c)} | {med(c, 'b_true'):.3g} | "
                 + " | ".join(f"{med(c, k):.3g}" for k in (
                     "read_edges", "read_capped_clean", "above_L_unresolved", "read_noisy",
                     "read_sd", "b_used", "threshold", "sigma_c", "records_above_L",
                     "records_above_L_unresolved")) + " |")
    L += ["", "The same, every fit with the counts released (medians):", "",
          "| cell | fits | b (true) | at upper edges | capped, no noise | above L, unresolved | "
          "noisy reading | sd of reading | b used | threshold | σ_c | records above L | of "
          "them unresolved |", "|" + "---|" * 13]
    for ds, eps, rs in summary:
        c = [r for r in rs if "read_edges" in r]
        if not c:
            continue
        L.append(f"| {ds} ε = {eps:g} | {len(c)} | {med(c, 'b_true'):.3g} | "
                 + " | ".join(f"{med(c, k):.3g}" for k in (
                     "read_edges", "read_capped_clean", "above_L_unresolved", "read_noisy",
                     "read_sd", "b_used", "threshold", "sigma_c", "records_above_L",
                     "records_above_L_unresolved")) + " |")
    return L


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--grunfeld-trials", type=int, default=200)
    p.add_argument("--out", default=str(HERE.parent / "results" / NAME))
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    allrows, flat = {}, []
    for ds, eps, src in CELLS:
        X, lo, hi = load(ds, src)
        tr = args.grunfeld_trials if src == "outside_audit" else args.trials
        rs = fit_cell(X, lo, hi, eps, seeds_for(src, tr))
        allrows[(ds, eps)] = rs
        flat += [{"dataset": ds, "epsilon": eps, **r} for r in rs]
        print(f"{ds} ε={eps:g} done ({time.perf_counter() - t0:.0f} s)", flush=True)
    out = Path(args.out)
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        keys = list(dict.fromkeys(k for r in flat for k in r))
        wr = csv.DictWriter(fh, fieldnames=keys)
        wr.writeheader()
        wr.writerows(flat)
    out.with_suffix(".md").write_text("\n".join(report(allrows, args,
                                                       time.perf_counter() - t0)) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
