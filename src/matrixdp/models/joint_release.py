"""The joint release of linear regression's sufficient statistics and what is read off it.

The public task (:func:`regression_task`: the records ``z = (x - c_x, y - c_y, t)``, centred at the
middle of their public boxes plus a public constant ``t`` for the intercept, and the loss weights
of the coefficient error), the joint release composed with a dedicated DP mean of the target
(``level_share``; ``docs/regression.md`` §3b), and the post-processing that reads the release:
the constant model and the estimated-risk selection between it and the fit (§3b), the level's
posterior under a public prior (§3c). Used by :mod:`matrixdp.models.linear`.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_part_epsilon
from ..errors import InvalidParameterError
from ._moments import MomentTask, balanced_constant, noise_scale, release_second_moment

#: The allocations ``noise="auto"`` compares for regression (``_moments.plan_second_moment``):
#: the set measured in results/utility_regression.md (the covariance candidate "unit-box", MVG with
#: equal shares, is not among them: it was not measured on the regression benchmark).
REGRESSION_CANDIDATES = ("iid", "task-weighted", "mse-optimal", "iid-unit-box")

#: ``level_share="auto"`` never spends more than this share of ``μ*²`` on the target's mean.
LEVEL_SHARE_CAP = 0.5
#: ``level_share="auto"`` treats the slopes as hopeless below this :func:`slope_capacity`
#: (chosen on the development tables: at 1, wdbc ε = 3 (0.66) lost 12% to the constant model).
HOPELESS_CAPACITY = 0.5
#: ``level_share="auto"`` where the slopes are hopeless (``slope_capacity < HOPELESS_CAPACITY``):
#: nearly the whole budget buys the target's mean, and the constant model is returned.
HOPELESS_SHARE = 0.95

#: The variance of the uniform prior over the box in units of ``h_y²`` (the project's public
#: prior for means, results/auto_mean_prior.md); ``level_prior="gauss"`` uses it. Not tuned.
LEVEL_PRIOR_BOX = 1.0 / 3.0


def check_feature_box(lo_x, hi_x, fit_intercept: bool) -> None:
    """Refuse public feature bounds that leave no feature to regress on: with an intercept no
    feature with lower < upper, without one every feature pinned at 0. Public inputs only; called
    by :func:`regression_task` and, before any DP range is bought, by ``fit_xy_bounds`` (hunt DH2:
    the label's DP range was charged, then this box refused)."""
    lo_x, hi_x = np.asarray(lo_x, dtype=float), np.asarray(hi_x, dtype=float)
    half = 0.5 * (hi_x - lo_x) if fit_intercept else np.maximum(np.abs(lo_x), np.abs(hi_x))
    if not np.any(half > 0):
        raise InvalidParameterError("bounds_X", "at least one feature must have lower < upper")


def regression_task(lo_x, hi_x, lo_y, hi_y, n_samples, fit_intercept: bool,
                    neighbouring: str = "replace-one"):
    r"""The public second-moment task of linear regression.

    Coordinates: the ``d`` features, then the target, then (with an intercept) the constant ``t``.
    Loss weights (``docs/when_mvg_wins.md`` §4): in units of the public half-widths, the
    coefficient error is ``Â⁻¹(δb - δA w)``; with ``‖w‖² ≈ 1`` spread over ``d'`` feature-like
    coordinates (``d`` plus the intercept), an entry of ``Xᵀy`` weighs ``d'/2`` times an entry of
    ``XᵀX``, and ``yᵀy`` is unused. As a product form: ``w_feature = √(2/d')``, ``w_target = √(d'/2)`` in those units.
    Under add-remove the sums ``ZᵀZ`` are released (``n`` is private and not needed: the normal
    equations are solved on sums).

    Returns
    -------
    (task, center_x, center_y, t)
    """
    d = lo_x.size
    if fit_intercept:
        cx, cy = 0.5 * (lo_x + hi_x), 0.5 * (lo_y + hi_y)
        hx, hy = 0.5 * (hi_x - lo_x), 0.5 * (hi_y - lo_y)
        lo_z, hi_z = -hx, hx
        ylo, yhi = -hy, hy
    else:
        cx, cy = np.zeros(d), 0.0
        hx = np.maximum(np.abs(lo_x), np.abs(hi_x))
        hy = max(abs(lo_y), abs(hi_y))
        lo_z, hi_z = lo_x, hi_x
        ylo, yhi = lo_y, hi_y
    check_feature_box(lo_x, hi_x, fit_intercept)
    if hy <= 0:
        raise InvalidParameterError("bounds_y", "must have lower < upper")
    add_remove = neighbouring == "add-remove"
    if not fit_intercept:
        t = 0.0
    elif add_remove:
        t = float(np.sqrt(np.mean(hx * hx)))
    else:
        t = balanced_constant(np.append(hx, hy), float(np.mean(hx * hx)))
    feat_h = np.append(hx, t) if fit_intercept else hx
    d_feat = feat_h.size
    a = math.sqrt(2.0 / d_feat)
    b = math.sqrt(d_feat / 2.0)
    safe = np.where(feat_h > 0, feat_h, 1.0)
    w_feat = a / safe ** 2
    w_y = b / hy ** 2
    if fit_intercept:
        lo_all = np.concatenate([lo_z, [ylo, t]])
        hi_all = np.concatenate([hi_z, [yhi, t]])
        weights = np.concatenate([w_feat[:d], [w_y], w_feat[d:]])
    else:
        lo_all = np.append(lo_z, ylo)
        hi_all = np.append(hi_z, yhi)
        weights = np.append(w_feat, w_y)
    loss = np.outer(weights, weights)
    loss[d, d] = 0.0  # yᵀy is not used by the solution
    if fit_intercept:
        loss[d + 1, d + 1] = 0.0  # t² is known
    task = MomentTask(lo_all, hi_all, None if add_remove else n_samples, weights, loss,
                      "coefficient error (units of the public half-widths)", neighbouring,
                      candidates=REGRESSION_CANDIDATES)
    return task, cx, cy, t


def constant_model(G, beta, t, fit_intercept) -> np.ndarray:
    """The coefficients of the constant model in the task's centred coordinates: no slope, and
    with an intercept the constant's coefficient that predicts the released mean of ``y - c_y``
    (entry ``(y, t)`` of the per-record release ``G`` over ``t``); without one, zero.
    Post-processing of the release."""
    out = np.zeros_like(np.asarray(beta, dtype=np.float64))
    if fit_intercept:
        d = len(out) - 1
        out[d] = float(np.asarray(G)[d, d + 1]) / (t * t)
    return out


def split_level_share(epsilon: float, delta: float, share: float) -> tuple[float, float]:
    r"""``(ε_joint, ε_mean)``: the (ε, δ) budget split in Gaussian DP, ``μ_joint² = (1 - s) μ*²``
    and ``μ_mean² = s μ*²`` with ``μ*`` the exact Gaussian shift of (ε, δ), so that the two
    Gaussian-shift releases compose exactly to (ε, δ) (Dong, Roth & Su 2022). Public."""
    from ..accounting.composition import gdp_epsilon
    from ..calibration.gaussian import max_gaussian_shift

    mu = max_gaussian_shift(epsilon, delta)
    return (check_part_epsilon(gdp_epsilon(mu * math.sqrt(1.0 - share), delta), delta),
            check_part_epsilon(gdp_epsilon(mu * math.sqrt(share), delta), delta))


def target_mean_mechanism(epsilon: float, delta: float, lo_y: float, hi_y: float, n: int):
    """The Gaussian mechanism of the replace-one mean of ``n`` targets in ``[lo_y, hi_y]``
    (sensitivity ``(hi_y - lo_y)/n``; public, no data)."""
    from ..mechanisms import GaussianMechanism

    return GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=(hi_y - lo_y) / n,
                             neighbouring="replace-one")


