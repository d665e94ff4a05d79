"""DPPCA(method='adaptive') with the modelled clipping bias against the round-3 bound, auto, coinpress and iid on the unit box.

Metric: the captured-variance deficit ``1 − tr(VᵀCV)/(λ₁ + … + λ_k)`` of the released top-k
subspace (k = 2 and 5, where k < d), as ``utility_pca.py`` and ``adaptive_covariance.py``: same
public bounds, δ = 1e-6, replace-one relation with a public n, and the same trial seeds
(``--seed 20261124``: trial i of a cell uses the i-th state of ``SeedSequence(seed)``, as
``adaptive_covariance.py``). Output: ``results/adaptive_pca.{md,csv}``.

Methods, all run in the same process on the same seeds:

* ``adaptive (bias bound)``: ``DPPCA(method="adaptive")`` ranked by the PCA loss with the
  round-3 clipping-bias term, the worst case ``min(c b̂², sat)`` (``bias="bound"``);
* ``adaptive (bias model)``: the same releases, the whitened step's clipping bias predicted by
  the one-direction model (``bias="model"``, ``docs/coinpress.md`` § Adaptive (PCA), "The
  clipping bias, modelled"; the library's rule for ``DPPCA(method="adaptive")`` after round 3b);
* ``auto``: ``DPPCA()`` (the default, one-shot release, ``noise="auto"``);
* ``coinpress``: ``DPPCA(method="coinpress")``;
* ``iid, unit box``: features rescaled to [0, 1] by their public bounds, ``DPCovariance(noise="iid")``,
  mapped back, top-k eigenvectors (as ``utility_pca.py``).

Tuning disclosure. Rounds 2–3: the PCA-loss rule was fixed on synthetic, liver, wdbc and ctg;
round 3's frame (after DPPCA's projection) on lending_club, adult and movement_aal. Round 3b
(issue #24, H4): the bias model was designed looking at every table seen so far — the seven
benchmark tables, diabetes and digits (``SEEN_R3``, never seen until round 3). Before the
deciding run: a 10-trial run of those nine tables (``/tmp``, not committed) with a first model
(the clipped records isotropic in the whitened space) fixed adult k = 2 ε = 1, 2 and
movement_aal ε = 5 but chose the whitened step in 10/10 fits at adult k = 2 ε = 5 (8.7× the
best); ``experiments/adaptive_pca_bias.py`` (3 seeds of adult k = 2 ε = 1, 2, 5 and
movement_aal k = 2 ε = 2, 5, non-private) showed the true bias term 10²–10⁴× above that model on
adult; the one-direction model replaced it, and a second 10-trial run of the nine tables (also
``/tmp``) gave, against the bound on the same seeds, adult k = 2 ε = 1 0.84× best (bound 4.59×),
movement_aal k = 2 ε = 5 1.43× (11.7×), ε = 2 1.10× (1.28×), adult k = 2 ε = 5 1.28× (1.28×),
every tuning-table cell identical, adult k = 5 ε = 1 2.13× (1.85×). Nothing was changed after
that run. The check that counts is on the round-3b check tables (``NEVER_SEEN``), never seen by
any estimator: ``anes96`` (944 × 10) and ``randhie`` (20,190 × 9), public bounds committed in
``_check_tables.py`` before any run.

Pre-registered default rule (round 3b; written and committed before the deciding run):
``DPPCA``'s default becomes ``method="auto"`` resolving to ``"adaptive"`` iff, for k = 2 and
k = 5 over all benchmark cells (the seven benchmark tables × ε ∈ {0.1, 0.5, 1, 2, 5}) and the
check cells (anes96, randhie × the same ε),
(a) adaptive (bias model) / best(auto, coinpress, iid unit box) <= 1.2 in >= 90% of the cells and
    <= 2 in every cell,
(b) the median over the cells of adaptive (bias model) / auto <= 1.0,
(c) on the check tables no cell has adaptive (bias model) > 1.2 × auto.
diabetes and digits are reported but not in the rule (design tables now). 50 trials per cell.
Evaluated by ``default_rule`` below on the medians of the committed run; the outcome is written in
the results file whichever it is. Known before the run (the 10-trial run above): adult k = 5 at
ε = 0.5–5 was 2.0–2.3× (the first look's cost, not the bias), so (a) is expected to fail.
Outcome (round 3b): FAILED ((a) 58/80, (c) 4 anes96 cells), ``results/adaptive_pca.md``.

Round 3c (issue #24, H6; written and committed before the deciding run). The library's
``DPPCA(method="adaptive")`` is unchanged since round 3b (``adaptive.py``: docstrings only; a
diagnostic of the first look's cost, ``experiments/adaptive_pca_first_look.py``, found no
allocation of the second release that removes it: ``results/adaptive_pca_first_look.md``), so
the rows of the eleven round-3b tables are kept (``--merge``; liver is rerun in the same run as a
check that the code gives bit-identical rows) and the new check tables are run: ``star98``
(303 × 14, the named variables) and ``elnino`` (61 × 12), both never seen by any estimator,
bounds in ``_check_tables.py`` committed before any run or any value printed (commit e5dd469).
anes96 and randhie are seen now (‡, round 3b's check tables), reported as diabetes and digits.

Pre-registered default rule (round 3c): ``DPPCA``'s default becomes ``method="auto"`` resolving
to ``"adaptive"`` (in-memory X, replace-one; ``"moments"`` otherwise) iff, for k = 2 and k = 5
(where k < d) over the benchmark cells (the seven benchmark tables × ε ∈ {0.1, 0.5, 1, 2, 5})
and the check cells (star98, elnino × the same ε),
(a) adaptive (bias model) / best(auto, coinpress, iid unit box) <= 1.2 in >= 90% of the cells and
    <= 2 in every cell,
(b) the median over the cells of adaptive (bias model) / auto <= 1.0,
(c) on the check tables no cell has adaptive (bias model) > 1.2 × auto.
diabetes, digits, anes96 and randhie are reported but not in the rule (design tables now). 50
trials per cell, seed 20261124. Known before the run: the benchmark cells of (a) are round 3b's
(16 of the 70 over 1.2× in round 3b, max 3.1×), so (a) is
expected to fail whatever the check tables give; the run decides (c) on tables never seen.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _check_tables  # noqa: E402
import _utility_common as uc  # noqa: E402

NAME = "adaptive_pca"
#: round 3b: the PCA-loss ranking with the round-3 clipping-bias bound (OLD) and with the
#: modelled bias (NEW, the library's default for DPPCA(method="adaptive") after this change)
OLD, NEW = "adaptive (bias bound)", "adaptive (bias model)"
AUTO, CP, UNIT = "auto", "coinpress", "iid, unit box"
METHODS = (OLD, NEW, AUTO, CP, UNIT)
PEERS = (AUTO, CP, UNIT)  # the criterion's reference: min of these
TUNED = ("synthetic", "liver", "wdbc", "ctg")
#: held out until round 3; used to fix the frame of the prediction (no longer held out)
HELD_OUT = USED = ("adult", "lending_club", "movement_aal")
#: never seen until round 3, used to design round 3b's bias model (seen now)
SEEN_R3 = ("diabetes", "digits")
#: round 3b's check tables (seen since round 3b's run)
SEEN_R3B = ("anes96", "randhie")
#: round 3c's check tables, never seen by any estimator (``_check_tables.py``, bounds committed
#: before any run, commit e5dd469)
NEVER_SEEN = CHECK = ("star98", "elnino")
#: the pre-registered default rule's thresholds (module docstring)
RULE_RATIO, RULE_SHARE, RULE_MAX, RULE_MEDIAN_AUTO, RULE_NEVER_AUTO = 1.2, 0.9, 2.0, 1.0, 1.2
KS = (2, 5)

#: Public bounds of ``load_diabetes(scaled=False)``, written before the table was run, from what
#: its documentation says the columns are (scikit-learn's DESCR and Efron et al. 2004, Table 1:
#: age in years, sex, body-mass index, average blood pressure, six blood serum measurements) and
#: the usual clinical reporting ranges of those quantities; none is the table's envelope.
#: Disclosure: the table's column minima and maxima were printed once while checking that the
#: loader works offline, before these bounds were written; the bounds were taken from the ranges
#: above, not from those values. No rule was chosen on this table.
DIABETES_BOUNDS = {
    "age": (18.0, 100.0),    # adult patients, years
    "sex": (1.0, 2.0),       # coded 1/2 in the unscaled file (two categories)
    "bmi": (10.0, 70.0),     # kg/m², the range of adult BMI charts
    "bp": (40.0, 200.0),     # average (mean arterial) blood pressure, mm Hg
    "s1": (50.0, 500.0),     # tc, total serum cholesterol, mg/dL
    "s2": (0.0, 400.0),      # ldl, mg/dL
    "s3": (5.0, 150.0),      # hdl, mg/dL
    "s4": (0.0, 20.0),       # tch, total cholesterol / HDL ratio
    "s5": (2.3, 8.0),        # ltg, log of serum triglycerides (ln of 10 … 3000 mg/dL)
    "s6": (20.0, 600.0),     # glu, blood glucose, mg/dL
}


def load(name, data_home=None) -> uc.Table:
    if name in _check_tables.LOADERS:  # digits, anes96, randhie: public bounds committed there
        return _check_tables.load(name)
    if name != "diabetes":
        return uc.load_table(name, data_home)
    from sklearn.datasets import load_diabetes

    ds = load_diabetes(scaled=False)
    names = list(ds.feature_names)
    lo = np.array([DIABETES_BOUNDS[c][0] for c in names])
    hi = np.array([DIABETES_BOUNDS[c][1] for c in names])
    X = np.clip(np.asarray(ds.data, float), lo, hi)
    y = np.clip(np.asarray(ds.target, float), 0.0, 400.0)
    return uc.Table("diabetes", X, y, names, "disease progression", lo, hi, 0.0, 400.0,
                    "DIABETES_BOUNDS (documentation and clinical ranges)")


def top_k(cov, k):
    lam, vec = np.linalg.eigh(0.5 * (cov + cov.T))
    return vec[:, ::-1][:, :k].T


_options = uc.adaptive_options


def unit_box_fitter(t, eps, k):
    """``seed -> (components, None)``: ``DPCovariance(noise="iid")`` on the data mapped to the
    unit box, mapped back, top-k eigenvectors (the ``iid, unit box`` peer; also used by
    ``adaptive_pca_first_pca.py``)."""
    from matrixdp.models import DPCovariance

    lo, hi, X = t.lo, t.hi, t.X
    w = hi - lo
    Xu = (X - lo) / w
    return lambda s: (top_k(w[:, None] * DPCovariance(
        epsilon=eps, delta=uc.DELTA, bounds=(0.0, 1.0), noise="iid",
        random_state=s).fit(Xu).covariance_ * w, k), None)


def dppca_fitter(t, eps, k, kw, opts=None):
    """``seed -> (components, adaptive choice or None)``: ``DPPCA(**kw)`` on the table's public
    bounds, inside ``uc.adaptive_options(**opts)`` where ``opts`` is given (also used by
    ``adaptive_pca_first_pca.py`` and ``adaptive_pca_first_look.py``)."""
    from matrixdp.models import DPPCA

    def fit(s):
        ctx = _options(**opts) if opts else contextlib.nullcontext()
        with ctx:
            est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                        random_state=s, **uc.experimental_keywords(DPPCA, kw)).fit(t.X)
        return est.components_, getattr(est, "adaptive_choice_", None)
    return fit


def fitter(method, t, eps, k):
    """``seed -> (components, adaptive choice or None)``."""
    if method == UNIT:
        return unit_box_fitter(t, eps, k)
    kw = {AUTO: {"method": "moments"}, CP: {"method": "coinpress"}}.get(method, {"method": "adaptive"})
    opts = {OLD: {"ranking": "pca-loss", "bias": "bound"},
            NEW: {"ranking": "pca-loss", "bias": "model"}}.get(method)
    return dppca_fitter(t, eps, k, kw, opts)


def pca_tasks(datasets, ks, loader):
    """``(name, table, exact covariance, k, best)`` per table and ``k < d`` (``best``: the sum of
    the top-k eigenvalues the deficit is measured against); also used by
    ``adaptive_pca_first_pca.py`` and ``adaptive_pca_first_look.py``."""
    for ds in datasets:
        t = loader(ds)
        C = np.cov(t.X.T, bias=True)
        lam = np.sort(np.linalg.eigvalsh(C))[::-1]
        for k in ks:
            if k >= t.d:
                continue
            yield ds, t, C, k, float(lam[:k].sum())


def cell_stats(fit, C, best, args) -> dict:
    """One cell's row values: the deficit's median and quartiles over ``args.trials`` seeded
    fits, the median fit time and how many adaptive fits chose the CoinPress step (also used by
    ``adaptive_pca_first_pca.py``)."""
    choices = []
    score = uc.deficit_scorer(fit, C, best, choices)
    values, times = uc.run_cell(score, args.trials, args.seed, None)
    med, q25, q75 = uc.quantiles(values)
    cp = [c for c in choices if c is not None]
    return {"median": med, "q25": q25, "q75": q75, "trials": len(values),
            "median_fit_seconds": float(np.median(times)),
            "coinpress_chosen": (f"{sum(c == 'coinpress' for c in cp)}/"
                                 f"{len(cp)}") if cp else ""}


def run(args) -> list[dict]:
    rows = []
    path = Path(args.out) / f"{NAME}.csv"
    if args.merge and path.exists():
        with open(path, newline="") as fh:
            rows = [r for r in csv.DictReader(fh) if r["dataset"] not in args.datasets]
    for ds in args.datasets:
        t = load(ds, args.data_home)
        C = np.cov(t.X.T, bias=True)
        lam = np.sort(np.linalg.eigvalsh(C))[::-1]
        for k in args.ks:
            if k >= t.d:
                continue
            best = float(lam[:k].sum())
            for eps in args.epsilons:
                t0 = time.perf_counter()
                for m in args.methods:
                    rows.append({"dataset": ds, "group": group(ds), "task": f"pca k={k}",
                                 "epsilon": eps, "method": m,
                                 **cell_stats(fitter(m, t, eps, k), C, best, args)})
                print(f"  {ds} k = {k} ε = {eps:g} done ({time.perf_counter() - t0:.1f} s)",
                      flush=True)
        write(rows, args)
    return rows


def group(ds):
    return ("tuning" if ds in TUNED else "used" if ds in USED else "seen r3" if ds in SEEN_R3
            else "seen r3b" if ds in SEEN_R3B else "never seen")


def default_rule(rows) -> tuple[bool, list[str]]:
    """The pre-registered default rule (module docstring) on the medians of ``rows``: returns
    ``(passed, lines)``, the lines naming every failing cell."""
    ratios, autos, never = [], [], []
    for k in KS:
        for (ds, eps), by in cells(rows, k):
            if group(ds) in ("seen r3", "seen r3b"):  # the rule: benchmark + check cells only
                continue
            med = {m: float(by[m]["median"]) for m in METHODS}
            best = min(med[m] for m in PEERS)
            r = med[NEW] / best if best > 0 else float("inf")
            ra = med[NEW] / med[AUTO] if med[AUTO] > 0 else float("inf")
            ratios.append((k, ds, eps, r))
            autos.append(ra)
            if group(ds) == "never seen":
                never.append((k, ds, eps, ra))
    if not ratios:
        return False, ["- no cells"]
    r = np.array([x[3] for x in ratios])
    share = float(np.mean(r <= RULE_RATIO))
    a_ok = share >= RULE_SHARE and bool(np.all(r <= RULE_MAX))
    med_auto = float(np.median(autos))
    b_ok = med_auto <= RULE_MEDIAN_AUTO
    c_bad = [x for x in never if x[3] > RULE_NEVER_AUTO]
    c_ok = bool(never) and not c_bad
    over = [x for x in ratios if x[3] > RULE_RATIO]
    lines = [f"- (a) adaptive / best ≤ {RULE_RATIO:g} in {int(np.sum(r <= RULE_RATIO))} of {r.size} "
             f"cells ({100 * share:.0f}%; needs ≥ {100 * RULE_SHARE:.0f}%), max {r.max():.3g} "
             f"(needs ≤ {RULE_MAX:g}): **{'met' if a_ok else 'NOT met'}**",
             f"- (b) median of adaptive / auto over the {len(autos)} cells: {med_auto:.3g} (needs "
             f"≤ {RULE_MEDIAN_AUTO:g}): **{'met' if b_ok else 'NOT met'}**",
             f"- (c) never-seen cells with adaptive > {RULE_NEVER_AUTO:g} × auto: {len(c_bad)} of "
             f"{len(never)}: **{'met' if c_ok else 'NOT met'}**"]
    if over:
        lines.append("- cells over " + f"{RULE_RATIO:g}× best: " + "; ".join(
            f"k = {x[0]} {x[1]} ε = {x[2]:g} ({x[3]:.3g}×)" for x in over))
    if c_bad:
        lines.append("- never-seen cells over " + f"{RULE_NEVER_AUTO:g}× auto: " + "; ".join(
            f"k = {x[0]} {x[1]} ε = {x[2]:g} ({x[3]:.3g}×)" for x in c_bad))
    passed = a_ok and b_ok and c_ok
    lines.append(f"- **outcome: {'PASSED' if passed else 'FAILED'}** (the default "
                 f"{'becomes' if passed else 'stays'} " + ("`method=\"auto\"` → adaptive)" if passed
                                                           else "`method=\"moments\"`)"))
    return passed, lines


def cells(rows, k):
    out = {}
    for r in rows:
        if r["task"] == f"pca k={k}":
            out.setdefault((r["dataset"], float(r["epsilon"])), {})[r["method"]] = r
    order = {ds: i for i, ds in enumerate(TUNED + USED + SEEN_R3 + SEEN_R3B + NEVER_SEEN)}
    keep = [(key, by) for key, by in out.items() if all(m in by for m in METHODS)]
    return sorted(keep, key=lambda x: (order.get(x[0][0], 99), x[0][1]))


def table_lines(rows, k):
    cs = cells(rows, k)
    if not cs:
        return []
    lines = [f"## PCA k = {k}: captured-variance deficit (lower is better)", "",
             "Median over trials (IQR in the CSV). `best` is min(auto, coinpress, iid unit box); "
             "`/ best` divides by it (criterion: new ≤ 1.2 on held-out cells); `cp ≥ 1.2× auto` "
             "marks cells where coinpress beats auto by ≥ 1.2× (there new must be below auto); "
             "`chosen` counts fits that spent the last release on the CoinPress step. "
             "`bound` is round 3's bias term, `new` the bias model. Tables used to fix the "
             "round-3 rule (held out before it) are marked *, round 3's never-seen tables †, "
             "round 3b's check tables (seen since) ‡, the round-3c check tables (never seen) **.",
             "",
             "| dataset | ε | adaptive (bias bound) | adaptive (bias model) | auto | coinpress | "
             "iid, unit box | bound / best | new / best | new / auto | cp ≥ 1.2× auto | "
             "chosen bound | chosen new |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    stats = {"tuning": [], "used": [], "seen r3": [], "seen r3b": [], "never seen": []}
    for (ds, eps), by in cs:
        med = {m: float(by[m]["median"]) for m in METHODS}
        best = min(med[m] for m in PEERS)
        rn = med[NEW] / best if best > 0 else float("nan")
        ro = med[OLD] / best if best > 0 else float("nan")
        ra = med[NEW] / med[AUTO] if med[AUTO] > 0 else float("nan")
        cpw = med[CP] * 1.2 <= med[AUTO]
        stats[group(ds)].append((ds, eps, rn, ro, ra, cpw))
        star = {"tuning": "", "used": "*", "seen r3": "†", "seen r3b": "‡",
                "never seen": "**"}[group(ds)]
        flag = ("yes, new < auto" if ra < 1 else "**yes, new ≥ auto**") if cpw else ""
        new = f"{rn:.3g}" if rn <= 1.2 else f"**{rn:.3g}**"
        lines.append(f"| {ds}{star} | {eps:g} | " + " | ".join(uc.fmt(med[m]) for m in METHODS)
                     + f" | {ro:.3g} | {new} | {ra:.3g} | {flag} | "
                     f"{by[OLD]['coinpress_chosen']} | {by[NEW]['coinpress_chosen']} |")
    lines.append("")
    for g, sel in stats.items():
        if not sel:
            continue
        rn = np.array([x[2] for x in sel])
        ro = np.array([x[3] for x in sel])
        cpw = [x for x in sel if x[5]]
        lines.append(
            f"- {g} ({len(sel)} cells): new / best median {np.median(rn):.3g}, max "
            f"{rn.max():.3g}, within 1.2×: **{int(np.sum(rn <= 1.2))} of {len(sel)}** (bias "
            f"bound: {int(np.sum(ro <= 1.2))} of {len(sel)}, max {ro.max():.3g}); cells where "
            f"coinpress beats auto by ≥ 1.2×: {len(cpw)}, new below auto in "
            f"{sum(x[4] < 1 for x in cpw)} of them")
        bad = [x for x in sel if x[2] > 1.2]
        if bad:
            lines.append("  - new > 1.2× best: " + "; ".join(
                f"{x[0]} ε = {x[1]:g} ({x[2]:.3g}×)" for x in bad))
        miss = [x for x in cpw if x[4] >= 1]
        if miss:
            lines.append("  - coinpress ≥ 1.2× better than auto but new not below auto: "
                         + "; ".join(f"{x[0]} ε = {x[1]:g} ({x[4]:.3g}× auto)" for x in miss))
    return lines + [""]


def write(rows, args) -> Path:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    uc.write_rows(out / f"{NAME}.csv", rows)
    done = sorted({r["dataset"] for r in rows})
    lines = ["# DPPCA(method='adaptive'): the whitened step's clipping bias modelled (round 3b) "
             "vs bounded (round 3), auto, coinpress and iid on the unit box; round 3c's check "
             "tables star98 and elnino", "",
             f"Generated by `experiments/{NAME}.py --trials {args.trials}` (seed {args.seed}, the "
             "seeds of `adaptive_covariance.py`); tables in this file: " + ", ".join(done) + ". "
             f"δ = {uc.DELTA:g}, replace-one with public n, public bounds as in "
             "`results/utility_bounds.md` (diabetes: `DIABETES_BOUNDS` in the script; digits, "
             "anes96, randhie, star98, elnino: `experiments/_check_tables.py`). Every "
             "method gets the same (ε, δ), bounds and records; the trials of a cell use the same "
             "seeds for every method.", "",
             "Tuning disclosure (the script's docstring in full): the bias model (round 3b) "
             "was designed looking at the seven benchmark tables, diabetes and digits (†, never "
             "seen until round 3): two 10-trial runs of those tables and "
             "`experiments/adaptive_pca_bias.py` (3 seeds of adult and movement_aal cells, "
             "non-private) before the deciding run; the first model (isotropic in the whitened "
             "space) was replaced by the one-direction model after the first of them. The check "
             "that counts is on the never-seen check tables (**): anes96 and randhie "
             "(`_check_tables.py`, bounds committed before any run). The prediction: "
             "`docs/coinpress.md` § Adaptive (PCA), \"The clipping bias, modelled\".",
             "",
             "Round 3c (issue #24, H6): the library's adaptive PCA is unchanged since round 3b "
             "(a diagnostic of the first look's cost, `results/adaptive_pca_first_look.md`, "
             "found no second-release allocation that removes it), so the rows of the eleven "
             "round-3b tables are round 3b's run (`--merge`; liver rerun in the round-3c run, "
             "bit-identical) and the round-3c check tables star98 and elnino (**, never seen by "
             "any estimator; bounds committed before any run) were run with the same seeds.", "",
             "## Pre-registered default rule, round 3c (committed before the deciding run)", "",
             "As round 3b's (below), with the check cells now star98 and elnino (k = 2, 5); "
             "anes96 and randhie (‡) are reported, not in the rule. (a) was known to fail "
             "before the run (round 3b's benchmark cells are unchanged: 16 of 70 over 1.2×, max 3.1×); "
             "the run decides (c) on tables never seen.", "",
             "## Round 3b's rule (for reference)", "",
             "DPPCA's default becomes `method=\"auto\"` resolving to adaptive iff, for k = 2 and "
             "k = 5 over the benchmark cells (7 tables × 5 ε) and the check cells (anes96, "
             "randhie × 5 ε), (a) adaptive (bias model) / best(auto, coinpress, iid unit box) "
             "≤ 1.2 in ≥ 90% of cells and ≤ 2 in every cell, (b) the median over cells of "
             "adaptive / auto ≤ 1.0, (c) no check-table cell has adaptive > 1.2× auto. diabetes "
             "and digits are reported, not in the rule. Known before the run from a 10-trial "
             "run: adult k = 5 ε = 0.5–5 at 2.0–2.3× (the first look's cost), so (a) was "
             "expected to fail.",
             ""]
    lines += ["## Outcome of the round-3c rule", ""] + default_rule(rows)[1] + [""]
    for k in KS:
        lines += table_lines(rows, k)
    path = out / f"{NAME}.md"
    path.write_text("\n".join(lines))
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=50)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(uc.EPSILONS))
    p.add_argument("--datasets", nargs="+",
                   default=list(TUNED + USED + SEEN_R3 + SEEN_R3B + NEVER_SEEN),
                   choices=list(TUNED + USED + SEEN_R3 + SEEN_R3B + NEVER_SEEN))
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    p.add_argument("--ks", type=int, nargs="+", default=list(KS))
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=20261124)
    p.add_argument("--merge", action="store_true",
                   help="keep the existing CSV's rows of the tables not in --datasets")
    p.add_argument("--data-home", type=Path, default=None)
    args = p.parse_args(argv)
    rows = run(args)
    print(f"wrote {write(rows, args)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
