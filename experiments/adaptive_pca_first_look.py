"""Diagnostic (issue #24, round 3c): where the first look's cost in DPPCA(method="adaptive") comes from when the moments branch is chosen.

Not a rule check: a design diagnostic on every table seen so far (the seven benchmark tables,
diabetes, digits, anes96, randhie; the round-3c check tables star98 and elnino are NOT run here).

Two parts, same public bounds, δ = 1e-6, replace-one with public n as ``adaptive_pca.py``:

1. **Public expected loss** (no data, no noise: plans only). The PCA task's expected loss
   ``Σ W∘V`` (``augmented_task(kind="pca")``'s loss matrix ``W``, entry variances ``V``) of
   * ``auto``: one release, PCA allocation, at ``μ*``;
   * ``combined``: the moments branch as it is, the first release allocated for the covariance
     (original units) at ``μ₁² = 0.25 μ*²`` and the second for the PCA task at
     ``μ₂² = 0.72 μ*²`` (``0.75 μ*²`` when no statistic is released), combined entry by entry
     with inverse-variance weights;
   * ``pca first``: both releases allocated for the PCA task (``first_kind="pca"``), i.e. one PCA
     release at ``0.97 μ*²``;
   * ``combined, best candidate``: the first release as it is, the second's allocation the best
     of the library's candidates for the loss of the combination;
   * ``combined, optimised shares``: the second's MVG precision shares optimised for the loss of
     the combination (:func:`optimised_combination`);
   * ``first alone``: the first release's own loss in the PCA units;
   * ``half-way first`` (not in the library): the first release's MVG shares the geometric mean
     of the covariance and PCA plans' implied shares; its combination's PCA loss, and its own
     covariance loss (original units) over the covariance-allocated first look's.
   Ratios to ``auto`` say what each part costs in the task's own loss (for small noise the
   captured-variance deficit is linear in the noise variances, so this is the first-order cost).
2. **Measured deficits** (``--trials`` seeds per cell from ``--seed``; the committed run uses a
   seed other than ``adaptive_pca.py``'s, 777, to see whether its 50-trial ratios repeat):
   ``auto``; ``adaptive`` (library default options); ``adaptive, moments forced``
   (``branch="moments"``); ``adaptive, moments forced, pca first``; ``auto at 0.97μ*²`` (one
   PCA release without the statistic's share); ``auto at 0.75μ*²`` (the second release alone,
   no combination).

Output: ``results/adaptive_pca_first_look{--tag}.{md,csv}``.

Disclosure (scratch work in ``/tmp`` before the committed runs, not committed, numbers not quoted
anywhere): a 10-trial run of adult and anes96 k = 5; a Monte Carlo check (400 draws, adult
ε = 5) that the two plans' stated entry variances are the releases' (within sampling error); a
simulation (adult k = 5 ε = 5, 300 draws) of the combination against the second release alone;
a first 200-trial run at seed 777 of the cells of ``_200_seed777`` (committed later with the
same seeds: same numbers); an ``adaptive_covariance`` variant whose second release was chosen by
the PCA-loss prediction of the combination, or by the optimised shares below (one seed each on
adult, digits, anes96; both discarded, the library was not changed).
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import adaptive_pca as ap  # noqa: E402

NAME = "adaptive_pca_first_look"
TABLES = ("synthetic", "liver", "wdbc", "ctg", "adult", "lending_club", "movement_aal",
          "diabetes", "digits", "anes96", "randhie")
AUTO, ADA, FORCED, FORCED_PCA, AUTO97, AUTO75 = (
    "auto", "adaptive", "adaptive, moments forced", "adaptive, moments forced, pca first",
    "auto at 0.97mu^2", "auto at 0.75mu^2")
EXTRA = {}  # more methods registered by later variants (name -> adaptive options)
METHODS = [AUTO, ADA, FORCED, FORCED_PCA, AUTO97, AUTO75]


def public_losses(t, eps, k):
    """The PCA task's expected loss of each allocation (module docstring, part 1)."""
    from matrixdp.calibration.gaussian import gaussian_epsilon, max_gaussian_shift
    from matrixdp.models._moments import augmented_task, plan_second_moment

    n = t.X.shape[0]
    live = t.hi > t.lo
    lo, hi = t.lo[live], t.hi[live]
    task, _, _ = augmented_task(lo, hi, n, "pca", n_components=k)
    task_c, _, _ = augmented_task(lo, hi, n, "covariance", n_components=k)
    W = task.loss_matrix
    mu = max_gaussian_shift(eps, uc.DELTA)

    def plan(tk, share, **kw):
        return plan_second_moment(tk, epsilon=gaussian_epsilon(uc.DELTA, 1.0, math.sqrt(share)
                                                               * mu), delta=uc.DELTA,
                                  noise="auto", **kw)

    def loss(V):
        return float(np.sum(W * V))

    V_auto = plan(task, 1.0)[0].entry_variance
    V1 = plan(task_c, 0.25)[0].entry_variance
    out = {"auto": loss(V_auto)}
    for share, label in ((0.72, "combined"), (0.75, "combined, no statistic")):
        V2 = plan(task, share)[0].entry_variance
        out[label] = loss(1.0 / (1.0 / V1 + 1.0 / V2))
        best = math.inf
        for alloc in ("iid", "task-weighted", "mse-optimal", "unit-box", "iid-unit-box"):
            V2a = plan(task, share, allocation=alloc)[0].entry_variance
            best = min(best, loss(1.0 / (1.0 / V1 + 1.0 / V2a)))
        out[label + ", best candidate"] = best
        out[label + ", optimised shares"] = optimised_combination(task, V1, plan(task, share)[0],
                                                                 loss)
    out["pca first"] = loss(plan(task, 0.97)[0].entry_variance)
    # a first look allocated half-way (not in the library): MVG precision shares the geometric
    # mean of the two plans' implied shares θ_i ∝ h_i²/v_i (v_i = √V_ii)
    from matrixdp.models._moments import _plan_mvg

    h = task.reach

    def implied(V):
        th = h * h / np.sqrt(np.diagonal(V))
        return th / th.sum()

    p1c = plan(task_c, 0.25)[0]
    th_half = np.sqrt(implied(p1c.entry_variance) * implied(V_auto))
    eps1 = gaussian_epsilon(uc.DELTA, 1.0, 0.5 * mu)
    V1h = _plan_mvg(task_c, eps1, uc.DELTA, task_c.query(), th_half / th_half.sum(),
                    "half").entry_variance
    out["half-way first, combined"] = loss(1.0 / (1.0 / V1h + 1.0 / plan(task, 0.72)[0]
                                                  .entry_variance))
    Wc = task_c.loss_matrix
    out["half-way first alone, covariance loss ratio"] = float(np.sum(Wc * V1h)) / float(
        np.sum(Wc * p1c.entry_variance))
    out["first release alone"] = loss(V1)
    out["first allocation"] = plan(task_c, 0.25)[0].allocation
    out["pca allocation"] = plan(task, 1.0)[0].allocation
    return out


