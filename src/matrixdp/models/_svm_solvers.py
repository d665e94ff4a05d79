r"""Exact solvers of the SVM (2) in the space of :math:`w=(\alpha,\beta)`; used by ``svm.fit_svm``.

With :math:`z_i=y_i(x_i;1)` and :math:`m_i=z_i^\top w` (the margins), (2) is the piecewise-quadratic
problem :math:`\min_w\frac12w^\top Rw+\sum_i\phi(1-m_i)`, :math:`R=\mathrm{diag}(1,\dots,1,\rho)`,
:math:`\phi(t)=\theta t_++\frac\rho2t_+^2`. Its KKT conditions split the records into

* S1, :math:`m_i<1`: :math:`\xi_i=1-m_i>0`, :math:`\omega_i=\theta+\rho\xi_i`;
* S0, :math:`m_i=1`: :math:`\omega_i\in[0,\theta]`;
* free, :math:`m_i>1`: :math:`\omega_i=0`,

with :math:`Rw=\sum_i\omega_iz_i`. Given the split, the conditions are one linear system of size
:math:`(p+1)+|S_0|` (:func:`polish_partition`); records of S1 enter only through
:math:`Z_{S1}^\top Z_{S1}` and :math:`Z_{S1}^\top\mathbb 1`, free records not at all.

:func:`working_set_solve` uses this to solve (2) exactly: records far below the margin (at the
current point) are *condensed* into that (p+1)x(p+1) quadratic, records far above it are dropped,
and only the working set U near the margin keeps its slack in a small QP solved by Clarabel. The
reduced solution is then checked on every record; a condensed record that ends above the margin,
or a dropped one that ends below it, fails the check and the split is redone (or, after a few
rounds, that record joins U, so U only grows and the loop ends at worst with the full QP). When
the check passes, the reduced point satisfies the KKT conditions of the full problem (2), so it
is its (unique, ρ > 0) solution. See ``docs/fisher.md`` §6.

References
----------
.. [1] F. Farokhi, problem (2) and KKT (15); spec ``farokhi.md`` §2.1 (fix of (15b)).
.. [2] P. J. Goulart and Y. Chen, "Clarabel: An interior-point solver for conic programs with
   quadratic objectives", 2024.
.. [3] T. Joachims, "Making large-scale SVM learning practical", in Advances in Kernel Methods,
   1999 (working sets and shrinking).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

__all__ = ["augmented_margins_matrix", "clarabel_qp", "polish_partition", "polish_split",
           "ridge_diagonal", "working_set_solve"]

#: Margin tolerance of the final sign checks (margins are O(1)).
SIGN_TOL = 1e-9
#: A condensed or dropped record may end this far on the wrong side of the margin and still pass.
CHECK_TOL = 1e-7


def augmented_margins_matrix(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:math:`Z=\\mathrm{diag}(y)[X\\ \\mathbb 1]` (q, p+1), so that the margins are ``Z @ w``."""
    return y[:, None] * np.hstack([X, np.ones((X.shape[0], 1))])


def ridge_diagonal(d: int, rho: float) -> np.ndarray:
    """The diagonal of R = diag(1, ..., 1, rho) of (2) in w = (alpha, beta), length d = p + 1."""
    r = np.ones(d)
    r[-1] = rho
    return r


def clarabel_qp(Z_work, quad, lin, rho: float, theta: float, tol: float, max_iter: int = 400):
    r"""Solve :math:`\min\frac12w^\top Qw-g^\top w+\sum_{u}(\theta\xi_u+\frac\rho2\xi_u^2)` s.t.
    :math:`z_u^\top w\ge1-\xi_u,\ \xi\ge0` over the rows ``Z_work`` with Clarabel.

    ``quad`` is Q (d, d) and ``lin`` is g (d,). Returns ``(w, omega_work, status)``, ``omega_work``
    the multipliers of the margin constraints. With ``Q = R`` and ``g = 0`` over all rows this is
    the full problem (2).
    """
    import clarabel

    k, d = Z_work.shape
    P = sparse.block_diag([sparse.csc_matrix(np.triu(quad)),
                           sparse.diags(np.full(k, float(rho)))], format="csc")
    cost = np.concatenate([-np.asarray(lin, dtype=float), np.full(k, theta)])
    eye = sparse.identity(k, format="csc")
    A = sparse.vstack([sparse.hstack([sparse.csc_matrix(-Z_work), -eye]),
                       sparse.hstack([sparse.csc_matrix((k, d)), -eye])], format="csc")
    b = np.concatenate([-np.ones(k), np.zeros(k)])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = tol
    settings.tol_gap_rel = tol
    settings.tol_feas = tol
    settings.tol_ktratio = min(1e-6, tol * 1e4)
    settings.max_iter = max_iter
    solver = clarabel.DefaultSolver(P, cost, A, b, [clarabel.NonnegativeConeT(2 * k)], settings)
    sol = solver.solve()
    return (np.asarray(sol.x)[:d].copy(), np.maximum(np.asarray(sol.z)[:k], 0.0),
            str(sol.status))


