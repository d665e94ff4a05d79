"""James–Stein shrinkage of DP covariance and correlation releases (issue 24), side by side.

Rows (same records, public bounds, (ε, δ = 1e-6), replace-one, and the same trial seeds as
``utility_covariance.py``, so every matrixdp row of a trial shares its noise draw):

* ``default``: ``DPCovariance()`` (noise='auto', feasible-set projection);
* ``default + shrinkage (off-diagonal)``: ``shrinkage="off-diagonal"`` — the off-diagonal entries
  shrunk towards 0 by one positive-part James–Stein factor before the projection (for
  ``kind="correlation"``: towards the identity, by groups of equal noise in correlation units);
* ``default + shrinkage (projected)``: ``shrinkage="projected"`` (correlation only; issue 24,
  round 3): the projected correlation's off-diagonal entries shrunk towards the identity by
  groups (the groups of ``"off-diagonal"``), each by the factor
  ``clip((‖y_g‖² - tr Σ_g)/‖R̂_g‖², 1/2, 1)``: the signal energy estimated from the raw
  release over the group's energy in the projected correlation (``feasible.projected_stein_shrink``);
  a group whose mean public noise variance ``V_ij/(h_i h_j)²`` is ≥ 1 keeps the raw release's
  James–Stein factor (that of ``"off-diagonal"``);
* ``default + shrinkage (whole)``: ``shrinkage="whole"`` (covariance only) — the whole matrix,
  diagonal included, shrunk towards 0 by one factor;
* ``iid, unit box``: records rescaled to the unit box by the public bounds, ``noise="iid"``,
  mapped back (its correlation is the one implied by that covariance release);
* ``coinpress``: ``method="coinpress"`` (its correlation: the one implied by its covariance
  release, not a ``kind="correlation"`` fit).

Metric: relative Frobenius error of the covariance (original units) and of the correlation
matrix (matrixdp's default and shrinkage rows: ``DPCovariance(kind="correlation")``, a release
of its own with the same seed). Tables: tuning (synthetic, liver, wdbc, ctg: the shrinkage rule
and the correlation grouping were chosen on these), held out (adult, lending_club,
movement_aal) and never seen before this script: scikit-learn's ``load_diabetes(scaled=False)``,
with the public bounds below, written before the script was first run.

Output: ``results/covariance_shrinkage.{md,csv}``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
from utility_covariance import correlation  # noqa: E402

NAME = "covariance_shrinkage"
TUNING = ("synthetic", "liver", "wdbc", "ctg")
HELD_OUT = ("adult", "lending_club", "movement_aal", "diabetes")
#: Never seen by the correlation shrinkage (experiments/_check_tables.py); added (round 3, H5)
#: with the rule below committed before any run on them.
CHECK = ("anes96", "randhie", "digits")
DEFAULT = "default"
SHRINK = "default + shrinkage (off-diagonal)"
WHOLE = "default + shrinkage (whole)"
PROJECTED = "default + shrinkage (projected)"
UNIT = "iid, unit box"
COINPRESS = "coinpress"
METHODS = (DEFAULT, SHRINK, PROJECTED, WHOLE, UNIT, COINPRESS)

#: Pre-registered rule (issue 24, round 3; written and committed before the run on the check
#: tables): ``shrinkage="projected"`` becomes the default of ``DPCovariance(kind="correlation")``
#: iff on EVERY correlation cell (design tables synthetic, liver, wdbc, ctg; the tables the
#: previous rule check saw: adult, lending_club, movement_aal, diabetes; the check tables
#: anes96, randhie, digits; ε ∈ {0.1, 0.5, 1, 2, 5}; 15 trials per cell, the seeds below) its
#: median correlation relative Frobenius error is ≤ 1.02 × the current default's
#: (``shrinkage="none"``) and strictly below it in every cell where the default's median is
#: ≥ 0.5. Otherwise the default stays ``"none"`` and ``"projected"`` remains an option.
RULE_MAX_RATIO = 1.02
RULE_STRICT_ABOVE = 0.5

#: Public bounds of ``load_diabetes(scaled=False)`` (Efron, Hastie, Johnstone and Tibshirani
#: 2004, "Least angle regression", Table 1: age in years, sex coded 1/2, body mass index,
#: average blood pressure (mm Hg) and six blood serum measurements in the units of the
#: published table), fixed from clinical reference ranges of those measurements for an adult
#: population, written here before the table was loaded: not from the data. Records outside
#: are clipped.
DIABETES_BOUNDS = {
    "age": (18.0, 90.0),     # adult patients, years
    "sex": (1.0, 2.0),       # coded 1 / 2
    "bmi": (15.0, 50.0),     # kg/m²
    "bp": (60.0, 140.0),     # mean arterial pressure, mm Hg
    "s1": (100.0, 350.0),    # total serum cholesterol, mg/dL
    "s2": (30.0, 250.0),     # LDL, mg/dL
    "s3": (20.0, 100.0),     # HDL, mg/dL
    "s4": (1.0, 10.0),       # total cholesterol / HDL
    "s5": (3.0, 7.0),        # log of serum triglycerides (ln mg/dL: 20 … 1,100 mg/dL)
    "s6": (50.0, 200.0),     # blood glucose, mg/dL
}


def load(name: str, data_home=None) -> uc.Table:
    if name in CHECK:
        import _check_tables as ct

        return ct.load(name)
    if name != "diabetes":
        return uc.load_table(name, data_home)
    from sklearn.datasets import load_diabetes

    ds = load_diabetes(scaled=False)
    names = list(ds.feature_names)
    lo = np.array([DIABETES_BOUNDS[n][0] for n in names])
    hi = np.array([DIABETES_BOUNDS[n][1] for n in names])
    X = np.clip(np.asarray(ds.data, float), lo, hi)
    return uc.Table("diabetes", X, np.clip(ds.target, 0.0, 400.0), names,
                    "disease progression after one year", lo, hi, 0.0, 400.0,
                    "clinical reference ranges (DIABETES_BOUNDS in the script)")


def fitters(method: str, t: uc.Table, eps: float):
    """``(seed -> covariance, seed -> correlation or None)`` of one row."""
    from matrixdp.models import DPCovariance

    X, lo, hi = t.X, t.lo, t.hi
    # method="moments": the default before round 3e (the shrinkages are of the moments release)
    kw = dict(epsilon=eps, delta=uc.DELTA, bounds=(lo, hi), method="moments")
    if method == PROJECTED:  # correlation only: the covariance value is the default's
        return (lambda s: DPCovariance(random_state=s, **uc.experimental_keywords(DPCovariance,
                                                                                  kw)).fit(X).covariance_,
                lambda s: DPCovariance(random_state=s, kind="correlation", shrinkage="projected",
                                       **uc.experimental_keywords(DPCovariance,
                                                                  kw)).fit(X).covariance_)
    if method in (DEFAULT, SHRINK, WHOLE):
        shrink = {DEFAULT: "none", SHRINK: "off-diagonal", WHOLE: "whole"}[method]
        cov = lambda s: DPCovariance(random_state=s, shrinkage=shrink,
                                     **uc.experimental_keywords(DPCovariance,
                                                                kw)).fit(X).covariance_
        if method == WHOLE:  # the correlation has no diagonal to shrink: no row of its own
            return cov, False
        corr_shrink = "none" if method == DEFAULT else "off-diagonal"
        corr = lambda s: DPCovariance(random_state=s, kind="correlation", shrinkage=corr_shrink,
                                      **uc.experimental_keywords(DPCovariance,
                                                                 kw)).fit(X).covariance_
        return cov, corr
    if method == UNIT:
        w = hi - lo
        Xu = (X - lo) / w
        return (lambda s: w[:, None] * DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(0.0, 1.0),
                                                    noise="iid", random_state=s).fit(Xu).covariance_
                * w), None
    if method == COINPRESS:
        return lambda s: DPCovariance(random_state=s, method="coinpress",
                                      **uc.experimental_keywords(DPCovariance,
                                                                 kw)).fit(X).covariance_, None
    raise ValueError(method)


def run(args) -> list[dict]:
    rows = []
    for ds in args.datasets:
        t = load(ds, args.data_home)
        C = np.cov(t.X.T, bias=True)
        R = correlation(C)
        cn, rn = np.linalg.norm(C), np.linalg.norm(R)
        for eps in args.epsilons:
            for m in METHODS:
                fit_cov, fit_corr = fitters(m, t, eps)
                corr_err = []

                def score(s, fit_cov=fit_cov, fit_corr=fit_corr, corr_err=corr_err):
                    Ch = fit_cov(s)
                    if fit_corr is not False:
                        Rh = correlation(Ch) if fit_corr is None else fit_corr(s)
                        corr_err.append(float(np.linalg.norm(Rh - R) / rn))
                    return float(np.linalg.norm(Ch - C) / cn)

                cell = uc.run_method_cell(ds, "covariance", eps, m, score, args)

                def metrics(c, corr_err=corr_err):
                    out = {"relative Frobenius error": c.values}
                    if corr_err:
                        out["correlation relative Frobenius error"] = list(corr_err)
                    return out
                rows += uc.cell_rows([cell], metrics)
            print(f"  {ds} ε = {eps:g} done", flush=True)
        uc.write_csv(Path(args.out) / f"{NAME}.csv", rows)
    return rows


def _median(rows, ds, eps, method, metric):
    for r in rows:
        if (r["dataset"], float(r["epsilon"]), r["method"], r["metric"]) == (ds, eps, method, metric) \
                and r["status"] == "ok":
            return float(r["median"])
    return None


def table(rows, metric: str, methods, shrink_rows) -> tuple[list[str], dict]:
    """Markdown table of medians per cell with the shrinkage rows' ratios to the default."""
    lines = ["| table | set | ε | " + " | ".join(methods) + " | "
             + " | ".join(f"{s} / default" for s in shrink_rows) + " | best |",
             "|---|---|---|" + "---|" * (len(methods) + len(shrink_rows) + 1)]
    ratios = {s: [] for s in shrink_rows}
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        for eps in sorted({float(r["epsilon"]) for r in rows if r["dataset"] == ds}):
            med = {m: _median(rows, ds, eps, m, metric) for m in methods}
            if med[DEFAULT] is None:
                continue
            ok = {m: v for m, v in med.items() if v is not None}
            best = min(ok, key=ok.get)
            cells = [uc.fmt(med[m]) if med[m] is not None else "—" for m in methods]
            rs = []
            for s in shrink_rows:
                r = med[s] / med[DEFAULT] if med[s] is not None and med[DEFAULT] > 0 else float("nan")
                ratios[s].append((ds, eps, med[DEFAULT], r))
                rs.append(f"{r:.3f}")
            group = "tuning" if ds in TUNING else "check" if ds in CHECK else "held out"
            lines.append(f"| {ds} | {group} | {eps:g} | " + " | ".join(cells) + " | "
                         + " | ".join(rs) + f" | {best} |")
    return lines + [""], ratios


