"""Utility comparison: DP PCA, side by side (matrixdp incl. CoinPress, Analyze Gauss, diffprivlib, OpenDP).

Metric: the captured-variance deficit of the released top-k subspace V (k = 2 and 5, where k < d),
``1 − tr(VᵀCV) / (λ₁ + … + λ_k)`` with C the covariance of the records (clipped to the public
bounds) in the original units: 0 is the non-private subspace, lower is better. The ratio
``tr(VᵀCV)/(λ₁ + … + λ_k)`` (captured variance relative to non-private) is 1 − deficit.
Output: ``results/utility_pca.{md,csv}`` and ``results/utility_pca_k{2,5}.png``. Protocol: ``_utility_common.py`` and BENCHMARKS.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

NAME = "utility_pca"
TITLE = "Utility comparison — DP PCA (captured-variance deficit of the top-k subspace)"
KS = (2, 5)


def top_k(cov: np.ndarray, k: int) -> np.ndarray:
    """Top-k eigenvectors as rows."""
    lam, vec = np.linalg.eigh(0.5 * (cov + cov.T))
    return vec[:, ::-1][:, :k].T


def pca_fitter(method: str, t: uc.Table, eps: float, k: int):
    """``seed -> components (k, d)`` for one method."""
    X, lo, hi, n, d = t.X, t.lo, t.hi, t.n, t.d
    h = 0.5 * (hi - lo)
    if method == "matrixdp (coinpress)":
        from matrixdp.models import DPPCA

        return lambda s: DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(lo, hi),
                               method="coinpress", random_state=s).fit(X).components_
    if method.startswith("matrixdp"):
        from matrixdp.models import DPPCA

        noise = method[method.index("(") + 1:-1]
        return lambda s: DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(lo, hi),
                               noise=noise, random_state=s).fit(X).components_
    if method == "iid, unit box":
        from matrixdp.models import DPCovariance

        w = hi - lo
        Xu = (X - lo) / w
        return lambda s: top_k(w[:, None] * DPCovariance(
            epsilon=eps, delta=uc.DELTA, bounds=(0.0, 1.0), noise="iid",
            random_state=s).fit(Xu).covariance_ * w, k)
    if method == "Analyze Gauss":
        return lambda s: top_k(uc.analyze_gauss_covariance(X, lo, hi, eps, uc.DELTA,
                                                           np.random.default_rng(s))[0], k)
    if method == "diffprivlib":
        from diffprivlib.models import PCA

        norm = float(np.linalg.norm(h))
        # diffprivlib 0.6.6's PCA centres the array it is given in place: pass a copy
        return lambda s: PCA(n_components=k, epsilon=eps, data_norm=norm, bounds=(lo, hi),
                             random_state=s).fit(X.copy()).components_
    if method == "OpenDP":
        c = 0.5 * (lo + hi)
        norm = float(np.linalg.norm(h))
        return lambda s: uc.opendp_pca(eps, norm, n, d, k).fit(X - c).components_
    raise ValueError(method)


def run(args) -> tuple[list[dict], list[uc.Table]]:
    versions = uc.peer_versions()
    rows, tables = [], []
    for ds in args.datasets:
        uc.checkpoint(args, NAME, rows)
        t = uc.load_table(ds, args.data_home)
        tables.append(t)
        C = np.cov(t.X.T, bias=True)
        lam = np.sort(np.linalg.eigvalsh(C))[::-1]
        for k in KS:
            if k >= t.d:
                continue
            best = float(lam[:k].sum())
            task = f"pca k={k}"
            for eps in args.epsilons:
                for m in args.methods:
                    if m in ("diffprivlib", "OpenDP") and not versions.get(m):
                        rows += uc.cell_rows([uc.Cell(ds, task, eps, m, [], [], status="not run",
                                                      note=f"{m} not installed")], lambda c: {})
                        continue
                    fit = pca_fitter(m, t, eps, k)

                    def score(s, fit=fit):
                        V = np.asarray(fit(s), float)
                        q, _ = np.linalg.qr(V.T)  # guard: orthonormal basis of the released span
                        return 1.0 - float(np.trace(q.T @ C @ q)) / best

                    cell = uc.run_method_cell(ds, task, eps, m, score, args)
                    rows += uc.cell_rows([cell], lambda c: {f"captured-variance deficit, k={k}": c.values})
                print(f"  {ds} k = {k} ε = {eps:g} done", flush=True)
    uc.checkpoint(args, NAME, rows)
    return rows, tables


def write(rows, tables, args) -> Path:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    uc.write_csv(out / f"{NAME}.csv", rows)
    versions = getattr(args, "kept_versions", None) or uc.peer_versions()
    lines = uc.header_lines(TITLE, args, versions, tables)
    lines += uc.kept_rows_note(args)
    lines += ["k ≥ d cells are skipped (liver has d = 5, movement_aal d = 4: no k = 5).", ""]
    for k in KS:
        metric = f"captured-variance deficit, k={k}"
        lines += [f"## k = {k}: 1 − captured variance / non-private (lower is better)", ""]
        lines += uc.winners_table(rows, metric)
        lines += uc.target_lines(uc.target_check(rows, metric), f"PCA k = {k}",
                                 "deficit divided by matrixdp's default")
        lines += [f"### k = {k}: best method per cell and matrixdp's default against it", ""]
        lines += uc.best_ratio_lines(rows, metric)
        if not args.no_plot:
            png = uc.plot(rows, metric, out / f"{NAME}_k{k}.png",
                          f"DP PCA, k = {k}: captured-variance deficit vs ε (median, IQR band)",
                          "1 − captured / non-private")
            if png:
                lines += [f"Plot: `{png.name}`.", ""]
    path = out / f"{NAME}.md"
    path.write_text("\n".join(lines))
    return path


def main(argv=None) -> int:
    # --keep-rows-from: as utility_covariance.py (rerun some methods' rows, e.g. after a change
    # of method='coinpress', and keep the others', e.g. the peers', which need diffprivlib/OpenDP)
    args = uc.parse_args(TITLE, argv, methods=uc.METHODS, extra=uc.keep_rows_flag)
    rows, tables = uc.rows_keeping_others(args, NAME, run)
    print(f"wrote {write(rows, tables, args)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
