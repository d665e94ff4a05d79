"""The per-trial files of the paired DPCovariance gates and checks (issue #24): a trials CSV with
its shard files, and the cell loop that fills it.

Used by ``adaptive_refine_gate.py``, ``adaptive_refine_check.py`` (task HC) and
``correlation_guard_gate.py`` (task CG; its ``run_cells`` and ``load`` are also
``correlation_guard_check.py``'s). Each keeps its rule (its docstring), cells, rows, estimator,
verdicts and report; this module holds only their shared file handling and loop, moved unchanged:

- :func:`parts`, :func:`rows`: the trials file and its shard files (``--shard``: execution only,
  the same cells, seeds and rule), those that exist, in that order, and their rows;
- :func:`run_cells`: per cell, every row on every trial's seed not yet in any part, appended to the
  trials file (or to the shard's) and flushed per cell: a killed run resumes.
"""

from __future__ import annotations

import csv
import warnings
from pathlib import Path


def parts(path: Path) -> list:
    """The trials file and its shard files, in that order, those that exist."""
    return [q for q in [path, *sorted(path.parent.glob(f"{path.stem}.shard*{path.suffix}"))]
            if q.exists()]


def rows(path: Path):
    """The rows (``csv.DictReader``) of every part of ``path``, part by part."""
    for part in parts(path):
        with open(part, newline="") as fh:
            yield from csv.DictReader(fh)


def shard_path(path: Path, shard) -> Path:
    """The file of shard ``(i, n)``: ``<stem>.shard<i><suffix>``."""
    return path.with_name(f"{path.stem}.shard{shard[0]}{path.suffix}")


def run_cells(cells, seeds, trial_rows, path: Path, fields, key_cols, label, fitter, scorer,
              progress, offset: int = 0, shard=None) -> None:
    """Run the missing (cell, row, trial) of ``cells``.

    ``label(cell)``: the cell's identifying columns (a dict, ε under ``"epsilon"``);
    ``key_cols``: those of them that, with the row and the trial number, identify a trial (ε read
    back as a float, the trial as an int); ``fitter(row, cell)``: ``seed -> fitted estimator``;
    ``scorer(cell)``: ``estimator -> {measured column: value}`` (built once per cell);
    ``progress(cell)``: the line printed when a cell is done. Trials are numbered ``offset + i``
    for the ``i``-th seed; with ``shard``, written to :func:`shard_path`."""
    done = {tuple(float(r[c]) if c == "epsilon" else r[c] for c in key_cols)
            + (r["row"], int(r["trial"])) for r in rows(path)}
    if shard is not None:
        path = shard_path(path, shard)
    new = not path.exists()
    with open(path, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        if new:
            w.writeheader()
        for cell in cells:
            lab = label(cell)
            key = tuple(lab[c] for c in key_cols)
            score = scorer(cell)
            out = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for row in trial_rows:
                    fit = fitter(row, cell)
                    for i, s in enumerate(seeds):
                        if key + (row, offset + i) in done:
                            continue
                        out.append({**lab, "row": row, "trial": offset + i, "seed": s,
                                    **score(fit(s))})
            w.writerows(out)
            fh.flush()
            print(progress(cell), flush=True)
