"""Task RL (issue #24), step 3: the dev gate of ``label_range="auto"`` against the regression default.

The candidate (ONE, fixed before this run): ``DPLinearRegression(label_range="auto")``
(``docs/regression.md`` §8b): under replace-one, when ``n ≥ records_needed(0.1 ε, 1, 1001)``
(``dp_bounds.label_range_rule``: ``n ≥ 793/ε``), 10% of ε (``LABEL_RANGE_FRACTION``) buys a DP
median and MAD of the label on the public box's 1001-point grid and the label is clipped to
``median ± 9 MAD`` (``LABEL_RANGE_WIDEN``) instead of the box, unless that DP range is flat (the DP
MAD in its grid's first interval: few-valued labels; post-processing), where the box is kept; the
fit gets the other 90% either way. Elsewhere (and under add/remove) the fit is the default's
(same seed, same draws: the cell is unchanged). The bounds draw from their own stream
(``dp_bounds.bounds_rng``), so the fit's draws are the default's on the same seed: paired.

The rule (``docs/decision_rules.md``, the paired gate with the session-16 amendment), written and
committed BEFORE the run:

- Cells: the 40 benchmark regression cells (``utility_regression``: the 7 tables of
  ``_utility_common.DATASETS`` and ``holdout_synthetic``, ε ∈ {0.3, 1, 3, 10, 30}) AND the 12
  MEASUREMENT tables' regression cells (``_check_tables_heldout.MEASUREMENT`` with their committed
  specs, ``heldout_table``; the same 5 ε): 100 cells.
- Setup: ``utility_regression.split`` (seed 0, 70/30), δ = 1e-6, replace-one, the public bounds of
  each table; metric: test MSE of the predictions clipped to the public label box
  (``utility_regression.test_metrics``' RMSE, squared).
- Trials: 30 per cell, seeds ``SeedSequence(20261202).generate_state(30)`` (not the diagnosis'
  seeds); default and candidate on each trial's seed.
- (G1) the candidate FAILS in 0 of the 100 cells: ``_paired_gate.cell_verdict(candidate,
  default)["fail"]`` (one-sided Wilcoxon of log(candidate/default) against log 1.10, α = 0.01);
- (G2) the median, over the CHANGED cells (the candidate's MSE differs from the default's in at
  least one trial), of median(candidate) / median(default) is ≤ 0.99, and at least one cell changed.
- PASS iff G1 and G2. Inconclusive cells (99% upper bound of the pseudo-median ratio > 1.20
  without a FAIL) are listed, not rerun. No change of rule or candidate after reading a result; a
  failed gate ships the candidate as an option only, and no check on never-seen tables is run.

Disclosed before the run: the diagnosis (``results/regression_label_range_diagnosis.md``, 20
trials, other seeds) and the widen exploration (``results/regression_label_range_widen.md``) were
read on these same development cells, and the widen 9 was chosen on them.

**Gate 2** (``--gate 2``; written and committed after gate 1's FAIL was read and BEFORE gate 2's
run). Gate 1 FAILED (``results/regression_label_range_gate.md``: G1 0 FAIL cells, G2 1.0027 over 87
changed cells), so the option ships as an option. Before documenting it, the outside audit's
loose_label scenario (development, ``loose_bounds_remedy.py``) showed that the gated candidate kept
the box there: its labels' spread is below the 1001-point grid's step (0.2 in [-100, 100]), so
the DP range was "flat" and the fallback threw the remedy away (1.19× the default at ε = 3, where
``DPBounds`` forced gives 0.0095×). The shipped option therefore puts the label's grid at
``LABEL_RANGE_POINTS = 100001`` points (flat then means ties, not a narrow continuous label) and
its rule becomes ``n ≥ records_needed(0.1 ε, 1, 100001)`` (``n ≥ 1161/ε``); nothing else changes.
Gate 2 judges THAT candidate by the same rule (cells, setup, G1, G2, PASS iff both) on new trial
seeds ``SeedSequence(20261203).generate_state(30)``; output
``results/regression_label_range_gate2.{md,csv}`` and ``..._gate2_trials.csv``. As for gate 1: a
failed gate 2 ships the candidate as an option only and no never-seen check is run; a passed gate
2 is followed by the pre-registered check (a new script, committed before any table is loaded).

Output: ``results/regression_label_range_gate.{md,csv}``, per trial
``results/regression_label_range_gate_trials.csv`` (checkpointed per cell: a killed run resumes).
Command: ``cd experiments && PYTHONPATH=../src python regression_label_range_gate.py``.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _paired_gate as pg  # noqa: E402
import _regression_sure as rsc  # noqa: E402
import _utility_common as uc  # noqa: E402
import regression_label_range_diagnosis as diag  # noqa: E402
import utility_regression as ur  # noqa: E402
from matrixdp.models.experimental import RegressionOptions

NAME = "regression_label_range_gate"
SEED = 20261202
TRIALS = 30
EPSILONS = ur.EPSILONS
MEDIAN_MAX = 0.99
FIELDS = ["set", "dataset", "epsilon", "trial", "seed", "n", "default", "auto", "label_range",
          "width", "clipped"]


def fit(t, eps, Xtr, ytr, seed, label_range):
    from matrixdp.models import DPLinearRegression

    return DPLinearRegression(epsilon=eps, delta=uc.DELTA, bounds_X=(t.lo, t.hi),
                              bounds_y=(t.y_lo, t.y_hi), random_state=seed,
                              experimental=RegressionOptions(label_range=label_range)).fit(Xtr, ytr)


def paired_trial(t, eps, Xtr, ytr, Xte, yte, s) -> dict:
    d = fit(t, eps, Xtr, ytr, s, "public")
    c = fit(t, eps, Xtr, ytr, s, "auto")
    lo, hi = (c.bounds_[2], c.bounds_[3]) if c.label_range_ == "dp" else (t.y_lo, t.y_hi)
    return {"n": len(ytr), "default": diag.mse(t, yte, d.predict(Xte)),
            "auto": diag.mse(t, yte, c.predict(Xte)), "label_range": c.label_range_,
            "width": (hi - lo) / (t.y_hi - t.y_lo),
            "clipped": float(np.mean((ytr < lo) | (ytr > hi)))}


GATE_SEEDS = {1: SEED, 2: 20261203}


def run(trials_n, gate=1):
    out = Path(__file__).resolve().parent.parent / "results"
    seeds = [int(s) for s in np.random.SeedSequence(GATE_SEEDS[gate]).generate_state(trials_n)]
    kinds = dict(diag.tables())
    t0 = time.time()

    def run_cell(name, t, eps):
        Xtr, ytr, Xte, yte = ur.split(t)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [{"set": kinds[name], "dataset": name, "epsilon": eps, "trial": i, "seed": s,
                     **paired_trial(t, eps, Xtr, ytr, Xte, yte, s)} for i, s in enumerate(seeds)]

    return rsc.run_cells(out / f"{stem(gate)}_trials.csv", FIELDS, list(kinds),
                         lambda n: diag.load(n, kinds[n]), run_cell, EPSILONS, t0), time.time() - t0


def stem(gate):
    return NAME if gate == 1 else f"{NAME}{gate}"


def analyse(trials, cand="auto"):
    cells = rsc.cells_of(trials, "set", "dataset", "epsilon")
    out = []
    for (kind, ds, eps), rs in cells.items():
        a = np.array([float(r[cand]) for r in rs])
        b = np.array([float(r["default"]) for r in rs])
        v = pg.cell_verdict(a, b)
        lr = [r["label_range"] for r in rs]
        out.append({"set": kind, "dataset": ds, "epsilon": eps, "n": int(rs[0]["n"]),
                    "trials": len(rs), "median_default": float(np.median(b)),
                    "median_auto": float(np.median(a)),
                    "ratio": float(np.median(a) / np.median(b)),
                    "hl_ratio": float(v["pseudo_median_ratio"]), "upper": float(v["upper"]),
                    "verdict": pg.verdict_label(v), "changed": bool(np.any(a != b)),
                    "dp_share": lr.count("dp") / len(lr), "flat_share": lr.count("flat") / len(lr),
                    "width": float(np.median([float(r["width"]) for r in rs])),
                    "clipped": float(np.median([float(r["clipped"]) for r in rs]))})
    return out


def table_lines(cells):
    L = ["| set | table | n | ε | default MSE | auto MSE | auto / default | HL ratio (99% upper) | "
         "verdict | DP range used | flat (box kept) | width / box | labels clipped |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        L.append(f"| {c['set']} | {c['dataset']} | {c['n']} | {c['epsilon']:g} | "
                 f"{c['median_default']:.4g} | {c['median_auto']:.4g} | {c['ratio']:.3f} | "
                 f"{c['hl_ratio']:.3f} ({c['upper']:.3f}) | {c['verdict']} | "
                 f"{c['dp_share']:.2f} | {c['flat_share']:.2f} | {c['width']:.3f} | "
                 f"{c['clipped']:.3f} |")
    return L


def report(cells, cmd, elapsed, gate=1):
    ok, lines = rsc.gate_lines(cells, "auto", MEDIAN_MAX)
    L = [f"# Dev gate{' 2' if gate == 2 else ''} of `label_range=\"auto\"` against the regression "
         "default (task RL, issue #24)",
         "", f"Generated by `experiments/regression_label_range_gate.py` (do not edit by hand). "
         f"Command: `{cmd}` ({elapsed / 60:.0f} min). The rule is the script's docstring, "
         f"committed before the run. {len(cells)} cells, {cells[0]['trials']} paired trials each "
         "(same seeds; the candidate's fit draws the default's noise, its bounds their own "
         "stream); test MSE, predictions clipped to the public label box. `DP range used`: share "
         "of trials whose label was clipped to the DP range; `flat`: estimated but flat, box kept; "
         "`width`, `labels clipped`: medians (the box and 0 where it was kept).", "",
         f"## Verdict: **{'PASS' if ok else 'FAIL'}**", ""] + lines + [""] + table_lines(cells)
    return "\n".join(L) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=TRIALS)
    p.add_argument("--analyse", action="store_true", help="only re-render from the trials CSV")
    p.add_argument("--gate", type=int, choices=(1, 2), default=1)
    a = p.parse_args(argv)
    out = Path(__file__).resolve().parent.parent / "results"
    name = stem(a.gate)
    if a.analyse:
        trials, elapsed = list(csv.DictReader(open(out / f"{name}_trials.csv"))), float("nan")
    else:
        trials, elapsed = run(a.trials, a.gate)
    cells = analyse(trials)
    cmd = "cd experiments && PYTHONPATH=../src python regression_label_range_gate.py" + (
        " --gate 2" if a.gate == 2 else "")
    (out / f"{name}.md").write_text(report(cells, cmd, elapsed, a.gate))
    uc.write_rows(out / f"{name}.csv", cells)


if __name__ == "__main__":
    main()