def _solve_equilibrated(lhs: np.ndarray, rhs: np.ndarray):
    """Solve ``lhs x = rhs`` after symmetric diagonal scaling (raw features span ~10 decades)."""
    diag = np.abs(np.diag(lhs)).copy()
    rows = np.abs(lhs).max(axis=1)
    scale = 1.0 / np.sqrt(np.where(diag > 0, diag, np.where(rows > 0, rows, 1.0)))
    try:
        sol = np.linalg.solve(lhs * scale[:, None] * scale[None, :], rhs * scale)
    except np.linalg.LinAlgError:
        return None
    sol = sol * scale
    return sol if np.isfinite(sol).all() else None


def polish_partition(Z: np.ndarray, rho: float, theta: float, margins: np.ndarray,
                     max_rounds: int = 30, bands=(1e-6, 1e-8, 1e-10, 1e-5, 1e-4)):
    """:func:`polish_split` for each of ``bands`` in turn (the widest whose S0 has at most p+1
    records and leads to a consistent split wins); None if none does."""
    for band in bands:
        out = polish_split(Z, rho, theta, margins, max_rounds=max_rounds, band=band)
        if out is not None:
            return out
    return None


def polish_split(Z: np.ndarray, rho: float, theta: float, margins: np.ndarray,
                 max_rounds: int = 30, band: float = 1e-6):
    r"""Solve the KKT system of (2) exactly for the split read off ``margins``; None if no
    consistent split is found within ``max_rounds``.

    S0 = the records with |margins - 1| <= band (the p+1 nearest if there are more), S1 = the
    other records below the margin, free the rest. The system is
    :math:`(R+\rho Z_{S1}^\top Z_{S1})w-Z_{S0}^\top\omega_{S0}=(\theta+\rho)Z_{S1}^\top\mathbb 1`,
    :math:`Z_{S0}w=\mathbb 1`. Records violating a sign condition (S0 multipliers outside
    :math:`[0,\theta]`, S1 above the margin, free below it) are moved (those that crossed the
    margin join S0, the worst first, while it has at most p+1 records) and the solve repeated.
    Returns ``(w, omega)`` satisfying every sign condition to ``SIGN_TOL``.
    """
    q, d = Z.shape
    r = ridge_diagonal(d, rho)
    # S0 holds at most d = p+1 records (generically): the d nearest the margin within the band
    gap = np.abs(margins - 1)
    on_margin = gap <= band
    if on_margin.sum() > d:
        on_margin = np.zeros(q, dtype=bool)
        on_margin[np.argpartition(gap, d - 1)[:d]] = True
    on_slack = ~on_margin & (margins < 1)
    for _ in range(max_rounds):
        k = int(on_margin.sum())
        Zs, Ze = Z[on_slack], Z[on_margin]
        lhs = np.zeros((d + k, d + k))
        lhs[:d, :d] = np.diag(r) + rho * (Zs.T @ Zs)
        lhs[:d, d:] = Ze.T
        lhs[d:, :d] = Ze
        rhs = np.concatenate([(theta + rho) * Zs.sum(axis=0), np.ones(k)])
        sol = _solve_equilibrated(lhs, rhs)
        if sol is None:
            return None
        w, om_e = sol[:d], -sol[d:]
        m = Z @ w
        idx = np.flatnonzero(on_margin)
        tol = SIGN_TOL * max(1.0, theta)
        to_free = idx[om_e < -tol]
        to_slack = idx[om_e > theta + tol]
        lost = np.flatnonzero(on_slack & (m > 1 + SIGN_TOL))
        enter = np.flatnonzero(~on_slack & ~on_margin & (m < 1 - SIGN_TOL))
        if not (to_free.size or to_slack.size or lost.size or enter.size):
            omega = np.zeros(q)
            omega[on_slack] = theta + rho * (1.0 - m[on_slack])
            omega[on_margin] = np.clip(om_e, 0.0, theta)
            return w, omega
        on_margin[to_free] = False
        on_margin[to_slack] = False
        on_slack[to_slack] = True
        # records that crossed the margin join S0, the worst first, while S0 has room
        cross = np.concatenate([lost, enter])
        room = d - int(on_margin.sum())
        if cross.size > room:
            if room <= 0 and not (to_free.size or to_slack.size):
                return None
            cross = cross[np.argsort(-np.abs(m[cross] - 1))[:max(room, 0)]]
        on_slack[cross] = False
        on_margin[cross] = True
    return None


