"""DPPCA's adaptive release with ``noise_pairs="unfloored"`` (task PN's second candidate) against
today's default: the dev gate (issue #24).

Task PN's first candidate (``noise_pairs="normalised"``) FAILED its dev gate
(``results/pca_noise_pairs_gate.md``: no cell worse, no gain). Its exploration
(``experiments/pca_noise_gaps_explore.py``, ``results/pca_noise_gaps_explore.md``, the audit's
units and four benchmark cells, DIAGNOSIS ONLY) found that the pair gaps' floor ``√N_ij/2`` is what
keeps liver k = 2 ε = 100 on the moments branch: without it (the normalised pairs, an unresolved
gap counting 0 for both branches) the median deficit there fell 0.031x (steps 9/20 -> 16/20), ctg
k = 5 ε = 10 0.879x. Candidate: ``adaptive_covariance(noise_pairs="unfloored")``: the gaps
``√max(ĝ² − N_ij, 0)`` (``pca_frame(floor=False)``, no cap) and the pair tilts of each top
direction normalised as one unit vector (``pca_deficit_normalised``), for both branches.
Post-processing of the first look: the same releases, the same (ε, δ), the same charge. liver's
cell IS in this gate's cells and was explored on (seed 20261130, 20 trials): the gate's seeds
differ, but that cell is not evidence for the rule; it is reported, not removed.

The dev gate (fixed and committed before the run)
-------------------------------------------------
As ``pca_noise_pairs_gate.py`` (same cells, same rule (G1) and (G2), 30 paired trials), with the
candidate ``DPPCA(n_components=k)`` fitted inside
``_utility_common.adaptive_options(noise_pairs="unfloored")``, the reference
``DPPCA(n_components=k)`` (today's default), on ``SeedSequence(20261152)``. The candidate PASSES
the dev gate iff (G1) it FAILs the paired gate (one-sided Wilcoxon of log(candidate/default)
against log 1.10, α = 0.01) in NO cell, and (G2) the median over the CHANGED cells of the ratio
of medians candidate/default is ≤ 0.99, with at least one changed cell. If the run does not
finish (session 18 ends), ``--analyse --partial`` reports the cells run, labelled PARTIAL, with
no verdict (a FAIL there is final, a pass is not).

Outputs: ``results/pca_noise_unfloored_gate.md`` (or ``..._gate_partial.md``), ``.csv``,
``_trials.csv``.

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_noise_unfloored_gate.py --stage gate [--part 0/2]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pcg  # noqa: E402

GATE = pcg.OptionGate("pca_noise_unfloored", 20261152, "unfloored",
                      {"noise_pairs": "unfloored"},
                      "# DPPCA's adaptive release with noise_pairs='unfloored' against the default: "
                      "{stage} (issue #24, task PN)")

if __name__ == "__main__":
    sys.exit(GATE.main(description=__doc__.split("\n")[0]))