def auto_level_share(task, t, n, lo_y, hi_y, epsilon, delta, noise) -> tuple[float, bool]:
    r"""``level_share="auto"``: ``(s, hopeless)``, the share ``s`` of ``μ*²`` for the dedicated
    DP mean of the target and whether the slopes are hopeless, from public inputs only (bounds,
    ``n``, ε, δ, the allocation's public noise; ``docs/regression.md`` §3b).

    With ``v_J`` the noise variance of the target's mean in the joint release and ``v_M`` that
    of a DP mean spending all of ε, both at the full budget, ``r = v_J / v_M``. Spending ``s``
    multiplies the joint release's noise variances by ``1/(1 - s)`` and leaves the level a
    variance ``v_M / ((1 - s)/r + s)`` (inverse-variance combination). The share that balances
    the two losses, ``1/(1 - s) = v_M⁻¹ ·`` (level variance), is ``s_bal = (r - 1)/(2r - 1)``
    (< 1/2). ``q`` = :func:`slope_capacity` is the public best-case signal-to-noise of the slopes
    in units of the adaptive ridge's noise edge:

    * ``r <= 1``: ``s = 0`` (the joint release places the mean as well as a dedicated one);
    * ``q < 0.5`` (``HOPELESS_CAPACITY``: even records at the corners of the box would leave
      every feature at half the noise edge): hopeless, ``s = 0.95`` and the estimator returns
      the constant model (the level);
    * otherwise ``s = s_bal / max(q, 1)``: the better the slopes can be resolved, the less of
      the budget leaves them.

    The thresholds 0.5 and 0.95 were chosen on the development tables
    (``results/regression_floor_audit.md``, ``..._bench.md``), not derived.
    """
    from ._moments import plan_second_moment

    d = task.lower.size - 2
    plan, _ = plan_second_moment(task, epsilon=epsilon, delta=delta, noise=noise)
    ev = np.asarray(plan.entry_variance, dtype=np.float64)
    v_j = float(ev[d, d + 1]) / (t * t)
    v_m = target_mean_mechanism(epsilon, delta, lo_y, hi_y, n).sigma ** 2
    r = v_j / v_m
    q = slope_capacity(task, ev)
    hopeless = q < HOPELESS_CAPACITY
    if not r > 1.0:
        return 0.0, hopeless
    if hopeless:
        return HOPELESS_SHARE, True
    s_bal = min((r - 1.0) / (2.0 * r - 1.0), LEVEL_SHARE_CAP)
    return float(s_bal / max(q, 1.0)), False


