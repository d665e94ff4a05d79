"""Bounds for a curator who has none: DP quantiles over a public grid, charged like any release.

``bounds="dp"`` (or a :class:`DPBounds`) in the estimators spends a share of their ε on an
exponential-mechanism estimate of every column's median and median absolute deviation (or of a
low and a high quantile), over the intervals of a PUBLIC grid (a public domain split evenly, or
by default a log-scale grid of magnitudes), and uses the selected intervals' outer ends as the
clipping bounds. The estimate is charged to the same budget
keeper as the fit, as its own entry, before any draw; nothing is read off the data but through
the mechanism. Derivation, grids and what it costs: ``docs/bounds.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import min_records
from ..calibration.quantile import linear_grid, log_scale_grid, quantile_utility_sensitivity
from ..errors import InvalidParameterError
from ..mechanisms.exponential import ExponentialMechanism
from ..queries.quantile import quantile_scores

__all__ = ["DPBounds", "dp_bounds", "DEFAULT_QUANTILES", "DEFAULT_FRACTION",
           "records_needed", "label_range_rule", "LABEL_RANGE_FRACTION", "LABEL_RANGE_WIDEN",
           "LABEL_RANGE_POINTS"]

#: The quantiles released (the quartiles: many records on each side, so few are needed).
DEFAULT_QUANTILES = (0.25, 0.75)
#: Tukey's fences: the bounds are ``Q1 - w IQR`` and ``Q3 + w IQR`` (post-processing).
DEFAULT_WIDEN = 1.5
#: Bounds ``median ± 4.5 MAD`` (±3 sd for normal data: MAD = 0.674 sd).
DEFAULT_MAD_WIDEN = 4.5
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
        :func:`~matrixdp.calibration.quantile.log_scale_grid` (0 and ±10^(k/8), 1e-4 to 1e9);
        a one-sided ``(0, None)`` keeps the part of that grid >= 0 (a non-negative quantity),
        which halves the candidates and so the budget the estimate needs.
    n_points : int, default 1001
        Candidates per feature with a ``domain``.
    method : {"median-mad", "quantiles"}, default "median-mad"
        ``"median-mad"``: a DP median interval ``[a, b]``, then a DP median absolute deviation
        (MAD) around its midpoint (each half the budget; the MAD is its interval's upper end);
        bounds the hull of ``[a, b]`` and ``midpoint ± widen · MAD``. ``"quantiles"``: the two
        ``quantiles``' intervals, ``a`` the lower end of the lower one's, ``b`` the upper end of
        the upper one's; bounds ``a - widen (b - a)``, ``b + widen (b - a)``.
        The median's utility gap (n/2 for a far candidate) is twice a quartile's (n/4), so
        ``"median-mad"`` needs about half the budget (docs/bounds.md).
    quantiles : (float, float), default (0.25, 0.75)
        The quantiles of ``method="quantiles"`` (``q_lo < q_hi``).
    widen : float, optional
        Default 4.5 for ``"median-mad"`` (about ±3 standard deviations of normal data) and
        1.5 for ``"quantiles"`` (Tukey's fences). The bounds are moved outward to grid points
        and kept inside ``domain``. Post-processing of the released grid points: no budget.
    """

    fraction: float = DEFAULT_FRACTION
    domain: tuple | None = None
    n_points: int = 1001
    quantiles: tuple = DEFAULT_QUANTILES
    widen: float | None = None
    method: str = "median-mad"

    def __post_init__(self):
        f = self.fraction
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not 0.0 < f < 1.0:
            raise InvalidParameterError("bounds", f"DPBounds.fraction must be in (0, 1), got {f!r}")
        q = tuple(float(v) for v in self.quantiles)
        if len(q) != 2 or not 0.0 < q[0] < q[1] < 1.0:
            raise InvalidParameterError("bounds", "DPBounds.quantiles must be (q_lo, q_hi) with "
                                                  f"0 < q_lo < q_hi < 1, got {self.quantiles!r}")
        object.__setattr__(self, "quantiles", q)
        if self.method not in ("median-mad", "quantiles"):
            raise InvalidParameterError("bounds", "DPBounds.method must be 'median-mad' or "
                                                  f"'quantiles', got {self.method!r}")
        if self.widen is None:
            object.__setattr__(self, "widen", DEFAULT_WIDEN if self.method == "quantiles"
                               else DEFAULT_MAD_WIDEN)
        w = self.widen
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not (math.isfinite(w)
                                                                          and w >= 0):
            raise InvalidParameterError("bounds", f"DPBounds.widen must be >= 0, got {w!r}")