def rule_lines(ratios: dict, label: str) -> list[str]:
    """The brief's default rule for each shrinkage row: on the tuning tables, no cell worse than
    the default by more than 2% (median) and better in every cell where the default's error is
    at least 0.5; then the same checked on the held-out tables."""
    out = []
    for s, cells in ratios.items():
        for group, names in (("tuning", TUNING), ("held out", HELD_OUT), ("check", CHECK)):
            sel = [c for c in cells if c[0] in names]
            if not sel:
                continue
            worse = [c for c in sel if c[3] > 1.02]
            unhelped = [c for c in sel if c[2] >= 0.5 and not c[3] < 1.0]
            rs = np.array([c[3] for c in sel])
            out.append(
                f"- {label}, **{s}**, {group} ({len(sel)} cells): ratio to the default min "
                f"{rs.min():.3f}, median {np.median(rs):.3f}, max {rs.max():.3f}; worse by > 2%: "
                f"{len(worse)}" + (" (" + ", ".join(f"{c[0]} ε = {c[1]:g}: {c[3]:.3f}" for c in worse)
                                    + ")" if worse else "")
                + f"; cells with default error ≥ 0.5 not improved: {len(unhelped)}"
                + (" (" + ", ".join(f"{c[0]} ε = {c[1]:g}: {c[3]:.3f}" for c in unhelped) + ")"
                   if unhelped else "") + ".")
    return out + [""]


