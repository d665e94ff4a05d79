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

Round 3 (issue #24, the heavy tail): the counts are now read with the *capped* reading for the
covariance (``reading="capped"``, ``DECISION_Z = 1.5``; ``docs/coinpress.md`` § Adaptive,
"Reading"), designed on synthetic, liver, wdbc, ctg **and adult** (adult is no longer held out:
its decision quantities were used to design the reading and ``DECISION_Z``). ``matrixdp (adaptive,
threshold)`` is the previous reading of the same counts, side by side. The check is on tables whose
decision quantities were not looked at: lending_club and movement_aal (held out) and two never-seen
tables (``NEVER_SEEN``): scikit-learn's diabetes (``load_diabetes(scaled=False)``, the bounds of
``experiments/heldout_diabetes.py``, ε also 10 and 30) and digits (``load_digits``, 1797 × 64
pixels, public bounds [0, 16] per pixel by the data's definition).

Pre-registered default rule (written here before the deciding run; ``default_rule_lines``
evaluates it on the covariance rows): the covariance default becomes the adaptive method iff, over
all 35 benchmark cells (7 tables × ε ∈ {0.1, 0.5, 1, 2, 5}) and the never-seen cells (diabetes at
ε ∈ {0.1, 0.5, 1, 2, 5, 10, 30}, digits at ε ∈ {0.1, 0.5, 1, 2, 5}),
(a) adaptive's median is ≤ 1.2× the best of (auto, coinpress) in ≥ 95% of cells and ≤ 1.5× in
every cell, and (b) the median over cells of adaptive / auto is ≤ 1.0, and (c) no never-seen cell
has adaptive > 1.2× auto. 50 trials per cell. (Round 3's outcome: failed.)

Round 3b (issue #24, H4): the whitened step's clipping bias is modelled for the PCA-loss ranking
(``bias="model"``, ``docs/coinpress.md`` § Adaptive (PCA), "The clipping bias, modelled"); the
covariance's Frobenius ranking keeps the bound ``b̂²`` (the rank-one case the model keeps; a
middle-of-bin reading would choose the whitened step more often on adult ε = 1, where it already
loses), so **the covariance code path is unchanged** and its benchmark cells are those of the
round-3 run (same code, same seeds; liver's five covariance cells were rerun to check the
identity). diabetes and digits (``SEEN_R3``) were used to design round 3b and are no longer
never-seen. The check tables are ``anes96`` and ``randhie`` (``NEVER_SEEN``,
``_check_tables.py``, bounds committed before any run), added with ``--tasks covariance
--datasets anes96 randhie --merge``; the PCA rows (k = 2) of this file use
``DPPCA(method="adaptive")``'s default and are rerun on the round-3b code with ``--tasks pca``.

Pre-registered default rule (round 3b; written here before the deciding run): the covariance
default becomes ``method="auto"`` resolving to the adaptive method iff, over the 35 benchmark
cells and the 10 check cells (anes96, randhie × ε ∈ {0.1, 0.5, 1, 2, 5}), (a) adaptive's median is
≤ 1.2× the best of (auto, coinpress) in ≥ 95% of cells and ≤ 1.5× in every cell, (b) the median
over cells of adaptive / auto is ≤ 1.0, and (c) no check-table cell has adaptive > 1.2× auto.
50 trials per cell. **Known before the run**: (a) fails on the unchanged benchmark cells (adult
ε = 1 at 1.52× > 1.5); the check cells are run for (c) and for the record.

Round 3d (issue #24, post-diagnosis; ``experiments/adaptive_covariance_anes96.py``,
``results/adaptive_covariance_anes96.md``): the first step's whitening margin ``Q`` of
``method="coinpress"`` and ``method="adaptive"`` leaves out the released mean's term of the noise
of ``Ĉ = G − m̂m̂ᵀ`` (found on anes96, whose ``popul`` mean sits at −0.94 half-widths from the
box's middle). ``matrixdp (coinpress, mean margin)`` and ``matrixdp (adaptive, mean margin)``
include it (``mean_margin=True``, ``matrixdp.models.coinpress.first_noise_scale``), side by side
with the library's default margin (``mean_margin=False``, unchanged: the plain ``coinpress`` and
``adaptive`` rows) on the same seeds. This run (``--out results/adaptive_covariance_margin``) is
**post-diagnosis, not a pre-registered check**: anes96 was used to find the flaw, and the
round-3b rule is evaluated on it for the record only. ``star98`` and ``elnino`` (``POST_CHECK``)
have never had a covariance cell run by this script (their PCA cells were run in round 3c,
``results/adaptive_pca.md``); expectation written here before their first covariance run: with
the mean margin, adaptive ≤ 1.2× the best of (auto, coinpress) and ≤ 1.2× auto in each of their
10 cells. Disclosure: a 2-trial smoke run of the report code on liver and star98 at ε = 1
(star98: adaptive 1.18× the best, the moments branch chosen in 2/2) was seen before this paragraph
was committed, and a first 50-trial run of this script with the mean margin as the library's
default (commit f8e5112; the same numbers under the other labels) was stopped after randhie, at
star98 ε = 0.1 (no star98 or elnino result was written or seen); nothing was changed after them
but the labels and the default (kept at the previous margin because of the benchmark rows).
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

import _check_tables  # noqa: E402
import _utility_common as uc  # noqa: E402

NAME = "adaptive_covariance"
METHODS = ("matrixdp (auto)", "matrixdp (coinpress)", "matrixdp (adaptive, old)",
           "matrixdp (adaptive)", "matrixdp (adaptive, threshold)",
           "matrixdp (coinpress, mean margin)", "matrixdp (adaptive, mean margin)")
#: Round 3d: the whitening margin with the mean's term (``mean_margin=True``; not the default)
MEAN_MARGIN = ("matrixdp (coinpress, mean margin)", "matrixdp (adaptive, mean margin)")
#: The previous version each task's table compares with: the counts' threshold reading for the
#: covariance (round 3), the clipping-loss scalar for PCA (whose reading is unchanged).
OLD = {"covariance": "matrixdp (adaptive, threshold)", "pca": "matrixdp (adaptive, old)"}
TUNED = ("synthetic", "liver", "wdbc", "ctg")
#: adult was used to design the capped reading (round 3): no longer held out.
DESIGN = TUNED + ("adult",)
HELD_OUT = ("adult", "lending_club", "movement_aal")
#: never seen until round 3 (its check tables); used to design round 3b (seen now)
SEEN_R3 = ("diabetes", "digits")
#: round 3b's check tables (``_check_tables.py``: bounds committed before any run), never seen by
#: any estimator before the deciding run
NEVER_SEEN = CHECK = ("anes96", "randhie")
#: round 3d: tables whose covariance cells this script never ran before the round-3d run
#: (their PCA cells: round 3c, ``results/adaptive_pca.md``)
POST_CHECK = ("star98", "elnino")
#: Extra ε of a table (diabetes: where CoinPress was 1.9–10.7× better than the default).
EXTRA_EPSILONS = {"diabetes": (10.0, 30.0)}
KS = (2,)
#: The pre-registered default rule (module docstring).
RULE_BEST, RULE_SHARE, RULE_MAX, RULE_MEDIAN_AUTO, RULE_NEVER_SEEN_AUTO = 1.2, 0.95, 1.5, 1.0, 1.2
#: The rule's ε, fixed at import: ``utility_regression`` (imported by ``heldout_diabetes`` when
#: diabetes is loaded) rebinds ``uc.EPSILONS``, which made a run's own report count only the
#: ε = 1 cells (the ``--report`` rewrite was right).
RULE_EPSILONS = tuple(uc.EPSILONS)


def load(name, data_home=None) -> uc.Table:
    """A benchmark table, or a never-seen one with its public bounds (records clipped to them)."""
    if name == "diabetes":
        import heldout_diabetes

        return heldout_diabetes.load()[0]
    if name in _check_tables.LOADERS:  # digits, anes96, randhie: public bounds committed there
        return _check_tables.load(name)
    return uc.load_table(name, data_home)


def _kwargs(method):
    name = method[method.index("(") + 1:-1]
    if name in ("auto", "mvg"):  # the moments release (the default before round 3e)
        return {"noise": name, "method": "moments"}
    if name in ("adaptive, old", "adaptive, threshold", "adaptive, mean margin"):
        return {"method": "adaptive"}
    if name == "coinpress, mean margin":
        return {"method": "coinpress"}
    return {"method": name}


@contextlib.contextmanager
def _decision(method):
    """The old adaptive: the estimator's ``adaptive_covariance`` with the first version's
    statistic (``decision="clipping-loss"``), or with the previous reading of the counts
    (``reading="threshold"``), for the fits of that method only."""
    kw = {"matrixdp (adaptive, old)": {"decision": "clipping-loss"},
          "matrixdp (adaptive, threshold)": {"reading": "threshold"},
          "matrixdp (adaptive, mean margin)": {"mean_margin": True}}.get(method)
    if method == "matrixdp (coinpress, mean margin)":
        from matrixdp.models import coinpress

        orig = coinpress.coinpress_covariance
        coinpress.coinpress_covariance = functools.partial(orig, mean_margin=True)
        try:
            yield
        finally:
            coinpress.coinpress_covariance = orig
        return
    if kw is None:
        yield
        return
    with uc.adaptive_options(**kw):
        yield


def covariance_fit(method, t, eps):
    from matrixdp.models import DPCovariance

    # the adaptive rows as they ran (the mean ranking; task CV made adaptive_ranking="median"
    # DPCovariance's default, which this file's variant options do not combine with)
    # (and the moments branch's full draw: task CV, session 24, made its triangle the default)
    kw = {"adaptive_ranking": "mean", "adaptive_moments_triangle": False, **_kwargs(method)}
    choices = []

    def fit(s):
        with _decision(method):
            est = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                               random_state=s, **uc.experimental_keywords(DPCovariance,
                                                                          kw)).fit(t.X)
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
                        random_state=s, **uc.experimental_keywords(DPPCA, kw)).fit(t.X)
        choices.append(getattr(est, "adaptive_choice_", None))
        return est.components_
    return fit, choices


