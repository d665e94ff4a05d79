"""The Frobenius and correlation rankings' predicted losses of the two branches, their variances
and predicted medians (pure formulas of released values and public inputs; ``docs/coinpress.md``
§ Adaptive and § Adaptive (correlation)).
"""

from __future__ import annotations

import math

import numpy as np

from ...feasible import project_covariance
from ...calibration.gaussian import gaussian_epsilon
from .._moments import combined_variance, dominating_triangle_of
from ..coinpress import whitened_noise_sd
from .counts import read_counts

__all__ = ["coinpress_noise_loss", "correlation_scale", "correlation_moments_loss",
           "correlation_coinpress_loss", "moments_loss", "satterthwaite_median",
           "moments_loss_variance", "coinpress_noise_variance", "median_threshold",
           "median_choice", "triangle_moments_prediction"]

def coinpress_noise_loss(S, weights, sigma):
    r"""Expected squared Frobenius norm of ``D S^{1/2} N S^{1/2} D`` for the symmetrised i.i.d.
    noise ``N`` of a whitened step (variance ``σ²`` on the diagonal, ``σ²/2`` off it) and the
    loss weights ``D = diag(weights)``: ``(σ²/2)(tr(M)² + tr(M²))`` with ``M = D S D``."""
    M = weights[:, None] * S * weights[None, :]
    return 0.5 * sigma * sigma * (float(np.trace(M)) ** 2 + float(np.sum(M * M)))


def correlation_scale(C, Q, h):
    r"""The first look's standard deviations ``ŝ`` for ``ranking="correlation"`` (public:
    post-processing): ``ŝ_i² = min(max(Π(C)_ii, Q_ii), h_i²)``, the projected released
    variance at least its noise sd ``Q_ii`` (:func:`~matrixdp.models.coinpress.first_noise_scale`)
    and at most the box's largest variance; and the first look's correlation ``R̂ = Π(C)/(ŝ ŝᵀ)``
    clipped to [-1, 1] (``docs/coinpress.md`` § Adaptive (correlation)). Also returns the projected
    variances ``Π(C)_ii`` themselves (what ``resolve_z`` compares with their noise sds)."""
    Cp = project_covariance(C, variance_max=h * h)
    var_p = np.diagonal(Cp)
    s2 = np.minimum(np.maximum(var_p, np.diagonal(Q)), h * h)
    s = np.sqrt(np.maximum(s2, 1e-300))
    R = np.clip(Cp / np.outer(s, s), -1.0, 1.0)
    np.fill_diagonal(R, 1.0)
    return s, R, var_p


def correlation_moments_loss(V, m, t, v_first, s, R) -> float:
    r"""First-order expected squared Frobenius error of the correlation read from a moments
    release (entry variances ``V`` of the augmented ``G``, independent entries), with the
    plug-in scales ``s`` and correlation ``R`` of the first look.

    ``δR_ij = δC_ij/(s_i s_j) − (R_ij/2)(δC_ii/s_i² + δC_jj/s_j²)``; with the entries of ``δC``
    taken as independent (variances of :func:`~matrixdp.models.covariance.covariance_noise`: ``V_ij
    + m_i² u_j + m_j² u_i + u_i u_j`` off the diagonal, ``V_ii + 4 m_i² u_i + 2 u_i²`` on it,
    ``m²`` debiased by the first release's ``v_first``) the sum over ``i ≠ j`` of
    ``var_ij/(s_i s_j)² + (R_ij²/4)(var_ii/s_i⁴ + var_jj/s_j⁴)`` (``docs/coinpress.md``
    § Adaptive (correlation)). The mean's terms make some entries correlated; that covariance
    is left out."""
    k = m.size
    u = V[:k, k] / (t * t)
    m2 = np.maximum(m * m - v_first, 0.0)
    var = V[:k, :k] + np.outer(m2, u) + np.outer(u, m2) + np.outer(u, u)
    dvar = np.diagonal(V)[:k] + 4.0 * m2 * u + 2.0 * u * u
    s2 = s * s
    a = dvar / (s2 * s2)
    tot = var / np.outer(s2, s2) + 0.25 * R * R * (a[:, None] + a[None, :])
    np.fill_diagonal(tot, 0.0)
    return float(np.sum(tot))