def slope_capacity(task, entry_variance) -> float:
    r"""Public best-case signal-to-noise of the slopes in the joint release: the largest
    ``h_j² / sd_j`` over the features (``h_j`` the public half-width, the largest per-record
    second moment a feature centred in its box can have; ``sd_j`` the public noise sd of its
    diagonal entry), in units of the adaptive ridge's noise edge ``√(2k)``. Below 1, no
    feature can rise above the noise edge whatever the records are: the solve's slopes are
    shrunk in every direction."""
    d = task.lower.size - 2
    h = 0.5 * (np.asarray(task.upper, float) - np.asarray(task.lower, float))[:d]
    sd = np.maximum(noise_scale(entry_variance)[:d], math.sqrt(1e-300))  # task TR
    k = d + 1
    return float(np.max(h * h / sd) / math.sqrt(2.0 * k))


def release_with_target_mean(value, task, t, n, lo_y, hi_y, share, *, epsilon, delta, noise,
                             rng, charging):
    """The joint release at ``(1 - share) μ*²`` and a Gaussian DP mean of the target at
    ``share · μ*²``, composed exactly to (ε, δ) in Gaussian DP and charged once, before either
    draw (replace-one, with an intercept: ``value`` is ``(1/n) Σ z zᵀ``, so the exact mean of
    ``y - c_y`` is its entry ``(y, t)`` over ``t``). ``rng``: None (secure), an int seed or a
    Generator; one generator draws both releases; a seeded release is replayable by whoever
    knows the seed.

    Returns
    -------
    (release, mean, variance) : MomentRelease (its ``privacy`` the composed guarantee), the
        released mean of ``y - c_y`` and its public noise variance
    """
    from dataclasses import replace

    from ..accounting.composition import compose
    from ..rng import make_rng
    from ._moments import plan_second_moment

    d = task.lower.size - 2
    eps_joint, eps_mean = split_level_share(epsilon, delta, share)
    plan = plan_second_moment(task, epsilon=eps_joint, delta=delta, noise=noise)
    mech = target_mean_mechanism(eps_mean, delta, lo_y, hi_y, n)
    total = compose([plan[0].privacy, mech.privacy], delta=delta, method="gdp")
    gen = make_rng(rng)  # one stream for both draws
    exact_mean = float(np.asarray(value)[d, d + 1]) / t
    with charging(total):
        rel = release_second_moment(None, task, epsilon=eps_joint, delta=delta, noise=noise,
                                    rng=gen, value=value, plan=plan)
        mean = float(np.asarray(mech.release(np.array([exact_mean]), rng=gen).value)[0])
    if total.exact and not rel.privacy.exact:  # e.g. a certified (not attained) sensitivity
        total = replace(total, exact=False, notes=total.notes + tuple(
            n for n in rel.privacy.notes if n not in total.notes))
    return replace(rel, privacy=total), mean, float(mech.sigma) ** 2


