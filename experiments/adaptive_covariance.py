"""method='adaptive' (new and old decision statistic) against the default (noise='auto') and 'coinpress'.

Covariance: relative Frobenius error ‖Ĉ − C‖_F / ‖C‖_F (original units, the estimators' default
projection). PCA: captured-variance deficit ``1 − tr(VᵀCV)/(λ₁ + … + λ_k)`` of the released top-k
subspace (k = 2 by default, ``--ks``). Same tables, public bounds, δ = 1e-6, replace-one relation with a
public n and seeded trials as ``utility_covariance.py`` / ``utility_pca.py``
(``_utility_common.py``). Output: ``results/adaptive_covariance.{md,csv}``.

``matrixdp (adaptive)`` is the library's ``method="adaptive"`` (the decision from a histogram of
record counts, ``decision="counts"``); ``matrixdp (adaptive, old)`` is the same estimator with the
first version's clipping-loss scalar (``decision="clipping-loss"``, and its PCA choice in units of
the half-widths), run in the same process on the same seeds.

Tuning disclosure: the adaptive method's constants (first share 1/4 as CoinPress, statistic share
0.03; the counts' bin ratio 4, threshold 3 sd and first edge 1/16 of the decision threshold) were
chosen looking at synthetic, liver, wdbc and ctg only; adult, lending_club and movement_aal are
held out (``HELD_OUT``) and were run once the rule was fixed (``--merge`` adds a run's tables to
the existing CSV).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import functools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

NAME = "adaptive_covariance"
METHODS = ("matrixdp (auto)", "matrixdp (coinpress)", "matrixdp (adaptive, old)",
           "matrixdp (adaptive)")
TUNED = ("synthetic", "liver", "wdbc", "ctg")
HELD_OUT = ("adult", "lending_club", "movement_aal")
KS = (2,)


def _kwargs(method):
    name = method[method.index("(") + 1:-1]
    if name in ("auto", "mvg"):
        return {"noise": name}
    if name == "adaptive, old":
        return {"method": "adaptive"}
    return {"method": name}


@contextlib.contextmanager
def _decision(method):
    """The old adaptive: the estimator's ``adaptive_covariance`` with the first version's
    statistic (``decision="clipping-loss"``), for the fits of this method only."""
    if method != "matrixdp (adaptive, old)":
        yield
        return
    from matrixdp.models import adaptive

    orig = adaptive.adaptive_covariance
    adaptive.adaptive_covariance = functools.partial(orig, decision="clipping-loss")
    try:
        yield
    finally:
        adaptive.adaptive_covariance = orig


def covariance_fit(method, t, eps):
    from matrixdp.models import DPCovariance

    kw = _kwargs(method)
    choices = []

    def fit(s):
        with _decision(method):
            est = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                               random_state=s, **kw).fit(t.X)
        choices.append(getattr(est, "adaptive_choice_", None))
        return est.covariance_
    return fit, choices


def pca_fit(method, t, eps, k):
    from matrixdp.models import DPPCA

    kw = _kwargs(method)
    choices = []

    def fit(s):
        with _decision(method):
            est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                        random_state=s, **kw).fit(t.X)
        choices.append(getattr(est, "adaptive_choice_", None))
        return est.components_
    return fit, choices


def run(args) -> list[dict]:
    rows = []
    if args.merge and (Path(args.out) / f"{NAME}.csv").exists():
        with open(Path(args.out) / f"{NAME}.csv", newline="") as fh:
            rows = [r for r in csv.DictReader(fh) if r["dataset"] not in args.datasets]
    for ds in args.datasets:
        t = uc.load_table(ds, args.data_home)
        C = np.cov(t.X.T, bias=True)
        cn = np.linalg.norm(C)
        lam = np.sort(np.linalg.eigvalsh(C))[::-1]
        tasks = [("covariance", None)] * ("covariance" in args.tasks) + \
            [(f"pca k={k}", k) for k in args.ks if k < t.d and "pca" in args.tasks]
        for task, k in tasks:
            for eps in args.epsilons:
                for m in args.methods:
                    if k is None:
                        fit, choices = covariance_fit(m, t, eps)

                        def score(s, fit=fit):
                            return float(np.linalg.norm(fit(s) - C) / cn)
                    else:
                        fit, choices = pca_fit(m, t, eps, k)
                        best = float(lam[:k].sum())

                        def score(s, fit=fit, best=best):
                            q, _ = np.linalg.qr(np.asarray(fit(s), float).T)
                            return 1.0 - float(np.trace(q.T @ C @ q)) / best
                    t0 = time.perf_counter()
                    values, times = uc.run_cell(score, args.trials, args.seed, None)
                    med, q25, q75 = uc.quantiles(values)
                    cp = [c for c in choices if c is not None]
                    rows.append({"dataset": ds, "held_out": ds in HELD_OUT, "task": task,
                                 "epsilon": eps, "method": m, "median": med, "q25": q25,
                                 "q75": q75, "trials": len(values),
                                 "median_fit_seconds": float(np.median(times)),
                                 "coinpress_chosen": (f"{sum(c == 'coinpress' for c in cp)}/"
                                                      f"{len(cp)}") if cp else ""})
                print(f"  {ds} {task} ε = {eps:g} done ({time.perf_counter() - t0:.1f} s last "
                      "cell)", flush=True)
            write(rows, args)  # a checkpoint: the files hold every finished cell
    return rows


def _fmt(v: float) -> str:
    return uc.fmt(v)


def summary(rows, task_prefix):
    """Per cell: medians and the ratios of new and old adaptive to the best of auto/coinpress."""
    cells = {}
    for r in rows:
        if not r["task"].startswith(task_prefix):
            continue
        cells.setdefault((r["dataset"], r["task"], float(r["epsilon"])), {})[r["method"]] = r
    out = []
    for key, by in cells.items():
        if not all(m in by for m in METHODS):
            continue
        med = {m: float(by[m]["median"]) for m in METHODS}
        auto, cp = med["matrixdp (auto)"], med["matrixdp (coinpress)"]
        best = min(auto, cp)
        out.append({"key": key, "by": by, "med": med, "best": best,
                    "new": med["matrixdp (adaptive)"] / best if best > 0 else float("nan"),
                    "old": med["matrixdp (adaptive, old)"] / best if best > 0 else float("nan"),
                    "new_auto": med["matrixdp (adaptive)"] / auto if auto > 0 else float("nan"),
                    # CoinPress beats auto by >= 1.2x: there new adaptive must be below auto
                    "cp_wins": cp * 1.2 <= auto})
    order = {ds: i for i, ds in enumerate(TUNED + HELD_OUT)}
    return sorted(out, key=lambda x: (order.get(x["key"][0], 99), x["key"][1], x["key"][2]))


def _criterion_lines(sel, label):
    if not sel:
        return []
    rn = np.array([x["new"] for x in sel])
    ro = np.array([x["old"] for x in sel])
    ra = np.array([x["new_auto"] for x in sel])
    cpw = [x for x in sel if x["cp_wins"]]
    below = sum(x["new_auto"] < 1 for x in cpw)
    return [f"- {label}, {len(sel)} cells: new adaptive / best of (auto, coinpress): median "
            f"{np.median(rn):.3g}, max {rn.max():.3g}, cells <= 1.2: {int(np.sum(rn <= 1.2))} of "
            f"{len(sel)} (old adaptive: median {np.median(ro):.3g}, max {ro.max():.3g}, cells "
            f"<= 1.2: {int(np.sum(ro <= 1.2))}); new adaptive / auto: median "
            f"{np.median(ra):.3g}, min {ra.min():.3g}, max {ra.max():.3g}; cells where "
            f"coinpress beats auto by >= 1.2x: {len(cpw)}, new adaptive strictly below auto in "
            f"{below} of them"]


def table_lines(rows, task_prefix, title):
    s = summary(rows, task_prefix)
    if not s:
        return []
    lines = [f"## {title}", "",
             "Median over trials (IQR in the CSV). `/ best` divides by the better of auto and "
             "coinpress (the criterion: new ≤ 1.2); `cp ≥ 1.2× auto` marks the cells where "
             "coinpress beats auto by at least 1.2× (there new adaptive must be below auto); "
             "`chosen` is how often adaptive spent its last release on the CoinPress step. "
             "Held-out tables are marked *.", "",
             "| dataset | task | ε | auto | coinpress | adaptive (old) | adaptive (new) | "
             "old / best | new / best | new / auto | cp ≥ 1.2× auto | chosen old | chosen new |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in s:
        ds, task, eps = x["key"]
        by = x["by"]
        star = "*" if ds in HELD_OUT else ""
        flag = ("yes, new < auto" if x["new_auto"] < 1 else "**yes, new ≥ auto**") \
            if x["cp_wins"] else ""
        new = f"{x['new']:.3g}" if x["new"] <= 1.2 else f"**{x['new']:.3g}**"
        lines.append(
            f"| {ds}{star} | {task} | {eps:g} | "
            + " | ".join(_fmt(x["med"][m]) for m in METHODS)
            + f" | {x['old']:.3g} | {new} | {x['new_auto']:.3g} | {flag} | "
            f"{by['matrixdp (adaptive, old)']['coinpress_chosen']} | "
            f"{by['matrixdp (adaptive)']['coinpress_chosen']} |")
    lines.append("")
    lines += _criterion_lines([x for x in s if x["key"][0] in TUNED],
                              "tuning tables (synthetic, liver, wdbc, ctg)")
    lines += _criterion_lines([x for x in s if x["key"][0] in HELD_OUT],
                              "held-out tables (adult, lending_club, movement_aal)")
    lines += _criterion_lines(s, "all tables")
    bad = [x for x in s if x["new"] > 1.2]
    if bad:
        lines.append("- cells where new adaptive is more than 1.2× the best of auto and "
                     "coinpress: " + "; ".join(f"{x['key'][0]} {x['key'][1]} ε = "
                                               f"{x['key'][2]:g} ({x['new']:.3g}×)"
                                               for x in bad))
    miss = [x for x in s if x["cp_wins"] and x["new_auto"] >= 1]
    if miss:
        lines.append("- cells where coinpress beats auto by ≥ 1.2× but new adaptive is not below "
                     "auto: " + "; ".join(f"{x['key'][0]} {x['key'][1]} ε = {x['key'][2]:g} "
                                         f"({x['new_auto']:.3g}× auto)" for x in miss))
    return lines + [""]


def write(rows, args) -> Path:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"{NAME}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    done = sorted({r["dataset"] for r in rows})
    missing = [ds for ds in TUNED + HELD_OUT if ds not in done]
    partial = [] if not missing else [
        f"**Partial run**: tables finished so far: {', '.join(done)}.", ""]
    lines = ["# method='adaptive': the new decision (counts) and the old (clipping-loss scalar) "
             "vs the default (auto) and coinpress", ""] + partial + [
             f"Generated by `experiments/{NAME}.py --trials {args.trials}` (seed {args.seed}); "
             "the tuning tables in one run, then the held-out tables with `--merge` after the "
             f"rule was fixed. δ = {uc.DELTA:g}, replace-one with public n, public bounds as in "
             "`results/utility_bounds.md`. Every method gets the same (ε, δ), bounds and "
             "records; the trials of a cell use the same seeds for every method.", "",
             "Tuning disclosure: the adaptive method's constants (1/4 of μ² to the first release, "
             "as CoinPress; 0.03 to the decision statistic; for the counts the bin ratio 4, the "
             "3-sd threshold and the first edge at 1/16 of the decision threshold; the reading at "
             "the bins' upper edges; the moments prediction from the released mean; the first "
             "look allocated for the covariance's loss and the choice in original units, for "
             "PCA too) were set looking at synthetic, liver, wdbc and ctg only; adult, "
             "lending_club and movement_aal are held out (marked *). Why the misses: "
             "`docs/coinpress.md` § Measured and `results/adaptive_covariance_diagnosis.md`.", ""]
    lines += table_lines(rows, "covariance", "Covariance: relative Frobenius error (lower is "
                                             "better)")
    lines += table_lines(rows, "pca", "PCA: captured-variance deficit (lower is better)")
    path = out / f"{NAME}.md"
    path.write_text("\n".join(lines))
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(uc.EPSILONS))
    p.add_argument("--datasets", nargs="+", default=list(uc.DATASETS), choices=list(uc.DATASETS))
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=20261124)
    p.add_argument("--tasks", nargs="+", default=["covariance", "pca"],
                   choices=["covariance", "pca"])
    p.add_argument("--ks", type=int, nargs="+", default=list(KS))
    p.add_argument("--merge", action="store_true",
                   help="keep the existing CSV's rows of the tables not in --datasets")
    p.add_argument("--data-home", type=Path, default=None)
    args = p.parse_args(argv)
    rows = run(args)
    print(f"wrote {write(rows, args)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
