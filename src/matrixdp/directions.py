"""Noise directions and precision allocation for directional (MVG) noise.

A directional noise covariance is ``W diag(variances) Wᵀ``: ``W`` holds
orthonormal *directions* (columns) and the MVG algorithms turn a *precision
allocation* θ (shares of a precision budget P, ``θ_i > 0``, ``Σθ_i <= 1``)
into variances ``1/sqrt(θ_i P)``. This module validates directions and
allocations, builds the paper's binary and max-PNR allocations, and estimates
directions privately (SuLQ-style DP covariance). Math and the paper's errors
we fix: ``docs/derivations/mvg.md``.

Orientation: data ``X`` is ``(n_samples, n_features)`` (records in rows); the
paper stores records in columns, so its ``X Xᵀ`` is our ``Xᵀ X``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from ._validation import (
    check_delta,
    check_epsilon,
    check_finite_array,
    check_in_bounds,
    check_positive,
    check_row_norms,
    check_sensitivity,
)
from .errors import InvalidParameterError, InvalidShapeError
from .mechanisms.base import PrivacyGuarantee
from .rng import make_rng

__all__ = [
    "ORTHONORMAL_ATOL",
    "ALLOCATION_ATOL",
    "check_directions",
    "check_precision_allocation",
    "standard_directions",
    "random_directions",
    "variances_from_allocation",
    "binary_allocation",
    "uniform_allocation",
    "water_filling",
    "theorem7_closed_form",
    "max_pnr_allocation",
    "PNRAllocation",
    "DPEigenDecomposition",
    "dp_covariance_eigen",
    "dp_svd_directions",
    "gram_sensitivity",
]

#: Tolerance of the orthonormality check ``max|WᵀW - I| <= atol``.
ORTHONORMAL_ATOL = 1e-8

#: Tolerance on ``sum(theta) <= 1``.
ALLOCATION_ATOL = 1e-9

_REFERENCES = """
    References
    ----------
    .. [1] T. Chanyaswad, A. Dytso, H. V. Poor and P. Mittal, "A Differential
       Privacy Mechanism Design Under Matrix-Valued Query", arXiv:1802.10077,
       Sec. 5-7 (directional noise, Algorithms 1-2, Theorem 7). Our fixes:
       ``docs/derivations/mvg.md``.
