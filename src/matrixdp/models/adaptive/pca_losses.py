"""The PCA-loss ranking's predicted deficits of captured variance: the pair deficit and its
variants (diagonal noise, one unit vector per top direction), the resolution guard and the
clipping-bias models (pure formulas; ``docs/coinpress.md`` § Adaptive (PCA)).
"""

from __future__ import annotations

import math

import numpy as np

from .counts import BIN_RATIO
from .frame import RESOLVE_Z

__all__ = ["pca_deficit", "DIAGONAL_NODES", "pca_deficit_diagonal", "pca_deficit_normalised",
           "GUARD_ARGMAX", "resolution_guard_loss", "pca_bias_model", "pca_bias_one_record"]

def pca_deficit(g, s):
    r"""Expected loss of captured variance of one pair of eigen-directions with gap ``g`` under
    an off-diagonal perturbation of variance ``s``: ``(g/2)(1 − g/√(g² + 4s))`` (the rotation
    of a 2 × 2 block, plug-in; ``s/g`` for small noise, ``g/2`` for large), computed as
    ``2gs/(R(R + g))``, ``R = √(g² + 4s)``. Also returns the derivative in ``s``,
    ``g²/R³`` (the function is concave in ``s``). Elementwise."""
    R = np.sqrt(g * g + 4.0 * s)
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(R > 0, 2.0 * g * s / np.maximum(R * (R + g), 1e-300), 0.0)
        df = np.where(R > 0, g * g / np.maximum(R ** 3, 1e-300), 0.0)
    return f, df


#: Quantile points of the expectation over the diagonal noise (:func:`pca_deficit_diagonal`).
DIAGONAL_NODES = 1024


def pca_deficit_diagonal(g, s, v, nodes: int = DIAGONAL_NODES):
    r"""Expected loss of captured variance of one pair of eigen-directions with gap ``g`` under
    an off-diagonal perturbation of variance ``s`` AND a perturbation of the two variances whose
    difference ``δ = e_i − e_j`` has variance ``v`` (round 3f, ``docs/coinpress.md`` § Adaptive
    (PCA), "The diagonal noise").

    The released 2 × 2 block is ``[[λ_i + e_i, e], [e, λ_j + e_j]]``; its top eigenvector makes
    the angle ``θ`` with ``u_i``, ``cos 2θ = (g + δ)/√((g + δ)² + 4e²)``, and the captured
    variance falls by ``g sin²θ = (g/2)(1 − (g + δ)/√((g + δ)² + 4e²))``. With ``e² ← s``
    (plug-in, as :func:`pca_deficit`) and ``δ ~ N(0, v)`` the expectation over ``δ`` is the
    mean over ``nodes`` equally spaced quantiles of ``δ`` (midpoint rule in probability: the
    integrand is bounded by ``g`` and, for small ``s``, a step at ``δ = −g``, which Gauss–Hermite
    nodes resolve badly; the rule's error is at most ``g/nodes`` there). ``v = 0`` gives
    :func:`pca_deficit`; when ``√v`` exceeds ``g`` the two released variances swap with
    probability ``Φ(−g/√v)`` and the pair loses up to ``g`` (``u_i`` leaves the released top).
    Elementwise (broadcast ``g, s, v``); vectorised over the quantiles.
    """
    from scipy.special import ndtri

    x = ndtri((np.arange(int(nodes)) + 0.5) / int(nodes))
    g = np.asarray(g, dtype=np.float64)[..., None]
    s = np.asarray(s, dtype=np.float64)[..., None]
    sd = np.sqrt(np.maximum(np.asarray(v, dtype=np.float64), 0.0))[..., None]
    a = g + sd * x
    R = np.sqrt(a * a + 4.0 * s)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(R > 0, a / np.maximum(R, 1e-300), 1.0)
    return np.mean(0.5 * g * (1.0 - ratio), axis=-1)


