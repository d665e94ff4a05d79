"""Exact calibration of matrix-variate Gaussian (MVG) noise (pure math, no randomness).

MVG noise ``Z ~ MVG(0, Σ, Ψ)`` is a Gaussian with ``vec``-covariance ``Ψ ⊗ Σ``.
For a difference ``D = f(X) - f(X')`` its privacy loss is exactly that of a
1-D Gaussian with shift ``μ(D) = ||Σ^{-1/2} D Ψ^{-1/2}||_F``, so the mechanism
is (ε, δ)-DP iff ``sup_D μ(D) <= μ*(ε, δ)``
(:func:`~matrixdp.calibration.gaussian.max_gaussian_shift`). This module
computes that supremum (the *Mahalanobis sensitivity*) over a query's set of
differences — exactly where that is computable, otherwise a certified upper
bound that is flagged as such — and turns it into precision budgets that are
linear in the per-direction noise precisions. Derivation and proofs:
``docs/derivations/mvg_exact.md``.

Precision here means *inverse variance* ``p_i = 1/λ_i(Σ)`` (not the paper's
``1/λ_i(Σ)²``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_finite_array, check_nonnegative_epsilon, check_positive
from ..errors import InvalidParameterError, InvalidShapeError, NotPositiveSemidefiniteError
from .gaussian import gaussian_log_delta_for_shift, max_gaussian_shift

__all__ = [
    "AxisPrecision",
    "ShiftBound",
    "DirectionCosts",
    "ENUMERATION_MAX_DIM",
    "box_quadratic_max",
    "frobenius_ball_shift",
    "record_box_shift",
    "outer_product_shift",
    "mahalanobis_sensitivity",
    "exact_privacy_profile",
    "exact_precisions",
    "mse_optimal_allocation",
    "exact_max_pnr_allocation",
]

#: Largest dimension for which a box maximum is computed by enumerating its 2^d vertices.
ENUMERATION_MAX_DIM = 16

#: Relative tolerance under which a certified lower bound counts as attaining an upper bound.
TIGHTNESS_RTOL = 1e-12

_REFERENCES = """
    References
    ----------
    .. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
       Differential Privacy: Analytical Calibration and Optimal Denoising", ICML 2018.
    .. [2] T. Chanyaswad, A. Dytso, H. V. Poor and P. Mittal, "A Differential
       Privacy Mechanism Design Under Matrix-Valued Query", arXiv:1802.10077.
    .. [3] matrixdp, ``docs/derivations/mvg_exact.md`` (the exact calibration).
