"""Task AB (session 25, issue #24; diagnosis, decides nothing): the covariance default's branch
choice on adult ε = 1, each branch's predicted loss against its measured loss, per fit.

``DPCovariance()`` takes the whitened step where its predicted median (the step's noise plus the
capped reading ``b̂ + 1.5 sd`` of its clipping bias) is below the moments branch's predicted median
(``docs/coinpress.md`` § Adaptive, "Ranking by the predicted median (task CV)"). Since task CV the
moments branch DRAWS its last release as the dominating weighted triangle, but its prediction keeps
the full draw's entry variances. Per fit, on the same seed (same first look and counts):

- ``default``: ``DPCovariance()``; its choice and reported predictions (``adaptive_predicted_``);
- ``mom``, ``step``: the last release forced to each branch (``AdaptiveOptions(branch=...)``, the
  rest the default's);
- ``cand``: ``CovarianceOptions(adaptive_triangle_prediction=True)`` (task AB's option): the moments
  median predicted with the triangle's entry variances (``triangle_moments_prediction``);
- the step's prediction taken apart (spied, from the values the choice itself computed): its noise
  alone (``b = 0``), at the capped reading the rule used (``b̂ + 1.5 sd``) and at the TRUE bias
  bound ``b = (1/n) Σ g_i`` (computed here from the records; never in the library).

Measured = squared absolute Frobenius error of the released covariance (after the estimator's
projection) against the records' ``1/n`` covariance, the unit of the predictions. Medians over the
fits of each cell. ``wrong steps``: fits where the default took the step and the forced moments
release was better (``wrong moments``: the converse).

Cells: adult ε ∈ {0.5, 1, 2} (100 trials) and the cells of the benchmark and MEASUREMENT tables
whose default took the step in 15–85% of task CV's gate fits (``results/cov_cells_gate.md``; 30
trials). Seeds ``SeedSequence(20261124).generate_state(100)`` (the benchmark's, as
``cov_cells_power.py``). δ = 1e-6, replace-one, public bounds.

Command::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python adult_branch_diagnosis.py
"""

from __future__ import annotations

import csv
import math
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

RESULTS = uc.REPO_ROOT / "results"
OUT_CSV = RESULTS / "adult_branch_diagnosis_trials.csv"
OUT_MD = RESULTS / "adult_branch_diagnosis.md"
SEED = 20261124
CELLS = ([("benchmark", "adult", e, 100) for e in (0.5, 1.0, 2.0)]
         + [("benchmark", "movement_aal", 2.0, 30)]
         + [("heldout", n, e, 30) for n, e in (
             ("401ksubs", 0.1), ("401ksubs", 5.0), ("catholic", 0.5), ("charity", 5.0),
             ("crime1", 0.5), ("elem94_95", 0.5), ("gpa2", 1.0), ("htv", 2.0), ("jtrain3", 1.0),
             ("recid", 5.0))])


def table(set_, name):
    if set_ == "benchmark":
        return uc.load_table(name)
    from _check_tables_heldout import heldout_table
    return heldout_table(name)


class Spy:
    """Records the true clipping-bias bound and the median choice's inputs of one fit."""

    def __init__(self):
        import matrixdp.models.adaptive.release as rel
        self.rel, self.b_true, self.args, self.g = rel, math.nan, None, None
        self._counts, self._median = rel.clipping_loss_counts, rel.median_choice

    def __enter__(self):
        from matrixdp.models.adaptive.counts import clipping_losses

        def counts(Xl, center, m, A, r2, weights, edges):
            self.g = clipping_losses(Xl, center, m, A, r2, weights)
            self.b_true = float(np.mean(self.g))
            return self._counts(Xl, center, m, A, r2, weights, edges)

        def median(*a):
            self.args = a
            return self._median(*a)
        self.rel.clipping_loss_counts, self.rel.median_choice = counts, median
        return self

    def __exit__(self, *exc):
        self.rel.clipping_loss_counts, self.rel.median_choice = self._counts, self._median