def correlation_coinpress_loss(S, s, R, sigma) -> float:
    r"""First-order expected squared Frobenius error of the correlation read from a whitened
    step, whose covariance noise is ``S^{1/2} N S^{1/2}`` (``N`` symmetrised i.i.d., variance
    ``σ²`` on the diagonal and ``σ²/2`` off it, so ``var⟨K, N⟩ = σ²‖K‖_F²`` for a symmetric
    ``K``). With ``x_i = S^{1/2}e_i/s_i`` (``r_i = ‖x_i‖² = S_ii/s_i²``, ``c_ij = x_iᵀx_j =
    S_ij/(s_i s_j)``) the entry ``δR_ij`` is ``⟨K_ij, N⟩`` with ``K_ij = (x_i x_jᵀ + x_j x_iᵀ)/2 −
    (R_ij/2)(x_i x_iᵀ + x_j x_jᵀ)``, so its variance is ``σ²[(r_i r_j + c_ij²)/2 −
    R_ij c_ij (r_i + r_j) + (R_ij²/4)(r_i² + r_j² + 2c_ij²)]``; at ``S = C`` this is
    ``σ²(1 − R_ij²)²/2``: the step's noise is multiplicative, and normalising removes most of
    it where the correlations are strong (``docs/coinpress.md`` § Adaptive (correlation))."""
    S = 0.5 * (S + S.T)
    r = np.diagonal(S) / (s * s)
    c = S / np.outer(s, s)
    ri, rj = r[:, None], r[None, :]
    K2 = (0.5 * (ri * rj + c * c) - R * c * (ri + rj)
          + 0.25 * R * R * (ri * ri + rj * rj + 2.0 * c * c))
    np.fill_diagonal(K2, 0.0)
    return float(sigma * sigma * np.sum(np.maximum(K2, 0.0)))


def moments_loss(V, m, weights, t, v_first=None) -> float:
    r"""Expected squared Frobenius error, in the units ``D = diag(weights)``, of the covariance
    ``M̂ − m̂m̂ᵀ`` read from a release of the augmented second moments with independent entry
    noise of variance ``V`` ((k + 1) × (k + 1)), given the released mean ``m`` (of ``x − c``).

    ``δC = δM − (δm mᵀ + m δmᵀ) − δm δmᵀ`` with ``δm_i = δG_{ik}/t`` of variance
    ``v_i = V_{ik}/t²``; with ``s_i = w_i² v_i`` the expectation is
    ``Σ_ij w_i² w_j² V_ij + 2 Σ_i s_i (Σ_j w_j² m_j² + w_i² m_i²) + (Σ s_i)² + 2 Σ s_i²``
    (the entries are independent; ``E‖abᵀ + baᵀ‖² = 2‖b‖² E‖a‖² + 2 E(aᵀb)²``). ``m_i²`` is
    debiased by the first release's variance ``v_first`` (floored at 0). The task's loss matrix
    uses the prior ``E m_i² = h_i²/3`` in place of the released mean (docs/when_mvg_wins.md);
    here the mean is released, so the prediction uses it (post-processing).
    """
    k = m.size
    w2 = weights * weights
    m2 = m * m if v_first is None else np.maximum(m * m - v_first, 0.0)
    v = V[:k, k] / (t * t)
    s_ = w2 * v
    quad = float(np.sum(np.outer(w2, w2) * V[:k, :k]))
    lin = 2.0 * float(np.sum(s_ * (np.sum(w2 * m2) + w2 * m2)))
    return quad + lin + float(np.sum(s_)) ** 2 + 2.0 * float(np.sum(s_ * s_))


def satterthwaite_median(mean: float, var: float) -> float:
    r"""The median of the scaled chi-square ``g·χ²_h`` with the given mean ``g h`` and variance
    ``2 g² h`` (Satterthwaite's approximation of a Gaussian quadratic form's law; ``h`` is its
    effective number of terms, ``(Σλ)²/Σλ²`` for the weights ``λ`` of a central form).

    ``h = 2·mean²/var``, ``g = mean/h``; the median is ``g·2·P⁻¹(h/2, 1/2)`` (``P⁻¹`` the
    inverse regularised lower incomplete gamma function). ``var = 0`` (a fixed value) gives the
    mean; one Gaussian term (``h = 1``) gives ``0.455·mean``. ``docs/coinpress.md`` § Adaptive,
    "Ranking by the predicted median (task CV)". Scalar; public inputs only.
    """
    from scipy.special import gammaincinv

    mean, var = float(mean), float(var)
    if not mean > 0:
        return max(mean, 0.0)
    if not var > 0:
        return mean
    h = 2.0 * mean * mean / var
    if h > 1e6:  # median of χ²_h ≈ h − 2/3 (Wilson–Hilferty), relative error < 1e-12 here
        return mean * (1.0 - 2.0 / (3.0 * h))
    return (mean / h) * 2.0 * float(gammaincinv(0.5 * h, 0.5))


