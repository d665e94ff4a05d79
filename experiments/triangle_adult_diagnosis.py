"""Why adult's covariance disagrees with the triangle's exact expected loss (task TG, diagnosis).

Task TR found ``noise="iid"``'s weighted-triangle release (``results/triangle_side_by_side.md``)
1.25-1.36x worse than the full draw on adult's covariance at every ε, although its exact expected
loss (public) is lower. Here the covariance error of ``DPCovariance(noise="iid", method="moments")``
is measured with the moments release planned five ways (same seeds, 50 per cell):

- ``full``: the full symmetrised draw at the Frobenius sensitivity (main's ``noise="iid"``);
- ``a``: TR's plan (the better in public expected loss of ``x = 1/2`` at ``Δ_F/√2`` and
  ``x = x_max`` at ``R²/n``);
- ``b``: ``x = 1/2`` at ``Δ_F/√2`` through the triangle path (the full draw's law);
- ``c``: ``x = x_max`` only where the bound is attained (``R²/n = Δ_F/√2``), else ``x = 1/2``;
- ``d``: TR's choice between the two options made with a public worst-case mean prior
  (``m_i² = h_i²`` instead of ``h_i²/3`` in the mean coordinate's loss weight).

Per variant: the exact expected loss with the task's public loss matrix (``public``), the same
first-order loss with the table's TRUE mean (``oracle``, diagnosis only: it reads private data),
and the measured mean squared Frobenius error before (``raw``) and after the feasible projection
(``proj``), and the median relative Frobenius error after projection (the benchmark's metric).
Tables: adult, lending_club, wdbc, ctg, in the benchmark's two routes (original units = row
``matrixdp (iid)``; the unit box = row ``iid, unit box``); ε = 0.5 and 2.

Writes ``results/triangle_adult_diagnosis.{md,csv}``. Command::

    PYTHONPATH=src MATRIXDP_DATA=... nice -n 10 python experiments/triangle_adult_diagnosis.py
"""

from __future__ import annotations

import contextlib
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _utility_common as uc  # noqa: E402

from matrixdp.feasible import project_feasible  # noqa: E402
from matrixdp.models import DPCovariance, _moments  # noqa: E402
from matrixdp.models._triangle import replace_one_triangle  # noqa: E402

OUT = uc.REPO_ROOT / "results"
TABLES = ("adult", "lending_club", "wdbc", "ctg")
EPSILONS = (0.5, 2.0)
SEEDS = range(50)
VARIANTS = ("full", "a", "b", "c", "d")


def options(task, eps, delta):
    """The two triangle options of TR's plan: (plan x=1/2, plan x_max, attained)."""
    q = task.query()
    k = task.lower.size
    bound_sq, x_max, fixed = replace_one_triangle(task.lower, task.upper)
    sens_r = math.sqrt(bound_sq) / task.n_samples
    exact = bool(getattr(q, "sensitivity_l2_exact", True))
    attained = exact and abs(q.sensitivity_l2 ** 2 - 2 * sens_r ** 2) <= 1e-9 * 2 * sens_r ** 2
    half = _moments._triangle_option(task, eps, delta, np.full(k, 0.5),
                                     q.sensitivity_l2 / math.sqrt(2), exact, "iid-triangle", None)
    top = _moments._triangle_option(task, eps, delta, np.where(fixed, 0.5, x_max), sens_r,
                                    attained, "iid-triangle", None)
    return half, top, attained


def worst_mean_loss(task):
    """The task's loss matrix with the mean weight at the worst case m_i² = h_i² (public)."""
    W = task.loss_matrix.copy()
    d = task.lower.size - 1
    h = task.reach[:d]
    t2 = task.reach[d] ** 2
    hs2 = h * h * np.diag(W)[:d] ** 0.5  # (s h)² with s² the diagonal weight
    a = 2.0 * (hs2.sum() + hs2)
    s2 = np.diag(W)[:d] ** 0.5
    W[:d, d] = W[d, :d] = a * s2 / (2.0 * t2)
    return W


def oracle_loss(task, m_orig):
    """First-order Frobenius loss matrix in ORIGINAL units per unit variance of the route's
    entries (to be multiplied by the route's unit factors), with the true centred mean ``m_orig``
    in original units (private: diagnosis only)."""
    d = task.lower.size - 1
    W = np.ones((d + 1, d + 1))
    ms2 = m_orig * m_orig
    a = 2.0 * (ms2.sum() + ms2)
    t2 = task.reach[d] ** 2
    W[:d, d] = W[d, :d] = a / (2.0 * t2)
    W[d, d] = 0.0
    return W


def choose(variant, task, eps, delta):
    half, top, attained = options(task, eps, delta)
    if variant == "b":
        return half
    if variant == "a":
        return min((half, top), key=lambda p: p.expected_loss)
    if variant == "c":
        return top if attained else half
    if variant == "d":
        W = worst_mean_loss(task)
        return min((half, top), key=lambda p: float(np.sum(W * p.entry_variance)))
    raise ValueError(variant)


