"""The whitened branch's variants (opt-in): the refined branch of tasks HC and HR (its predicted
noise losses, and the two-step and checked releases that replace the one whitened step;
``docs/coinpress.md`` § Adaptive, "The refined step (task HC)" and "The checked refinement (task
HR)"), and the first look reused by the one step (task PC; § "The first look reused by the
step (task PC)").
"""

from __future__ import annotations

import math

import numpy as np

from ..coinpress import gdp_release, unwhiten, whitened_noise_sd, whitened_release, whitening
from .counts import DECISION_Z, clipping_loss_bins, clipping_loss_counts, read_counts

__all__ = ["REFINE_SHARE", "CHECK_SHARE", "refine_prediction", "refined_step", "checked_step",
           "first_look_reuse"]

#: ``refine=True`` (task HC, issue #24, opt-in): the share of the whitened branch's ``μ₂²`` spent
#: on the refinement step when it is taken (CoinPress's own split: a quarter to refine, the rest
#: to the final step; :func:`~matrixdp.models.coinpress.coinpress_shares`).
REFINE_SHARE = 0.25
#: ``refine="checked"`` (task HR, issue #24, opt-in): the share of the whitened branch's ``μ₂²``
#: spent on the clipping reading after the refinement (the counts of records per bin of clipping
#: loss under the refined whitening, :func:`checked_step`); about the default's own counts share
#: (``BIAS_SHARE`` of ``μ*²`` is 0.04 of ``μ₂² ≈ 0.72 μ*²``), not tuned.
CHECK_SHARE = 0.04


def refine_prediction(C, S, m, h, *, r2, k, n, mu2, margin, beta, loss,
                      share: float = REFINE_SHARE, check: float = 0.0) -> tuple[float, float]:
    r"""Task HC (``refine=True``): the predicted noise losses of the whitened branch as ONE step
    at ``μ₂`` (whitening ``S`` from the first look) and as TWO steps, a refinement at
    ``μ_a = √share·μ₂`` then the final step at ``μ_f = √(1 − share)·μ₂``, whitened by
    ``S' = Π(Ĉ) + margin·√(2k)·σ_a S`` (CoinPress's margin after a whitened step, whose noise has
    row covariance ``σ_a S``; ``Ĉ`` is read here from the first look, the plug-in of the
    refinement's estimate). ``loss(S, σ)`` is the ranking's noise loss of a step
    (:func:`coinpress_noise_loss` or :func:`correlation_coinpress_loss`). Post-processing of the
    first look and public inputs (``docs/coinpress.md`` § Adaptive, "The refined step (task
    HC)"). The clipping bias is left out of both: it is read once, before this choice.
    ``check`` (``refine="checked"``, task HR): the share of ``μ₂²`` of the clipping reading taken
    between the two steps, so the final step is predicted at ``√(1 − share − check)·μ₂``."""
    one = loss(S, whitened_noise_sd(r2, k, n, mu2))
    mu_a = math.sqrt(share) * mu2
    mu_f = math.sqrt(1.0 - share - check) * mu2
    sig_a = whitened_noise_sd(r2, k, n, mu_a)
    S2, _, _, r2f = whitening(C, sig_a * S, m, h, margin=margin, beta=beta, n=n, mu=mu_f)
    two = loss(S2, whitened_noise_sd(r2f, k, n, mu_f))
    return float(one), float(two)


def _refinement(Xl, center, m, A, A_inv, S, r2, h, mu_a, mu_f, epsilon, delta, gen, Z, *,
                margin, beta, n, Y=None):
    """The refinement shared by :func:`refined_step` and :func:`checked_step`: the whitened
    release at ``μ_a`` from the first look's whitening ``(A, r²)``, and the whitening for a final
    step at ``μ_f`` from its estimate (margin ``σ_a S``). Returns ``(Gy_a, μ_a, m_a, S', A', A'⁻¹,
    r_f²)``."""
    Gy_a, sig_a, mu_a_got = whitened_release(Xl, center, m, A, r2, mu_a, epsilon, delta, gen, Z,
                                             Y=Y)
    C_a, m_a = unwhiten(Gy_a, r2, m, A_inv)
    S2, A2, A2_inv, r2f = whitening(C_a, sig_a * S, m_a, h, margin=margin, beta=beta, n=n,
                                    mu=mu_f)
    return Gy_a, mu_a_got, m_a, S2, A2, A2_inv, r2f