def pca_deficit_normalised(g, f):
    r"""The pair losses ``f`` of each top direction combined as ONE unit vector (task PN,
    ``noise_pairs="normalised"``; post-processing of the ranking's public pair values;
    ``docs/coinpress.md`` § Adaptive (PCA), "The pairs of one direction (task PN)").

    The pair model (:func:`pca_deficit`) rotates ``u_i`` towards each ``u_j`` (``j > q``)
    separately: the 2 × 2 block of pair ``(i, j)`` tilts the released top vector by ``θ_ij``, and
    the pair sum charges ``g_ij sin²θ_ij`` for every ``j``, although the released vector's
    squared components outside the top sum to at most 1. With many pairs of large noise (every
    ``sin²θ ≈ 1/2``) the sum charges ``(k − q)/2`` of a vector that has only 1 to give. Here each
    pair's expected tilt ``p_ij = f_ij/g_ij`` (``sin²θ``) is read as the component ratio
    ``t_ij = tan²θ_ij = p_ij/(1 − p_ij)`` of the released vector ``u_i + Σ_j tanθ_ij u_j``
    (to first order the same vector), which normalised puts the share
    ``t_ij/(1 + Σ_l t_il)`` on ``u_j``; the loss is ``Σ_i Σ_j g_ij t_ij/(1 + Σ_l t_il)``. For
    small noise (``Σ t ≪ 1``) it is the pair sum; with ``k − q`` pairs of isotropic large noise
    (``t = 1``) each ``u_j`` gets ``1/(k − q + 1)``, the share of a uniformly random direction.

    Parameters
    ----------
    g : ndarray (q, k − q)
        The pair gaps (0 for the pairs that do not count).
    f : ndarray (q, k − q)
        The pair losses (:func:`pca_deficit` or :func:`pca_deficit_diagonal`), ``0 <= f <= g``.

    Returns
    -------
    float

    References
    ----------
    .. [1] matrixdp, ``docs/coinpress.md`` (§ Adaptive (PCA), "The pairs of one direction
       (task PN)").
    """
    g = np.asarray(g, dtype=np.float64)
    f = np.asarray(f, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(g > 0, np.clip(f / np.where(g > 0, g, 1.0), 0.0, 1.0 - 1e-12), 0.0)
    t = p / (1.0 - p)
    share = t / (1.0 + t.sum(axis=-1, keepdims=True))
    return float(np.sum(g * share))


#: ``x·Φ(−x)`` is largest at this ``x`` (``Φ(−x) = x φ(x)``; :func:`resolution_guard_loss`).
GUARD_ARGMAX = 0.7517915247


def resolution_guard_loss(lam, sd_first, sd_step, z: float = RESOLVE_Z):
    r"""The resolution guard (round 3f): the worst expected loss of a top direction whose
    released variance the whitened step's noise can push below 0 (post-processing of public
    values; ``docs/coinpress.md`` § Adaptive (PCA), "The resolution guard").

    The whitened step's estimate is projected onto the PSD cone in the original units before
    the caller's projection; a top direction ``u_i`` whose released variance ``λ_i + e_i`` is
    negative is removed, losing ``λ_i``. With ``e_i ~ N(0, s_i²)`` (``s_i = σ·uᵢᵀSuᵢ``, the
    step's noise sd on that variance) the expected loss is ``λ_i Φ(−λ_i/s_i)``. ``λ_i`` is known
    only to the first look's resolution: it lies (``z`` noise sds) in
    ``[max(λ̂_i − z·sd_i, 0), max(λ̂_i + z·sd_i, 0)]``; the guard takes the largest loss over that
    interval. ``x Φ(−x/s)`` rises on ``[0, 0.752 s]`` and falls after it, so the maximiser is
    ``0.752 s`` clipped to the interval: a direction the first look resolves well above the
    step's noise costs ``≈ 0``; one it does not resolve costs up to ``≈ 0.17 s_i``, whatever its
    (unknown) variance. Elementwise; returns the losses.
    """
    from scipy.special import ndtr

    lam = np.asarray(lam, dtype=np.float64)
    sd_first = np.asarray(sd_first, dtype=np.float64)
    s = np.asarray(sd_step, dtype=np.float64)
    lo = np.maximum(lam - z * sd_first, 0.0)
    hi = np.maximum(lam + z * sd_first, 0.0)
    x = np.clip(GUARD_ARGMAX * s, lo, hi)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s > 0, x * ndtr(-x / np.maximum(s, 1e-300)), 0.0)


