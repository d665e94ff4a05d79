"""Post-processing onto what is possible: nearest points of public feasible sets, free of budget.

A DP release may land outside the set of values the true statistic can take: a mean outside its
public range, a covariance with a negative eigenvalue, a correlation above one. Projecting the
release onto a closed convex set that is defined from **public** inputs only (the public bounds,
the dimension) is post-processing, so it costs no privacy budget. When the true value lies in the
set, the Euclidean (Frobenius) projection never increases the error in that norm (the projection
onto a closed convex set is non-expansive; see docs/postprocessing.md), which is why the
estimators and the CLI project by default.

Bottom layer: pure numpy, no randomness, no privacy logic.
"""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np

from ._validation import check_box_bounds, check_choice, check_finite_array
from .errors import InvalidParameterError, InvalidShapeError

__all__ = [
    "FEASIBLE_REFERENCES",
    "project_feasible",
    "clamp",
    "project_simplex",
    "covariance_entry_bounds",
    "nearest_correlation",
    "orthonormalise",
    "project_covariance",
    "project_psd",
    "project_psd_box",
    "project_psd_diagonal",
    "ProjectionResult",
    "second_moment_entry_bounds",
    "ShrinkageResult",
    "projected_stein_shrink",
    "james_stein_shrink",
    "variance_groups",
]

FEASIBLE_REFERENCES = """
    References
    ----------
    .. [1] J. P. Boyle and R. L. Dykstra, "A method for finding projections onto the intersection
       of convex sets in Hilbert spaces", Lecture Notes in Statistics 37, 1986.
    .. [2] N. J. Higham, "Computing the nearest correlation matrix -- a problem from finance",
       IMA Journal of Numerical Analysis 22(3), 2002.
    .. [3] N. J. Higham, "Computing a nearest symmetric positive semidefinite matrix", Linear
       Algebra and its Applications 103, 1988.
    .. [4] J. Malick, "A dual approach to semidefinite least-squares problems", SIAM Journal on
       Matrix Analysis and Applications 26(1), 2004.
    .. [5] H. Qi and D. Sun, "A quadratically convergent Newton method for computing the nearest
       correlation matrix", SIAM Journal on Matrix Analysis and Applications 28(2), 2006.
    .. [6] D. P. Bertsekas, "Projected Newton methods for optimization problems with simple
       constraints", SIAM Journal on Control and Optimization 20(2), 1982.
"""

#: Default stopping rule of the alternating projections: relative change in Frobenius norm.
DEFAULT_TOL = 1e-10
DEFAULT_MAX_ITER = 500


def _square(matrix, argument: str) -> np.ndarray:
    arr = check_finite_array(matrix, argument)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise InvalidShapeError(argument, f"must be a square matrix, got shape {arr.shape}")
    return (arr + arr.T) / 2.0


def clamp(values, lower, upper) -> np.ndarray:
    """Clip ``values`` to the public box ``[lower, upper]`` (broadcast entrywise).

    The Euclidean projection onto a box; when the true value lies in the box, no entry's error
    grows. ``lower`` and ``upper`` must be public (never computed from the private data).
    """
    arr = np.asarray(values, dtype=float)
    lo = np.asarray(lower, dtype=float)
    hi = np.asarray(upper, dtype=float)
    if np.any(lo > hi):
        raise InvalidParameterError("lower", "every lower bound must be <= its upper bound")
    return np.clip(arr, lo, hi)


