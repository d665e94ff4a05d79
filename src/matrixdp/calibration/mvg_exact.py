"""Exact calibration of matrix-variate Gaussian (MVG) noise (pure math, no randomness).

MVG noise ``Z ~ MVG(0, Σ, Ψ)`` is a Gaussian with ``vec``-covariance ``Ψ ⊗ Σ``.
For a difference ``D = f(X) - f(X')`` its privacy loss is exactly that of a
1-D Gaussian with shift ``μ(D) = ||Σ^{-1/2} D Ψ^{-1/2}||_F``, so the mechanism
is (ε, δ)-DP iff ``sup_D μ(D) <= μ*(ε, δ)``
(:func:`~matrixdp.calibration.gaussian.max_gaussian_shift`). This module
holds the containers (:class:`AxisPrecision`, :class:`ShiftBound`,
:class:`DirectionCosts`), asks a query's sensitivity *structure* for that
supremum (the *Mahalanobis sensitivity*; the structures and their shift
geometry are in :mod:`matrixdp.queries`) and turns budgets that are linear in
the per-direction noise precisions into precisions. The allocations of the
budget are in :mod:`matrixdp.calibration.allocation`. Derivation and proofs:
``docs/mvg.md``.

Precision here means *inverse variance* ``p_i = 1/λ_i(Σ)`` (not the paper's
``1/λ_i(Σ)²``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._linalg import cite
from .._validation import check_nonnegative_epsilon, check_square_matrix
from ..errors import InvalidParameterError, NotPositiveSemidefiniteError
from .gaussian import gaussian_log_delta_for_shift, max_gaussian_shift

__all__ = [
    "AxisPrecision",
    "ShiftBound",
    "DirectionCosts",
    "REFERENCES",
    "mahalanobis_sensitivity",
    "exact_privacy_profile",
    "exact_precisions",
]

#: References of the exact calibration (appended to docstrings by :func:`matrixdp._linalg.cite`).
REFERENCES = """
    References
    ----------
    .. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
       Differential Privacy: Analytical Calibration and Optimal Denoising", ICML 2018.
    .. [2] T. Chanyaswad, A. Dytso, H. V. Poor and P. Mittal, "A Differential
       Privacy Mechanism Design Under Matrix-Valued Query", arXiv:1802.10077.
    .. [3] matrixdp, ``docs/mvg.md`` (the exact calibration).
