"""Task CV (session 24, issue #24): why the covariance default is more than 1.2× the best in 8 of
the benchmark's 35 cells (adult ε = 0.1, 1, 5; lending_club ε = 2, 5; movement_aal ε = 0.1, and
synthetic, 1.12× ``auto`` at every ε in ``results/utility_summary.md``). Diagnosis only: it reads
the private records (the truth) and decides nothing.

Part A (no new fit): the committed 100-trial rows of task CP and task CV
(``results/covariance_default_power_trials.csv``: the default before task CV, ``auto``, ``mvg``,
``coinpress``, the adaptive release with its last release FORCED to each branch on the same seed,
the predictions; ``results/covariance_choice_gate_trials.csv``: today's default, the median
ranking, on the same seeds, the first 15 of which are the benchmark's). Per cell: today's
default's median, the best row's, the branch taken, each forced branch's median and root mean
square, the mean-ranking predictions' root (the unit of ``adaptive_predicted_``) against the
forced branch's realised rms, the public ratio of the moments branch's summed entry variance to
``auto``'s, and the attribution:

- the default / best ratio split into a CHOICE part (default / the better forced branch, by
  medians: the wrong branch taken in some fits) and a BRANCH part (the better forced branch /
  the best row: what no choice between the two branches can close); the cause is the larger;
- SAMPLING: the 100-trial default is within 1.20× of the best row (the 15-trial loss of the
  benchmark summary does not persist at 100 paired trials);

Part B (new fits, the benchmark's seeds ``SeedSequence(20261124).generate_state(50)``, the first
15 of which are the benchmark's): on the flagged cells, the rows that separate Analyze Gauss's
advantage on movement_aal from ours, with the same public box, (ε, δ = 1e-6), replace-one:

- ``ag``: the benchmark's Analyze Gauss (the plain upper triangle ``x = 1`` of the augmented
  second moments at ``R²/n``, ``t`` = rms half-width, PSD part);
- ``ag_feasible``: the same release projected as ours (``project_feasible``, the box's variance
  bounds): what the projection is worth;
- ``iid``: ``DPCovariance(method="moments", noise="iid")``, the full symmetrised draw at the
  Frobenius sensitivity (diagonal variance 2× the off-diagonal's), our ``t``;
- ``iid_triangle``: the same with ``_moments.IID_TRIANGLE`` on (task TR's weighted triangle,
  ``x = x_max``, at ``R²/n`` where the bound is attained): what the triangle is worth;
- ``auto``, ``mvg``: the benchmark's moments rows; ``default``: ``DPCovariance()`` as it was
  when this ran (``adaptive_moments_triangle=False``, pinned since the candidate became the
  default);
- ``candidate``: ``DPCovariance(experimental=CovarianceOptions(adaptive_moments_triangle=True))``
  (the option of this task; ``docs/coinpress.md`` § "The moments branch's last release as a
  dominating triangle (task CV, session 24)").

Command::

    cd experiments && nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python cov_cells_diagnosis.py [--trials 50]

Output: ``results/cov_cells_diagnosis.md``, ``results/cov_cells_diagnosis_trials.csv`` (Part B, per
trial; resumes from it).
"""

from __future__ import annotations

import argparse
import csv
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

RESULTS = uc.REPO_ROOT / "results"
CP_TRIALS = RESULTS / "covariance_default_power_trials.csv"
CV_TRIALS = RESULTS / "covariance_choice_gate_trials.csv"
TRIALS_CSV = RESULTS / "cov_cells_diagnosis_trials.csv"
OUT_MD = RESULTS / "cov_cells_diagnosis.md"
SEED = 20261124
FLAGGED = [("adult", 0.1), ("adult", 1.0), ("adult", 5.0), ("lending_club", 2.0),
           ("lending_club", 5.0), ("movement_aal", 0.1)]
PART_B = FLAGGED + [("movement_aal", e) for e in (0.5, 1.0, 2.0, 5.0)] + \
    [("synthetic", e) for e in uc.EPSILONS]