def as_dp_bounds(bounds, argument: str = "bounds"):
    """The :class:`DPBounds` named by ``bounds`` (``"dp"`` or an instance), or None.
    ``argument``: the estimator's name for it in an error (``bounds_X``, ``bounds_y``)."""
    if isinstance(bounds, DPBounds):
        return bounds
    if isinstance(bounds, str):
        if bounds == "dp":
            return DPBounds()
        raise InvalidParameterError(argument, f"the only string accepted is 'dp', got {bounds!r}")
    return None


def joint_spec(spec_x: DPBounds, spec_y: DPBounds, d: int) -> DPBounds:
    """One :class:`DPBounds` for the columns ``[X, y]`` of a regression whose ``bounds_X`` and
    ``bounds_y`` are both DP (one exponential-mechanism release estimates both): the features'
    domain (broadcast to ``d``) followed by the target's. The two specs must agree on everything
    but the domain, and give a two-sided domain both or neither (the candidates of every column
    are then of one kind); otherwise a clear error, never one spec silently used for both."""
    from dataclasses import replace

    if replace(spec_x, domain=None) != replace(spec_y, domain=None):
        raise InvalidParameterError(
            "bounds_y", "with bounds_X also DP, both DPBounds must share fraction, n_points, "
                        "method, quantiles and widen (one release estimates both); they differ")
    dx, dy = spec_x.domain, spec_y.domain
    if dx is None and dy is None:
        return spec_x
    two_sided = [dom is not None and all(v is not None for v in dom) for dom in (dx, dy)]
    if not all(two_sided):
        if dx is not None and dy is not None and all(np.ndim(v) == 0 for v in (*dx, *dy)) \
                and tuple(dx) == tuple(dy):
            return spec_x  # the same one-sided scalar domain for every column
        raise InvalidParameterError(
            "bounds_y", "with bounds_X also DP, give both DPBounds a two-sided domain "
                        "(lower, upper), or neither")
    (lo_x, hi_x), (lo_y, hi_y) = dx, dy
    if np.ndim(lo_y) != 0 or np.ndim(hi_y) != 0:
        raise InvalidParameterError("bounds_y", "DPBounds.domain of the target takes scalars")
    lo = np.append(np.broadcast_to(np.asarray(lo_x, dtype=np.float64), (d,)), float(lo_y))
    hi = np.append(np.broadcast_to(np.asarray(hi_x, dtype=np.float64), (d,)), float(hi_y))
    return replace(spec_x, domain=(lo, hi))


def _grids(spec: DPBounds, d: int) -> np.ndarray:
    """(d, m) public candidates per feature."""
    if spec.domain is None:
        return np.tile(log_scale_grid(), (d, 1))
    try:
        lo, hi = spec.domain
    except (TypeError, ValueError):
        raise InvalidParameterError("bounds", "DPBounds.domain must be a pair (lower, upper)") \
            from None
    if lo is None or hi is None:  # a one-sided public domain: the log grid cut at that side
        for v in (lo, hi):
            if v is not None and np.ndim(v) != 0:
                raise InvalidParameterError("bounds", "a one-sided DPBounds.domain takes scalars, "
                                                      "e.g. (0, None)")
        return np.tile(log_scale_grid(lower=lo, upper=hi), (d, 1))
    lo = np.broadcast_to(np.asarray(lo, dtype=np.float64), (d,))
    hi = np.broadcast_to(np.asarray(hi, dtype=np.float64), (d,))
    return np.stack([linear_grid(a, b, spec.n_points) for a, b in zip(lo, hi)])


