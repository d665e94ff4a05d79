"""Where ``feasible.project_psd_box`` stopped early, why, and what the continuation step changes.

Issue #24 ("post-processing that cannot hurt"): ``when_mvg_wins.py`` printed 75 warnings
``project_psd_box: Dykstra's iterations stopped after 300 sweeps``. This script reproduces them
and measures, for every call, the earlier code (``src/matrixdp/feasible.py`` as committed at
``BASE`` = be1154c, read with ``git show`` and loaded as a module) and today's (with step 4 of
``project_psd_box``, the continuation), on the same input, side by side in one process:

* **Adult** (the rows of ``when_mvg_wins.py`` that warned), Adult's six numeric columns and
  ``ADULT_BOUNDS``, δ = 1e-6, replace-one, seeds 0 … trials-1, the same fits as
  ``when_mvg_wins.py``: ``DPPCA(2, epsilon, noise=...)``, ε ∈ {0.01, 0.1}, noise ``"iid"`` and
  ``"auto"`` (k = 5 projects the same release); ``DPCovariance(kind="correlation",
  method="moments", shrinkage="none")`` at ε = 1, noise ``"iid"``, ``"auto"`` and i.i.d. on the
  table rescaled to [-1, 1] (``"rescaled-iid"``). Every ``project_psd_box`` call made by a fit is
  recorded.
* **Synthetic** (no data): releases ``(E + Eᵀ)/2`` of i.i.d. normal entries onto covariance
  boxes (``covariance_entry_bounds``): ``"one wide"`` = half-widths 1 except one 10⁶× wider,
  entries of sd σ (original units of a table with one wide column); ``"unit box, spread"`` =
  half-widths 1, entry sd ``s_i s_j`` with ``s`` geometric from 0.1 to sqrt(σ) (the shape of an
  i.i.d. release in units of the half-widths, as DPPCA's default projection sees it); and
  ``"second moments"`` = a general entrywise box (``second_moment_entry_bounds`` of ranges
  0.5 … 1000), noise σ × the largest bound. 20 seeds each, ``tol=1e-9, max_iter=300`` (the
  estimators' settings in ``project_feasible``).

Columns: ``converged`` (the flag of ``return_info``, as each version reports it), ``violation_own`` = the worst box violation relative to
each entry's own bound (``max(|l_ij|, |u_ij|)``), ``violation_largest`` = relative to the largest
bound (what the earlier code tested), ``sweeps``, ``seconds`` (wall time of the call),
``warned``, ``newton_steps`` (the continuation's Newton steps, all stages), ``stages``, and
``moved`` = ‖after − before‖_F / ‖before‖_F.

Usage: ``python experiments/psd_box_stall.py [--trials 50] [--out results]``; writes
``results/psd_box_stall.{md,csv}``.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from matrixdp import feasible  # noqa: E402

TOL, MAX_ITER = 1e-9, 300
DELTA = 1e-6


def own_violation(m, lo, hi):
    scale = np.maximum(np.where(np.isfinite(lo), np.abs(lo), 0.0),
                       np.where(np.isfinite(hi), np.abs(hi), 0.0))
    big = float(scale.max()) if scale.max() > 0 else 1.0
    v = np.maximum(np.maximum(lo - m, m - hi), 0.0) / np.where(scale > 0, scale, big)
    return float(v.max())


def largest_violation(m, lo, hi):
    finite = np.concatenate([np.abs(lo[np.isfinite(lo)]), np.abs(hi[np.isfinite(hi)])])
    big = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    return float(np.max(np.maximum(np.maximum(lo - m, m - hi), 0.0))) / big


class Counter:
    """Counts the continuation's stages and Newton steps (wraps the two Newton solvers)."""

    def __init__(self):
        self.steps = 0
        self.stages = 0
        self.active = False
        self._dual, self._box = feasible._dual_newton, feasible._box_projected_newton
        self._cont = feasible._continuation

    def __enter__(self):
        counter = self

        def dual(*a, **k):
            r = counter._dual(*a, **k)
            if counter.active:
                counter.steps += r.iterations
                counter.stages += 1
            return r

        def box(*a, **k):
            r = counter._box(*a, **k)
            if counter.active:
                counter.steps += r.iterations
                counter.stages += 1
            return r

        def cont(*a, **k):
            counter.active = True
            try:
                return counter._cont(*a, **k)
            finally:
                counter.active = False

        feasible._dual_newton, feasible._box_projected_newton = dual, box
        feasible._continuation = cont
        return self

    def __exit__(self, *exc):
        feasible._dual_newton, feasible._box_projected_newton = self._dual, self._box
        feasible._continuation = self._cont