ROWS = ("default", "candidate", "auto", "mvg", "iid", "iid_triangle", "ag", "ag_feasible")
FIELDS = ["dataset", "epsilon", "row", "trial", "seed", "error", "choice", "allocation"]


# ----------------------------------------------------------------------------- part A

def part_a():
    import pandas as pd

    cp = pd.read_csv(CP_TRIALS)
    cv = pd.read_csv(CV_TRIALS)[["dataset", "epsilon", "trial", "candidate", "choice_candidate"]]
    m = cp.merge(cv, on=["dataset", "epsilon", "trial"])
    out = []
    for (ds, e), x in m.groupby(["dataset", "epsilon"], sort=False):
        med = {r: float(x[r].median()) for r in ("candidate", "auto", "mvg", "coinpress",
                                                   "forced_moments", "forced_coinpress")}
        best_row = min(("auto", "mvg", "coinpress"), key=lambda r: med[r])
        best = med[best_row]
        fm, fc = med["forced_moments"], med["forced_coinpress"]
        better = min(fm, fc)
        d = med["candidate"]
        choice_part, branch_part = d / better, better / best
        if d <= 1.20 * best:
            cause = "SAMPLING" if (ds, e) in FLAGGED or ds == "synthetic" else "-"
        else:
            cause = "CHOICE" if choice_part >= branch_part else "BRANCH"
        rms = lambda c: float(np.sqrt(np.mean(x[c] ** 2)))  # noqa: E731
        out.append(dict(
            dataset=ds, epsilon=e, default=d, best_row=best_row, best=best, ratio=d / best,
            steps=int((x.choice_candidate == "coinpress").sum()), trials=len(x),
            forced_moments=fm, forced_step=fc,
            rms_moments=rms("raw_moments"), pred_moments=float(np.sqrt(np.median(x.pred_moments))),
            rms_step=rms("raw_coinpress"), pred_step=float(np.sqrt(np.median(x.pred_coinpress))),
            var_ratio=float(x.moments_var_ratio.median()), choice_part=choice_part,
            branch_part=branch_part, cause=cause))
    return out


# ----------------------------------------------------------------------------- part B

def fitter(row, t, eps):
    from matrixdp.feasible import project_psd  # noqa: F401  (the benchmark's import)
    from matrixdp.models import DPCovariance
    from matrixdp.models import _moments
    from matrixdp.models.covariance import project_feasible
    from matrixdp.models.experimental import CovarianceOptions

    lo, hi, X = t.lo, t.hi, t.X
    base = dict(epsilon=eps, delta=uc.DELTA, bounds=(lo, hi))
    if row in ("default", "candidate"):
        opts = CovarianceOptions(adaptive_moments_triangle=row == "candidate")  # default: pinned
        return lambda s: DPCovariance(**base, random_state=s, experimental=opts).fit(X)
    if row in ("auto", "mvg", "iid"):
        noise = row
        return lambda s: DPCovariance(**base, method="moments", noise=noise,
                                      random_state=s).fit(X)
    if row == "iid_triangle":
        def fit(s):
            _moments.IID_TRIANGLE = True
            try:
                return DPCovariance(**base, method="moments", noise="iid", random_state=s).fit(X)
            finally:
                _moments.IID_TRIANGLE = False
        return fit
    if row in ("ag", "ag_feasible"):
        def fit(s):
            C = uc.analyze_gauss_covariance(X, lo, hi, eps, uc.DELTA, np.random.default_rng(s))[0]
            C = uc.psd_part(C) if row == "ag" else project_feasible(C, lo, hi, "covariance")
            return type("Fit", (), {"covariance_": C})()
        return fit
    raise ValueError(row)