def fit(t, eps, seed, row):
    import matrixdp.models.covariance as cv
    from matrixdp.models import DPCovariance
    from matrixdp.models.adaptive import AdaptiveOptions
    from matrixdp.models.experimental import CovarianceOptions

    keep = cv._triangle_options
    if row in ("mom", "step"):
        branch = "moments" if row == "mom" else "coinpress"
        cv._triangle_options = lambda on, prediction=False: {
            "options": AdaptiveOptions(moments_triangle=True, branch=branch)}
    try:
        opts = CovarianceOptions(adaptive_triangle_prediction=row == "cand")
        return DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), random_state=seed,
                            experimental=opts).fit(t.X)
    finally:
        cv._triangle_options = keep


def step_medians(args, b_true):
    """The step's predicted median at b = 0, at the rule's reading and at the true bound."""
    from matrixdp.models.adaptive.losses import _step_median, coinpress_noise_variance
    from matrixdp.models.coinpress import whitened_noise_sd

    (V1, V2, m, weights, t, v_first, pred_mom, noise_cp, S, r2, k, n, mu2, cap, noisy, edges,
     sigma_b, z_dec) = args
    sig = whitened_noise_sd(r2, k, n, mu2)
    nvar, mu_max = coinpress_noise_variance(S, weights, sig)
    return (_step_median(0.0, noise_cp, nvar, sig, mu_max),
            _step_median(b_true, noise_cp, nvar, sig, mu_max))


def blind_part(args, g, pred, eps):
    """The part of the true bound above the median reading's level ``L`` (read at ``L`` when its
    bins are unresolved), the records there, the count noise sd, and the GDP parameter an oracle
    sum statistic capped at the largest loss would need for a noise sd of ``t_med/3``
    (``3 max g / (n t_med)``; the total budget is ``mu_star``)."""
    from matrixdp.calibration.gaussian import max_gaussian_shift

    nan = math.nan
    out = {"level_med": nan, "n_above_level": nan, "blind": nan, "sigma_c": nan,
           "mu_needed": nan, "mu_star": max_gaussian_shift(eps, uc.DELTA)}
    if args is None or g is None:
        return out
    L, t_med, n = pred.get("reading_level_median", nan), pred.get("median_threshold", nan), g.size
    out["sigma_c"] = float(args[16])
    if L == L and t_med > 0:
        out.update(level_med=L / t_med, n_above_level=int(np.sum(g > L)),
                   blind=float(np.sum(np.maximum(g - L, 0.0))) / n / t_med,
                   mu_needed=3.0 * float(g.max()) / (n * t_med))
    return out


FIELDS = ["set", "table", "epsilon", "trial", "seed", "choice", "cand_choice", "err_default",
          "err_cand", "err_mom", "err_step", "sq_mom", "sq_step", "pred_mom_full",
          "pred_mom_tri", "pred_step_rule", "pred_step_noise", "pred_step_true", "b_rule",
          "b_true", "t_med_full", "t_med_tri", "norm_C", "level_med", "n_above_level",
          "blind", "sigma_c", "mu_needed", "mu_star"]