def project_simplex(values, total: float = 1.0) -> np.ndarray:
    """Euclidean projection of ``values`` (along the last axis) onto the simplex
    ``{s : s >= 0, sum(s) = total}``.

    The shares of a categorical column's categories lie on this simplex (each record is in exactly
    one public category): the projection of their noisy release is post-processing with public
    inputs, and since the true shares lie in the (convex) simplex it never increases the
    Euclidean error of the block (an entry may still move away from its true value). The result is
    ``max(v - tau, 0)`` with the one ``tau`` that makes it sum to ``total``, found by sorting [1]_.

    Parameters
    ----------
    values : array_like, shape (..., k)
        The noisy shares (or counts), one block per row.
    total : float, default 1.0
        The block's public sum (1 for shares, the public n for counts); must be > 0.

    Returns
    -------
    numpy.ndarray
        The projection, same shape as ``values``.

    References
    ----------
    .. [1] J. Duchi, S. Shalev-Shwartz, Y. Singer, T. Chandra, "Efficient projections onto the
       l1-ball for learning in high dimensions", ICML 2008 (Figure 1).
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 0 or v.shape[-1] == 0:
        raise InvalidShapeError("values", "needs at least one entry along the last axis")
    total = float(total)
    if not (math.isfinite(total) and total > 0):
        raise InvalidParameterError("total", f"must be a finite number > 0, got {total!r}")
    check_finite_array(v, "values")
    k = v.shape[-1]
    u = -np.sort(-v, axis=-1)                      # descending
    css = np.cumsum(u, axis=-1) - total
    j = np.arange(1, k + 1, dtype=np.float64)
    cond = u - css / j > 0                         # true for a prefix of the sorted entries
    rho = np.count_nonzero(cond, axis=-1)          # >= 1 always (the largest entry)
    tau = np.take_along_axis(css, (rho - 1)[..., None], axis=-1) / rho[..., None]
    return np.maximum(v - tau, 0.0)


def project_psd(matrix, *, floor: float = 0.0) -> np.ndarray:
    """The Frobenius-nearest symmetric matrix whose eigenvalues are all ``>= floor`` [3]_.

    Symmetrises, then clips the eigenvalues at ``floor`` (0 gives the PSD cone).
    """
    sym = _square(matrix, "matrix")
    lam, vec = np.linalg.eigh(sym)
    lam = np.maximum(lam, float(floor))
    out = (vec * lam) @ vec.T
    return (out + out.T) / 2.0


def project_psd_box(matrix, lower=None, upper=None, *, tol: float = DEFAULT_TOL,
                    max_iter: int = DEFAULT_MAX_ITER, return_info: bool = False,
                    method: str = "auto", newton_max_iter: int = 300):
    """The Frobenius-nearest PSD matrix whose entries lie in the public box ``[lower, upper]``.

    First the PSD projection (exact when it already meets the box), then the exact projection
    onto the larger set PSD ∩ {diagonal in its box} (:func:`project_psd_diagonal`, a
    semismooth Newton method on the dual [4]_ [5]_): when that already meets the off-diagonal
    bounds it is the answer (the projection onto a superset that lands in the subset), which is
    always the case for covariance bounds (Cauchy–Schwarz is implied by PSD). Otherwise a
    projected Newton method [6]_ runs on the dual over the symmetric matrix of multipliers
    ``Y`` (one per entry), warm-started from the diagonal solution: the dual
    ``½‖(C + Y)_+‖² - Σ min(l_ij Y_ij, u_ij Y_ij)`` is smooth on every orthant, so each step
    keeps the sign of every multiplier (an exact projection onto the orthant, an entry at 0
    released to the side its gradient points to), free entries take a Newton step with the
    generalised Jacobian of the eigenvalue clipping (conjugate gradients), and the arc is
    searched with Bertsekas' Armijo rule (derivation in docs/postprocessing.md). It stops when
    the KKT conditions hold to ``min(tol, 1e-12)`` relative to each bound's own scale (or the
    eigendecomposition's rounding floor ``64 eps ‖C + Y‖₂``): every entry in its box, a
    positive multiplier only on an entry at its lower bound, a negative one only at its upper
    bound. The result ``(C + Y)_+`` is then exactly the projection for those multipliers.
    Only if Newton has not converged in ``newton_max_iter`` steps (warm-started from the diagonal
    solution, then again from zero multipliers) do Dykstra's alternating
    projections [1]_ run, warm-started from its dual iterate;
    Dykstra stops when a sweep changes the iterate by less than ``tol`` relative to its norm
    **and** the PSD iterate meets the box to ``sqrt(tol)`` relative to the largest finite bound.
    Its result counts as converged only if it also meets every entry's box to ``sqrt(tol)``
    relative to that entry's own bound (a tolerance relative to the largest bound alone lets an
    entry of a narrow feature end far outside its box). If it has not, the Newton methods run
    once more, by continuation in the size of the release: the projections of ``t C`` for
    ``t = t_0, 10 t_0, …, 1``, each warm-started from the previous multipliers, ``t_0`` bringing
    every entry of ``t C`` within its own bound (first the diagonal problem, then, if its
    solution leaves the off-diagonal box, the whole box). Their last stage is the problem
    asked, so a solution whose KKT conditions hold is the projection and replaces Dykstra's
    result (docs/postprocessing.md, "When Newton and Dykstra stop early": what stalls and why
    this is still the same projection). Where today's path converged these steps never run, so
    the result is unchanged to the bit. If the continuation does not converge either, Dykstra's
    result is returned with ``converged=False``, and a warning when it is outside some entry's
    box by more than ``sqrt(tol)`` of that bound (a result inside it is feasible, possibly not
    the nearest feasible matrix). ``method="dykstra"`` skips every Newton step, the
    continuation included. The result is PSD (the last step is an eigenvalue clipping).

    Parameters
    ----------
    matrix : array_like, shape (d, d)
        The noisy symmetric release (symmetrised first).
    lower, upper : array_like or float, optional
        Public entrywise bounds, broadcast to ``(d, d)``; ``None`` means unbounded.
    tol : float
        Stopping tolerance (see above).
    max_iter : int
        At most this many Dykstra sweeps (the fallback).
    return_info : bool
        Return a :class:`ProjectionResult` (``dual``: the matrix of multipliers;
        ``iterations``: Dykstra sweeps, 0 when a Newton solution was exact (the sweeps made
        before the continuation when that converged);
        ``violation``: the worst box violation relative to the largest finite bound).
    method : {"auto", "dykstra"}
        ``"dykstra"`` skips the Newton steps (plain Dykstra from the release; for comparison).
    newton_max_iter : int
        At most this many projected Newton steps on the matrix of multipliers (0: skip them).
        ``benchmarks/bench_feasible.py`` measures the steps taken at d = 10 … 200.
    """
    x = _square(matrix, "matrix")
    release = x
    d = x.shape[0]
    lo = np.full((d, d), -np.inf) if lower is None else np.broadcast_to(np.asarray(lower, float), (d, d))
    hi = np.full((d, d), np.inf) if upper is None else np.broadcast_to(np.asarray(upper, float), (d, d))
    if np.any(lo > hi):
        raise InvalidParameterError("lower", "every lower bound must be <= its upper bound")
    lo = (lo + lo.T) / 2.0
    hi = (hi + hi.T) / 2.0
    finite = np.concatenate([np.abs(lo[np.isfinite(lo)]), np.abs(hi[np.isfinite(hi)])])
    big = float(finite.max()) if finite.size and finite.max() > 0 else 1.0

    def violation(m):
        return float(np.max(np.maximum(np.maximum(lo - m, m - hi), 0.0))) / big

    # each entry's own scale (its larger finite bound; the largest one where both are 0 or
    # infinite): a tolerance relative to the largest bound alone hides an entry of a narrow
    # feature that leaves its box (bounds 10^12 apart in a covariance of original units)
    own = _entry_scale(lo, hi)
    own = np.where(own > 0, own, big)

    def own_violation(m):
        return float(np.max(np.maximum(np.maximum(lo - m, m - hi), 0.0) / own))

    dlo, dhi = np.diag(lo).copy(), np.diag(hi).copy()
    ydual = np.zeros((d, d))
    slack = 1e-12 * big
    p = np.zeros_like(x)
    q = np.zeros_like(x)
    if method not in ("auto", "dykstra"):
        raise InvalidParameterError("method", "must be 'auto' or 'dykstra'")
    if method == "auto" and np.all(dhi >= 0):  # else no PSD matrix meets the box: Dykstra alone
        # 0. the PSD projection already in the box is the projection onto the intersection (a
        # subset of the cone): one eigendecomposition, exact
        out = project_psd(x)
        if np.all(out >= lo - slack) and np.all(out <= hi + slack):
            return ProjectionResult(out, np.zeros((d, d)), True, 0, violation(out)) if return_info else out
        # 1. PSD ∩ {diagonal in its box}: exact, and enough when the off-diagonal bounds hold
        first = _dual_newton(x, np.maximum(dlo, 0.0), dhi, diagonal=True, tol=min(tol, 1e-12),
                             max_iter=DIAGONAL_NEWTON_MAX_ITER)
        if first.converged and np.all(first.matrix >= lo - slack) and np.all(first.matrix <= hi + slack):
            out = first.matrix
            return ProjectionResult(out, np.diag(first.dual), True, 0, violation(out)) if return_info else out
        # 2. the whole box: projected Newton on the dual over the matrix of multipliers,
        # warm-started from the diagonal solution (any d: CG on the free entries)
        if newton_max_iter > 0:
            full = _box_projected_newton(x, lo, hi, tol=min(tol, 1e-12), max_iter=newton_max_iter,
                                         y0=np.diag(first.dual))
            if not full.converged:
                # the warm start can stall where rounding hides the line search's decrease (a
                # d = 100 second-moment box, one input in 30 one-ulp perturbations on the
                # previous diagonal solver and on this one, each on different inputs): the
                # same Newton method from Y = 0 before Dykstra's fallback
                cold = _box_projected_newton(x, lo, hi, tol=min(tol, 1e-12),
                                             max_iter=newton_max_iter)
                if cold.converged:
                    full = cold
        else:
            full = first._replace(converged=False, dual=np.diag(first.dual))
        ydual = full.dual
        if full.converged:
            out = full.matrix
            return ProjectionResult(out, ydual, True, 0, violation(out)) if return_info else out
        # 3. Dykstra, warm-started keeping its invariant x + p + q = C: x = X(Y),
        # p = C + Y - X(Y) (the clipped negative part), q = -Y
        p = x + ydual - full.matrix
        q = -ydual
        x = full.matrix
    converged = False
    sweeps = 0
    feas_tol = np.sqrt(tol)
    for sweeps in range(1, int(max_iter) + 1):
        y = project_psd(x + p)
        p = x + p - y
        x_new = np.clip(y + q, lo, hi)
        q = y + q - x_new
        change = np.linalg.norm(x_new - x)
        x = x_new
        if change <= tol * max(1.0, np.linalg.norm(x)) and violation(y) <= feas_tol:
            converged = True
            break
    out = project_psd(x)
    outside = violation(out)
    # Dykstra's own test is relative to the largest bound: a result outside some entry's box by
    # more than sqrt(tol) of that entry's own scale has stopped early too
    converged = converged and own_violation(out) <= feas_tol
    if not converged and method == "auto" and np.all(dhi >= 0):
        # 4. Newton again, by continuation in the size of the release (a release many orders of
        # magnitude larger than its box; docs/postprocessing.md, "When Newton and Dykstra stop
        # early"); only a certified (KKT) solution that meets the box replaces Dykstra's result
        rescue = _continuation(release, lo, hi, tol=min(tol, 1e-12), slack=slack,
                               newton_max_iter=newton_max_iter)
        if rescue is not None:
            out, ydual = rescue.matrix, rescue.dual
            converged, outside = True, violation(out)
    if not converged and own_violation(out) > feas_tol:
        # no value computed from the matrix is printed (it may be a release of private data)
        warnings.warn(f"project_psd_box: Dykstra's iterations stopped after {sweeps} sweeps before "
                      f"converging (tol={tol:g}); the result is PSD but violates the box by more "
                      f"than sqrt(tol) relative to the violated bound", RuntimeWarning,
                      stacklevel=2)
    if return_info:
        return ProjectionResult(out, ydual, converged, sweeps, outside)
    return out


#: Step 1 of :func:`project_psd_box` (the diagonal problem): at most this many Newton steps (200
#: before session 24; a release 10^9 times its unit box takes ~260 without the continuation)
DIAGONAL_NEWTON_MAX_ITER = 500

#: Continuation (step 4 of :func:`project_psd_box`): the release's scale grows by this factor
#: per stage, each stage at most ``CONTINUATION_STAGE_ITER`` Newton steps (the last one
#: ``CONTINUATION_LAST_ITER``).
CONTINUATION_FACTOR = 10.0
CONTINUATION_STAGE_ITER = 200
CONTINUATION_LAST_ITER = 1000
#: At most this many stages (a release more than 10^19 times its box starts at t = 10^-19).
CONTINUATION_MAX_STAGES = 20


def _entry_scale(lo, hi):
    """Each entry's own scale: the larger absolute value of its finite bounds (0 where both are
    infinite)."""
    return np.maximum(np.where(np.isfinite(lo), np.abs(lo), 0.0),
                      np.where(np.isfinite(hi), np.abs(hi), 0.0))


def _continuation(c, lo, hi, *, tol, slack, newton_max_iter):
    """Newton by continuation in the scale of the release: solve the projection of ``t C`` for
    ``t = t_0, 10 t_0, …, 1`` (``t_0`` brings every entry of ``t C`` within the scale of its own
    finite bounds), each stage warm-started from the previous stage's multipliers times the growth of
    ``t`` (far from the box the multipliers grow linearly with the release). Only the last stage
    (``t = 1``, the problem asked) decides: its solution is returned when its KKT conditions hold
    (``converged``) and it meets the box, else ``None``. First the diagonal problem (enough when
    the off-diagonal bounds hold, always for covariance bounds), then, if its solution leaves the
    off-diagonal box, the whole box (projected Newton)."""
    # the first stage has every entry within its own bound's scale (a release larger than its
    # box by 10^k in some entry takes about k stages)
    scale = _entry_scale(lo, hi)
    size = np.abs(c)
    ratio = np.divide(scale, size, out=np.full_like(size, np.inf), where=(size > 0) & (scale > 0))
    t0 = min(1.0, max(float(ratio.min()), CONTINUATION_FACTOR ** (1 - CONTINUATION_MAX_STAGES)))
    dlo, dhi = np.maximum(np.diag(lo), 0.0), np.diag(hi)

    def run(solve, y):
        t = t0
        while True:
            last = t >= 1.0
            res = solve(c if last else c * t, y, CONTINUATION_LAST_ITER if last
                        else CONTINUATION_STAGE_ITER)
            if last:
                return res
            t_next = min(1.0, t * CONTINUATION_FACTOR)
            y = res.dual * (t_next / t)
            t = t_next

    diag = run(lambda m, y, it: _dual_newton(m, dlo, dhi, diagonal=True, tol=tol, max_iter=it,
                                             y0=y), None)
    if diag.converged and np.all(diag.matrix >= lo - slack) and np.all(diag.matrix <= hi + slack):
        return diag._replace(dual=np.diag(diag.dual))
    if newton_max_iter <= 0:
        return None
    full = run(lambda m, y, it: _box_projected_newton(m, lo, hi, tol=tol, max_iter=it, y0=y),
               None)
    if full.converged and np.all(full.matrix >= lo - slack) and np.all(full.matrix <= hi + slack):
        return full
    return None


class ProjectionResult(NamedTuple):
    """What :func:`project_psd_diagonal` returns with ``return_info=True``."""

    matrix: np.ndarray
    dual: np.ndarray
    converged: bool
    iterations: int
    violation: float


def _psd_parts(a):
    lam, vec = np.linalg.eigh(a)
    pos = np.maximum(lam, 0.0)
    x = (vec * pos) @ vec.T
    return (x + x.T) / 2.0, lam, vec


def _jacobian_operator(lam, vec, diagonal):
    """``H -> P'(A)[H] = Q (Ω ∘ (Qᵀ H Q)) Qᵀ``, a (Clarke) generalised derivative of the PSD
    projection at ``A = Q Diag(lam) Qᵀ`` (Malick 2004; Qi and Sun 2006), restricted to diagonal
    ``H`` and read on the diagonal when ``diagonal``; with an approximation of its diagonal (a
    Jacobi preconditioner; exact in the diagonal case)."""
    pos = np.maximum(lam, 0.0)
    dl = lam[:, None] - lam[None, :]
    dp = pos[:, None] - pos[None, :]
    same = np.abs(dl) <= 1e-14 * max(1.0, float(np.abs(lam).max()))
    omega = np.where(same, (lam[:, None] > 0) & (lam[None, :] > 0), dp / np.where(same, 1.0, dl))
    sq = vec * vec
    if diagonal:
        def apply(h):
            m = (vec.T * h) @ vec  # Qᵀ Diag(h) Q
            return np.einsum("ij,ij->i", vec @ (omega * m), vec)

        return apply, np.einsum("ij,ij->i", sq @ omega, sq)

    def apply_full(h):
        m = vec @ (omega * (vec.T @ h @ vec)) @ vec.T
        return (m + m.T) / 2.0

    return apply_full, sq @ omega @ sq.T


def _pcg(apply, rhs, precond, tol, max_iter):
    """Preconditioned conjugate gradients for a PSD operator; stops early on a zero curvature."""
    x = np.zeros_like(rhs)
    r = rhs.copy()
    z = r / precond
    p = z.copy()
    rz = float(r @ z)
    stop = tol * np.linalg.norm(rhs)
    for _ in range(max_iter):
        if np.linalg.norm(r) <= stop:
            break
        q = apply(p)
        pq = float(p @ q)
        if pq <= 0:
            break
        alpha = rz / pq
        x += alpha * p
        r -= alpha * q
        z = r / precond
        rz_new = float(r @ z)
        p = z + (rz_new / rz) * p
        rz = rz_new
    return x


def _dual_newton(c, lo, hi, *, diagonal, tol, max_iter, y0=None):
    """Semismooth Newton on the dual of min ½‖X - C‖² s.t. X PSD, lo <= (diag X or X) <= hi."""
    d = c.shape[0]
    if diagonal:
        def embed(y):
            return np.diag(y)

        def extract(x):
            return np.diag(x)
    else:
        def embed(y):
            return y

        def extract(x):
            return x
    finite = np.concatenate([np.abs(lo[np.isfinite(lo)]), np.abs(hi[np.isfinite(hi)])])
    big = float(finite.max()) if finite.size else 1.0
    big = big if big > 0 else 1.0
    scale = np.maximum(np.maximum(np.where(np.isfinite(lo), np.abs(lo), 0.0),
                                  np.where(np.isfinite(hi), np.abs(hi), 0.0)), big * 1e-300)
    # the tolerance is relative to each bound's own scale (never looser than tol * bound)
    atol = tol * np.where(scale > 0, scale, big)
    y_min = np.where(np.isfinite(hi), -np.inf, 0.0)  # u_i = inf: y_i < 0 would make the dual -inf
    y_max = np.where(np.isfinite(lo), np.inf, 0.0)

    def dual_neg(y, x):  # minimised: ½‖X(y)‖² - Σ min(l y, u y)
        lin = np.where(y > 0, np.where(np.isfinite(lo), lo, 0.0) * y,
                       np.where(np.isfinite(hi), hi, 0.0) * y)
        return 0.5 * float(np.sum(x * x)) - float(lin.sum())

    def residual(y, g):
        # natural residual of the optimality conditions: g_i in [l_i, u_i], y_i > 0 => g_i = l_i,
        # y_i < 0 => g_i = u_i  <=>  g = Π_[l,u](g - y)
        return g - np.clip(g - y, lo, hi)

    y = np.zeros(lo.shape) if y0 is None else np.clip(y0, y_min, y_max)
    # start (y = 0): the PSD projection already meets the box => it is the answer
    x, lam, vec = _psd_parts(c + embed(y))
    g = extract(x).copy()
    converged = False
    it = 0
    for it in range(int(max_iter) + 1):
        res = residual(y, g)
        viol = np.maximum(np.maximum(lo - g, g - hi), 0.0)
        # the eigendecomposition of C + Diag y is exact only to ~eps ‖C + Diag y‖: never ask for more
        floor = 64 * np.finfo(float).eps * max(float(np.abs(lam).max()), 1e-300)
        if np.all(np.abs(res) <= np.maximum(atol, floor)) and np.all(viol <= np.maximum(atol, floor)):
            converged = True
            break
        if it == max_iter:
            break
        apply_v, v_diag = _jacobian_operator(lam, vec, diagonal)
        # the active set from the residual in scaled units, g - Π(g - τ y) with τ_i the curvature
        # V_ii of row i (0 at the same points for every τ > 0): a multiplier moves its diagonal
        # entry by about τ_i y_i, and a row whose entry barely responds (τ_i ~ 1e-9 when its bound
        # is 10^5 times smaller than another's) may carry a large y_i that changes nothing; read
        # in raw units, such a row flips between active and free (task PV, session 24)
        tau = np.clip(v_diag, 1e-12, 1.0)
        w = g - tau * y
        free = (w > lo) & (w < hi)  # Π' = 1 there: the bound is inactive, y_i -> 0
        act = ~free
        delta = np.zeros(lo.shape)
        delta[free] = -y[free]
        if np.any(act):
            target = np.where(w < lo, lo, hi)  # the bound g_i must reach on an active row
            rhs = (target - g)[act]
            if np.any(free):
                rhs = rhs - apply_v(delta)[act]
            # a tiny ridge (V_AA may be singular: rows in the clipped eigenspace), relative to
            # each row's own curvature τ_i (at least 1e-16): an absolute ridge of 1e-12 swamps
            # the rows whose curvature is ~1e-12 (a bound 10^5 times smaller than another's);
            # the Jacobi preconditioner is τ itself (it was floored at 1e-8)
            mu = np.maximum(1e-10 * tau[act], 1e-16)

            def apply_act(h, _act=act, _mu=mu):
                full = np.zeros(lo.shape)
                full[_act] = h
                return apply_v(full)[_act] + _mu * h

            # inexact Newton: the linear system only as accurately as the residual calls for
            eta = min(1e-2, float(np.linalg.norm(res)) / big)
            delta[act] = _pcg(apply_act, rhs, tau[act] + mu,
                              max(eta, 1e-14), min(2 * int(act.sum()) + 50, 500))
        # backtracking, keeping y's sign constraints. A step is accepted when it decreases the
        # natural residual sufficiently in the stopping rule's own per-row units (‖W F_τ‖²,
        # W_i = 1 / max(tol s_i, floor); the Newton direction solves F_τ + J δ = 0, so it is a
        # descent direction of ‖W F_τ‖² for any row weights) or, as before, the (convex)
        # negative dual. The dual's value alone cannot steer on widely different scales: it is a
        # sum of terms of size ‖C‖², so a row whose bound is 10^5 times smaller than another's
        # changes it by less than its rounding (task PV: results/psd_diagonal_diagnosis.md)
        wgt = 1.0 / np.maximum(atol, floor)
        merit0 = float(np.sum(((g - np.clip(w, lo, hi)) * wgt) ** 2))
        f0 = dual_neg(y, x)
        step = 1.0
        accepted = False
        for _ in range(50):
            y_try = np.clip(y + step * delta, y_min, y_max)
            x_try, lam_try, vec_try = _psd_parts(c + embed(y_try))
            g_try = extract(x_try)
            r_try = g_try - np.clip(g_try - tau * y_try, lo, hi)
            if float(np.sum((r_try * wgt) ** 2)) <= (1.0 - 1e-4 * step) * merit0 or \
                    dual_neg(y_try, x_try) < f0:
                accepted = True
                break
            step *= 0.5
        if not accepted:  # fall back to a projected gradient step (the dual's gradient is 1-Lipschitz)
            # (y - F(y) = y - g + Π(g - y): the proximal gradient step of the dual, step 1)
            y_try = np.clip(y - res, y_min, y_max)
            x_try, lam_try, vec_try = _psd_parts(c + embed(y_try))
        y, x, lam, vec = y_try, x_try, lam_try, vec_try
        g = extract(x).copy()
    if diagonal:
        # remove the last rounding: a congruence D X D (so still PSD) with D_ii = sqrt(bound / g_i)
        # on the few entries a hair outside their box (a relative change of at most ~tol). Also
        # where the Newton steps stopped early: the result then stays PSD with its diagonal in
        # the public box (feasible, if not the nearest such matrix). Before, a non-converged
        # projection returned a variance up to 7.7% above its public bound (task OC, session 23:
        # results/outside_audit_oc_psd_probe.md, scales 1 to 2e5)
        # When converged, a row whose multiplier holds it at a bound (y_i < 0: upper, y_i > 0:
        # lower), within the stopping threshold of it and within a relative 1e-6 of it, is moved
        # exactly onto it (the complementarity the optimum has): its off-diagonal entries move
        # by a relative 5e-7 at most (a row at a lower bound 0 is never zeroed this way: that
        # would move its off-diagonal entries by sqrt(g_i g_j))
        target = np.clip(g, lo, hi)
        if converged:
            thr = np.maximum(atol, floor)
            bound = np.where(y < 0, hi, np.where(y > 0, lo, np.nan))
            snap = (np.abs(g - bound) <= thr) & (np.abs(g - bound) <= 1e-6 * np.abs(g))
            target = np.where(snap, bound, target)
        fix = (target != g) & (g > 0)
        if np.any(fix):
            dd = np.ones(d)
            dd[fix] = np.sqrt(target[fix] / g[fix])
            x = x * np.outer(dd, dd)
            x = (x + x.T) / 2.0
            g = extract(x).copy()
    violation = float(np.max(np.maximum(np.maximum(lo - g, g - hi), 0.0) / np.where(scale > 0, scale, big)))
    return ProjectionResult(x, y, converged, it, violation)


def _box_projected_newton(c, lo, hi, *, tol, max_iter, y0=None):
    r"""Projected Newton (Bertsekas 1982) on the dual of ``min ½‖X - C‖² s.t. X PSD, lo <= X <= hi``.

    The dual, as a minimisation over a symmetric matrix of multipliers ``Y``, is
    ``F(Y) = ½‖(C + Y)_+‖² - Σ_ij min(l_ij Y_ij, u_ij Y_ij)`` (convex; ``X(Y) = (C + Y)_+``).
    Writing ``Y = P - N`` with ``P, N >= 0`` makes it a smooth problem under bound constraints;
    on each orthant the linear part is smooth, so a step never crosses ``Y_ij = 0`` (the
    projection onto the current orthant), and an entry at 0 is released to the side its
    gradient points to. Free entries take an (inexact, CG) Newton step with the generalised
    Jacobian of the eigenvalue clipping; entries ε-close to 0 whose gradient pushes them there
    take a projected gradient step; the arc ``Y(α) = Π(Y + α D)`` is searched with Bertsekas'
    Armijo rule. Converges when ``X(Y)`` meets the box and complementarity holds to ``tol``
    relative to each bound's own scale (the natural residual of the KKT conditions).
    """
    finite = np.concatenate([np.abs(lo[np.isfinite(lo)]), np.abs(hi[np.isfinite(hi)])])
    big = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    scale = np.maximum(np.where(np.isfinite(lo), np.abs(lo), 0.0),
                       np.where(np.isfinite(hi), np.abs(hi), 0.0))
    scale = np.where(scale > 0, scale, big)
    atol = tol * scale
    lo_f = np.where(np.isfinite(lo), lo, 0.0)
    hi_f = np.where(np.isfinite(hi), hi, 0.0)
    can_pos = np.isfinite(lo)  # Y_ij > 0 (the lower bound active) needs a finite lower bound
    can_neg = np.isfinite(hi)

    def lin(y):
        return np.where(y > 0, lo_f * y, hi_f * y)

    y = np.zeros_like(c) if y0 is None else np.asarray(y0, float).copy()
    y = np.where(y > 0, np.where(can_pos, y, 0.0), np.where(can_neg, y, 0.0))
    y = 0.5 * (y + y.T)
    x, lam, vec = _psd_parts(c + y)
    converged = False
    it = 0
    sigma = 1e-4
    for it in range(int(max_iter) + 1):
        res = x - np.clip(x - y, lo, hi)  # natural residual: 0 <=> KKT
        viol = np.maximum(np.maximum(lo - x, x - hi), 0.0)
        floor = 64 * np.finfo(float).eps * max(float(np.abs(lam).max()), 1e-300)
        thr = np.maximum(atol, floor)
        if np.all(np.abs(res) <= thr) and np.all(viol <= thr):
            converged = True
            break
        if it == max_iter:
            break
        # the side (orthant) of every entry, and the gradient of F on that side
        side = np.sign(y)
        at0 = side == 0
        side = np.where(at0 & (x < lo) & can_pos, 1.0, side)
        side = np.where(at0 & (x > hi) & can_neg, -1.0, side)
        grad = np.where(side > 0, x - lo_f, np.where(side < 0, x - hi_f, 0.0))
        fixed = side == 0  # at 0 and inside its box: optimal there, no step
        # ε-active entries (Bertsekas): close to 0 and pushed towards it
        eps_act = min(1e-3 * big, float(np.linalg.norm(res)))
        active = (~fixed) & (np.abs(y) <= eps_act) & (grad * side > 0)
        free = (~fixed) & (~active)
        direction = np.zeros_like(y)
        direction[active] = -grad[active]
        if np.any(free):
            apply_v, v_diag = _jacobian_operator(lam, vec, diagonal=False)
            mu = min(1e-2, max(1e-10, float(np.linalg.norm(res)) / big))

            def apply_free(h, _free=free, _mu=mu):
                full = np.zeros_like(y)
                full[_free] = h
                return apply_v(full)[_free] + _mu * h

            rhs = -grad[free]
            eta = min(1e-2, float(np.linalg.norm(res)) / big)
            direction[free] = _pcg(apply_free, rhs, np.maximum(v_diag[free], 1e-8) + mu,
                                   max(eta, 1e-14), min(2 * int(free.sum()) + 50, 500))
        direction = 0.5 * (direction + direction.T)

        def project(v, _side=side):
            return np.where(_side > 0, np.maximum(v, 0.0), np.where(_side < 0, np.minimum(v, 0.0), 0.0))

        lin0 = lin(y)
        res_norm = float(np.linalg.norm(res))
        step = 1.0
        accepted = False
        for _ in range(40):
            y_try = project(y + step * direction)
            x_try, lam_try, vec_try = _psd_parts(c + y_try)
            # F(y_try) - F(y), summed as differences (no cancellation of two large values)
            df = 0.5 * float(np.sum((x_try - x) * (x_try + x))) - float(np.sum(lin(y_try) - lin0))
            pred = step * float(np.sum(grad[free] * direction[free])) + \
                float(np.sum(grad[active] * (y_try - y)[active]))
            if df <= sigma * pred:
                accepted = True
                break
            step *= 0.5
        if not accepted:
            # rounding can hide the decrease near the solution: take the full step if it
            # reduces the natural residual, else a projected gradient step (1-Lipschitz)
            y_try = project(y + direction)
            x_try, lam_try, vec_try = _psd_parts(c + y_try)
            r_try = x_try - np.clip(x_try - y_try, lo, hi)
            if float(np.linalg.norm(r_try)) >= res_norm:
                y_try = project(y - grad)
                x_try, lam_try, vec_try = _psd_parts(c + y_try)
        y, x, lam, vec = y_try, x_try, lam_try, vec_try
    violation = float(np.max(np.maximum(np.maximum(lo - x, x - hi), 0.0) / scale))
    return ProjectionResult(x, y, converged, it, violation)


def project_psd_diagonal(matrix, lower=None, upper=None, *, tol: float = 1e-12, max_iter: int = 200,
                         return_info: bool = False):
    r"""The Frobenius-nearest PSD matrix whose **diagonal** lies in the public box ``[lower, upper]``.

    Solved exactly through the dual over the ``d`` diagonal multipliers ``y`` [4]_ [5]_: the
    primal solution is ``X(y) = P_psd(C + Diag y)`` and ``y`` maximises the concave, continuously
    differentiable dual ``-½‖(C + Diag y)_+‖² + Σ_i min(l_i y_i, u_i y_i)`` (derivation in
    docs/postprocessing.md). A semismooth Newton method (generalised Jacobian of the eigenvalue
    clipping, conjugate gradients on the active rows, backtracking on the natural residual in each
    row's own scale or on the dual) converges quadratically near the solution. Bounds whose
    scales differ by 10^5 and more are handled by reading the active set and the line search in
    each row's own units (the dual's value alone cannot resolve a row whose bound is 10^10 times
    smaller than ‖C‖²; docs/postprocessing.md, "Widely different scales"). Equal bounds
    (``lower == upper``) are equality constraints (the nearest correlation matrix).

    Parameters
    ----------
    matrix : array_like, shape (d, d)
        The noisy symmetric release (symmetrised first).
    lower, upper : array_like or float, optional
        Public bounds on the diagonal, broadcast to ``(d,)``; ``None`` means unbounded
        (``-inf`` / ``+inf``).
    tol : float
        Stop when every diagonal entry is within ``tol * max(|l_i|, |u_i|)`` of its box (the
        bound's own scale) and complementarity holds to the same accuracy, or within the
        rounding floor ``64 eps ‖C + Diag y‖₂`` of the eigendecomposition when that is larger;
        entries left a hair outside their box, and entries held at a bound by their multiplier
        within a relative 1e-6 of it, are then moved onto it by a diagonal congruence (which
        keeps the matrix PSD).
    max_iter : int
        At most this many Newton steps.
    return_info : bool
        Return a :class:`ProjectionResult` (matrix, dual, converged, iterations, violation)
        instead of the matrix.

    Returns
    -------
    numpy.ndarray or ProjectionResult
        Exactly PSD (an eigenvalue clipping); the diagonal meets the box to ``tol`` relative.
        A ``RuntimeWarning`` is emitted if ``max_iter`` is reached first; the diagonal is then
        still moved into the box by a diagonal congruence (PSD kept), where its entries are
        positive, so the result is feasible but may not be the nearest feasible matrix.
    """
    c = _square(matrix, "matrix")
    d = c.shape[0]
    lo = np.full(d, -np.inf) if lower is None else np.broadcast_to(np.asarray(lower, float), (d,)).copy()
    hi = np.full(d, np.inf) if upper is None else np.broadcast_to(np.asarray(upper, float), (d,)).copy()
    if np.any(lo > hi) or np.any(np.isnan(lo)) or np.any(np.isnan(hi)):
        raise InvalidParameterError("lower", "every lower bound must be <= its upper bound")
    if np.any(hi < 0):
        raise InvalidParameterError("upper", "a PSD matrix has a non-negative diagonal: upper must be >= 0")
    res = _dual_newton(c, lo, hi, diagonal=True, tol=tol, max_iter=max_iter)
    if not res.converged:
        # no value computed from the matrix is printed (it may be a release of private data)
        warnings.warn(f"project_psd_diagonal stopped after {res.iterations} Newton steps before it "
                      f"converged to tol={tol:g}; the result is PSD, with its diagonal rescaled into "
                      "the bounds where a positive entry lay outside them, but may not be the nearest "
                      "such matrix", RuntimeWarning, stacklevel=2)
    return res if return_info else res.matrix


def covariance_entry_bounds(variance_max) -> tuple[np.ndarray, np.ndarray]:
    """Entrywise bounds of a covariance whose variances are at most the public ``variance_max``.

    Diagonal in ``[0, v_i]``; off-diagonal ``|C_ij| <= sqrt(v_i v_j)`` (Cauchy–Schwarz). For a
    feature with public range ``[lo, hi]``, ``v = (hi - lo)² / 4`` (Popoviciu's inequality).
    """
    v = np.asarray(variance_max, dtype=float).ravel()
    if np.any(v < 0) or not np.all(np.isfinite(v)):
        raise InvalidParameterError("variance_max", "must be finite and >= 0")
    cs = np.sqrt(np.outer(v, v))
    lower = -cs.copy()
    np.fill_diagonal(lower, 0.0)
    return lower, cs


def second_moment_entry_bounds(lower, upper) -> tuple[np.ndarray, np.ndarray]:
    """Entrywise bounds of the mean of ``x xᵀ`` over records in the public box ``[lower, upper]``.

    Entry ``(i, j)`` is the mean of ``x_i x_j``, which lies between the smallest and largest of
    the four corner products ``{lo_i, hi_i} × {lo_j, hi_j}``; on the diagonal between ``0`` (or
    ``min(lo², hi²)`` when the range excludes 0) and ``max(lo², hi²)``. Multiply by a public ``n``
    for the bounds of the Gram matrix ``XᵀX``.
    """
    lo = np.asarray(lower, dtype=float).ravel()
    hi = np.asarray(upper, dtype=float).ravel()
    if lo.shape != hi.shape or np.any(lo > hi):
        raise InvalidParameterError("lower", "must have the length of upper and be <= it entrywise")
    corners = np.stack([np.outer(lo, lo), np.outer(lo, hi), np.outer(hi, lo), np.outer(hi, hi)])
    mlo, mhi = corners.min(axis=0), corners.max(axis=0)
    crosses_zero = (lo <= 0) & (hi >= 0)
    diag_lo = np.where(crosses_zero, 0.0, np.minimum(lo ** 2, hi ** 2))
    np.fill_diagonal(mlo, diag_lo)
    np.fill_diagonal(mhi, np.maximum(lo ** 2, hi ** 2))
    return mlo, mhi


def project_covariance(cov, *, variance_max=None, tol: float = DEFAULT_TOL,
                       max_iter: int = DEFAULT_MAX_ITER) -> np.ndarray:
    """The Frobenius-nearest covariance: PSD, variances in ``[0, variance_max]``, Cauchy–Schwarz.

    With ``variance_max=None`` only the PSD cone is enforced (which already implies
    ``|C_ij| <= sqrt(C_ii C_jj)``). ``variance_max`` must be public, e.g. ``(hi - lo)² / 4`` from
    the public bounds.
    """
    c = _square(cov, "cov")
    if variance_max is None:
        return project_psd(c)
    v = np.broadcast_to(np.asarray(variance_max, dtype=float), (c.shape[0],))
    if np.any(v < 0) or not np.all(np.isfinite(v)):
        raise InvalidParameterError("variance_max", "must be finite and >= 0")
    return project_psd_diagonal(c, 0.0, v, tol=min(tol, 1e-12), max_iter=max_iter)


def nearest_correlation(matrix, *, tol: float = DEFAULT_TOL, max_iter: int = DEFAULT_MAX_ITER) -> np.ndarray:
    """The Frobenius-nearest correlation matrix (PSD, unit diagonal) [2]_.

    Solved exactly as :func:`project_psd_diagonal` with the equality constraints ``diag = 1``
    (the semismooth Newton method of Qi and Sun [5]_ on the dual, instead of Higham's
    alternating projections); the diagonal is then set to 1 by a congruence (so it stays PSD)
    that removes the last rounding.
    """
    x = _square(matrix, "matrix")
    out = project_psd_diagonal(x, 1.0, 1.0, tol=min(tol, 1e-12), max_iter=max_iter)
    scale = np.sqrt(np.clip(np.diag(out), np.finfo(float).tiny, None))
    out = out / np.outer(scale, scale)
    np.fill_diagonal(out, 1.0)
    return out


def orthonormalise(components) -> np.ndarray:
    """The Frobenius-nearest matrix with orthonormal columns (the polar factor ``U Vᵀ`` of the SVD).

    For PCA components stored as rows (scikit-learn's ``components_``), pass the transpose.
    """
    arr = check_finite_array(components, "components")
    if arr.ndim != 2 or arr.shape[0] < arr.shape[1]:
        raise InvalidShapeError(
            "components", f"must be a (d, k) matrix with d >= k (columns are orthonormalised), got {arr.shape}")
    u, _, vt = np.linalg.svd(arr, full_matrices=False)
    return u @ vt


for _func in (project_psd, project_psd_box, project_psd_diagonal, project_covariance,
              nearest_correlation):
    _func.__doc__ = (_func.__doc__ or "") + FEASIBLE_REFERENCES
del _func


def project_feasible(cov: np.ndarray, lower, upper, kind: str, *, units: str = "original",
                     noise_variance=None) -> np.ndarray:
    """Frobenius projection of a released matrix onto what the public box allows (post-processing).

    ``"covariance"``/``"correlation"``: PSD, variances in ``[0, h_i²]`` (Popoviciu, ``h`` the
    public half-widths) and ``|C_ij| <= h_i h_j`` (Cauchy–Schwarz); ``"gram"``: PSD and every
    entry between the public bounds of the mean of ``x_i x_j``. The true matrix lies in the set,
    so the projection never increases the Frobenius error *in the units it is computed in*:
    ``units="original"`` (the loss of a covariance), ``"unit-box"`` (units of the half-widths:
    the loss of a correlation or of PCA on features of unequal ranges) or ``"noise"`` (the
    noise's own metric, as the regression path: units ``v_i^{1/4}`` with ``v_i`` the noise
    variance of the diagonal entry ``i``, given as ``noise_variance``, a ``(d, d)`` matrix of
    entry variances or its diagonal; entry ``(i, j)`` is weighted ``1/sqrt(v_i v_j)``, the
    rank-one diagonal-congruence approximation of ``1/Var(E_ij)``). Every choice is a positive
    diagonal congruence, so each projects onto the same set; a projection in one unit system
    can increase the error measured in another (``docs/postprocessing.md``).
    """
    def _project_psd_box(matrix, lower, upper):
        return project_psd_box(matrix, lower, upper, tol=1e-9, max_iter=300)

    if kind not in ("covariance", "correlation", "gram"):
        # a misspelt kind was projected as a covariance (hunt HW)
        raise InvalidParameterError("kind", "must be 'covariance', 'correlation' or 'gram', "
                                            f"got {kind!r}")
    # lower > upper gave the half-width (hi - lo)/2 < 0, whose square is a box of the wrong
    # size, silently (hunt HW)
    lo, hi = check_box_bounds(lower, upper, _square(cov, "cov").shape[0], "lower")
    if kind == "gram":
        return _project_psd_box(cov, *second_moment_entry_bounds(lo, hi))
    h = 0.5 * (hi - lo)
    if units == "original":
        return _project_psd_box(cov, *covariance_entry_bounds(h * h))
    # the other choices: the same projection in per-feature units (a diagonal congruence),
    # with the entry bounds expressed in those units
    if units == "unit-box":
        unit = np.where(h > 0, h, 1.0)
        uu = np.outer(unit, unit)
        bounds = covariance_entry_bounds(np.where(h > 0, 1.0, 0.0))
    elif units == "noise":
        if noise_variance is None:
            raise InvalidParameterError("noise_variance", "units='noise' needs the release's "
                                                          "(public) entry variances")
        v = np.asarray(noise_variance, dtype=np.float64)
        v = np.diagonal(v) if v.ndim == 2 else v
        if v.shape != h.shape:
            raise InvalidParameterError("noise_variance", f"must have {h.size} diagonal "
                                                          f"entries, got shape {v.shape}")
        unit = np.where(v > 0, np.sqrt(np.sqrt(np.maximum(v, 0.0))), 1.0)
        uu = np.outer(unit, unit)
        bounds = tuple(b / uu for b in covariance_entry_bounds(h * h))
    else:
        raise InvalidParameterError("units", "must be 'original', 'unit-box' or 'noise', "
                                             f"got {units!r}")
    return _project_psd_box(cov / uu, *bounds) * uu


class ShrinkageResult(NamedTuple):
    """What :func:`james_stein_shrink` returns: the matrix and the factors it applied."""

    matrix: np.ndarray
    #: ``(k, k)``: the factor ``λ ∈ [0, 1]`` each entry was multiplied by (1 on the diagonal).
    factors: np.ndarray


def variance_groups(noise_variance, *, ratio: float = 4.0) -> np.ndarray:
    """Labels grouping the entries whose noise variances are within ``ratio`` of each other
    (bins of ``log_ratio`` of the variance, from the largest down; ``-1`` where it is 0), for
    the ``groups`` of :func:`james_stein_shrink`; the diagonal is labelled ``-1`` (kept)."""
    var = np.asarray(noise_variance, dtype=np.float64)
    top = float(var.max()) if var.size else 0.0
    labels = np.full(var.shape, -1, dtype=np.int64)
    pos = var > 0
    if top > 0:
        labels[pos] = np.floor(np.log(top / var[pos]) / math.log(ratio)).astype(np.int64)
    np.fill_diagonal(labels, -1)
    return labels


def james_stein_shrink(matrix, noise_variance, *, diagonal: bool = False, weights=None,
                       groups=None, independent_variance=None,
                       correlated_eigenvalue=0.0) -> ShrinkageResult:
    r"""Positive-part James–Stein shrinkage of a symmetric release towards 0 (by groups).

    For a symmetric release ``Y = C + E`` whose noise has known (public) entry variances
    ``V_ij``, the entries of each group ``g`` (default: every off-diagonal entry, plus the
    diagonal when ``diagonal=True``) are multiplied by

    .. math:: λ_g = \Big(1 - \frac{\operatorname{tr}Σ_g - 2 λ_{\max}(Σ_g)}
              {\sum_{(i \le j) \in g} ω_{ij} Y_{ij}^2}\Big)_+ ,

    with ``ω_ij = w_ij`` on the diagonal and ``2 w_ij`` off it (the weighted Frobenius norm
    counts both triangles) and ``Σ_g`` the covariance of the weighted noise ``(√ω_ij E_ij)`` of
    the group (``tr Σ_g = Σ ω_ij V_ij``). Entries outside every group are kept (with
    ``diagonal=False``, the diagonal: shrinking the off-diagonal towards 0 is shrinking towards
    the diagonal matrix ``diag(Y)``, or towards the identity for a correlation).

    For Gaussian noise with a known ``Σ_g`` and ``c = tr Σ_g - 2 λ_max(Σ_g) > 0``, the linear
    rule ``(1 - c/‖y‖²) y`` satisfies, by Stein's identity,
    ``E‖λy - θ‖² <= min(E‖y - θ‖², ‖θ‖²) + 4 λ_max(Σ_g)`` (never worse than the release, nor
    than releasing 0, by more than four times the largest noise variance), and the positive
    part lowers the risk further when the entries' noise is independent
    (``docs/postprocessing.md``, "Shrinkage"). A group with ``c <= 0`` (fewer than about three
    entries' worth of noise) is left unchanged. With one group the map is a convex combination
    of ``Y`` and ``diag(Y)`` (or 0), so the PSD matrices with a bounded diagonal and (with
    ``diagonal=False``) the correlation matrices are closed under it. Post-processing: it uses
    the release and noise variances only.

    Parameters
    ----------
    matrix : array_like (k, k)
        The (symmetric) release.
    noise_variance : array_like (k, k)
        Variance of the noise of each entry.
    diagonal : bool, default False
        Shrink the diagonal too (towards 0), in the same group as the off-diagonal entries.
    weights : array_like (k, k), optional
        Loss weights ``w_ij >= 0`` (default 1: the Frobenius loss).
    groups : array_like of int (k, k), optional
        Group label of each entry (must not depend on the noise; e.g. :func:`variance_groups`
        of public variances); entries labelled ``-1`` are not shrunk. Default: one group.
    independent_variance : array_like (k, k), optional
        When the noise is the sum of an independent part and a correlated one: the variances
        of the independent part (default ``noise_variance``: the noise is independent).
    correlated_eigenvalue : float or dict, default 0
        (A dict: per group label.) An upper bound on the largest eigenvalue of the weighted
        covariance of the correlated part; ``λ_max(Σ_g)`` is bounded by the group's
        ``max ω_ij V_ij`` (of ``independent_variance``) plus it (exact, with 0, when the
        entries' noise is independent). A larger bound shrinks less.

    Returns
    -------
    ShrinkageResult
        ``(matrix, factors)``.

    References
    ----------
    .. [1] W. James and C. Stein, "Estimation with quadratic loss", Proc. Fourth Berkeley Symp.
       Math. Statist. Prob. 1, 1961.
    .. [2] C. M. Stein, "Estimation of the mean of a multivariate normal distribution", Ann.
       Statist. 9(6), 1981.
    .. [3] A. J. Baranchik, "Multiple regression and estimation of the mean of a multivariate
       normal distribution", Technical Report 51, Stanford University, 1964.
    .. [4] T. T. Cai, "Adaptive wavelet estimation: a block thresholding and oracle inequality
       approach", Ann. Statist. 27(3), 1999 (James–Stein shrinkage by blocks).
    """
    y = _square(matrix, "matrix")
    iu, inv, uniq, ss, c, _ = _stein_groups(y, noise_variance, diagonal, weights, groups,
                                            independent_variance, correlated_eigenvalue)
    lam = np.where(c <= 0.0, 1.0, np.where(ss <= c, 0.0, 1.0 - c / np.where(ss > 0, ss, 1.0)))
    lam = np.where(uniq < 0, 1.0, lam)
    factors = _group_factors(y.shape[0], iu, inv, lam)
    return ShrinkageResult(y * factors, factors)


def _stein_groups(y, noise_variance, diagonal, weights, groups, independent_variance,
                  correlated_eigenvalue):
    """Per group of entries (i <= j) of the release ``y``: the weighted sum of squares
    ``Σ ω_ij y_ij²`` and the Stein constant ``c = tr Σ_g - 2 λ_max(Σ_g)`` (see
    :func:`james_stein_shrink`); returns ``(iu, inv, labels, ss, c, tr)``: the upper-triangle
    indices, each entry's group index, the group labels, and per group ``ss``, ``c`` and the
    noise trace ``tr Σ_g``."""
    k = y.shape[0]

    def _same_shape(arr, name):
        arr = np.asarray(arr, dtype=np.float64)
        if arr.shape != (k, k):
            raise InvalidShapeError(name, f"must have shape {(k, k)}, got {arr.shape}")
        if np.any(arr < 0) or not np.all(np.isfinite(arr)):
            raise InvalidParameterError(name, "must be finite and >= 0")
        return arr

    var = _same_shape(noise_variance, "noise_variance")
    w = np.ones((k, k)) if weights is None else _same_shape(weights, "weights")
    ind = var if independent_variance is None else _same_shape(independent_variance,
                                                               "independent_variance")
    if groups is None:
        labels = np.zeros((k, k), dtype=np.int64)
        if not diagonal:
            np.fill_diagonal(labels, -1)
    else:
        labels = np.asarray(groups)
        if labels.shape != (k, k):
            raise InvalidShapeError("groups", f"must have shape {(k, k)}, got {labels.shape}")
    iu = np.triu_indices(k, 0)
    omega = np.where(iu[0] == iu[1], 1.0, 2.0) * w[iu]
    lab = labels[iu]
    uniq, inv = np.unique(lab, return_inverse=True)
    tr = np.bincount(inv, weights=omega * var[iu], minlength=uniq.size)
    ss = np.bincount(inv, weights=omega * y[iu] ** 2, minlength=uniq.size)
    top = np.full(uniq.size, -np.inf)
    np.maximum.at(top, inv, omega * ind[iu])
    if isinstance(correlated_eigenvalue, dict):
        top = top + np.array([max(float(correlated_eigenvalue.get(int(g), 0.0)), 0.0) for g in uniq])
    else:
        top = top + max(float(correlated_eigenvalue), 0.0)
    return iu, inv, uniq, ss, tr - 2.0 * top, tr


#: ``projected_stein_shrink``'s ``floor_signal``: what scales the floor (tasks CS, CS2).
FLOOR_SIGNALS = ("none", "group", "pooled")


def _pooled_snr(y, r, weights, iu, inv, uniq, ss, tr) -> float:
    """:func:`projected_stein_shrink`'s ``floor_signal="pooled"`` signal-to-noise (task CS2): over the
    entries in a group, the raw release's signal energy ``Σ (‖y_g‖²_ω - tr Σ_g)`` over the
    residual noise bound of ``r``, ``Σ tr Σ_g - Σ ω (√w y - r)²``."""
    in_group = uniq >= 0
    sig = float(np.sum((ss - tr)[in_group]))
    w = np.ones_like(y) if weights is None else np.asarray(weights, dtype=np.float64)
    omega = np.where(iu[0] == iu[1], 1.0, 2.0)
    move = omega * (np.sqrt(w[iu]) * y[iu] - r[iu]) ** 2
    res = float(np.sum(tr[in_group])) - float(np.sum(move[in_group[inv]]))
    if res > 0.0:
        return sig / res
    return np.inf if sig > 0.0 else 0.0


def _group_factors(k, iu, inv, lam):
    factors = np.ones((k, k))
    factors[iu] = lam[inv]
    factors.T[iu] = lam[inv]
    return factors


def projected_stein_shrink(matrix, noise_variance, reference, *, weights=None, groups=None,
                           independent_variance=None, correlated_eigenvalue=0.0,
                           floor: float = 0.5, floor_signal: str = "none",
                           floor_scale=None) -> ShrinkageResult:
    r"""Shrink a post-processed estimate ``reference`` towards 0 by groups, with factors set
    from the raw release ``matrix`` (the off-diagonal entries; the diagonal is kept).

    :func:`james_stein_shrink`'s factor ``1 - c/‖y_g‖²`` is the oracle factor of the *raw*
    release ``y``. When the estimate actually reported is a projection ``r`` of it (e.g. the
    nearest correlation matrix), the projection has already removed part of the noise, and
    the raw factor over-shrinks it. The oracle factor of ``r`` is ``⟨r_g, θ_g⟩/‖r_g‖²``; with
    ``r_g = θ_g + ρ_g``, ``ρ_g`` orthogonal to ``θ_g``, it is ``‖θ_g‖²/‖r_g‖²``. The signal
    energy is estimated from the raw release without bias (``E‖y_g‖²_ω = ‖θ_g‖²_ω + tr Σ_g``),
    so

    .. math:: λ_g = \min\Big(1, \max\Big(\mathrm{floor},
              \frac{\|y_g\|^2_ω - \operatorname{tr}Σ_g}{\|r_g\|^2}\Big)\Big);

    a group with ``c_g = tr Σ_g - 2 λ_max(Σ_g) <= 0`` (fewer than about three entries' worth of
    noise) is kept, as in :func:`james_stein_shrink`. ``‖r_g‖²`` counts both triangles and is
    unweighted (``reference`` is in the loss's units); ``‖y_g‖²_ω`` uses the ``weights``
    (which should put the release in those units). The floor (default 1/2) bounds the move:
    the entries of a group become a convex combination ``λ r_g + (1 - λ)·0`` with
    ``λ >= floor``, so (convexity of the loss) the group's loss is at most
    ``max(L(r_g), floor·L(r_g) + (1 - floor)·L(0))``: never more than half-way from the
    projection's loss to the target's. The estimate of the signal energy is a difference of two
    large numbers and, alone, often lands at 0 or at 1 (``docs/postprocessing.md``,
    "Shrinkage", ``"projected"``). No risk theorem beyond that bound: the measured effect is in
    ``results/covariance_shrinkage.md``. Post-processing: it uses the release, ``reference``
    (a function of the release) and public noise variances only.

    Parameters
    ----------
    matrix : array_like (k, k)
        The raw (symmetric) release, in the units of ``weights``.
    noise_variance : array_like (k, k)
        Variance of the noise of each entry of ``matrix``.
    reference : array_like (k, k)
        The estimate to shrink (symmetric; a function of ``matrix``).
    weights, groups, independent_variance, correlated_eigenvalue
        As in :func:`james_stein_shrink` (``diagonal=False``).
    floor : float, default 0.5
        Smallest factor, in [0, 1].
    floor_signal : {"none", "group", "pooled"}, default "none"
        What scales the floor besides ``floor_scale``. ``"none"``: nothing. ``"group"``: each
        group's floor times ``clip((‖y_g‖²_ω - tr Σ_g)/tr Σ_g, 0, 1)``, the raw release's
        estimated signal-to-noise ratio of the group (1 where ``tr Σ_g = 0``): the floor then
        binds only where the release carries signal (task CS, ``docs/postprocessing.md``, "The
        continuous floor"). ``"pooled"``: every group's floor times ``clip(ŝ, 0, 1)`` with
        ``ŝ`` the signal-to-noise of ``reference`` pooled over all the groups, in its own units:
        ``ŝ = Σ_g (‖y_g‖²_ω - tr Σ_g) / Σ_g (tr Σ_g - ‖√w ∘ y_g - r_g‖²)`` (the numerator the
        raw release's signal energy, the denominator the raw noise minus the move of the
        projection, the residual noise ``r`` keeps by the projection's Pythagorean inequality;
        ``ŝ = ∞`` where the denominator is ``<= 0`` and the numerator ``> 0``; task CS2,
        ``docs/postprocessing.md``, "The pooled floor").
    floor_scale : array_like (k, k), optional
        Per-entry multipliers of the floor in [0, 1], constant on each group (a group takes
        their mean); e.g. :func:`matrixdp.models.covariance.continuous_floor`'s public ramp.

    Returns
    -------
    ShrinkageResult
        ``(reference ∘ factors, factors)``.

    References
    ----------
    .. [1] W. James and C. Stein, "Estimation with quadratic loss", Proc. Fourth Berkeley Symp.
       Math. Statist. Prob. 1, 1961.
    .. [2] T. T. Cai, "Adaptive wavelet estimation: a block thresholding and oracle inequality
       approach", Ann. Statist. 27(3), 1999 (James–Stein shrinkage by blocks).
    """
    y = _square(matrix, "matrix")
    r = _square(reference, "reference")
    if r.shape != y.shape:
        raise InvalidShapeError("reference", f"must have shape {y.shape}, got {r.shape}")
    floor = float(floor)
    if not 0.0 <= floor <= 1.0:
        raise InvalidParameterError("floor", f"must be in [0, 1], got {floor!r}")
    iu, inv, uniq, ss, c, tr = _stein_groups(y, noise_variance, False, weights, groups,
                                             independent_variance, correlated_eigenvalue)
    omega = np.where(iu[0] == iu[1], 1.0, 2.0)
    rr = np.bincount(inv, weights=omega * r[iu] ** 2, minlength=uniq.size)
    fl = np.full(uniq.size, floor)
    if floor_scale is not None:
        sc = _square(floor_scale, "floor_scale")
        if sc.shape != y.shape:
            raise InvalidShapeError("floor_scale", f"must have shape {y.shape}, got {sc.shape}")
        if not (np.all(np.isfinite(sc)) and np.all((sc >= 0.0) & (sc <= 1.0))):
            raise InvalidParameterError("floor_scale", "must be finite and in [0, 1]")
        fl = fl * (np.bincount(inv, weights=sc[iu], minlength=uniq.size)
                   / np.maximum(np.bincount(inv, minlength=uniq.size), 1))
    check_choice(floor_signal, FLOOR_SIGNALS, "floor_signal")
    if floor_signal == "group":
        snr = np.where(tr > 0, (ss - tr) / np.where(tr > 0, tr, 1.0), 1.0)
        fl = fl * np.clip(snr, 0.0, 1.0)
    if floor_signal == "pooled":
        fl = fl * np.clip(_pooled_snr(y, r, weights, iu, inv, uniq, ss, tr), 0.0, 1.0)
    lam = np.clip((ss - tr) / np.where(rr > 0, rr, 1.0), fl, 1.0)
    lam = np.where((c <= 0.0) | (rr <= 0.0) | (uniq < 0), 1.0, lam)
    factors = _group_factors(y.shape[0], iu, inv, lam)
    return ShrinkageResult(r * factors, factors)