def run(trials: int):
    done = set()
    if TRIALS_CSV.exists():
        with open(TRIALS_CSV, newline="") as fh:
            done = {(r["dataset"], float(r["epsilon"]), r["row"], int(r["trial"]))
                    for r in csv.DictReader(fh)}
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(trials)]
    new = not TRIALS_CSV.exists()
    tables = {}
    with open(TRIALS_CSV, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for ds, eps in PART_B:
            t = tables.setdefault(ds, uc.load_table(ds))
            C = np.cov(t.X.T, bias=True)
            cn = np.linalg.norm(C)
            out = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for row in ROWS:
                    fit = fitter(row, t, eps)
                    for i, s in enumerate(seeds):
                        if (ds, eps, row, i) in done:
                            continue
                        est = fit(s)
                        out.append(dict(dataset=ds, epsilon=eps, row=row, trial=i, seed=s,
                                        error=repr(float(np.linalg.norm(est.covariance_ - C) / cn)),
                                        choice=getattr(est, "adaptive_choice_", ""),
                                        allocation=getattr(est, "allocation_", "")))
            w.writerows(out)
            fh.flush()
            print(f"{ds} eps={eps:g} done", flush=True)


def part_b():
    import pandas as pd

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _paired_gate as pg

    d = pd.read_csv(TRIALS_CSV)
    out = []
    for (ds, e), x in d.groupby(["dataset", "epsilon"], sort=False):
        piv = x.pivot(index="trial", columns="row", values="error")
        med = piv.median()
        cand = x[x.row == "candidate"].set_index("trial")
        dflt = x[x.row == "default"].set_index("trial")
        v = pg.cell_verdict(piv["candidate"].to_numpy(), piv["default"].to_numpy())
        out.append(dict(dataset=ds, epsilon=e, trials=len(piv), **{r: float(med[r]) for r in ROWS},
                        steps=int((dflt.choice == "coinpress").sum()),
                        tri=int(cand.allocation.str.endswith("triangle").sum()),
                        hl=v["pseudo_median_ratio"], p=v["p"]))
    return out


def part_c(eps=1.0):
    """The public entry variances (no data) of the releases on movement_aal's box at ``eps``:
    Analyze Gauss (plain triangle x = 1, its ``t``), our full i.i.d. draw, the weighted triangle
    of ``auto``'s plan (what the candidate draws), and ``auto``'s plan; per release the variance of
    a diagonal entry ``G_ii``, an off-diagonal ``G_ij`` and the mean ``G_ik/t`` (``t`` its
    constant), and ``t``."""
    from matrixdp.models._moments import augmented_task, dominating_triangle_of, \
        plan_second_moment

    tb = uc.load_table("movement_aal")
    lo, hi, n = tb.lo, tb.hi, tb.X.shape[0]
    h = 0.5 * (hi - lo)
    t_ag = float(np.sqrt(np.mean(h * h)))
    s_ag = uc.analyze_gauss_sigma(h, t_ag, n, eps, uc.DELTA)
    rows = [("Analyze Gauss (x = 1)", s_ag ** 2, s_ag ** 2, s_ag ** 2 / t_ag ** 2, t_ag)]
    task, _, t = augmented_task(lo, hi, n, "covariance")
    k = lo.size
    auto = plan_second_moment(task, epsilon=eps, delta=uc.DELTA)[0]
    iid = plan_second_moment(task, epsilon=eps, delta=uc.DELTA, noise="iid")[0]
    tri = dominating_triangle_of(task, eps, uc.DELTA, auto)
    for name, p in ((f"ours, iid full draw", iid), (f"ours, auto ({auto.allocation})", auto),
                    (f"candidate's draw ({tri.allocation})" if tri is not None else "none", tri)):
        if p is None:
            continue
        V = p.entry_variance
        rows.append((name, float(V[0, 0]), float(V[0, 1]), float(V[0, k]) / t ** 2, t))
    return rows


def g(v):
    return f"{v:.3g}"


def render(trials: int):
    a = part_a()
    b = part_b()
    L = ["# Task CV (session 24): the covariance default's cells > 1.2× the best, attributed", "",
         "Generated by `experiments/cov_cells_diagnosis.py` (diagnosis only; decides nothing). "
         "Relative Frobenius error ‖Ĉ − C‖_F/‖C‖_F, C the `1/n` covariance of the clipped records; "
         "δ = 1e-6, replace-one, the benchmark's public bounds.", "",
         "## Part A: the 35 cells at 100 paired trials (committed rows, no new fit)", "",
         "From `results/covariance_default_power_trials.csv` (task CP: `auto`, `mvg`, `coinpress`, "
         "the adaptive release with its last release forced to each branch on the same seed, the "
         "mean ranking's predictions) and `results/covariance_choice_gate_trials.csv` (today's "
         "default, the median ranking, same seeds). `best` = the lowest 100-trial median among "
         "auto, mvg, coinpress. `√pred` = root of the median predicted expected squared error "
         "(mean ranking), `rms` = the forced branch's realised root mean square before the "
         "projection (the predictions' unit). choice part = default / the better forced branch "
         "(medians), branch part = the better forced branch / best; cause: SAMPLING = the default "
         "is within 1.20× of the best at 100 trials, else the larger part.", "",
         "| table | ε | default | best row | best | default/best | steps /100 | forced moments | "
         "forced step | √pred mom / rms | √pred step / rms | moments var / auto var | choice part | "
         "branch part | cause |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in a:
        L.append(f"| {r['dataset']} | {r['epsilon']:g} | {g(r['default'])} | {r['best_row']} | "
                 f"{g(r['best'])} | {r['ratio']:.2f} | {r['steps']} | {g(r['forced_moments'])} | "
                 f"{g(r['forced_step'])} | {g(r['pred_moments'])} / {g(r['rms_moments'])} | "
                 f"{g(r['pred_step'])} / {g(r['rms_step'])} | {r['var_ratio']:.3f} | "
                 f"{r['choice_part']:.2f} | {r['branch_part']:.2f} | {r['cause']} |")
    L += ["", "## Part B: Analyze Gauss's advantage, and the candidate, on the flagged cells", "",
          f"New fits, seeds `SeedSequence({SEED}).generate_state({trials})` (the first 15 are the "
          "benchmark's); every row of a trial on that trial's seed. Medians. `steps`: fits where "
          "the default took the whitened step; `tri`: fits where the candidate drew its last "
          "release as the dominating triangle; HL, p: the paired gate of candidate vs default "
          "(pseudo-median ratio; one-sided p against 1.10).", "",
          "| table | ε | trials | default | candidate | auto | mvg | iid | iid_triangle | ag | "
          "ag_feasible | steps | tri | cand/default (medians) | HL | p (>1.10) |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in b:
        L.append(f"| {r['dataset']} | {r['epsilon']:g} | {r['trials']} | "
                 + " | ".join(g(r[k]) for k in ROWS)
                 + f" | {r['steps']} | {r['tri']} | {r['candidate'] / r['default']:.3f} | "
                 f"{r['hl']:.3f} | {r['p']:.2g} |")
    L += ["", "## Part C: the public noise of each release on movement_aal's box (ε = 1, no data)",
          "", "Entry variances from the plans (public: box, n, (ε, δ)); `t` is the release's "
          "constant coordinate (AG: the rms half-width; ours: `balanced_constant`).", "",
          "| release | var G_ii | var G_ij | var of the mean (G_ik/t) | t |", "|---|---|---|---|---|"]
    for name, a_, b_, c_, t_ in part_c():
        L.append(f"| {name} | {a_:.3g} | {b_:.3g} | {c_:.3g} | {t_:.4g} |")
    OUT_MD.write_text("\n".join(L) + "\n")
    print(f"wrote {OUT_MD}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=50)
    p.add_argument("--render-only", action="store_true")
    args = p.parse_args(argv)
    if not args.render_only:
        run(args.trials)
    render(args.trials)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
