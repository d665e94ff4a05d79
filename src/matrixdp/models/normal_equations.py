"""The noise-aware solve of released normal equations (``docs/regression.md`` §3).

The released second-moment sums are projected onto their public feasible set (in the noise's own
metric by default: :data:`PROJECTION_UNITS`) and solved with the adaptive ridge that lifts the
released Gram's smallest eigenvalue to the noise's edge (:func:`solve_released_normal_equations`).
The delta-method error bars of the solve (:func:`coefficient_noise_std`, §7) live here too.
Post-processing only: no budget, no randomness. Used by :mod:`matrixdp.models.linear` and
:mod:`matrixdp.models.boosted_fit`.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_choice
from ..errors import InvalidParameterError
from ._moments import noise_scale

#: Units of the Frobenius norm in which the release is projected before the solve: the noise's
#: own metric (``projection_units``), where the projection is the constrained least-squares fit
#: of the released sums weighted by their public noise, and the metric the adaptive ridge reads
#: the noise in. The original units (the previous default) made the test error worse than no
#: projection by up to 5% on wdbc, lending_club and ctg (results/projection_regression.md).
PROJECTION_UNITS = "noise"


def pinned_coordinates(task) -> np.ndarray:
    """The coordinates whose public box is the single point 0: a public constant column
    (``lower == upper``) in the centred task, whose second moments are 0 for every record
    whatever ``n`` is. Public (bounds only)."""
    return (np.asarray(task.lower) == 0) & (np.asarray(task.upper) == 0)


def feasible_moments(G, task, scale, unit=None):
    """The nearest matrix of second-moment sums the public boxes allow: PSD, and with a public
    ``n`` every entry within ``n ×`` its corner-product range (:func:`matrixdp.feasible.project_psd_box`).

    Nearest in the Frobenius norm of ``G / (unit unitᵀ)`` (``unit=None``: the original units);
    a congruence by a positive diagonal maps the feasible set onto the feasible set of the
    rescaled coordinates, so any ``unit`` gives a projection onto the same set, and the release
    never moves away from the true sums *in that norm*. Post-processing (public inputs only)."""
    from ..feasible import project_psd, project_psd_box, second_moment_entry_bounds

    u = np.ones(G.shape[0]) if unit is None else np.asarray(unit, dtype=np.float64)
    uu = np.outer(u, u)
    if task.n_samples is None:  # add-remove: n is private, only the cone is public ...
        # ... and the rows of a coordinate whose public box is the single point 0 (a public
        # constant column, centred): its sums are 0 whatever n is. The PSD cone with those rows
        # fixed at 0 is the cone of the other block, so the projection zeroes them first.
        pinned = pinned_coordinates(task)
        G = np.where(pinned[:, None] | pinned[None, :], 0.0, G)
        return project_psd(G / uu) * uu
    lo, hi = second_moment_entry_bounds(task.lower, task.upper)
    out = project_psd_box(G / uu, lo * scale / uu, hi * scale / uu, tol=1e-7, max_iter=200) * uu
    return 0.5 * (out + out.T)


def projection_units(kind, task, noise_sd):
    """The public per-coordinate units of the projection's norm (``None``: original units).

    ``"noise"``: ``sqrt(s_i)``, ``s_i`` the public noise std of the diagonal sum ``i`` (the metric
    in which the adaptive ridge measures the noise, so the projection and the solve use one
    norm); ``"half-width"``: the public half-widths (and ``t``); ``"original"``: none."""
    if kind == "original":
        return None
    if kind == "half-width":
        lo, hi = np.asarray(task.lower, float), np.asarray(task.upper, float)
        h = 0.5 * (hi - lo)
        h = np.where(h > 0, h, np.maximum(np.abs(lo), np.abs(hi)))
        return np.where(h > 0, h, 1.0)
    if kind == "noise":
        u = np.sqrt(np.maximum(np.asarray(noise_sd, dtype=np.float64), 0.0))
        return np.where(u > 0, u, 1.0) if np.any(u > 0) else None
    raise InvalidParameterError("projection", "must be 'noise', 'half-width' or 'original'")


def target_mean_informative(entry_variance, task, t) -> bool:
    """Whether a replace-one release places the target's mean within its public box: the public
    noise standard deviation of the released mean of ``y - c_y`` (entry ``(y, t)`` of the
    released ``(1/n)ΣzzT``, divided by ``t``) is below the target's public half-width. Public
    inputs only (the allocation's noise, the bounds); no data."""
    return t > 0 and level_noise_sd(entry_variance, task, t) < target_half_width(task)


def target_half_width(task) -> float:
    """The target's public half-width: ``(upper - lower)/2`` of the task's target coordinate
    (the one before the constant's)."""
    d = task.lower.size - 2
    return 0.5 * float(task.upper[d] - task.lower[d])


#: ``level_shrinkage``: ``"switch"`` (the shipped rule: the adaptive ridge lifts the constant
#: iff :func:`target_mean_informative` is false) or ``"minimax"`` (the intercept never lifted
#: under replace-one; the fitted level shrunk towards the box centre by
#: :func:`minimax_level_factor`; ``docs/regression.md`` §3a).
LEVEL_SHRINKAGES = ("switch", "minimax")


def intercept_lifted(entry_variance, task, t, fit_intercept=True) -> bool:
    """Whether :func:`solve_moments`'s shipped rule (``lift_intercept=None``,
    ``level_shrinkage="switch"``) lets the adaptive ridge also shrink the intercept towards the
    centre of the target's box: with an intercept, under add-remove (``n`` private) or where
    :func:`target_mean_informative` is false. Public inputs only (the allocation's noise, the
    bounds, the relation); no data."""
    if not fit_intercept:
        return False
    return task.n_samples is None or not target_mean_informative(entry_variance, task, t)


def level_noise_sd(entry_variance, task, t) -> float:
    """The public noise standard deviation of the released mean of ``y - c_y`` (replace-one:
    entry ``(y, t)`` of the released ``(1/n)ΣzzT`` divided by ``t``). Public inputs only."""
    d = task.lower.size - 2
    ev = np.asarray(entry_variance, dtype=np.float64)
    return math.sqrt(max(float(ev[d, d + 1]), 0.0)) / t if t > 0 else math.inf


def minimax_level_factor(sd: float, half_width: float) -> float:
    r"""The minimax LINEAR estimator's factor for a bounded normal mean: ``c = h²/(h² + s²)``.

    For ``L̂ = θ + N(0, s²)`` with ``θ ∈ [-h, h]`` public, ``c L̂`` has risk
    ``c² s² + (1 - c)² θ²``, whose maximum over the box, ``c² s² + (1 - c)² h²``, is least at
    ``c = h²/(h² + s²)`` (risk ``h² s²/(h² + s²)``, below both ``s²`` and ``h²``) [1]_. Continuous
    in ``s`` (so in ε): ``1`` at ``s = 0``, ``1/2`` at ``s = h`` (where the shipped switch flips),
    ``→ 0`` as ``s → ∞``. Public inputs only.

    References
    ----------
    .. [1] D. L. Donoho, R. C. Liu, B. MacGibbon, "Minimax risk over hyperrectangles, and
       implications", Ann. Statist. 18 (1990) 1416-1437 (the linear minimax risk of a bounded
       normal mean); matrixdp, ``docs/regression.md`` §3a.
    """
    h2, s2 = float(half_width) ** 2, float(sd) ** 2
    if not h2 > 0:
        return 0.0
    if not np.isfinite(s2):
        return 0.0
    return h2 / (h2 + s2)


def task_level_factor(entry_variance, task, t) -> float:
    """:func:`minimax_level_factor` of the task's level: the public noise sd of the released
    mean of ``y - c_y`` (:func:`level_noise_sd`) against the target's public half-width (the
    task's target coordinate, ``(upper - lower)/2``). The one place the factor of
    ``level_shrinkage="minimax"`` is computed (the solve, the boosted fit's final level, and
    the intercept's bias bound read it). Public inputs only."""
    return minimax_level_factor(level_noise_sd(entry_variance, task, t), target_half_width(task))


def shrink_level(beta, mx, t, factor) -> np.ndarray:
    """``β`` (centred coordinates, the constant's coefficient last) with its level at the
    released feature means ``mx`` (``L = mx·β_x + t β_t``) moved to ``factor · L``, the slopes
    kept: ``β_t ← β_t - (1 - factor) L / t``. Post-processing."""
    b = np.array(beta, dtype=np.float64, copy=True)
    mx = np.asarray(mx, dtype=np.float64)
    level = float(mx @ b[:mx.size]) + t * float(b[-1])
    b[-1] -= (1.0 - float(factor)) * level / t
    return b


def intercept_bias_bound(beta, normal, lam, noise_sd_t, t, half_y, *, factor=None) -> float:
    r"""The largest ``|bias|`` of the fitted level that the intercept's shrinkage can cause while
    the target's mean ``θ`` (centred) is anywhere in its public box ``[-h_y, h_y]``.

    Lifted constant (``factor=None``; the adaptive ridge's ``λ`` on the constant coordinate): the
    constant's row of the inverted matrix ``M`` reads ``(A_tt + λ s_t) β_t + A_tx β_x = b_t`` with
    ``A_tt = M_tt - λ s_t`` (``n t²`` under replace-one), so given the slopes
    ``t β_t = c' (m̂_y - m̂_x·β_x)`` with ``c' = A_tt/M_tt`` and ``m̂_x = t A_tx / A_tt``: the
    fitted level ``m̂_x·β_x + t β_t = c' m̂_y + (1 - c') m̂_x·β_x``, whose deviation from the
    unpenalised level (``m̂_y``, the noise the bar measures) is
    ``(1 - c')(m̂_x·β_x - m̂_y)``; with ``m̂_y`` at ``θ`` plus noise, its bias is
    ``(1 - c')(m̂_x·β_x - θ)``, at most ``(1 - c')(|m̂_x·β_x| + h_y)`` over the box.
    Minimax level (``factor=c``): the level is ``c L̂``, bias ``(1 - c) θ``, at most
    ``(1 - c) h_y``.

    Post-processing of the release (``beta``, ``normal``, ``lam``) and public inputs (``s_t``,
    ``t``, ``h_y``); no data. 0 where nothing is shrunk.
    """
    h = float(half_y)
    if factor is not None:
        return (1.0 - float(factor)) * h
    M = np.asarray(normal, dtype=np.float64)
    beta = np.asarray(beta, dtype=np.float64)
    d = M.shape[0] - 1
    lift = float(lam) * float(noise_sd_t)
    if not lift > 0:
        return 0.0
    a_tt = float(M[d, d]) - lift
    if not a_tt > 0:  # pragma: no cover - the constant's diagonal n t² > 0 (replace-one)
        return math.inf
    one_minus = lift / float(M[d, d])
    mx = t * M[d, :d] / a_tt
    return one_minus * (abs(float(mx @ beta[:d])) + h)


def solve_moments(G, entry_variance, task, n, t, *, fit_intercept=True, alpha=0.0, shrink=1.0,
                  projection=PROJECTION_UNITS, lift_from="projected", lift_intercept=None,
                  return_normal=False, level_shrinkage="switch"):
    """Coefficients (in the task's centred coordinates) from released second-moment sums ``G``.

    Post-processing only: optionally projects ``G`` onto its public feasible set in the norm of
    ``projection`` (``None``: no projection), pins the public ``Σ t² = n t²`` and solves with the
    adaptive ridge (:func:`solve_released_normal_equations`), whose lift is measured on the
    projected matrix (``lift_from="projected"``) or on the raw release (``"raw"``).

    ``lift_intercept``: whether the adaptive ridge also lifts the constant coordinate (shrinks
    the intercept towards the centre of the target's box). ``None`` (default): only where the
    constant's row carries no usable information, decided from public quantities: under
    add-remove (``n`` private, its diagonal ``Σ t²`` is noisy), or where the public noise
    standard deviation of the released mean of the target is at least the target's public
    half-width (the release cannot place the mean within its box). Otherwise the intercept is
    not penalised, as in ordinary ridge regression (``docs/regression.md`` §3). ``True`` is the
    previous rule (kept for ``experiments/regression_liver_low_eps.py``).

    ``level_shrinkage``: ``"switch"`` (default, the rule above). ``"minimax"`` (opt-in,
    replace-one with an intercept; ``docs/regression.md`` §3a): the intercept is never lifted,
    and the solved level (the prediction at the released feature means ``m̂_x``) is then
    shrunk towards the centre of the target's box by :func:`minimax_level_factor` of its public
    noise sd: ``β_t ← β_t - (1 - c) L/t``, continuous in ε. ``M`` (``return_normal``) is the
    unpenalised solve's. Ignored where ``lift_intercept`` is given, under add-remove and
    without an intercept.

    Returns
    -------
    (beta, lam), or (beta, lam, M) with ``return_normal``: ``M`` the matrix the solve inverted
    """
    d = G.shape[0] - (2 if fit_intercept else 1)
    replace_one = task.n_samples is not None
    scale = float(n) if replace_one else 1.0
    # the noise metric: the diagonal's sd for the full draws, the off-diagonals' product form
    # for the triangle releases (task TR; _moments.noise_scale)
    noise_sd = noise_scale(entry_variance) * scale
    G_raw = np.asarray(G, dtype=np.float64)
    if projection is not None:
        G = feasible_moments(G_raw, task, scale, projection_units(projection, task, noise_sd))
        # a public constant feature at its centre (box [0, 0] in the centred task): the
        # projection fixed its rows at 0, so its coefficient is 0 and it is left out of the
        # solve (its zero diagonal would otherwise set the adaptive ridge's λ_min for every
        # other feature)
        pinned = pinned_coordinates(task)[:d]
    else:
        G = G_raw
        pinned = np.zeros(d, dtype=bool)
    features = [j for j in range(d) if not pinned[j]]
    idx = features + ([d + 1] if fit_intercept else [])

    def normal(M):
        A = M[np.ix_(idx, idx)].copy()
        if fit_intercept and replace_one:
            A[-1, -1] = n * t * t  # Σ t² = n t² is public: no need for its noisy value
        return A

    A = normal(G)
    b = G[idx, d]
    lift = None if lift_from == "projected" else normal(G_raw)
    check_choice(level_shrinkage, LEVEL_SHRINKAGES, "level_shrinkage")
    minimax = (level_shrinkage == "minimax" and lift_intercept is None and replace_one
               and fit_intercept)
    if minimax:
        lift_intercept = False
    if lift_intercept is None:  # (read only with an intercept: n_lifted below)
        lift_intercept = intercept_lifted(entry_variance, task, t, fit_intercept)
    m = len(features)
    n_lifted = m if fit_intercept and not lift_intercept else None
    out = solve_released_normal_equations(A, b, noise_sd[idx], alpha=alpha, n_penalised=m,
                                          shrink=shrink, lift_matrix=lift, n_lifted=n_lifted,
                                          return_normal=return_normal)
    if minimax:  # the level at m̂_x (row t of A: n t m̂_x) shrunk towards c_y by c (public)
        c = task_level_factor(entry_variance, task, t)
        bt = shrink_level(out[0], np.asarray(A, dtype=np.float64)[-1, :m] / (n * t), t, c)
        out = (bt,) + tuple(out[1:])
    if m == d:
        return out
    # back to every coordinate: the pinned coefficients are 0; the inverted matrix gets an
    # identity block there (decoupled, so no other coefficient's noise is changed)
    full = np.array(features + ([d] if fit_intercept else []))
    k = d + (1 if fit_intercept else 0)
    beta = np.zeros(k)
    beta[full] = out[0]
    if not return_normal:
        return beta, out[1]
    M = np.eye(k)
    M[np.ix_(full, full)] = out[2]
    return beta, out[1], M


def solve_released_normal_equations(A, b, noise_sd, *, alpha: float = 0.0, n_penalised=None,
                                    shrink: float = 1.0, lift_matrix=None, n_lifted=None,
                                    return_normal=False):
    r"""Solve ``(Â + αI + λD) β = b̂`` on released sums, ``λ >= 0`` set from the released matrix.

    Post-processing of the release (no budget). ``Â`` is the released (noisy, symmetric) ``XᵀX``
    block, ``noise_sd`` the public standard deviations ``s_i`` of its diagonal noise entries; the
    noise is ``E = D^{1/2} W D^{1/2}`` with ``D = diag(s)`` and ``W`` a symmetric matrix of unit-scale
    entries (off-diagonal variance 1/2), whose spectral norm is ``≈ √(2k)`` (semicircle edge).

    1. The user's ridge ``α`` is added to the first ``n_penalised`` diagonal entries before the
       lift (the intercept's constant coordinate is not penalised by ``α``). Whatever repair
       preceded (the feasible projection clips negative eigenvalues), step 2 lifts every
       direction to the noise edge, so no noise is ever divided by ``α`` (the old order, clip
       and then add ``α``, did exactly that).
    2. In the noise's own metric, ``Ã = D^{-1/2}(Â + αI)D^{-1/2}``, the smallest eigenvalue is
       lifted to ``shrink·√(2k)`` (the noise's edge) by ``λ = max(0, shrink·√(2k) - λ_min(Ã))``.
       Directions where the data are weaker than the noise are shrunk instead of being solved
       with a noise-over-noise ratio, which does not fall with ε (the bias of a plain solve
       after a PSD repair, issue #24); when the released Gram is well above the noise, ``λ = 0``
       and the solve is ordinary least squares on the release. The constant coordinate is lifted
       only where the caller asks (``n_lifted=None``: every coordinate is lifted).
    3. ``n_lifted = m``: only the first ``m`` coordinates (the features) are lifted; the rest
       (the constant coordinate, whose diagonal ``n t²`` is exact when ``n`` is public) are
       not penalised, as the intercept of ordinary ridge regression. ``λ_min`` is then that of
       the features' Gram centred by the released means (the Schur complement of the unlifted
       block, ``C = A_ff - A_fr A_rr⁻¹ A_rf``) in the noise metric: the matrix the feature
       coefficients are solved against. Lifting the constant too shrinks the prediction at the
       centre of the feature box towards the centre of the target range, a bias of the size
       of ``|mean(y) - c_y|`` that is large for a skewed target (liver at ε = 0.3: 4.33 against
       3.13 unpenalised; ``results/regression_liver_low_eps.md``).

    This is the adaptive ridge of AdaSSP [1]_ with its private ``λ_min`` replaced by the
    ``λ_min`` of the release itself (free, since it is post-processing), in the noise's metric.
    ``lift_matrix`` (same shape as ``A``, e.g. the unprojected release): measure ``λ_min`` on it
    instead of on ``A``.

    Returns
    -------
    (beta, lam) : (ndarray, float)
        With ``return_normal``, also the matrix ``Â + αI + λD`` the solve inverted.

    References
    ----------
    .. [1] Y.-X. Wang, "Revisiting differentially private linear regression: optimal and adaptive
       prediction & estimation in unbounded domain", UAI 2018.
    .. [2] matrixdp, ``docs/regression.md``.
    """
    A = 0.5 * (A + A.T)
    k = A.shape[0]
    m = k if n_penalised is None else int(n_penalised)
    if alpha > 0:
        A[np.arange(m), np.arange(m)] += alpha
    s = np.sqrt(np.maximum(np.asarray(noise_sd, dtype=np.float64), 0.0))
    lam = 0.0
    f = k if n_lifted is None else int(n_lifted)  # the first f coordinates are lifted
    if shrink > 0 and np.all(s > 0):
        L = A if lift_matrix is None else 0.5 * (lift_matrix + lift_matrix.T)
        if lift_matrix is not None and alpha > 0:
            L = L.copy()
            L[np.arange(m), np.arange(m)] += alpha
        if f < k:  # the features' Gram centred by the unlifted (constant) block: Schur complement
            L_rr = L[f:, f:]
            if np.all(np.linalg.eigvalsh(0.5 * (L_rr + L_rr.T)) > 0):
                L = L[:f, :f] - L[:f, f:] @ np.linalg.solve(L_rr, L[f:, :f])
            else:  # pragma: no cover - the constant's diagonal n t² > 0 is pinned by the caller
                f = k
        sf = s[:f]
        white = L / np.outer(sf, sf)
        edge = shrink * math.sqrt(2.0 * k)
        lam = max(0.0, edge - float(np.linalg.eigvalsh(0.5 * (white + white.T))[0]))
        if lam > 0:
            lift = np.zeros(k)
            lift[:f] = lam * sf * sf
            A = A + np.diag(lift)
    beta = np.linalg.lstsq(A, b, rcond=None)[0]
    return (beta, lam, A) if return_normal else (beta, lam)


def feature_penalty(ridge, entry_variance, scale, n_features, *, alpha=0.0, pinned=None):
    r"""The penalty the solve added to each feature's sum of squares: ``α + λ s_j``.

    :func:`solve_moments` solves ``(Â + αI + λD) β = b̂`` in the task's centred coordinates
    (original units), with ``D = diag(s)`` and ``s_j`` the public noise scale of the released
    sum of squares ``Σ (x_j − c_j)²`` (:func:`~matrixdp.models._moments.noise_scale` of the
    entry variances, times ``scale``: ``n`` when the mean was released, 1 for sums). So the
    coefficients solve the ridge problem

    .. math:: \min_{β, b} \sum_i (y_i − b − x_iᵀβ)² + \sum_j p_j β_j², \quad p_j = α + λ s_j,

    on the released moments, and the same problem on the records' own (clipped) moments is the
    estimand the error bars ``coef_std_`` cover (``docs/regression.md`` §7). ``p_j`` is in the
    units of ``Σ (x_j − c_j)²`` (feature ``j``'s units squared; scikit-learn's ``Ridge(alpha)``
    is ``p_j = alpha``). A public constant feature left out of the solve (``pinned``) gets 0.
    Where the intercept was lifted too (``intercept_shrunk_``) the constant coordinate carries
    ``λ s_t`` as well; not returned here. Post-processing of the release (``λ = ridge_``) and
    public noise variances: no budget.

    Parameters
    ----------
    ridge : float
        The adaptive ridge ``λ`` the solve chose (the estimator's ``ridge_``).
    entry_variance : ndarray (k, k)
        Public noise variances of the released moments (``entry_variance_``).
    scale : float
        ``n`` (replace-one) or 1 (add-remove).
    n_features : int
        ``d``: the first ``d`` coordinates are the features.
    alpha : float, default 0.0
        The user's ridge (``DPRidge``'s ``alpha``).
    pinned : ndarray of bool (d,), optional
        Features left out of the solve (a public constant feature under the projection).

    Returns
    -------
    ndarray (d,)

    References
    ----------
    .. [1] matrixdp, ``docs/regression.md`` §3 (the solve) and §7 (what the bars cover).
    """
    d = int(n_features)
    s = noise_scale(entry_variance)[:d] * float(scale)
    pen = float(alpha) + float(ridge) * s
    if pinned is not None:
        pen = np.where(np.asarray(pinned, dtype=bool), 0.0, pen)
    return pen


def coefficient_noise_std(beta, normal, entry_variance, scale, cx, t=None, *, widths=None,
                          rcond=1e-15, return_cov=False):
    r"""Delta-method noise standard deviations of the coefficients and the intercept.

    Post-processing of public quantities and the release: ``beta = M⁻¹ b`` in the task's centred
    coordinates, with ``M`` (``normal``) the matrix the solve inverted (``n A + αI + λD``, the
    adaptive ridge ``λ`` read as fixed). To first order ``dβ = -s M⁻¹ dG[idx, J] u`` with
    ``J = idx + [target]``, ``u = (β, -1)`` and ``s`` the release's ``scale`` (``n`` when the
    mean ``(1/n)Σzzᵀ`` was released, 1 for sums). The symmetrised noise of the released moments
    has independent upper-triangle entries of public variances ``entry_variance`` (i.i.d. and
    diagonal-MVG noise alike), so the covariance of ``dG[idx, J] u`` is exact given ``u``:

    .. math:: \operatorname{Cov}(dβ) = s^2 M^{-1} C_v M^{-\top}, \quad
              (C_v)_{ij} = β_i β_j V_{ij} \ (i \ne j), \quad (C_v)_{ii} = \textstyle\sum_l V_{il} u_l^2.

    Parameters
    ----------
    beta : ndarray (m,)
        The solved coefficients in centred coordinates (``m = d + 1`` with an intercept: the last
        one multiplies the constant ``t``).
    normal : ndarray (m, m)
        The matrix the solve inverted.
    entry_variance : ndarray (k, k)
        Public noise variance of each released entry of the moments of ``(x - c_x, y - c_y, t)``.
    scale : float
        ``n`` (replace-one: the mean was released) or 1 (add-remove: the sums).
    cx : ndarray (d,)
        The public feature centres.
    t : float or None
        The public constant of the intercept (``None``: no intercept).
    widths : ndarray (m,), optional
        Public per-coordinate scales ``h`` (e.g. the features' half-widths and ``t``): ``M`` is
        pseudo-inverted as ``M / (h hᵀ)``, where the coordinates weigh alike (conditioning only;
        a non-positive scale counts as 1).

    return_cov : bool, default False
        Return the first-order covariance ``Cov(dβ)`` (``m × m``, centred coordinates) instead.

    Returns
    -------
    (coef_std, intercept_std) : (ndarray (d,), float)

    References
    ----------
    .. [1] matrixdp, ``docs/regression.md`` (the solve), ``docs/curator.md`` (the CLI's error bars).
    """
    beta = np.asarray(beta, dtype=np.float64)
    d = len(cx)
    idx = list(range(d)) + ([d + 1] if t is not None else [])
    J = idx + [d]
    V = np.asarray(entry_variance, dtype=np.float64)
    u = np.append(beta, -1.0)
    Cv = np.outer(beta, beta) * V[np.ix_(idx, idx)]
    np.fill_diagonal(Cv, V[np.ix_(idx, J)] @ (u * u))
    h = np.ones(len(idx)) if widths is None else np.asarray(widths, dtype=np.float64)
    w = 1.0 / np.where(h > 0, h, 1.0)
    Minv = np.linalg.pinv(np.asarray(normal, dtype=np.float64) * np.outer(w, w),
                          rcond=rcond) * np.outer(w, w)
    cov_beta = (scale * scale) * Minv @ Cv @ Minv.T
    if return_cov:
        return cov_beta
    coef_std = np.sqrt(np.clip(np.diag(cov_beta)[:d], 0.0, None))
    if t is None:
        return coef_std, 0.0
    g = np.append(-np.asarray(cx, dtype=np.float64), t)
    return coef_std, math.sqrt(max(float(g @ cov_beta @ g), 0.0))