def combine_target_mean(rel, mean, v_mean, t):
    """The release with its target-mean entry ``(y, t)`` replaced by the inverse-variance
    combination of the joint release's mean and the dedicated one (independent noises; public
    variances), and that entry's variance updated. Post-processing."""
    from dataclasses import replace

    d = rel.value.shape[0] - 2
    G = np.array(rel.value, dtype=np.float64, copy=True)
    V = np.array(rel.entry_variance, dtype=np.float64, copy=True)
    v_j = float(V[d, d + 1]) / (t * t)
    l_j = float(G[d, d + 1]) / t
    if v_j > 0:
        v = 1.0 / (1.0 / v_j + 1.0 / v_mean)
        level = v * (l_j / v_j + mean / v_mean)
    else:  # pragma: no cover - the joint release always has noise on that entry
        v, level = v_j, l_j
    G[d, d + 1] = G[d + 1, d] = level * t
    V[d, d + 1] = V[d + 1, d] = v * t * t
    return replace(rel, value=G, entry_variance=V)


def level_prior_weight(v, half_width, rho=LEVEL_PRIOR_BOX) -> float:
    r"""The posterior weight ``w = ρh² / (ρh² + v)`` of a released level of public noise
    variance ``v`` under the public Gaussian prior ``N(c, ρh²)`` (``h`` the public half-width):
    the posterior mean is ``c + w (L̂ - c)``. Public inputs only; ``w → 1`` as ``v → 0`` and
    ``w → 0`` as ``v → ∞``."""
    prior = float(rho) * float(half_width) ** 2
    if not v > 0:
        return 1.0
    if not np.isfinite(v):
        return 0.0
    return prior / (prior + float(v))


def level_posterior(level, v, half_width, prior="box") -> tuple[float, float]:
    r"""Posterior mean of the target's mean ``m`` (centred: the box is ``[-h, h]``) given the
    released level ``L̂ = m + N(0, v)`` (``v`` public) under a public prior, and the local weight
    ``w = ∂E[m | L̂]/∂L̂ = Var(m | L̂)/v ∈ [0, 1]`` (Tweedie's identity for a Gaussian location).

    ``prior="box"``: ``m`` uniform on ``[-h, h]``, so ``m | L̂`` is ``N(L̂, v)`` truncated to the
    box. A float ``ρ``: ``m ~ N(0, ρh²)``, ``w = ρh²/(ρh² + v)`` (:func:`level_prior_weight`) and the
    mean ``w L̂``, clamped to the box. Either way ``v → 0`` leaves ``L̂`` (inside the box)
    and ``v → ∞`` gives the centre 0. Post-processing of the release; docs/regression.md §3c."""
    from scipy import stats

    h = float(half_width)
    if not v > 0:
        return float(np.clip(level, -h, h)), 1.0
    if prior != "box":
        w = level_prior_weight(v, h, prior)
        return float(np.clip(w * level, -h, h)), w
    sd = math.sqrt(v)
    a, b = (-h - level) / sd, (h - level) / sd
    mean, var = stats.truncnorm.stats(a, b, loc=level, scale=sd, moments="mv")
    mean, var = float(mean), float(var)
    if not np.isfinite(mean):  # pragma: no cover - far outside the box: the nearest edge
        return float(np.clip(level, -h, h)), 0.0
    return float(np.clip(mean, -h, h)), float(np.clip(var / v, 0.0, 1.0))


def place_level(beta, normal, n, t, level) -> float:
    r"""The constant's coefficient ``β_t`` that puts the fitted prediction at the released mean
    of the features, ``m̂_x``, at ``level`` (centred coordinates); the slopes are kept.

    Replace-one, with an intercept: row ``t`` of the matrix the solve inverted (``normal``,
    ``n A + λD``) holds the released feature sums of the constant row, ``n t m̂_x``.
    Post-processing (``docs/regression.md`` §3c)."""
    d = len(beta) - 1
    mx = np.asarray(normal, dtype=np.float64)[d, :d] / (n * t)
    return (float(level) - float(mx @ beta[:d])) / t