def preregistered_lines(cells) -> list[str]:
    """The pre-registered rule (``RULE_MAX_RATIO``, ``RULE_STRICT_ABOVE``) for making
    ``shrinkage="projected"`` the default of ``kind="correlation"``, over every cell."""
    worse = [c for c in cells if not c[3] <= RULE_MAX_RATIO]
    unhelped = [c for c in cells if c[2] >= RULE_STRICT_ABOVE and not c[3] < 1.0]
    ok = not worse and not unhelped
    fmt = lambda cs: ", ".join(f"{c[0]} ε = {c[1]:g}: {c[3]:.3f}" for c in cs)
    rs = np.array([c[3] for c in cells])
    return ["### Pre-registered rule for `shrinkage=\"projected\"` (issue 24, round 3)", "",
            "Written in the script (`RULE_MAX_RATIO`, `RULE_STRICT_ABOVE`) and committed "
            "before the run that decides it (the first run of `\"projected\"` on the held-out "
            "and check tables): the default of `DPCovariance(kind=\"correlation\")` becomes "
            "`\"projected\"` iff on every correlation cell (tuning tables "
            f"{', '.join(TUNING)}; {', '.join(HELD_OUT)}; check tables {', '.join(CHECK)}; "
            "ε ∈ {0.1, 0.5, 1, 2, 5}; 15 trials, seed 20261124) its median is "
            f"≤ {RULE_MAX_RATIO:g}× the default's (`shrinkage=\"none\"`) and strictly below it "
            f"wherever the default's median is ≥ {RULE_STRICT_ABOVE:g}; otherwise the default "
            "stays `\"none\"` and `\"projected\"` stays an option.", "",
            f"Over {len(cells)} cells: ratio min {rs.min():.3f}, median {np.median(rs):.3f}, "
            f"max {rs.max():.3f}; above {RULE_MAX_RATIO:g}×: {len(worse)}"
            + (f" ({fmt(worse)})" if worse else "")
            + f"; default ≥ {RULE_STRICT_ABOVE:g} and not strictly improved: {len(unhelped)}"
            + (f" ({fmt(unhelped)})" if unhelped else "")
            + f". **Outcome: {'PASSES' if ok else 'FAILS'}.**", "", POST_HOC, ""]


