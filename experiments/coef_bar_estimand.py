"""What do the regression coefficients' error bars cover when the noise-aware ridge shrinks them?
(A diagnosis for session 23's open item, "regression coefficient bars when shrunk"; decides nothing.)

Session 23's curator walkthrough (``results/curator_walkthrough.md``) found the 95% intervals of
``DPLinearRegression``'s coefficients covering the least-squares (OLS) coefficients 73-75% of the
time on CrohnD, and two collinear coefficients (BMI, weight beside height) 0%: the noise-aware ridge
shrinks them, and the bars (``coef_std_``, the first-order noise std) leave the shrinkage out.

This script asks whether the bars cover a different, well-defined estimand: the coefficients of the
ridge fit that uses the TRUE (non-private) moments of the records with the penalty the release chose
(``(A + αI + λD) β = b`` with the released ``λ`` and the public ``D``; ``normal_equations.
solve_released_normal_equations``). It also reads each coefficient's resolution ``K_jj``, the
diagonal of ``M⁻¹ Â`` with ``M = Â + αI + λD`` the matrix the solve inverted (post-processing of the
release: public), as a candidate public marker of which coefficients' bars cover OLS.

Table: a public generated table of ``n = 200`` records whose target depends on height, weight,
BMI = weight / height² (collinear with the two) and age, in public bounds; ε ∈ {1, 10, 100},
δ = 1e-6, replace-one, 200 seeded fits per ε (``random_state`` 0..199). Rows:

* ``single release`` (``RegressionOptions(boost_rounds=0)``): the joint release solved once; its
  ridge estimand is computed exactly (the fit's own solve is recorded by wrapping
  ``solve_released_normal_equations``, and the same penalty is applied to the true moments).
* ``default`` (two boosting rounds on this table): coverage of OLS only (the rounds' estimand is not
  the single solve's, so no ridge row).

Per coefficient: coverage of ``coef_ ± 1.96 coef_std_`` of OLS (on the clipped records, with an
intercept) and of the ridge estimand; pooled over coefficients and fits, the coverage of OLS by bin of
``K_jj``. Instrumentation: the fit's internal moments and solve are captured by wrapping two
functions for the duration of a fit (the release and its noise are unchanged; nothing is written to
the estimator).

Command::

    cd experiments && PYTHONPATH=../src python coef_bar_estimand.py

Output: ``results/coef_bar_estimand.md``.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "results"
EPSILONS = (1.0, 10.0, 100.0)
FITS = 200
NAMES = ("height", "weight", "BMI", "age")
BINS = ((-np.inf, 0.5), (0.5, 0.8), (0.8, 0.9), (0.9, 0.95), (0.95, 0.99), (0.99, np.inf))


def table(n: int = 200, seed: int = 0):
    """The generated table and its public bounds (the generator's box, not the data)."""
    rng = np.random.default_rng(seed)
    h = rng.uniform(1.5, 2.0, n)
    w = rng.normal(70, 12, n).clip(40, 120)
    bmi = w / h ** 2
    age = rng.uniform(18, 80, n)
    X = np.column_stack([h, w, bmi, age])
    y = (0.5 * bmi - 0.2 * w + 10 * h + 0.05 * age + rng.normal(0, 2, n)).clip(-20, 60)
    return X, y, (np.array([1.4, 30, 5, 10.0]), np.array([2.1, 150, 60, 90.0])), (-20.0, 60.0)


class Capture:
    """Record a fit's exact moments and its solve's penalty and resolution (wrapping two
    functions while the fit runs; the release is not touched)."""

    def __enter__(self):
        import matrixdp.models.linear as lin
        from matrixdp.models import normal_equations as ne

        self._ne, self._lin = ne, lin
        self._solve, self._moments = ne.solve_released_normal_equations, \
            lin.DPLinearRegression._task_moments
        cap = self.cap = {}

        def solve(A, b, noise_sd, **kw):
            beta, lam, M = self._solve(A, b, noise_sd, **{**kw, "return_normal": True})
            A_sym = 0.5 * (A + A.T)
            cap["penalty"] = M - A_sym  # α I + λ D on the penalised diagonal, 0 elsewhere
            cap["K"] = np.diag(np.linalg.pinv(M) @ A_sym)  # a boosted fit's unridged M can be singular
            return (beta, lam, M) if kw.get("return_normal") else (beta, lam)

        def moments(est, *a, **k):
            out = self._moments(est, *a, **k)
            cap["value"], cap["n"], cap["t"] = out[6], out[4], out[3]
            return out

        ne.solve_released_normal_equations = solve
        lin.DPLinearRegression._task_moments = moments
        return self

    def __exit__(self, *exc):
        self._ne.solve_released_normal_equations = self._solve
        self._lin.DPLinearRegression._task_moments = self._moments


def ridge_estimand(cap, d: int) -> np.ndarray:
    """The released penalty applied to the records' exact moments (same coordinates as the fit)."""
    n, t = float(cap["n"]), float(cap["t"])
    G = np.asarray(cap["value"], dtype=np.float64) * n
    idx = list(range(d)) + [d + 1]
    A = G[np.ix_(idx, idx)].copy()
    A[-1, -1] = n * t * t
    return np.linalg.solve(A + cap["penalty"], G[idx, d])[:d]


def run(eps: float, boosted: bool) -> dict:
    from matrixdp.models import DPLinearRegression
    from matrixdp.models.experimental import RegressionOptions

    X, y, bx, by = table()
    d = X.shape[1]
    Xc = np.column_stack([np.clip(X, *bx), np.ones(len(y))])
    ols = np.linalg.lstsq(Xc, np.clip(y, *by), rcond=None)[0][:d]
    opts = None if boosted else RegressionOptions(boost_rounds=0)
    cov_ols, cov_ridge, K, shrunk = [], [], [], []
    for s in range(FITS):
        with warnings.catch_warnings(), Capture() as c:
            warnings.simplefilter("ignore")
            est = DPLinearRegression(epsilon=eps, delta=1e-6, bounds_X=bx, bounds_y=by,
                                     random_state=s, experimental=opts).fit(X, y)
        lo, hi = est.coef_ - 1.96 * est.coef_std_, est.coef_ + 1.96 * est.coef_std_
        cov_ols.append((lo <= ols) & (ols <= hi))
        shrunk.append(float(est.ridge_) > 0)
        if not boosted:
            r = ridge_estimand(c.cap, d)
            cov_ridge.append((lo <= r) & (r <= hi))
            K.append(c.cap["K"][:d])
    return {"ols": ols, "cov_ols": np.array(cov_ols), "cov_ridge": np.array(cov_ridge),
            "K": np.array(K), "shrunk": float(np.mean(shrunk))}


def main() -> int:
    lines = ["# Regression coefficient bars: what they cover when the ridge shrinks (diagnosis)", "",
             "Generated by `experiments/coef_bar_estimand.py` (its docstring: the table, the "
             "estimands and the instrumentation). A public generated table, n = 200, features "
             "height, weight, BMI = weight / height² and age (BMI collinear with the other two); "
             f"δ = 1e-6, replace-one; {FITS} seeded fits per ε. Coverage of `coef_ ± 1.96 "
             "coef_std_` per coefficient (" + ", ".join(NAMES) + "). Decides nothing.", "",
             "| fit | ε | share of fits shrunk (λ > 0) | coverage of OLS | coverage of the ridge "
             "estimand (true moments, released penalty) | median resolution K_jj |",
             "|---|---|---|---|---|---|"]
    bins = {}
    ols = None
    for boosted in (False, True):
        for eps in EPSILONS:
            r = run(eps, boosted)
            ols = r["ols"]
            fmt = lambda a: ", ".join(f"{v:.3f}" for v in a)  # noqa: E731
            ridge = fmt(r["cov_ridge"].mean(0)) if not boosted else "–"
            kmed = fmt(np.median(r["K"], 0)) if not boosted else "–"
            lines.append(f"| {'default (boosted)' if boosted else 'single release'} | {eps:g} | "
                         f"{r['shrunk']:.2f} | {fmt(r['cov_ols'].mean(0))} | {ridge} | {kmed} |")
            if not boosted:
                for lo, hi in BINS:
                    m = (r["K"] >= lo) & (r["K"] < hi)
                    n_, c_ = bins.get((lo, hi), (0, 0))
                    bins[(lo, hi)] = (n_ + int(m.sum()), c_ + int(r["cov_ols"][m].sum()))
    lines += ["", "OLS coefficients on the clipped records: " + ", ".join(
        f"{n} {v:.4g}" for n, v in zip(NAMES, ols)) + ".", "",
        "Single release, all ε pooled: coverage of OLS by the coefficient's resolution K_jj "
        "(the diagonal of M⁻¹Â, public).", "", "| K_jj | coefficients × fits | coverage of OLS |",
        "|---|---|---|"]
    for (lo, hi), (n_, c_) in bins.items():
        if n_:
            lines.append(f"| [{lo:g}, {hi:g}) | {n_} | {c_ / n_:.3f} |")
    (RESULTS / "coef_bar_estimand.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("wrote results/coef_bar_estimand.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
