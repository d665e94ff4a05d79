"""Shift geometry: the supremum of the Mahalanobis shift over a query's set of differences.

MVG noise with precisions ``(Σ⁻¹, Ψ⁻¹)`` (:class:`~matrixdp.calibration.mvg_exact.AxisPrecision`)
has privacy loss that of a 1-D Gaussian with shift ``μ(D) = ‖Σ^{-1/2} D Ψ^{-1/2}‖_F``.
The query structures of this package compute ``sup_D μ(D)²`` over their differences
with the helpers here: a Frobenius ball, one replaced record in a box or ball
(identity query), and outer-product differences (covariance query) — exactly where
that is computable, otherwise a certified upper bound flagged as such
(:class:`~matrixdp.calibration.mvg_exact.ShiftBound`). Derivation and proofs:
``docs/mvg.md``.
"""

from __future__ import annotations

import contextlib
import contextvars

import numpy as np

from .._linalg import cite
from ..calibration.mvg_exact import REFERENCES, AxisPrecision, ShiftBound

__all__ = [
    "ENUMERATION_MAX_DIM",
    "TIGHTNESS_RTOL",
    "box_quadratic_max",
    "DENSE_BOX_MAX_DIM",
    "direction_reach",
    "memoised_reach",
    "eigen_box_quadratic_bound",
    "frobenius_ball_shift",
    "record_box_shift",
    "outer_product_shift",
]

_cite = cite(REFERENCES)


#: Largest dimension for which a box maximum is computed by enumerating its 2^d vertices.
ENUMERATION_MAX_DIM = 16


#: Relative tolerance under which a certified lower bound counts as attaining an upper bound.
TIGHTNESS_RTOL = 1e-12


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


