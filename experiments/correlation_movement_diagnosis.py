"""Why does ``DPCovariance(kind="correlation")`` lose to CoinPress on movement_aal (task CR, issue 24)?

Side by side on the same trial seeds (``SeedSequence(20261124).generate_state(TRIALS)``, the first
trials of ``correlation_default_check.py`` and of the utility benchmark), the 14 tables of
``results/correlation_default_check.md`` (all seen), ε ∈ {0.1, 0.5, 1, 2, 5}, δ = 1e-6,
replace-one, the same public bounds:

* ``default``: ``DPCovariance(kind="correlation")`` (moments release, ``shrinkage="projected"``);
* ``moments none``: ``DPCovariance(kind="correlation", shrinkage="none")`` (same release);
* ``cov default``: the correlation implied by ``DPCovariance()`` (the covariance default,
  ``method="adaptive"`` with the covariance task);
* ``adaptive corr``: ``DPCovariance(kind="correlation", method="adaptive")`` (adaptive with the
  PCA/unit-box task; ``shrinkage`` ``"none"`` is the only one allowed there);
* ``coinpress``: ``DPCovariance(kind="correlation", method="coinpress")`` (the benchmark's row);
* ``iid, unit box``: the correlation implied by i.i.d. noise on the records rescaled to [0, 1]
  (the benchmark's row).

Error split (``moments none``'s raw release before any projection, ``coinpress``'s and
``cov default``'s covariance): ``offdiag`` normalises the released covariance by the TRUE
variances (only the off-diagonal noise left), ``diag`` normalises the TRUE covariance by the
RELEASED variances (only the diagonal rescaling error left). Table facts (``sd/h``, mean
``|R_ij|``, ``λ1(R)/d``) are descriptive, computed from the records (diagnosis only, never a rule
input); ``λ̂1/d`` is the same statistic of the default's DP release (a DP fact).

Command::

    cd experiments && MATRIXDP_DATA=/work/shared/datasets PYTHONPATH=../src python correlation_movement_diagnosis.py

Output: ``results/correlation_movement_diagnosis.{md,csv}``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import correlation_default_check as cdc  # noqa: E402

NAME = "correlation_movement_diagnosis"
TRIALS = 30
SEED = 20261124
ROWS = ("default", "moments none", "cov default", "adaptive corr", "coinpress", "iid, unit box")
SPLIT = ("moments none", "cov default", "coinpress")


def corr_with(C, var):
    sd = np.sqrt(np.maximum(var, 0.0))
    safe = np.where(sd > 0, sd, 1.0)
    R = np.clip(C / np.outer(safe, safe), -1, 1)
    np.fill_diagonal(R, 1.0)
    return R


def trial(t, eps, s, C, R, rn):
    from matrixdp.models import DPCovariance
    from matrixdp.models._moments import augmented_task
    from matrixdp.models.covariance import covariance_from_release

    kw = dict(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), random_state=s)
    out, split, extra = {}, {}, {}
    est = DPCovariance(kind="correlation", method="moments",
                       **uc.experimental_keywords(DPCovariance, kw)).fit(t.X)
    out["default"] = est.covariance_
    lam = np.linalg.eigvalsh(est.covariance_)
    extra["lam1_dp"] = float(lam[-1] / t.d)
    nn = DPCovariance(kind="correlation", shrinkage="none",
                      **uc.experimental_keywords(DPCovariance, kw)).fit(t.X)
    out["moments none"] = nn.covariance_
    _, center, tt = augmented_task(t.lo, t.hi, t.n, "correlation")
    raw, _ = covariance_from_release(nn.moments_, center, tt, "correlation")
    split["moments none"] = raw
    cd = DPCovariance(project_psd=False, **uc.experimental_keywords(DPCovariance, kw)).fit(t.X)
    split["cov default"] = cd.covariance_
    extra["cov_choice"] = cd.adaptive_choice_
    out["cov default"] = cdc.correlation(DPCovariance(**uc.experimental_keywords(DPCovariance,
                                                                                 kw)).fit(t.X).covariance_)
    ad = DPCovariance(kind="correlation", method="adaptive",
                      **uc.experimental_keywords(DPCovariance, kw)).fit(t.X)
    out["adaptive corr"] = ad.covariance_
    extra["corr_choice"] = ad.adaptive_choice_
    out["coinpress"] = DPCovariance(kind="correlation", method="coinpress",
                                    **uc.experimental_keywords(DPCovariance,
                                                               kw)).fit(t.X).covariance_
    split["coinpress"] = DPCovariance(method="coinpress", project_psd=False,
                                      **uc.experimental_keywords(DPCovariance,
                                                                 kw)).fit(t.X).covariance_
    w = t.hi - t.lo
    Xu = (t.X - t.lo) / w
    iid = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(0.0, 1.0), noise="iid",
                       random_state=s).fit(Xu).covariance_
    out["iid, unit box"] = cdc.correlation(w[:, None] * iid * w)
    err = {k: float(np.linalg.norm(v - R) / rn) for k, v in out.items()}
    dv = np.diagonal(C)
    for k, Ch in split.items():
        err[k + " | offdiag"] = float(np.linalg.norm(corr_with(Ch, dv) - R) / rn)
        err[k + " | diag"] = float(np.linalg.norm(corr_with(C, np.diagonal(Ch)) - R) / rn)
    return err, extra


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", nargs="+", default=list(cdc.TABLES))
    p.add_argument("--epsilons", nargs="+", type=float, default=list(cdc.EPSILONS))
    p.add_argument("--trials", type=int, default=TRIALS)
    p.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "results"))
    args = p.parse_args(argv)
    seeds = np.random.SeedSequence(SEED).generate_state(args.trials)
    recs, facts = [], []
    for ds in args.datasets:
        t = cdc.load(ds)
        C = np.cov(t.X.T, bias=True)
        R = cdc.correlation(C)
        rn = float(np.linalg.norm(R))
        h = 0.5 * (t.hi - t.lo)
        sd = np.sqrt(np.diagonal(C))
        off = np.abs(R[~np.eye(t.d, dtype=bool)])
        facts.append({"dataset": ds, "n": t.n, "d": t.d,
                      "sd/h median": float(np.median(sd / h)), "sd/h min": float(np.min(sd / h)),
                      "mean |R_ij|": float(off.mean()),
                      "lam1(R)/d": float(np.linalg.eigvalsh(R)[-1] / t.d)})
        for eps in args.epsilons:
            errs, extras = [], []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for s in seeds:
                    e, x = trial(t, eps, int(s), C, R, rn)
                    errs.append(e)
                    extras.append(x)
            rec = {"dataset": ds, "epsilon": eps, "trials": len(errs)}
            for k in errs[0]:
                v = np.array([e[k] for e in errs])
                rec[k] = float(np.median(v))
                rec[k + " values"] = " ".join(repr(float(a)) for a in v)
            rec["lam1_dp/d median"] = float(np.median([x["lam1_dp"] for x in extras]))
            rec["cov default coinpress share"] = float(np.mean([x["cov_choice"] == "coinpress" for x in extras]))
            rec["adaptive corr coinpress share"] = float(np.mean([x["corr_choice"] == "coinpress" for x in extras]))
            recs.append(rec)
            print(f"  {ds} ε = {eps:g} done", flush=True)
    import pandas as pd

    out = Path(args.out)
    pd.DataFrame(recs).to_csv(out / f"{NAME}.csv", index=False)
    pd.DataFrame(facts).to_csv(out / f"{NAME}_facts.csv", index=False)
    write_md(recs, facts, out / f"{NAME}.md", args)


def f(x):
    return f"{x:.3g}"


def write_md(recs, facts, path, args):
    L = ["# Why the correlation default loses to CoinPress on movement_aal (task CR, issue 24): diagnosis", "",
         "Generated by `experiments/correlation_movement_diagnosis.py`; command: `cd experiments && "
         "MATRIXDP_DATA=/work/shared/datasets PYTHONPATH=../src python correlation_movement_diagnosis.py`. "
         f"δ = 1e-06; replace-one; {args.trials} trials per cell (seeds `SeedSequence({SEED})."
         f"generate_state({args.trials})`, the first trials of `correlation_default_check.py`); all rows "
         "of a trial use the trial's seed. Metric: relative Frobenius error of the correlation matrix "
         "(median over trials). Rows: see the script's docstring. All 14 tables are seen tables; this "
         "is a diagnosis, no rule is decided here.", "",
         "## Table facts (descriptive, from the records; never a rule input)", "",
         "| table | n | d | median sd/h | min sd/h | mean abs R_ij | λ1(R)/d |", "|---|---|---|---|---|---|---|"]
    for r in facts:
        L.append(f"| {r['dataset']} | {r['n']} | {r['d']} | {f(r['sd/h median'])} | {f(r['sd/h min'])} | "
                 f"{f(r['mean |R_ij|'])} | {f(r['lam1(R)/d'])} |")
    L += ["", "## Medians per cell", "",
          "| table | ε | " + " | ".join(ROWS) + " | best / default | λ̂1/d (DP) | cov default: coinpress share | adaptive corr: coinpress share |",
          "|" + "---|" * (len(ROWS) + 6)]
    for r in recs:
        best = min(r[k] for k in ROWS)
        L.append(f"| {r['dataset']} | {r['epsilon']:g} | " + " | ".join(f(r[k]) for k in ROWS)
                 + f" | {f(best / r['default'])} | {f(r['lam1_dp/d median'])} | "
                 f"{f(r['cov default coinpress share'])} | {f(r['adaptive corr coinpress share'])} |")
    L += ["", "## Error split (medians): only the off-diagonal noise vs only the diagonal rescaling", "",
          "| table | ε | " + " | ".join(f"{k}: all / offdiag / diag" for k in SPLIT) + " |",
          "|---|---|" + "---|" * len(SPLIT)]
    for r in recs:
        raw = {"moments none": r["moments none"], "cov default": r["cov default"], "coinpress": r["coinpress"]}
        L.append(f"| {r['dataset']} | {r['epsilon']:g} | " + " | ".join(
            f"{f(raw[k])} / {f(r[k + ' | offdiag'])} / {f(r[k + ' | diag'])}" for k in SPLIT) + " |")
    path.write_text("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