"""


def _cite(func):
    func.__doc__ = (func.__doc__ or "").rstrip() + "\n" + _REFERENCES
    return func


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
        arr = check_finite_array(cov, argument, ndim=2)
        if arr.shape[0] != arr.shape[1]:
            raise InvalidShapeError(argument, f"must be square, got {arr.shape}")
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


# ----------------------------------------------------------------------------- box maxima
def _vertex_matrix(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    d = lower.size
    bits = ((np.arange(2 ** d)[:, None] >> np.arange(d)[None, :]) & 1).astype(bool)
    return np.where(bits, upper, lower)


def _greedy_box_max(a: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                    start: np.ndarray) -> tuple[float, np.ndarray]:
    """Local search over vertices (coordinate flips) for ``max xᵀ A x``; a lower bound."""
    x = start.copy()
    ax = a @ x
    value = float(x @ ax)
    diag = np.diagonal(a)
    for _ in range(20 * x.size + 20):
        alt = np.where(x == upper, lower, upper)
        step = alt - x
        gain = 2.0 * step * ax + step * step * diag
        k = int(np.argmax(gain))
        if gain[k] <= 1e-15 * max(abs(value), 1e-300):
            break
        x[k] = alt[k]
        ax = ax + a[:, k] * step[k]
        value = float(x @ ax)
    return value, x


def box_quadratic_max(matrix, lower, upper) -> tuple[float, bool, float, np.ndarray]:
    r"""``sup_{x in [lower, upper]} xᵀ A x`` for a symmetric PSD ``A``.

    The function is convex, so the supremum is attained at a vertex of the box.
    Exact for a diagonal ``A`` (``Σ_j A_jj max(lo_j², hi_j²)``) and, by
    enumerating the ``2^d`` vertices, for ``d <= ENUMERATION_MAX_DIM``; otherwise
    the upper bound ``min(λ_max(A)‖R‖², Rᵀ|A|R)`` with ``R_j = max(|lo_j|, |hi_j|)``,
    reported exact only when a locally optimal vertex attains it.

    Returns
    -------
    (value, exact, lower_value, argmax) : (float, bool, float, ndarray)
        ``argmax`` is a vertex attaining ``lower_value``.
    """
    a = np.asarray(matrix, dtype=np.float64)
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    reach = np.maximum(np.abs(lo), np.abs(hi))
    far = np.where(np.abs(hi) >= np.abs(lo), hi, lo)
    off = a - np.diag(np.diagonal(a))
    if not off.any():
        value = float(np.dot(np.diagonal(a), reach * reach))
        return value, True, value, far
    d = lo.size
    if d <= ENUMERATION_MAX_DIM:
        verts = _vertex_matrix(lo, hi)
        vals = np.einsum("ij,jk,ik->i", verts, a, verts)
        k = int(np.argmax(vals))
        return float(vals[k]), True, float(vals[k]), verts[k]
    lam_max = float(np.linalg.eigvalsh(a)[-1])
    upper_value = min(lam_max * float(reach @ reach), float(reach @ np.abs(a) @ reach))
    top = np.linalg.eigh(a)[1][:, -1]
    start = np.where(top >= 0, hi, lo)
    best, arg = _greedy_box_max(a, lo, hi, start)
    b2, x2 = _greedy_box_max(a, lo, hi, far.copy())
    if b2 > best:
        best, arg = b2, x2
    exact = best >= upper_value * (1 - TIGHTNESS_RTOL)
    return (best if exact else upper_value), exact, best, arg


def _direction_reach(directions: np.ndarray | None, reach: np.ndarray) -> np.ndarray:
    """``h_i = sup_{x in box} |u_iᵀ x| = Σ_k |u_ik| R_k`` for every direction."""
    if directions is None:
        return reach.copy()
    return np.abs(directions).T @ reach


def _shift_sq(d: np.ndarray, row: AxisPrecision, col: AxisPrecision) -> float:
    """``μ(D)² = ||diag(√p) Uᵀ D V diag(√q)||_F²``."""
    m = d if row.directions is None else row.directions.T @ d
    if col.directions is not None:
        m = m @ col.directions
    return float(np.sum(m * m * row.precisions[:, None] * col.precisions[None, :]))


def _unit(dim: int, index: int) -> np.ndarray:
    e = np.zeros(dim)
    e[index] = 1.0
    return e


# ----------------------------------------------------------------------------- structures
@_cite
def frobenius_ball_shift(radius: float, row: AxisPrecision, col: AxisPrecision) -> ShiftBound:
    r"""Exact supremum for the Frobenius ball ``{‖D‖_F <= s₂}``: ``s₂² λ_max(Σ⁻¹) λ_max(Ψ⁻¹)``.

    Equivalently ``μ = s₂ / sqrt(λ_min(Σ) λ_min(Ψ))``; attained by ``D = s₂ u vᵀ``
    with ``u, v`` the top precision directions.
    """
    i = int(np.argmax(row.precisions))
    j = int(np.argmax(col.precisions))
    u = _unit(row.dim, i) if row.directions is None else row.directions[:, i]
    v = _unit(col.dim, j) if col.directions is None else col.directions[:, j]
    value = radius * radius * row.max * col.max
    return ShiftBound(value, True, value, radius * np.outer(u, v), "frobenius-ball")


@_cite
def record_box_shift(row: AxisPrecision, col: AxisPrecision, *, half_widths=None,
                     radius=None) -> ShiftBound:
    r"""Supremum for the identity query: one record (row) of the value replaced.

    ``D = e_k dᵀ`` with ``d`` in the box ``[-w, w]`` (per-feature ranges ``w``) or
    the ball ``‖d‖ <= 2r``; then ``μ(D)² = (Σ⁻¹)_kk · dᵀ Ψ⁻¹ d`` factorises and

    .. math:: \sup_D \mu^2 = \max_k (\Sigma^{-1})_{kk} \cdot \sup_{d} d^\top \Psi^{-1} d.

    The first factor is exact; the second is exact for the ball, for a diagonal
    Ψ⁻¹ and for ``n_features <= ENUMERATION_MAX_DIM`` (see :func:`box_quadratic_max`).
    """
    row_diag = row.diagonal()
    k = int(np.argmax(row_diag))
    if radius is not None:
        lam, vecs = np.linalg.eigh(col.matrix())
        quad, exact, low = 4.0 * radius * radius * lam[-1], True, 4.0 * radius * radius * lam[-1]
        d = 2.0 * radius * vecs[:, -1]
        method = "record-ball"
    else:
        w = np.asarray(half_widths, dtype=np.float64)
        if col.directions is None:  # diagonal: the vertex d = w attains the maximum
            quad = low = float(np.dot(col.precisions, w * w))
            exact, d = True, w.copy()
        else:
            quad, exact, low, d = box_quadratic_max(col.matrix(), -w, w)
        method = "record-box"
    e = np.zeros(row.dim)
    e[k] = 1.0
    return ShiftBound(float(row_diag[k] * quad), exact, float(row_diag[k] * low), np.outer(e, d),
                      method)


def _outer_equimodal_sq(a: np.ndarray, lo: np.ndarray, hi: np.ndarray, radius):
    """``sup_{x,y} (xᵀAx)² + (yᵀAy)² - 2(xᵀAy)²`` (Ψ = Σ): upper ``2 R_A⁴``, witness search."""
    if radius is not None:
        lam, vecs = np.linalg.eigh(a)
        r2 = radius * radius
        if a.shape[0] == 1:
            x = np.array([radius])
            return r2 * r2 * lam[-1] ** 2, True, r2 * r2 * lam[-1] ** 2, x, np.zeros(1)
        x = radius * vecs[:, -1]
        y = radius * vecs[:, -2]
        upper = r2 * r2 * (lam[-1] ** 2 + lam[-2] ** 2)
        return upper, True, upper, x, y
    ra2, _, _, x = box_quadratic_max(a, lo, hi)
    # N = xxᵀ - yyᵀ has eigenvalues in [-R², R²] on orthonormal a, b, so
    # ||A^½ N A^½||² <= R⁴((aᵀAa)² + (bᵀAb)²) <= R⁴(λ₁² + λ₂²) (Ky Fan / Schur-convexity)
    reach = np.maximum(np.abs(lo), np.abs(hi))
    r2 = float(reach @ reach)
    lam = np.linalg.eigvalsh(a)
    top_two = lam[-1] ** 2 + (lam[-2] ** 2 if lam.size > 1 else 0.0)
    upper = min(2.0 * ra2 * ra2, r2 * r2 * top_two)

    def f(x_, ys):
        qx = x_ @ a @ x_
        qy = np.einsum("ij,jk,ik->i", ys, a, ys)
        cross = ys @ (a @ x_)
        return qx * qx + qy * qy - 2.0 * cross * cross

    candidates = [np.clip(np.zeros_like(lo), lo, hi)[None, :]]
    d = lo.size
    if d <= ENUMERATION_MAX_DIM:
        candidates.append(_vertex_matrix(lo, hi))
    else:
        # flip signs of symmetric coordinates to balance xᵀAy towards 0 (greedy partition)
        sym = np.isclose(-lo, hi)
        y = x.copy()
        ax = a @ x
        order = np.argsort(-np.abs(x * ax))
        total = 0.0
        for k in order:
            if not sym[k]:
                total += x[k] * ax[k]
        for k in order:
            if sym[k]:
                contrib = x[k] * ax[k]
                if total > 0:
                    y[k] = -x[k]
                    total -= contrib
                else:
                    total += contrib
        candidates.append(y[None, :])
    ys = np.vstack(candidates)
    vals = f(x, ys)
    k = int(np.argmax(vals))
    low = float(vals[k])
    exact = low >= upper * (1 - TIGHTNESS_RTOL)
    return (low if exact else upper), exact, low, x, ys[k]


@_cite
def outer_product_shift(row: AxisPrecision, col: AxisPrecision, *, scale: float, lower=None,
                        upper=None, radius=None) -> ShiftBound:
    r"""Supremum for the second-moment query: ``D = κ (x xᵀ - y yᵀ)`` with records in a box or ball.

    Let ``A = Σ⁻¹`` and ``B = Ψ⁻¹`` (both ``d x d``) and ``R_A² = sup_x xᵀ A x``.

    - Equi-modal ``A = B``: ``μ² = κ² [(xᵀAx)² + (yᵀAy)² - 2(xᵀAy)²] <= 2 κ² R_A⁴``,
      attained iff two records of maximal ``A``-norm with ``xᵀAy = 0`` exist (the
      search below certifies it; otherwise the bound is reported as an upper bound).
      For a ball the supremum is exact: ``κ² r⁴ (λ₁(A)² + λ₂(A)²)``.
    - ``A = aI`` (or ``B = bI``): by symmetry of ``D`` the same formulas with the
      other axis's precisions.
    - Otherwise the product bound ``λ_max(B) · sup_D ‖A^{1/2} D‖_F²`` with the
      unimodal bound ``min(Σ_i p_i c_i, λ_max(A)·2κ²R⁴)``,
      ``c_i = κ² min(4 R² h_i², R⁴)`` (upper bound).
    - Diagonal ``A = diag(a)``, ``B = diag(b)`` (standard-basis directions) and a box:
      also the entrywise bound ``κ² Σ_ij a_i b_j E_ij²`` with
      ``E_ij = max_box x_i x_j - min_box y_i y_j``; it is attained (exact) when one
      record maximises and another minimises every product at once, e.g. for
      one-signed boxes such as ``[0, c]^d``.

    The result is exact whenever a witness pair of records attains the smallest
    applicable upper bound; otherwise ``exact=False`` and ``value_sq`` is that bound.
    """
    base = _outer_product_base(row, col, scale=scale, lower=lower, upper=upper, radius=radius)
    if radius is not None or row.directions is not None or col.directions is not None or \
            base.exact:
        return base
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    corners = np.stack([np.outer(lo, lo), np.outer(lo, hi), np.outer(hi, lo), np.outer(hi, hi)])
    top, bottom = corners.max(axis=0), corners.min(axis=0)
    straddle = (lo <= 0) & (hi >= 0)
    diag_min = np.where(straddle, 0.0, np.minimum(lo * lo, hi * hi))
    np.fill_diagonal(bottom, diag_min)
    spread = top - bottom
    k2 = scale * scale
    entry_bound = k2 * float(row.precisions @ (spread * spread) @ col.precisions)
    upper_sq = min(base.value_sq, entry_bound)
    near = np.clip(np.zeros_like(lo), lo, hi)
    far = np.where(np.abs(hi) >= np.abs(lo), hi, lo)
    cands = [(hi, lo), (lo, hi), (far, near), (hi, near), (lo, near)]
    if base.records is not None:
        cands.append(base.records)
    best, best_pair = -1.0, None
    for x, y in cands:
        val = _shift_sq(scale * (np.outer(x, x) - np.outer(y, y)), row, col)
        if val > best:
            best, best_pair = val, (x, y)
    exact = best >= upper_sq * (1 - TIGHTNESS_RTOL)
    x, y = best_pair
    return ShiftBound(best if exact else upper_sq, exact, best,
                      scale * (np.outer(x, x) - np.outer(y, y)),
                      base.method + ("+entrywise" if entry_bound < base.value_sq else ""),
                      best_pair)


def _outer_product_base(row: AxisPrecision, col: AxisPrecision, *, scale: float, lower=None,
                        upper=None, radius=None) -> ShiftBound:
    lo = None if lower is None else np.asarray(lower, dtype=np.float64)
    hi = None if upper is None else np.asarray(upper, dtype=np.float64)
    k2 = scale * scale
    if row.same_as(col) or (row.is_scalar() and col.is_scalar()):
        # A = B, or A = aI, B = bI (then mu^2 = (b/a) * equimodal value at A)
        factor = 1.0 if row.same_as(col) else col.max / row.max
        val, exact, low, x, y = _outer_equimodal_sq(row.matrix(), lo, hi, radius)
        wit = scale * (np.outer(x, x) - np.outer(y, y))
        return ShiftBound(k2 * val * factor, exact, k2 * low * factor, wit, "outer-equimodal",
                          (x, y))
    if col.is_scalar() or row.is_scalar():
        directional, other = (row, col) if col.is_scalar() else (col, row)
        return _outer_unimodal(directional, other.max, k2, scale, lo, hi, radius)
    ub_a = _outer_unimodal(row, 1.0, k2, scale, lo, hi, radius)
    value = ub_a.value_sq * col.max
    low = _shift_sq(ub_a.witness, row, col) if ub_a.witness is not None else 0.0
    exact = low >= value * (1 - TIGHTNESS_RTOL)
    return ShiftBound(value, exact, low, ub_a.witness, "outer-product-bound", ub_a.records)


def _outer_unimodal(a_prec: AxisPrecision, b_scalar: float, k2: float, scale: float, lo, hi,
                    radius) -> ShiftBound:
    r"""``sup ‖A^{1/2} D‖_F² · b`` for ``D = κ(xxᵀ - yyᵀ)`` (the other axis ``b·I``); upper bound."""
    if radius is not None:
        r2 = radius * radius
        h = np.full(a_prec.dim, radius)
    else:
        reach = np.maximum(np.abs(lo), np.abs(hi))
        r2 = float(reach @ reach)
        h = _direction_reach(a_prec.directions, reach)
    costs = np.minimum(4.0 * r2 * h * h, r2 * r2)
    linear = k2 * float(costs @ a_prec.precisions)
    # tr(N A N) = ν₊² aᵀAa + ν₋² bᵀAb <= R⁴ (λ₁ + λ₂) for N = xxᵀ - yyᵀ (Ky Fan)
    top = np.sort(a_prec.precisions)[::-1]
    kyfan = k2 * r2 * r2 * float(top[:2].sum())
    upper = min(linear, kyfan) * b_scalar
    # witnesses: the equimodal optimiser at A and at I
    eye = AxisPrecision.identity(a_prec.dim)
    a_full = a_prec.matrix()
    best, wit, recs = 0.0, None, None
    for mat in (a_full, eye.matrix()):
        _, _, _, x, y = _outer_equimodal_sq(mat, lo, hi, radius)
        for xx, yy in ((x, y), (y, x)):
            d = scale * (np.outer(xx, xx) - np.outer(yy, yy))
            val = b_scalar * _shift_sq(d, a_prec, eye)
            if val > best:
                best, wit, recs = val, d, (xx, yy)
    exact = best >= upper * (1 - TIGHTNESS_RTOL)
    return ShiftBound(best if exact else upper, exact, best, wit, "outer-unimodal", recs)


# ----------------------------------------------------------------------------- public API
def _as_structure(sensitivity):
    from ..queries import as_structure

    return as_structure(sensitivity)


@_cite
def mahalanobis_sensitivity(sensitivity, row_cov, col_cov) -> ShiftBound:
    r"""Mahalanobis sensitivity ``sup_D ‖Σ^{-1/2} D Ψ^{-1/2}‖_F`` of MVG noise on a query.

    Parameters
    ----------
    sensitivity : float or sensitivity structure
        A number is a Frobenius-ball sensitivity ``s₂`` (exact result
        ``s₂/sqrt(λ_min(Σ)λ_min(Ψ))``); a structure from :mod:`matrixdp.queries`
        supplies its own set of differences.
    row_cov, col_cov : array_like or AxisPrecision
        Σ (m x m) and Ψ (n x n), symmetric positive definite (or their
        :class:`AxisPrecision`).

    Returns
    -------
    ShiftBound
        ``.value`` is μ; ``.exact`` says whether it is the supremum or an upper bound.
    """
    structure = _as_structure(sensitivity)
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


def mse_optimal_allocation(costs) -> np.ndarray:
    r"""Shares minimising the total noise variance ``Σ 1/p_i`` under ``Σ c_i p_i = B``.

    Lagrange: ``p_i ∝ 1/sqrt(c_i)``, i.e. ``θ_i = sqrt(c_i)/Σ_j sqrt(c_j)``. Its
    total variance ``(Σ sqrt(c_i))²/B`` never exceeds the i.i.d. choice's
    ``d Σ c_i / B`` (Cauchy–Schwarz). A direction with ``c_i = 0`` (a feature
    whose public range is a single point) costs nothing and gets share 0;
    :func:`exact_precisions` then gives it the largest precision of the others.
    """
    c = _check_costs(costs)
    root = np.sqrt(c)
    return root / root.sum()


def _check_costs(costs) -> np.ndarray:
    """Direction costs: a non-empty 1-D array of finite values >= 0, at least one > 0."""
    c = np.asarray(costs.costs if isinstance(costs, DirectionCosts) else costs, dtype=np.float64)
    if c.ndim != 1 or c.size == 0 or np.any(c < 0) or not np.all(np.isfinite(c)) or \
            not np.any(c > 0):
        raise InvalidParameterError("costs", "must be a non-empty 1-D array of finite values >= 0, "
                                             "at least one > 0")
    return c


@_cite
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
    from ..directions import water_filling

    c = _check_costs(costs)
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
