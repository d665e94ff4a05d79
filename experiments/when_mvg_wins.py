"""When matrix-valued (MVG) noise beats i.i.d. noise: theory (exact expected losses) and measurement.

For tables whose public feature ranges are equal, mildly or strongly unequal, and for Adult's numeric
columns (bounds declared public for this benchmark), every matrixdp estimator is fitted with
``noise="iid"`` (analytic Gaussian at the exact/tightest sensitivity of the same query),
``noise="auto"`` (the default; MVG allocation chosen from public information), and i.i.d. noise after
rescaling every feature to the unit box by its public bounds (the practitioner's trick; results mapped
back to the original units). Same (ε, δ), same replace-one relation, same public bounds everywhere.

Writes ``results/when_mvg_wins.md`` and ``results/when_mvg_wins.csv``; the derivation these numbers
check is ``docs/when_mvg_wins.md``.

Usage: ``python experiments/when_mvg_wins.py [--trials 50] [--out results]``
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from matrixdp.models import (DPCovariance, DPLinearRegression, DPMean, DPPCA,  # noqa: E402
                             DPStandardScaler)

EPS, DELTA = 1.0, 1e-6
PCA_EPSILONS = (0.01, 0.1)
N = 5000
D = 6

ADULT_COLUMNS = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
#: Declared public for this benchmark (coding ranges of the 1994 census extract, not read from data).
ADULT_BOUNDS = (np.array([17.0, 0.0, 1.0, 0.0, 0.0, 1.0]),
                np.array([90.0, 1.5e6, 16.0, 99999.0, 4356.0, 99.0]))


def synthetic(hi: np.ndarray, n: int, seed: int):
    """Correlated features in ``[0, hi]`` and a linear target in ``[-4, 4]``."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, hi.size))
    z[:, 1:] += 0.7 * z[:, :1]
    z[:, 3:] += 0.5 * z[:, 1:2]
    u = 1.0 / (1.0 + np.exp(-z))
    X = u * hi
    coef = rng.normal(size=hi.size) / hi
    y = np.clip(X @ coef - (hi * coef).sum() / 2 + rng.normal(0, 0.3, n), -4, 4)
    return X, y, (np.zeros(hi.size), hi), (-4.0, 4.0)


def adult():
    from matrixdp.datasets import load_adult

    frame = load_adult().frame
    X = frame[ADULT_COLUMNS].to_numpy(dtype=np.float64)
    # regression: hours-per-week from the other five columns
    return X, ADULT_BOUNDS


def rescale(X, lo, hi):
    c, h = (lo + hi) / 2, (hi - lo) / 2
    return (X - c) / h, c, h


def captured(components, cov, best):
    return float(np.trace(components @ cov @ components.T) / best)


def top_components(cov, k):
    lam, vec = np.linalg.eigh(cov)
    return vec[:, np.argsort(lam)[::-1][:k]].T


def frobenius_witness(task, starts: int = 40, seed: int = 0) -> float:
    """A lower bound on sup ‖zzᵀ - z'z'ᵀ‖_F over the task's record box (κ = 1): the best of every
    vertex pair and of local maximisations from random starts (not a certificate: a witness)."""
    import itertools

    from scipy.optimize import minimize

    lo, hi = task.lower, task.upper
    verts = np.array(list(itertools.product(*zip(lo, hi))))
    norms = np.sum(verts * verts, axis=1)
    cross = verts @ verts.T
    best = float(np.max(norms[:, None] ** 2 + norms[None, :] ** 2 - 2 * cross ** 2))
    scale = np.where(task.reach > 0, task.reach, 1.0)
    k = lo.size

    def neg(v):
        x, y = v[:k] * scale, v[k:] * scale
        return -(np.dot(x, x) ** 2 + np.dot(y, y) ** 2 - 2 * np.dot(x, y) ** 2) / best

    rng = np.random.default_rng(seed)
    box = list(zip(lo / scale, hi / scale)) * 2
    for _ in range(starts):
        r = minimize(neg, rng.uniform(np.tile(lo / scale, 2), np.tile(hi / scale, 2)),
                     bounds=box, method="L-BFGS-B")
        best = max(best, -r.fun * best)
    return float(np.sqrt(best))


