"""Non-private facts about the reproduction data and one mechanism parameter that REPRODUCTION.md states.

Four sentences of REPRODUCTION.md explain a result with a number no results file held (claims audit,
``results/claims_audit.md``, "unsupported" rows). This script computes them, NON-PRIVATELY (they
describe the shipped public datasets and a public formula, for the reader; nothing here is a release):

* MovementAAL (Experiment II, the data of ``experiments/mvg_exp2_movement.py``: all 13,197 steps,
  centred per anchor, UCI's native scale): the eigenvalues of the covariance S̄ = XᵀX/n the metric
  Δρ uses, and the absolute loadings of its top principal component on the four anchors;
* the singular-value floor w of Blocki et al.'s JL mechanism (``matrixdp.baselines.jl.blocki_w``),
  w = 16·sqrt(r ln(2/δ))/ε · ln(16r/δ), and w², at Experiment II's ε = 1, δ = 1/n, for the r grid
  ``mvg_exp2_movement.JL_R_GRID`` the experiment searches;
* WDBC (the Farokhi Fig. 5 data, 569 x 30 raw features): the largest raw feature value and the
  feature that attains it (spec farokhi.md A33 says "WDBC feature ranges reach ~4000").

Command (from ``experiments/``)::

    MATRIXDP_DATA=../../shared/datasets PYTHONPATH=../src python reproduction_facts.py

writes ``results/reproduction_facts.md`` and ``results/reproduction_facts.csv``. Deterministic (no
randomness); the data home is ``$MATRIXDP_DATA`` (the shared datasets, next to the checkout).
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mvg_exp2_movement as exp2  # noqa: E402

from matrixdp.baselines.jl import blocki_w  # noqa: E402
from matrixdp.datasets import load_wdbc  # noqa: E402

RESULTS = Path(__file__).resolve().parent.parent / "results"
COMMAND = "cd experiments && MATRIXDP_DATA=../../shared/datasets PYTHONPATH=../src python reproduction_facts.py"
ANCHORS = ("ANC0", "ANC1", "ANC2", "ANC3")
#: WDBC's 30 features in file order: 10 measurements x (mean, standard error, worst).
WDBC_MEASURES = ("radius", "texture", "perimeter", "area", "smoothness", "compactness",
                 "concavity", "concave points", "symmetry", "fractal dimension")


def facts() -> list[dict]:
    rows = []
    ctx = exp2.prepare(bound=100.0)  # the same data and S̄ as Experiment II (c does not change S̄)
    cov, n = ctx["cov"], ctx["n"]
    evals, evecs = np.linalg.eigh(cov)
    for k, v in enumerate(evals[::-1], start=1):
        rows.append({"topic": "MovementAAL covariance", "quantity": f"eigenvalue {k} of S̄ = XᵀX/n",
                     "value": f"{v:.4g}", "where": f"n = {n}, centred, native scale"})
    top = np.abs(evecs[:, -1])
    for name, v in zip(ANCHORS, top):
        rows.append({"topic": "MovementAAL top PC", "quantity": f"absolute loading on {name}",
                     "value": f"{v:.5g}", "where": "top eigenvector of S̄"})
    delta = ctx["delta"]
    for r in exp2.JL_R_GRID:
        w = blocki_w(r, exp2.EPSILON, delta)
        rows.append({"topic": "Blocki et al. JL", "quantity": f"w, r = {r}", "value": f"{w:.4g}",
                     "where": f"ε = {exp2.EPSILON:g}, δ = 1/n = {delta:.3g}"})
        rows.append({"topic": "Blocki et al. JL", "quantity": f"w², r = {r}", "value": f"{w * w:.4g}",
                     "where": f"ε = {exp2.EPSILON:g}, δ = 1/n = {delta:.3g}"})
    wdbc = load_wdbc().data
    j = int(np.argmax(wdbc.max(axis=0)))
    kind = ("mean", "standard error", "worst")[j // 10]
    rows.append({"topic": "WDBC raw features", "quantity": "largest raw feature value",
                 "value": f"{wdbc.max():.6g}",
                 "where": f"feature {j + 1} of 30 ({WDBC_MEASURES[j % 10]}, {kind}); {wdbc.shape[0]} rows"})
    rows.append({"topic": "WDBC raw features", "quantity": "smallest feature maximum",
                 "value": f"{wdbc.max(axis=0).min():.4g}", "where": "over the 30 features"})
    return rows


def write(rows: list[dict]) -> None:
    RESULTS.mkdir(exist_ok=True)
    with open(RESULTS / "reproduction_facts.csv", "w", newline="") as fh:
        out = csv.DictWriter(fh, fieldnames=["topic", "quantity", "value", "where"], lineterminator="\n")
        out.writeheader()
        out.writerows(rows)
    md = ["# Facts about the reproduction data and the JL floor (non-private; for REPRODUCTION.md)", "",
          f"Produced by `experiments/reproduction_facts.py` (command: `{COMMAND}`). Deterministic; "
          "computed from the shipped public datasets and a public formula, for the reader's explanation "
          "of results; nothing here is a DP release.", "",
          "| topic | quantity | value | where |", "|---|---|---|---|"]
    md += [f"| {r['topic']} | {r['quantity']} | {r['value']} | {r['where']} |" for r in rows]
    (RESULTS / "reproduction_facts.md").write_text("\n".join(md) + "\n")


if __name__ == "__main__":
    write(facts())
    print((RESULTS / "reproduction_facts.md").read_text())