def records_needed(epsilon: float, n_features: int, n_candidates: int) -> float:
    """Records above which a median selection of ``epsilon / (2 d)`` is reliable.

    A candidate far from the data has utility ``-n/2`` against 0 at the median, so the far
    candidates together hold at most ``m exp(-ε_row n / 4)`` of the probability; this is below
    ``e^-3`` (5%) when ``n >= 4 (log m + 3) / ε_row`` with ``ε_row = ε / (2 d)`` (docs/bounds.md).
    """
    eps_row = float(epsilon) / (2.0 * int(n_features))
    return 4.0 * (math.log(int(n_candidates)) + 3.0) / eps_row


#: ``label_range="auto"`` of the regressions: the share of ε its DP label range spends.
LABEL_RANGE_FRACTION = 0.1
#: ``label_range="auto"``: the DP label range is the DP median ± this many DP MADs (wider than
#: ``DEFAULT_MAD_WIDEN``: a label clipped inside its public box biases the fit; on the development
#: tables 4.5 MADs clipped 18% of a skewed label (401ksubs) and lost 1.19×,
#: ``results/regression_label_range_widen.md``).
LABEL_RANGE_WIDEN = 9.0
#: ``label_range="auto"``: points of the label's public grid (its box split evenly). Fine, so that
#: "flat" (the DP MAD in its grid's first interval) means ties (more than half of the labels share
#: one value: 0/1 labels, zero-inflated amounts), not a continuous label narrower than a coarse
#: grid step: with 1001 points the outside audit's loose_label (labels in [-1, 1] in a box of
#: [-100, 100], step 0.2) was flat and kept the box (``results/loose_bounds_remedy.md``).
LABEL_RANGE_POINTS = 100_001


def label_range_rule(n: int, epsilon: float, neighbouring: str = "replace-one") -> bool:
    """Whether ``label_range="auto"`` estimates the label's range inside its public box.

    From public inputs only: the record count ``n`` (public under replace-one only) and the
    estimator's ``epsilon``. True iff the relation is replace-one and ``n`` is at least
    :func:`records_needed` for one column at ``LABEL_RANGE_FRACTION · epsilon`` on the box's
    ``LABEL_RANGE_POINTS``-point grid (a DP median then lands within the data with probability
    ≥ 95%; ``docs/bounds.md``): ``n ≥ 1161 / epsilon``. Under add/remove ``n`` is private and the public
    box is kept (False). ``docs/regression.md`` §8b.
    """
    if str(neighbouring) != "replace-one":
        return False
    return int(n) >= records_needed(LABEL_RANGE_FRACTION * float(epsilon), 1, LABEL_RANGE_POINTS)


