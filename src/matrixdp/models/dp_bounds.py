"""Bounds for a curator who has none: DP quantiles over a public grid, charged like any release.

``bounds="dp"`` (or a :class:`DPBounds`) in the estimators spends a share of their ε on an
exponential-mechanism estimate of a low and a high quantile of every column, over a PUBLIC grid
of candidates (a public domain split evenly, or by default a log-scale grid of magnitudes), and
uses the selected grid points as the clipping bounds. The estimate is charged to the same budget
keeper as the fit, as its own entry, before any draw; nothing is read off the data but through
the mechanism. Derivation, grids and what it costs: ``docs/bounds.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..calibration.quantile import linear_grid, log_scale_grid, quantile_utility_sensitivity
from ..errors import InvalidParameterError
from ..mechanisms.exponential import ExponentialMechanism
from ..queries.quantile import quantile_scores

__all__ = ["DPBounds", "dp_bounds", "DEFAULT_QUANTILES", "DEFAULT_FRACTION"]

#: The quantiles released (the quartiles: many records on each side, so few are needed).
DEFAULT_QUANTILES = (0.25, 0.75)
#: Tukey's fences: the bounds are ``Q1 - w IQR`` and ``Q3 + w IQR`` (post-processing).
DEFAULT_WIDEN = 1.5
#: Share of an estimator's ε spent on ``bounds="dp"``.
DEFAULT_FRACTION = 0.1


@dataclass(frozen=True)
class DPBounds:
    """How to estimate bounds with DP (all fields public).

    Parameters
    ----------
    fraction : float in (0, 1), default 0.1
        Share of the estimator's ε spent on the bounds (the rest goes to the fit).
    domain : (lower, upper), optional
        PUBLIC range every value certainly lies in (scalars or one per feature), split into
        ``n_points`` equally spaced candidates. ``None``: the log-scale grid
        :func:`~matrixdp.calibration.quantile.log_scale_grid` (0 and ±10^(k/8), 1e-4 to 1e9).
    n_points : int, default 1001
        Candidates per feature with a ``domain``.
    quantiles : (float, float), default (0.25, 0.75)
        The quantiles released (``q_lo < q_hi``).
    widen : float, default 1.5
        The bounds are ``Q_lo - widen (Q_hi - Q_lo)`` and ``Q_hi + widen (Q_hi - Q_lo)``
        (Tukey's fences for the quartiles), moved outward to grid points and kept inside
        ``domain``; ``widen=0`` uses the two quantiles themselves (e.g. ``quantiles=(0.01,
        0.99)``). Post-processing of the released grid points: no budget.
    """

    fraction: float = DEFAULT_FRACTION
    domain: tuple | None = None
    n_points: int = 1001
    quantiles: tuple = DEFAULT_QUANTILES
    widen: float = DEFAULT_WIDEN

    def __post_init__(self):
        f = self.fraction
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not 0.0 < f < 1.0:
            raise InvalidParameterError("bounds", f"DPBounds.fraction must be in (0, 1), got {f!r}")
        q = tuple(float(v) for v in self.quantiles)
        if len(q) != 2 or not 0.0 < q[0] < q[1] < 1.0:
            raise InvalidParameterError("bounds", "DPBounds.quantiles must be (q_lo, q_hi) with "
                                                  f"0 < q_lo < q_hi < 1, got {self.quantiles!r}")
        object.__setattr__(self, "quantiles", q)
        w = self.widen
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not (math.isfinite(w)
                                                                          and w >= 0):
            raise InvalidParameterError("bounds", f"DPBounds.widen must be >= 0, got {w!r}")


def as_dp_bounds(bounds):
    """The :class:`DPBounds` named by ``bounds`` (``"dp"`` or an instance), or None."""
    if isinstance(bounds, DPBounds):
        return bounds
    if isinstance(bounds, str):
        if bounds == "dp":
            return DPBounds()
        raise InvalidParameterError("bounds", f"the only string accepted is 'dp', got {bounds!r}")
    return None


def _grids(spec: DPBounds, d: int) -> np.ndarray:
    """(d, m) public candidates per feature."""
    if spec.domain is None:
        return np.tile(log_scale_grid(), (d, 1))
    try:
        lo, hi = spec.domain
    except (TypeError, ValueError):
        raise InvalidParameterError("bounds", "DPBounds.domain must be a pair (lower, upper)") \
            from None
    lo = np.broadcast_to(np.asarray(lo, dtype=np.float64), (d,))
    hi = np.broadcast_to(np.asarray(hi, dtype=np.float64), (d,))
    return np.stack([linear_grid(a, b, spec.n_points) for a, b in zip(lo, hi)])


def dp_bounds(X, *, epsilon: float, spec=None, neighbouring: str = "replace-one", rng=None,
              accountant=None, label: str = "DP bounds", charging=None):
    """ε-DP lower and upper bounds of every column of ``X`` (exponential-mechanism quantiles).

    Parameters
    ----------
    X : array_like of shape (n, d)
        Records (finite, in memory).
    epsilon : float
        The whole ε of the estimate (2d selections of ε / (2d) each; pure DP).
    spec : DPBounds or "dp", optional
        Grid and quantiles (default :class:`DPBounds`).
    neighbouring : {"replace-one", "add-remove"}
    rng : None, int or numpy.random.Generator
        ``None``: the secure stream. A seeded estimate is replayable by whoever knows the seed.
    accountant : budget keeper, optional
        Charged before the draw (the estimators pass their ``charging`` hook's keeper);
        ``None``: the keepers of enclosing ``with`` blocks.
    label : str
        Public label of the ledger entry.
    charging : callable, optional
        ``charging(privacy)`` -> the context manager the selection runs in (the estimators'
        hook); overrides ``accountant``.

    Returns
    -------
    lower, upper : ndarray of shape (d,)
        Selected grid points (``lower <= upper``).
    privacy : PrivacyGuarantee
        ``(epsilon, 0)`` under ``neighbouring``.

    References
    ----------
    .. [1] docs/bounds.md.
    """
    from .._budget import charge

    spec = DPBounds() if spec is None else as_dp_bounds(spec)
    A = np.asarray(X, dtype=np.float64)
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2 or A.shape[0] < 1 or not np.all(np.isfinite(A)):
        raise InvalidParameterError("X", "DP bounds need a finite (n, d) table in memory")
    d = A.shape[1]
    grids = _grids(spec, d)
    q_lo, q_hi = spec.quantiles
    sens = max(quantile_utility_sensitivity(q, str(neighbouring)) for q in (q_lo, q_hi))
    scores = np.concatenate([
        np.concatenate([quantile_scores(A[:, j], grids[j], q) for j in range(d)])
        for q in (q_lo, q_hi)])  # rows: lower bounds of every feature, then upper bounds
    mech = ExponentialMechanism(epsilon=epsilon, sensitivity=sens, neighbouring=neighbouring)
    block = (charge(mech.privacy, accountant=accountant, label=label) if charging is None
             else charging(mech.privacy))
    with block:
        rel = mech.release(scores, rng=rng)
    idx = ExponentialMechanism.indices(rel)
    lower, upper = widen_to_grid(grids, idx[:d], idx[d:], spec.widen)
    return lower, upper, rel.privacy


def widen_to_grid(grids: np.ndarray, i_lo: np.ndarray, i_hi: np.ndarray, widen: float):
    """Bounds from the selected grid indices (post-processing, public grid only).

    ``[a - w (b - a), b + w (b - a)]`` for the selected points ``a <= b``, moved outward to the
    nearest grid points and clipped to the grid's ends; when both ends meet, one grid step is
    added on each side, so ``lower < upper``.
    """
    d, m = grids.shape
    lo_i, hi_i = np.minimum(i_lo, i_hi), np.maximum(i_lo, i_hi)
    rows = np.arange(d)
    a, b = grids[rows, lo_i], grids[rows, hi_i]
    spread = float(widen) * (b - a)
    out_lo = np.empty(d, dtype=np.int64)
    out_hi = np.empty(d, dtype=np.int64)
    for j in range(d):  # one searchsorted per feature (d is the number of columns)
        out_lo[j] = max(0, np.searchsorted(grids[j], a[j] - spread[j], side="right") - 1)
        out_hi[j] = min(m - 1, np.searchsorted(grids[j], b[j] + spread[j], side="left"))
    same = out_lo == out_hi
    out_lo[same] = np.maximum(out_lo[same] - 1, 0)
    out_hi[same] = np.minimum(out_hi[same] + 1, m - 1)
    return grids[rows, out_lo], grids[rows, out_hi]


def bounds_rng(random_state):
    """The generator of the bounds step: an independent stream for an int seed (the fit's own
    stream stays as it is), the caller's Generator otherwise (sequential use), or the secure one."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(random_state),
                                                                            0x62646e64])))
    return random_state


def split_epsilon(epsilon: float, spec: DPBounds) -> tuple[float, float]:
    """(ε of the bounds, ε left for the fit)."""
    eb = float(epsilon) * spec.fraction
    return eb, float(epsilon) - eb if math.isfinite(epsilon) else epsilon