def optimised_combination(task, V1, base, loss):
    """The least loss of the inverse-variance combination over the second release's MVG
    precision shares θ (equi-modal: ``v_i = h_i²/(θ_i B)``, ``B`` read off ``base``'s plan;
    L-BFGS on ``θ = softmax(z)`` from the task's closed-form shares, exact gradient), evaluated
    on the mechanism's own variances. Public: no data."""
    from scipy.optimize import minimize

    from matrixdp.models._moments import _plan_mvg, task_shares

    W = task.loss_matrix
    P1 = 1.0 / V1
    h = task.reach
    th0 = task_shares(task)
    eps2 = base.mechanism.epsilon
    ref = _plan_mvg(task, eps2, uc.DELTA, task.query(), th0, "x")
    B = float(np.mean(h * h / (th0 * np.sqrt(np.diagonal(ref.entry_variance)))))
    c = np.full((h.size, h.size), 2.0)
    np.fill_diagonal(c, 1.0)
    A = c * B * B / np.outer(h * h, h * h)
    L0 = loss(1.0 / (P1 + 1.0 / base.entry_variance))

    def fg(z):
        th = np.exp(z - z.max())
        th /= th.sum()
        D = P1 + A * np.outer(th, th)
        G = -(W / (D * D)) * A / L0
        g = 2.0 * (G @ th)
        return float(np.sum(W / D)) / L0, th * (g - float(th @ g))

    r = minimize(fg, np.log(th0), jac=True, method="L-BFGS-B", options={"maxiter": 200})
    th = np.exp(r.x - r.x.max())
    th = np.maximum(th / th.sum(), 1e-9)
    p = _plan_mvg(task, eps2, uc.DELTA, task.query(), th / th.sum(), "x")
    return min(L0, loss(1.0 / (P1 + 1.0 / p.entry_variance)))


def fitter(method, t, eps, k):
    from matrixdp.calibration.gaussian import gaussian_epsilon, max_gaussian_shift

    mu = max_gaussian_shift(eps, uc.DELTA)
    e = {AUTO97: gaussian_epsilon(uc.DELTA, 1.0, math.sqrt(0.97) * mu),
         AUTO75: gaussian_epsilon(uc.DELTA, 1.0, math.sqrt(0.75) * mu)}.get(method, eps)
    opts = {FORCED: {"branch": "moments"},
            FORCED_PCA: {"branch": "moments", "first_kind": "pca"}, **EXTRA}.get(method)
    kw = {"method": "moments"} if method in (AUTO, AUTO97, AUTO75) else {"method": "adaptive"}
    return ap.dppca_fitter(t, e, k, kw, opts)


