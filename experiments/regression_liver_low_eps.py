"""Why the default DP linear regression lost on liver at ε = 0.3, and the check of the fix.

Part 1 (diagnosis, liver, ε ∈ {0.3, 1}): for the default (``noise="auto"``), ``noise="iid"`` and
i.i.d. on the unit box, on the split, seeds and public bounds of ``results/utility_regression.md``:
the allocation ``auto`` picks and the candidates' expected losses; the adaptive ridge's lift
``λ``; the test error split into the offset of the mean prediction (bias of the level) and the
rest; how far each fit is from predicting the released (DP) mean of the target; the share of
predictions clipped to the target's bounds; the projection's effect. Every variant of a row is
solved from **the same release** (paired): the previous rule (the adaptive ridge also lifts the
constant coordinate: shrinks the intercept), the new default rule (the intercept is not
penalised where the release places the target's mean,
``normal_equations.target_mean_informative``) and the new rule without the feasible projection.

Part 2 (the changed rule on every table): the new rule / the previous rule, median test RMSE,
paired on the same releases, for the default, ``noise="iid"`` and i.i.d. on the unit box, on the
8 tables × 5 ε of the utility benchmark. The rule was found on liver; adult, lending_club,
movement_aal and holdout_synthetic were not looked at before it was fixed.

Output: ``results/regression_liver_low_eps.md``. Run:
``MATRIXDP_DATA=... python experiments/regression_liver_low_eps.py [--trials 20]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import utility_regression as ur  # noqa: E402  (registers holdout_synthetic)

from matrixdp.models import DPLinearRegression  # noqa: E402
from matrixdp.models.joint_release import regression_task  # noqa: E402
from matrixdp.models.normal_equations import solve_moments, target_mean_informative  # noqa: E402

SEED = 20261124  # the seed of results/utility_regression.md (same trial seeds)
HELD_OUT = ("adult", "lending_club", "movement_aal", "holdout_synthetic")
ROWS = (("matrixdp (auto)", "auto", False), ("matrixdp (iid)", "iid", False),
        ("iid, unit box", "iid", True))


def _setup(t: uc.Table, unit: bool):
    """Training/test data and public bounds, in the units the estimator sees."""
    Xtr, ytr, Xte, yte = ur.split(t)
    lo, hi, ylo, yhi = t.lo, t.hi, t.y_lo, t.y_hi
    back = (0.0, 1.0)
    if unit:
        w, wy = hi - lo, yhi - ylo
        Xtr, ytr, Xte = (Xtr - lo) / w, (ytr - ylo) / wy, (Xte - lo) / w
        back = (ylo, wy)
        lo, hi, ylo, yhi = np.zeros_like(lo), np.ones_like(hi), 0.0, 1.0
    return Xtr, ytr, Xte, yte, lo, hi, ylo, yhi, back


def fits(t: uc.Table, eps: float, noise: str, unit: bool, trials: int):
    """Per trial: the test predictions (original units, clipped) of each solve of one release."""
    Xtr, ytr, Xte, yte, lo, hi, ylo, yhi, (b0, bw) = _setup(t, unit)
    n, d = Xtr.shape
    task, cx, cy, tc = regression_task(lo, hi, ylo, yhi, n, True)
    seeds = np.random.SeedSequence(SEED).generate_state(trials)
    out = []
    for s in seeds:
        est = DPLinearRegression(epsilon=eps, delta=uc.DELTA, bounds_X=(lo, hi),
                                 bounds_y=(ylo, yhi), noise=noise, random_state=int(s)).fit(Xtr, ytr)
        G, ev = est.moments_ * n, est.entry_variance_

        def pred(beta):
            p = Xte @ beta[:d] + cy - cx @ beta[:d] + beta[d] * tc
            return b0 + bw * p

        variants = {}
        for name, kw in (("previous", {"lift_intercept": True}), ("new", {}),
                         ("new, unprojected", {"projection": None})):
            beta, lam = solve_moments(G, ev, task, n, tc, **kw)
            variants[name] = (pred(beta), lam)
        assert np.allclose(variants["new"][0], b0 + bw * est.predict(Xte))
        dp_mean = b0 + bw * float(np.clip(cy + est.moments_[d, d + 1] / tc, ylo, yhi))
        out.append({"variants": variants, "dp_mean": dp_mean, "allocation": est.allocation_,
                    "candidates": est.noise_candidates_,
                    "informative": target_mean_informative(ev, task, tc)})
    return out, yte, ytr


def _rmse(p, y):
    return float(np.sqrt(np.mean((p - y) ** 2)))


def diagnosis(t: uc.Table, eps: float, trials: int) -> list[str]:
    lines = [f"### liver, ε = {eps:g} ({trials} trials)", "",
             "| row | solve | median test RMSE | median offset of the mean prediction | "
             "RMS offset | median RMSE after removing the offset | median sd of predictions | "
             "median RMS distance to the DP-mean predictor | predictions clipped | λ (median) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    notes, summary = [], {}
    for label, noise, unit in ROWS:
        res, yte, ytr = fits(t, eps, noise, unit, trials)
        if label == "matrixdp (auto)":
            cand = res[0]["candidates"]
            notes.append(f"- `auto` picks **{res[0]['allocation']}** (expected loss of the "
                         "candidates: " + ", ".join(f"{k} {v:.3g}" for k, v in cand.items())
                         + ").")
        inf = sum(r["informative"] for r in res)
        notes.append(f"- {label}: the released mean of the target is informative (noise sd < "
                     f"half-width) in {inf} of {len(res)} trials (the rule is public: the same "
                     "answer in every trial).")
        const = [_rmse(np.full_like(yte, r["dp_mean"]), yte) for r in res]
        lines.append(f"| {label} | predict the DP mean of y (a constant) | {np.median(const):.3g} "
                     f"| {np.median([r['dp_mean'] - yte.mean() for r in res]):.3g} | "
                     f"{np.sqrt(np.mean([(r['dp_mean'] - yte.mean()) ** 2 for r in res])):.3g} | "
                     f"{np.std(yte):.3g} | 0 | 0 | — | — |")
        for v in ("previous", "new", "new, unprojected"):
            raw = [r["variants"][v][0] for r in res]
            clipped = [np.clip(p, t.y_lo, t.y_hi) for p in raw]
            rm = [_rmse(p, yte) for p in clipped]
            off = [float(np.mean(p) - yte.mean()) for p in clipped]
            rest = [float(np.std(p - yte)) for p in clipped]
            to_dp = [_rmse(p, np.full_like(p, r["dp_mean"])) for p, r in zip(clipped, res)]
            clip = [float(np.mean((p < t.y_lo) | (p > t.y_hi))) for p in raw]
            lam = [r["variants"][v][1] for r in res]
            summary[(label, v)] = {"rmse": float(np.median(rm)), "offset": float(np.median(off)),
                                   "rest": float(np.median(rest)), "clip": float(np.mean(clip)),
                                   "rms_offset": float(np.sqrt(np.mean(np.square(off))))}
            lines.append(f"| {label} | {v} | {np.median(rm):.3g} | {np.median(off):.3g} | "
                         f"{np.sqrt(np.mean(np.square(off))):.3g} | {np.median(rest):.3g} | "
                         f"{np.median([np.std(p) for p in clipped]):.3g} | {np.median(to_dp):.3g} | "
                         f"{np.mean(clip):.1%} | {np.median(lam):.3g} |")
    ytr = ur.split(t)[1]
    lines += ["", f"Test set: mean {yte.mean():.3g}, sd {np.std(yte):.3g}; training mean "
              f"{ytr.mean():.3g}; centre of the target's public box {0.5 * (t.y_lo + t.y_hi):g}.",
              ""] + notes + [""]
    return lines, summary


def held_out(trials: int) -> tuple[list[str], dict]:
    lines = ["| dataset | set | row | " + " | ".join(f"ε = {e:g}" for e in ur.EPSILONS) + " |",
             "|---|---|---|" + "---|" * len(ur.EPSILONS)]
    worst, over = {}, []
    for ds in uc.DATASETS:
        t = uc.load_table(ds, None)
        group = "held out" if ds in HELD_OUT else "tuned on"
        for label, noise, unit in ROWS:
            cells = []
            for eps in ur.EPSILONS:
                res, yte, _ = fits(t, eps, noise, unit, trials)
                old = np.median([_rmse(np.clip(r["variants"]["previous"][0], t.y_lo, t.y_hi), yte)
                                 for r in res])
                new = np.median([_rmse(np.clip(r["variants"]["new"][0], t.y_lo, t.y_hi), yte)
                                 for r in res])
                ratio = new / old
                key = (group, label)
                if ratio > worst.get(key, (0.0,))[0]:
                    worst[key] = (ratio, ds, eps)
                if ratio > 1.02:
                    over.append(f"{label} on {ds} at ε = {eps:g} ({ratio:.3f})")
                cells.append(f"{ratio:.3f}")
            lines.append(f"| {ds} | {group} | {label} | " + " | ".join(cells) + " |")
    return lines, worst, over


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    liver = uc.load_table("liver", None)
    lines = ["# Liver at ε = 0.3: why the default lost, and the fix", "",
             f"Written by `experiments/regression_liver_low_eps.py` ({args.trials} trials per "
             f"cell, the trial seeds, split and public bounds of `results/utility_regression.md`; "
             f"δ = {uc.DELTA:g}, replace-one). Each row's solves post-process **the same "
             "release** (paired). `previous`: the adaptive ridge lifts every coordinate, the "
             "constant one too (it shrinks the intercept towards the centre of the target's "
             "box); `new` (the default now): the intercept is not penalised when the release "
             "places the target's mean inside its box (public rule: the noise sd of the released "
             "mean of y is below the target's half-width; `docs/regression.md` §3). Offset = mean "
             "test prediction − mean test target (the level's bias); 'after removing the offset' "
             "= the sd of the residuals (the rest of the error: RMSE² = offset² + that²). "
             "Predictions clipped to the public target bounds [0, 20] before scoring, as in the "
             "benchmark.", "", "## 1. Diagnosis", ""]
    summaries = {}
    for eps in (0.3, 1.0):
        block, summaries[eps] = diagnosis(liver, eps, args.trials)
        lines += block
    a, b = summaries[0.3][("matrixdp (auto)", "previous")], summaries[0.3][("matrixdp (auto)", "new")]
    i = summaries[0.3][("matrixdp (iid)", "new")]
    u = summaries[0.3][("matrixdp (auto)", "new, unprojected")]
    lines += ["Reading (computed from the tables above, ε = 0.3):", "",
              f"- **Bias, not variance.** The default's median test RMSE {a['rmse']:.3g} is its "
              f"offset (the mean prediction sits {a['offset']:.3g} above the test mean) on top of "
              f"a residual spread of {a['rest']:.3g}, no larger than the test target's own sd: "
              "the fit is nearly a constant, and the constant is wrong. The offset comes from "
              "the adaptive ridge lifting the constant coordinate too: it shrinks the prediction "
              "at the centre of the feature box towards the centre of the target's box (10), "
              "while liver's target is skewed (mean ≈ 3). The auto pick is not the cause: "
              "task-weighted MVG and i.i.d. on the unit box have near-equal expected losses and "
              "show the same offset under the previous rule.",
              f"- **Fix.** With the intercept unpenalised (the release places the mean of y: its "
              f"noise sd is below the half-width), the offset falls to {b['offset']:.3g} and the "
              f"median RMSE to {b['rmse']:.3g} (the previous best of the benchmark cell, "
              f"matrixdp (iid), is {i['rmse']:.3g} here, with an RMS offset of "
              f"{i['rms_offset']:.3g}: its median is a lucky middle of a very wide spread).",
              f"- **Projection.** Without the feasible projection the same solve predicts outside "
              f"[0, 20] for {u['clip']:.0%} of the test records and its RMSE is {u['rmse']:.3g}: "
              "the projection (which bounds the released mean of y and the Gram by the public "
              "boxes) is what makes the released mean usable at this ε.",
              "- **Clipping** of predictions to [0, 20] plays no role with the projection "
              "(≤ 0.1% of predictions clipped).", ""]
    lines += ["## 2. The changed rule on every table (new / previous, median test RMSE, paired)",
              "", "< 1: the new rule is better. `tuned on`: the tables the rule was found on or "
              "that the regression rules were chosen on before (synthetic, liver, wdbc, ctg); "
              "`held out`: adult, lending_club, movement_aal, holdout_synthetic.", ""]
    table, worst, over = held_out(args.trials)
    lines += table + ["", "Worst cell (largest new / previous) per row and set:", ""]
    lines += [f"- {g}, {lab}: {r:.3f} ({ds}, ε = {e:g})" for (g, lab), (r, ds, e) in
              sorted(worst.items())]
    lines += ["", f"Cells more than 2% worse under the new rule: {len(over)}"
              + (": " + "; ".join(over) if over else "") + ". `noise='iid'` in the original units "
              "is not the default and `auto` does not choose it on these tables (it picks "
              "task-weighted MVG on all 8); where its released mean of y is informative "
              "the unpenalised intercept can be worse for it, which this script does not "
              "explain (its features are swamped by the noise, so the fit is close to a "
              "constant anchored at the noisy released means)."]
    lines += ["", f"Run time {time.perf_counter() - t0:.0f} s.", ""]
    out = Path(args.out) / "regression_liver_low_eps.md"
    out.write_text("\n".join(lines))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