def moments_loss_variance(V, m, weights, t, v_first=None) -> float:
    r"""Variance of the squared Frobenius norm (units ``D = diag(weights)``) of the first-order
    error ``δM − (δm mᵀ + m δmᵀ)`` of the covariance read from a moments release with
    independent entry noise of variance ``V`` ((k + 1) × (k + 1)), the mean ``m`` released
    (``m_i²`` debiased by ``v_first`` as in :func:`moments_loss`).

    With ``A = D δM D`` (entry variances ``a_ij = w_i²w_j²V_ij``), ``L = D(δm mᵀ + m δmᵀ)D``
    (``p = Dm``, ``u_i = w_i² V_ik/t²``) independent, ``var ‖A − L‖² = var ‖A‖² + var ‖L‖² +
    4 var⟨A, L⟩`` (the cross-covariances are odd moments of ``A``): ``var ‖A‖² =
    4 Σ_ij a_ij² − 2 Σ_i a_ii²``; ``‖L‖² = aᵀKa``, ``a = Dδm``, ``K = 2‖p‖² I + 2ppᵀ``, so
    ``var ‖L‖² = 2 ‖U^{1/2} K U^{1/2}‖_F²``; ``var⟨A, L⟩ = Σ_ij c_ij E L_ij²`` with ``c_ii =
    a_ii``, ``c_ij = 2a_ij`` and ``E L_ij² = u_i p_j² + p_i² u_j`` (``4 u_i p_i²`` on the
    diagonal). ``docs/coinpress.md`` § Adaptive, "Ranking by the predicted median (task CV)".
    """
    k = m.size
    w2 = weights * weights
    a = np.outer(w2, w2) * V[:k, :k]
    var_a = 4.0 * float(np.sum(a * a)) - 2.0 * float(np.sum(np.diagonal(a) ** 2))
    m2 = m * m if v_first is None else np.maximum(m * m - v_first, 0.0)
    p = weights * np.sqrt(m2)
    u = w2 * V[:k, k] / (t * t)
    K = 2.0 * float(p @ p) * np.eye(k) + 2.0 * np.outer(p, p)
    su = np.sqrt(np.maximum(u, 0.0))
    KU = su[:, None] * K * su[None, :]
    var_l = 2.0 * float(np.sum(KU * KU))
    EL2 = np.outer(u, p * p) + np.outer(p * p, u)
    np.fill_diagonal(EL2, 4.0 * u * p * p)
    c = 2.0 * a
    np.fill_diagonal(c, np.diagonal(a))
    var_al = float(np.sum(c * EL2))
    return var_a + var_l + 4.0 * var_al


def coinpress_noise_variance(S, weights, sigma) -> tuple[float, float]:
    r"""Variance of ``‖D S^{1/2} N S^{1/2} D‖_F²`` for the whitened step's symmetrised i.i.d.
    noise ``N`` (variance ``σ²`` on the diagonal, ``σ²/2`` off it), and the largest eigenvalue
    ``μ_max`` of ``M = DSD``. In ``M``'s eigenbasis (``N``'s law is rotation invariant) the form
    has weights ``σ²μ_a²`` (diagonal) and ``σ²μ_aμ_b`` (pairs), so the variance is
    ``σ⁴(tr(M⁴) + tr(M²)²)`` (its mean is :func:`coinpress_noise_loss`). A bias ``B`` adds
    ``4 var⟨B, E⟩ <= 4σ²μ_max²‖B‖_F²`` (used with ``‖B‖_F = b``)."""
    M = weights[:, None] * S * weights[None, :]
    M = 0.5 * (M + M.T)
    M2 = M @ M
    tr2 = float(np.trace(M2))
    var = sigma ** 4 * (float(np.sum(M2 * M2)) + tr2 * tr2)
    mu_max = float(max(np.linalg.eigvalsh(M)[-1], 0.0)) if M.size else 0.0
    return var, mu_max