def rescaled_expected_loss(label, auto, resc, lo, hi):
    """Expected loss, in the task's original-units loss, of i.i.d. noise released on the unit box."""
    from matrixdp.models.covariance import augmented_task

    h = (hi - lo) / 2
    if label in ("covariance", "correlation"):
        kind = "covariance" if label == "covariance" else "correlation"
        n = 1  # the loss matrix does not depend on n
        task, _, t = augmented_task(lo, hi, n, kind)
        _, _, t_unit = augmented_task(-np.ones(h.size), np.ones(h.size), n, kind)
        s = np.append(h, t / t_unit)  # original-units entry = s_i s_j x unit-box entry
        return float(np.sum(task.loss_matrix * resc.entry_variance_ * np.outer(s, s) ** 2))
    if label == "mean":
        return float(np.sum(h * h * resc.noise_variance_))
    # scaler: weights 1/h² (means) and 1/h⁴ (mean squares); unit-box variances scale by h², h⁴
    return float(np.sum(resc.noise_variance_))


def rescaled_regression_loss(auto, resc, bounds_x, bounds_y, n):
    from matrixdp.models.joint_release import regression_task

    lo_x, hi_x = bounds_x
    task, _, _, t = regression_task(lo_x, hi_x, bounds_y[0], bounds_y[1], n, True)
    d = lo_x.size
    _, _, _, t_unit = regression_task(-np.ones(d), np.ones(d), -1.0, 1.0, n, True)
    s = np.concatenate([(hi_x - lo_x) / 2, [(bounds_y[1] - bounds_y[0]) / 2, t / t_unit]])
    return float(np.sum(task.loss_matrix * resc.entry_variance_ * np.outer(s, s) ** 2))


