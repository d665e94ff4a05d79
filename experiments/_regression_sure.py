"""What task RS's scripts of ``slope_shrink="sure"`` share (issue #24): the paired fit of the
default and the candidate, the per-cell checkpointed trial loop, and the grouping of trials into
cells.

Used by ``regression_sure_gate.py`` (the dev gate), ``regression_sure_check.py`` (the check on
never-seen tables) and ``regression_sure_dev.py`` (the diagnosis on the outside audit's synthetic
scenarios); each keeps its own rule (its docstring), cells, rows, analysis and report. Moved here
unchanged:

- :func:`fit`, :func:`paired_trial`: ``DPLinearRegression(noise="auto")`` at the table's public
  bounds with ``slope_shrink`` ``"none"`` (the default) and ``"sure"`` (the candidate) on one
  trial's seed; the candidate is post-processing of the default's release (asserted);
- :func:`run_cells`: the per-cell loop, checkpointed into ``<out>/<name>_trials.csv`` (a killed run
  resumes; a cell is ``(table, ε)``);
- :func:`cells_of`: trials grouped by cell, in first-seen order;
- :func:`tables`, :func:`load`: the development regression tables (the benchmark's
  ``_utility_common.DATASETS`` and the MEASUREMENT tables with a committed spec), also used by task
  RL's ``regression_label_range_diagnosis.py`` and (through it) ``regression_label_range_gate.py``;
- :func:`gate_lines`: the G1 / G2 / inconclusive / ±10% lines of the dev gates whose G2 is the
  median over the changed cells (``regression_sure_gate.py``, ``regression_label_range_gate.py``).
"""

from __future__ import annotations

import csv
import time

import numpy as np

import _utility_common as uc
import utility_regression as ur
from matrixdp.models.experimental import RegressionOptions


def fit(t, eps, Xtr, ytr, seed, shrink):
    from matrixdp.models import DPLinearRegression

    return DPLinearRegression(epsilon=eps, delta=uc.DELTA, bounds_X=(t.lo, t.hi),
                              bounds_y=(t.y_lo, t.y_hi), noise="auto", random_state=seed,
                              experimental=RegressionOptions(slope_shrink=shrink)).fit(Xtr, ytr)


def paired_trial(t, eps, Xtr, ytr, Xte, yte, s) -> dict:
    """The default's and the candidate's test RMSE on seed ``s``, the chosen ridge (``nan``: not
    computed) and the default's branch."""
    d = fit(t, eps, Xtr, ytr, s, "none")
    c = fit(t, eps, Xtr, ytr, s, "sure")
    assert np.array_equal(d.moments_, c.moments_)  # the same release (post-processing)
    return {"default": ur.test_metrics(t, yte, d.predict(Xte))[0],
            "sure": ur.test_metrics(t, yte, c.predict(Xte))[0],
            "lam": c.sure_ridge_ if c.sure_ridge_ is not None else float("nan"),
            "branch": d.boost_branch_}


def run_cells(path, fields, names, load, run_cell, epsilons, t0, run=True) -> list:
    """The trials of ``path`` (as strings) plus, if ``run``, those of every ``(name, ε)`` cell not
    yet there: ``load(name)`` (once per table, only if one of its cells is missing) and
    ``run_cell(name, t, eps)`` -> rows, appended and flushed per cell."""
    trials = list(csv.DictReader(open(path))) if path.exists() else []
    done = {(r["dataset"], float(r["epsilon"])) for r in trials}
    if not run:
        return trials
    fh = open(path, "a", newline="")
    w = csv.DictWriter(fh, fieldnames=fields)
    if not trials:
        w.writeheader()
    for name in names:
        t = None
        for eps in epsilons:
            if (name, eps) in done:
                continue
            t = t or load(name)
            rows = run_cell(name, t, eps)
            w.writerows(rows)
            fh.flush()
            trials += [{k: str(v) for k, v in r.items()} for r in rows]
            print(f"[{time.time() - t0:5.0f}s] {name} ε={eps:g}", flush=True)
    fh.close()
    return trials


def cells_of(trials, *cols) -> dict:
    """``{(trial[c] for c in cols[:-1]) + (float(trial[cols[-1]]),): [trials]}`` (the last column
    is ε), in first-seen order."""
    cells = {}
    for r in trials:
        cells.setdefault(tuple(r[c] for c in cols[:-1]) + (float(r[cols[-1]]),), []).append(r)
    return cells


def tables():
    """``[(name, "benchmark" | "measurement")]``: the development regression tables."""
    import _check_tables_heldout as ht

    bench = [(name, "benchmark") for name in uc.DATASETS]
    specs = ht.specs()
    meas = [(name, "measurement") for name in ht.MEASUREMENT if name in specs]
    return bench + meas


def load(name, kind):
    import _check_tables_heldout as ht

    return uc.load_table(name) if kind == "benchmark" else ht.heldout_table(name)


def gate_lines(cells, label, median_max):
    """``(passed, lines)`` of a dev gate: G1 no FAIL cell; G2 the median over the changed cells of
    ``median(label)/median(default)`` (``cell["ratio"]``) ≤ ``median_max``; the inconclusive cells
    and the cells ±10% are listed, not part of the rule."""
    fails = [c for c in cells if c["verdict"] == "FAIL"]
    inc = [c for c in cells if c["verdict"] == "inconclusive"]
    changed = [c for c in cells if c["changed"]]
    med = float(np.median([c["ratio"] for c in changed])) if changed else float("nan")
    ok = not fails and bool(changed) and med <= median_max
    return ok, [
        f"- (G1) cells where the candidate FAILS against the default: **{len(fails)}**"
        + (" (" + ", ".join(f"{c['dataset']} ε={c['epsilon']:g}: {c['ratio']:.3g}" for c in fails)
           + ")" if fails else ""),
        f"- (G2) median over the {len(changed)} changed cells of median({label})/median(default): "
        f"**{med:.4f}** (needs ≤ {median_max})",
        f"- inconclusive (no FAIL, 99% upper bound > 1.20): {len(inc)}"
        + (" (" + ", ".join(f"{c['dataset']} ε={c['epsilon']:g}" for c in inc) + ")" if inc else ""),
        f"- cells better by ≥ 10% (ratio ≤ 0.90): {sum(c['ratio'] <= 0.90 for c in cells)}; "
        f"worse by ≥ 10% (ratio ≥ 1.10): {sum(c['ratio'] >= 1.10 for c in cells)}"]