def refined_step(Xl, center, m, A, A_inv, S, r2, h, mu2, epsilon, delta, gen, Z, *, margin,
                 beta, n, share: float = REFINE_SHARE, Y=None):
    """Task HC (``refine=True``): the whitened branch as two CoinPress steps, a refinement at
    ``√share·μ₂`` from the first look's whitening, then the final step at ``√(1 − share)·μ₂``
    whitened by the refinement's estimate (margin ``σ_a S``, as
    :func:`~matrixdp.models.coinpress.coinpress_covariance`). Returns ``(C, m, μ)``: the final
    step's covariance and mean of ``x − c`` and the GDP parameter of the two releases composed
    (``≤ μ₂``)."""
    mu_a = math.sqrt(share) * mu2
    mu_f = math.sqrt(1.0 - share) * mu2
    Gy, mu_a_got, m_a, _, A2, A2_inv, r2f = _refinement(
        Xl, center, m, A, A_inv, S, r2, h, mu_a, mu_f, epsilon, delta, gen, Z, margin=margin,
        beta=beta, n=n, Y=Y)
    del Gy
    Gy, _, mu_f_got = whitened_release(Xl, center, m_a, A2, r2f, mu_f, epsilon, delta, gen, Z)
    C, m_f = unwhiten(Gy, r2f, m_a, A2_inv)
    return C, m_f, math.sqrt(mu_a_got ** 2 + mu_f_got ** 2)


def checked_step(Xl, center, m, A, A_inv, S, r2, h, mu2, epsilon, delta, gen, Z, *, margin,
                 beta, n, weights, loss, cap, b_one: float = 0.0, coef: float = 1.0,
                 share: float = REFINE_SHARE, check: float = CHECK_SHARE,
                 decision_z: float = DECISION_Z, Y=None):
    r"""Task HR (``refine="checked"``): the refined step of task HC with a clipping reading
    between its two steps, so the final step is whitened by the refinement only where the
    reading does not predict its clipping to cost more than its noise saves.

    1. The refinement: the whitened release at ``μ_a = √share·μ₂`` from the first look's
       whitening ``(A, r²)`` (the default's one step, at a smaller budget).
    2. The refined whitening ``S' = Π(Ĉ_a) + margin·√(2k)·σ_a S`` (radius ``r_f²`` for
       ``μ_f = √(1 − share − check)·μ₂``) and its predicted noise loss ``P_two = loss(S', σ_f)``;
       the fallback's ``P_one = loss(S, σ(μ_1s)) + coef·b_one²`` with
       ``μ_1s = √(μ_a² + μ_f²)`` (the one-step whitening released twice, averaged: see 4);
       :func:`adaptive_covariance` passes ``b_one = 0`` (the fallback credited with no
       clipping, so the refined step must win on the reading alone: the choice errs towards the
       default's whitening).
    3. The reading: if ``gap = P_one − P_two > 0`` and a clipping bias could close it
       (``coef·cap² >= gap``), the counts of records per bin of clipping loss under the refined
       whitening (:func:`clipping_loss_counts`, bins around ``√(gap/coef)``, sensitivity
       ``√2``) released at ``μ_c = √check·μ₂`` and read as the default's counts
       (:func:`read_counts`, capped, upper value ``b̂ + decision_z·sd``); the final step is
       refined iff ``P_two + coef·b_dec² < P_one``. Without a reading (``gap <= 0``: the
       fallback; ``coef·cap² < gap``: refined) ``μ_c`` goes to the final release.
    4. The final step: refined, the whitened release at ``μ_f`` from ``(A', r_f²)``; otherwise
       the default's one-step release ``(A, r²)`` again at ``μ_f`` averaged with the
       refinement's with weights ``μ²`` (two Gaussian releases of the same value: the average is
       one release at ``√(μ_a² + μ_f²)``), so the fallback costs only the reading's share.

    Returns ``(C, m, μ, info)``: the final covariance and mean of ``x − c``, the GDP parameter of
    the releases composed (``<= μ₂``) and ``info`` (post-processing of DP releases and public
    values: ``"checked"``, the choice; ``"check_one"``, ``"check_two"``, the two predictions;
    ``"check_reading"``, ``b̂`` (NaN without a reading); ``"check_statistic"``, ``"counts"`` or
    ``"none"``). ``docs/coinpress.md`` § Adaptive, "The checked refinement (task HR)".
    """
    k = Xl.shape[1]
    mu_a = math.sqrt(share) * mu2
    mu_c = math.sqrt(check) * mu2
    mu_f = math.sqrt(1.0 - share - check) * mu2
    Gy_a, mu_a_got, m_a, S2, A2, A2_inv, r2f = _refinement(
        Xl, center, m, A, A_inv, S, r2, h, mu_a, mu_f, epsilon, delta, gen, Z, margin=margin,
        beta=beta, n=n, Y=Y)
    two = float(loss(S2, whitened_noise_sd(r2f, k, n, mu_f)))
    one = float(loss(S, whitened_noise_sd(r2, k, n, math.hypot(mu_a, mu_f)))
                + coef * b_one * b_one)
    gap = one - two
    b_hat, mu_c_got, stat = math.nan, 0.0, "none"
    if gap <= 0:
        take = False
    elif coef * cap * cap < gap:
        take = True
    else:
        thr = math.sqrt(gap / coef)
        edges = clipping_loss_bins(thr, cap)
        counts = clipping_loss_counts(Xl, center, m_a, A2, r2f, weights, edges)
        noisy, sigma_c, mu_c_got = gdp_release(counts, math.sqrt(2.0), mu_c, epsilon, delta, gen)
        del counts
        b_hat, b_sd, _ = read_counts(noisy, np.minimum(edges, cap), sigma_c, n, thr, "capped")
        b_dec = max(b_hat + decision_z * b_sd, 0.0)
        take = two + coef * b_dec * b_dec < one
        stat = "counts"
    mu_last = mu_f if stat == "counts" else math.hypot(mu_f, mu_c)
    if take:
        del Gy_a
        Gy, _, mu_f_got = whitened_release(Xl, center, m_a, A2, r2f, mu_last, epsilon, delta,
                                           gen, Z)
        C, m_out = unwhiten(Gy, r2f, m_a, A2_inv)
    else:
        Gy, _, mu_f_got = whitened_release(Xl, center, m, A, r2, mu_last, epsilon, delta, gen, Z,
                                           Y=Y)
        wa, wf = mu_a_got ** 2, mu_f_got ** 2
        Gy = (wa * Gy_a + wf * Gy) / (wa + wf)
        del Gy_a
        C, m_out = unwhiten(Gy, r2, m, A_inv)
    del Gy
    mu = math.sqrt(mu_a_got ** 2 + mu_c_got ** 2 + mu_f_got ** 2)
    return C, m_out, mu, {"checked": bool(take), "check_one": one, "check_two": two,
                          "check_reading": float(b_hat), "check_statistic": stat}