def run():
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(100)]
    done = set()
    if OUT_CSV.exists():
        with open(OUT_CSV, newline="") as fh:
            done = {(r["table"], float(r["epsilon"]), int(r["trial"])) for r in csv.DictReader(fh)}
    new = not OUT_CSV.exists()
    with open(OUT_CSV, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for set_, name, eps, trials in CELLS:
            t = table(set_, name)
            C = np.cov(t.X.T, bias=True)
            cn = float(np.linalg.norm(C))
            out = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for i, s in enumerate(seeds[:trials]):
                    if (name, eps, i) in done:
                        continue
                    with Spy() as spy:
                        d = fit(t, eps, s, "default")
                    args, b_true, g_rec = spy.args, spy.b_true, spy.g
                    c = fit(t, eps, s, "cand")
                    mo, st = fit(t, eps, s, "mom"), fit(t, eps, s, "step")
                    err = {r: float(np.linalg.norm(e.covariance_ - C))
                           for r, e in (("d", d), ("c", c), ("m", mo), ("s", st))}
                    pd, pc = d.adaptive_predicted_, c.adaptive_predicted_
                    noise, true = (step_medians(args, b_true) if args is not None
                                   else (math.nan, math.nan))
                    b_rule = (pd.get("clipping_loss_median", math.nan) + 1.5
                              * pd.get("clipping_loss_median_sd", math.nan))
                    out.append({"set": set_, "table": name, "epsilon": eps, "trial": i, "seed": s,
                                "choice": d.adaptive_choice_, "cand_choice": c.adaptive_choice_,
                                "err_default": err["d"] / cn, "err_cand": err["c"] / cn,
                                "err_mom": err["m"] / cn, "err_step": err["s"] / cn,
                                "sq_mom": err["m"] ** 2, "sq_step": err["s"] ** 2,
                                "pred_mom_full": pd.get("moments_median", math.nan),
                                "pred_mom_tri": pc.get("moments_median", math.nan),
                                "pred_step_rule": pd.get("coinpress_median", math.nan),
                                "pred_step_noise": noise, "pred_step_true": true,
                                "b_rule": b_rule, "b_true": b_true if args is not None
                                else math.nan,
                                "t_med_full": pd.get("median_threshold", math.nan),
                                "t_med_tri": pc.get("median_threshold", math.nan),
                                "norm_C": cn, **blind_part(args, g_rec, pd, eps)})
            w.writerows(out)
            fh.flush()
            print(f"{name} eps={eps:g} done", flush=True)


def g(v):
    return f"{v:.3g}"


def render():
    with open(OUT_CSV, newline="") as fh:
        rows = list(csv.DictReader(fh))
    cells = {}
    for r in rows:
        cells.setdefault((r["set"], r["table"], float(r["epsilon"])), []).append(r)
    L = ["# Task AB (session 25): the covariance default's branch choice, predicted against "
         "measured", "",
         "Generated by `experiments/adult_branch_diagnosis.py` (diagnosis only; decides nothing; "
         "the command is in its docstring). Per-fit rows: `results/adult_branch_diagnosis_trials."
         "csv`. Seeds `SeedSequence(20261124)` (the benchmark's); δ = 1e-6, replace-one, public "
         "bounds. `DPCovariance()` (default), its last release forced to each branch on the same "
         "seed (mom, step), and task AB's option `adaptive_triangle_prediction=True` (cand).", "",
         "## A. Errors and choices (relative Frobenius error, medians)", "",
         "`counts`: fits where the counts were released (the median ranking decides only there); "
         "`wrong steps`: the default took the step and the forced moments release was better; "
         "`wrong mom`: the converse.", "",
         "| table | ε | fits | counts | default | cand | forced mom | forced step | cand/default | "
         "default steps | cand steps | wrong steps (default) | wrong steps (cand) | wrong mom "
         "(default) | wrong mom (cand) |", "|" + "---|" * 15]
    B = ["", "## B. Each branch's predicted median against its measured one (absolute squared "
         "Frobenius, fits with the counts released; ratio = predicted / measured median)", "",
         "`mom full`: the moments median as the default predicts it (the full draw's variances); "
         "`mom tri`: with the triangle it draws (task AB). `step noise`: the step's median at "
         "`b = 0`; `step rule`: at the rule's reading `b̂ + 1.5 sd`; `step true`: at the true bound "
         "`b` (from the records, never in the library). `b rule / b true`: medians of the reading "
         "and of the true bound, in units of the median threshold `t_med`.", "",
         "| table | ε | mom full | mom tri | step noise | step rule | step true | b rule / t_med | "
         "b true / t_med | t_med tri / t_med | P(mom < step) measured |",
         "|" + "---|" * 11]
    Cc = ["", "## C. The blind part of the step's clipping bias (fits with the counts released, "
          "medians)", "",
          "`b true`: the true bound over `t_med`; `blind`: its part above the median reading's "
          "level `L` (`Σ (g − L)₊ / n`, over `t_med`; read at `L` where those bins are not "
          "resolved); `records > L`; `σ_c`: the counts' noise sd (records); `μ needed`: the GDP "
          "parameter an ORACLE sum of the losses capped at the largest loss would need for a "
          "noise sd of `t_med/3` (`3 max g / (n t_med)`); `μ*`: the fit's whole budget.", "",
          "| table | ε | b true / t_med | blind / t_med | records > L | σ_c | μ needed | μ* |",
          "|" + "---|" * 8]
    f = lambda rs, k: np.array([float(r[k]) for r in rs])  # noqa: E731
    for key in sorted(cells, key=lambda k: (k[0] != "benchmark", k[1], k[2])):
        rs = cells[key]
        cnt = [r for r in rs if r["b_true"] not in ("nan", "")]
        ed, ec, em, es = (f(rs, k) for k in ("err_default", "err_cand", "err_mom", "err_step"))
        stepd = np.array([r["choice"] == "coinpress" for r in rs])
        stepc = np.array([r["cand_choice"] == "coinpress" for r in rs])
        L.append(f"| {key[1]} | {key[2]:g} | {len(rs)} | {len(cnt)} | {g(np.median(ed))} | "
                 f"{g(np.median(ec))} | {g(np.median(em))} | {g(np.median(es))} | "
                 f"{np.median(ec) / np.median(ed):.3f} | {int(stepd.sum())} | "
                 f"{int(stepc.sum())} | {int(np.sum(stepd & (em < es)))} | "
                 f"{int(np.sum(stepc & (em < es)))} | {int(np.sum(~stepd & (es < em)))} | "
                 f"{int(np.sum(~stepc & (es < em)))} |")
        if len(cnt) < 5:
            continue
        sm, ss = np.median(f(cnt, "sq_mom")), np.median(f(cnt, "sq_step"))
        tm = np.median(f(cnt, "t_med_full"))
        B.append(f"| {key[1]} | {key[2]:g} | {np.median(f(cnt, 'pred_mom_full')) / sm:.2f} | "
                 f"{np.median(f(cnt, 'pred_mom_tri')) / sm:.2f} | "
                 f"{np.median(f(cnt, 'pred_step_noise')) / ss:.2f} | "
                 f"{np.median(f(cnt, 'pred_step_rule')) / ss:.2f} | "
                 f"{np.median(f(cnt, 'pred_step_true')) / ss:.2f} | "
                 f"{np.median(f(cnt, 'b_rule')) / tm:.2f} | "
                 f"{np.median(f(cnt, 'b_true')) / tm:.2f} | "
                 f"{np.median(f(cnt, 't_med_tri') / f(cnt, 't_med_full')):.2f} | "
                 f"{np.mean(f(cnt, 'sq_mom') < f(cnt, 'sq_step')):.2f} |")
        Cc.append(f"| {key[1]} | {key[2]:g} | {np.median(f(cnt, 'b_true')) / tm:.2f} | "
                  f"{np.nanmedian(f(cnt, 'blind')):.2f} | "
                  f"{np.nanmedian(f(cnt, 'n_above_level')):.0f} | "
                  f"{np.median(f(cnt, 'sigma_c')):.3g} | "
                  f"{np.nanmedian(f(cnt, 'mu_needed')):.3g} | {float(cnt[0]['mu_star']):.3g} |")
    D = ["", "## D. The fits the default sent to the step against the others (adult, medians)", "",
         "Is the step taken where the bias IS smaller, or where its reading is? `b rule`, `b true`, "
         "`blind` in units of the fit's `t_med`.", "",
         "| table | ε | default's branch | fits | b rule / t_med | b true / t_med | blind / t_med | "
         "records > L |", "|" + "---|" * 8]
    for key in sorted(k for k in cells if k[1] == "adult"):
        for branch in ("coinpress", "moments"):
            rs = [r for r in cells[key] if r["choice"] == branch and r["b_true"] not in ("nan", "")]
            if not rs:
                continue
            tm = f(rs, "t_med_full")
            D.append(f"| {key[1]} | {key[2]:g} | {branch} | {len(rs)} | "
                     f"{np.median(f(rs, 'b_rule') / tm):.2f} | {np.median(f(rs, 'b_true') / tm):.2f} | "
                     f"{np.nanmedian(f(rs, 'blind')):.2f} | "
                     f"{np.nanmedian(f(rs, 'n_above_level')):.0f} |")
    OUT_MD.write_text("\n".join(L + B + Cc + D) + "\n")
    print(f"wrote {OUT_MD}")


def main(argv=None) -> int:
    import argparse
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("run", "render", "all"), default="all")
    a = p.parse_args(argv)
    if a.part in ("run", "all"):
        run()
    if a.part in ("render", "all"):
        render()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