def pca_bias_model(b, S, U, q, gaps, s_cp, weights=None, ratio: float = BIN_RATIO):
    r"""The expected increase of the whitened step's captured-variance deficit from its clipping
    bias, under a one-direction model drawn from the first release (post-processing of released
    values only; ``docs/coinpress.md`` § Adaptive (PCA), "The clipping bias, modelled").

    The step clips the whitened records ``y = A a`` (``a = x − c − m̂``, ``A = S^{-1/2}``); the
    bias of the second moments is ``−P``, ``P = (1/n) Σ_i (1 − f_i²) a_i a_iᵀ`` (PSD), of trace
    ``b = (1/n) Σ_i g_i`` in the units ``D`` (what the counts measure). The counts give ``b``,
    not the direction. The triangle-inequality bound is attained by a rank-one ``P`` (the clipped
    records along one direction, e.g. one heavy-tailed feature); the bound then puts that
    direction where it hurts most. The model keeps the rank one and draws the direction from the
    first release's Gaussian model of the records, ``a ∝ S^{1/2} z``, ``z ~ N(0, I)``:
    ``P = b_mid · S^{1/2}zzᵀS^{1/2} / tr(DSD)`` (``E tr(DPD) = b_mid``), with
    ``b_mid = b/√ratio`` (each record at its bin's geometric middle instead of its upper edge).
    In the frame ``U`` (``S̃ = UᵀSU``), by Isserlis' theorem
    ``E P̃_ij² = b_mid² (S̃_ii S̃_jj + 2 S̃_ij²) / tr(DSD)²``, and the prediction is
    ``Σ_{i<=q<j} f(g_ij, s_ij + E P̃_ij²) − f(g_ij, s_ij)`` (:func:`pca_deficit`; ``f`` is
    concave in ``s``, so by Jensen this is at least the model's expected increase). The diagonal
    of ``P`` (a shrinkage of the eigenvalues, which may reorder them) is left out.
    ``gaps`` and ``s_cp`` are the (q, k − q) pair gaps and the step's noise variances.
    """
    if not (b > 0):
        return 0.0
    k = S.shape[0]
    w = np.ones(k) if weights is None else np.asarray(weights, dtype=np.float64)
    tr = float(np.sum(w * w * np.diagonal(S)))
    if not (tr > 0):
        return 0.0
    St = U.T @ S @ U
    dS = np.diagonal(St)
    extra = (b / math.sqrt(ratio) / tr) ** 2 * (dS[:q, None] * dS[None, q:]
                                                  + 2.0 * St[:q, q:] ** 2)
    f0, _ = pca_deficit(gaps, s_cp)
    f1, _ = pca_deficit(gaps, s_cp + extra)
    return float(np.sum(f1 - f0))


def pca_bias_one_record(b, C, S, U, q, gaps, s_cp, n, weights=None,
                        ratio: float = BIN_RATIO):
    r"""The expected increase of the whitened step's captured-variance deficit from the clipping
    bias of ONE clipped record far along an eigen-direction of the records' model (task PB,
    ``bias="one-record"``; post-processing of released values and public inputs;
    ``docs/coinpress.md`` § Adaptive (PCA), "One clipped record (task PB)").

    The record is ``a = t·u_l + w``: a far part along the frame direction ``u_l`` and a typical
    part ``w`` (mean 0, covariance ``C``, the first look's projected covariance: the records'
    model). Its bias is ``P = c·aaᵀ`` (``c = (1 − f²)/n <= 1/n``) with ``tr(DPD) = b_mid``
    (``b_mid = b/√ratio``, the bins' geometric middle, as :func:`pca_bias_model`), so
    ``P_ll ≈ ρ_l = b_mid/‖Du_l‖²`` and the couplings are the cross terms
    ``P_lj ≈ c·t·w_j``: ``E P_lj² = c·ρ_l·C̃_jj <= ρ_l C̃_jj / n`` (``C̃ = UᵀCU``); the pairs
    without ``l`` couple only through ``c²w_iw_j`` (left out, ``O(1/n²)``). The rank-one
    Gaussian direction of :func:`pca_bias_model` instead scales the WHOLE record, coupling
    ``u_i`` and ``u_j`` by ``ρ²·C̃_iiC̃_jj/tr²``: ``n·b_mid/tr(C)`` times more where the record's
    far part is along ``u_i``.

    A direction can hold the record's far part only if its variance is at least the record's
    share of it, ``S̃_ll >= ρ_l`` (``S̃ = UᵀSU``, the whitening: the first look's upper confidence
    value of the records' variances, so a direction the first look does not resolve can hold
    it). Over the directions that can, ``l`` is drawn with probability ``p_l ∝ C̃_ll`` (the
    records' model's share of the variance), so
    ``E P̃_ij² = (p_i ρ_i C̃_jj + p_j ρ_j C̃_ii)/n`` for ``i <= q < j``, and the prediction is
    ``Σ f(g_ij, s_ij + E P̃_ij²) − f(g_ij, s_ij)`` (:func:`pca_deficit`). Returns ``None`` when
    no direction can hold it (the caller then uses :func:`pca_bias_model` with ``C``).
    """
    if not (b > 0):
        return 0.0
    k = C.shape[0]
    w = np.ones(k) if weights is None else np.asarray(weights, dtype=np.float64)
    Ct = U.T @ C @ U
    dC = np.maximum(np.diagonal(Ct), 0.0)
    dS = np.diagonal(U.T @ S @ U)
    norm = np.sum((w[:, None] * U) ** 2, axis=0)  # ‖D u_l‖²
    rho = (b / math.sqrt(ratio)) / np.maximum(norm, 1e-300)
    hold = dS >= rho
    if not hold.any():
        return None
    share = np.where(hold, dC, 0.0)
    p = share / share.sum() if share.sum() > 0 else hold / hold.sum()
    pr = p * rho
    extra = (pr[:q, None] * dC[None, q:] + pr[None, q:] * dC[:q, None]) / float(n)
    f0, _ = pca_deficit(gaps, s_cp)
    f1, _ = pca_deficit(gaps, s_cp + extra)
    return float(np.sum(f1 - f0))