"""

_cite = cite(REFERENCES)


# ----------------------------------------------------------------------------- containers
@dataclass(frozen=True)
class AxisPrecision:
    """The precision matrix ``U diag(p) Uᵀ`` of one axis (inverse of its covariance).

    Parameters
    ----------
    precisions : ndarray, shape (d,)
        Inverse variances along the directions, > 0.
    directions : ndarray (d, d) or None
        Orthonormal columns; ``None`` is the standard basis.
    """

    precisions: np.ndarray
    directions: np.ndarray | None = None

    @classmethod
    def identity(cls, dim: int, scale: float = 1.0) -> "AxisPrecision":
        return cls(np.full(int(dim), float(scale)))

    @classmethod
    def from_covariance(cls, cov, argument: str = "cov") -> "AxisPrecision":
        """Eigendecompose a symmetric positive definite covariance."""
        arr = check_square_matrix(cov, argument)
        scale = max(float(np.max(np.abs(arr))), 1e-300)
        if np.max(np.abs(arr - arr.T)) > 1e-8 * scale:
            raise NotPositiveSemidefiniteError(argument, "must be symmetric")
        lam, vecs = np.linalg.eigh(0.5 * (arr + arr.T))
        if lam[0] <= 0:
            raise NotPositiveSemidefiniteError(
                argument, f"must be positive definite (noise in every direction); smallest "
                          f"eigenvalue {lam[0]:.6g}")
        off = arr - np.diag(np.diagonal(arr))
        if not off.any():
            return cls(1.0 / np.diagonal(arr).copy())
        return cls(1.0 / lam, vecs)

    @property
    def dim(self) -> int:
        return int(self.precisions.size)

    @property
    def max(self) -> float:
        return float(np.max(self.precisions))

    def is_scalar(self) -> bool:
        p = self.precisions
        return bool(np.all(p == p[0]))

    def matrix(self) -> np.ndarray:
        if self.directions is None:
            return np.diag(self.precisions)
        u = self.directions
        a = (u * self.precisions) @ u.T
        return 0.5 * (a + a.T)

    def diagonal(self) -> np.ndarray:
        """``diag(U diag(p) Uᵀ)``."""
        if self.directions is None:
            return self.precisions.copy()
        return (self.directions ** 2) @ self.precisions

    def scaled(self, factor: float) -> "AxisPrecision":
        return AxisPrecision(self.precisions * factor, self.directions)

    def same_as(self, other: "AxisPrecision") -> bool:
        if self.dim != other.dim:
            return False
        if self.directions is None and other.directions is None:
            return bool(np.array_equal(self.precisions, other.precisions))
        if self.is_scalar() and other.is_scalar():
            return self.precisions[0] == other.precisions[0]
        return bool(np.allclose(self.matrix(), other.matrix(), rtol=1e-12, atol=0))


@dataclass(frozen=True)
class ShiftBound:
    """The Mahalanobis sensitivity ``sup_D μ(D)²`` of a noise law over a query's differences.

    Attributes
    ----------
    value_sq : float
        The supremum of ``μ(D)²`` (when ``exact``) or a certified upper bound on it.
    exact : bool
        True when ``value_sq`` is the supremum itself.
    lower_sq : float
        ``μ(W)²`` of the best witness difference found (a lower bound on the supremum).
    witness : ndarray or None
        A difference ``D`` attaining ``lower_sq``.
    method : str
        How it was computed.
    """

    value_sq: float
    exact: bool
    lower_sq: float
    witness: np.ndarray | None = field(default=None, repr=False)
    method: str = ""
    records: tuple | None = field(default=None, repr=False)

    @property
    def value(self) -> float:
        """The Mahalanobis sensitivity μ (or its upper bound)."""
        return math.sqrt(self.value_sq)

    def scaled(self, factor_sq: float) -> "ShiftBound":
        return ShiftBound(self.value_sq * factor_sq, self.exact, self.lower_sq * factor_sq,
                          self.witness, self.method, self.records)


@dataclass(frozen=True)
class DirectionCosts:
    r"""A precision budget linear in the per-direction precisions.

    The structure certifies :math:`\sup_D \mu(D)^2 \le k\,(\sum_i c_i p_i)^{q}` for
    precisions ``p`` along the given directions (``q = power``, ``k = scale``;
    ``q = 1`` when the other axis is the identity, ``q = 2`` for equi-modal noise
    Ψ = Σ). So ``Σ c_i p_i <= B(μ*) = (μ*²/k)^{1/q}`` is sufficient for (ε, δ)-DP.

    Attributes
    ----------
    costs : ndarray
        ``c_i >= 0``.
    power, scale : float
        ``q`` and ``k`` above.
    exact : bool
        True when the linear form equals the supremum for *every* precision vector
        (e.g. a record box with standard-basis directions); False when it is only
        an upper bound (the calibration then rescales with the exact supremum).
    description : str
    """

    costs: np.ndarray
    power: int = 1
    scale: float = 1.0
    exact: bool = False
    description: str = ""

    def budget(self, mu_star: float) -> float:
        """``B(μ*) = (μ*²/k)^{1/q}``."""
        return (mu_star * mu_star / self.scale) ** (1.0 / self.power)

    def bound_sq(self, precisions) -> float:
        """``k (Σ c_i p_i)^q``."""
        return self.scale * float(np.dot(self.costs, precisions)) ** self.power


# ----------------------------------------------------------------------------- public API
@_cite
def mahalanobis_sensitivity(sensitivity, row_cov, col_cov) -> ShiftBound:
    r"""Mahalanobis sensitivity ``sup_D ‖Σ^{-1/2} D Ψ^{-1/2}‖_F`` of MVG noise on a query.

    Parameters
    ----------
    sensitivity : sensitivity structure
        A structure from :mod:`matrixdp.queries` supplies its own set of differences
        (:class:`~matrixdp.queries.FrobeniusBall` ``(s₂)`` for a Frobenius sensitivity:
        exact result ``s₂/sqrt(λ_min(Σ)λ_min(Ψ))``). Calibration never builds one.
    row_cov, col_cov : array_like or AxisPrecision
        Σ (m x m) and Ψ (n x n), symmetric positive definite (or their
        :class:`AxisPrecision`).

    Returns
    -------
    ShiftBound
        ``.value`` is μ; ``.exact`` says whether it is the supremum or an upper bound.
    """
    if not callable(getattr(sensitivity, "shift_bound", None)):
        raise InvalidParameterError(
            "sensitivity", "must be a sensitivity structure from matrixdp.queries (e.g. "
                           "FrobeniusBall(s2) for a Frobenius sensitivity s2), got "
                           f"{type(sensitivity).__name__}")
    structure = sensitivity
    row = row_cov if isinstance(row_cov, AxisPrecision) else \
        AxisPrecision.from_covariance(row_cov, "row_cov")
    col = col_cov if isinstance(col_cov, AxisPrecision) else \
        AxisPrecision.from_covariance(col_cov, "col_cov")
    return structure.shift_bound(row, col)


@_cite
def exact_privacy_profile(epsilon, sensitivity, row_cov, col_cov) -> float:
    r"""δ(ε) of MVG noise ``MVG(0, Σ, Ψ)`` on a query: ``Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)``.

    Exact when the Mahalanobis sensitivity μ is (see :func:`mahalanobis_sensitivity`);
    otherwise an upper bound on the exact δ(ε) (δ(ε) increases with μ).

    Parameters
    ----------
    epsilon : float
        >= 0.
    sensitivity, row_cov, col_cov
        As in :func:`mahalanobis_sensitivity`.

    Returns
    -------
    float
    """
    eps = check_nonnegative_epsilon(epsilon)
    mu = mahalanobis_sensitivity(sensitivity, row_cov, col_cov).value
    return math.exp(gaussian_log_delta_for_shift(eps, mu))


@_cite
def exact_precisions(costs: DirectionCosts, theta, epsilon, delta) -> np.ndarray:
    r"""Precisions ``p_i = θ_i B(μ*) / c_i`` spending shares θ of the linear budget.

    Parameters
    ----------
    costs : DirectionCosts
    theta : array_like
        Shares, > 0, summing to <= 1.
    epsilon, delta : float

    Returns
    -------
    ndarray
        ``Σ c_i p_i = Σθ · B(μ*)`` (directions with ``c_i = 0`` get the largest
        precision of the others: any precision is free there).
    """
    mu_star = max_gaussian_shift(epsilon, delta)
    th = np.asarray(theta, dtype=np.float64)
    budget = costs.budget(mu_star)
    c = costs.costs
    pos = c > 0
    p = np.empty_like(th)
    p[pos] = th[pos] * budget / c[pos]
    if not pos.all():
        p[~pos] = p[pos].max() if pos.any() else 1.0
    return p