def run_profile(name, X, bounds, Xr, yr, bounds_x, bounds_y, trials, rows):
    lo, hi = bounds
    Xs, c, h = rescale(X, lo, hi)
    truth_cov = np.cov(X.T, bias=True)
    truth_corr = np.corrcoef(X.T)
    truth_mean = X.mean(axis=0)
    ev = np.sort(np.linalg.eigvalsh(truth_cov))[::-1]
    best2 = ev[:2].sum()
    n_train = int(0.8 * Xr.shape[0])
    Xtr, Xte, ytr, yte = Xr[:n_train], Xr[n_train:], yr[:n_train], yr[n_train:]
    lo_x, hi_x = bounds_x
    Xtr_s, cx, hx = rescale(Xtr, lo_x, hi_x)
    Xte_s = (Xte - cx) / hx
    cy, hy = (bounds_y[0] + bounds_y[1]) / 2, (bounds_y[1] - bounds_y[0]) / 2
    ols = np.linalg.lstsq(np.column_stack([Xtr, np.ones(n_train)]), ytr, rcond=None)[0]
    ols_rmse = float(np.sqrt(np.mean((np.column_stack([Xte, np.ones(len(yte))]) @ ols - yte) ** 2)))

    metrics = {}

    def add(task, method, value):
        metrics.setdefault((task, method), []).append(value)

    t0 = time.perf_counter()
    for s in range(trials):
        for method in ("iid", "rescaled-iid", "auto"):
            noise = "iid" if method != "auto" else "auto"
            data, b = (Xs, (-1, 1)) if method == "rescaled-iid" else (X, bounds)
            # covariance (original units)
            est = DPCovariance(epsilon=EPS, delta=DELTA, bounds=b, noise=noise, random_state=s,
                               method="moments")
            cov = est.fit(data).covariance_
            loc = est.location_
            if method == "rescaled-iid":
                cov, loc = cov * np.outer(h, h), c + h * loc
            add("covariance: relative Frobenius error", method,
                np.linalg.norm(cov - truth_cov) / np.linalg.norm(truth_cov))
            add("PCA k=2: captured variance / optimum", method,
                captured(top_components(cov, 2), truth_cov, best2))
            # shrinkage="none": this table compares noise allocations (the committed results
            # predate the correlation default's shrinkage="auto"/"projected")
            corr = DPCovariance(epsilon=EPS, delta=DELTA, bounds=b, kind="correlation",
                                method="moments", noise=noise, random_state=s, shrinkage="none").fit(data).covariance_
            add("correlation: Frobenius error", method, np.linalg.norm(corr - truth_corr))
            # loss="original": this table compares allocations for the L2 error in the original
            # units (the committed results predate DPMean's loss="relative" default)
            mean = DPMean(epsilon=EPS, delta=DELTA, bounds=b, noise=noise,
                          random_state=s, loss="original").fit(data).mean_
            if method == "rescaled-iid":
                mean = c + h * mean
            add("mean: relative L2 error", method,
                np.linalg.norm(mean - truth_mean) / np.linalg.norm(truth_mean))
            sc = DPStandardScaler(epsilon=EPS, delta=DELTA, bounds=b, noise=noise,
                                  random_state=s).fit(data)
            scale = sc.scale_ * (h if method == "rescaled-iid" else 1.0)
            add("scaler: mean relative error of scale_", method,
                float(np.mean(np.abs(scale - X.std(axis=0)) / X.std(axis=0))))
            if method == "rescaled-iid":
                reg = DPLinearRegression(epsilon=EPS, delta=DELTA, bounds_X=(-1, 1),
                                         bounds_y=(-1, 1), noise="iid", random_state=s)
                reg.fit(Xtr_s, (ytr - cy) / hy)
                pred = cy + hy * reg.predict(Xte_s)
            else:
                reg = DPLinearRegression(epsilon=EPS, delta=DELTA, bounds_X=bounds_x,
                                         bounds_y=bounds_y, noise=noise, random_state=s)
                pred = reg.fit(Xtr, ytr).predict(Xte)
            add("regression: test RMSE / non-private OLS RMSE", method,
                float(np.sqrt(np.mean((pred - yte) ** 2)) / ols_rmse))
    elapsed = time.perf_counter() - t0

    # theory: exact expected losses in each task's own loss (public; the data only give the shape)
    theory = {}
    for label, cls, kw in (("covariance", DPCovariance, {"method": "moments"}),
                           ("correlation", DPCovariance, {"kind": "correlation",
                                                          "method": "moments"}),
                           ("mean", DPMean, {"loss": "original"}),
                           ("scaler", DPStandardScaler, {})):
        e = {nz: cls(epsilon=EPS, delta=DELTA, bounds=bounds, noise=nz, random_state=0,
                     **kw).fit(X) for nz in ("iid", "auto")}
        resc = cls(epsilon=EPS, delta=DELTA, bounds=(-1, 1), noise="iid", random_state=0,
                   **kw).fit(Xs)
        theory[label] = (e["iid"].expected_loss_ / e["auto"].expected_loss_,
                         rescaled_expected_loss(label, e["auto"], resc, lo, hi)
                         / e["auto"].expected_loss_)
    e = {nz: DPLinearRegression(epsilon=EPS, delta=DELTA, bounds_X=bounds_x, bounds_y=bounds_y,
                                noise=nz, random_state=0).fit(Xtr, ytr) for nz in ("iid", "auto")}
    resc = DPLinearRegression(epsilon=EPS, delta=DELTA, bounds_X=(-1, 1), bounds_y=(-1, 1),
                              noise="iid", random_state=0).fit(Xtr_s, (ytr - cy) / hy)
    theory["regression"] = (e["iid"].expected_loss_ / e["auto"].expected_loss_,
                            rescaled_regression_loss(e["auto"], resc, bounds_x, bounds_y, n_train)
                            / e["auto"].expected_loss_)
    # how loose the certified Frobenius sensitivity of the iid release is (witness = lower bound)
    from matrixdp.models.covariance import augmented_task
    from matrixdp.models.joint_release import regression_task

    task, _, _ = augmented_task(lo, hi, 1, "covariance")
    theory["iid slack covariance"] = task.query().sensitivity_l2 / frobenius_witness(task)
    # the same for the MVG noise auto uses: whitened box A^{1/2} z, certified shift = mu*
    from types import SimpleNamespace

    from matrixdp.calibration.gaussian import max_gaussian_shift

    fitted = DPCovariance(epsilon=EPS, delta=DELTA, bounds=bounds, noise="mvg", method="moments",
                          random_state=0).fit(X)
    root = np.sqrt(np.sqrt(np.diagonal(fitted.entry_variance_)))  # sqrt(v_i)
    task_n, _, _ = augmented_task(lo, hi, X.shape[0], "covariance")
    white = SimpleNamespace(lower=task_n.lower / root, upper=task_n.upper / root,
                            reach=task_n.reach / root)
    theory["mvg slack covariance"] = max_gaussian_shift(EPS, DELTA) / (
        frobenius_witness(white) / X.shape[0])
    rtask = regression_task(bounds_x[0], bounds_x[1], bounds_y[0], bounds_y[1], 1, True)[0]
    theory["iid slack regression"] = rtask.query().sensitivity_l2 / frobenius_witness(rtask)
    # add-remove: both calibrations exact (s2 = R², mu = (sum_i p_i h_i²)), no slack
    e = {nz: DPCovariance(epsilon=EPS, delta=DELTA, bounds=bounds, noise=nz, method="moments",
                          neighbouring="add-remove", random_state=0).fit(X)
         for nz in ("iid", "auto")}
    assert e["iid"].privacy_.exact and e["auto"].privacy_.exact
    theory["covariance add-remove"] = e["iid"].expected_loss_ / e["auto"].expected_loss_
    w = hi - lo
    d = w.size
    theory["closed form"] = float(d * np.sum(w * w) / np.sum(w) ** 2)

    # PCA at smaller budgets (k = 2, 5): where the subspace starts to suffer
    for eps in PCA_EPSILONS:
        for k in (2, 5):
            best_k = ev[:k].sum()
            for method in ("iid", "rescaled-iid", "auto"):
                vals = []
                for s in range(trials):
                    if method == "rescaled-iid":
                        c_u = DPCovariance(epsilon=eps, delta=DELTA, bounds=(-1, 1), noise="iid",
                                           method="moments",
                                           random_state=s).fit(Xs).covariance_
                        comps = top_components(c_u * np.outer(h, h), k)
                    else:
                        comps = DPPCA(k, epsilon=eps, delta=DELTA, bounds=bounds,
                                      noise="auto" if method == "auto" else "iid",
                                      method="moments", random_state=s).fit(X).components_
                    vals.append(captured(comps, truth_cov, best_k))
                q1, med, q3 = np.percentile(vals, [25, 50, 75])
                rows.append({"profile": name, "task": f"PCA k={k}, epsilon={eps}: captured "
                                                      "variance / optimum", "method": method,
                             "epsilon": eps, "delta": DELTA, "median": med, "q1": q1, "q3": q3,
                             "trials": trials})

    for (task, method), vals in metrics.items():
        q1, med, q3 = np.percentile(vals, [25, 50, 75])
        rows.append({"profile": name, "task": task, "method": method, "epsilon": EPS,
                     "delta": DELTA, "median": med, "q1": q1, "q3": q3, "trials": trials})
    return theory, elapsed


