"""Reproduction and diagnosis (issue #24, task PK2): the PCA default's deficit RISING with ε on the
fresh outside audit's small tables, per fit, beside the opt-in candidate
``PCAOptions(adaptive_step_margin="noise-level")``. The tables are SEEN (task OB's fresh audit,
``results/outside_audit_fresh.md``): diagnosis only, never a gate or a check.

Units (the audit's rise FAILs of the default): skulls k = 2 and k = 5, Journals k = 2, tips
k = 2, baseball k = 5 (the audit's tables and public bounds, ``_outside_tables_ob``), at the
audit's ε grid (0.3, 1, 3, 10, 100, 10⁴), δ = 1e-6, the audit's relation, on the audit's 20 seeds
(``SeedSequence(20261128 + 2)``, as task PD; the default's medians equal the audit's). Per fit:
the default's branch and deficit, BOTH branches forced on the same draws
(``AdaptiveOptions(branch=...)``), the default's two predictions (``adaptive_predicted_``), and
the candidate's branch, deficit, ``ρ`` (the first look's noise norm over its top eigenvalue) and
margin ``1 + ρ²``. Deficit: ``1 − tr(VᵀCV)/Σλ_{1..k}`` (the audit's). Per unit the audit's
"falls with ε" check (``outside_audit.number_checks``' rule: a later ε whose median exceeds an
earlier one's by more than 10% with a one-sided Mann-Whitney p < 0.01) on the default and on the
candidate.

Outputs: ``results/pca_rise_reproduce.md``, ``_trials.csv`` (checkpointed per cell).

Command (from the repository root)::

    nice -n 10 env PYTHONPATH=src MATRIXDP_DATA=/work/shared/datasets \\
        python experiments/pca_rise_reproduce.py
"""

from __future__ import annotations

import contextlib
import csv
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import outside_audit as oa  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
NAME = "pca_rise_reproduce"
SEEDS = [int(s) for s in np.random.SeedSequence(20261128 + 2).generate_state(20)]
UNITS = (("skulls", 2), ("skulls", 5), ("Journals", 2), ("tips", 2), ("baseball", 5))
EPS = (0.3, 1.0, 3.0, 10.0, 100.0, 1e4)
ROWS = ("default", "forced moments", "forced step", "candidate")
FIELDS = ["table", "k", "epsilon", "trial", "seed", "default", "forced moments", "forced step",
          "candidate", "default choice", "candidate choice", "pred mom", "pred cp",
          "cand pred mom", "cand pred cp", "rho", "margin"]


def fit(row, u, X, lo, hi, k, eps, s):
    from matrixdp.models import DPPCA
    from matrixdp.models.experimental import PCAOptions

    ctx = (uc.adaptive_options(branch="moments") if row == "forced moments" else
           uc.adaptive_options(branch="coinpress") if row == "forced step" else
           contextlib.nullcontext())
    ex = PCAOptions(adaptive_step_margin="noise-level") if row == "candidate" else None
    with ctx, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return DPPCA(n_components=k, epsilon=eps, delta=oa.DELTA, bounds=(lo, hi),
                     neighbouring=u.neighbouring, random_state=int(s), experimental=ex).fit(X)


def run():
    oa.use_tables("_outside_tables_ob")
    out = REPO / "results" / f"{NAME}_trials.csv"
    done = set()
    if out.exists():
        done = {(r["table"], int(r["k"]), float(r["epsilon"])) for r in csv.DictReader(open(out))}
    new = not out.exists()
    f = open(out, "a", newline="")
    w = csv.DictWriter(f, FIELDS)
    if new:
        w.writeheader()
    for name, k in UNITS:
        u = oa.units([name])[0]
        X, lo, hi = oa.cov_data(u)
        C = np.cov(X.T, bias=True)
        best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
        for eps in EPS:
            if (name, k, eps) in done:
                continue
            cell = []
            for i, s in enumerate(SEEDS):
                r = {"table": name, "k": k, "epsilon": eps, "trial": i, "seed": s}
                for row in ROWS:
                    est = fit(row, u, X, lo, hi, k, eps, s)
                    V = np.linalg.qr(est.components_.T)[0]
                    r[row] = 1.0 - float(np.trace(V.T @ C @ V)) / best
                    p = est.adaptive_predicted_
                    if row == "default":
                        r["default choice"] = est.adaptive_choice_
                        r["pred mom"], r["pred cp"] = p["moments"], p["coinpress"]
                    elif row == "candidate":
                        r["candidate choice"] = est.adaptive_choice_
                        r["cand pred mom"], r["cand pred cp"] = p["moments"], p["coinpress"]
                        r["rho"], r["margin"] = p["noise_level"], p["step_margin"]
                cell.append(r)
            w.writerows(cell)
            f.flush()
            print(f"{name} k={k} eps={eps:g} done", flush=True)
    f.close()