def _condensed_start(Z: np.ndarray, rho: float, theta: float) -> np.ndarray:
    """Every record in S1: the ridge-type solution, a cold start when no warm start is given."""
    d = Z.shape[1]
    lhs = np.diag(ridge_diagonal(d, rho)) + rho * (Z.T @ Z)
    w = _solve_equilibrated(lhs, (theta + rho) * Z.sum(axis=0))
    return np.zeros(d) if w is None else w


def _line_search(Z, r, rho, theta, w, step, margins, iters: int = 60) -> float:
    r"""Exact minimiser over t in [0, 1] of (2)'s objective along ``w + t step`` (bisection on
    its non-decreasing derivative; vectorised over the records)."""
    delta = Z @ step
    rw, rs = float(step @ (r * w)), float(step @ (r * step))

    def slope(t):
        h = 1.0 - margins - t * delta
        return rw + t * rs - float(delta @ np.where(h > 0, theta + rho * h, 0.0))

    if slope(1.0) <= 0:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if slope(mid) < 0 else (lo, mid)
    return 0.5 * (lo + hi)


def working_set_solve(Z: np.ndarray, rho: float, theta: float, tol: float, *, w0=None,
                      size: int | None = None, recentre_rounds: int = 8, max_rounds: int = 60):
    r"""Solve (2) exactly by condensing the records far from the margin (module docstring).

    Parameters
    ----------
    Z : ndarray (q, d)
        :func:`augmented_margins_matrix` of the data.
    rho, theta, tol : float
        ``rho > 0``; ``tol`` is Clarabel's tolerance on the reduced QP.
    w0 : None or ndarray (d,)
        Warm start :math:`(\alpha,\beta)` (e.g. the solution for similar data); it changes only
        the speed, never the solution. None: the all-in-S1 ridge solution.
    size : None or int
        Initial working-set size (default ``max(1000, q // 20)``, at most q).
    recentre_rounds : int
        Rounds in which a failed check re-splits the records around the new point; later rounds
        only add the failing records to the working set.
    max_rounds : int

    Returns
    -------
    w : ndarray (d,)
    omega : ndarray (q,)
        Multipliers of the margin constraints.
    status : str
        Clarabel's status on the last reduced QP.
    rounds : int
        Reduced QPs solved.
    """
    q, d = Z.shape
    k = min(q, int(size) if size else max(1000, q // 20))
    w = _condensed_start(Z, rho, theta) if w0 is None else np.asarray(w0, dtype=float)
    m = Z @ w
    # variables v = w / s with unit-scale columns: raw features span ~10 decades
    s = 1.0 / np.maximum(np.abs(Z).max(axis=0), np.finfo(float).tiny)
    Zs = Z * s
    r = ridge_diagonal(d, rho) * s * s

    def split(margins, k):
        work = np.zeros(q, dtype=bool)
        work[np.argpartition(np.abs(margins - 1.0), k - 1)[:k]] = True
        return work, ~work & (margins < 1.0), ~work & (margins >= 1.0)

    work, below, above = split(m, k)
    for rnd in range(1, max_rounds + 1):
        Zb = Zs[below]
        quad = np.diag(r) + rho * (Zb.T @ Zb)
        lin = (theta + rho) * Zb.sum(axis=0)
        w_prev, m_prev = w, m
        v, om_work, status = clarabel_qp(Zs[work], quad, lin, rho, theta, tol)
        w = v * s
        if status not in ("Solved", "AlmostSolved"):
            return w, None, status, rnd
        m = Z @ w
        bad = (below & (m > 1 + CHECK_TOL)) | (above & (m < 1 - CHECK_TOL))
        if not bad.any():
            omega = np.zeros(q)
            omega[below] = theta + rho * (1.0 - m[below])
            omega[work] = om_work
            return w, np.maximum(omega, 0.0), status, rnd
        if rnd < recentre_rounds:
            # the reduced model agrees with (2) to first order at the previous point, so the step
            # descends; an exact line search on (2) keeps the rounds monotone (no oscillation)
            t = _line_search(Z, ridge_diagonal(d, rho), rho, theta, w_prev, w - w_prev, m_prev)
            w = w_prev + t * (w - w_prev)
            m = Z @ w
            if t < 1.0:
                k = min(q, 2 * k)
            work, below, above = split(m, k)
        else:
            work |= bad
            below &= ~bad
            above &= ~bad
    return w, None, "MaxRounds", max_rounds