"""


def _cite(func):
    func.__doc__ = (func.__doc__ or "").rstrip() + "\n" + _REFERENCES
    return func


def _check_dim(dim, argument: str = "dim") -> int:
    if isinstance(dim, bool) or not isinstance(dim, (Integral, np.integer)) or dim < 1:
        raise InvalidParameterError(argument, f"must be a positive integer, got {dim!r}")
    return int(dim)


# ----------------------------------------------------------------------------- validation
@_cite
def check_directions(directions, dim, argument: str = "directions", *,
                     atol: float = ORTHONORMAL_ATOL) -> np.ndarray:
    """Validate a matrix of orthonormal directions (columns) and return it as float64.

    Parameters
    ----------
    directions : array_like, shape (dim, dim)
        Square matrix whose columns are the noise directions.
    dim : int
        The required side.
    argument : str
        Name used in error messages.
    atol : float
        Tolerance of ``max|WᵀW - I|``.

    Returns
    -------
    ndarray

    Raises
    ------
    InvalidShapeError
        Not ``(dim, dim)``.
    NonFiniteInputError
        NaN or infinite entries.
    InvalidParameterError
        Columns not orthonormal within ``atol``.
    """
    dim = _check_dim(dim)
    w = check_finite_array(directions, argument, ndim=2, shape=(dim, dim))
    err = float(np.max(np.abs(w.T @ w - np.eye(dim))))
    if err > atol:
        raise InvalidParameterError(
            argument, f"columns must be orthonormal (W^T W = I); max|W^T W - I| = {err:.3g} "
                      f"exceeds {atol:g}")
    return w


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
    dim = _check_dim(dim)
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


def standard_directions(dim) -> np.ndarray:
    """The standard basis ``I_dim`` (the default directions)."""
    return np.eye(_check_dim(dim))


def random_directions(dim, n_directions=None, rng=None) -> np.ndarray:
    """Haar-distributed orthonormal directions: a ``(dim, n_directions)`` matrix (square by default).

    QR of a standard Gaussian matrix with the signs of R's diagonal fixed; without the fix
    LAPACK's sign convention biases the law away from Haar.

    References
    ----------
    .. [1] F. Mezzadri, "How to generate random matrices from the classical compact
       groups", Notices of the AMS 54(5), 2007.
    """
    dim = _check_dim(dim)
    k = dim if n_directions is None else _check_dim(n_directions, "n_directions")
    if k > dim:
        raise InvalidParameterError("n_directions", f"must be <= dim = {dim}, got {k}")
    q, r = np.linalg.qr(make_rng(rng).standard_normal((dim, k)), mode="reduced")
    signs = np.sign(np.diag(r))
    signs[signs == 0] = 1.0
    return q * signs


def uniform_allocation(dim) -> np.ndarray:
    """θ_i = 1/dim: the i.i.d. special case (spec §4.4)."""
    dim = _check_dim(dim)
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
        dim = _check_dim(dim)
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


_PNR_RULES = ("floor", "mix", "proportional", "waterfill", "closed_form")


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
        P, the budget on ``Σ 1/σ_i(Σ)²``: :func:`~matrixdp.calibration.mvg.unimodal_precision_budget`
        (Algorithm 1) or :func:`~matrixdp.calibration.mvg.equimodal_precision_budget` (Algorithm 2).
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
    if rule not in _PNR_RULES:
        raise InvalidParameterError("rule", f"must be one of {_PNR_RULES}, got {rule!r}")
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


# ----------------------------------------------------------------------------- DP directions
def gram_sensitivity(*, bounds=None, norm_bound=None, n_features: int | None = None) -> float:
    """Frobenius sensitivity of the Gram matrix ``Xᵀ X`` under replacing one record.

    ``||x xᵀ - y yᵀ||_F <= ||x||² + ||y||² <= 2 R²`` with ``R`` the public bound on
    a record's L2 norm: ``R² = Σ_j max(lo_j², hi_j²)`` for a box, or ``norm_bound²``.

    Parameters
    ----------
    bounds : (lower, upper), optional
        Public per-feature bounds (scalars or arrays of length ``n_features``).
    norm_bound : float, optional
        Public bound on each record's L2 norm.
    n_features : int, optional
        Needed when ``bounds`` are scalars.
    """
    if (bounds is None) == (norm_bound is None):
        raise InvalidParameterError("bounds", "give exactly one of bounds=(lower, upper) or norm_bound")
    if norm_bound is not None:
        r = check_positive(norm_bound, "norm_bound")
        return 2.0 * r * r
    lo, hi = _check_bounds(bounds, n_features)
    r2 = float(np.sum(np.maximum(lo * lo, hi * hi)))
    if r2 <= 0:
        raise InvalidParameterError("bounds", "bounds must not both be 0 everywhere")
    return 2.0 * r2


def _check_bounds(bounds, n_features: int | None) -> tuple[np.ndarray, np.ndarray]:
    try:
        lower, upper = bounds
    except (TypeError, ValueError):
        raise InvalidParameterError("bounds", f"must be a pair (lower, upper), got {bounds!r}") from None
    lo = check_finite_array(lower, "bounds")
    hi = check_finite_array(upper, "bounds")
    if lo.ndim > 1 or hi.ndim > 1:
        raise InvalidShapeError("bounds", "lower and upper must be scalars or 1-D arrays")
    try:
        if n_features is not None:
            lo = np.broadcast_to(lo, (n_features,)).astype(np.float64)
            hi = np.broadcast_to(hi, (n_features,)).astype(np.float64)
        elif lo.ndim == 0 and hi.ndim == 0:
            raise InvalidParameterError("n_features", "is required with scalar bounds")
        else:
            lo, hi = np.broadcast_arrays(lo, hi)
    except ValueError as exc:
        if isinstance(exc, InvalidParameterError):
            raise
        raise InvalidShapeError("bounds", f"lower/upper do not match the {n_features} features: "
                                          f"{exc}") from None
    if np.any(lo > hi):
        raise InvalidParameterError("bounds", "lower must be <= upper")
    return np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)


@dataclass(frozen=True)
class DPEigenDecomposition:
    """A differentially private eigen-decomposition of the Gram matrix ``Xᵀ X``.

    Attributes
    ----------
    directions : ndarray, shape (n_features, k)
        Orthonormal eigenvectors of the noisy Gram matrix, by decreasing eigenvalue.
    eigenvalues : ndarray, shape (k,)
        The matching noisy eigenvalues (may be <= 0 for weak directions). These
        are the paper's ``Λ_f`` for ``K_f = X Xᵀ`` (ours ``Xᵀ X``, not divided by n).
    noise_scale : float
        Std of the Gaussian noise on each upper-triangular entry.
    sensitivity : float
        The Frobenius sensitivity used.
    privacy : PrivacyGuarantee
    """

    directions: np.ndarray
    eigenvalues: np.ndarray
    noise_scale: float
    sensitivity: float
    privacy: PrivacyGuarantee


@_cite
def dp_covariance_eigen(data, *, epsilon, delta, bounds=None, norm_bound=None, sensitivity=None,
                        n_components: int | None = None, calibration: str = "classic",
                        clip: bool = False, rng=None) -> DPEigenDecomposition:
    """SuLQ-style DP eigen-decomposition of ``Xᵀ X`` (the paper's DP-SVD for directions, spec §6.5).

    Releases ``C̃ = Xᵀ X + E`` with ``E`` symmetric, its upper triangle (with the
    diagonal) i.i.d. ``N(0, σ²)`` and mirrored; the release is the upper triangle,
    whose L2 sensitivity is at most the Frobenius sensitivity ``s_C`` of ``Xᵀ X``.
    Then eigendecomposes ``C̃`` (post-processing).

    Guarantee: (ε, δ)-DP under replace-one neighbours, for records inside the public
    ``bounds`` / ``norm_bound``. ``s_C`` bounds the triangle's sensitivity from above, so the
    returned ``privacy.exact`` is False with either calibration ("classic" is a further
    sufficient bound that needs ε < 1; "analytic" is tight for ``s_C``).

    Parameters
    ----------
    data : array_like, shape (n_samples, n_features)
        Private records in rows (the paper's ``X`` transposed).
    epsilon, delta : float
        The budget for this step (the MVG mechanism passes 20% of its total).
    bounds : (lower, upper), optional
        Public per-feature bounds; data outside them raises (or is clipped with ``clip=True``).
    norm_bound : float, optional
        Public bound on each record's L2 norm (rows above it raise, or are rescaled with ``clip=True``).
    sensitivity : float, optional
        Frobenius sensitivity of ``Xᵀ X`` given directly (public); otherwise
        ``2 R²`` from ``bounds`` / ``norm_bound`` (:func:`gram_sensitivity`).
        Never derived from the data.
    n_components : int, optional
        Keep the top ``k`` directions (default: all, a square orthonormal matrix).
    calibration : {"classic", "analytic"}
        ``"classic"`` (spec §6.5): ``σ = s_C sqrt(2 ln(1.25/δ))/ε``, valid for ε < 1;
        ``"analytic"``: the exact Balle-Wang σ (smaller, any ε).
    clip : bool
        Clip the data to the public bounds instead of raising.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    DPEigenDecomposition
    """
    from .calibration.gaussian import analytic_gaussian_sigma, classic_gaussian_sigma

    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    x = check_finite_array(data, "data", ndim=2)
    n_samples, n_features = x.shape
    if n_samples == 0 or n_features == 0:
        raise InvalidShapeError("data", f"must be non-empty, got shape {x.shape}")
    if calibration not in ("classic", "analytic"):
        raise InvalidParameterError("calibration", f"must be 'classic' or 'analytic', got {calibration!r}")
    if bounds is not None and norm_bound is not None:
        raise InvalidParameterError("bounds", "give at most one of bounds and norm_bound")
    if bounds is not None:
        lo, hi = _check_bounds(bounds, n_features)
        if clip:
            x = np.clip(x, lo, hi)
        else:
            check_in_bounds(x, lo, hi, "data")
    elif norm_bound is not None:
        r = check_positive(norm_bound, "norm_bound")
        x = check_row_norms(x, r, "data", bound_name="norm_bound", clip=clip)
    if sensitivity is not None:
        s_c = check_sensitivity(sensitivity)
    elif bounds is not None or norm_bound is not None:
        s_c = gram_sensitivity(bounds=bounds, norm_bound=norm_bound, n_features=n_features)
    else:
        raise InvalidParameterError("bounds", "give public bounds, norm_bound or sensitivity; "
                                              "the sensitivity is never read from the data")
    if n_components is None:
        k = n_features
    else:
        k = _check_dim(n_components, "n_components")
        if k > n_features:
            raise InvalidParameterError("n_components", f"must be <= n_features={n_features}, got {k}")
    if calibration == "classic":
        sigma = classic_gaussian_sigma(eps, dlt, s_c)
    else:
        sigma = analytic_gaussian_sigma(eps, dlt, s_c)
    gen = make_rng(rng)
    raw = gen.standard_normal((n_features, n_features))
    upper = np.triu(raw)
    noise = upper + np.triu(raw, 1).T
    gram = x.T @ x + sigma * noise
    lam, vecs = np.linalg.eigh(gram)
    order = np.argsort(lam)[::-1][:k]
    # The noise is N(0, sigma^2) on the upper triangle (mirrored): a Gaussian shift of at most
    # ||upper triangle of the difference||_2 / sigma <= s_c / sigma, so the step is mu-GDP.
    privacy = PrivacyGuarantee(
        epsilon=eps, delta=dlt, calibration=calibration, exact=False, mu=float(s_c / sigma),
        mechanism="dp-covariance-eigen (SuLQ Gaussian on X^T X)",
        notes=(f"Frobenius sensitivity {s_c:.6g} of X^T X from public bounds "
               "(an upper bound: the guarantee is a sufficient bound)",))
    return DPEigenDecomposition(directions=np.ascontiguousarray(vecs[:, order]),
                                eigenvalues=lam[order], noise_scale=float(sigma),
                                sensitivity=float(s_c), privacy=privacy)


@_cite
def dp_svd_directions(data, *, epsilon, delta, bounds=None, norm_bound=None, sensitivity=None,
                      n_components: int | None = None, calibration: str = "classic",
                      clip: bool = False, rng=None) -> tuple[np.ndarray, PrivacyGuarantee]:
    """Differentially private feature directions (the paper's DP-SVD of Exp. I, SuLQ-style).

    Thin wrapper of :func:`dp_covariance_eigen` returning only the directions
    (eigenvectors of the noisy ``Xᵀ X``, by decreasing noisy eigenvalue) and the
    guarantee of this step, to be composed with the mechanism's own. The budget
    split (the paper gives 20% of ε and δ to this step) is the caller's job.

    Returns
    -------
    (directions, privacy) : (ndarray of shape (n_features, k), PrivacyGuarantee)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(200, 4))
    >>> W, guarantee = dp_svd_directions(X, epsilon=0.2, delta=1e-6, bounds=(-1, 1), rng=1)
    >>> W.shape, guarantee.epsilon
    ((4, 4), 0.2)
    """
    result = dp_covariance_eigen(data, epsilon=epsilon, delta=delta, bounds=bounds,
                                 norm_bound=norm_bound, sensitivity=sensitivity,
                                 n_components=n_components, calibration=calibration, clip=clip,
                                 rng=rng)
    return result.directions, result.privacy
