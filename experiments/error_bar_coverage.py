"""Do the error bars of ``matrixdp release`` tell the truth? Coverage of the 95% intervals.

For every query of ``matrixdp release`` (mean, sum, covariance, gram, correlation, pca, linreg),
every scenario below, ε ∈ {0.3, 1, 3, 10} (δ = 1e-6, replace-one, n public) and both the
projected (default) and the ``--no-project`` release, the script draws ``--trials`` seeded
releases through the CLI's own code path (``matrixdp.cli.release._release_vector``,
``_release_matrix``, ``_release_linreg``: what ``run`` calls after reading and clipping the
table; a check at start-up runs ``matrixdp.cli.main([... "--out" ...])`` in-process on one cell and
requires the JSON's bars to be identical to the function's) and compares every released entry and
its stated bar with the TRUE value of the same (clipped) records:

* mean, sum: the clipped table's column means / sums;
* covariance: ``np.cov(X, bias=True)`` (the release estimates ``E[x xᵀ] − m mᵀ``) and the mean;
* gram: ``XᵀX / n``;
* correlation: ``np.corrcoef(X)`` and the mean;
* pca: the eigenvectors (sign-aligned to each released component: the sign of a component is a
  convention) and eigenvalues of the true covariance, and the mean;
* linreg: ordinary least squares with an intercept on the clipped records (``--alpha`` unset).

Per released entry (upper triangle of a symmetric matrix; entries the release pins exactly, std 0,
are left out): coverage = share of releases whose interval ``[lower, upper]`` contains the truth;
ratio = (empirical RMS error over the releases) / (RMS of the stated std). Per query, entry class,
scenario, ε and projection: the mean coverage over entries, the worst entry's coverage, the
median / min / max ratio. The public bounds of every scenario come from its definition (the
generator's box), never from the data; liver uses the bounds of ``results/utility_bounds.md``.

PCA's explained variances are also scored with the first-order interval alone (``value ± 1.96
std``, row "explained variance (first order only)"), to show what the second-order widening of
the stated interval does. ``--heldout`` runs two scenarios that widening was not looked at on
(wdbc's 10 ``*_mean`` columns; a spiked Gaussian, d = 8), with the rule ``RULE_HELDOUT`` written
before their first run, into ``results/error_bar_coverage_heldout.{md,csv}``.

Output: ``results/error_bar_coverage.{md,csv}``. Command (the run in the results file)::

    cd experiments && PYTHONPATH=../src nice -n 5 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        MKL_NUM_THREADS=1 python error_bar_coverage.py
    (same prefix) python error_bar_coverage.py --heldout --name error_bar_coverage_heldout
    (same prefix) python error_bar_coverage.py --ridge-check   # results/error_bar_coverage_ridge
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np

EPSILONS = (0.3, 1.0, 3.0, 10.0)
DELTA = 1e-6
LEVEL = 0.95
Z95 = 1.959963984540054
QUERIES = ("mean", "sum", "covariance", "gram", "correlation", "pca", "linreg")
ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
NAME = "error_bar_coverage"
CSV_FIELDS = ("scenario", "n", "d", "query", "projected", "epsilon", "entry_class", "entries",
              "releases", "coverage_mean", "coverage_worst", "worst_entry", "entries_below_90",
              "ratio_median", "ratio_min", "ratio_max", "approximate", "width_over_rms_error")
# Liver: results/utility_bounds.md (envelope of the published table; drinks 0-20 documented)
LIVER_LO = np.array([50.0, 20.0, 2.0, 5.0, 5.0])
LIVER_HI = np.array([200.0, 200.0, 200.0, 100.0, 500.0])
LIVER_Y = (0.0, 20.0)
# wdbc's 10 *_mean columns: results/utility_bounds.md
WDBC_LO = np.array([5.0, 5.0, 20.0, 100.0, 0.05, 0.01, 0.0, 0.0, 0.1, 0.02])
WDBC_HI = np.array([50.0, 50.0, 200.0, 5000.0, 0.2, 0.5, 0.5, 0.5, 0.5, 0.1])


class Scenario:
    def __init__(self, name, X, lo, hi, y, ylo, yhi, note):
        self.name, self.note = name, note
        self.lo, self.hi = np.asarray(lo, float), np.asarray(hi, float)
        self.X = np.clip(np.asarray(X, float), self.lo, self.hi)  # the CLI clips the same way
        self.ylo, self.yhi = float(ylo), float(yhi)
        self.y = np.clip(np.asarray(y, float), ylo, yhi)
        self.n, self.d = self.X.shape
        self.names = [f"x{i + 1}" for i in range(self.d)]


def _target(rng, X, lo, hi, noise=0.3):
    """A linear target of the box-scaled features (public range: the generator's)."""
    d = X.shape[1]
    beta = np.linspace(1.0, -0.5, d)
    z = (X - lo) / np.where(hi > lo, hi - lo, 1.0)
    y = z @ beta + rng.normal(0.0, noise, X.shape[0])
    return y, -2.0, 2.0 + float(beta[beta > 0].sum())


def scenarios() -> list[Scenario]:
    out = []
    for n, d in ((200, 3), (20000, 3), (200, 12), (20000, 12)):
        rng = np.random.default_rng([11, n, d])
        lo = np.zeros(d)
        hi = np.linspace(1.0, 4.0, d)  # distinct widths: distinct eigenvalues
        X = rng.uniform(lo, hi, size=(n, d))
        out.append(Scenario(f"uniform d={d} n={n}", X, lo, hi, *_target(rng, X, lo, hi),
                            "uniform in the box [0, w_j], w = linspace(1, 4, d)"))
    n, d = 2000, 3
    rng = np.random.default_rng(12)
    hi = np.array([10.0, 20.0, 40.0])
    X = rng.uniform(0.0, 0.1 * hi, size=(n, d))
    out.append(Scenario("corner d=3 n=2000", X, np.zeros(d), hi, *_target(rng, X, 0 * hi, hi),
                        "uniform in [0, w_j / 10], box [0, w_j], w = (10, 20, 40)"))
    rng = np.random.default_rng(13)
    X = np.exp(rng.normal([0.0, 0.5, 1.0], 1.0, size=(n, d)))
    hi = np.array([10.0, 15.0, 25.0])
    out.append(Scenario("lognormal d=3 n=2000", X, np.zeros(d), hi,
                        *_target(rng, np.clip(X, 0, hi), 0 * hi, hi),
                        "exp(N(mu_j, 1)), mu = (0, 0.5, 1), clipped to [0, (10, 15, 25)]"))
    rng = np.random.default_rng(14)
    z = rng.normal(size=(n, d))
    X = np.column_stack([z[:, 0], 0.95 * z[:, 0] + 0.312 * z[:, 1],
                         0.8 * z[:, 0] + 0.5 * z[:, 1] + 0.33 * z[:, 2]])
    lo, hi = np.full(d, -4.0), np.full(d, 4.0)
    out.append(Scenario("correlated d=3 n=2000", X, lo, hi, *_target(rng, np.clip(X, lo, hi),
                                                                       lo, hi),
                        "Gaussian, corr(x1, x2) = 0.95, corr(x1, x3) = 0.8, box [-4, 4]"))
    rng = np.random.default_rng(15)
    X = np.column_stack([rng.binomial(1, 0.3, n), rng.uniform(0, 1, n), rng.uniform(0, 5, n)])
    lo, hi = np.zeros(d), np.array([1.0, 1.0, 5.0])
    out.append(Scenario("binary d=3 n=2000", X, lo, hi, *_target(rng, X, lo, hi),
                        "x1 ~ Bernoulli(0.3) in [0, 1], x2 ~ U[0, 1], x3 ~ U[0, 5]"))
    from matrixdp.datasets import load_liver

    home = os.environ.get("MATRIXDP_DATA")  # else the project's shared copy beside the repo
    if home is None and (ROOT.parent / "shared" / "datasets").is_dir():
        home = ROOT.parent / "shared" / "datasets"
    ds = load_liver(data_home=home)
    out.append(Scenario("liver (real) d=5 n=345", np.asarray(ds.data, float), LIVER_LO, LIVER_HI,
                        np.asarray(ds.target, float), *LIVER_Y,
                        "UCI liver disorders, bounds of results/utility_bounds.md, target drinks"))
    return out


def heldout_scenarios() -> list[Scenario]:
    """Tables the second-order eigenvalue widening was NOT looked at on (``--heldout``; fixed,
    with the rule in RULE_HELDOUT, before their first run)."""
    from matrixdp.datasets import load_wdbc

    home = os.environ.get("MATRIXDP_DATA")
    if home is None and (ROOT.parent / "shared" / "datasets").is_dir():
        home = ROOT.parent / "shared" / "datasets"
    ds = load_wdbc(data_home=home)
    out = [Scenario("wdbc (real) d=10 n=569", np.asarray(ds.data, float)[:, :10], WDBC_LO, WDBC_HI,
                    np.asarray(ds.target, float), 0.0, 1.0,
                    "UCI breast cancer Wisconsin (diagnostic), the 10 *_mean columns, bounds of "
                    "results/utility_bounds.md, target diagnosis (0/1)")]
    rng = np.random.default_rng(16)
    d, n = 8, 1000
    Q = np.linalg.qr(rng.normal(size=(d, d)))[0]
    X = rng.normal(size=(n, d)) * np.sqrt([4.0, 2.0, 1.0, 0.5, 0.25, 0.25, 0.1, 0.1]) @ Q.T
    lo, hi = np.full(d, -6.0), np.full(d, 6.0)
    out.append(Scenario("spiked Gaussian d=8 n=1000", X, lo, hi,
                        *_target(rng, np.clip(X, lo, hi), lo, hi),
                        "N(0, Q diag(4, 2, 1, .5, .25, .25, .1, .1) Qᵀ), Q a random rotation, "
                        "box [-6, 6]"))
    return out


RULE_HELDOUT = (
    "Rule for the second-order eigenvalue widening (written before the held-out run): it is "
    "kept if, over the held-out scenarios' explained-variance cells, the stated (widened) "
    "intervals fail (mean < 0.93 or an entry < 0.90) in no more cells than the first-order "
    "intervals `value ± 1.96 std` (cut to [0, Σh²]; row 'explained variance (first order "
    "only)'), and their mean coverage is at least the first-order one's in every cell where "
    "the first-order interval fails.\n\nHistory (disclosed): the first run of these held-out "
    "scenarios (library commit c657649) passed that rule with the same PCA numbers as below, "
    "and also found the `--no-project` correlation bars covering 75-80% on wdbc (their plug-in "
    "variances came from a different projection than the released matrix); that was fixed "
    "(commit eadf28a) and this file rerun, so for that fix these scenarios are no longer "
    "held out.")


# ----------------------------------------------------------------------------- truth
def truths(sc: Scenario, query: str) -> dict:
    X = sc.X
    mean = X.mean(axis=0)
    if query == "mean":
        return {"values": mean}
    if query == "sum":
        return {"values": X.sum(axis=0)}
    cov = np.cov(X, rowvar=False, bias=True)
    if query == "covariance":
        return {"matrix": cov, "mean": mean}
    if query == "gram":
        return {"matrix": X.T @ X / sc.n}
    if query == "correlation":
        return {"matrix": np.corrcoef(X, rowvar=False), "mean": mean}
    if query == "pca":
        lam, vec = np.linalg.eigh(cov)
        order = np.argsort(lam)[::-1]
        return {"components": vec[:, order].T, "explained_variance": lam[order], "mean": mean}
    A = np.column_stack([X, np.ones(sc.n)])
    beta = np.linalg.lstsq(A, sc.y, rcond=None)[0]
    return {"coef": beta[:-1], "intercept": np.array([beta[-1]])}


def release(sc: Scenario, query: str, eps: float, project: bool, seed: int):
    """``(released, bars)`` of one release through the CLI's functions (``run``'s path)."""
    from matrixdp.cli import release as R

    args = types.SimpleNamespace(components=None, alpha=None)
    if query in ("mean", "sum"):
        out = R._release_vector(query, sc.X, sc.lo, sc.hi, eps, DELTA, "auto", seed, None,
                                project, n=sc.n)
    elif query == "linreg":
        out = R._release_linreg(sc.X, sc.y, sc.lo, sc.hi, sc.ylo, sc.yhi, eps, DELTA, "auto",
                                seed, None, args, sc.names, "y", project)
    else:
        out = R._release_matrix(query, sc.X, sc.lo, sc.hi, eps, DELTA, "auto", seed, None, args,
                                sc.names, project)
    return out[0], out[3]


def released_array(released: dict, key: str, names) -> np.ndarray:
    v = released["values" if key == "values" else key]
    if key == "coef":
        v = [v[c] for c in names]
    return np.atleast_1d(np.asarray(v, dtype=np.float64))


def entry_classes(query: str, key: str, shape) -> dict:
    """Masks of the entry classes of one released array (symmetric: upper triangle only)."""
    if key == "matrix":
        d = shape[0]
        diag = np.eye(d, dtype=bool)
        upper = np.triu(np.ones((d, d), dtype=bool), 1)
        if query == "correlation":
            return {"matrix (off-diagonal)": upper}
        return {"matrix (diagonal)": diag, "matrix (off-diagonal)": upper}
    if key == "explained_variance_first_order":
        return {"explained variance (first order only)": np.ones(shape, dtype=bool)}
    return {key.replace("_", " "): np.ones(shape, dtype=bool)}


# ----------------------------------------------------------------------------- one cell
def run_cell(sc: Scenario, query: str, eps: float, project: bool, trials: int) -> list[dict]:
    truth = truths(sc, query)
    vals, lows, ups, stds, approx = {}, {}, {}, {}, {}
    for trial in range(trials):
        # seeds differ across ε (the cells are independent), shared by both projections
        seed = 10_000 * EPSILONS.index(eps) + trial
        released, bars = release(sc, query, eps, project, seed)
        for key in truth:
            v = released_array(released, key, sc.names)
            vals.setdefault(key, []).append(v)
            lows.setdefault(key, []).append(np.asarray(bars[key]["lower"], float).reshape(v.shape))
            ups.setdefault(key, []).append(np.asarray(bars[key]["upper"], float).reshape(v.shape))
            stds.setdefault(key, []).append(np.asarray(bars[key]["std"], float).reshape(v.shape))
            approx[key] = bars[key]["approximate"]
            if key == "explained_variance":  # the first-order interval alone, for comparison
                s_ = np.asarray(bars[key]["std"], float)
                total = float(np.sum((0.5 * (sc.hi - sc.lo)) ** 2))
                name = "explained_variance_first_order"
                vals.setdefault(name, []).append(v)
                lows.setdefault(name, []).append(np.maximum(v - Z95 * s_, 0.0))
                ups.setdefault(name, []).append(np.minimum(v + Z95 * s_, total))
                stds.setdefault(name, []).append(s_)
                approx[name] = True
    if "explained_variance" in truth:
        truth = {**truth, "explained_variance_first_order": truth["explained_variance"]}
    rows = []
    for key, t in truth.items():
        V, L, U, S = (np.asarray(a[key]) for a in (vals, lows, ups, stds))
        T = np.broadcast_to(t, V.shape).copy()
        if key == "components":  # a component's sign is a convention: align the truth to it
            sign = np.sign(np.sum(V * T, axis=-1, keepdims=True))
            T = T * np.where(sign == 0, 1.0, sign)
        tol = 1e-9 * np.maximum(np.abs(T), 1e-12)
        cover = (L - tol <= T) & (T <= U + tol)
        err = V - T
        rms_err = np.sqrt(np.mean(err ** 2, axis=0))
        rms_std = np.sqrt(np.mean(S ** 2, axis=0))
        width = np.mean(U - L, axis=0)
        for cls, mask in entry_classes(query, key, V.shape[1:]).items():
            mask = mask & (rms_std > 0)  # entries pinned exactly (std 0) carry no bar to test
            if not mask.any():
                continue
            cov_e = cover.mean(axis=0)[mask]
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = (rms_err / rms_std)[mask]
                wr = (width / (2 * 1.959964 * rms_err))[mask]
            idx = np.argwhere(mask)[int(np.argmin(cov_e))]
            rows.append({
                "scenario": sc.name, "n": sc.n, "d": sc.d, "query": query,
                "projected": project, "epsilon": eps, "entry_class": cls,
                "entries": int(mask.sum()), "releases": trials,
                "coverage_mean": float(cov_e.mean()), "coverage_worst": float(cov_e.min()),
                "worst_entry": "[" + ", ".join(str(int(i)) for i in idx) + "]",
                "entries_below_90": int(np.sum(cov_e < 0.90)),
                "ratio_median": float(np.median(ratio)), "ratio_min": float(np.min(ratio)),
                "ratio_max": float(np.max(ratio)), "approximate": bool(approx[key]),
                "width_over_rms_error": float(np.median(wr))})
    return rows


def check_cli_path(sc: Scenario) -> None:
    """The functions measured are what ``matrixdp release`` writes: one in-process CLI run."""
    import pandas as pd

    from matrixdp.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "t.csv"
        pd.DataFrame(np.column_stack([sc.X, sc.y]), columns=[*sc.names, "y"]).to_csv(data,
                                                                                    index=False)
        for query in ("covariance", "pca", "linreg"):
            out = Path(tmp) / f"{query}.json"
            argv = ["release", str(data), "--query", query, "--epsilon", "1", "--seed", "3",
                    "--out", str(out), "--quiet"]
            for c, a, b in zip(sc.names, sc.lo, sc.hi):
                argv += ["--bounds", f"{c}={float(a)!r}:{float(b)!r}"]
            if query == "linreg":
                argv += ["--bounds", f"y={sc.ylo!r}:{sc.yhi!r}", "--target", "y"]
            import contextlib
            import io

            err = io.StringIO()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                rc = main(argv)
            assert rc == 0, err.getvalue()
            doc = json.loads(out.read_text())
            _, bars = release(sc, query, 1.0, True, 3)
            for key, bar in bars.items():
                for f in ("std", "lower", "upper"):
                    a = np.asarray(doc["error_bars"][key][f], float)
                    b = np.asarray(bar[f], float)
                    assert np.allclose(a, b, rtol=1e-9, atol=1e-12), (query, key, f)


# ----------------------------------------------------------------------------- output
def _fmt(v, digits=3):
    return f"{v:.{digits}f}"


def write_outputs(rows, args, elapsed, scs):
    RESULTS.mkdir(exist_ok=True)
    with open(RESULTS / f"{args.name}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in r.items()})
    import platform

    import matrixdp

    lines = [
        "# Error-bar coverage of `matrixdp release` (95% intervals against the true value)", "",
        f"Command: `cd experiments && PYTHONPATH=../src nice -n 5 env OMP_NUM_THREADS=1 "
        f"OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 python {NAME}.py"
        + (f" --trials {args.trials}" if args.trials != DEFAULT_TRIALS else "")
        + (f" --scenarios {' '.join(map(repr, args.scenarios))}" if args.scenarios else "")
        + (" --heldout" if args.heldout else "")
        + (f" --name {args.name}" if args.name != NAME else "")
        + (f" --label {args.label!r}" if args.label else "") + "`", "",
        *([f"Library code measured: {args.label}", ""] if args.label else []),
        f"matrixdp {matrixdp.__version__}, numpy {np.__version__}, Python "
        f"{platform.python_version()}; {elapsed / 60:.1f} min on a shared 2-core machine.", "",
        f"Setup: δ = {DELTA:g}, replace-one, `--noise auto`, {args.trials} seeded releases per "
        "cell (seeds 10000 k + 0 … trials−1 for the k-th ε, the same for both projections), "
        "every release through the CLI's own functions "
        "(`_release_vector`, `_release_matrix`, `_release_linreg`; a start-up check requires "
        "`matrixdp.cli.main([... --out ...])` to write the same bars). Truth: the statistic of "
        "the same clipped records (see the script's docstring). Coverage: share of releases "
        "whose stated 95% interval `[lower, upper]` contains the truth, per entry; "
        "`cov mean` averages over the entries of a class, `worst` is the lowest entry. "
        "`ratio` = empirical RMS error / RMS of the stated `std` per entry (1 = the std is "
        "the error's true size; < 1 conservative; > 1 too narrow): median [min, max] over the "
        "entries. Entries pinned exactly (std 0: a correlation's diagonal) are left out.", "",
        f"Binomial tolerance: with {args.trials} releases an entry whose interval truly covers "
        f"95% shows coverage below {0.95 - 2.33 * np.sqrt(0.95 * 0.05 / args.trials):.3f} with "
        "probability 1% (one-sided); a class's mean over entries is tighter. **Judgement "
        "(fixed before the run):** a cell FAILS when the class's mean coverage is below 0.93 or "
        "an entry's is below 0.90; it is GROSSLY CONSERVATIVE when the mean coverage is at "
        "least 0.999 and the median ratio is below 0.5 (the interval is more than twice as wide "
        "as a calibrated one).", "",
        *([RULE_HELDOUT, ""] if args.heldout else []),
        "## Scenarios (public bounds from the generator's definition)", ""]
    for sc in scs:
        lines.append(f"- **{sc.name}**: {sc.note}; target range [{sc.ylo:g}, {sc.yhi:g}]")
    lines += ["", "## Summary per query and entry class", "",
              "Over all scenarios and ε: cells, cells that fail (mean < 0.93 or an entry < 0.90), "
              "grossly conservative cells, the range of mean coverage, the lowest entry coverage "
              "and the median ratio (median over cells).", "",
              "| query | entries | projected | approximate | cells | fail | grossly conservative "
              "| mean coverage (min – max) | worst entry | median ratio (min – max) |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    keys = []
    for r in rows:
        k = (r["query"], r["entry_class"], r["projected"])
        if k not in keys:
            keys.append(k)
    for k in keys:
        rs = [r for r in rows if (r["query"], r["entry_class"], r["projected"]) == k]
        fail = [r for r in rs if r["coverage_mean"] < 0.93 or r["coverage_worst"] < 0.90]
        cons = [r for r in rs if r["coverage_mean"] >= 0.999 and r["ratio_median"] < 0.5]
        cm = [r["coverage_mean"] for r in rs]
        rm = [r["ratio_median"] for r in rs]
        lines.append(f"| {k[0]} | {k[1]} | {'yes' if k[2] else 'no'} | "
                     f"{'yes' if rs[0]['approximate'] else 'no'} | {len(rs)} | {len(fail)} | "
                     f"{len(cons)} | {_fmt(min(cm))} – {_fmt(max(cm))} | "
                     f"{_fmt(min(r['coverage_worst'] for r in rs))} | {_fmt(np.median(rm), 2)} "
                     f"({_fmt(min(rm), 2)} – {_fmt(max(rm), 2)}) |")
    lines += ["", "## Failing cells", "",
              "| scenario | query | entries | projected | ε | cov mean | worst (entry) | ratio "
              "median [min, max] |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["coverage_mean"] < 0.93 or r["coverage_worst"] < 0.90:
            lines.append(_row(r))
    lines += ["", "## Every cell", "",
              "| scenario | query | entries | projected | ε | cov mean | worst (entry) | ratio "
              "median [min, max] |", "|---|---|---|---|---|---|---|---|"]
    lines += [_row(r) for r in rows]
    (RESULTS / f"{args.name}.md").write_text("\n".join(lines) + "\n")


def _row(r):
    return (f"| {r['scenario']} | {r['query']} | {r['entry_class']} | "
            f"{'yes' if r['projected'] else 'no'} | {r['epsilon']:g} | {_fmt(r['coverage_mean'])} "
            f"| {_fmt(r['coverage_worst'])} {r['worst_entry']} | {_fmt(r['ratio_median'], 2)} "
            f"[{_fmt(r['ratio_min'], 2)}, {_fmt(r['ratio_max'], 2)}] |")


DEFAULT_TRIALS = 200
RIDGE_EPSILONS = (1.0, 10.0, 100.0, 1000.0)


def ridge_check(trials: int) -> None:
    """Is the regression bars' miss on liver the noise-aware ridge's bias? ``DPLinearRegression``
    (the CLI's default solve, projected) on liver, ``trials`` seeds per ε: the mean error of each
    coefficient in units of its mean stated std (bias / std), the spread of the coefficients in
    the same units, and the median ridge ``λ`` chosen (``ridge_``). Writes
    ``results/error_bar_coverage_ridge.{md,csv}``."""
    from matrixdp.models import DPLinearRegression

    sc = [s for s in scenarios() if s.name.startswith("liver")][0]
    truth = truths(sc, "linreg")["coef"]
    rows = []
    for eps in RIDGE_EPSILONS:
        coef, std, ridge = [], [], []
        for seed in range(trials):
            est = DPLinearRegression(epsilon=eps, delta=DELTA, bounds_X=(sc.lo, sc.hi),
                                     bounds_y=(sc.ylo, sc.yhi), random_state=seed).fit(sc.X, sc.y)
            coef.append(est.coef_)
            std.append(est.coef_std_)
            ridge.append(est.ridge_)
        coef, std = np.asarray(coef), np.asarray(std).mean(axis=0)
        rows.append({"epsilon": eps, "ridge_median": float(np.median(ridge)),
                     "bias_over_std": ((coef.mean(axis=0) - truth) / std).tolist(),
                     "spread_over_std": (coef.std(axis=0) / std).tolist()})
    with open(RESULTS / f"{NAME}_ridge.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epsilon", "ridge_median", *[f"bias_over_std_{c}" for c in sc.names],
                    *[f"spread_over_std_{c}" for c in sc.names]])
        for r in rows:
            w.writerow([r["epsilon"], r["ridge_median"], *r["bias_over_std"],
                        *r["spread_over_std"]])
    lines = ["# Regression error bars on liver: is the miss the noise-aware ridge's bias?", "",
             f"Command: `cd experiments && PYTHONPATH=../src python {NAME}.py --ridge-check`", "",
             f"`DPLinearRegression` (default: projected, noise-aware adaptive ridge) on liver "
             f"(bounds of results/utility_bounds.md), {trials} seeds per ε, δ = {DELTA:g}; "
             "truth: OLS on the clipped records. `bias / std`: mean error of each coefficient "
             "over the seeds divided by its mean stated std (`coef_std_`); `spread / std`: the "
             "coefficients' standard deviation over the seeds in the same units; `λ`: median "
             "`ridge_`.", "",
             "| ε | λ (median) | bias / std (x1 … x5) | spread / std (x1 … x5) |",
             "|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['epsilon']:g} | {r['ridge_median']:.3g} | "
                     + ", ".join(f"{v:+.2f}" for v in r["bias_over_std"]) + " | "
                     + ", ".join(f"{v:.2f}" for v in r["spread_over_std"]) + " |")
    (RESULTS / f"{NAME}_ridge.md").write_text("\n".join(lines) + "\n")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trials", type=int, default=DEFAULT_TRIALS)
    p.add_argument("--scenarios", nargs="*", default=None, help="substrings of scenario names")
    p.add_argument("--queries", nargs="*", default=list(QUERIES))
    p.add_argument("--name", default=NAME, help="results/NAME.{md,csv} to write")
    p.add_argument("--heldout", action="store_true",
                   help="the held-out scenarios (heldout_scenarios) instead of the main ones")
    p.add_argument("--label", default="", help="a line saying which library code was measured")
    p.add_argument("--ridge-check", action="store_true",
                   help="only the liver regression bias check (results/NAME_ridge.{md,csv})")
    args = p.parse_args(argv)
    if args.ridge_check:
        return ridge_check(60 if args.trials == DEFAULT_TRIALS else args.trials)
    scs = [s for s in (heldout_scenarios() if args.heldout else scenarios())
           if not args.scenarios or any(k in s.name for k in args.scenarios)]
    check_cli_path(scs[0])
    t0 = time.time()
    rows = []
    for sc in scs:
        for query in args.queries:
            for project in (True, False):
                for eps in EPSILONS:
                    rows += run_cell(sc, query, eps, project, args.trials)
            print(f"{time.time() - t0:7.0f}s {sc.name} {query}", flush=True)
    if args.queries == list(QUERIES) or args.name != NAME:
        write_outputs(rows, args, time.time() - t0, scs)
    else:  # a partial run under the default name: print, do not overwrite the results
        for r in rows:
            print(_row(r))
    return rows


if __name__ == "__main__":
    main()