#: Written after the deciding run (randhie is no longer unseen; nothing was changed).
POST_HOC = (
    "After the run (post hoc; randhie is therefore no longer a never-seen table for this "
    "estimator, and neither the rule nor the default was changed): on randhie (20,190 × 9, "
    "the default's correlation error 0.008–0.065 at ε ≥ 0.5) every group's factor is "
    "0.97–1.00 at ε = 1 (first seed), and the paired per-trial ratio to the default has "
    "median 0.990, 0.992, 0.996, 1.000 and mean 0.998, 0.998, 0.998, 1.000 at ε = 0.5, 1, 2, "
    "5 (worse in 6–7 of 15 trials): the 1.010–1.022 ratios of medians are the spread of a "
    "±5% per-trial effect of a shrinkage of a few per cent, not a systematic loss of that "
    "size; the rule, fixed in advance on medians, fails all the same. Later (round 3d, issue "
    "24): the same rule, checked a second time with 100 trials per cell fixed in advance and "
    "three never-seen tables, passed under replace-one "
    "(`results/correlation_default_check.md`), and `\"projected\"` became the correlation "
    "default there (`shrinkage=\"auto\"`); this file's `default` row is `shrinkage=\"none\"`.")


def unit_box_candidate_lines(rows, datasets, eps_list, data_home=None) -> list[str]:
    """Issue 24 brief, item 2: would i.i.d. noise in the unit box be picked by ``noise="auto"``
    for ``kind="correlation"`` if it were a candidate? Its exact expected loss (public: bounds,
    n, shape) next to the candidates auto already compares."""
    import dataclasses

    from matrixdp.models._moments import augmented_task, plan_second_moment

    lines = ["## Item 2: i.i.d. noise in the unit box as a candidate of `auto` for correlation", "",
             "(Round 2, on the tuning and held-out tables only; the check tables' `iid, unit box` "
             "rows are in the correlation table above and were not analysed for this item.)", "",
             "Exact expected loss of the released second moments in units of the public "
             "half-widths (the loss `auto` minimises for `kind=\"correlation\"`; public: bounds, "
             "n, shape), each candidate relative to the one auto picks today (the ratios do not "
             "depend on ε: every candidate's loss scales with the same calibration).", "",
             "| table | ε | auto picks | task-weighted | unit-box (MVG, equal shares) | "
             "iid-unit-box | iid |", "|---|---|---|---|---|---|---|"]
    for ds in datasets:
        t = load(ds, data_home)
        for eps in eps_list:
            task, _, _ = augmented_task(t.lo, t.hi, t.n, "correlation")
            plan, base = plan_second_moment(task, epsilon=eps, delta=uc.DELTA)
            task_all = dataclasses.replace(task, candidates=tuple(task.candidates) + ("iid-unit-box",))
            _, cand = plan_second_moment(task_all, epsilon=eps, delta=uc.DELTA)
            ref = cand[plan.allocation]
            cells = [f"{cand[a] / ref:.4g}" for a in ("task-weighted", "unit-box", "iid-unit-box", "iid")]
            lines.append(f"| {ds} | {eps:g} | {plan.allocation} | " + " | ".join(cells) + " |")
            break  # one ε: the same ratios at every ε
    metric = "correlation relative Frobenius error"
    pairs = [(ds, e, _median(rows, ds, e, UNIT, metric), _median(rows, ds, e, DEFAULT, metric))
             for ds in datasets for e in eps_list]
    pairs = [p for p in pairs if p[2] is not None and p[3] is not None]
    wins = [p for p in pairs if p[2] < p[3]]
    r = np.array([p[2] / p[3] for p in pairs])
    lines += ["", "`iid-unit-box` has the expected loss of the `unit-box` candidate that auto "
              "already compares (equal to the printed digits: both put noise of one scale on the "
              "records rescaled by the public half-widths), so adding it could only break a tie. "
              "Measured "
              f"(tables above, correlation): the `iid, unit box` row is below the default in "
              f"{len(wins)} of {len(pairs)} cells, ratio to the default min {r.min():.3f}, median "
              f"{np.median(r):.3f}, max {r.max():.3f}: "
              + ", ".join(f"{ds} ε = {e:g} ({u / d:.3f})" for ds, e, u, d in wins)
              + ". Where it wins, auto's model prefers `task-weighted` (wdbc, ctg, adult: "
              "1.2×, 1.15×, 1.003× lower expected loss than unit-box); the measured differences "
              "(1–2%) have the opposite sign on other tables (synthetic, lending_club), so no "
              "rule from public inputs separates them: it is not added.", ""]
    return lines