def dp_bounds(X, *, epsilon: float, spec=None, neighbouring: str = "replace-one", rng=None,
              accountant=None, label: str = "DP bounds", charging=None,
              return_flat: bool = False):
    """ε-DP lower and upper bounds of every column of ``X`` (exponential-mechanism quantiles).

    Parameters
    ----------
    X : array_like of shape (n, d)
        Records (finite, in memory).
    epsilon : float
        The whole ε of the estimate (2d selections of ε / (2d) each, basic composition; pure DP).
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
    return_flat : bool, default False
        Also return ``flat`` (boolean, shape ``(d,)``): the columns whose DP spread is below the
        grid's resolution (``"median-mad"``: the DP MAD's interval is the first of its grid, or
        ``widen · MAD`` is at most half the median interval's width; more than half of the
        records may share one value), read off the DP output only (post-processing); the
        warning about them is then left to the caller. Always all False for ``"quantiles"``.

    Returns
    -------
    lower, upper : ndarray of shape (d,)
        Grid points (``lower < upper``): the outer ends of the selected intervals, widened
        (``DPBounds.method``) and moved outward to the grid.
    privacy : PrivacyGuarantee
        ``(epsilon, 0)`` under ``neighbouring``.
    flat : ndarray of bool, shape (d,)
        Only with ``return_flat=True`` (see there).

    References
    ----------
    .. [1] docs/bounds.md.
    """
    from .._budget import charge

    spec = DPBounds() if spec is None else as_dp_bounds(spec)
    A = np.asarray(X, dtype=np.float64)
    if A.ndim == 1:
        A = A[:, None]
    # an empty table: refused under replace-one, released under add-remove (min_records)
    if A.ndim != 2 or A.shape[0] < min_records(str(neighbouring)) or \
            not np.all(np.isfinite(A)):
        raise InvalidParameterError("X", "DP bounds need a finite (n, d) table in memory")
    d = A.shape[1]
    grids = _grids(spec, d)
    rows = np.arange(d)
    if spec.domain is None or any(v is None for v in spec.domain):
        # the record count is public under replace-one; the warning says nothing more
        if str(neighbouring) == "replace-one" and A.shape[0] < records_needed(
                epsilon, d, grids.shape[1]):
            import warnings

            warnings.warn(
                f"bounds='dp' over the log-scale grid: with epsilon={epsilon:.3g} for the bounds "
                f"of {d} column(s) the estimate needs about "
                f"{records_needed(epsilon, d, grids.shape[1]):,.0f} records to be reliable; give "
                "a PUBLIC domain (DPBounds(domain=(lo, hi)), or lo/hi with dp = true in a bounds "
                "file) or a larger share of epsilon (docs/bounds.md)", UserWarning, stacklevel=3)
    if spec.method == "quantiles":
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
        idx = ExponentialMechanism.indices(rel)  # selected intervals [g_i, g_i+1]
        # the intervals' OUTER ends: the lower quantile's lower end, the upper one's upper end
        a = grids[rows, np.minimum(idx[:d], idx[d:])]
        b = grids[rows, np.maximum(idx[:d], idx[d:]) + 1]
        lower, upper = snap_outward(grids, a - spec.widen * (b - a), b + spec.widen * (b - a))
        _warn_grid_end(spec, grids, lower, upper)
        if return_flat:
            return lower, upper, rel.privacy, np.zeros(d, dtype=bool)
        return lower, upper, rel.privacy
    # median, then the median absolute deviation around it (adaptive: two releases of eps/2).
    # The median release is an interval [a, b] of the grid; the deviations are taken from its
    # midpoint (public once released), the MAD is the OUTER (upper) end of the selected interval
    # of the spread grid, and the bounds are the hull of [a, b] and midpoint +- widen * MAD.
    sens = quantile_utility_sensitivity(0.5, str(neighbouring))
    mech = ExponentialMechanism(epsilon=epsilon / 2.0, sensitivity=sens, neighbouring=neighbouring)
    privacy = mech.privacy + mech.privacy
    spreads = _spread_grids(spec, grids)
    block = (charge(privacy, accountant=accountant, label=label) if charging is None
             else charging(privacy))
    with block:
        rel = mech.release(np.concatenate([quantile_scores(A[:, j], grids[j], 0.5)
                                           for j in range(d)]), rng=rng)
        i_med = ExponentialMechanism.indices(rel)
        a, b = grids[rows, i_med], grids[rows, i_med + 1]
        mid = 0.5 * (a + b)
        dev = np.abs(A - mid)  # the released median interval is public from here on
        rel = mech.release(np.concatenate([quantile_scores(dev[:, j], spreads[j], 0.5)
                                           for j in range(d)]), rng=rng)
        i_mad = ExponentialMechanism.indices(rel)
        mad = spreads[rows, i_mad + 1]
    lower, upper = snap_outward(grids, np.minimum(a, mid - spec.widen * mad),
                                np.maximum(b, mid + spec.widen * mad))
    # read off the DP output only (post-processing): the spread is below what the grids resolve
    flat = (i_mad == 0) | (spec.widen * mad <= 0.5 * (b - a))
    _warn_grid_end(spec, grids, lower, upper)
    if return_flat:
        return lower, upper, privacy, flat
    if np.any(flat):
        import warnings

        cols = ", ".join(str(j) for j in np.flatnonzero(flat))
        warnings.warn(
            f"bounds='dp': the DP spread (MAD) of column(s) {cols} is below the grid's "
            "resolution (more than half of the records may share one value); their bounds are "
            "about the DP median's grid interval and clip the other values: give them a PUBLIC "
            "range (docs/bounds.md)", UserWarning, stacklevel=3)
    return lower, upper, privacy


