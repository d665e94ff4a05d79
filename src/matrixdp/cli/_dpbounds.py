"""``{ dp = true }`` columns of a bounds file: their range estimated with DP, charged first.

A column marked ``dp = true`` has no known range: a share of the command's ε buys an
exponential-mechanism estimate over a PUBLIC grid (the column's ``lo``/``hi`` as the domain
searched, or the log-scale default grid), charged to the ledger as its own entry before any
draw (:func:`matrixdp.models.dp_bounds.dp_bounds`); the schema then carries the estimated
range like any public one. Derivation: ``docs/bounds.md``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import InvalidParameterError
from ._tables import Schema, design_matrix

__all__ = ["dp_columns", "resolve_dp_columns", "DP_BOUNDS_FRACTION"]

#: Share of the command's ε spent on the ranges of the ``dp = true`` columns.
DP_BOUNDS_FRACTION = 0.1


def dp_columns(schema: Schema) -> list:
    return [c for c in schema.columns if c.dp]


def resolve_dp_columns(schema: Schema, frame, *, epsilon: float, relation: str, ledger=None,
                       label: str = "DP bounds", rng=None, option: str = "INPUT", whole=None):
    """Estimate the ranges of the schema's ``dp = true`` columns; return ``(schema, guarantee,
    ranges)`` with the estimates in place (``guarantee`` None when no column asks for it).

    ``epsilon`` is spent whole on this step (ε / (2 k) per selection for k columns). ``whole``:
    ``(epsilon, delta)`` of the whole command (these ranges and the release that follows). It is
    checked as one guarantee by the ``ledger`` and the enclosing ``with`` blocks' keepers
    (``_budget.check``) before the ranges' entry is charged, so a budget too small for the command
    refuses it before anything is spent (the ranges' share was spent and the release refused;
    ``models/_base.check_whole_fit`` is the estimators' same rule). The whole as one guarantee
    dominates its two entries (conservative).
    """
    from ..models.dp_bounds import DPBounds, dp_bounds

    cols = dp_columns(schema)
    if not cols:
        return schema, None, {}
    if whole is not None:  # the ledger and the enclosing `with` blocks' keepers (task KB)
        from .._budget import check
        from ..mechanisms import PrivacyGuarantee

        check(PrivacyGuarantee(
            epsilon=float(whole[0]), delta=float(whole[1]), neighbouring=relation,
            calibration="basic composition", exact=False,
            mechanism="DP ranges of the dp = true columns, then the release"), ledger)
    # the other columns are checked now as the release / the generator will check them (missing
    # values, undeclared categories, text where numbers are expected): a table refused after
    # the ranges' entry spent their share on nothing (hunt DH2). Those the frame holds: the
    # audit's frames may leave out the target or a public constant
    design_matrix(frame, [c for c in schema.columns if not c.dp and c.name in frame.columns],
                  option=option, clip=True)
    X = np.empty((frame.shape[0], len(cols)))
    for j, col in enumerate(cols):
        series = frame[col.name]
        try:
            x = series.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidParameterError(option, f"column {col.name!r} is not numeric") from None
        if not np.isfinite(x).all():
            raise InvalidParameterError(option, f"column {col.name!r} has missing or non-finite "
                                                "values; impute or drop them first")
        X[:, j] = x
    ranges = {}
    guarantees = []
    # columns with a public domain each get a linear grid in it; the others the log-scale grid
    # columns with a two-sided domain share one linear-grid release; the others are grouped by
    # their one-sided cut of the log-scale grid (e.g. lo = 0 for a non-negative quantity)
    groups = {}
    for j, col in enumerate(cols):
        key = ("linear",) if col.lo is not None and col.hi is not None else ("log", col.lo, col.hi)
        groups.setdefault(key, []).append(j)
    share = epsilon / len(cols)
    for key, idx in groups.items():
        spec = (DPBounds(domain=(key[1], key[2])) if key[0] == "log" else
                DPBounds(domain=(np.array([cols[j].lo for j in idx]),
                                 np.array([cols[j].hi for j in idx]))))
        lo, hi, g = dp_bounds(X[:, idx], epsilon=share * len(idx), spec=spec,
                              neighbouring=relation, rng=rng, label=label, accountant=ledger)
        guarantees.append(g)
        for k, j in enumerate(idx):
            ranges[cols[j].name] = (float(lo[k]), float(hi[k]))
    new = tuple(replace(c, lo=ranges[c.name][0], hi=ranges[c.name][1]) if c.dp else c
                for c in schema.columns)
    total = guarantees[0]
    for g in guarantees[1:]:
        total = total + g
    return Schema(new, target=schema.target, source=schema.source), total, ranges