def run(args):
    rows, pub = [], []
    for ds, t, C, k, best in ap.pca_tasks(args.datasets, args.ks,
                                          lambda ds: ap.load(ds, args.data_home)):
        for eps in args.epsilons:
            p = public_losses(t, eps, k)
            pub.append({"dataset": ds, "k": k, "epsilon": eps, **p})
            for m in args.methods:
                fit = fitter(m, t, eps, k)
                choices = []

                score = uc.deficit_scorer(fit, C, best, choices)
                values, _ = uc.run_cell(score, args.trials, args.seed, None)
                cp = [c for c in choices if c is not None]
                rows.append({"dataset": ds, "k": k, "epsilon": eps, "method": m,
                             "median": float(np.median(values)),
                             "mean": float(np.mean(values)), "trials": len(values),
                             "coinpress_chosen": sum(c == "coinpress" for c in cp)
                             if cp else ""})
            print(f"  {ds} k={k} eps={eps:g} done", flush=True)
    return rows, pub


def write(rows, pub, args):
    out = Path(args.out)
    name = NAME + args.tag
    uc.write_rows(out / f"{name}.csv", rows)
    cmd = shlex.join(sys.argv[1:]) if argv_ok() else f"--trials {args.trials}"
    lines = ["# Where the first look's cost comes from: DPPCA(method='adaptive'), moments branch",
             "", f"Generated by `experiments/{NAME}.py {cmd}` (seed {args.seed}, "
             "`adaptive_pca.py` uses 20261124). A design diagnostic on tables already seen "
             "(every table of `adaptive_pca.py`; not the round-3c check tables). δ = 1e-6, "
             "replace-one, public bounds as `adaptive_pca.py`.", "",
             "## 1. Public expected loss of the PCA task (ratio to auto at μ*)", "",
             "No data: `Σ W∘V` of the allocations (script docstring). `combined`: the moments "
             "branch as it is (first release allocated for the covariance at 0.25μ*², second "
             "for PCA at 0.72μ*², inverse-variance combination); `best cand.`: the second's "
             "allocation the best of the library's candidates for the combination; `optimised shares`: the second's MVG precision shares optimised for the combination's loss; `pca first`: "
             "both for PCA (0.97μ*²; 1/0.97 = 1.031); `first alone`: the first release's "
             "loss in the PCA units; `half-way first` (not in the library; a possible next step): the "
             "first release's MVG precision shares the geometric mean of the covariance plan's "
             "and the PCA plan's (implied shares `θ_i ∝ h_i²/√V_ii`): the PCA loss of its "
             "combination with the second release (ratio to auto), and its own covariance loss "
             "(original units, what the whitening uses) over the covariance-allocated first "
             "look's.", "",
             "| dataset | k | ε | first alloc. | pca alloc. | combined | combined, best cand. | "
             "combined, optimised shares | combined, no stat. | pca first | first alone | "
             "half-way first: combined | half-way first: its covariance loss |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in pub:
        a = p["auto"]
        lines.append(f"| {p['dataset']} | {p['k']} | {p['epsilon']:g} | {p['first allocation']} "
                     f"| {p['pca allocation']} | {p['combined'] / a:.3g} | "
                     f"{p['combined, best candidate'] / a:.3g} | "
                     f"{p['combined, optimised shares'] / a:.3g} | "
                     f"{p['combined, no statistic'] / a:.3g} | {p['pca first'] / a:.3g} | "
                     f"{p['first release alone'] / a:.3g} | "
                     f"{p['half-way first, combined'] / a:.3g} | "
                     f"{p['half-way first alone, covariance loss ratio']:.3g} |")
    methods = [m for m in METHODS if any(r["method"] == m for r in rows)]
    lines += ["", f"## 2. Measured deficits ({args.trials} trials), ratio of medians to auto", "",
              "`chosen`: fits of `adaptive` that took the whitened step.", "",
              "| dataset | k | ε | auto (median deficit) | " + " | ".join(methods[1:])
              + " | chosen |", "|---|---|---|---|" + "---|" * len(methods)]
    by = {}
    for r in rows:
        by.setdefault((r["dataset"], r["k"], r["epsilon"]), {})[r["method"]] = r
    for (ds, k, eps), mm in by.items():
        a = mm[AUTO]["median"]
        cells = [f"{mm[m]['median'] / a:.3g}" if m in mm and a > 0 else "" for m in methods[1:]]
        lines.append(f"| {ds} | {k} | {eps:g} | {uc.fmt(a)} | " + " | ".join(cells)
                     + f" | {mm.get(ADA, {}).get('coinpress_chosen', '')} |")
    (out / f"{name}.md").write_text("\n".join(lines) + "\n")


def argv_ok():
    return Path(sys.argv[0]).name == f"{NAME}.py"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 5.0])
    p.add_argument("--datasets", nargs="+", default=list(TABLES), choices=list(TABLES))
    p.add_argument("--methods", nargs="+", default=list(METHODS))
    p.add_argument("--ks", type=int, nargs="+", default=[2, 5])
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=20261124)
    p.add_argument("--data-home", type=Path, default=None)
    p.add_argument("--tag", default="", help="suffix of the output files' names")
    args = p.parse_args(argv)
    rows, pub = run(args)
    write(rows, pub, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
