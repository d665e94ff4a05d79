"""Utility comparison: DP covariance matrices, side by side (matrixdp incl. CoinPress, Analyze Gauss, diffprivlib, OpenDP).

Metric: relative Frobenius error ‖Ĉ − C‖_F / ‖C‖_F of the released covariance (the ``1/n``
covariance of the records clipped to the public bounds) in the original units; also the Frobenius
error of the implied correlation matrix (a scale-free loss, reported from the same releases).
diffprivlib and OpenDP have no covariance estimator of their own: their PCA with every component kept
is their covariance (an eigendecomposition Ĉ = V diag(λ̂) Vᵀ; OpenDP's is the covariance estimator
of Amin et al. 2019). Output: ``results/utility_covariance.{md,csv,png}``. Protocol: see
``_utility_common.py`` and BENCHMARKS.md.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

#: The covariance script also runs the estimator as a user gets it (``uc.DEFAULT_ROW``): since
#: round 3e ``DPCovariance()``'s default differs from the ``matrixdp (auto)`` row (the moments
#: release with noise="auto", kept for the noise comparisons).
uc.METHODS = (uc.DEFAULT_ROW,) + uc.METHODS

NAME = "utility_covariance"
PSD_ONLY = "relative Frobenius error, PSD projection only"
TITLE = "Utility comparison — DP covariance (relative Frobenius error)"


def correlation(cov: np.ndarray) -> np.ndarray:
    sd = np.sqrt(np.maximum(np.diag(cov), 0.0))
    safe = np.where(sd > 0, sd, 1.0)
    corr = np.clip(cov / np.outer(safe, safe), -1.0, 1.0)
    corr[sd == 0, :] = 0.0
    corr[:, sd == 0] = 0.0
    np.fill_diagonal(corr, 1.0)
    return corr


def covariance_fitter(method: str, t: uc.Table, eps: float):
    """``seed -> covariance estimate`` for one method (None when the method is unavailable)."""
    X, lo, hi, n, d = t.X, t.lo, t.hi, t.n, t.d
    h = 0.5 * (hi - lo)
    if method == "matrixdp (coinpress)":
        from matrixdp.models import DPCovariance

        return lambda s: DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(lo, hi),
                                      method="coinpress", random_state=s).fit(X).covariance_
    if method == uc.DEFAULT_ROW:  # no method, no noise: what DPCovariance() does
        from matrixdp.models import DPCovariance

        return lambda s: DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(lo, hi),
                                      random_state=s).fit(X).covariance_
    if method == "matrixdp (auto)":  # the moments release, with its PSD-only projection apart
        from matrixdp.models import DPCovariance
        from matrixdp.feasible import project_psd
        from matrixdp.models.covariance import project_feasible

        def fit_auto(s):
            # method="moments": the row is the moments release with noise="auto" (the default
            # before round 3e; since then the default is method="adaptive" here)
            raw = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(lo, hi), project_psd=False,
                               method="moments", random_state=s).fit(X).covariance_
            # exactly the estimator's default post-processing (project_psd=True) of this release
            return project_feasible(raw, lo, hi, "covariance"), project_psd(raw)
        return fit_auto
    if method.startswith("matrixdp"):
        from matrixdp.models import DPCovariance

        noise = method[method.index("(") + 1:-1]
        return lambda s: DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(lo, hi), noise=noise,
                                      random_state=s).fit(X).covariance_
    if method == "iid, unit box":
        from matrixdp.models import DPCovariance

        w = hi - lo
        Xu = (X - lo) / w
        return lambda s: w[:, None] * DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(0.0, 1.0),
                                                   noise="iid", random_state=s).fit(Xu).covariance_ * w
    if method == "Analyze Gauss":
        return lambda s: uc.psd_part(uc.analyze_gauss_covariance(X, lo, hi, eps, uc.DELTA,
                                                                 np.random.default_rng(s))[0])
    if method == "diffprivlib":
        from diffprivlib.models import PCA

        norm = float(np.linalg.norm(h))

        def fit(s):
            # diffprivlib 0.6.6's PCA centres the array it is given in place: pass a copy
            m = PCA(n_components=d, epsilon=eps, data_norm=norm, bounds=(lo, hi),
                    random_state=s).fit(X.copy())
            lam = m.explained_variance_ * (n - 1) / n
            return (m.components_.T * lam) @ m.components_
        return fit
    if method == "OpenDP":
        c = 0.5 * (lo + hi)
        norm = float(np.linalg.norm(h))

        def fit(s):  # OpenDP draws from its own CSPRNG: not seedable
            m = uc.opendp_pca(eps, norm, n, d, d).fit(X - c)
            lam = m.singular_values_ ** 2 / n
            return (m.components_.T * lam) @ m.components_
        return fit
    raise ValueError(method)


def correlation_fitter(method: str, t: uc.Table, eps: float):
    """``seed -> correlation estimate`` from the library's own correlation path for matrixdp's
    estimators (``DPCovariance(kind="correlation")``, the same ``noise``/``method`` as the row);
    None for the other rows, whose correlation is implied by their covariance release."""
    if not method.startswith("matrixdp"):
        return None
    from matrixdp.models import DPCovariance

    choice = method[method.index("(") + 1:-1]
    # the noise rows are the moments release with that noise (method="moments": since task CR
    # noise="auto" alone resolves to the adaptive release, which is the default row)
    kw = ({"method": "coinpress"} if choice == "coinpress" else
          {} if method == uc.DEFAULT_ROW else {"method": "moments", "noise": choice})
    return lambda s: DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                                  kind="correlation", random_state=s, **uc.experimental_keywords(DPCovariance, kw)).fit(t.X).covariance_


def run(args) -> tuple[list[dict], list[uc.Table]]:
    versions = uc.peer_versions()
    rows, tables = [], []
    for ds in args.datasets:
        uc.checkpoint(args, NAME, rows)
        t = uc.load_table(ds, args.data_home)
        tables.append(t)
        C = np.cov(t.X.T, bias=True)
        R = correlation(C)
        cn, rn = np.linalg.norm(C), np.linalg.norm(R)
        for eps in args.epsilons:
            for m in args.methods:
                if m in ("diffprivlib", "OpenDP") and not versions.get(m):
                    rows += uc.cell_rows([uc.Cell(ds, "covariance", eps, m, [], [], status="not run",
                                                  note=f"{m} not installed")], lambda c: {})
                    continue
                fit = covariance_fitter(m, t, eps)
                fit_corr = correlation_fitter(m, t, eps)
                corr_err, psd_only, corr_time = [], [], []

                def score(s, fit=fit, fit_corr=fit_corr, corr_err=corr_err, psd_only=psd_only,
                          corr_time=corr_time):
                    Ch = fit(s)
                    if isinstance(Ch, tuple):
                        Ch, P = Ch
                        psd_only.append(float(np.linalg.norm(P - C) / cn))
                    # matrixdp's rows: the library's correlation estimator, a release of its own
                    # with the same seed (its time is taken out of the covariance fit time below)
                    t0 = time.perf_counter()
                    Rh = correlation(Ch) if fit_corr is None else fit_corr(s)
                    corr_time.append(time.perf_counter() - t0 if fit_corr is not None else 0.0)
                    corr_err.append(float(np.linalg.norm(Rh - R) / rn))
                    return float(np.linalg.norm(Ch - C) / cn)

                cell = uc.run_method_cell(ds, "covariance", eps, m, score, args,
                                          extra_of=lambda corr_err=corr_err: {"corr": list(corr_err)})
                if cell.status == "ok":
                    cell.times = [a - b for a, b in zip(cell.times, corr_time)]

                def metrics(c, psd_only=psd_only):
                    out = {"relative Frobenius error": c.values,
                           "correlation relative Frobenius error": c.extra["corr"]}
                    if psd_only:
                        out[PSD_ONLY] = psd_only
                    return out
                rows += uc.cell_rows([cell], metrics)
            print(f"  {ds} ε = {eps:g} done", flush=True)
    uc.checkpoint(args, NAME, rows)
    return rows, tables


def psd_effect_lines(rows) -> list[str]:
    """The default's error with the feasible-set projection vs with the PSD projection only
    (same releases: the projection is post-processing)."""
    full = {(r["dataset"], float(r["epsilon"])): float(r["median"]) for r in rows
            if r["metric"] == "relative Frobenius error" and r["method"] == uc.MATRIXDP_DEFAULT
            and r["status"] == "ok"}
    psd = {(r["dataset"], float(r["epsilon"])): r for r in rows
           if r["metric"] == PSD_ONLY and r["status"] == "ok"}
    keys = [k for k in full if k in psd]
    if not keys:
        return []
    lines = ["### Effect of the feasible-set projection (post-processing) on the moments release", "",
             "Same releases of `matrixdp (auto)`; the default projects onto PSD ∩ {variances ≤ h², "
             "|C_ij| ≤ h_i h_j} (`matrixdp.feasible`, original units); the column before projects "
             "onto the PSD cone only (the previous default).", "",
             "| dataset | ε | PSD only: median (IQR) | feasible set: median | ratio |", "|---|---|---|---|---|"]
    for ds, e in keys:
        r = psd[(ds, e)]
        lines.append(f"| {ds} | {e:g} | {uc.fmt(float(r['median']))} ({uc.fmt(float(r['q25']))}–"
                     f"{uc.fmt(float(r['q75']))}) | {uc.fmt(full[(ds, e)])} | "
                     f"{full[(ds, e)] / float(r['median']):.3g} |")
    return lines + [""]


def write(rows, tables, args) -> Path:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    uc.write_csv(out / f"{NAME}.csv", rows)
    uc.write_bounds(tables, out)
    versions = getattr(args, "kept_versions", None) or uc.peer_versions()
    lines = uc.header_lines(TITLE, args, versions, tables)
    lines += uc.kept_rows_note(args)
    lines += ["## Relative Frobenius error of the covariance (original units; lower is better)", ""]
    lines += uc.winners_table(rows, "relative Frobenius error")
    lines += uc.target_lines(uc.target_check(rows, "relative Frobenius error"),
                             "covariance error", "error divided by matrixdp's default")
    lines += ["### Best method per cell and matrixdp's default against it", ""]
    lines += uc.best_ratio_lines(rows, "relative Frobenius error", relative=True)
    lines += psd_effect_lines(rows)
    lines += ["## Relative Frobenius error of the correlation matrix", "",
              "A scale-free loss: it favours noise that is i.i.d. in units of the public ranges "
              "(the unit-box row). The matrixdp rows (auto, mvg, iid, coinpress) are the library's "
              "correlation estimator, `DPCovariance(kind=\"correlation\")` with the row's "
              "`noise`/`method` and its default `shrinkage=\"auto\"` (`\"projected\"` for the "
              "moments rows auto, mvg, iid; `\"none\"` for coinpress; "
              "`results/correlation_default_check.md`) (its own release, same seeds), whose "
              "noise allocation is chosen "
              "for this loss; `matrixdp (default)` is `DPCovariance(kind=\"correlation\")` as a "
              "user gets it (since task CR the correlation-ranked adaptive release, "
              "`results/correlation_adaptive_check.md`); the other rows are the correlation implied by their covariance "
              "release above (diffprivlib and OpenDP have no correlation estimator). Rows kept "
              "from a run before this change derived every row from the covariance releases "
              "(the CSV's run note says which).", ""]
    lines += uc.winners_table(rows, "correlation relative Frobenius error")
    if not args.no_plot:
        png = uc.plot(rows, "relative Frobenius error", out / f"{NAME}.png",
                      "DP covariance: relative Frobenius error vs ε (median, IQR band)",
                      "‖Ĉ − C‖_F / ‖C‖_F")
        if png:
            lines += [f"Plot: `{png.name}`.", ""]
    path = out / f"{NAME}.md"
    path.write_text("\n".join(lines))
    return path


def main(argv=None) -> int:
    # --keep-rows-from: as utility_regression.py (e.g. rerun matrixdp's rows after a default
    # changed and keep the peers' rows, which need diffprivlib/OpenDP installed)
    args = uc.parse_args(TITLE, argv, methods=uc.METHODS, extra=uc.keep_rows_flag)
    rows, tables = uc.rows_keeping_others(args, NAME, run)
    print(f"wrote {write(rows, tables, args)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
