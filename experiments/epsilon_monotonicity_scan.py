"""Task HV's ε scan: does every estimator's error fall with ε and reach the non-private answer?

For every public estimator and each of its documented ``method=`` / ``noise=`` / ``kind=`` /
``neighbouring=`` choices listed in ``CONFIGS`` (DPCovariance, DPPCA, DPLinearRegression, DPRidge,
AdaSSP, boosted AdaSSP, DPMean, DPStandardScaler, RONGauss, the R1SMG and Fisher mechanisms,
the marginals of DPCopula and DPTreeCopula), on synthetic problems with known truth:

* data: ``n`` in {200, 5000} records, ``d`` in {1, 3, 10} features, Gaussian with a fixed random
  rotation and eigenvalues ``linspace(1, 0.25, d)`` (a clear gap, condition number 4), clipped to
  the public box [-4, 4] (so the estimator's clipping changes nothing); regression targets
  ``y = X b + 0.5 e`` (``b = linspace(-1, 1, d) / sqrt(d)``) clipped to the public [-8, 8];
* the truth is the NON-PRIVATE estimate on the same clipped data (covariance ``bias=True``, the
  correlation matrix, ``XᵀX/n``, the top-k projector, OLS / ridge with ``alpha`` in sum units
  with an unpenalised intercept, the mean and standard deviation, RON-Gauss's centred,
  re-normalised, projected second moment with the same projection, the histogram over the
  copula's public bin edges, the mechanism's input);
* error: the Frobenius / Euclidean distance of the estimate to the truth (PCA: the distance of
  the projectors, k = min(2, d); copulas: the L1 distance of the marginal histograms summed
  over the columns; Fisher: the root mean square of the released features' error);
* 50 trials per cell; trial ``s`` draws the data with seed ``s`` and fits with
  ``random_state=s`` at every ε in {0.1, 0.3, 1, 3, 10, 100, 1e4, 1e6} (paired by seed).

Rules (written before the run):

* **rise**: for consecutive ε_k < ε_{k+1}, the paired log ratios ``log(err_{k+1}/err_k)`` over
  the 50 trials: flagged when a one-sided Wilcoxon signed-rank test (alternative: greater
  than 0) has p < 0.01 AND the ratio of the median errors exceeds 1.05;
* **floor**: the median error at ε = 1e6 must be at most 0.2 × the median error at ε = 1e4.
  Between those two ε the calibrated noise scale falls by 10× for the exact (analytic) Gaussian
  mechanism (σ ∝ 1/√ε at large ε, as a μ-GDP release has μ ≈ √(2ε) there) and by 100× for
  Laplace noise, so an estimate that is noise plus nothing falls by ≥ 10×; a bias (of a repair,
  an allocation, a projection, a solver's tolerance) does not fall, and is flagged;
* **far** (reported, not a flag by itself): the median error at ε = 1e6 above ``1e-2 × scale``
  (scale: the Frobenius / Euclidean norm of the truth, at least 1e-12; 1 for a projector
  distance and for the copula's L1 distance; the box half-width 4 for the Fisher release).

Nothing is tuned. Command (from the repository root; about 30-40 minutes on one core, resumable:
each finished cell is appended to the trials file and skipped on a rerun)::

    PYTHONPATH=src nice -n 10 python experiments/epsilon_monotonicity_scan.py

writes ``results/epsilon_monotonicity_scan_trials.csv`` (one row per trial) and
``results/epsilon_monotonicity_scan.md``.  ``--only NAME`` restricts to configurations whose
name contains NAME; ``--shard S`` writes to ``epsilon_monotonicity_scan_trials_S.csv`` (a second
process; the run used one for DPRidge / AdaSSP / boosted AdaSSP); ``--report`` rewrites the
markdown from every trials file.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results"
TRIALS = OUT / "epsilon_monotonicity_scan_trials.csv"
REPORT = OUT / "epsilon_monotonicity_scan.md"

EPSILONS = (0.1, 0.3, 1.0, 3.0, 10.0, 100.0, 1e4, 1e6)
NS = (200, 5000)
DS = (1, 3, 10)
N_TRIALS = 50
DELTA = 1e-6
B = 4.0      # public box [-B, B] of every feature
BY = 8.0     # public range [-BY, BY] of the target
ALPHA = 0.01
RISE = 1.05
FLOOR = 0.2
FAR = 1e-2


def make_data(n, d, seed):
    """The clipped features and target of trial ``seed`` (public box [-B, B], [-BY, BY])."""
    rng = np.random.default_rng(10_000 + seed)
    q, _ = np.linalg.qr(np.random.default_rng(d).normal(size=(d, d)))
    spec = np.linspace(1.0, 0.25, d)
    X = rng.normal(size=(n, d)) * np.sqrt(spec) @ q.T
    X = np.clip(X, -B, B)
    b = np.linspace(-1.0, 1.0, d) / math.sqrt(d) if d > 1 else np.array([0.7])
    y = np.clip(X @ b + 0.3 + 0.5 * rng.normal(size=n), -BY, BY)
    return X, y


def proj(vecs):
    v = np.asarray(vecs)
    return v.T @ v  # components_ rows are directions


def ols(X, y, alpha=0.0):
    Xc = X - X.mean(0)
    yc = y - y.mean()
    return np.linalg.solve(Xc.T @ Xc + alpha * np.eye(X.shape[1]), Xc.T @ yc)


# --------------------------------------------------------------------------- configurations
def _cov(kind="covariance", **kw):
    def fit(X, y, eps, seed):
        from matrixdp.models import DPCovariance
        m = DPCovariance(epsilon=eps, delta=DELTA, bounds=(-B, B), kind=kind, random_state=seed,
                         **kw).fit(X)
        return m.covariance_

    def truth(X, y):
        if kind == "gram":
            return X.T @ X / X.shape[0]
        if kind == "correlation":
            return np.atleast_2d(np.corrcoef(X, rowvar=False))
        return np.atleast_2d(np.cov(X, rowvar=False, bias=True))
    return fit, truth, "norm"


def _pca(**kw):
    def fit(X, y, eps, seed):
        from matrixdp.models import DPPCA
        k = min(2, X.shape[1])
        m = DPPCA(k, epsilon=eps, delta=DELTA, bounds=(-B, B), random_state=seed, **kw).fit(X)
        return proj(m.components_)

    def truth(X, y):
        k = min(2, X.shape[1])
        w, v = np.linalg.eigh(np.cov(X, rowvar=False, bias=True))
        return proj(v[:, ::-1][:, :k].T)
    return fit, truth, "one"


def _reg(cls="DPLinearRegression", alpha=None, **kw):
    def fit(X, y, eps, seed):
        import matrixdp.models as M
        extra = {} if alpha is None else {"alpha": alpha}
        m = getattr(M, cls)(epsilon=eps, delta=DELTA, bounds_X=(-B, B), bounds_y=(-BY, BY),
                            random_state=seed, **extra, **kw).fit(X, y)
        return np.r_[np.ravel(m.coef_), m.intercept_]

    def truth(X, y):
        w = ols(X, y, alpha or 0.0)
        return np.r_[w, y.mean() - X.mean(0) @ w]
    return fit, truth, "norm"


def _mean(**kw):
    def fit(X, y, eps, seed):
        from matrixdp.models import DPMean
        return DPMean(epsilon=eps, delta=DELTA, bounds=(-B, B), random_state=seed,
                      **kw).fit(X).mean_
    return fit, (lambda X, y: X.mean(0)), "norm"


def _scaler(**kw):
    def fit(X, y, eps, seed):
        from matrixdp.models import DPStandardScaler
        m = DPStandardScaler(epsilon=eps, delta=DELTA, bounds=(-B, B), random_state=seed,
                             **kw).fit(X)
        return np.r_[m.mean_, m.scale_]
    return fit, (lambda X, y: np.r_[X.mean(0), X.std(0)]), "norm"


def _ron(**kw):
    def fit(X, y, eps, seed):
        from matrixdp.synth import RONGauss
        m = RONGauss(dim=_ron_dim(X), epsilon=eps, random_state=seed, **kw).fit(X)
        return m.covariance_

    def truth(X, y):
        # the same projection (drawn from the seed, data-independent): replay it
        from matrixdp.synth import RONGauss, normalize_rows
        m = RONGauss(dim=_ron_dim(X), epsilon=1.0, random_state=_ron_seed[0]).fit(X)
        Xn = normalize_rows(X)
        Z = normalize_rows(Xn - Xn.mean(0)) @ m.projection_
        return Z.T @ Z / X.shape[0]
    return fit, truth, "norm"


_ron_seed = [0]


def _ron_dim(X):
    return 2 if X.shape[1] <= 3 else 3


def _copula(cls):
    def fit(X, y, eps, seed):
        import pandas as pd
        import matrixdp.synth as S
        cols = [f"x{j}" for j in range(X.shape[1])]
        schema = S.TableSchema(bounds={c: (-B, B) for c in cols})
        m = getattr(S, cls)(schema=schema, epsilon=eps, delta=DELTA, random_state=seed).fit(
            pd.DataFrame(X, columns=cols))
        return np.concatenate([np.ravel(m.marginals_[c]) for c in cols])

    def truth(X, y):
        edges = np.linspace(-B, B, 33)
        return np.concatenate([np.histogram(X[:, j], bins=edges)[0] / X.shape[0]
                               for j in range(X.shape[1])])
    return fit, truth, "l1"


def _r1smg():
    def fit(X, y, eps, seed):
        from matrixdp.mechanisms.r1smg import R1SMGMechanism
        d = X.shape[1]
        mech = R1SMGMechanism(dim=d, epsilon=eps, delta=DELTA,
                              sensitivity=2 * B * math.sqrt(d) / X.shape[0], allow_unsafe=True)
        return np.asarray(mech.release(X.mean(0), rng=seed).value)
    return fit, (lambda X, y: X.mean(0)), "norm"


def _fisher(kind):
    def fit(X, y, eps, seed):
        from matrixdp.mechanisms.fisher import FisherNoiseMechanism
        d = X.shape[1]
        mech = FisherNoiseMechanism(epsilon=eps, delta=DELTA if kind == "gaussian" else None,
                                    feature_ranges=np.tile([-B, B], (d, 1)), kind=kind)
        return np.asarray(mech.release(X, rng=seed).value)
    return fit, (lambda X, y: X), "rms"


#: name -> (factory, minimum d)
CONFIGS = {
    "DPCovariance(method=auto)": (lambda: _cov(), 1),
    "DPCovariance(method=moments,noise=mvg)": (lambda: _cov(method="moments", noise="mvg"), 1),
    "DPCovariance(method=moments,noise=iid)": (lambda: _cov(method="moments", noise="iid"), 1),
    "DPCovariance(method=coinpress)": (lambda: _cov(method="coinpress"), 1),
    "DPCovariance(method=adaptive)": (lambda: _cov(method="adaptive"), 1),
    "DPCovariance(neighbouring=add-remove)": (lambda: _cov(neighbouring="add-remove"), 1),
    "DPCovariance(kind=gram)": (lambda: _cov(kind="gram"), 1),
    "DPCovariance(kind=correlation)": (lambda: _cov(kind="correlation"), 3),
    "DPCovariance(kind=correlation,method=moments)": (
        lambda: _cov(kind="correlation", method="moments"), 3),
    "DPPCA(method=auto)": (lambda: _pca(), 3),
    "DPPCA(method=moments,noise=mvg)": (lambda: _pca(method="moments", noise="mvg"), 3),
    "DPPCA(method=moments,noise=iid)": (lambda: _pca(method="moments", noise="iid"), 3),
    "DPPCA(method=moments,noise=unit-box)": (lambda: _pca(method="moments", noise="unit-box"), 3),
    "DPPCA(method=coinpress)": (lambda: _pca(method="coinpress"), 3),
    "DPPCA(neighbouring=add-remove)": (lambda: _pca(neighbouring="add-remove"), 3),
    "DPLinearRegression(noise=auto)": (lambda: _reg(), 1),
    "DPLinearRegression(noise=mvg)": (lambda: _reg(noise="mvg"), 1),
    "DPLinearRegression(noise=iid)": (lambda: _reg(noise="iid"), 1),
    "DPLinearRegression(neighbouring=add-remove)": (lambda: _reg(neighbouring="add-remove"), 1),
    "DPRidge(alpha=1)": (lambda: _reg("DPRidge", alpha=1.0), 1),
    "AdaSSPRegression": (lambda: _reg("AdaSSPRegression"), 1),
    "BoostedAdaSSPRegression": (lambda: _reg("BoostedAdaSSPRegression"), 1),
    "DPMean(noise=auto)": (lambda: _mean(), 1),
    "DPMean(noise=iid)": (lambda: _mean(noise="iid"), 1),
    "DPMean(noise=mvg)": (lambda: _mean(noise="mvg"), 1),
    "DPMean(neighbouring=add-remove)": (lambda: _mean(neighbouring="add-remove"), 1),
    "DPStandardScaler": (lambda: _scaler(), 1),
    "RONGauss(covariance_)": (lambda: _ron(), 3),
    "DPCopula(marginals_)": (lambda: _copula("DPCopula"), 1),
    "DPTreeCopula(marginals_)": (lambda: _copula("DPTreeCopula"), 1),
    "R1SMGMechanism(mean)": (lambda: _r1smg(), 3),
    "FisherNoiseMechanism(kind=gaussian)": (lambda: _fisher("gaussian"), 1),
    "FisherNoiseMechanism(kind=laplace)": (lambda: _fisher("laplace"), 1),
}


def scale_of(kind, t):
    if kind in ("one", "l1"):
        return 1.0
    if kind == "rms":
        return B
    return max(float(np.linalg.norm(t)), 1e-12)


def error(kind, est, t):
    diff = np.asarray(est, float) - np.asarray(t, float)
    if kind == "l1":
        return float(np.abs(diff).sum())
    if kind == "rms":
        return float(np.sqrt(np.mean(diff ** 2)))
    return float(np.linalg.norm(diff))


def run_cell(name, n, d):
    factory, _ = CONFIGS[name]
    fit, truth, kind = factory()
    rows = []
    for s in range(N_TRIALS):
        X, y = make_data(n, d, s)
        _ron_seed[0] = s
        t = truth(X, y)
        sc = scale_of(kind, t)
        for eps in EPSILONS:
            try:
                err = error(kind, fit(X, y, eps, s), t)
                note = ""
            except Exception as exc:  # a crash is a finding, recorded
                err, note = float("nan"), f"{type(exc).__name__}: {str(exc)[:80]}"
            rows.append({"config": name, "n": n, "d": d, "trial": s, "epsilon": eps,
                         "error": err, "scale": sc, "note": note})
    return rows


def load():
    """Every trials file (``TRIALS`` and the shards ``--shard`` wrote beside it)."""
    rows = []
    for path in sorted(OUT.glob("epsilon_monotonicity_scan_trials*.csv")):
        with path.open() as fh:
            rows += list(csv.DictReader(fh))
    return rows


def analyse(rows):
    from scipy.stats import wilcoxon
    cells = {}
    for r in rows:
        cells.setdefault((r["config"], int(r["n"]), int(r["d"])), []).append(r)
    out = []
    for (name, n, d), rs in cells.items():
        errs = np.full((N_TRIALS, len(EPSILONS)), np.nan)
        notes = {r["note"] for r in rs if r["note"]}
        for r in rs:
            errs[int(r["trial"]), EPSILONS.index(float(r["epsilon"]))] = float(r["error"])
        scale = float(np.median([float(r["scale"]) for r in rs]))
        med = np.nanmedian(errs, axis=0)
        rises = []
        for k in range(len(EPSILONS) - 1):
            a, b = errs[:, k], errs[:, k + 1]
            ok = np.isfinite(a) & np.isfinite(b) & (a > 0) & (b > 0)
            if ok.sum() < 10:
                continue
            lr = np.log(b[ok] / a[ok])
            if np.all(lr == 0):
                continue
            p = wilcoxon(lr, alternative="greater").pvalue
            ratio = np.median(b[ok]) / np.median(a[ok])
            if p < ALPHA and ratio > RISE:
                rises.append(f"{EPSILONS[k]:g}->{EPSILONS[k + 1]:g} x{ratio:.2f} (p={p:.1g})")
        floor = med[-1] / med[-2] if med[-2] > 0 else 0.0
        far = med[-1] / scale
        out.append({"config": name, "n": n, "d": d, "median": med, "rises": rises,
                    "floor": floor, "floor_flag": not (floor <= FLOOR), "far": far,
                    "far_flag": not (far <= FAR), "notes": notes})
    return out


def write_report(results):
    lines = [
        "# ε scan: does every estimator's error fall with ε and reach the non-private answer?",
        "",
        "Script: `experiments/epsilon_monotonicity_scan.py` (rules in its docstring, written "
        "before the run); trials: `results/epsilon_monotonicity_scan_trials*.csv` (a cell "
        "computed twice by two processes is identical). "
        f"{N_TRIALS} trials per cell, paired by seed; δ = {DELTA:g}; public box [-{B:g}, {B:g}], "
        f"target range [-{BY:g}, {BY:g}].",
        "",
        f"**Rise**: one-sided Wilcoxon of the paired log ratios p < {ALPHA} and ratio of medians "
        f"> {RISE}. **Floor**: median error at ε = 1e6 above {FLOOR:g} × the median at ε = 1e4 "
        f"(noise alone falls ≥ 10× there). **Far** (reported): median error at ε = 1e6 above "
        f"{FAR:g} × scale (the truth's norm; 1 for projector and L1 distances; 4 for the Fisher "
        "release's RMS).",
        "",
    ]
    flagged = [r for r in results if r["rises"] or r["floor_flag"] or r["far_flag"]
               or r["notes"]]
    lines += [f"Cells: {len(results)}; flagged: {len(flagged)}.", "",
              "## Flagged cells", "",
              "| config | n | d | rises | err(1e6)/err(1e4) | err(1e6)/scale | crashes |",
              "|---|---|---|---|---|---|---|"]
    for r in sorted(flagged, key=lambda r: (r["config"], r["n"], r["d"])):
        lines.append(f"| {r['config']} | {r['n']} | {r['d']} | {'; '.join(r['rises']) or '-'} | "
                     f"{r['floor']:.3g}{' FLOOR' if r['floor_flag'] else ''} | "
                     f"{r['far']:.3g}{' far' if r['far_flag'] else ''} | "
                     f"{'; '.join(sorted(r['notes']))[:120] or '-'} |")
    lines += ["", "## Median error by ε (all cells)", "",
              "| config | n | d | " + " | ".join(f"{e:g}" for e in EPSILONS) + " | flag |",
              "|---|---|---|" + "---|" * (len(EPSILONS) + 1)]
    for r in sorted(results, key=lambda r: (r["config"], r["n"], r["d"])):
        flag = (("RISE " if r["rises"] else "") + ("FLOOR " if r["floor_flag"] else "")
                + ("far" if r["far_flag"] else ""))
        lines.append(f"| {r['config']} | {r['n']} | {r['d']} | "
                     + " | ".join(f"{m:.3g}" for m in r["median"]) + f" | {flag.strip() or 'ok'} |")
    REPORT.write_text("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--shard", default="", help="write to epsilon_monotonicity_scan_trials_"
                    "<SHARD>.csv (a second process; cells done in any file are skipped)")
    args = ap.parse_args(argv)
    trials = TRIALS if not args.shard else OUT / f"epsilon_monotonicity_scan_trials_{args.shard}.csv"
    warnings.simplefilter("ignore")
    done = {(r["config"], int(r["n"]), int(r["d"])) for r in load()}
    if not args.report:
        fields = ["config", "n", "d", "trial", "epsilon", "error", "scale", "note"]
        new = not trials.exists()
        with trials.open("a", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=fields)
            if new:
                w.writeheader()
            for name, (_, dmin) in CONFIGS.items():
                if args.only not in name:
                    continue
                for n in NS:
                    for d in DS:
                        if d < dmin or (name, n, d) in done:
                            continue
                        t0 = time.time()
                        w.writerows(run_cell(name, n, d))
                        fh.flush()
                        print(f"{name} n={n} d={d}: {time.time() - t0:.1f}s", flush=True)
    write_report(analyse(load()))


if __name__ == "__main__":
    sys.exit(main())