def write(rows, args) -> Path:
    out = Path(args.out)
    lines = ["# James–Stein shrinkage of DP covariance and correlation releases", "",
             f"δ = {uc.DELTA:g}; ε ∈ {{{', '.join(f'{e:g}' for e in args.epsilons)}}}; "
             f"{args.trials} trials per cell (seed {args.seed}, the seeds of "
             "`utility_covariance.py`: the default row's values equal that script's "
             "`matrixdp (auto)` row where both ran); median relative Frobenius error. "
             "Replace-one, n public. Generated by `experiments/covariance_shrinkage.py`.", "",
             "Rows: " + "; ".join(f"`{m}`" for m in METHODS) + " (see the script's docstring). "
             "Shrinkage is post-processing of the same release (same seed: the same noise), so "
             "its privacy guarantee is the default's; the ratio columns compare the two on the "
             "same draws (ratio of medians).", "",
             f"Tuning tables (the rule and the correlation grouping were chosen on them): "
             f"{', '.join(TUNING)}. Held out: {', '.join(HELD_OUT)} (diabetes: scikit-learn's "
             "`load_diabetes(scaled=False)`, bounds from the script's `DIABETES_BOUNDS`). "
             "Disclosure: the options and the correlation grouping were fixed on the tuning "
             "tables (a 15-trial exploration) before the held-out rows were run; a 2-trial smoke "
             "run of this script at ε = 1 on liver and diabetes checked its plumbing; nothing was "
             "changed after the held-out rows were seen. The one change after the first "
             "committed run (the correlation factors applied to the final correlation instead "
             "of the covariance before its projection) was made for a test on pure noise, and "
             "the first run wrote held-out correlation rows, which were not looked at.", "",
             "Round 3 (issue 24, `\"projected\"`): designed on the tuning tables only (15 "
             "trials, these seeds: a per-group diagnosis at wdbc and ctg ε = 5, then the "
             "numerator ‖y_g‖² − c_g or − tr Σ_g, the floor 0, 1/4 or 1/2 and the noise-bound "
             "branch (threshold 1/2 or 1: the same) chosen on the 20 tuning cells); the held-out tables (seen by the round-2 rule check of "
             "`\"off-diagonal\"`) and the check tables "
             f"{', '.join(CHECK)} (`experiments/_check_tables.py`, never run by any correlation "
             "shrinkage before) were first run with `\"projected\"` in this run, after the rule "
             "below was committed.", "",
             "## Covariance (original units)", ""]
    cov_methods = tuple(m for m in METHODS if m != PROJECTED)  # correlation-only row
    cov_lines, cov_ratios = table(rows, "relative Frobenius error", cov_methods, (SHRINK, WHOLE))
    lines += cov_lines
    lines += ["Rule for a default (issue 24 brief): no cell more than 2% worse than the default "
              "(median) and better wherever the default's error is ≥ 0.5.", ""]
    lines += rule_lines(cov_ratios, "covariance")
    corr_methods = (DEFAULT, SHRINK, PROJECTED, UNIT, COINPRESS)
    lines += ["## Correlation", "",
              "`default` and the shrinkage row: `DPCovariance(kind=\"correlation\")` (its own "
              "release, same seed); `iid, unit box` and `coinpress`: the correlation implied by "
              "their covariance release.", ""]
    corr_lines, corr_ratios = table(rows, "correlation relative Frobenius error", corr_methods,
                                    (SHRINK, PROJECTED))
    lines += corr_lines
    lines += rule_lines(corr_ratios, "correlation")
    lines += preregistered_lines(corr_ratios[PROJECTED])
    # item 2 (round 2) is about the tables it was written on: its prose is not rewritten for
    # the check tables, whose `iid, unit box` rows are in the correlation table above
    datasets = [d for d in dict.fromkeys(r["dataset"] for r in rows) if d not in CHECK]
    lines += unit_box_candidate_lines(rows, datasets, sorted({float(r["epsilon"]) for r in rows}),
                                      args.data_home)
    path = out / f"{NAME}.md"
    path.write_text("\n".join(lines))
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=15)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(uc.EPSILONS))
    p.add_argument("--datasets", nargs="+", default=list(TUNING + HELD_OUT + CHECK),
                   choices=list(TUNING + HELD_OUT + CHECK))
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=20261124)
    p.add_argument("--data-home", type=Path, default=None)
    p.add_argument("--time-limit", type=float, default=60.0)
    p.add_argument("--render-only", action="store_true",
                   help="rewrite the Markdown from the CSV without running")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.render_only:
        rows = uc.read_csv(args.out / f"{NAME}.csv")
        args.trials = int(max(int(r["trials"] or 0) for r in rows))
    else:
        t0 = time.perf_counter()
        rows = run(args)
        print(f"ran in {time.perf_counter() - t0:.0f} s")
    print(f"wrote {write(rows, args)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