def first_look_reuse(C_step, S, sigma, C_first, V_first, m_first, t):
    r"""Task PC (``step_reuse=True``): the whitened step's covariance averaged with the first
    look's in the eigen-frame of the whitening ``S``, entry by entry with inverse-variance
    weights (post-processing of two releases already made; the weights are public).

    In the eigen-frame ``U`` of ``S`` (``S = U diag(s) Uᵀ``) the step's noise
    ``S^{1/2} N S^{1/2}`` has INDEPENDENT entries (``N`` is the symmetrised i.i.d. noise, whose
    law is invariant under rotations): variance ``(σ²/2) s_i s_j`` off the diagonal and
    ``σ² s_i²`` on it (:func:`~matrixdp.models.adaptive.frame.coinpress_pair_variance`); the
    first look's noise there has the variances of
    :func:`~matrixdp.models.adaptive.frame.moments_pair_variance` (its plan's entry variances
    ``V`` and the released mean's term). With ``Ã = UᵀĈU`` for both estimates and
    ``a = var₂/(var₁ + var₂)`` per entry, ``Ĉ = U (a∘Ã₁ + (1 − a)∘Ã₂) Uᵀ``: for two independent
    unbiased estimates of an entry the least-variance combination. In the original units the
    step's noise is ``S``-shaped (small along the small directions of ``S``), which an average
    of the original entries would pollute with the first look's more even noise; in the frame
    of ``S`` each entry is weighted by its own noise. The step's clipping bias (a shrinkage) is
    diluted by the first look's weight; the first look's noise correlations in that frame are
    left out. Returns the average (symmetric) and the weights ``a`` of the first look."""
    from .frame import coinpress_pair_variance, moments_pair_variance

    k = m_first.size
    _, U = np.linalg.eigh(0.5 * (S + S.T))
    v1, d1 = moments_pair_variance(np.asarray(V_first, dtype=np.float64), m_first, t, U, k)
    v2, d2 = coinpress_pair_variance(S, U, k, sigma)
    v1, v2 = v1.copy(), v2.copy()
    v1[np.diag_indices(k)] = d1
    v2[np.diag_indices(k)] = d2
    v1, v2 = 0.5 * (v1 + v1.T), 0.5 * (v2 + v2.T)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = np.where(v1 + v2 > 0, v2 / np.maximum(v1 + v2, 1e-300), 0.0)
    M = a * (U.T @ C_first @ U) + (1.0 - a) * (U.T @ C_step @ U)
    C = U @ M @ U.T
    return 0.5 * (C + C.T), a