def _step_median(b, noise_mean, noise_var, sigma, mu_max):
    return satterthwaite_median(b * b + noise_mean,
                                noise_var + 4.0 * b * b * sigma * sigma * mu_max * mu_max)


def median_threshold(moments_median: float, noise_mean: float, noise_var: float, sigma: float,
                     mu_max: float, cap: float) -> float:
    r"""The clipping bias ``b`` at which the whitened step's predicted median equals the moments
    release's: the root of ``med_cp(b) = moments_median`` with ``med_cp(b)`` the
    :func:`satterthwaite_median` of mean ``b² + P_cp,noise`` and variance
    ``var_noise + 4b²σ²μ_max²`` (increasing in ``b``); ``0`` if the step's noise alone already
    reaches it, ``cap`` if no bias up to ``cap`` does. Bisection (scalar; public inputs)."""
    if not _step_median(0.0, noise_mean, noise_var, sigma, mu_max) < moments_median:
        return 0.0
    if _step_median(cap, noise_mean, noise_var, sigma, mu_max) < moments_median:
        return float(cap)
    lo_b, hi_b = 0.0, float(cap)
    for _ in range(100):
        mid = 0.5 * (lo_b + hi_b)
        if _step_median(mid, noise_mean, noise_var, sigma, mu_max) < moments_median:
            lo_b = mid
        else:
            hi_b = mid
        if hi_b - lo_b <= 1e-12 * hi_b:
            break
    return lo_b


def median_choice(V1, V2, m, weights, t, v_first, pred_mom, noise_cp, S, r2, k, n, mu2, cap,
                   noisy, edges, sigma_b, z_dec):
    """``loss_statistic="median"``: (take the whitened step?, the reported values). The moments
    branch's and the step's predicted medians, the median threshold ``t_med`` and the capped
    reading of the same released counts at ``t_med`` (post-processing)."""
    V = combined_variance(V1, V2)
    med_mom = satterthwaite_median(pred_mom, moments_loss_variance(V, m, weights, t, v_first))
    sig = whitened_noise_sd(r2, k, n, mu2)
    nvar, mu_max = coinpress_noise_variance(S, weights, sig)
    t_med = median_threshold(med_mom, noise_cp, nvar, sig, mu_max, cap)
    if t_med > 0:
        b_med, sd_med, level_med = read_counts(noisy, np.minimum(edges, cap), sigma_b, n, t_med,
                                               "capped")
        b_dec = max(b_med + z_dec * sd_med, 0.0)
        take = b_dec < t_med
    else:  # the step's noise alone reaches the moments median: no bias can make it win
        b_med, sd_med, level_med, b_dec, take = math.nan, math.nan, math.nan, math.nan, False
    med_cp = (_step_median(b_dec, noise_cp, nvar, sig, mu_max) if b_dec == b_dec
              else _step_median(0.0, noise_cp, nvar, sig, mu_max))
    return take, {"moments_median": float(med_mom), "coinpress_median": float(med_cp),
                  "median_threshold": float(t_med), "clipping_loss_median": float(b_med),
                  "clipping_loss_median_sd": float(sd_med),
                  "reading_level_median": float(level_med)}


def triangle_moments_prediction(task, delta, plan, V1, m, weights, t, v_first, pred_mom):
    """``(V2, P_mom)``: the last moments release's entry variances and the moments branch's
    predicted expected loss as that release is DRAWN under ``moments_triangle=True``: the
    dominating weighted triangle of ``plan`` at ``plan``'s (ε, δ)
    (:func:`~matrixdp.models._moments.dominating_triangle_of`, the release the moments branch
    then draws) where there is one, else ``plan``'s own (and ``pred_mom`` unchanged). Public
    inputs only (the plans, the first look's variances and released mean); post-processing.
    ``docs/coinpress.md`` § "The moments branch predicted as it is drawn (task AB)"."""
    eps2 = gaussian_epsilon(delta, 1.0, float(plan.privacy.mu))
    tri = dominating_triangle_of(task, eps2, delta, plan)
    if tri is None:
        return plan.entry_variance, pred_mom
    V2 = tri.entry_variance
    return V2, moments_loss(combined_variance(V1, V2), m, weights, t, v_first)