def run(args) -> list[dict]:
    rows = []
    if args.merge and (Path(args.out) / f"{NAME}.csv").exists():
        # keep the rows of the (table, task) pairs this run does not redo
        with open(Path(args.out) / f"{NAME}.csv", newline="") as fh:
            rows = [r for r in csv.DictReader(fh)
                    if not (r["dataset"] in args.datasets
                            and r["task"].split()[0] in args.tasks)]
    for ds in args.datasets:
        t = load(ds, args.data_home)
        C = np.cov(t.X.T, bias=True)
        cn = np.linalg.norm(C)
        lam = np.sort(np.linalg.eigvalsh(C))[::-1]
        tasks = [("covariance", None)] * ("covariance" in args.tasks) + \
            [(f"pca k={k}", k) for k in args.ks if k < t.d and "pca" in args.tasks]
        epsilons = list(args.epsilons) + [e for e in EXTRA_EPSILONS.get(ds, ())
                                          if args.extra_epsilons and e not in args.epsilons]
        for task, k in tasks:
            for eps in epsilons:
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
                    rows.append({"dataset": ds,
                                 "held_out": ds in HELD_OUT + SEEN_R3 + NEVER_SEEN + POST_CHECK,
                                 "task": task,
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


def summary(rows, task_prefix, new_m="matrixdp (adaptive)", cp_m="matrixdp (coinpress)"):
    """Per cell: medians and the ratios of new and old adaptive to the best of auto/coinpress
    (``old``: the previous version of ``OLD[task]``, NaN where it was not run). ``new_m`` and
    ``cp_m`` name the adaptive and coinpress rows used (round 3d: the G-margin variants give the
    previous code's summary on the same seeds)."""
    old_m = OLD[task_prefix]
    need = ("matrixdp (auto)", cp_m, new_m)
    cells = {}
    for r in rows:
        if not r["task"].startswith(task_prefix):
            continue
        cells.setdefault((r["dataset"], r["task"], float(r["epsilon"])), {})[r["method"]] = r
    out = []
    for key, by in cells.items():
        if not all(m in by for m in need):
            continue
        med = {m: float(by[m]["median"]) for m in METHODS if m in by}
        auto, cp = med["matrixdp (auto)"], med[cp_m]
        best = min(auto, cp)
        old = med.get(old_m, float("nan"))
        out.append({"key": key, "by": by, "med": med, "best": best,
                    "new": med[new_m] / best if best > 0 else float("nan"),
                    "old": old / best if best > 0 else float("nan"),
                    "old_med": old,
                    "new_auto": med[new_m] / auto if auto > 0 else float("nan"),
                    # CoinPress beats auto by >= 1.2x: there new adaptive must be below auto
                    "cp_wins": cp * 1.2 <= auto})
    order = {ds: i for i, ds in enumerate(TUNED + HELD_OUT + SEEN_R3 + NEVER_SEEN + POST_CHECK)}
    return sorted(out, key=lambda x: (order.get(x["key"][0], 99), x["key"][1], x["key"][2]))


def _star(ds):
    return ("*" if ds in HELD_OUT else "‡" if ds in SEEN_R3 else "†" if ds in NEVER_SEEN
            else "§" if ds in POST_CHECK else "")


def _criterion_lines(sel, label):
    if not sel:
        return []
    rn = np.array([x["new"] for x in sel])
    ro = np.array([x["old"] for x in sel])
    ra = np.array([x["new_auto"] for x in sel])
    cpw = [x for x in sel if x["cp_wins"]]
    below = sum(x["new_auto"] < 1 for x in cpw)
    old = (f" (old adaptive: median {np.nanmedian(ro):.3g}, max {np.nanmax(ro):.3g}, cells "
           f"<= 1.2: {int(np.sum(ro <= 1.2))})") if np.isfinite(ro).any() else ""
    return [f"- {label}, {len(sel)} cells: new adaptive / best of (auto, coinpress): median "
            f"{np.median(rn):.3g}, max {rn.max():.3g}, cells <= 1.2: {int(np.sum(rn <= 1.2))} of "
            f"{len(sel)}{old}; new adaptive / auto: median "
            f"{np.median(ra):.3g}, min {ra.min():.3g}, max {ra.max():.3g}; cells where "
            f"coinpress beats auto by >= 1.2x: {len(cpw)}, new adaptive strictly below auto in "
            f"{below} of them"]


def default_rule(s) -> dict:
    """The pre-registered default rule (module docstring) on the covariance summary ``s``."""
    s = [x for x in s if x["key"][0] not in POST_CHECK]
    bench = [x for x in s if x["key"][0] in TUNED + HELD_OUT and x["key"][2] in RULE_EPSILONS]
    never = [x for x in s if x["key"][0] in NEVER_SEEN and x["key"][2] in RULE_EPSILONS]
    cells = bench + never
    rn = np.array([x["new"] for x in cells])
    ra = np.array([x["new_auto"] for x in cells])
    share = float(np.mean(rn <= RULE_BEST)) if cells else float("nan")
    a = bool(cells) and share >= RULE_SHARE and float(rn.max()) <= RULE_MAX
    b = bool(cells) and float(np.median(ra)) <= RULE_MEDIAN_AUTO
    c = all(x["new_auto"] <= RULE_NEVER_SEEN_AUTO for x in never)
    complete = len(bench) == 35 and {x["key"][0] for x in never} == set(NEVER_SEEN)
    return {"cells": cells, "bench": len(bench), "never": len(never), "share": share,
            "max": float(rn.max()) if cells else float("nan"),
            "median_auto": float(np.median(ra)) if cells else float("nan"),
            "a": a, "b": b, "c": c, "complete": complete, "passes": complete and a and b and c,
            "over": [x for x in cells if x["new"] > RULE_BEST],
            "never_over": [x for x in never if x["new_auto"] > RULE_NEVER_SEEN_AUTO]}


def margin_rule_lines(rows) -> list[str]:
    """Round 3d (post-diagnosis): the round-3b rule on the default margin's rows and on the mean
    margin's rows of the same run (same seeds), and the round-3d expectation on ``POST_CHECK``."""
    have = {r["method"] for r in rows if r["task"] == "covariance"}
    if not all(m in have for m in MEAN_MARGIN):
        return []
    yes = {True: "met", False: "not met"}
    lines = ["## Round 3d (post-diagnosis): the whitening margin with the mean's term", "",
             "**Not a pre-registered check**: the margin's missing term was found on anes96 "
             "(`results/adaptive_covariance_anes96.md`), a check table of round 3b. The round-3b "
             "rule (below) is evaluated for the record on the library's default margin "
             "(`adaptive`, `coinpress`: the code of `results/adaptive_covariance.md`) and on the "
             "margin with the mean's term (`mean margin`, `mean_margin=True`), same run, same "
             "seeds.", ""]

    def name(x):
        return f"{x['key'][0]} ε = {x['key'][2]:g}"
    for label, nm, cm in (("default margin (G's noise)", "matrixdp (adaptive)",
                           "matrixdp (coinpress)"),
                          ("mean margin (mean_margin=True)", "matrixdp (adaptive, mean margin)",
                           "matrixdp (coinpress, mean margin)")):
        r = default_rule(summary(rows, "covariance", nm, cm))
        if not r["cells"]:
            continue
        lines.append(f"- {label}: {r['bench']} benchmark + {r['never']} check cells; (a) "
                     f"{r['share']:.1%} ≤ 1.2× best, max {r['max']:.3g}×: {yes[r['a']]}; (b) "
                     f"median adaptive / auto {r['median_auto']:.3g}: {yes[r['b']]}; (c) check "
                     "cells > 1.2× auto: " + ("; ".join(f"{name(x)} ({x['new_auto']:.3g}×)"
                                                      for x in r["never_over"]) or "none")
                     + f": {yes[r['c']]}; cells above 1.2× best: "
                     + ("; ".join(f"{name(x)} ({x['new']:.3g}×)" for x in r["over"]) or "none"))
    # the best of every estimator a user can pick (both margins of coinpress)
    s = summary(rows, "covariance")
    both = []
    for x in s:
        m = x["med"]
        if "matrixdp (coinpress, mean margin)" in m and "matrixdp (adaptive, mean margin)" in m:
            b = min(m["matrixdp (auto)"], m["matrixdp (coinpress)"],
                    m["matrixdp (coinpress, mean margin)"])
            both.append((x, m["matrixdp (adaptive)"] / b,
                         m["matrixdp (adaptive, mean margin)"] / b))
    if both:
        rd = np.array([v[1] for v in both])
        rm = np.array([v[2] for v in both])
        lines.append(f"- against the best of (auto, coinpress, coinpress with the mean margin), "
                     f"all {len(both)} cells of this run: adaptive (default margin) ≤ 1.2× in "
                     f"{int(np.sum(rd <= 1.2))} (max {rd.max():.3g}×), adaptive (mean margin) "
                     f"in {int(np.sum(rm <= 1.2))} (max {rm.max():.3g}×)")
        for label, a_m, d_m in (("coinpress", "matrixdp (coinpress, mean margin)",
                                 "matrixdp (coinpress)"),
                                ("adaptive", "matrixdp (adaptive, mean margin)",
                                 "matrixdp (adaptive)")):
            rat = [(x, x["med"][a_m] / x["med"][d_m]) for x, _, _ in both
                   if x["med"][d_m] > 0]
            lo_ = [f"{name(x)} ({v:.2f}×)" for x, v in rat if v < 0.95]
            hi_ = [f"{name(x)} ({v:.2f}×)" for x, v in rat if v > 1.05]
            lines.append(f"- {label}, mean margin / default margin (medians): better by > 5% in "
                         f"{len(lo_)} of {len(rat)} cells ({'; '.join(lo_) or 'none'}), worse by "
                         f"> 5% in {len(hi_)} ({'; '.join(hi_) or 'none'})")
        lines += ["", "| dataset | ε | auto | coinpress | coinpress (mean margin) | adaptive | "
                  "adaptive (mean margin) | adaptive / best of 3 | mean-margin adaptive / best "
                  "of 3 | chosen | chosen (mean margin) |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for x, a, b in both:
            m, by = x["med"], x["by"]
            lines.append(
                f"| {x['key'][0]}{_star(x['key'][0])} | {x['key'][2]:g} | "
                + " | ".join(_fmt(m[k]) for k in (
                    "matrixdp (auto)", "matrixdp (coinpress)",
                    "matrixdp (coinpress, mean margin)", "matrixdp (adaptive)",
                    "matrixdp (adaptive, mean margin)"))
                + f" | {a:.3g} | {b:.3g} | {by['matrixdp (adaptive)']['coinpress_chosen']} | "
                f"{by['matrixdp (adaptive, mean margin)']['coinpress_chosen']} |")
        lines.append("")
    post = [x for x in summary(rows, "covariance", "matrixdp (adaptive, mean margin)",
                               "matrixdp (coinpress, mean margin)")
            if x["key"][0] in POST_CHECK]
    if post:
        ok = [x for x in post if x["new"] <= 1.2 and x["new_auto"] <= 1.2]
        lines.append(f"- expectation written before the first covariance run of "
                     f"{', '.join(POST_CHECK)} (mean margin: ≤ 1.2× the best of auto and "
                     f"coinpress with the mean margin, and ≤ 1.2× auto, in each cell): "
                     f"{len(ok)} of {len(post)} cells"
                     + ("" if len(ok) == len(post) else " — misses: " + "; ".join(
                         f"{name(x)} ({x['new']:.3g}× best, {x['new_auto']:.3g}× auto)"
                         for x in post if x not in ok)))
    return lines + [""]


def default_rule_lines(rows) -> list[str]:
    r = default_rule(summary(rows, "covariance"))
    if not r["cells"]:
        return []

    def name(x):
        return f"{x['key'][0]} ε = {x['key'][2]:g}"
    yes = {True: "**met**", False: "**not met**"}
    lines = ["## The pre-registered default rule (covariance, round 3b)", "",
             "Written in the script's docstring and here before the deciding run: the covariance "
             "default becomes `method=\"auto\"` resolving to the adaptive method iff, over the 35 "
             "benchmark cells and the 10 check cells (anes96, randhie × ε ∈ {0.1, 0.5, 1, 2, 5}; "
             "never seen by any estimator before this run), (a) adaptive's median is ≤ 1.2× the "
             "best of (auto, coinpress) in ≥ 95% of cells and ≤ 1.5× in every cell, (b) the "
             "median over cells of adaptive / auto is ≤ 1.0, and (c) no check-table cell has "
             "adaptive > 1.2× auto. 50 trials per cell. The covariance code path is unchanged "
             "in round 3b (the bias model is for the PCA ranking), so the benchmark cells are "
             "round 3's and (a) was known to fail before the run (adult ε = 1).", "",
             f"- cells: {r['bench']} benchmark + {r['never']} check"
             + ("" if r["complete"]
                else " (**incomplete**: the rule cannot pass on a partial run)"),
             f"- (a) cells ≤ 1.2× best: {r['share']:.1%} (need ≥ 95%); max {r['max']:.3g}× "
             f"(need ≤ 1.5): {yes[r['a']]}"
             + (" — cells above 1.2×: " + "; ".join(f"{name(x)} ({x['new']:.3g}×)"
                                                      for x in r["over"]) if r["over"] else ""),
             f"- (b) median over cells of adaptive / auto: {r['median_auto']:.3g} (need ≤ 1.0): "
             f"{yes[r['b']]}",
             "- (c) check cells with adaptive > 1.2× auto: "
             + ("; ".join(f"{name(x)} ({x['new_auto']:.3g}×)" for x in r["never_over"])
                if r["never_over"] else "none") + f": {yes[r['c']]}",
             f"- **Outcome: the rule {'passes' if r['passes'] else 'fails'}**"
             + (": the covariance default becomes the adaptive method (where it applies)."
                if r["passes"] else ": the default stays method='moments', noise='auto'."), ""]
    return lines


def table_lines(rows, task_prefix, title):
    s = summary(rows, task_prefix)
    if not s:
        return []
    old_label = "adaptive (threshold)" if task_prefix == "covariance" else "adaptive (old)"
    lines = [f"## {title}", "",
             "Median over trials (IQR in the CSV). `/ best` divides by the better of auto and "
             "coinpress (the criterion: new ≤ 1.2); `cp ≥ 1.2× auto` marks the cells where "
             "coinpress beats auto by at least 1.2× (there new adaptive must be below auto); "
             "`chosen` is how often adaptive spent its last release on the CoinPress step. "
             "Held-out tables are marked *, round 3's never-seen tables (diabetes, digits; "
             "design tables in round 3b) ‡, round 3b's check tables (never seen before it) †."
             + (" `adaptive (threshold)` is the previous reading of the same counts "
                "(`reading=\"threshold\"`), `adaptive (new)` the capped reading." if
                task_prefix == "covariance" else
                " `adaptive (old)` is the first version (clipping-loss scalar)."), "",
             f"| dataset | task | ε | auto | coinpress | {old_label} | adaptive (new) | "
             "old / best | new / best | new / auto | cp ≥ 1.2× auto | chosen old | chosen new |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    old_m = OLD[task_prefix]
    for x in s:
        ds, task, eps = x["key"]
        by = x["by"]
        flag = ("yes, new < auto" if x["new_auto"] < 1 else "**yes, new ≥ auto**") \
            if x["cp_wins"] else ""
        new = f"{x['new']:.3g}" if x["new"] <= 1.2 else f"**{x['new']:.3g}**"
        old_chosen = by[old_m]["coinpress_chosen"] if old_m in by else ""
        lines.append(
            f"| {ds}{_star(ds)} | {task} | {eps:g} | "
            + " | ".join(_fmt(x["med"][m]) if m in x["med"] else "" for m in
                         ("matrixdp (auto)", "matrixdp (coinpress)", old_m,
                          "matrixdp (adaptive)"))
            + f" | {x['old']:.3g} | {new} | {x['new_auto']:.3g} | {flag} | "
            f"{old_chosen} | {by['matrixdp (adaptive)']['coinpress_chosen']} |")
    lines.append("")
    design = DESIGN if task_prefix == "covariance" else TUNED
    lines += _criterion_lines([x for x in s if x["key"][0] in design],
                              f"design tables ({', '.join(design)})")
    check = tuple(d for d in HELD_OUT if d not in design)
    lines += _criterion_lines([x for x in s if x["key"][0] in check],
                              f"held-out tables ({', '.join(check)})")
    lines += _criterion_lines([x for x in s if x["key"][0] in SEEN_R3],
                              f"round 3's never-seen tables ({', '.join(SEEN_R3)})")
    lines += _criterion_lines([x for x in s if x["key"][0] in NEVER_SEEN],
                              f"check tables, never seen ({', '.join(NEVER_SEEN)})")
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
    # the report is built from the CSV as written (the same text as ``--report``)
    rows = uc.write_rows_read_back(out / f"{NAME}.csv", rows)
    done = sorted({r["dataset"] for r in rows})
    missing = [ds for ds in TUNED + HELD_OUT + SEEN_R3 + NEVER_SEEN if ds not in done]
    partial = [] if not missing else [
        f"**Partial run**: tables finished so far: {', '.join(done)}.", ""]
    lines = ["# method='adaptive': the decision's reading of the counts (capped, new) against "
             "the previous reading, the default (auto) and coinpress", ""] + partial + (
             [args.note, ""] if getattr(args, "note", None) else []) + [
             f"Generated by `experiments/{NAME}.py --trials {args.trials}` (seed {args.seed}), "
             "in runs merged with `--merge` (the note above says which rows each run made; the "
             "covariance rows of the benchmark tables, diabetes and digits are round 3's, "
             f"made by one run of the round-3 code). δ = {uc.DELTA:g}, replace-one with public "
             "n, public bounds as in "
             "`results/utility_bounds.md` (diabetes: `experiments/heldout_diabetes.py`; digits "
             "([0, 16] per pixel), anes96, randhie: `experiments/_check_tables.py`). Every "
             "method gets the same (ε, δ), bounds and records; the "
             "trials of a cell use the same seeds for every method.", "",
             "Tuning disclosure: the adaptive method's constants (1/4 of μ² to the first release, "
             "as CoinPress; 0.03 to the decision statistic; for the counts the bin ratio 4, the "
             "3-sd threshold and the first edge at 1/16 of the decision threshold; the reading at "
             "the bins' upper edges; the moments prediction from the released mean; the first "
             "look allocated for the covariance's loss and the choice in original units, for "
             "PCA too) were set looking at synthetic, liver, wdbc and ctg only. Round 3: the "
             "covariance's capped reading and `DECISION_Z = 1.5` were designed on synthetic, "
             "liver, wdbc, ctg **and adult** (20 seeds of each cell's decision quantities and "
             "both branches' errors, after the previous run had shown the adult misses): adult "
             "is no longer held out for the covariance. lending_club and movement_aal (*) and "
             "the never-seen diabetes and digits (†) were not looked at before this run, except "
             "that a 2-trial smoke run of this script on liver, diabetes and digits (checking "
             "that the new loaders and the report work) was seen after the rule was written and "
             "before the deciding run: it showed adaptive at 1.4–2.0× auto on diabetes at "
             "ε ≤ 5 (2 trials); nothing in the method, the rule or the run was changed after "
             "it. Why the misses: `docs/coinpress.md` § Measured, "
             "`results/adaptive_covariance_readings.md` and "
             "`results/adaptive_covariance_diagnosis.md`.", ""]
    lines += margin_rule_lines(rows)
    lines += default_rule_lines(rows)
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
    p.add_argument("--datasets", nargs="+", default=list(uc.DATASETS),
                   choices=list(uc.DATASETS) + list(SEEN_R3 + NEVER_SEEN + POST_CHECK))
    p.add_argument("--no-extra-epsilons", dest="extra_epsilons", action="store_false",
                   help="skip the EXTRA_EPSILONS of a table (diabetes: 10, 30)")
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=20261124)
    p.add_argument("--tasks", nargs="+", default=["covariance", "pca"],
                   choices=["covariance", "pca"])
    p.add_argument("--ks", type=int, nargs="+", default=list(KS))
    p.add_argument("--merge", action="store_true",
                   help="keep the existing CSV's rows of the tables not in --datasets")
    p.add_argument("--data-home", type=Path, default=None)
    p.add_argument("--note", default=None, help="a paragraph written under the title")
    p.add_argument("--report", action="store_true",
                   help="rewrite the .md from the existing CSV (no fits)")
    args = p.parse_args(argv)
    if args.report:
        with open(Path(args.out) / f"{NAME}.csv", newline="") as fh:
            rows = list(csv.DictReader(fh))
        print(f"wrote {write(rows, args)}")
        return 0
    rows = run(args)
    print(f"wrote {write(rows, args)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
