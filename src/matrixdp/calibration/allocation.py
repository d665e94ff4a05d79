"""Precision allocation for directional (MVG) noise (pure math, no randomness).

A directional noise covariance is ``W diag(variances) Wᵀ``: ``W`` holds
orthonormal *directions* (columns) and the MVG algorithms turn a *precision
allocation* θ (shares of a precision budget P, ``θ_i > 0``, ``Σθ_i <= 1``)
into variances ``1/sqrt(θ_i P)``. This module validates allocations and builds
the paper's binary, max-PNR (water-filling, Theorem 7) allocations, and the
mse-optimal and max-PNR allocations under the exact linear budget of
:mod:`matrixdp.calibration.mvg_exact`. Directions are validated by
:func:`matrixdp._linalg.check_directions`; DP directions are estimated in
:mod:`matrixdp.models.dp_directions`. Math and the paper's errors we fix:
``docs/mvg.md``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .._linalg import DIRECTIONS_REFERENCES, check_dim, cite
from .._validation import check_choice, check_finite_array, check_positive
from ..errors import InvalidParameterError, InvalidShapeError
from .mvg_exact import REFERENCES as EXACT_REFERENCES, DirectionCosts

__all__ = [
    "ALLOCATION_ATOL",
    "PNR_RULES",
    "check_precision_allocation",
    "variances_from_allocation",
    "binary_allocation",
    "uniform_allocation",
    "water_filling",
    "theorem7_closed_form",
    "max_pnr_allocation",
    "PNRAllocation",
    "check_costs",
    "mse_optimal_allocation",
    "exact_max_pnr_allocation",
]

#: Tolerance on ``sum(theta) <= 1``.
ALLOCATION_ATOL = 1e-9

_cite = cite(DIRECTIONS_REFERENCES)
_cite_exact = cite(EXACT_REFERENCES)


# ----------------------------------------------------------------------------- validation
@_cite
def check_precision_allocation(theta, dim, argument: str = "precision", *,
                               warn_unused: bool = True) -> np.ndarray:
    """Validate a precision allocation θ: ``dim`` entries, each > 0, summing to <= 1.

    ``θ_i`` is the share of the precision budget given to direction ``i``
    (column ``i`` of the directions). Entries must be strictly positive: a zero
    share means infinite noise variance, which cannot be sampled. A sum above 1
    overspends the budget (not private); a sum below 1 is private but wastes
    budget and triggers a ``UserWarning``.

    Parameters
    ----------
    theta : array_like, shape (dim,)
    dim : int
    argument : str
        Name used in error messages (default ``"precision"``, the mechanism's argument).
    warn_unused : bool
        Warn when ``sum(theta) < 1``.

    Returns
    -------
    ndarray

    Raises
    ------
    InvalidShapeError, NonFiniteInputError, InvalidParameterError
    """
    dim = check_dim(dim)
    th = check_finite_array(theta, argument, ndim=1, shape=(dim,))
    if np.any(th <= 0):
        raise InvalidParameterError(
            argument, f"every share must be > 0 (a zero share means infinite noise), got min "
                      f"{th.min():.6g}")
    total = math.fsum(th)
    if total > 1 + ALLOCATION_ATOL:
        raise InvalidParameterError(
            argument, f"shares must sum to <= 1 (the whole precision budget), got {total:.12g}")
    if warn_unused and total < 1 - ALLOCATION_ATOL:
        warnings.warn(f"{argument}: shares sum to {total:.6g} < 1; the unused precision budget "
                      "adds noise for no privacy gain", UserWarning, stacklevel=2)
    return th


def uniform_allocation(dim) -> np.ndarray:
    """θ_i = 1/dim: the i.i.d. special case (spec §4.4)."""
    dim = check_dim(dim)
    return np.full(dim, 1.0 / dim)


@_cite
def variances_from_allocation(theta, precision_budget) -> np.ndarray:
    """Algorithm 1/2 step 3: variance ``σ_i(Σ) = 1/sqrt(θ_i P)`` of each direction.

    The paper's "precision" ``p_i = θ_i P`` bounds ``Σ_i 1/σ_i(Σ)^2 <= P``,
    where ``σ_i(Σ)`` is an eigenvalue (a variance) of Σ; so ``p_i`` is an
    inverse *squared* variance, and the variance is ``p_i^{-1/2}``.

    Parameters
    ----------
    theta : array_like
        A valid allocation (see :func:`check_precision_allocation`).
    precision_budget : float
        P > 0.

    Returns
    -------
    ndarray
    """
    th = np.asarray(theta, dtype=np.float64)
    p = check_positive(precision_budget, "precision_budget")
    return 1.0 / np.sqrt(th * p)


# ----------------------------------------------------------------------------- binary
def _important_indices(important, dim: int | None) -> tuple[np.ndarray, int]:
    arr = np.asarray(important)
    if arr.dtype == bool:
        if arr.ndim != 1:
            raise InvalidShapeError("important", f"a boolean mask must be 1-D, got {arr.shape}")
        if dim is not None and arr.size != dim:
            raise InvalidShapeError("important", f"mask length {arr.size} != dim {dim}")
        return np.flatnonzero(arr), arr.size
    if dim is None:
        raise InvalidParameterError("dim", "is required when important is a list of indices")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise InvalidParameterError("important", f"must be integer indices or a boolean mask, "
                                                 f"got dtype {arr.dtype}")
    idx = arr.astype(np.int64).ravel()
    if np.any((idx < 0) | (idx >= dim)):
        raise InvalidParameterError("important", f"indices must lie in [0, {dim}), got {idx.tolist()}")
    if np.unique(idx).size != idx.size:
        raise InvalidParameterError("important", f"indices must be distinct, got {idx.tolist()}")
    return idx, dim


@_cite
def binary_allocation(important, tau, dim=None) -> np.ndarray:
    """The paper's binary strategy: τ% of the precision to the k important directions.

    ``θ_imp = (τ/100)/k`` for each important direction and
    ``θ_other = (1 - τ/100)/(dim - k)`` for the others, so ``Σθ = 1``.

    Parameters
    ----------
    important : sequence of int or boolean mask
        Indices of the important directions (columns of the directions matrix),
        or a boolean mask of length ``dim``.
    tau : float
        Percentage in (0, 100) given to the important directions (the paper's
        grid is {55, 65, 75, 85, 95}).
    dim : int, optional
        Number of directions (required with indices; implied by a mask).

    Returns
    -------
    ndarray, shape (dim,)
        All entries in (0, 1), summing to 1.

    Raises
    ------
    InvalidParameterError
        τ outside (0, 100); no important direction or all of them (then there is
        nothing to split: use :func:`uniform_allocation`); bad or repeated indices.

    Examples
    --------
    >>> binary_allocation([2, 5], 95, dim=6).round(4).tolist()
    [0.0125, 0.0125, 0.475, 0.0125, 0.0125, 0.475]
    """
    if dim is not None:
        dim = check_dim(dim)
    idx, dim = _important_indices(important, dim)
    t = check_positive(tau, "tau")
    if not t < 100:
        raise InvalidParameterError("tau", f"is a percentage and must be in (0, 100), got {tau!r}")
    if t < 1:
        warnings.warn(f"tau={tau!r} is a percentage (the paper's grid is 55..95); did you mean "
                      f"tau={100 * t:g}?", UserWarning, stacklevel=2)
    k = idx.size
    if k == 0 or k == dim:
        raise InvalidParameterError(
            "important", f"must name at least one and fewer than all {dim} directions, got {k}")
    theta = np.full(dim, (1.0 - t / 100.0) / (dim - k))
    theta[idx] = (t / 100.0) / k
    return theta


# ----------------------------------------------------------------------------- max-PNR
@_cite
def water_filling(offsets, total) -> tuple[np.ndarray, float]:
    """Solve ``max Σ log(x_i + a_i)`` s.t. ``Σ x_i = total``, ``x >= 0`` (Theorem 7's inner problem).

    The solution is ``x_i = (c - a_i)^+`` with the water level ``c`` such that
    the sum is ``total``: sort ``a`` ascending and take the largest ``k`` with
    ``c_k = (total + Σ_{j<=k} a_(j))/k > a_(k)``.

    Parameters
    ----------
    offsets : array_like
        ``a_i >= 0`` (``+inf`` allowed: such a coordinate never gets anything).
    total : float
        ``d > 0``.

    Returns
    -------
    (x, level) : (ndarray, float)
    """
    a = np.asarray(offsets, dtype=np.float64)
    if a.ndim != 1 or a.size == 0 or np.any(np.isnan(a)) or np.any(a < 0) or np.all(np.isinf(a)):
        raise InvalidParameterError("offsets", "must be a non-empty 1-D array of values >= 0 "
                                               "(not all infinite)")
    d = check_positive(total, "total")
    order = np.argsort(a, kind="stable")
    sorted_a = a[order]
    finite = np.isfinite(sorted_a)
    k_range = np.arange(1, int(finite.sum()) + 1)
    levels = (d + np.cumsum(sorted_a[finite])) / k_range
    active = levels > sorted_a[finite]
    k = int(np.flatnonzero(active)[-1]) + 1  # active is a prefix; the first entry is always True
    level = float(levels[k - 1])
    x = np.clip(level - a, 0.0, None)
    x[~np.isfinite(a)] = 0.0
    return x, level


@_cite
def theorem7_closed_form(offsets, total) -> np.ndarray:
    """Eq. (25) literally: ``x_i = c - a_i`` with ``c = (total + Σ a_i)/k``.

    Valid only when every ``c - a_i > 0``; raises otherwise (the paper's tiny
    budgets make it fail, see spec §6.3 — use :func:`water_filling`).

    Raises
    ------
    InvalidParameterError
        Some entry would be <= 0 (argument ``total``).
    """
    a = np.asarray(offsets, dtype=np.float64)
    if a.ndim != 1 or a.size == 0 or not np.all(np.isfinite(a)) or np.any(a < 0):
        raise InvalidParameterError("offsets", "must be a non-empty 1-D array of finite values >= 0")
    d = check_positive(total, "total")
    c = (d + a.sum()) / a.size
    x = c - a
    if np.any(x <= 0):
        raise InvalidParameterError(
            "total", f"the closed form (Eq. 25) gives {int(np.sum(x <= 0))} non-positive "
                     f"precision(s) at budget {d:.6g}; it needs total >= sum(max(a) - a_i) = "
                     f"{float(np.sum(a.max() - a)):.6g}. Use water-filling with a floor")
    return x


@dataclass(frozen=True)
class PNRAllocation:
    """Result of :func:`max_pnr_allocation` with its provenance.

    Attributes
    ----------
    theta : ndarray
        Final allocation (> 0, sums to 1), in the order of the given directions.
    rule : str
        The rule that produced it.
    precisions : ndarray
        The water-filled ``x_i = 1/σ_i(Σ)`` (L1 budget ``sqrt(P)``; zeros possible).
    water_level : float
        The water level ``c``.
    n_active : int
        Directions with ``x_i > 0`` before the floor.
    """

    theta: np.ndarray
    rule: str
    precisions: np.ndarray
    water_level: float
    n_active: int


#: The ``rule`` values of :func:`max_pnr_allocation`.
PNR_RULES = ("floor", "mix", "proportional", "waterfill", "closed_form")


@_cite
def max_pnr_allocation(signal_variances, precision_budget, *, rule: str = "floor",
                       min_share: float | None = None, mix: float = 0.1,
                       return_details: bool = False):
    """Max-PNR precision allocation (Theorem 7) for one directional covariance, with the spec's fixes.

    Directions are the eigenvectors of the signal covariance ``K_f`` (e.g. from
    :func:`dp_covariance_eigen`); ``signal_variances`` are its eigenvalues
    ``λ_{f,i}`` in the same order. With ``x_i = 1/σ_i(Σ)`` the noise precisions,
    the privacy constraint ``Σ x_i² <= P`` is relaxed to ``Σ x_i <= sqrt(P)``
    (``||x||_2 <= ||x||_1``, spec §6.4) and the PNR ``Π (x_i + a_i)/a_i``,
    ``a_i = 1/λ_{f,i}``, is maximised by water-filling ``x_i = (c - a_i)^+``.
    The allocation is ``θ_i = x_i² / Σ x_j²`` (uses the full L2 budget; still private).

    At the paper's budgets water-filling gives all precision to the top
    direction and zero (infinite variance) to the rest, which cannot be sampled.
    So ``rule`` decides how every share is kept strictly positive:

    - ``"floor"`` (default): ``θ_i <- max(θ_i, min_share)``, renormalised;
      ``min_share`` defaults to ``0.1/dim``.
    - ``"mix"``: ``θ = (1 - mix) θ_wf + mix/dim``.
    - ``"proportional"``: ``θ_i ∝ λ_{f,i}²`` (variance ∝ 1/λ_{f,i}), no water-filling.
    - ``"waterfill"``: the exact water-filling; raises if any share is 0.
    - ``"closed_form"``: Eq. (25) literally; raises if any precision is <= 0.

    Parameters
    ----------
    signal_variances : array_like, shape (dim,)
        Eigenvalues of the signal covariance along each direction. Entries <= 0
        (possible for a noisy DP estimate) mean "no signal": ``a_i = inf``.
    precision_budget : float
        P, the budget on ``Σ 1/σ_i(Σ)²``: :func:`~matrixdp.calibration.mvg_theorems.unimodal_precision_budget`
        (Algorithm 1) or :func:`~matrixdp.calibration.mvg_theorems.equimodal_precision_budget` (Algorithm 2).
    rule : str
        See above.
    min_share : float, optional
        Floor for ``rule="floor"``, in (0, 1/dim].
    mix : float
        Uniform weight for ``rule="mix"``, in (0, 1].
    return_details : bool
        Return a :class:`PNRAllocation` instead of the bare θ.

    Returns
    -------
    ndarray or PNRAllocation
        θ > 0 with ``Σθ = 1``.

    Raises
    ------
    InvalidParameterError
        Bad inputs; ``rule="waterfill"`` / ``"closed_form"`` when a share would be 0.

    Notes
    -----
    The scale of ``signal_variances`` matters (``a_i`` is compared with the
    precisions): pass the per-record signal covariance in the units of the noise
    covariance. The paper's Exp. I uses ``K_f = X Xᵀ`` (our ``Xᵀ X``); at its
    budgets the result does not depend on the scale.
    """
    lam = check_finite_array(signal_variances, "signal_variances", ndim=1)
    dim = lam.size
    if dim == 0:
        raise InvalidShapeError("signal_variances", "must be non-empty")
    p = check_positive(precision_budget, "precision_budget")
    check_choice(rule, PNR_RULES, "rule")
    if not np.any(lam > 0):
        raise InvalidParameterError("signal_variances", "at least one must be > 0")
    with np.errstate(divide="ignore"):
        offsets = np.where(lam > 0, 1.0 / np.where(lam > 0, lam, 1.0), np.inf)
    budget_l1 = math.sqrt(p)
    if rule == "closed_form":
        if not np.all(np.isfinite(offsets)):
            raise InvalidParameterError("signal_variances", "rule='closed_form' needs every "
                                                            "signal variance > 0")
        x = theorem7_closed_form(offsets, budget_l1)
        level = float(x[0] + offsets[0])
    else:
        x, level = water_filling(offsets, budget_l1)
    n_active = int(np.count_nonzero(x > 0))
    theta_wf = x * x / np.sum(x * x)
    if rule in ("waterfill", "closed_form"):
        if n_active < dim:
            raise InvalidParameterError(
                "rule", f"exact water-filling leaves {dim - n_active} of {dim} directions with zero "
                        "precision (infinite noise variance); use rule='floor', 'mix' or "
                        "'proportional'")
        theta = theta_wf
    elif rule == "floor":
        floor = 0.1 / dim if min_share is None else check_positive(min_share, "min_share")
        if floor > 1.0 / dim:
            raise InvalidParameterError("min_share", f"must be in (0, 1/dim] = (0, {1 / dim:.6g}], "
                                                     f"got {min_share!r}")
        theta = np.maximum(theta_wf, floor)
        theta /= theta.sum()
    elif rule == "mix":
        kappa = check_positive(mix, "mix")
        if kappa > 1:
            raise InvalidParameterError("mix", f"must be in (0, 1], got {mix!r}")
        theta = (1.0 - kappa) * theta_wf + kappa / dim
    else:  # proportional
        if np.any(lam <= 0):
            raise InvalidParameterError("signal_variances", "rule='proportional' needs every "
                                                            "signal variance > 0")
        sq = lam * lam
        theta = sq / sq.sum()
    theta = theta / math.fsum(theta)  # exact unit sum up to rounding
    if return_details:
        return PNRAllocation(theta=theta, rule=rule, precisions=x, water_level=level,
                             n_active=n_active)
    return theta


# ----------------------------------------------------------------------------- exact budget
def mse_optimal_allocation(costs) -> np.ndarray:
    r"""Shares minimising the total noise variance ``Σ 1/p_i`` under ``Σ c_i p_i = B``.

    Lagrange: ``p_i ∝ 1/sqrt(c_i)``, i.e. ``θ_i = sqrt(c_i)/Σ_j sqrt(c_j)``. Its
    total variance ``(Σ sqrt(c_i))²/B`` never exceeds the i.i.d. choice's
    ``d Σ c_i / B`` (Cauchy–Schwarz). A direction with ``c_i = 0`` (a feature
    whose public range is a single point) costs nothing and gets share 0;
    :func:`exact_precisions` then gives it the largest precision of the others.
    """
    c = check_costs(costs)
    root = np.sqrt(c)
    return root / root.sum()


def check_costs(costs) -> np.ndarray:
    """Direction costs: a non-empty 1-D array of finite values >= 0, at least one > 0."""
    c = np.asarray(costs.costs if isinstance(costs, DirectionCosts) else costs, dtype=np.float64)
    if c.ndim != 1 or c.size == 0 or np.any(c < 0) or not np.all(np.isfinite(c)) or \
            not np.any(c > 0):
        raise InvalidParameterError("costs", "must be a non-empty 1-D array of finite values >= 0, "
                                             "at least one > 0")
    return c


@_cite_exact
def exact_max_pnr_allocation(signal_variances, costs, budget, *, rule: str = "floor",
                             min_share: float | None = None) -> np.ndarray:
    r"""Max-PNR allocation (the paper's Theorem 7) under the exact linear budget.

    Maximises ``Σ log(1 + λ_i p_i)`` (log-PNR of a Gaussian signal with variances
    ``λ_i`` along the directions, noise precisions ``p_i``) subject to
    ``Σ c_i p_i = B``. With ``y_i = c_i p_i`` this is the water-filling
    ``max Σ log(y_i + c_i/λ_i)`` s.t. ``Σ y_i = B`` — the paper's problem, but on
    the true budget instead of its L1 relaxation. Returns the shares
    ``θ_i = y_i/B``. Zero shares (infinite noise, not samplable) are handled by
    ``rule``: ``"floor"`` (``θ_i <- max(θ_i, min_share)``, default ``0.1/d``, then
    renormalised) or ``"waterfill"`` (raise if a share is 0). Directions with
    ``c_i = 0`` cost nothing and get share 0 (see :func:`exact_precisions`).

    Parameters
    ----------
    signal_variances : array_like, shape (d,)
        ``λ_i`` in the units of the noise variances (entries <= 0 mean no signal).
    costs : DirectionCosts or array_like, shape (d,)
        ``c_i > 0``.
    budget : float
        ``B`` (e.g. ``costs.budget(max_gaussian_shift(ε, δ))``).
    rule : {"floor", "waterfill"}
    min_share : float, optional

    Returns
    -------
    ndarray
        θ > 0 summing to 1.
    """
    c = check_costs(costs)
    lam = check_finite_array(signal_variances, "signal_variances", ndim=1, shape=c.shape)
    total = check_positive(budget, "budget")
    paid = c > 0  # zero-cost directions need no share (exact_precisions handles them)
    if not np.any(lam[paid] > 0):
        raise InvalidParameterError("signal_variances", "at least one direction with a non-zero "
                                                        "cost must have a value > 0")
    with np.errstate(divide="ignore"):
        offsets = np.where(paid & (lam > 0), c / np.where(lam > 0, lam, 1.0), np.inf)
    y, _ = water_filling(offsets, total)
    theta = y / y.sum()
    d = int(paid.sum())
    if rule == "waterfill":
        if np.any(theta[paid] <= 0):
            raise InvalidParameterError("rule", "water-filling leaves a direction with zero "
                                                "precision (infinite noise); use rule='floor'")
    elif rule == "floor":
        floor = 0.1 / d if min_share is None else check_positive(min_share, "min_share")
        if floor > 1.0 / d:
            raise InvalidParameterError("min_share", f"must be in (0, 1/dim], got {min_share!r}")
        theta = np.where(paid, np.maximum(theta, floor), 0.0)
    else:
        raise InvalidParameterError("rule", f"must be 'floor' or 'waterfill', got {rule!r}")
    return theta / math.fsum(theta)
