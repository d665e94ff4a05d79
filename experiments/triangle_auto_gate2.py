"""Issue #24's paired dev gate, second candidate: the triangle in ``noise="auto"`` with the first
look read in the product form (task TG2, session 22).

CANDIDATE 2 (pre-registered; ``docs/when_mvg_wins.md`` §9, "The second candidate"):
``matrixdp.models._moments.AUTO_TRIANGLES = True`` (task TG's dominance rule, unchanged: a
triangle version of an ``auto`` candidate only where it dominates it entry by entry, replace-one,
``x = x_max``) AND, wherever a first look was released through a weighted-triangle plan, its noise
read in the product-form metric ``s = _moments.noise_scale(V)`` instead of the diagonal's sd
``√V_ii`` (``coinpress.first_noise_scale(..., product_form=True)``, set by the adaptive release
and by CoinPress exactly when the first look's plan has a triangle layout; what reads ``Q``:
the whitening margin, the correlation ranking's scales and the resolve guards). Reason (task
TG's diagnosis, ``results/triangle_auto_gate.md`` and ``results/triangle_auto_margin_reading.md``):
the plain moments release loses no cell; the adaptive release's CoinPress margin was read from a
triangle's diagonal, 10-50x quieter than its off-diagonals, so the margin was too tight and the
adaptive decision flipped. Full-draw plans are unchanged bit for bit (tested in
``tests/models/test_coinpress.py`` and ``tests/models/test_adaptive.py``).

DEFAULT: ``AUTO_TRIANGLES = False`` (main). Families, estimators, metrics, tables, ε grids,
δ = 1e-6, replace-one, the cells' predicted change and the per-trial rows: EXACTLY those of
``experiments/triangle_auto_gate.py`` (imported from it), with NEW shared seeds:
``SeedSequence(2026113022).generate_state(20)`` (20 trials per cell, the same seed for both
rows; TG's gate used ``SeedSequence(20261130)``).

ADDED FAMILY (if it runs in time; the results file says whether it ran): ``correlation``,
``DPCovariance(kind="correlation")`` as a user gets it, relative Frobenius error of
``covariance_`` (the released correlation) against the clipped table's correlation, the
covariance grid ε in (0.1, 0.5, 1, 2, 5), the same 19 tables and seeds. Predicted change:
``plan_second_moment`` of the augmented ``"pca"`` task (the correlation's first look) at the
full ε.

RULE (TG's, unchanged; ``docs/decision_rules.md``, ``_paired_gate``), fixed before the run:

- G1: no changed cell FAILS the paired one-sided Wilcoxon of ``log(candidate/default)`` against
  ``log 1.10`` at α = 0.01 (``_paired_gate.cell_verdict``).
- G2: the median over ALL changed cells of TG's four families (covariance, PCA k = 2, PCA k = 5,
  regression; pooled) of the ratio of medians (candidate / default) is <= 0.99.
- G3: no family's median ratio of medians over its changed cells exceeds 1.00.

PRIMARY VERDICT: G1, G2, G3 on TG's four families (``results/triangle_auto_gate2.md``; the same
statistic as TG's gate). CORRELATION (``results/triangle_auto_gate2_correlation.md``): G1 and G3
on its own cells, judged the same way; it does not enter G2 (so that G2 stays TG's statistic).
The candidate goes to the never-seen check (``triangle_auto_check.py``, unchanged except that
candidate 2 is the code) iff the PRIMARY verdict passes; it is READY TO FLIP only if the primary
verdict, the correlation's G1 and G3 (if run) and the never-seen check all pass. Either way
``AUTO_TRIANGLES`` stays off this session (task TG2's brief).

Writes per-trial rows to ``results/_triangle_gate2/<family>_trials.csv`` and
``results/_triangle_gate2/correlation/correlation_trials.csv`` (checkpointed per cell: a killed
run resumes), the verdicts to ``results/triangle_auto_gate2{,_correlation}.{md,csv}``. Commands::

    PYTHONPATH=src nice -n 10 python experiments/triangle_auto_gate2.py --families covariance regression
    PYTHONPATH=src nice -n 10 python experiments/triangle_auto_gate2.py --families pca
    PYTHONPATH=src nice -n 10 python experiments/triangle_auto_gate2.py --families correlation
    PYTHONPATH=src python experiments/triangle_auto_gate2.py --analyse

Run log (execution only; rule, cells and seeds unchanged): PCA was slow on the shared machine
(recid ~110 s a cell), so a second worker ran the PCA tables in reverse order
(``--families pca --second-worker``, into ``results/_triangle_gate2/part2/``) and ``--analyse``
merged its cells, each cell once (a cell run by both workers is identical: same seeds, same code).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _utility_common as uc  # noqa: E402
import triangle_auto_gate as gate  # noqa: E402

from matrixdp.models import _moments  # noqa: E402

SEED = 2026113022
TRIALS_DIR = gate.OUT / "_triangle_gate2"
CORR_DIR = TRIALS_DIR / "correlation"
PART2_DIR = TRIALS_DIR / "part2"
SCRIPT = "experiments/triangle_auto_gate2.py"

_scorer, _predicted = gate.scorer, gate.predicted_change


def predicted_change(family, t, eps, k):
    if family != "correlation":
        return _predicted(family, t, eps, k)
    task, _, _ = _moments.augmented_task(t.lo, t.hi, t.n, "pca")
    with gate.switch(False):
        off = _moments.plan_second_moment(task, epsilon=eps, delta=uc.DELTA, noise="auto")[0]
    with gate.switch(True):
        on = _moments.plan_second_moment(task, epsilon=eps, delta=uc.DELTA, noise="auto")[0]
    return off.allocation != on.allocation


def scorer(family, t, eps, k):
    if family != "correlation":
        return _scorer(family, t, eps, k)
    from matrixdp.models import DPCovariance
    R = np.nan_to_num(np.corrcoef(t.X.T))
    np.fill_diagonal(R, 1.0)
    rn = float(np.linalg.norm(R))

    def f(s, on):
        with gate.switch(on):
            est = DPCovariance(kind="correlation", epsilon=eps, delta=uc.DELTA,
                               bounds=(t.lo, t.hi), random_state=s).fit(t.X)
        return float(np.linalg.norm(est.covariance_ - R) / rn), str(est.allocation_)
    return f


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--families", nargs="+", default=["covariance", "pca", "regression"],
                   choices=["covariance", "pca", "regression", "correlation"])
    p.add_argument("--analyse", action="store_true")
    p.add_argument("--second-worker", action="store_true",
                   help="execution only (rule, cells and seeds unchanged): the tables in reverse "
                        "order into results/_triangle_gate2/part2/, merged by --analyse")
    args = p.parse_args(argv)
    gate.SEED = SEED  # the new shared seeds (read by gate.run)
    gate.EPS["correlation"] = gate.EPS["covariance"]
    gate.scorer, gate.predicted_change = scorer, predicted_change
    if args.analyse:
        merge_second_worker()
        ok = gate.analyse(trials_dir=TRIALS_DIR, stem="triangle_auto_gate2",
                          title=f"issue #24's paired dev gate, candidate 2 (product-form first "
                                f"look; task TG2; seeds SeedSequence({SEED}))", script=SCRIPT)
        print("PRIMARY:", "PASS" if ok else "FAIL")
        if (CORR_DIR / "correlation_trials.csv").exists():
            okc = gate.analyse(trials_dir=CORR_DIR, stem="triangle_auto_gate2_correlation",
                               title=f"the correlation cells of candidate 2's gate (task TG2; "
                                     f"G1 and G3 only count; seeds SeedSequence({SEED}))",
                               script=SCRIPT)
            del okc  # gate.analyse's verdict includes G2, not part of the correlation's rule
            import csv
            with (gate.OUT / "triangle_auto_gate2_correlation.csv").open() as fh:
                ch = [r for r in csv.DictReader(fh) if r["changed"] == "True"]
            fails = sum(r["verdict"] == "FAIL" for r in ch)
            med = float(np.median([float(r["ratio"]) for r in ch])) if ch else float("nan")
            okc = fails == 0 and not med > 1.00
            line = (f"**Correlation's rule (G1 and G3 only): {'PASS' if okc else 'FAIL'}** "
                    f"({len(ch)} changed cells, {fails} FAIL, median ratio of medians "
                    f"{med:.3f}; the G2 line above is not part of its rule).")
            md = gate.OUT / "triangle_auto_gate2_correlation.md"
            text = md.read_text().split("\n")
            md.write_text("\n".join(text[:2] + [line, ""] + text[2:]))
            print(line)
        return
    for fam in args.families:
        if args.second_worker:
            gate.run([fam], table_list=gate.tables()[::-1], trials_dir=PART2_DIR)
        else:
            gate.run([fam], trials_dir=CORR_DIR if fam == "correlation" else TRIALS_DIR)


def merge_second_worker():
    """Execution detail (run log): the second worker's cells appended to the first worker's
    trial files, each cell once (a cell both ran is identical in both: same seeds, same code)."""
    import csv
    if not PART2_DIR.exists():
        return
    for part in sorted(PART2_DIR.glob("*_trials.csv")):
        dest = (CORR_DIR if part.stem.startswith("correlation") else TRIALS_DIR) / part.name
        with dest.open() as fh:
            done = {(r["table"], r["k"], r["epsilon"]) for r in csv.DictReader(fh)}
        with part.open() as fh:
            extra = [r for r in csv.DictReader(fh) if (r["table"], r["k"], r["epsilon"]) not in done]
        with dest.open("a", newline="") as fh:
            csv.DictWriter(fh, fieldnames=gate.FIELDS).writerows(extra)
        part.unlink()
        print(f"merged {len(extra)} rows of {part.name}")


if __name__ == "__main__":
    main()
