"""Task PV (session 24, issue #24): does the ``project_psd_diagonal`` solver fix change any release?

The fix (``feasible._dual_newton``'s line search, ``docs/postprocessing.md`` § "Widely different
scales") keeps the objective: the Frobenius-nearest PSD matrix with its diagonal in the public box.
Where the old solver converged, the new one must return the same matrix up to the solvers'
tolerance; where the old one stopped at ``max_iter`` (a ``RuntimeWarning``), the release may move.
This script measures that on the default fits, main against this branch, in two processes on the
same seeds:

* ``--dump DIR --label L`` (run once with ``PYTHONPATH`` at main's ``src``, once at the branch's):
  for each of the 7 benchmark tables (``_utility_common.DATASETS``) and the 12 MEASUREMENT tables
  (``_check_tables_heldout.MEASUREMENT``; development tables, none never-seen), ε ∈ {0.3, 1, 3, 10},
  δ = 1e-6, 10 trial seeds (``SeedSequence(0)``): the default ``DPCovariance`` (``covariance_``) and
  the default ``DPPCA(n_components=2)`` (``components_``), and whether the fit emitted
  ``project_psd_diagonal``'s non-convergence ``RuntimeWarning`` (the adaptive first look's
  internal projections included). One ``.npz`` per table (a checkpoint: a rerun skips finished tables).
* ``--compare DIR_MAIN DIR_BRANCH``: per fit, the relative change of the release
  (covariance: ``‖Ĉ_new − Ĉ_old‖_F / ‖Ĉ_old‖_F``; PCA: ``‖P_new − P_old‖_F`` of the projectors
  onto the released subspaces), split by whether the old fit warned; where it warned, the
  benchmark's error both ways (covariance: ``‖Ĉ − C‖_F / ‖C‖_F``; PCA: the captured-variance
  deficit ``1 − tr(QᵀCQ)/(λ₁ + λ₂)``). Writes ``results/psd_diagonal_fix.md``.

Commands (repository root)::

    PYTHONPATH=<main>/src MATRIXDP_DATA=... python experiments/psd_diagonal_fix.py --dump /tmp/pv_main_dump --label main
    PYTHONPATH=src MATRIXDP_DATA=... python experiments/psd_diagonal_fix.py --dump /tmp/pv_branch_dump --label branch
    PYTHONPATH=src python experiments/psd_diagonal_fix.py --compare /tmp/pv_main_dump /tmp/pv_branch_dump

With ``--regression`` added to both ``--dump`` commands, the default ``DPLinearRegression`` fits
(whose normal equations go through ``project_psd_box``) are dumped into ``DIR_regression`` and
``--compare`` adds their line (relative change of ``(coef_, intercept_)``).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _check_tables_heldout as ch  # noqa: E402
import _utility_common as uc  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TABLES = tuple(uc.DATASETS) + tuple(ch.MEASUREMENT)
EPSILONS = (0.3, 1.0, 3.0, 10.0)
TRIALS = 10
SEED = 0
K = 2
WARN = "project_psd_diagonal stopped"


def load(name):
    return uc.load_table(name) if name in uc.DATASETS else ch.heldout_table(name)


def _fit(make, X, y=None):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        est = make().fit(X) if y is None else make().fit(X, y)
    return est, any(WARN in str(x.message) for x in w)


def dump(out: Path, label: str) -> None:
    from matrixdp.models import DPCovariance, DPPCA

    out.mkdir(parents=True, exist_ok=True)
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    for name in TABLES:
        path = out / f"{name}.npz"
        if path.exists():
            continue
        t = load(name)
        t0 = time.perf_counter()
        cov, cov_w, comp, pca_w, secs = [], [], [], [], []
        for eps in EPSILONS:
            for s in seeds:
                a = time.perf_counter()
                est, w = _fit(lambda: DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                                                   random_state=s), t.X)
                cov.append(np.asarray(est.covariance_, float))
                cov_w.append(w)
                est, w = _fit(lambda: DPPCA(n_components=K, epsilon=eps, delta=uc.DELTA,
                                            bounds=(t.lo, t.hi), random_state=s), t.X)
                comp.append(np.asarray(est.components_, float))
                pca_w.append(w)
                secs.append(time.perf_counter() - a)
        np.savez(path, cov=np.array(cov), cov_warned=np.array(cov_w), comp=np.array(comp),
                 pca_warned=np.array(pca_w), seconds=np.array(secs),
                 exact=np.cov(t.X.T, bias=True))
        print(f"{label} {name}: {time.perf_counter() - t0:.1f} s, warned cov "
              f"{sum(cov_w)}/{len(cov_w)}, pca {sum(pca_w)}/{len(pca_w)}", flush=True)


def dump_regression(out: Path, label: str) -> None:
    """``--regression``: the default ``DPLinearRegression`` (its normal equations are projected
    by ``project_psd_box``, whose step 1 is the diagonal Newton method) on the same tables,
    ε and seeds; ``coef_`` and ``intercept_`` per fit."""
    from matrixdp.models import DPLinearRegression

    out.mkdir(parents=True, exist_ok=True)
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    for name in TABLES:
        path = out / f"{name}.npz"
        if path.exists():
            continue
        t = load(name)
        t0 = time.perf_counter()
        coef, warned = [], []
        for eps in EPSILONS:
            for s in seeds:
                est, w = _fit(lambda: DPLinearRegression(epsilon=eps, delta=uc.DELTA,
                                                         bounds_X=(t.lo, t.hi),
                                                         bounds_y=(t.y_lo, t.y_hi),
                                                         random_state=s), t.X, t.y)
                coef.append(np.r_[np.ravel(est.coef_), np.ravel(est.intercept_)])
                warned.append(w)
        np.savez(path, coef=np.array(coef), warned=np.array(warned))
        print(f"{label} regression {name}: {time.perf_counter() - t0:.1f} s", flush=True)


def compare_regression(dmain: Path, dbranch: Path) -> list[str]:
    changes, warned = [], 0
    for name in TABLES:
        a, b = np.load(dmain / f"{name}.npz"), np.load(dbranch / f"{name}.npz")
        warned += int(a["warned"].sum())
        for o, n in zip(a["coef"], b["coef"]):
            changes.append((np.linalg.norm(n - o) / max(np.linalg.norm(o), 1e-300), name))
    v = np.array([c for c, _ in changes])
    worst = max(changes)
    return ["", f"**DPLinearRegression** (default; `--regression`): {v.size} fits; (coef, intercept) "
            f"changed at all: {int(np.sum(v > 0))}; by more than 1e-8 relative: "
            f"{int(np.sum(v > 1e-8))}; largest relative change {worst[0]:.3g} ({worst[1]}); fits that "
            f"warned on main: {warned}."]


def _projector(v):
    q, _ = np.linalg.qr(np.asarray(v, float).T)
    return q @ q.T


def _deficit(v, c, best):
    q, _ = np.linalg.qr(np.asarray(v, float).T)
    return 1.0 - float(np.trace(q.T @ c @ q)) / best


def compare(dmain: Path, dbranch: Path) -> Path:
    rows, warned_rows, big_changes = [], [], []
    tot = {"cov": [0, 0, 0, 0.0, 0], "pca": [0, 0, 0, 0.0, 0]}  # fits, changed>0, changed>1e-8, max conv, warned
    time_main = time_branch = 0.0
    for name in TABLES:
        a = np.load(dmain / f"{name}.npz")
        b = np.load(dbranch / f"{name}.npz")
        c = a["exact"]
        cn = np.linalg.norm(c)
        best = float(np.sort(np.linalg.eigvalsh(c))[::-1][:K].sum())
        time_main += float(a["seconds"].sum())
        time_branch += float(b["seconds"].sum())
        per = {}
        for kind, key, wkey in (("cov", "cov", "cov_warned"), ("pca", "comp", "pca_warned")):
            old, new, wo, wn = a[key], b[key], a[wkey], b[wkey]
            if kind == "cov":
                ch_ = np.array([np.linalg.norm(n - o) / max(np.linalg.norm(o), 1e-300)
                                for o, n in zip(old, new)])
            else:
                ch_ = np.array([np.linalg.norm(_projector(n) - _projector(o)) for o, n in zip(old, new)])
            conv = ~wo
            t_ = tot[kind]
            t_[0] += len(ch_)
            t_[1] += int(np.sum(ch_ > 0))
            t_[2] += int(np.sum(ch_ > 1e-8))
            t_[3] = max(t_[3], float(ch_[conv].max()) if conv.any() else 0.0)
            t_[4] += int(wo.sum())
            per[kind] = (int(np.sum(ch_ > 0)), int(np.sum(ch_ > 1e-8)),
                         float(ch_[conv].max()) if conv.any() else float("nan"),
                         int(wo.sum()), int(wn.sum()))
            for i in np.flatnonzero(wo):
                eps = EPSILONS[i // TRIALS]
                if kind == "cov":
                    e_old = np.linalg.norm(old[i] - c) / cn
                    e_new = np.linalg.norm(new[i] - c) / cn
                else:
                    e_old, e_new = _deficit(old[i], c, best), _deficit(new[i], c, best)
                warned_rows.append((name, kind, eps, i % TRIALS, float(ch_[i]), e_old, e_new,
                                    bool(wn[i])))
            if kind == "pca":
                for i in np.flatnonzero((ch_ > 1e-8) & conv):
                    big_changes.append((name, EPSILONS[i // TRIALS], i % TRIALS, float(ch_[i]),
                                        _deficit(old[i], c, best), _deficit(new[i], c, best)))
        rows.append((name, per))
    L = ["# project_psd_diagonal's solver fix: what changes in the default releases (task PV)", "",
         "Generated by `experiments/psd_diagonal_fix.py` (do not edit by hand). Default "
         "`DPCovariance` and `DPPCA(n_components=2)` fits, main (c9ac1aa) against branch `pv`, "
         f"same seeds ({TRIALS} trials, `SeedSequence({SEED})`), ε ∈ {EPSILONS}, δ = 1e-6, on the 7 "
         "benchmark tables and the 12 MEASUREMENT tables (development tables). Change: covariance "
         "‖Ĉ_new − Ĉ_old‖_F / ‖Ĉ_old‖_F; PCA ‖P_new − P_old‖_F (projectors onto the released "
         "subspaces). 'Warned': the fit emitted project_psd_diagonal's non-convergence "
         "RuntimeWarning (any internal projection, e.g. the adaptive first look's).", ""]
    for kind, title in (("cov", "DPCovariance"), ("pca", "DPPCA (k = 2)")):
        n, c0, c8, mx, wn = tot[kind]
        L.append(f"**{title}**: {n} fits; release changed at all: {c0} ({c0 / n:.1%}); changed by "
                 f"more than 1e-8: {c8} ({c8 / n:.1%}); largest change where main's fit did not "
                 f"warn: {mx:.3g}; fits that warned on main: {wn}.")
        L.append("")
    L += ["| table | cov changed (>0 / >1e-8) | cov max change, main converged | cov warned main / branch "
          "| PCA changed (>0 / >1e-8) | PCA max change, main converged | PCA warned main / branch |",
          "|---|---|---|---|---|---|---|"]
    for name, per in rows:
        cv, pc = per["cov"], per["pca"]
        L.append(f"| {name} | {cv[0]} / {cv[1]} | {cv[2]:.3g} | {cv[3]} / {cv[4]} | {pc[0]} / {pc[1]} "
                 f"| {pc[2]:.3g} | {pc[3]} / {pc[4]} |")
    L += ["", "Fits that warned on main: the benchmark's error (covariance: relative Frobenius; PCA: "
          "captured-variance deficit), main and branch.", "",
          "| table | fit | ε | trial | change | error main | error branch | branch warned |",
          "|---|---|---|---|---|---|---|---|"]
    for r in warned_rows:
        L.append(f"| {r[0]} | {r[1]} | {r[2]:g} | {r[3]} | {r[4]:.3g} | {r[5]:.6g} | {r[6]:.6g} "
                 f"| {r[7]} |")
    if not warned_rows:
        L.append("| (none) | | | | | | | |")
    L += ["", "PCA fits that converged on main and whose released subspace changed by more than "
          "1e-8: refitted here (this branch, same seed) to read `explained_variance_`; a second "
          "eigenvalue at the rounding of the first (≈ 2.2e-16 × λ₁ × d) means the projected "
          "release is rank one and its second component is an arbitrary vector of a zero "
          "eigenspace, fixed by rounding (not by the release).", "",
          "| table | ε | trial | change | deficit main | deficit branch | explained variance (branch) |",
          "|---|---|---|---|---|---|---|"]
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    from matrixdp.models import DPPCA
    for name, eps, trial, chg, d_old, d_new in big_changes:
        t = load(name)
        est = DPPCA(n_components=K, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                    random_state=seeds[trial]).fit(t.X)
        ev = ", ".join(f"{v:.3g}" for v in est.explained_variance_)
        L.append(f"| {name} | {eps:g} | {trial} | {chg:.3g} | {d_old:.4g} | {d_new:.4g} | {ev} |")
    if not big_changes:
        L.append("| (none) | | | | | | |")
    L += ["", f"Total fit time (both fits, all cells; one process each, a shared 2-core machine, the "
          f"branch's run concurrent with a test run, so not a timing comparison): "
          f"main {time_main:.0f} s, branch {time_branch:.0f} s."]
    rm, rb = dmain.parent / (dmain.name + "_regression"), dbranch.parent / (dbranch.name + "_regression")
    if rm.exists() and rb.exists():
        L += compare_regression(rm, rb)
    path = REPO / "results" / "psd_diagonal_fix.md"
    path.write_text("\n".join(L) + "\n")
    print("\n".join(L))
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--dump", type=Path)
    p.add_argument("--label", default="run")
    p.add_argument("--compare", nargs=2, type=Path)
    p.add_argument("--regression", action="store_true",
                   help="with --dump DIR: the DPLinearRegression fits, into DIR_regression")
    args = p.parse_args(argv)
    if args.dump and args.regression:
        dump_regression(args.dump.parent / (args.dump.name + "_regression"), args.label)
    elif args.dump:
        dump(args.dump, args.label)
    if args.compare:
        compare(*args.compare)
    return 0


if __name__ == "__main__":
    sys.exit(main())
