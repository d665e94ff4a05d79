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
- :func:`cells_of`: trials grouped by cell, in first-seen order.
"""

from __future__ import annotations

import csv
import time

import numpy as np

import _utility_common as uc
import utility_regression as ur


def fit(t, eps, Xtr, ytr, seed, shrink):
    from matrixdp.models import DPLinearRegression

    return DPLinearRegression(epsilon=eps, delta=uc.DELTA, bounds_X=(t.lo, t.hi),
                              bounds_y=(t.y_lo, t.y_hi), noise="auto", random_state=seed,
                              slope_shrink=shrink).fit(Xtr, ytr)


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