@contextlib.contextmanager
def planned(variant, record):
    orig = _moments.plan_second_moment

    def patched(task, **kw):
        if variant == "full":
            plan, cands = orig(task, **dict(kw, allocation="iid"))
        else:
            plan, cands = choose(variant, task, kw["epsilon"], kw["delta"]), {}
        record.append((task, plan))
        return plan, cands

    _moments.plan_second_moment = patched
    try:
        yield
    finally:
        _moments.plan_second_moment = orig


def main():
    rows = []
    for name in TABLES:
        t = uc.load_table(name)
        for route in ("original", "unit box"):
            if route == "original":
                X, lo, hi, back = t.X, t.lo, t.hi, np.ones(t.d)
            else:
                back = t.hi - t.lo
                X, lo, hi = (t.X - t.lo) / back, np.zeros(t.d), np.ones(t.d)
            C = np.cov(X.T, bias=True) * np.outer(back, back)
            cn = np.linalg.norm(C)
            m = X.mean(axis=0) - 0.5 * (lo + hi)
            for eps in EPSILONS:
                for v in VARIANTS:
                    rec, raw_sq, proj_sq, rel = [], [], [], []
                    with planned(v, rec):
                        for s in SEEDS:
                            est = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(lo, hi),
                                               noise="iid", method="moments", project_psd=False,
                                               random_state=s).fit(X)
                            raw = est.covariance_ * np.outer(back, back)
                            P = project_feasible(est.covariance_, lo, hi, "covariance") * \
                                np.outer(back, back)
                            raw_sq.append(float(np.sum((raw - C) ** 2)))
                            proj_sq.append(float(np.sum((P - C) ** 2)))
                            rel.append(float(np.linalg.norm(P - C) / cn))
                    task, plan = rec[0]
                    V = plan.entry_variance
                    k = V.shape[0]
                    bb = np.append(back, 1.0)
                    unit = np.outer(bb, bb) ** 2  # loss in the benchmark's original units
                    pub = float(np.sum(task.loss_matrix * V))  # in the route's units, as planned
                    orc = float(np.sum(oracle_loss(task, m * back) * V * unit))
                    xdiag = np.diag(V)[:-1].mean() / V[0, 1]
                    rows.append(dict(table=name, route=route, epsilon=eps, variant=v,
                                     diag_over_off=xdiag, public=pub, oracle=orc,
                                     raw=float(np.mean(raw_sq)), proj=float(np.mean(proj_sq)),
                                     median_rel=float(np.median(rel)), trials=len(rel), k=k))
                    print(name, route, eps, v, f"pub {pub:.3g} orc {orc:.3g} raw "
                          f"{np.mean(raw_sq):.3g} proj {np.mean(proj_sq):.3g} "
                          f"rel {np.median(rel):.4g}", flush=True)
    uc.write_rows(OUT / "triangle_adult_diagnosis.csv", rows)
    lines = ["# Adult's triangle loss: expected loss vs measured covariance error (task TG)", "",
             "Script: `experiments/triangle_adult_diagnosis.py` (variants in its docstring); "
             f"{len(SEEDS)} seeds per cell, the same seeds for every variant. All losses in the "
             "benchmark's original units except `public`. `public`: exact expected loss with the "
             "task's public loss matrix, in the units the plan optimised (the unit box's for that "
             "route); `oracle`: the same first-order loss with the table's true mean "
             "(private: diagnosis only); `raw`/`proj`: measured mean squared Frobenius error "
             "before/after the feasible projection; `rel`: median relative Frobenius error after "
             "projection (the benchmark's metric). Ratios are variant / `full`.", "",
             "| table | route | ε | variant | diag/off var | public | oracle | raw | proj | "
             "rel | public ratio | oracle ratio | raw ratio | proj ratio | rel ratio |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    base = {(r["table"], r["route"], r["epsilon"]): r for r in rows if r["variant"] == "full"}
    for r in rows:
        b = base[(r["table"], r["route"], r["epsilon"])]
        lines.append(f"| {r['table']} | {r['route']} | {r['epsilon']:g} | {r['variant']} | "
                     f"{r['diag_over_off']:.3g} | {r['public']:.3g} | {r['oracle']:.3g} | "
                     f"{r['raw']:.3g} | {r['proj']:.3g} | {r['median_rel']:.4g} | "
                     f"{r['public'] / b['public']:.3f} | {r['oracle'] / b['oracle']:.3f} | "
                     f"{r['raw'] / b['raw']:.3f} | {r['proj'] / b['proj']:.3f} | "
                     f"{r['median_rel'] / b['median_rel']:.3f} |")
    (OUT / "triangle_adult_diagnosis.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