def box_quadratic_max(matrix, lower, upper, *, eigen=None) -> tuple[float, bool, float, np.ndarray]:
    r"""``sup_{x in [lower, upper]} xᵀ A x`` for a symmetric PSD ``A``.

    The function is convex, so the supremum is attained at a vertex of the box.
    Exact for a diagonal ``A`` (``Σ_j A_jj max(lo_j², hi_j²)``) and, by
    enumerating the ``2^d`` vertices, for ``d <= ENUMERATION_MAX_DIM``; otherwise
    the upper bound ``min(λ_max(A)‖R‖², Rᵀ|A|R)`` with ``R_j = max(|lo_j|, |hi_j|)``,
    reported exact only when a locally optimal vertex attains it.

    ``eigen=(values, vectors)``, when ``A = V diag(values) Vᵀ`` is known (an MVG precision built
    from orthonormal directions), gives λ_max and its eigenvector without an eigendecomposition.

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
    if eigen is not None:
        values, vectors = eigen
        j = int(np.argmax(values))
        lam_max, top = float(values[j]), np.asarray(vectors)[:, j]
    else:
        lam, vecs = np.linalg.eigh(a)
        lam_max, top = float(lam[-1]), vecs[:, -1]
    upper_value = min(lam_max * float(reach @ reach), float(reach @ np.abs(a) @ reach))
    start = np.where(top >= 0, hi, lo)
    best, arg = _greedy_box_max(a, lo, hi, start)
    b2, x2 = _greedy_box_max(a, lo, hi, far.copy())
    if b2 > best:
        best, arg = b2, x2
    exact = best >= upper_value * (1 - TIGHTNESS_RTOL)
    return (best if exact else upper_value), exact, best, arg


#: Per-block memo of :func:`direction_reach` (see :func:`memoised_reach`); None outside a block.
_REACH_MEMO: contextvars.ContextVar = contextvars.ContextVar("matrixdp_reach_memo", default=None)


@contextlib.contextmanager
def memoised_reach(projector=None):
    """Within the block, :func:`direction_reach` computes ``|U|ᵀR`` once per (U, R) pair.

    For one construction (the MVG mechanism's calibration asks for the same ``|U|ᵀR`` in its
    direction costs and in its shift bound): the memo holds the arrays it was given, keyed by
    identity, and is dropped when the block ends, so no later change of an array is missed.

    ``projector``: an optional pair ``(U, fn)`` with ``fn(rows)`` equal to ``rows @ U`` (up to
    summation order): :func:`project_rows` uses it for that same array ``U`` (the MVG mechanism
    computes its orthonormality certificate's second product in the same pass over ``U``).
    """
    memo = {}
    if projector is not None:
        memo[_PROJECTOR] = projector
    token = _REACH_MEMO.set(memo)
    try:
        yield
    finally:
        _REACH_MEMO.reset(token)


#: Key of the projector in the memo of :func:`memoised_reach`.
_PROJECTOR = "projector"


def project_rows(rows: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """``rows @ directions``, through the projector of :func:`memoised_reach` when one is
    registered for this very array (same object)."""
    memo = _REACH_MEMO.get()
    hook = None if memo is None else memo.get(_PROJECTOR)
    if hook is not None and hook[0] is directions:
        return hook[1](rows)
    return rows @ np.asarray(directions, dtype=np.float64)


def direction_reach(directions: np.ndarray | None, reach: np.ndarray) -> np.ndarray:
    """``h_i = sup_{x in box} |u_iᵀ x| = Σ_k |u_ik| R_k`` for every direction."""
    if directions is None:
        return reach.copy()
    memo = _REACH_MEMO.get()
    if memo is None:
        return _direction_reach(directions, reach)
    key = (id(directions), np.asarray(reach, dtype=np.float64).tobytes())
    found = memo.get(key)
    if found is None or found[0] is not directions:
        found = memo[key] = (directions, _direction_reach(directions, reach))
    return found[1].copy()


def _direction_reach(directions, reach) -> np.ndarray:
    u = np.asarray(directions)
    if u.shape[0] <= DENSE_BOX_MAX_DIM:  # small: one product (the same floats as before)
        return np.abs(u).T @ reach
    out = np.zeros(u.shape[1])
    buf = np.empty((min(_REACH_BLOCK, u.shape[0]), u.shape[1]))
    for start in range(0, u.shape[0], _REACH_BLOCK):  # row blocks: no d x d temporary
        rows = u[start:start + _REACH_BLOCK]
        blk = np.abs(rows, out=buf[:rows.shape[0]])
        out += reach[start:start + rows.shape[0]] @ blk
    return out


#: Rows of ``|U|`` formed at a time by :func:`direction_reach`.
_REACH_BLOCK = 32


#: Above this side, a record-box bound with known directions is computed from the eigen-form
#: ``U diag(p) Uᵀ`` (O(d²), no d x d precision: :func:`eigen_box_quadratic_bound`).
DENSE_BOX_MAX_DIM = 256


@_cite
def eigen_box_quadratic_bound(values, vectors, lower, upper, *, reach_h=None
                              ) -> tuple[float, bool, float, np.ndarray]:
    r"""An upper bound on ``sup_{x in [lower, upper]} xᵀ A x`` for ``A = U diag(p) Uᵀ``, in O(d²).

    ``U`` has orthonormal columns ``u_j`` and ``p >= 0``. With ``R_k = max(|lo_k|, |hi_k|)`` and
    ``h_j = Σ_k |U_kj| R_k >= |u_jᵀ x|`` on the box, for every ``c >= 0``

    .. math:: x^\top A x = c\|x\|^2 + \sum_j (p_j - c)(u_j^\top x)^2
              \le c\|R\|^2 + \sum_j |p_j - c|\, h_j^2 =: f(c),

    and ``f(c) >= Rᵀ|A|R`` (``|A_kl| <= c δ_kl + Σ_j |p_j - c| |U_kj||U_lj|``). The bound is
    ``min(λ_max ‖R‖², min_c f(c))`` (``f`` is convex and piecewise linear: its minimum is at
    ``c = 0`` or some ``p_j``), never below the dense :func:`box_quadratic_max`'s
    ``min(λ_max ‖R‖², Rᵀ|A|R)`` (nor below the supremum). It is reported exact when a candidate
    vertex (the signs of the top eigenvector, the far corner) attains it.

    Parameters
    ----------
    values : array_like (d,)
        ``p``.
    vectors : ndarray (d, d)
        ``U`` (orthonormal columns; the caller has checked them).
    lower, upper : array_like (d,)
        The box.
    reach_h : array_like (d,), optional
        ``h = |U|ᵀ R`` if already computed.

    Returns
    -------
    (value, exact, lower_value, argmax) : as :func:`box_quadratic_max`.

    Notes
    -----
    Derivation: ``docs/mvg.md``, Part III, Sec. 3.2 ("Large d").
    """
    p = np.asarray(values, dtype=np.float64)
    u = np.asarray(vectors, dtype=np.float64)
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    reach = np.maximum(np.abs(lo), np.abs(hi))
    far = np.where(np.abs(hi) >= np.abs(lo), hi, lo)
    r2 = float(reach @ reach)
    j = int(np.argmax(p))
    # candidate vertices: the signs of the top eigenvector, the far corner
    cand_t = np.stack([np.where(u[:, j] >= 0, hi, lo), far])    # (2, d): rows are vertices
    memo = _REACH_MEMO.get()
    if reach_h is None and memo is not None:
        reach_h = direction_reach(vectors, reach)
    if reach_h is None:   # h = |U|ᵀR and Uᵀ cand in one pass over U by row blocks
        h = np.zeros(u.shape[1])
        proj_t = np.zeros((2, u.shape[1]))
        buf = np.empty((min(_REACH_BLOCK, u.shape[0]), u.shape[1]))
        for start in range(0, u.shape[0], _REACH_BLOCK):
            rows = u[start:start + _REACH_BLOCK]
            stop = start + rows.shape[0]
            proj_t += cand_t[:, start:stop] @ rows
            h += reach[start:stop] @ np.abs(rows, out=buf[:rows.shape[0]])
    else:
        h = np.asarray(reach_h, dtype=np.float64)
        proj_t = project_rows(cand_t, vectors)    # (Uᵀ x)ᵀ for both vertices
    hh = h * h
    order = np.argsort(p)
    ps, ws = p[order], hh[order]
    cw = np.cumsum(ws)                      # Σ_{i<=k} h_i² (sorted by p)
    cpw = np.cumsum(ps * ws)                # Σ_{i<=k} p_i h_i²
    tw, tpw = cw[-1], cpw[-1]
    # f(c) at c = p_(k): c r2 + (c cw_k - cpw_k) + (tpw - cpw_k) - c (tw - cw_k)
    f = ps * r2 + (ps * cw - cpw) + (tpw - cpw) - ps * (tw - cw)
    upper_value = min(float(p[j]) * r2, float(tpw), float(np.min(f)))
    vals = (proj_t * proj_t) @ p
    k = int(np.argmax(vals))
    best = float(vals[k])
    exact = best >= upper_value * (1 - TIGHTNESS_RTOL)
    return (best if exact else upper_value), exact, best, cand_t[k].copy()


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
                     radius=None, dense: bool | None = None) -> ShiftBound:
    r"""Supremum for the identity query: one record (row) of the value replaced.

    ``D = e_k dᵀ`` with ``d`` in the box ``[-w, w]`` (per-feature ranges ``w``) or
    the ball ``‖d‖ <= 2r``; then ``μ(D)² = (Σ⁻¹)_kk · dᵀ Ψ⁻¹ d`` factorises and

    .. math:: \sup_D \mu^2 = \max_k (\Sigma^{-1})_{kk} \cdot \sup_{d} d^\top \Psi^{-1} d.

    The first factor is exact; the second is exact for the ball, for a diagonal
    Ψ⁻¹ and for ``n_features <= ENUMERATION_MAX_DIM`` (see :func:`box_quadratic_max`).
    For ``n_features > DENSE_BOX_MAX_DIM`` (unless ``dense=True``) the box maximum is bounded from
    the eigen-form of Ψ⁻¹ in O(d²) (:func:`eigen_box_quadratic_bound`: never below the dense
    bound, so at least as conservative) and the ball's λ_max is the largest precision.
    ``dense=True`` forms Ψ⁻¹ and runs the dense search (its witness is better: the auditor's
    :meth:`~matrixdp.queries.IdentityQuery.witnesses` uses it).
    """
    row_diag = row.diagonal()
    k = int(np.argmax(row_diag))
    if dense is None:
        dense = col.dim <= DENSE_BOX_MAX_DIM
    if radius is not None:
        if dense or col.directions is None:
            lam, vecs = np.linalg.eigh(col.matrix())
            top_value, top = lam[-1], vecs[:, -1]
        else:  # the eigen-form gives λ_max(Ψ⁻¹) = max p and its direction
            j = int(np.argmax(col.precisions))
            top_value, top = col.precisions[j], col.directions[:, j]
        quad, exact = 4.0 * radius * radius * top_value, True
        low = quad
        d = 2.0 * radius * top
        method = "record-ball"
    else:
        w = np.asarray(half_widths, dtype=np.float64)
        if col.directions is None:  # diagonal: the vertex d = w attains the maximum
            quad = low = float(np.dot(col.precisions, w * w))
            exact, d = True, w.copy()
        elif dense:
            quad, exact, low, d = box_quadratic_max(col.matrix(), -w, w,
                                                    eigen=(col.precisions, col.directions))
        else:
            quad, exact, low, d = eigen_box_quadratic_bound(col.precisions, col.directions, -w, w)
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
        h = direction_reach(a_prec.directions, reach)
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
