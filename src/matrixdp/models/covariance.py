"""DP covariance, Gram and correlation matrices with public per-feature bounds (scikit-learn API).

One release of the second moments of the records, centred at the middle of their public box and
augmented with a public constant coordinate that carries the mean, through the noise allocation that
minimises the task's expected loss (``docs/when_mvg_wins.md``).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from sklearn.base import BaseEstimator

from .._validation import check_choice
from ..errors import InvalidParameterError
from ..feasible import nearest_correlation, project_feasible
from ._dask import augmented_moments, is_dask_collection
from ._base import (NoGeneratorStateMixin, charging, check_privacy_params,
                    finish_bounds, fit_bounds,
                    check_relation)
from ._moments import augmented_task, release_second_moment, keep_release
from .experimental import (CORRELATION_RULES, DEPRECATED, PROJECTED_FLOORS, CovarianceOptions,
                           resolve_experimental)

__all__ = ["DPCovariance"]

KINDS = ("covariance", "gram", "correlation")
#: Estimation methods of :class:`DPCovariance` and :class:`~matrixdp.models.DPPCA`.
METHODS = ("moments", "coinpress", "adaptive")


def check_method(estimator, kind: str, method=None) -> str:
    """The estimator's ``method`` (validated against ``kind`` and the neighbouring relation);
    ``method`` overrides ``estimator.method`` (``DPCovariance``'s resolved ``"auto"``)."""
    method = estimator.method if method is None else method
    check_choice(method, METHODS, "method")
    if method in ("coinpress", "adaptive"):
        if kind == "gram":
            raise InvalidParameterError("method", f"{method!r} estimates a covariance; use "
                                                  "method='moments' for kind='gram'")
        if check_relation(estimator.neighbouring) != "replace-one":
            raise InvalidParameterError("method", f"{method!r} needs neighbouring='replace-one' "
                                                  "(a public number of records)")
    return method


def auto_method(kind: str, neighbouring: str, X, *, noise: str = "auto",
                shrinkage: str = "auto") -> str:
    """What ``DPCovariance(method="auto")`` (the default) resolves to, from public facts only
    (the parameters and whether ``X`` is a Dask collection; never the records' values).

    ``"adaptive"`` where it applies and was checked (``docs/coinpress.md``, "Measured (round 3e):
    the second check"; ``results/adaptive_default_check2.md``): ``kind="covariance"``,
    replace-one neighbours (public ``n``), an in-memory ``X``, ``noise="auto"`` and
    ``shrinkage`` ``"auto"`` or ``"none"`` (an explicit ``noise`` or a shrinkage is a setting of
    the moments release); and (task CR, ``docs/coinpress.md`` § Adaptive (correlation);
    ``results/correlation_adaptive_check.md``) ``kind="correlation"`` with replace-one
    neighbours, an in-memory ``X``, ``noise="auto"`` and ``shrinkage="auto"`` (the
    correlation-ranked adaptive release, its moments branch with ``shrinkage="projected"``).
    ``"moments"`` otherwise: ``kind="gram"`` (adaptive refuses it), a correlation with an
    explicit ``noise`` or shrinkage, add-remove neighbours and Dask input (adaptive refuses
    them)."""
    if neighbouring != "replace-one" or is_dask_collection(X) or noise != "auto":
        return "moments"
    if kind == "covariance" and shrinkage in ("auto", "none"):
        return "adaptive"
    if kind == "correlation" and shrinkage == "auto":
        return "adaptive"
    return "moments"


SHRINKAGES = ("auto", "none", "off-diagonal", "whole", "projected")
#: ``DPCovariance(kind="correlation", method="adaptive")`` (task CR's second candidate): the
#: whitened step is considered only if every projected variance of the first look is at least
#: this many of its noise sds (``adaptive_covariance``'s ``resolve_z``; 3, the counts' ``COUNT_Z``:
#: the first-order correlation losses assume the noise small against each variance). 0 is the
#: first candidate (``results/correlation_adaptive_dev.md``).
CORRELATION_RESOLVE_Z = 3.0
#: ``DPCovariance(kind="correlation", correlation_rule="margin")`` (task CG; the default since
#: session 16): where the
#: first look leaves a variance unresolved (below ``CORRELATION_RESOLVE_Z`` noise sds) the
#: whitened step is not blocked; its predicted correlation loss is multiplied by this margin
#: (``adaptive_covariance``'s ``unresolved_margin``; ``docs/coinpress.md`` § Adaptive
#: (correlation), "The guard and the bias term (task CG)").
UNRESOLVED_MARGIN = 10.0
#: ``correlation_rule="margin"``: the coefficient of the clipping-bias term in the whitened
#: step's predicted correlation loss (``adaptive_covariance``'s ``correlation_bias``; 1 in
#: the default): most of a whitened clipping's bias cancels in the correlation.
CORRELATION_BIAS = 0.1
# CORRELATION_RULES, the values of ``correlation_rule``, lives in :mod:`.experimental` with
# :class:`CovarianceOptions` (imported above for old readers).
#: ``kind="correlation"`` shrinks its off-diagonal entries by groups whose noise variances (in
#: correlation units) are within this ratio (chosen on synthetic, liver, wdbc and ctg among one
#: group and ratios 2 and 4; then checked on the held-out tables: results/covariance_shrinkage.md).
CORRELATION_GROUP_RATIO = 2.0
#: ``shrinkage="projected"`` (correlation): the smallest factor of a group (chosen on synthetic,
#: liver, wdbc and ctg among 0, 1/4 and 1/2; results/covariance_shrinkage.md); since task CS2
#: scaled by the pooled signal-to-noise and the public ramp (``projected_floor="pooled"``).
PROJECTED_FLOOR = 0.5
#: ``shrinkage="projected"``: groups whose mean public noise variance is at least this many
#: times the largest squared covariance the box allows keep the raw release's factor.
NOISE_BOUND_RATIO = 1.0
#: The floors of :func:`shrink_covariance`'s correlation weights (task TF): ``"diagonal"``
#: (``d̂_i`` at least the diagonal's noise sd) and ``"off-diagonal"`` (the product ``d̂_i d̂_j``
#: also at least twice the entry's noise variance).
WEIGHT_FLOORS = ("diagonal", "off-diagonal")


def auto_shrinkage(kind: str, method: str, neighbouring: str) -> str:
    """What ``shrinkage="auto"`` (the default) resolves to: ``"projected"`` for
    ``kind="correlation"`` with ``method="moments"`` (or ``"adaptive"``, applied where its moments
    branch is chosen; task CR) under replace-one (the pre-registered rule
    passed there: ``results/correlation_default_check.md``), ``"none"`` otherwise (under
    add-remove the same rule failed on one cell: ``results/correlation_default_check_add_remove.md``)."""
    if kind == "correlation" and method in ("moments", "adaptive") and \
            neighbouring == "replace-one":
        return "projected"
    return "none"


def check_shrinkage(estimator, kind: str, method: str) -> str:
    """The fit's shrinkage (validated against kind and method; ``"auto"`` resolved by
    :func:`auto_shrinkage`)."""
    shrinkage = estimator.shrinkage
    check_choice(shrinkage, SHRINKAGES, "shrinkage")
    if shrinkage == "auto":
        return auto_shrinkage(kind, method, check_relation(estimator.neighbouring))
    if shrinkage == "none":
        return shrinkage
    if kind == "gram":
        raise InvalidParameterError("shrinkage", "shrinks a covariance or a correlation; use "
                                                 "shrinkage='none' for kind='gram'")
    if kind != "correlation" and shrinkage == "projected":
        raise InvalidParameterError("shrinkage", "'projected' shrinks a correlation (its factors "
                                                 "are set for the projected correlation)")
    if kind == "correlation" and shrinkage == "whole":
        raise InvalidParameterError("shrinkage", "a correlation's diagonal is 1: use "
                                                 "'off-diagonal' (towards the identity)")
    if method == "adaptive" and kind == "correlation" and shrinkage == "projected":
        return shrinkage  # applied where the moments branch is chosen (its variances known)
    if method != "moments":
        raise InvalidParameterError("shrinkage", "needs method='moments' (the noise variance "
                                                 "of each entry is known there)")
    return shrinkage


def fit_coinpress(estimator, X, lo, hi, *, epsilon, delta, label, beta):
    """Fit ``estimator`` with :func:`~matrixdp.models.coinpress.coinpress_covariance` at the
    whitened radius ``beta`` (the estimator's ``experimental.coinpress_beta``); sets the release
    attributes (``noise_ = "coinpress"``) and returns ``(covariance, location)``."""
    from .coinpress import check_beta, coinpress_covariance, coinpress_shares

    if is_dask_collection(X):
        raise InvalidParameterError("method", "'coinpress' needs an in-memory X (it makes several "
                                              "passes over the records)")
    check_beta(beta, name="coinpress_beta")
    coinpress_shares(estimator.coinpress_steps, name="coinpress_steps")
    res = coinpress_covariance(
        X, lo, hi, epsilon=epsilon, delta=delta, steps=estimator.coinpress_steps,
        beta=beta, rng=estimator.random_state,
        charging=lambda p: charging(estimator.accountant, p, label=label))
    estimator.privacy_ = res.privacy
    estimator.noise_ = "coinpress"
    estimator.allocation_ = "coinpress"
    estimator.noise_summary_ = None
    estimator.expected_loss_ = None
    estimator.entry_variance_ = None
    estimator.noise_candidates_ = {}
    return res.covariance, res.location


def fit_adaptive(estimator, X, lo, hi, *, epsilon, delta, label, beta, kind="covariance",
                 n_components=None, result=False, **options):
    """Fit ``estimator`` with :func:`~matrixdp.models.adaptive.adaptive_covariance` at the
    whitened radius ``beta`` (the estimator's ``experimental.coinpress_beta``); sets the release
    attributes (``noise_ = "adaptive"``, ``adaptive_choice_``, ``adaptive_predicted_``) and
    returns ``(covariance, location)`` (not yet projected). ``options`` go to
    ``adaptive_covariance`` (DPPCA: ``projection``)."""
    from .adaptive import adaptive_covariance
    from .coinpress import check_beta

    if is_dask_collection(X):
        raise InvalidParameterError("method", "'adaptive' needs an in-memory X (it makes several "
                                              "passes over the records)")
    check_beta(beta, ("auto", "late"), name="coinpress_beta")
    res = adaptive_covariance(
        X, lo, hi, epsilon=epsilon, delta=delta, kind=kind, n_components=n_components,
        beta=beta, rng=estimator.random_state,
        charging=lambda p: charging(estimator.accountant, p, label=label), **options)
    if hasattr(estimator, "moments_"):  # a previous moments fit's release
        del estimator.moments_
    estimator.privacy_ = res.privacy
    estimator.noise_ = "adaptive"
    estimator.allocation_ = res.allocation
    estimator.adaptive_choice_ = res.choice
    estimator.adaptive_predicted_ = dict(res.predicted)
    estimator.noise_summary_ = None
    estimator.expected_loss_ = None
    estimator.entry_variance_ = None
    estimator.noise_candidates_ = {}
    if result:
        return res.covariance, res.location, res
    return res.covariance, res.location


def _triangle_options(on, prediction=False) -> dict:
    """``{"options": AdaptiveOptions(moments_triangle=True)}`` if ``on``, else ``{}`` (so the
    call without it is the release before, byte for byte): the covariance default's dominating
    triangle (task CV) and the correlation's option (task TC); ``prediction`` adds the median
    ranking's prediction of that triangle (task AB, ``triangle_prediction=True``)."""
    if not on:
        return {}
    from .adaptive import AdaptiveOptions  # lazy, as fit_adaptive's import

    return {"options": AdaptiveOptions(moments_triangle=True,
                                       triangle_prediction=bool(prediction))}


def adaptive_moments_release(res, lo, hi, n):
    """``(G, V, center, t)`` of the averaged moments release an adaptive fit chose (the
    ``"pca"``/correlation task's augmented records ``(x - c, t)``), or None (the whitened step,
    or a feature with ``lower == upper``, which the adaptive release leaves out).
    Post-processing of the release and public inputs."""
    from ._moments import augmented_task

    if res.choice != "moments" or res.entry_variance is None or res.mean is None:
        return None
    d = np.asarray(lo).size
    if res.mean.size != d:
        return None
    _, center, t = augmented_task(lo, hi, n, "pca")
    G = np.empty((d + 1, d + 1))
    G[:d, :d] = res.covariance + np.outer(res.mean, res.mean)
    G[:d, d] = G[d, :d] = res.mean * t
    G[d, d] = t * t
    return G, res.entry_variance, center, t


def fit_second_moments(estimator, X, lower, upper, kind, *, epsilon, delta, noise, label,
                       n_components=None):
    """Release the task's second moments of ``X`` (validated; clipped here, chunk by chunk).

    Returns ``(release, center, t)``. ``X`` (numpy or Dask) is clipped (per ``estimator.clip``)
    and summed in row chunks or blocks; only the reduced matrix reaches the release.
    """
    relation = check_relation(estimator.neighbouring)
    # Dask or numpy alike: the records are clipped (per ``estimator.clip``), centred and summed
    # in row chunks / blocks (:mod:`matrixdp._record_sums`), so no full copy of X is made; t and
    # the centre are public (they do not depend on n).
    _, center, t = augmented_task(lower, upper, 1, kind, relation, n_components)
    # DP bounds always clip (the records are not known to lie in an estimated box)
    clip = bool(estimator.clip) or getattr(estimator, "bounds_privacy_", None) is not None
    n, value = augmented_moments(X, lower, upper, center, t, clip=clip,
                                 mean=relation != "add-remove")
    task, center, t = augmented_task(lower, upper, n, kind, relation, n_components)
    rel = release_second_moment(
        None, task, epsilon=epsilon, delta=delta, noise=noise, rng=estimator.random_state,
        charging=lambda p: charging(estimator.accountant, p, label=label), value=value)
    return rel, center, t


def released_count(G: np.ndarray, d: int, t: float) -> float:
    """``n̂ = G_dd / t²``: the record count a release of sums (add-remove) carries in its constant
    coordinate ``d``, floored at 1 (post-processing)."""
    return max(float(G[d, d]) / (t * t), 1.0)


def covariance_from_release(G: np.ndarray, center: np.ndarray, t: float, kind: str,
                            neighbouring: str = "replace-one"):
    """``(matrix, location)`` of ``kind`` from the released augmented second moments.

    Under add-remove ``G`` holds sums: it is divided by the released count ``n̂ = G_tt / t²``
    (floored at 1; post-processing).
    """
    d = center.size
    if neighbouring == "add-remove":
        G = G / released_count(G, d, t)
    if kind == "gram":
        return (G if G.shape[0] == d else G[:d, :d]), None
    M = G[:d, :d]
    m = G[:d, d] / t
    cov = M - np.outer(m, m)
    return 0.5 * (cov + cov.T), center + m


def covariance_noise(G: np.ndarray, V: np.ndarray, center: np.ndarray, t: float, lower, upper,
                     neighbouring: str = "replace-one"):
    r"""Noise model of the covariance ``Ĉ = M̂ - m̂ m̂ᵀ`` read from a released ``Ĝ``.

    ``V`` is the (public) variance of each entry of ``Ĝ - G`` (independent entries). With
    ``δm = e/t`` (``e`` the noise of ``Ĝ[:d, d]``, variances ``u_i = V_id/t²``), the error of an
    off-diagonal entry is ``E_ij - m_i δm_j - m_j δm_i - δm_i δm_j``, of variance
    ``V_ij + m_i² u_j + m_j² u_i + u_i u_j``. The mean ``m`` is private: ``m_i²`` is estimated from
    the release (``m̂_i² - u_i``, clipped to ``[0, h_i²]``; post-processing). Returns
    ``(variance, m̃, u)``: the ``(d, d)`` entry variances (diagonal: ``V_ii + 4 m_i² u_i +
    2 u_i²``), the plug-in mean (signed) and ``u``.
    """
    d = center.size
    h = 0.5 * (np.asarray(upper, dtype=np.float64) - np.asarray(lower, dtype=np.float64))
    G = np.asarray(G, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    if neighbouring == "add-remove":  # G / n̂ (n̂ the released count): the noise scales with it
        n_hat = released_count(G, d, t)
        G, V = G / n_hat, V / (n_hat * n_hat)
    u = V[:d, d] / (t * t)
    m_hat = G[:d, d] / t
    m2 = np.clip(m_hat * m_hat - u, 0.0, h * h)
    var = V[:d, :d] + np.outer(m2, u) + np.outer(u, m2) + np.outer(u, u)
    np.fill_diagonal(var, np.diagonal(V)[:d] + 4.0 * m2 * u + 2.0 * u * u)
    return var, np.sign(m_hat) * np.sqrt(m2), u


def projected_noise_ratio(G: np.ndarray, V: np.ndarray, t: float, h, labels: np.ndarray,
                          neighbouring: str = "replace-one") -> np.ndarray:
    """Per entry, the mean over its group of the PUBLIC noise ratio ``V_ij / (h_i h_j)²`` (the
    release's entry variance over the largest squared covariance the box allows; under
    add-remove in units of the mean). ``labels``: the ``(d, d)`` group labels (< 0: no group,
    ratio 0 there). Post-processing of public variances (and, under add-remove, the released
    count)."""
    labels = np.asarray(labels)
    d = labels.shape[0]
    h2 = np.broadcast_to(np.asarray(h, dtype=np.float64) ** 2, (d,))
    hh = np.where(h2 > 0, h2, 1.0)
    Vd = np.asarray(V, dtype=np.float64)[:d, :d]
    if neighbouring == "add-remove":  # the release is a sum: in units of the mean
        Vd = Vd / released_count(np.asarray(G, dtype=np.float64), d, t) ** 2
    ratio = Vd / np.outer(hh, hh)
    pos = labels >= 0
    out = np.zeros((d, d))
    if pos.any():
        nlab = int(labels.max()) + 1
        mean = (np.bincount(labels[pos], weights=ratio[pos], minlength=nlab)
                / np.maximum(np.bincount(labels[pos], minlength=nlab), 1))
        out[pos] = mean[labels[pos]]
    return out


def continuous_floor(ratio: np.ndarray, floor: float) -> np.ndarray:
    """The public part of ``projected_floor="continuous"``: for a group whose mean public noise
    ratio is ``q`` (:func:`projected_noise_ratio`), ``floor · clip(NOISE_BOUND_RATIO / q - 1, 0,
    1)``: 0 at the noise-bound switch (``q = NOISE_BOUND_RATIO``, where the raw factor takes
    over), ``floor`` from ``q = NOISE_BOUND_RATIO / 2`` on; :func:`shrink_covariance` multiplies
    it by the group's estimated signal-to-noise (``docs/postprocessing.md``, "The continuous
    floor"). Public (1 where ``q = 0``)."""
    q = np.asarray(ratio, dtype=np.float64)
    s = np.where(q > 0, NOISE_BOUND_RATIO / np.where(q > 0, q, 1.0), np.inf)
    return floor * np.clip(s - 1.0, 0.0, 1.0)


def shrink_covariance(cov: np.ndarray, G: np.ndarray, V: np.ndarray, center: np.ndarray, t: float,
                      lower, upper, kind: str, neighbouring: str = "replace-one", *,
                      diagonal: bool = False, group_ratio: float | None = None,
                      reference: np.ndarray | None = None, floor: float = 0.0,
                      floor_rule: str = "constant", weight_floor: str = "diagonal"):
    """James–Stein shrinkage factors of a released covariance, computed before its projection.

    ``kind="covariance"``: the Frobenius loss in original units; the off-diagonal entries are
    shrunk towards 0 (``diagonal=True``: the whole matrix, in one group). ``"correlation"``:
    the off-diagonal entries with weights ``1/(d̂_i d̂_j)`` (``d̂_i`` the released variance, at
    least its noise sd and at most ``h_i²``), the first-order loss of the implied correlation,
    shrunk towards the identity. Uses the release and public quantities only
    (:func:`covariance_noise`, :func:`~matrixdp.feasible.james_stein_shrink`,
    ``docs/postprocessing.md``). Returns ``(matrix, factors)``; :class:`DPCovariance` applies
    a correlation's factors to the final correlation (not to this matrix). With ``reference``
    (the projected correlation, ``kind="correlation"``): the factors of
    :func:`~matrixdp.feasible.projected_stein_shrink` for it (at least ``floor``), except in
    the groups whose mean public noise variance ``V_ij/(h_i h_j)²`` is at least
    ``NOISE_BOUND_RATIO`` (the raw release's factor there), and the matrix returned is
    ``reference`` times them. ``floor_rule="continuous"`` (``CovarianceOptions(projected_floor=
    "continuous")``, task CS): a group's floor is ``floor`` times the public ramp
    :func:`continuous_floor` (0 at the switch) times ``clip(ŝ_g, 0, 1)``, ``ŝ_g`` the raw
    release's estimated signal-to-noise of the group
    (:func:`~matrixdp.feasible.projected_stein_shrink`'s ``floor_signal="group"``;
    ``docs/postprocessing.md``, "The continuous floor"); ``"pooled"`` (task CS2): the same
    ramp times ``clip(ŝ, 0, 1)``, ``ŝ`` the projected correlation's signal-to-noise pooled
    over all groups in its own units (``projected_stein_shrink``'s ``floor_signal="pooled"``;
    ``docs/postprocessing.md``, "The pooled floor"); ``"constant"``: ``floor``.
    ``weight_floor="off-diagonal"`` (task TF, ``CovarianceOptions(triangle_floor=True)``): the
    correlation weight of an off-diagonal entry is ``1/max(d̂_i d̂_j, 2 Var_ij)`` (at most
    ``1/(h_i h_j)²``), its product floored by the entry's own noise variance rather than only by
    the diagonal's noise sd: a full draw's diagonal has twice the off-diagonal variance, so there
    the two floors coincide, while a dominating triangle lowers the diagonal's noise and not the
    off-diagonal's (``docs/postprocessing.md``, "The triangle's weight floor"). ``"diagonal"``:
    the weights above, byte for byte.
    """
    from ..feasible import james_stein_shrink, projected_stein_shrink, variance_groups

    var, m, u = covariance_noise(G, V, center, t, lower, upper, neighbouring)
    d = center.size
    h = 0.5 * (np.asarray(upper, dtype=np.float64) - np.asarray(lower, dtype=np.float64))
    if kind == "correlation":
        diagonal = False
        sd = np.sqrt(np.diagonal(var))
        dd = np.minimum(np.maximum(np.diagonal(cov), sd), h * h)
        inv = np.where(dd > 0, 1.0 / np.where(dd > 0, dd, 1.0), 0.0)
        w = np.outer(inv, inv)
        check_choice(weight_floor, WEIGHT_FLOORS, "weight_floor")
        if weight_floor == "off-diagonal":
            # the off-diagonal products floored at twice the entry's noise variance (the full
            # draw's diagonal-to-off-diagonal variance ratio), capped at the box's (h_i h_j)²
            hh = np.outer(h * h, h * h)
            prod = np.minimum(np.maximum(np.outer(dd, dd), 2.0 * var), hh)
            off = ~np.eye(d, dtype=bool)
            w = np.where(off & (prod > 0), 1.0 / np.where(prod > 0, prod, 1.0),
                         np.where(off, 0.0, w))
    else:
        w = np.ones((d, d))
    # the variance of the noise without the mean's linear cross terms m_i δm_j + m_j δm_i,
    # which correlate the entries (public for kind="covariance")
    ind = var - np.outer(m * m, u) - np.outer(u, m * m)
    np.fill_diagonal(ind, np.diagonal(var) - 4.0 * m * m * u)
    su = np.sqrt(u)

    def cross_eigenvalue(mask):
        # the weighted covariance of the cross terms over the entries (i <= j) in ``mask`` is
        # L D_u Lᵀ (rows: entries, weights ω = 2w off the diagonal, w on it); its non-zero
        # eigenvalues are those of U^½ K U^½, K = Σ_rows ω l lᵀ = 2 (diag(W₀ m²) + W₀ ∘ m mᵀ)
        # + diag(4 w_ii m_i²) (W₀: the off-diagonal weights in the mask)
        if d == 0:
            return 0.0
        w0 = np.where(mask, w, 0.0)
        wd = np.diagonal(w0).copy()
        np.fill_diagonal(w0, 0.0)
        K = 2.0 * (np.diag(w0 @ (m * m)) + w0 * np.outer(m, m)) + np.diag(4.0 * wd * m * m)
        return float(np.linalg.eigvalsh(su[:, None] * K * su[None, :])[-1])

    if group_ratio is None:
        groups = None
        mask = np.ones((d, d), dtype=bool)
        if not diagonal:
            np.fill_diagonal(mask, False)
        cross = cross_eigenvalue(mask)
    else:
        groups = variance_groups(w * ind, ratio=group_ratio)
        cross = {int(g): cross_eigenvalue(groups == g) for g in np.unique(groups) if g >= 0}
    res = james_stein_shrink(cov, var, diagonal=diagonal, weights=w, groups=groups,
                             independent_variance=ind, correlated_eigenvalue=cross)
    if reference is not None:
        check_choice(floor_rule, PROJECTED_FLOORS, "floor_rule")
        # groups whose PUBLIC noise (the release's entry variances, no plug-in mean) is at
        # least the largest covariance the box allows (mean of V_ij / (h_i h_j)² >= 1): the
        # release there is noise for any data and the projection cannot have found signal;
        # they keep the raw release's James-Stein factor (docs/postprocessing.md)
        lab = np.asarray(groups) if groups is not None else np.where(np.eye(d, dtype=bool), -1, 0)
        ratio = projected_noise_ratio(G, V, t, h, lab, neighbouring)
        raw_js = ratio >= NOISE_BOUND_RATIO
        # the floor: "constant", floor itself; "pooled" (task CS2), the public ramp times the
        # projected correlation's signal-to-noise pooled over the whole matrix, in its own
        # units (docs/postprocessing.md, "The pooled floor"); "continuous" (task CS), the ramp
        # (0 at the switch) times each group's raw signal-to-noise (0 where the group's
        # release is noise; "The continuous floor")
        signal = {"constant": "none", "pooled": "pooled", "continuous": "group"}[floor_rule]
        proj = projected_stein_shrink(cov, var, reference, weights=w, groups=groups,
                                      independent_variance=ind, correlated_eigenvalue=cross,
                                      floor=floor, floor_signal=signal,
                                      floor_scale=None if floor_rule == "constant"
                                      else continuous_floor(ratio, 1.0))
        factors = np.where(raw_js, res.factors, proj.factors)
        return reference * factors, factors
    return res.matrix, res.factors


def correlation_from_covariance(cov: np.ndarray) -> np.ndarray:
    """Correlation matrix of a (PSD-projected) covariance; a zero variance gives correlation 0."""
    sd = np.sqrt(np.maximum(np.diagonal(cov), 0.0))
    safe = np.where(sd > 0, sd, 1.0)
    corr = cov / np.outer(safe, safe)
    corr[sd == 0, :] = 0.0
    corr[:, sd == 0] = 0.0
    corr = np.clip(corr, -1.0, 1.0)
    np.fill_diagonal(corr, 1.0)
    return corr


class DPCovariance(NoGeneratorStateMixin, BaseEstimator):
    r"""Differentially private covariance, Gram or correlation matrix with public bounds.

    By default (``method="auto"``) a covariance or (since task CR) a correlation under
    replace-one neighbours of an in-memory table is released by ``method="adaptive"`` (below: a
    first moments release at a quarter of the budget, then a DP choice between a second moments
    release and a CoinPress whitened step; for a correlation the choice is ranked by the
    correlation's loss and the moments branch is shrunk as ``shrinkage="projected"``);
    everything else by ``method="moments"``, described here: one (ε, δ)-DP release
    (replace-one neighbours; the number of records is public) of the second
    moments of the records clipped to the public box ``bounds``: for ``"covariance"`` and
    ``"correlation"`` the records are centred at the middle ``c`` of the box and augmented with a
    public constant ``t`` so that the same matrix also carries the mean; the covariance is
    ``M̂ - m̂ m̂ᵀ``. The noise is chosen by ``noise``:

    - ``"auto"`` (default): among i.i.d. Gaussian noise and MVG allocations (task-weighted,
      MSE-optimal, and i.i.d. in units of the public half-widths, i.e. the unit-box recipe), the
      one with the least exact expected loss for ``kind``, computed from the public bounds, ``n`` and the shape only
      (never from the data). Never worse than ``"iid"`` in expected loss; strictly better when the
      public ranges differ.
    - ``"mvg"``: matrix-variate Gaussian noise ``MVG(0, Σ, Σ)`` with the closed-form allocation for
      the task's loss (variance ∝ range for the Frobenius loss), exactly calibrated.
    - ``"iid"``: the analytic Gaussian mechanism at the Frobenius sensitivity of the same query
      (exact where attained, else the certified bound; ``privacy_.exact`` says which).

    For ``kind="correlation"`` the loss is measured in units of the public half-widths, which is the
    same as releasing the problem rescaled to the unit box (correlation is invariant to it): there
    the i.i.d.-in-rescaled-units allocation is what the task-weighted MVG allocation reduces to.

    Parameters
    ----------
    epsilon : float, default 1.0
        > 0.
    delta : float, default 1e-6
        In (0, 1).
    bounds : (lower, upper)
        Public bounds, scalars or one value per feature. Required; never derived from the data.
        Or ``"dp"`` / :class:`~matrixdp.models.dp_bounds.DPBounds`: a share (default 10%) of
        ``epsilon`` estimates them (exponential-mechanism quantiles over a PUBLIC grid, charged as
        its own entry; ``bounds_`` and ``bounds_privacy_`` after fit; see docs/bounds.md).
    kind : {"covariance", "gram", "correlation"}, default "covariance"
        ``"gram"`` is the raw second moment ``XᵀX/n``; ``"covariance"`` divides by ``n`` (as
        :class:`sklearn.covariance.EmpiricalCovariance`).
    noise : {"auto", "mvg", "iid"}, default "auto"
        The noise of ``method="moments"``.
    neighbouring : {"replace-one", "add-remove"}, default "replace-one"
        Replace-one (the number of records ``n`` is public; the release is ``(1/n)ZᵀZ``) or
        add-remove (``n`` is private: the sum ``ZᵀZ`` is released, its corner carries the count, and
        one record's difference ``±zzᵀ`` has the exact sensitivity ``R²``).
    project_psd : bool, default True
        Project the released matrix onto its public feasible set (post-processing, no budget):
        PSD with variances at most the squared public half-widths and Cauchy–Schwarz bounds
        (``"gram"``: PSD with every entry within the box's bounds on ``mean(x_i x_j)``), via
        :mod:`matrixdp.feasible`, in the units of the loss (original units; half-widths for
        ``"correlation"``), where it never increases the Frobenius error (the true matrix lies
        in the set; ``docs/postprocessing.md``).
        ``kind="correlation"`` is always projected (nearest correlation matrix).
    clip : bool, default True
        Clip records to ``bounds`` (no warning: the bounds are public and the guarantee unchanged);
        ``False`` raises :class:`~matrixdp.errors.OutOfBoundsError` for data outside them.
    random_state : None, int or numpy.random.Generator
        ``None``: a fresh cryptographically secure generator (use it for real releases). An int
        makes the fit reproducible, and replayable by whoever knows the seed. Passed as ``rng=`` to
        the mechanisms. A Generator is dropped from pickles and copies of the fitted model (its
        state after the fit would replay the noise).
        Under ``sklearn.base.clone`` (``cross_val_score``, ``GridSearchCV``) an int seed gives
        every clone the same noise, so the difference of two folds' outputs is noise-free:
        use ``None`` there; a Generator gives each clone its own spawned stream.
    accountant : Accountant, Ledger or object with ``spend(guarantee, label=...)``, optional
        Charged the fit's whole guarantee before any noise is drawn (a refusal stops the fit).
        ``None``: the accountants of enclosing ``with Accountant(...):`` blocks, if any.
        Every ``fit`` is a new release, charged again: ``cross_val_score`` with k folds spends
        k × (ε, δ); ``GridSearchCV`` one per fold and candidate, plus the refit. With no keeper
        (none given, no ``with`` block) nothing is recorded (``docs/security.md``, "Budget
        keepers are handles").
    method : {"auto", "moments", "coinpress", "adaptive"}, default "auto"
        ``"auto"`` (default): resolved from public facts only by
        :func:`~matrixdp.models.covariance.auto_method` (``method_`` says which): ``"adaptive"``
        for ``kind="covariance"`` with replace-one neighbours, an in-memory ``X``,
        ``noise="auto"`` and ``shrinkage`` ``"auto"`` or ``"none"``, and for
        ``kind="correlation"`` with replace-one neighbours, an in-memory ``X``, ``noise="auto"``
        and ``shrinkage="auto"`` (task CR: a pre-registered check on three never-seen tables
        passed, ``results/correlation_adaptive_check.md``: median ratio to the moments
        release 0.981 over 15 cells, none above 1.008×; ``docs/coinpress.md`` § Adaptive
        (correlation)); ``"moments"`` otherwise (``kind="gram"``, add-remove, Dask input, an
        explicit ``noise`` or shrinkage). Default since a pre-registered check on six never-seen tables passed
        at its second attempt (``docs/coinpress.md``, "Measured (round 3e): the second check";
        ``results/adaptive_default_check2.md``, 400 trials per cell: median adaptive / moments
        0.9906 over the 30 cells, none above 1.2×; the first attempt,
        ``results/adaptive_default_check.md``, failed at 1.0052 with 100 trials). Pass
        ``method="moments"`` for the release of earlier versions (and for its public
        ``entry_variance_``, ``expected_loss_`` and ``moments_``, which adaptive does not have).
        ``"moments"``: one release of the second moments with the noise of ``noise``.
        ``"coinpress"``: the iterative estimator of Biswas et al. (2020) adapted to the public
        box (:func:`~matrixdp.models.coinpress.coinpress_covariance`, ``docs/coinpress.md``):
        ``coinpress_steps`` releases composed exactly (GDP) to the same (ε, δ); the first is the
        one-shot release at a quarter of the budget, the next ones whiten the records by the
        released estimate and clip them to the radius of ``coinpress_beta``. Replace-one,
        in-memory ``X``, not ``kind="gram"``. Its benefit depends on the data (how much smaller
        the records' spread is than the box), so ``noise="auto"`` cannot score it from public
        facts and never picks it; measured (``results/utility_covariance.md``) it wins at large
        ``ε n`` and loses at small.
        ``"adaptive"``: :func:`~matrixdp.models.adaptive.adaptive_covariance`
        (``docs/coinpress.md``, section "Adaptive"): the one-shot release at a quarter of the
        budget; from it, both candidates' expected errors; if they do not already decide, a
        private histogram of record counts by how much a CoinPress whitening step would clip
        them (3% of the budget, sensitivity ``√2`` whatever the box); and the rest on whichever
        of a second moments release (averaged with the first; nothing is lost under exact GDP
        composition) or a CoinPress whitened step has the smaller predicted error (where the
        counts are released, the smaller predicted median since task CV: ``adaptive_ranking``). The choice is
        post-processing of DP releases, so the data-adaptive choice is itself DP and charged.
        Replace-one, in-memory ``X``, not ``kind="gram"``. The counts are read with every bin
        capped at a level set by their noise, and the whitened step is chosen on an upper
        confidence value of the reading (``docs/coinpress.md``, "Reading"). Measured side by
        side against ``"moments"`` (``noise="auto"``), ``"coinpress"`` and i.i.d. noise on the
        unit box: on the 35 benchmark cells (``results/adaptive_covariance.md``, 50 trials)
        within 1.2× of the better of moments and coinpress in 34 (moments: 28); on twelve
        never-seen tables (``results/adaptive_default_check.md``,
        ``results/adaptive_default_check2.md``) within 1.2× of the best in 29 of 30 and 28 of
        30 cells (moments: 25 and 21), never above 1.2× moments, but up to 1.16× moments (bladder
        ε = 2) and, where the chooser keeps the moments branch and CoinPress wins, up to 3.7×
        the best (movies ε = 1, where moments is 3.7× too).
        With ``kind="correlation"`` (opt-in, task CR; ``docs/coinpress.md`` § Adaptive
        (correlation)): the first look is allocated for the correlation, the branches are ranked
        by the implied correlation's first-order loss (a whitened step's noise is
        multiplicative, so normalising removes most of it where the correlations are strong),
        and the moments branch gets the default's ``shrinkage="projected"``. Measured against
        the correlation default on 70 seen cells (``results/correlation_adaptive_dev.md``, 100
        trials): median ratio 0.995, 0.45–0.78× on movement_aal at ε ≤ 2 and 0.27–0.82× on
        fair at ε ≥ 0.5, but up to 1.96× (lending_club ε = 0.5) where the whitened step is
        taken and loses: it failed its dev gate. The second candidate, the default since
        task CR, considers the whitened step only where the first look resolves every variance
        (``CORRELATION_RESOLVE_Z`` = 3 noise sds): dev gate passed
        (``results/correlation_adaptive_dev2.md``: median 0.996, max 1.071 over the 70 cells,
        0.27–0.78× on movement_aal, fair, synthetic at ε ≥ 1), then the pre-registered check
        (``results/correlation_adaptive_check.md``: msq, economics, winter; median 0.981, max
        1.008, within 1.2× of the best row in 15 of 15 cells against the moments release's 14).
    coinpress_steps : int, default 2
        Number of releases of ``method="coinpress"``.
    shrinkage : {"auto", "none", "off-diagonal", "whole", "projected"}, default "auto"
        Positive-part James–Stein shrinkage of the release (post-processing: the guarantee is
        unchanged), with weights from the mechanism's public noise variances and the release
        (``docs/postprocessing.md``, "Shrinkage"). ``"auto"`` (default): ``"projected"`` for
        ``kind="correlation"`` with ``method="moments"`` and replace-one neighbours, and with
        ``method="adaptive"`` where its moments branch is chosen (the averaged release's entry
        variances are known there; ``"none"`` on its whitened step), ``"none"`` otherwise
        (covariance, Gram, CoinPress, adaptive covariance, add-remove: unchanged);
        ``shrinkage_`` says which was used. ``"off-diagonal"``: a covariance's
        off-diagonal entries towards 0 (towards its diagonal), before the projection; a
        correlation's towards the identity, by groups of equal noise, applied to the final
        correlation. ``"whole"`` (covariance only): the whole matrix towards 0, never worse than
        releasing the zero matrix by more than four times the largest entry noise variance (in
        expectation, for the Gaussian part of the noise). ``method="moments"`` only; not
        ``kind="gram"``. Measured side by side (``results/covariance_shrinkage.md``): up to
        4× lower error where the noise dominates, but up to 3.7% higher in a few cells of the
        tables it was tuned on (``"whole"``: 1 of 20; correlation: 2 of 20; covariance
        ``"off-diagonal"``: none, but no gain where one entry's noise dominates) and 2.1% higher
        in one held-out cell (covariance ``"off-diagonal"``, diabetes ε = 5), hence not the
        default. ``"projected"`` (correlation only): the same groups, each factor set for the
        projected correlation itself (the raw release's signal energy over the group's energy
        in it, clipped to [f, 1] with the floor f = 1/2 scaled since task CS2 by the projected
        correlation's pooled signal-to-noise and a public ramp, ``CovarianceOptions(
        projected_floor="pooled")``, ``docs/postprocessing.md`` "The pooled floor"; with
        ``projected_floor="constant"``, f = 1/2: never more than half-way from the release's
        loss to the identity's; :func:`~matrixdp.feasible.projected_stein_shrink`), the raw
        factor in groups whose public noise exceeds the box's largest covariance. Measured against
        ``"none"`` on the same releases (``results/correlation_default_check.md``, 100 trials
        per cell, 14 tables × 5 ε, three of them never seen before the run): ratio of median
        errors 0.51–1.015 (median 0.89), strictly below ``"none"`` in all 42 cells where its
        error is ≥ 0.5; above it in 9 of the 70 cells, by at most 1.5% (adult ε = 1,
        randhie ε = 0.5, errors ≤ 0.09), and by 0.6% on iris ε = 5 (error 0.48).
        The rule fixed in advance for a default
        passed under replace-one, hence the default there; under add-remove it failed on one
        cell (iris ε = 2, 1.014× at an error of 0.59;
        ``results/correlation_default_check_add_remove.md``), hence not the default there.
    experimental : CovarianceOptions, optional
        The research knobs, in one frozen object (:class:`~matrixdp.models.CovarianceOptions`:
        ``coinpress_beta``, ``adaptive_ranking``, ``correlation_rule``, ``adaptive_refine``;
        ``docs/experimental.md``). ``None``: the shipped fit (every knob at its default). The
        earlier releases (``adaptive_ranking="mean"``, ``correlation_rule="guard"``) and opt-in
        candidates of issue #24 kept so that the committed experiments stay reproducible.

    Deprecated parameters
        ``coinpress_beta``, ``adaptive_ranking``, ``correlation_rule``, ``adaptive_refine``: the
        fields of ``experimental``, keywords until 0.1. Passing one still fits the same (it is
        mapped into a ``CovarianceOptions``) but emits a :class:`FutureWarning`; they are
        removed in 0.4. Passing one together with ``experimental`` raises.

    Attributes
    ----------
    covariance_ : ndarray (n_features, n_features)
        The released matrix of ``kind``.
    location_ : ndarray (n_features,)
        DP mean (``None`` for ``kind="gram"``), clipped to the public box (the mean of the
        clipped records lies in it; ``lower`` for a public constant feature, ``lower == upper``).
    privacy_ : PrivacyGuarantee
        The guarantee of the whole fit.
    method_ : str
        The method the fit used: ``"moments"``, ``"coinpress"`` or ``"adaptive"`` (``"auto"``
        resolved from public facts by :func:`~matrixdp.models.covariance.auto_method`).
    noise_ : str
        ``"iid"`` or ``"mvg"`` (what was used), ``"coinpress"`` or ``"adaptive"`` for those
        methods (whose ``noise_summary_``, ``expected_loss_`` and ``entry_variance_`` are None).
    adaptive_choice_ : str
        ``method="adaptive"`` only: ``"moments"`` or ``"coinpress"``, what the last release was
        (a DP output: it depends on the data through the first two releases).
    adaptive_predicted_ : dict
        ``method="adaptive"`` only: the expected squared errors the choice compared
        (``"moments"``, ``"coinpress"``), the clipping-loss reading ``"clipping_loss"``, the
        noise sd of the statistic ``"clipping_loss_sd"`` (public) and which statistic was
        released (``"statistic"``: ``"counts"``, or ``"none"`` when the first release decided);
        with ``adaptive_ranking="median"`` (the covariance default) also the predicted medians
        ``"moments_median"``, ``"coinpress_median"``, the median threshold and the counts' reading
        at it (NaN when no counts were released; ``adaptive_covariance``'s ``loss_statistic``).
        All DP.
    noise_summary_ : NoiseSummary
        The mechanism's description of the raw noise (data-independent).
    expected_loss_ : float
        Exact expected loss of the released second moments for ``kind`` (public).
    noise_candidates_ : dict
        Expected loss of each allocation ``"auto"`` considered (public).
    allocation_ : str
        ``"iid"``, ``"task-weighted"``, ``"mse-optimal"`` or ``"unit-box"`` (``"coinpress"`` for
        that method).
    entry_variance_ : ndarray (k, k)
        Exact variance of each entry of the released (symmetrised) second-moment matrix of the
        records ``(x - c, t)`` (``(x)`` for ``"gram"``); public, data-independent.
    shrinkage_ : str
        The shrinkage the fit used (``"auto"`` resolved: ``"projected"`` or ``"none"``).
    shrinkage_factors_ : ndarray (n_features, n_features) or None
        The factor each entry was multiplied by (a shrinkage other than ``"none"``); a function
        of the release (DP), not of the records.
    moments_ : ndarray (k, k)
        The released (DP) second-moment matrix of those records (sums under add-remove); every
        other fitted matrix is post-processing of it.
    n_features_in_, feature_names_in_

    References
    ----------
    .. [1] T. Chanyaswad, A. Dytso, H. V. Poor and P. Mittal, "A Differential Privacy Mechanism
       Design Under Matrix-Valued Query", arXiv:1802.10077.
    .. [2] matrixdp, ``docs/when_mvg_wins.md`` and ``docs/mvg.md`` (the exact calibration).
    .. [3] S. Biswas, Y. Dong, G. Kamath and J. Ullman, "CoinPress: Practical Private Mean and
       Covariance Estimation", NeurIPS 2020.
    .. [4] W. James and C. Stein, "Estimation with quadratic loss", Proc. Fourth Berkeley Symp.
       Math. Statist. Prob. 1, 1961.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(0, [1, 10, 1000], size=(5000, 3))
    >>> est = DPCovariance(epsilon=1.0, bounds=(0, [1, 10, 1000]), random_state=0).fit(X)
    >>> est.covariance_.shape, est.method_
    ((3, 3), 'adaptive')
    >>> DPCovariance(epsilon=1.0, bounds=(0, [1, 10, 1000]), method="moments",
    ...              random_state=0).fit(X).noise_
    'mvg'
    >>> DPCovariance(epsilon=1.0, bounds=(0, [1, 10, 1000]), kind="correlation",
    ...              random_state=0).fit(X).method_
    'adaptive'
    """

    def __init__(self, *, epsilon=1.0, delta=1e-6, bounds=None, kind="covariance", noise="auto",
                 neighbouring="replace-one", project_psd=True, clip=True, random_state=None,
                 accountant=None, method="auto", coinpress_steps=2, shrinkage="auto",
                 experimental=None, coinpress_beta=DEPRECATED, adaptive_ranking=DEPRECATED,
                 correlation_rule=DEPRECATED, adaptive_refine=DEPRECATED):
        self.experimental = experimental
        self.correlation_rule = correlation_rule
        self.adaptive_refine = adaptive_refine
        self.adaptive_ranking = adaptive_ranking
        self.shrinkage = shrinkage
        self.method = method
        self.coinpress_steps = coinpress_steps
        self.coinpress_beta = coinpress_beta
        self.neighbouring = neighbouring
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.kind = kind
        self.noise = noise
        self.project_psd = project_psd
        self.clip = clip
        self.random_state = random_state
        self.accountant = accountant

    def fit(self, X, y=None):
        """Release the matrix of ``kind`` for ``X`` (``y`` is ignored)."""
        eps, delta, noise = check_privacy_params(self)
        opts = resolve_experimental(self, CovarianceOptions)  # the research knobs, validated
        check_choice(self.kind, KINDS, "kind")
        method = self.method
        if method == "auto":
            method = auto_method(self.kind, check_relation(self.neighbouring), X,
                                 noise=noise, shrinkage=self.shrinkage)
        method = check_method(self, self.kind, method)
        shrink = check_shrinkage(self, self.kind, method)
        # the moments path clips in row chunks where it sums (no full clipped copy)
        X, lo, hi, eps = fit_bounds(self, X, eps, clip_now=method != "moments")
        if method == "coinpress":
            cov, loc = fit_coinpress(self, X, lo, hi, epsilon=eps, delta=delta,
                                     label="DPCovariance.fit", beta=opts.coinpress_beta)
        elif method == "adaptive" and self.kind == "correlation":
            # task CR: the branches ranked by the implied correlation's loss, the first look
            # allocated for it (docs/coinpress.md § Adaptive (correlation))
            # correlation_rule="margin" (task CG): the step ranked by its noise term alone and
            # an unresolved first look inflating its prediction instead of blocking it
            rule = ({} if opts.correlation_rule == "guard" else
                    {"unresolved_margin": UNRESOLVED_MARGIN,
                     "correlation_bias": CORRELATION_BIAS})
            cov, loc, res = fit_adaptive(self, X, lo, hi, epsilon=eps, delta=delta,
                                         label="DPCovariance.fit", kind="pca", result=True,
                                         beta=opts.coinpress_beta,
                                         first_kind="pca", ranking="correlation",
                                         reading="capped", resolve_z=CORRELATION_RESOLVE_Z,
                                         refine=opts.adaptive_refine, **rule,
                                         **_triangle_options(opts.adaptive_correlation_triangle))
            chosen = adaptive_moments_release(res, lo, hi, X.shape[0])
            del res
            if chosen is None:
                if shrink == "projected":
                    shrink = "none"
            else:
                G_ad, V_ad, center, t = chosen
                rel = SimpleNamespace(value=G_ad, entry_variance=V_ad)
        elif method == "adaptive":
            cov, loc = fit_adaptive(self, X, lo, hi, epsilon=eps, delta=delta,
                                    label="DPCovariance.fit", kind="covariance",
                                    beta=opts.coinpress_beta,
                                    loss_statistic=opts.adaptive_ranking,
                                    refine=opts.adaptive_refine,
                                    **_triangle_options(opts.adaptive_moments_triangle,
                                                        opts.adaptive_triangle_prediction))
        else:
            rel, center, t = fit_second_moments(self, X, lo, hi, self.kind, epsilon=eps,
                                                delta=delta, noise=noise, label="DPCovariance.fit")
            cov, loc = covariance_from_release(rel.value, center, t, self.kind, self.neighbouring)
            keep_release(self, rel)
        self.shrinkage_ = shrink
        self.shrinkage_factors_ = None
        if shrink not in ("none", "projected"):
            shrunk, self.shrinkage_factors_ = shrink_covariance(
                cov, rel.value, rel.entry_variance, center, t, lo, hi, self.kind,
                check_relation(self.neighbouring), diagonal=shrink == "whole",
                group_ratio=CORRELATION_GROUP_RATIO if self.kind == "correlation" else None)
            if self.kind == "covariance":  # a correlation applies the factors at the end
                cov = shrunk
        raw = cov
        if self.project_psd or self.kind == "correlation":
            cov = project_feasible(cov, lo, hi, self.kind,
                                   units="unit-box" if self.kind == "correlation" else "original")
        if self.kind == "correlation":
            cov = nearest_correlation(correlation_from_covariance(cov))
            if shrink not in ("none", "projected"):
                # the factors computed from the raw release, applied to the correlation (its
                # diagonal factor is 1); projected again onto the correlation matrices (by
                # groups the Hadamard product need not stay PSD)
                cov = nearest_correlation(cov * self.shrinkage_factors_)
            if shrink == "projected":
                # factors for the projected correlation itself (signal energy from the raw
                # release over the group's energy in it), at least PROJECTED_FLOOR times the
                # floor rule's scale (CovarianceOptions.projected_floor)
                shrunk, self.shrinkage_factors_ = shrink_covariance(
                    raw, rel.value, rel.entry_variance, center, t, lo, hi, self.kind,
                    check_relation(self.neighbouring), group_ratio=CORRELATION_GROUP_RATIO,
                    reference=cov, floor=PROJECTED_FLOOR, floor_rule=opts.projected_floor,
                    weight_floor=("off-diagonal" if opts.triangle_floor
                                  and opts.adaptive_correlation_triangle
                                  and method == "adaptive" else "diagonal"))
                cov = nearest_correlation(shrunk)
        self.covariance_ = cov
        # the mean of records clipped to the box lies in the box: the adaptive and CoinPress
        # paths clip their location to it, the moments path (method="moments", add-remove) now
        # too (post-processing with the public bounds; a public constant, lower == upper, gets
        # its only possible value)
        self.location_ = None if loc is None else np.clip(loc, lo, hi)
        self.method_ = method
        finish_bounds(self)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        return tags