def solve_divergence(G, entry_variance, beta, solve, fit_intercept, step=1e-3):
    r"""``∂θ̂_j/∂b_j`` for each coefficient ``j``: the derivative of the solve (projection,
    adaptive ridge and all: ``solve(G) -> θ̂``) in the released ``Xᵀy`` entry ``(j, y)`` of the
    per-record moments ``G``, by forward differences of ``step`` times that entry's public noise
    standard deviation. Post-processing (``d + 1`` extra solves)."""
    G = np.asarray(G, dtype=np.float64)
    V = np.asarray(entry_variance, dtype=np.float64)
    k = G.shape[0]
    d = k - (2 if fit_intercept else 1)
    idx = list(range(d)) + ([d + 1] if fit_intercept else [])
    out = np.zeros(len(idx))
    for pos, j in enumerate(idx):
        h = step * math.sqrt(max(float(V[j, d]), 0.0))
        if h <= 0:
            continue
        Gh = G.copy()
        Gh[j, d] += h
        Gh[d, j] += h
        out[pos] = (solve(Gh)[pos] - beta[pos]) / h
    return out


def risk_selection(G, entry_variance, beta, M, t, fit_intercept, divergence=None):
    r"""Whether the fitted slopes beat the constant model in estimated out-of-sample risk.

    Post-processing of the replace-one release ``G = (1/n) Σ z zᵀ`` (centred records, with the
    constant ``t``) and its public entry variances ``V``: the risk of a linear predictor ``θ`` is
    ``R(θ) = S_yy - 2θᵀS_xy + θᵀS_xxθ`` in the true second moments ``S``; ``R̂(θ)`` plugs in the
    release (unbiased for a fixed ``θ``). The fitted ``θ̂ = M⁻¹ b̂`` (``M`` the per-record matrix
    the solve inverted, the adaptive ridge read as fixed) is chosen on the same noise, so
    ``R̂(θ̂)`` is optimistic by ``2 E[uᵀ M⁻¹ u]`` to first order, ``u = e_b - E_A θ`` the noise of
    the normal equations at ``θ`` (a Mallows-Cp / SURE correction; ``Cov(u)`` is exact given ``θ``
    from the independent upper-triangle entries of the symmetrised noise, as in
    :func:`~matrixdp.models.normal_equations.coefficient_noise_std`). The constant model ``θ₀`` (intercept
    only: the released mean ``L`` of ``y - c_y``; without an intercept, zero) has
    ``R̂(θ₀) = -L²`` (``0``) and optimism
    ``2 Var(L)`` (``0``); ``S_yy`` is common to both and dropped. ``docs/regression.md`` §3b.

    Returns
    -------
    (keep_fit, risks) : (bool, dict)
        ``risks``: the two corrected estimates (``"fit"``, ``"constant"``), up to the common
        ``S_yy``; public functions of the release.
    """
    G = np.asarray(G, dtype=np.float64)
    V = np.array(entry_variance, dtype=np.float64, copy=True)
    beta = np.asarray(beta, dtype=np.float64)
    k = G.shape[0]
    d = k - (2 if fit_intercept else 1)
    idx = list(range(d)) + ([d + 1] if fit_intercept else [])
    A = G[np.ix_(idx, idx)].copy()
    if fit_intercept:
        A[-1, -1] = t * t  # Σ t² = n t² is public: exact, no noise
        V[d + 1, d + 1] = 0.0
    b = G[idx, d]
    J = idx + [d]
    u = np.append(beta, -1.0)
    Cv = np.outer(beta, beta) * V[np.ix_(idx, idx)]
    np.fill_diagonal(Cv, V[np.ix_(idx, J)] @ (u * u))
    Minv = np.linalg.pinv(0.5 * (M + M.T))
    pen = 2.0 * float(np.trace(Minv @ Cv))
    if divergence is not None:
        # Stein's lemma for the Gaussian noise of Xᵀy (exact for that part, whatever the solve
        # does, projection included); the Gram's part is the first-order one, scaled by the
        # same ratio of the exact to the first-order Xᵀy part
        vb = V[idx, d]
        pen_b1 = 2.0 * float(np.sum(vb * np.diag(Minv)))
        pen_b = 2.0 * float(np.sum(vb * np.asarray(divergence, dtype=np.float64)))
        ratio = pen_b / pen_b1 if pen_b1 > 0 else 1.0
        pen = pen_b + max(pen - pen_b1, 0.0) * max(ratio, 0.0)
    risk_fit = float(beta @ A @ beta - 2.0 * beta @ b + pen)
    if fit_intercept:
        level = float(G[d, d + 1]) / t
        risk_const = -level * level + 2.0 * float(V[d, d + 1]) / (t * t)
    else:
        risk_const = 0.0
    return risk_fit <= risk_const, {"fit": risk_fit, "constant": risk_const}