BASE = "be1154c"  # main before the continuation step (the earlier feasible.py)


def earlier_module():
    """``src/matrixdp/feasible.py`` as committed at ``BASE``, loaded as a module of matrixdp."""
    import importlib.util
    import subprocess

    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{BASE}:src/matrixdp/feasible.py"],
                          capture_output=True, text=True, check=True).stdout
    spec = importlib.util.spec_from_loader(f"matrixdp._feasible_{BASE}", loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "matrixdp"
    exec(compile(text, f"feasible.py@{BASE}", "exec"), module.__dict__)
    return module


EARLIER = None


def project_both(c, lo, hi):
    """The earlier code (``feasible.py`` at ``BASE``) and today's, on the same input."""
    global EARLIER
    if EARLIER is None:
        EARLIER = earlier_module()
    out = {}
    for label, func in (("before", EARLIER.project_psd_box), ("after", None)):
        with Counter() as counter, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            func = feasible.project_psd_box if func is None else func
            t0 = time.perf_counter()
            r = func(c, lo, hi, tol=TOL, max_iter=MAX_ITER, return_info=True)
            dt = time.perf_counter() - t0
        out[label] = dict(matrix=r.matrix, converged=bool(r.converged), sweeps=r.iterations,
                          violation_own=own_violation(r.matrix, lo, hi),
                          violation_largest=largest_violation(r.matrix, lo, hi), seconds=dt,
                          warned=sum(issubclass(w.category, RuntimeWarning) for w in caught),
                          newton_steps=counter.steps, stages=counter.stages)
    b, a = out["before"]["matrix"], out["after"]["matrix"]
    moved = float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300))
    return out, moved, bool(np.array_equal(a, b))


def row(case, seed, out, moved, identical, **extra):
    r = {"case": case, "seed": seed, **extra}
    for label in ("before", "after"):
        for key, val in out[label].items():
            if key != "matrix":
                r[f"{key}_{label}"] = val
    r["moved"] = moved
    r["identical"] = identical
    return r


def adult_rows(trials):
    sys.path.insert(0, str(ROOT / "experiments"))
    from when_mvg_wins import adult

    from matrixdp.models import DPPCA, DPCovariance

    X, bounds = adult()
    calls = []
    real = feasible.project_psd_box

    def spy(matrix, lower=None, upper=None, **kw):
        calls.append((np.array(matrix), np.array(lower), np.array(upper), dict(kw)))
        return real(matrix, lower, upper, **kw)

    half = (bounds[1] - bounds[0]) / 2
    Xs = (X - (bounds[0] + bounds[1]) / 2) / half
    # the true covariance in the units every call here projects in (the public half-widths;
    # for the rescaled table its own units are those)
    truth_unit = np.cov(X.T, bias=True) / np.outer(half, half)
    truth_scaled = np.cov(Xs.T, bias=True)

    def pca(eps, noise, s):
        DPPCA(2, epsilon=eps, delta=DELTA, bounds=bounds, noise=noise, method="moments",
              random_state=s).fit(X)

    def correlation(eps, noise, s):
        data, b = (Xs, (-1, 1)) if noise == "rescaled-iid" else (X, bounds)
        DPCovariance(epsilon=eps, delta=DELTA, bounds=b, kind="correlation", method="moments",
                     noise="auto" if noise == "auto" else "iid", random_state=s,
                     shrinkage="none").fit(data)

    rows = []
    for case, fit, epsilons, noises in (
            ("Adult DPPCA k=2", pca, (0.01, 0.1), ("iid", "auto")),
            ("Adult DPCovariance correlation", correlation, (1.0,),
             ("iid", "rescaled-iid", "auto"))):
        for eps in epsilons:
            for noise in noises:
                for s in range(trials):
                    calls.clear()
                    feasible.project_psd_box = spy
                    try:
                        fit(eps, noise, s)
                    finally:
                        feasible.project_psd_box = real
                    for c, lo, hi, kw in calls:
                        assert kw == {"tol": TOL, "max_iter": MAX_ITER}, kw
                        lo = np.broadcast_to(lo, c.shape)
                        hi = np.broadcast_to(hi, c.shape)
                        out, moved, same = project_both(c, lo, hi)
                        truth = truth_scaled if noise == "rescaled-iid" else truth_unit
                        err = {f"error_{k}": float(np.linalg.norm(out[k]["matrix"] - truth)
                                                   / np.linalg.norm(truth))
                               for k in ("before", "after")}
                        rows.append(row(case, s, out, moved, same, epsilon=eps, noise=noise,
                                        release_over_box=float(np.abs(c).max()
                                                               / np.abs(hi).max()),
                                        error_release=float(np.linalg.norm(c - truth)
                                                            / np.linalg.norm(truth)), **err))
    return rows