def write(rows, theories, out: Path, trials: int, times):
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "when_mvg_wins.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = ["# When MVG noise wins: theory and measurement", "",
             f"Generated by `experiments/when_mvg_wins.py --trials {trials}`. ε = {EPS}, δ = {DELTA}, "
             "replace-one neighbours, the same public bounds for every method. Methods: `iid` = "
             "analytic Gaussian at the exact (or tightest certified) sensitivity of the same query; "
             "`rescaled-iid` = the same after mapping every feature to [-1, 1] by its public bounds "
             "(results mapped back); `auto` = matrixdp's default (MVG allocation from public "
             "information). Derivation: `docs/when_mvg_wins.md`.", "",
             "## Theory: exact expected-loss ratios (> 1: auto better)", "",
             "Each cell: `iid / auto` ; `rescaled-iid / auto`, the exact expected loss of the "
             "released statistics in the task's own loss (covariance: Frobenius in original units; "
             "correlation and scaler: units of the public half-widths; mean: L2 in original units; "
             "regression: the coefficient-error proxy of `models/linear.py`). The last column is the "
             "closed-form vector (mean) gain d·Σw²/(Σw)².", "",
             "| profile | covariance | correlation | mean | scaler | regression | closed form |",
             "|---|---|---|---|---|---|---|"]
    for name, th in theories.items():
        cells = [f"{th[k][0]:.3g} ; {th[k][1]:.3g}" for k in
                 ("covariance", "correlation", "mean", "scaler", "regression")]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {th['closed form']:.3g} |")
    lines += ["", "### How loose is the i.i.d. calibration of the second moments?", "",
              "`iid` uses the library's certified Frobenius sensitivity of the same query "
              "(`CovarianceQuery.sensitivity_l2`: the bound √2·R²/n, attained only when two "
              "farthest records are orthogonal). With unequal ranges no such pair exists and the "
              "true supremum is smaller. The slack below is certified / best witness found (vertex "
              "enumeration plus 40 local maximisations): an i.i.d. mechanism calibrated to the true "
              "supremum would have its σ smaller by at most this factor, so the covariance "
              "(regression) iid/auto ratio above would shrink by at most slack².", "",
              "The fifth column is the same certified/witness ratio for the MVG noise of "
              "`noise=\"mvg\"` on the covariance query (Mahalanobis shift μ* vs the best witness).", "",
              "The sixth column is the covariance iid/auto ratio under the add-remove relation, "
              "where both calibrations are exact (sensitivity of ±zzᵀ is R², no orthogonality "
              "condition): no slack at all.", "",
              "| profile | iid slack, covariance query | iid slack, regression query | "
              "iid/auto covariance ÷ slack² | MVG slack, covariance query | "
              "iid/auto covariance, add-remove (both exact) |",
              "|---|---|---|---|---|---|"]
    for name, th in theories.items():
        lines.append(f"| {name} | {th['iid slack covariance']:.3f} | "
                     f"{th['iid slack regression']:.3f} | "
                     f"{th['covariance'][0] / th['iid slack covariance'] ** 2:.3g} | "
                     f"{th['mvg slack covariance']:.3f} | {th['covariance add-remove']:.3g} |")
    lines += ["", f"## Measured ({trials} trials): median [IQR]", "",
              "ε = 1 unless the task names another ε (the PCA rows at ε = 0.01 and 0.1).", ""]
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    for task in tasks:
        better = "higher" if "captured" in task else "lower"
        lines += [f"### {task} ({better} is better)", "", "| profile | iid | rescaled-iid | auto |",
                  "|---|---|---|---|"]
        for name in theories:
            cells = []
            for method in ("iid", "rescaled-iid", "auto"):
                r = next(x for x in rows if x["profile"] == name and x["task"] == task
                         and x["method"] == method)
                cells.append(f"{r['median']:.3g} [{r['q1']:.3g}, {r['q3']:.3g}]")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["Wall time of all fits per profile (s): " +
              ", ".join(f"{k}: {v:.1f}" for k, v in times.items()), ""]
    (out / "when_mvg_wins.md").write_text("\n".join(lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--out", type=Path, default=ROOT / "results")
    parser.add_argument("--no-adult", action="store_true")
    args = parser.parse_args(argv)
    rows, theories, times = [], {}, {}
    profiles = {"equal ranges [0, 1]^6": np.ones(D),
                "mild ranges 1..10": np.geomspace(1, 10, D),
                "wide ranges 1..1400": np.geomspace(1, 1400, D)}
    for i, (name, hi) in enumerate(profiles.items()):
        X, y, bounds, by = synthetic(hi, N, seed=i)
        theories[name], times[name] = run_profile(name, X, bounds, X, y, bounds, by, args.trials,
                                                  rows)
    if not args.no_adult:
        X, bounds = adult()
        Xr, yr = X[:, :5], X[:, 5]
        bx = (bounds[0][:5], bounds[1][:5])
        by = (float(bounds[0][5]), float(bounds[1][5]))
        name = "Adult numeric (declared bounds)"
        theories[name], times[name] = run_profile(name, X, bounds, Xr, yr, bx, by, args.trials,
                                                  rows)
    write(rows, theories, args.out, args.trials, times)


if __name__ == "__main__":
    main()
