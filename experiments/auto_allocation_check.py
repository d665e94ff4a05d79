"""Does ``noise="auto"`` pick the allocation that measures best? Every candidate, forced, side by side.

For each task the estimators of ``matrixdp.models`` serve (covariance, correlation, PCA k = 2 and
k = 5, linear regression), each benchmark table of ``experiments/_utility_common.py`` (plus the
regression script's held-out synthetic table) and a few ε, every candidate allocation that
``noise="auto"`` compares is *forced* (``_moments.plan_second_moment(allocation=...)``) and
measured over the same seeded trials, with the estimator's default post-processing. The table gives
the model's predicted expected loss of each candidate relative to the least (what ``auto``
ranks by, public), the measured median error relative to the best candidate, ``auto``'s pick and
its measured regret (its median over the best candidate's median).

For the covariance task it also gives the first-order expected loss with the table's *true* mean
in place of the model's public prior ``E m_i² = h_i²/3`` (the mean uniform in its box): this is
a diagnosis of the model, never an input of ``auto`` (the mean is private).

Metrics as in the utility scripts: relative Frobenius error (covariance, original units;
correlation), captured-variance deficit of the top-k subspace (PCA), test RMSE on the fixed 70/30
split (regression). Tables chosen on (tuning): synthetic, liver, wdbc, ctg; held out: adult,
lending_club, movement_aal (and holdout_synthetic for regression).
Output: ``results/auto_allocation_check.{md,csv}``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import utility_regression as ur  # noqa: E402  (adds the held-out regression table to uc)

TUNING = ("synthetic", "liver", "wdbc", "ctg")
COV_CANDIDATES = ("iid", "task-weighted", "mse-optimal", "unit-box")
NAME = "auto_allocation_check"


def forced(alloc):
    """Context: every second-moment release of matrixdp.models uses ``alloc``."""
    import contextlib

    import matrixdp.models._moments as moments

    @contextlib.contextmanager
    def ctx():
        plan = moments.plan_second_moment
        moments.plan_second_moment = lambda task, **kw: plan(
            task, epsilon=kw["epsilon"], delta=kw["delta"],
            allocation=None if alloc == "auto" else alloc)
        try:
            yield
        finally:
            moments.plan_second_moment = plan
    return ctx()


RECIPE = "recipe: unit box"


def recipe_scorer(task: str, t: uc.Table, eps: float):
    """``seed -> error`` of the benchmark's "iid, unit box" row: the records (and the target)
    rescaled to [0, 1] by their public bounds, ``noise="iid"`` there (the same noise as the
    candidate "unit-box"/"iid-unit-box"), every post-processing step in those units, the result
    mapped back (``experiments/utility_*.py``)."""
    from matrixdp.models import DPCovariance, DPLinearRegression

    w = t.hi - t.lo
    if task == "regression":
        Xtr, ytr, Xte, yte = ur.split(t)
        wy = t.y_hi - t.y_lo

        def score(s):
            p = t.y_lo + wy * DPLinearRegression(
                epsilon=eps, delta=uc.DELTA, bounds_X=(0.0, 1.0), bounds_y=(0.0, 1.0), noise="iid",
                random_state=s).fit((Xtr - t.lo) / w, (ytr - t.y_lo) / wy).predict((Xte - t.lo) / w)
            p = np.clip(p, t.y_lo, t.y_hi)
            return float(np.sqrt(np.mean((p - yte) ** 2)))
        return score
    Xu = (t.X - t.lo) / w
    C = np.cov(t.X.T, bias=True)

    def cov(s):
        return w[:, None] * DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(0.0, 1.0),
                                         noise="iid", random_state=s).fit(Xu).covariance_ * w
    if task == "covariance":
        return lambda s: float(np.linalg.norm(cov(s) - C) / np.linalg.norm(C))
    if task == "correlation":
        from matrixdp.models.covariance import correlation_from_covariance

        R = correlation_from_covariance(C)
        return lambda s: float(np.linalg.norm(correlation_from_covariance(cov(s)) - R)
                               / np.linalg.norm(R))
    k = int(task.split("=")[1])
    top = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())

    def score(s):
        lam, vec = np.linalg.eigh(cov(s))
        q = vec[:, ::-1][:, :k]
        return 1.0 - float(np.trace(q.T @ C @ q)) / top
    return score


def task_scorer(task: str, t: uc.Table, eps: float):
    """``(seed -> error, seed -> fitted estimator with noise='auto', candidate names)``."""
    from matrixdp.models import DPCovariance, DPLinearRegression, DPPCA

    X, lo, hi = t.X, t.lo, t.hi
    if task in ("covariance", "correlation"):
        C = np.cov(X.T, bias=True)
        if task == "covariance":
            ref = C
        else:
            sd = np.sqrt(np.diag(C))
            ref = C / np.outer(sd, sd)
        def fit(s):
            return DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(lo, hi), kind=task,
                                random_state=s).fit(X)
        norm = np.linalg.norm(ref)
        return (lambda s: float(np.linalg.norm(fit(s).covariance_ - ref) / norm)), fit, \
            COV_CANDIDATES
    if task.startswith("pca"):
        k = int(task.split("=")[1])
        C = np.cov(X.T, bias=True)
        top = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())

        def fit(s):
            return DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(lo, hi),
                         method="moments", random_state=s).fit(X)

        def score(s):
            q, _ = np.linalg.qr(fit(s).components_.T)
            return 1.0 - float(np.trace(q.T @ C @ q)) / top
        return score, fit, COV_CANDIDATES
    if task == "regression":
        from matrixdp.models.joint_release import REGRESSION_CANDIDATES

        Xtr, ytr, Xte, yte = ur.split(t)

        def fit(s):
            return DPLinearRegression(epsilon=eps, delta=uc.DELTA, bounds_X=(lo, hi),
                                      bounds_y=(t.y_lo, t.y_hi), random_state=s).fit(Xtr, ytr)

        def score(s):
            p = np.clip(fit(s).predict(Xte), t.y_lo, t.y_hi)
            return float(np.sqrt(np.mean((p - yte) ** 2)))
        return score, fit, REGRESSION_CANDIDATES
    raise ValueError(task)


def true_mean_losses(t: uc.Table, eps: float) -> dict:
    """First-order expected Frobenius loss of the covariance for each candidate, with the table's
    true mean offset ``m`` from the box centre (a diagnosis; the model uses ``E m² = h²/3``):
    ``Σ_{i,j<d} V_ij + 2‖m‖² Σ_i v_i + 2 Σ_i m_i² v_i`` with ``v_i = V_{i,t}/t²`` the variance of
    the released mean."""
    from matrixdp.models._moments import augmented_task, plan_second_moment

    task, c, tt = augmented_task(t.lo, t.hi, t.n, "covariance")
    d = t.d
    m = t.X.mean(axis=0) - c
    out = {}
    for alloc in COV_CANDIDATES:
        plan, _ = plan_second_moment(task, epsilon=eps, delta=uc.DELTA, allocation=alloc)
        V = plan.entry_variance
        vm = V[:d, d] / tt ** 2
        out[alloc] = float(V[:d, :d].sum() + 2 * np.sum(vm) * (m @ m) + 2 * np.sum(m * m * vm))
    return out


def run(args) -> list[dict]:
    rows = []
    seeds = [int(s) for s in np.random.SeedSequence(args.seed).generate_state(args.trials)]
    for task in args.tasks:
        eps_list = args.reg_epsilons if task == "regression" else args.epsilons
        datasets = list(uc.DATASETS) if task == "regression" else \
            [d for d in uc.DATASETS if d != ur.HOLDOUT]
        for ds in datasets:
            t = uc.load_table(ds, args.data_home)
            if task.startswith("pca") and int(task.split("=")[1]) >= t.d:
                continue
            for eps in eps_list:
                score, fit, cands = task_scorer(task, t, eps)
                auto = fit(seeds[0])
                predicted = dict(auto.noise_candidates_)
                truth = true_mean_losses(t, eps) if task == "covariance" else {}
                t0 = time.perf_counter()
                measured = {}
                for alloc in cands:
                    with forced(alloc):
                        measured[alloc] = [score(s) for s in seeds]
                recipe = recipe_scorer(task, t, eps)
                measured[RECIPE] = [recipe(s) for s in seeds]
                for alloc in list(cands) + [RECIPE]:
                    rows.append({"task": task, "dataset": ds, "epsilon": eps, "candidate": alloc,
                                 "held_out": ds not in TUNING,
                                 "predicted_loss": predicted.get(alloc, float("nan")),
                                 "true_mean_loss": truth.get(alloc, float("nan")),
                                 "median": float(np.median(measured[alloc])),
                                 "auto_pick": auto.allocation_,
                                 "values": " ".join(repr(v) for v in measured[alloc])})
                print(f"  {task} {ds} ε = {eps:g} ({time.perf_counter() - t0:.1f} s)", flush=True)
    return rows


FIELDS = ["task", "dataset", "epsilon", "candidate", "held_out", "predicted_loss",
          "true_mean_loss", "median", "auto_pick", "values"]


def write(rows, args) -> Path:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    uc.write_rows(out / f"{NAME}.csv", rows, FIELDS)
    lines = [f"# Does `noise=\"auto\"` pick the allocation that measures best?", "",
             f"Generated by `experiments/{NAME}.py` ({args.trials} seeded trials per candidate, "
             f"seed {args.seed}, δ = {uc.DELTA:g}, the estimators' default post-processing; "
             "every candidate forced through `plan_second_moment(allocation=...)`, the same seeds "
             "for every candidate). *pred.*: the model's expected loss over the least (what auto "
             "ranks by; public). *meas.*: the measured median error over the best candidate's. "
             "*regret*: auto's pick's measured median over the best candidate's. Tuning tables: "
             f"{', '.join(TUNING)}; the others are held out.", ""]
    for task in dict.fromkeys(r["task"] for r in rows):
        sel = [r for r in rows if r["task"] == task]
        cands = [c for c in dict.fromkeys(r["candidate"] for r in sel) if c != RECIPE]
        lines += [f"## {task}", "",
                  "| dataset | ε | " + " | ".join(f"{c}: pred. / meas." for c in cands)
                  + " | auto's pick | regret | recipe: unit box, meas. |"
                  + (" true-mean pick |" if task == "covariance" else ""),
                  "|---|---|" + "---|" * (len(cands) + 3 + (task == "covariance"))]
        regrets, recipes = [], []
        for ds in dict.fromkeys(r["dataset"] for r in sel):
            for e in sorted({r["epsilon"] for r in sel if r["dataset"] == ds}):
                cell = {r["candidate"]: r for r in sel if r["dataset"] == ds and r["epsilon"] == e}
                rec = cell.pop(RECIPE, None)
                pmin = min(r["predicted_loss"] for r in cell.values())
                mmin = min(r["median"] for r in cell.values())
                pick = next(iter(cell.values()))["auto_pick"]
                regret = cell[pick]["median"] / mmin if pick in cell and mmin > 0 else float("nan")
                regrets.append((ds, e, regret, ds not in TUNING))
                parts = [f"{cell[c]['predicted_loss'] / pmin:.3g} / {cell[c]['median'] / mmin:.3g}"
                         if mmin > 0 else "—" for c in cands]
                tail = ""
                if task == "covariance":
                    tm = {c: cell[c]["true_mean_loss"] for c in cands}
                    tail = f" {min(tm, key=tm.get)} |"
                name = ds + ("" if ds in TUNING else " (held out)")
                rtext = "—" if rec is None or mmin <= 0 else f"{rec['median'] / mmin:.3g}"
                recipes.append(rec["median"] / mmin if rec is not None and mmin > 0 else np.nan)
                lines.append(f"| {name} | {e:g} | " + " | ".join(parts) + f" | {pick} | {regret:.3g} | "
                             f"{rtext} |" + tail)
        r = np.array([x[2] for x in regrets])
        worst = max(regrets, key=lambda x: x[2])
        lines += ["", f"auto's measured regret over {r.size} cells: median {np.median(r):.3g}, "
                      f"max {worst[2]:.3g} ({worst[0]} ε = {worst[1]:g}); at most 1.02 in "
                      f"{int(np.sum(r <= 1.02))} of {r.size}. The unit-box recipe (same noise as "
                      f"the candidate \"unit-box\", post-processing in unit-box units) over the "
                      f"best candidate: median {np.nanmedian(recipes):.3g}, min "
                      f"{np.nanmin(recipes):.3g}, max {np.nanmax(recipes):.3g}.", ""]
    path = out / f"{NAME}.md"
    path.write_text("\n".join(lines))
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", nargs="+",
                   default=["covariance", "correlation", "pca k=2", "pca k=5", "regression"])
    p.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 1.0, 5.0])
    p.add_argument("--reg-epsilons", type=float, nargs="+", default=[1.0, 10.0])
    p.add_argument("--trials", type=int, default=15)
    p.add_argument("--seed", type=int, default=20261124)
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    p.add_argument("--data-home", type=Path, default=None)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    rows = run(args)
    print(f"wrote {write(rows, args)} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