def synthetic_rows(seeds):
    rows = []
    d = 6
    for sigma in (1e9, 1e12):
        h = np.ones(d)
        h[1] = 1e6
        lo, hi = feasible.covariance_entry_bounds(h * h)
        for s in range(seeds):
            e = np.random.default_rng(s).standard_normal((d, d)) * sigma
            out, moved, same = project_both((e + e.T) / 2, lo, hi)
            rows.append(row("one wide (10^6), covariance box", s, out, moved, same, sigma=sigma))
    for sigma in (1e8, 1e10):
        lo, hi = feasible.covariance_entry_bounds(np.ones(d))
        sd = np.geomspace(1e-1, np.sqrt(sigma), d)
        for s in range(seeds):
            e = np.random.default_rng(s).standard_normal((d, d)) * np.outer(sd, sd)
            out, moved, same = project_both((e + e.T) / 2, lo, hi)
            rows.append(row("unit box, spread noise", s, out, moved, same, sigma=sigma))
    lo_x = np.array([0.5, -1.0, 2.0, -0.2, 0.0, 0.0])
    hi_x = np.array([1.0, 3.0, 40.0, 0.3, 1e3, 1.0])
    mlo, mhi = feasible.second_moment_entry_bounds(lo_x, hi_x)
    for sigma in (1e-1, 1e2, 1e4):
        for s in range(seeds):
            e = np.random.default_rng(s).standard_normal((d, d)) * sigma * np.abs(mhi).max()
            out, moved, same = project_both((e + e.T) / 2, mlo, mhi)
            rows.append(row("second moments (general box)", s, out, moved, same, sigma=sigma))
    return rows


def summarise(rows, keys):
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r.get(k) for k in keys), []).append(r)
    lines = []
    sq = np.sqrt(TOL)
    for key, rs in groups.items():
        n = len(rs)
        before_bad = [r for r in rs if r["violation_own_before"] > sq]
        after_bad = [r for r in rs if r["violation_own_after"] > sq]
        false_conv = sum(r["converged_before"] and r["violation_own_before"] > sq for r in rs)
        good_before = [r for r in rs if r["converged_before"] and r["violation_own_before"] <= sq]
        changed = [r for r in rs if not r["identical"]]

        def med(vals):
            return f"{np.median(vals):.3g}" if vals else "–"

        def mx(vals):
            return f"{np.max(vals):.3g}" if vals else "–"

        lines.append(
            "| " + " | ".join(str(k) for k in key) + f" | {n} | "
            f"{sum(not r['converged_before'] for r in rs)} | {false_conv} | "
            f"{len(before_bad)} (max {mx([r['violation_own_before'] for r in before_bad])}) | "
            f"{sum(r['warned_before'] for r in rs)} | "
            f"{sum(r['converged_after'] for r in rs)} | "
            f"{len(after_bad)} | {sum(r['warned_after'] for r in rs)} | "
            f"{sum(r['identical'] for r in good_before)}/{len(good_before)} | "
            f"{med([r['newton_steps_after'] for r in changed])} "
            f"[max {mx([r['newton_steps_after'] for r in changed])}] | "
            f"{med([r['stages_after'] for r in changed])} | "
            f"{med([r['seconds_before'] for r in rs])} | {med([r['seconds_after'] for r in rs])} "
            f"[max {mx([r['seconds_after'] for r in rs])}] | "
            f"{med([r['moved'] for r in changed])} [max {mx([r['moved'] for r in changed])}] |")
    return lines