def _warn_grid_end(spec: DPBounds, grids: np.ndarray, lower, upper) -> None:
    """Warn when a DP bound sits at an end of the log-scale grid that no public domain fixed
    (``±10⁹``): values beyond it are clipped, silently until hunt HV (a column on the scale 10¹²
    got bounds about 4·10⁸ and a mean of 0). Read off the DP output and the public grid only
    (post-processing); an end of a public ``domain`` is where the curator put it: no warning."""
    dom = spec.domain
    if dom is not None and all(v is not None for v in dom):
        return
    open_lo = dom is None or dom[0] is None
    open_hi = dom is None or dom[1] is None
    at_end = ((open_lo & (lower <= grids[:, 0])) | (open_hi & (upper >= grids[:, -1])))
    if np.any(at_end):
        import warnings

        cols = ", ".join(str(j) for j in np.flatnonzero(at_end))
        warnings.warn(
            f"bounds='dp': the DP bounds of column(s) {cols} reach the end of the log-scale grid "
            f"(magnitude {abs(float(grids[0, -1])):.0e}); values beyond it are clipped: give "
            "them a PUBLIC domain (DPBounds(domain=(lo, hi))) or rescale the column "
            "(docs/bounds.md)", UserWarning, stacklevel=3)


def _spread_grids(spec: DPBounds, grids: np.ndarray) -> np.ndarray:
    """Public candidates of the MAD: the non-negative log grid, or 0 .. the domain's width."""
    d = grids.shape[0]
    if spec.domain is None or any(v is None for v in spec.domain):
        return np.tile(log_scale_grid(lower=0.0), (d, 1))
    return np.stack([linear_grid(0.0, g[-1] - g[0], spec.n_points) for g in grids])


def snap_outward(grids: np.ndarray, lower: np.ndarray, upper: np.ndarray):
    """``[lower, upper]`` moved outward to grid points and clipped to the grid's ends (the public
    domain); when both ends meet, one grid step is added on each side, so ``lower < upper``.
    Post-processing of released values and the public grid."""
    d, m = grids.shape
    rows = np.arange(d)
    out_lo = np.empty(d, dtype=np.int64)
    out_hi = np.empty(d, dtype=np.int64)
    for j in range(d):  # one searchsorted per feature (d is the number of columns)
        out_lo[j] = max(0, np.searchsorted(grids[j], lower[j], side="right") - 1)
        out_hi[j] = min(m - 1, np.searchsorted(grids[j], upper[j], side="left"))
    same = out_lo >= out_hi
    out_lo[same] = np.maximum(np.minimum(out_lo[same], out_hi[same]) - 1, 0)
    out_hi[same] = np.minimum(np.maximum(out_lo[same] + 2, out_hi[same]), m - 1)
    return grids[rows, out_lo], grids[rows, out_hi]


def bounds_rng(random_state):
    """The generator of the bounds step: an independent stream for an int seed (the fit's own
    stream stays as it is), the caller's Generator otherwise (sequential use), or the secure one.

    A seeded estimate is replayable by whoever knows the seed (as every seeded release)."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(random_state),
                                                                            0x62646e64])))
    return random_state


def split_epsilon(epsilon: float, spec: DPBounds) -> tuple[float, float]:
    """(ε of the bounds, ε left for the fit)."""
    eb = float(epsilon) * spec.fraction
    return eb, float(epsilon) - eb