def rise(cells):
    """The audit's rule: the worst (ε_i, ε_j, ratio, p) with ε_j > ε_i whose median exceeds
    1.10x the earlier one's with a one-sided MWU p < 0.01, or None."""
    worst = None
    for i in range(len(EPS)):
        for j in range(i + 1, len(EPS)):
            a, b = cells[i], cells[j]
            mi, mj = np.median(a), np.median(b)
            if mj > oa.MONO_SLACK * mi + 1e-12:
                p = oa._mwu_greater(b, a)
                if p < oa.MONO_P and (worst is None or mj / mi > worst[2]):
                    worst = (EPS[i], EPS[j], mj / mi, p)
    return worst


def fmt(x):
    return f"{x:.3g}"


def write():
    rows = list(csv.DictReader(open(REPO / "results" / f"{NAME}_trials.csv")))
    L = ["# The PCA default's rise with ε on the audit's small tables, per fit, and the "
         "noise-level margin (task PK2, diagnosis; SEEN tables)", "",
         f"Generated by `experiments/{NAME}.py` (per fit: `results/{NAME}_trials.csv`). The fresh "
         "audit's rise units (its tables, bounds, relation, δ = 1e-6, its 20 seeds), each fit with "
         "the default, both branches forced on the same draws, and the candidate "
         "`PCAOptions(adaptive_step_margin=\"noise-level\")`. Medians over the 20 seeds; "
         "`pred cp/mom`: the default's predicted ratio step/moments (median per seed); "
         "`meas step/mom`: measured (median per seed); `ρ`: the first look's noise norm over its "
         "top eigenvalue; `right`: seeds whose chosen branch measured no worse than the other "
         "forced branch.", "",
         "| table | k | ε | default step | cand step | step wins | default | cand | moments | "
         "step | pred cp/mom | meas step/mom | ρ median (min–max) | default right | cand right |",
         "|" + "---|" * 15]
    verdict = []
    for name, k in UNITS:
        per = {"default": [], "candidate": []}
        for eps in EPS:
            rs = [r for r in rows if r["table"] == name and int(r["k"]) == k
                  and float(r["epsilon"]) == eps]
            if not rs:
                continue
            g = lambda c: np.array([float(r[c]) for r in rs])  # noqa: E731
            d, c, mo, st, rho = g("default"), g("candidate"), g("forced moments"), \
                g("forced step"), g("rho")
            per["default"].append(d)
            per["candidate"].append(c)
            ds = np.array([r["default choice"] == "coinpress" for r in rs])
            cs = np.array([r["candidate choice"] == "coinpress" for r in rs])
            win = st < mo
            right = lambda ch: int(np.sum(np.where(ch, st <= mo, mo <= st)))  # noqa: E731
            L.append(f"| {name} | {k} | {eps:g} | {int(ds.sum())}/{len(rs)} | "
                     f"{int(cs.sum())}/{len(rs)} | {int(win.sum())}/{len(rs)} | "
                     f"{fmt(np.median(d))} | {fmt(np.median(c))} | {fmt(np.median(mo))} | "
                     f"{fmt(np.median(st))} | {fmt(np.median(g('pred cp') / g('pred mom')))} | "
                     f"{fmt(np.median(st / np.maximum(mo, 1e-300)))} | {fmt(np.median(rho))} "
                     f"({fmt(rho.min())}–{fmt(rho.max())}) | {right(ds)}/{len(rs)} | "
                     f"{right(cs)}/{len(rs)} |")
        if len(per["default"]) == len(EPS):
            for row in ("default", "candidate"):
                wv = rise(per[row])
                verdict.append(f"| {name} | {k} | {row} | " + (
                    f"RISE: median at ε={wv[1]:g} is {wv[2]:.3g}x that at ε={wv[0]:g} (MWU "
                    f"p={wv[3]:.2g})" if wv else "no significant rise") + " |")
    L += ["", "## The audit's \"falls with ε\" check (its rule, on these fits)", "",
          "| table | k | row | verdict |", "|---|---|---|---|"] + verdict
    (REPO / "results" / f"{NAME}.md").write_text("\n".join(L) + "\n")


if __name__ == "__main__":
    if "--write" not in sys.argv:
        run()
    write()