HEADER = ("calls | not converged before | 'converged' before but outside an entry's box | "
          "outside an entry's box by > sqrt(tol) before | warnings before | converged after | "
          "outside by > sqrt(tol) after | warnings after | identical where it converged inside "
          "the box before | continuation Newton steps, median [max] (changed calls) | stages, "
          "median | seconds before, median | seconds after, median [max] | moved, median [max] "
          "(changed calls) |")


def write(rows, out: Path, command: str, seeds: int):
    out.mkdir(parents=True, exist_ok=True)
    fields = list(dict.fromkeys(k for r in rows for k in r))
    with open(out / "psd_box_stall.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    adult = [r for r in rows if r["case"].startswith("Adult")]
    synth = [r for r in rows if not r["case"].startswith("Adult")]
    ncols = HEADER.count("|")
    lines = ["# project_psd_box: where it stopped early, and the continuation step", "",
             f"Generated by `{command}`. `tol={TOL:g}`, `max_iter={MAX_ITER}` (the estimators' "
             f"settings). *Before* = `feasible.py` as committed at {BASE} (main before this "
             "change); *after* = today's, with step 4 (the continuation) and the own-scale "
             "test; both on the same input in the same run. Math and diagnosis: `docs/postprocessing.md`, \"When Newton and "
             "Dykstra stop early\". \"Outside an entry's box\" is measured relative to that "
             "entry's own bound; the earlier code measured it relative to the largest bound.",
             "", "## Adult: the fits of when_mvg_wins.py that project onto a box", "",
             "| fit | ε | noise | " + HEADER, "|" + "---|" * (ncols + 2)]
    lines += summarise(adult, ("case", "epsilon", "noise"))
    lines += ["", "Error of the projected covariance against the true covariance of the table, in "
              "the units the projection works in (relative Frobenius; the norm in which the "
              "exact projection cannot increase the release's error), calls whose result "
              "changed: median [max]", "",
              "| fit | ε | noise | changed calls | release | before | after | after < before |",
              "|---|---|---|---|---|---|---|---|"]
    groups = {}
    for r in adult:
        if not r["identical"]:
            groups.setdefault((r["case"], r["epsilon"], r["noise"]), []).append(r)
    for (case, eps, noise), rs in groups.items():
        def mm(key):
            vals = [r[key] for r in rs]
            return f"{np.median(vals):.4g} [{np.max(vals):.4g}]"
        lines.append(f"| {case} | {eps} | {noise} | {len(rs)} | {mm('error_release')} | "
                     f"{mm('error_before')} | {mm('error_after')} | "
                     f"{sum(r['error_after'] < r['error_before'] for r in rs)} |")
    ratios = [r["release_over_box"] for r in adult if not r["identical"]]
    if ratios:
        lines += ["", "Largest entry of the release over the largest bound (units of the public "
                  "half-widths), changed calls: median "
                  f"{np.median(ratios):.3g}, range {min(ratios):.3g} … {max(ratios):.3g}."]
    lines += ["", f"## Synthetic releases ({seeds} seeds each)", "",
              "| case | σ | " + HEADER, "|" + "---|" * (ncols + 2)]
    lines += summarise(synth, ("case", "sigma"))
    lines.append("")
    (out / "psd_box_stall.md").write_text("\n".join(lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--out", type=Path, default=ROOT / "results")
    args = parser.parse_args(argv)
    command = "python experiments/psd_box_stall.py" + (
        f" --trials {args.trials}" if args.trials != 50 else "") + (
        f" --seeds {args.seeds}" if args.seeds != 20 else "")
    rows = adult_rows(args.trials) + synthetic_rows(args.seeds)
    write(rows, args.out, command, args.seeds)


if __name__ == "__main__":
    main()
