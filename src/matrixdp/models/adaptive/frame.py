"""The frame of the PCA-loss ranking: the first look's eigen-directions and eigen-gaps, each
branch's noise variances in that frame, and how much of it the first look resolves
(post-processing of released values and public inputs; ``docs/coinpress.md`` § Adaptive (PCA)).
"""

from __future__ import annotations

import numpy as np

from ...mechanisms.draw import public_randomness
from ..spiked import spiked_eigenvalues

__all__ = ["RESOLVE_Z", "SHARE_Z", "BOOT_DRAWS", "BOOT_SEED", "moments_pair_variance",
           "coinpress_pair_variance", "pca_frame", "pca_frame_resolution",
           "projected_gap_inflation", "unresolved_share", "first_look_noise_level",
           "noise_level_margin"]

#: Noise sds of the first release by which the PCA-loss prediction's eigen-frame resolves the
#: order of two directions (:func:`pca_frame`).
RESOLVE_Z = 2.0
#: Noise sds below which a first-look variance counts as unresolved for ``resolve_share`` when
#: ``resolve_z`` is not given (task PA3; the value of ``covariance.CORRELATION_RESOLVE_Z``).
SHARE_Z = 3.0
#: ``gap_inflation="projected-noise"`` (task PG): the number of public draws of the first look's
#: noise law in the parametric bootstrap of :func:`projected_gap_inflation`.
BOOT_DRAWS = 32
#: Its fixed public seed (the draws are of a public law around a released matrix: the same
#: draws in every fit, so the ranking is a deterministic function of the first look).
BOOT_SEED = 0x5047


def moments_pair_variance(V, m, t, U, q):
    r"""Variances of the noise of a moments release in the frame ``U`` (public).

    The covariance ``M̂ − m̂m̂ᵀ`` read from a release of the augmented second moments with
    independent entry noise of variance ``V`` ((k + 1) × (k + 1), symmetric entries) has, to
    first order, the error ``E = δM − δm mᵀ − m δmᵀ`` (``δm_a = δG_{ak}/t``, variance
    ``v_a = V_{ak}/t²``, independent of ``δM``). For orthonormal columns ``u_i`` of ``U``:

        var(u_iᵀ δM u_j) = [(U∘U)ᵀ V (U∘U)]_ij + T_ij − Σ_a U_ai² U_aj² V_aa,
        T_ij = Σ_ab V_ab U_ai U_aj U_bi U_bj,
        var(u_iᵀ(δm mᵀ + m δmᵀ)u_j) = Σ_a v_a (U_ai p_j + U_aj p_i)²,  p = Uᵀm.

    Returns ``(s, diag)``: ``s`` (q, k) the variances of ``u_iᵀEu_j`` for the first ``q``
    columns ``i`` and every ``j``, ``diag`` (k,) the variances of ``u_jᵀEu_j``
    (``docs/coinpress.md`` § Adaptive (PCA)).
    """
    k = m.size
    Vm = V[:k, :k]
    v = V[:k, k] / (t * t)
    U2 = U * U
    Uq = U[:, :q]
    W = Uq[:, :, None] * U[:, None, :]  # W[a, i, j] = U_ai U_aj
    VW = (Vm @ W.reshape(k, -1)).reshape(W.shape)
    T = np.einsum("aij,aij->ij", W, VW)
    dV = np.diagonal(Vm)
    s = U2[:, :q].T @ Vm @ U2 + T - (U2[:, :q] * dV[:, None]).T @ U2
    p = U.T @ m
    qv = U2.T @ v
    cross = (Uq * v[:, None]).T @ U
    s = s + (p[None, :] ** 2 * qv[:q, None] + p[:q, None] ** 2 * qv[None, :]
             + 2.0 * p[:q, None] * p[None, :] * cross)
    quad_d = np.einsum("aj,ab,bj->j", U2, Vm, U2)
    diag = 2.0 * quad_d - (U2 * U2 * dV[:, None]).sum(axis=0) + 4.0 * p * p * qv
    return np.maximum(s, 0.0), np.maximum(diag, 0.0)


def coinpress_pair_variance(S, U, q, sigma):
    r"""Variances of the whitened step's noise ``S^{1/2} N S^{1/2}`` in the frame ``U``.

    ``N`` is the symmetrised i.i.d. noise (variance ``σ²`` on the diagonal, ``σ²/2`` off it),
    whose law is invariant under rotations: for vectors ``x, y``,
    ``var(xᵀNy) = (σ²/2)(‖x‖²‖y‖² + (xᵀy)²)``; with ``x = S^{1/2}u_i``, ``y = S^{1/2}u_j`` and
    ``S̃ = UᵀSU``: ``(σ²/2)(S̃_ii S̃_jj + S̃_ij²)``. Returns ``(s, diag)`` as
    :func:`moments_pair_variance`.
    """
    St = U.T @ S @ U
    dS = np.diagonal(St)
    s = 0.5 * sigma * sigma * (dS[:q, None] * dS[None, :] + St[:q, :] ** 2)
    return s, sigma * sigma * dS * dS


def pca_frame(C1, V1, m, t, q, z=RESOLVE_Z, top_cap: bool = False, floor: bool = True,
              spiked: bool = False, project=None):
    r"""The eigen-frame and the eigengaps the PCA-loss prediction uses, from the first release
    (post-processing of ``Ĉ₁ = C + E₁`` and its public noise variances ``V₁``).

    1. **Order.** The eigenvectors ``û_j`` of ``Ĉ₁`` are ordered by the upper confidence value
       ``λ̂_j + z·sd_j``, ``sd_j² = var(û_jᵀE₁û_j)`` (:func:`moments_pair_variance`): a
       released eigenvalue pushed down by the noise (a direction of large noise, often with a
       negative released eigenvalue) may belong to the top ``q``. The first ``q`` form the top.
    2. **Gaps.** In the plane of ``û_i, û_j`` the released block is
       ``[[λ_i + e_i, e], [e, λ_j + e_j]]``, whose eigenvalue difference ``ĝ`` satisfies
       ``ĝ² = (g + e_i − e_j)² + 4e²``, so ``E ĝ² = g² + N_ij``,
       ``N_ij = var(e_i) + var(e_j) + 4 var(e)`` (``e_i, e_j`` taken independent). The
       noise's expected inflation is removed, ``g̃² = max(ĝ² − N_ij, 0)``, and the gap is
       floored at the first release's resolution, ``g̃ >= √N_ij / 2``: a gap the first look
       cannot see is not taken as 0 (which would predict no loss for either branch).
    3. **Pairs that count.** Pair ``(i, j)`` (``i`` in the top, ``j`` not) counts unless ``i`` is
       resolved above the cut (``λ̂_i − z sd_i > λ̂_{q+1} + z sd_{q+1}``) while ``j`` is not
       resolved below it (``λ̂_j + z sd_j >= λ̂_q − z sd_q``): then ``û_j`` may be a top
       direction and rotating ``û_i`` into it loses nothing. A pair of directions on both
       sides of an unresolved cut counts (that is where the loss is).

    4. **Top cap** (``top_cap=True``, task PN): the variances are PSD, so a gap is at most the
       top direction's variance: ``g̃_ij <= max(λ̂_i + z sd_i, 0)`` (its upper confidence value).
       Without it an unresolved pair's floor ``√N_ij/2`` follows the first look's noise on the
       OTHER direction, however small the top variance (a feature with a wide public box).
    5. **No floor** (``floor=False``, task PN's ``"unfloored"``): ``g̃ = √max(ĝ² − N_ij, 0)``, an
       unresolved gap counts 0 for both branches.
    6. **Spiked** (``spiked=True``, task PS's ``pca_gaps="spiked"``): in place of 2 (and of 4, 5),
       the gaps are differences of the released eigenvalues de-biased as a whole
       (:func:`~matrixdp.models.spiked.spiked_eigenvalues`: the pull of the separated
       directions removed at second order, the spiked-model inversion, and the unresolved
       clusters shrunk to their de-noised spread), ``g̃_ij = |λ̃_i − λ̃_j|``, not floored
       (``docs/coinpress.md`` § Adaptive (PCA), "Spiked-model gaps (task PS)").
    7. **Projected noise** (``project`` given, task PG's ``gap_inflation="projected-noise"``): in
       step 2 the inflation ``N_ij`` is replaced by ``max(N_ij, I_ij)``, ``I_ij`` the parametric
       bootstrap's inflation of the squared gap through the caller's projection ``project``
       (:func:`projected_gap_inflation`); the floor ``√N_ij/2`` and the cap of 4 are unchanged
       (``docs/coinpress.md`` § Adaptive (PCA), "Gaps against the projected noise (task PG)").

    Returns ``(U, gaps)``: the frame (k, k), columns in the order above, and the (q, k − q)
    gaps (0 for the pairs that do not count).
    """
    lam, U, sd, _, keep = _ordered_frame(C1, V1, m, t, q, z)
    if spiked:
        s_all, diag1 = moments_pair_variance(V1, m, t, U, U.shape[1])
        lam_t = spiked_eigenvalues(lam, s_all, diag1)
        g = np.abs(lam_t[:q, None] - lam_t[None, q:])
    else:
        g_hat, noise = _released_gaps(lam, U, V1, m, t, q)
        infl = noise if project is None else np.maximum(
            noise, projected_gap_inflation(C1, lam, V1, m, t, q, project))
        g = np.sqrt(np.maximum(g_hat * g_hat - infl, 0.0))
        if floor:
            g = np.maximum(g, 0.5 * np.sqrt(noise))
    if top_cap and not spiked:
        g = np.minimum(g, np.maximum(lam[:q] + z * sd[:q], 0.0)[:, None])
    return U, np.where(keep, g, 0.0)


def _ordered_frame(C1, V1, m, t, q, z):
    """Steps 1 and 3 of :func:`pca_frame`: the released eigenvalues ``lam`` and eigenvectors
    ``U`` in upper-confidence order, their noise sds ``sd``, the top directions resolved above
    the cut (``above_cut``, (q,)) and the (q, k − q) mask of the pairs that count (``keep``)."""
    lam, U = np.linalg.eigh(0.5 * (C1 + C1.T))
    sd = np.sqrt(moments_pair_variance(V1, m, t, U, 1)[1])
    o = np.argsort(-(lam + z * sd), kind="stable")
    lam, U, sd = lam[o], U[:, o], sd[o]
    below_cut = lam[q:] + z * sd[q:] < lam[q - 1] - z * sd[q - 1]
    above_cut = lam[:q] - z * sd[:q] > lam[q] + z * sd[q]
    keep = below_cut[None, :] | ~above_cut[:, None]
    return lam, U, sd, above_cut, keep


def _released_gaps(lam, U, V1, m, t, q):
    """Step 2 of :func:`pca_frame`: the released gaps ``ĝ`` of the (top, rest) pairs and their
    expected noise inflation ``N_ij`` (both (q, k − q))."""
    s1, diag1 = moments_pair_variance(V1, m, t, U, q)
    g_hat = lam[:q, None] - lam[None, q:]
    return g_hat, diag1[:q, None] + diag1[None, q:] + 4.0 * s1[:, q:]


def projected_gap_inflation(A, lam, V1, m, t, q, project, draws: int = BOOT_DRAWS,
                            seed: int = BOOT_SEED):
    r"""The expected inflation of the frame's squared eigen-gaps by the first look's noise AND the
    caller's projection: a parametric bootstrap around the projected first look (task PG).

    ``A = P(Ĉ₁)`` is the first look after the caller's projection ``P`` (``project``), whose
    eigenvalues are ``lam`` in the frame's order (:func:`pca_frame`, 1). Taking ``A`` as the truth
    (feasible, as the true covariance is), the first look's noise law (independent symmetric
    entries of the augmented second moments with the public variances ``V₁``, read through the
    released mean ``m̂`` as in :func:`moments_pair_variance`) is drawn ``draws`` times,
    ``E_r``, and each ``A + E_r`` is projected; ``λ*_r`` are the eigenvalues of ``P(A + E_r)``
    sorted (the draws in antithetic pairs ``±E_r``, so that the first-order term of each gap
    cancels in the mean). A frame direction of released rank ``ρ_i`` (the rank of ``lam_i`` among ``lam``) is
    matched with the bootstrap's eigenvalue of the same rank, and

        I_ij = mean_r (λ*_{r,ρ_i} − λ*_{r,ρ_j})² − (lam_i − lam_j)²

    is the bootstrap's bias of the squared gap (``ĝ² − I`` is the bootstrap bias-corrected
    ``ĝ²``). Where the first look resolves the spectrum, ``P`` is neutral and ``I_ij`` is
    ``N_ij``'s diagonal part plus the second-order repulsion of the eigenvalues by ALL the other
    directions (which ``N_ij``, one pair, leaves out; it can exceed ``N_ij`` where the gap is
    large). Where it is noise-level,
    ``A`` is the projection of noise, whose eigenvalues spread as a whole (every direction at
    once, positive part kept); adding the same noise again spreads them further by about as much,
    so ``I`` removes the spread that ``N_ij`` (one pair, before the projection) does not see.

    Why no budget: ``E_r`` are draws of a PUBLIC law (the first look's calibration ``V₁``, the
    released ``m̂``, the public ``t``) added to a released matrix, so the result is a function of
    the first release and public inputs (post-processing); the draws come from their own
    generator (:func:`~matrixdp.mechanisms.draw.public_randomness` at the fixed public ``seed``),
    never from the release's stream, are the same in every fit (the ranking is deterministic given
    the first look) and are not kept.

    Returns the (q, k − q) inflations ``I_ij`` of the (top, rest) pairs.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall
       1993, ch. 10 (bias correction).
    .. [2] matrixdp, ``docs/coinpress.md`` (§ Adaptive (PCA), "Gaps against the projected noise
       (task PG)").
    """
    k = m.size
    # antithetic pairs (E, −E): the first-order term of each bootstrap gap cancels in the mean,
    # so the Monte Carlo error of I is second order in the noise
    half = public_randomness(int(seed)).gaussian((max(int(draws) // 2, 1), k + 1, k + 1))
    z = np.concatenate([half, -half])
    G = np.triu(z) * np.sqrt(np.maximum(V1, 0.0))
    G = G + np.transpose(np.triu(G, 1), (0, 2, 1))
    dm = G[:, :k, k] / t
    E = G[:, :k, :k] - dm[:, :, None] * m[None, None, :] - m[None, :, None] * dm[:, None, :]
    boot = np.stack([np.linalg.eigvalsh(project(A + e))[::-1] for e in E])
    rank = np.empty(k, dtype=int)
    rank[np.argsort(-lam, kind="stable")] = np.arange(k)
    gb = boot[:, rank[:q], None] - boot[:, None, rank[q:]]
    g_hat = lam[:q, None] - lam[None, q:]
    return np.mean(gb * gb, axis=0) - g_hat * g_hat


def pca_frame_resolution(C1, V1, m, t, q, z=RESOLVE_Z):
    r"""How many gaps of the default pairwise frame (:func:`pca_frame`) the first look resolves
    (post-processing of ``Ĉ₁`` and its public noise variances ``V₁``; task PT).

    A counted pair ``(i, j)`` (:func:`pca_frame`, 3) is resolved when its de-inflated gap is above
    the floor the default puts under it, ``√max(ĝ² − N_ij, 0) > √N_ij/2``, i.e.
    ``ĝ² > (5/4) N_ij``: where the floor binds, the gap the ranking uses is the first look's own
    noise, not a gap it sees. A top direction ``i`` is resolved above the cut when
    ``λ̂_i − z sd_i > λ̂_{q+1} + z sd_{q+1}`` (the same test as :func:`pca_frame`, 3).
    ``docs/coinpress.md`` § Adaptive (PCA), "Unresolved frames (task PT)".

    Returns ``(pairs, top)``: the number of counted pairs resolved and the number of top
    directions resolved above the cut.
    """
    lam, U, _, above_cut, keep = _ordered_frame(C1, V1, m, t, q, z)
    g_hat, noise = _released_gaps(lam, U, V1, m, t, q)
    pairs = int(np.sum(keep & (g_hat * g_hat > 1.25 * noise)))
    return pairs, int(np.sum(above_cut))


def unresolved_share(C, unresolved, q: int) -> float:
    r"""The share of ``C``'s top-``q`` variance carried by the ``unresolved`` features.

    ``s = Σ_{j≤q} λ_j Σ_{i∈U} v_ij² / Σ_{j≤q} λ_j`` with ``λ_1 ≥ … ≥ λ_q`` the top-``q``
    eigenvalues of the symmetric PSD ``C`` (negative ones read as 0) and ``v_j`` their
    eigenvectors, ``U`` the features where ``unresolved`` is True (task PA3's share guard:
    ``C`` the first look projected onto the feasible set, ``U`` the features whose variance is
    below ``z`` of its noise sds; ``docs/coinpress.md`` § Adaptive (PCA), "The share guard
    (task PA3)"). In ``[0, 1]``; ``0`` if ``U`` is empty, ``1`` if every feature is in it or
    the top-``q`` variance is 0 (nothing is resolved). Post-processing.

    Parameters
    ----------
    C : ndarray (k, k)
        Symmetric (PSD) matrix.
    unresolved : ndarray (k,) of bool
        The features of ``U``.
    q : int
        Number of top directions, ``1 <= q <= k``.

    Returns
    -------
    float

    References
    ----------
    .. [1] matrixdp, ``docs/coinpress.md`` (§ Adaptive (PCA), "The share guard (task PA3)").
    """
    u = np.asarray(unresolved, dtype=bool)
    if not u.any():
        return 0.0
    if u.all():
        return 1.0
    w, V = np.linalg.eigh(np.asarray(C, dtype=np.float64))
    lam = np.maximum(w[::-1][:q], 0.0)
    total = float(lam.sum())
    if not total > 0:
        return 1.0
    carried = float(lam @ np.sum(V[:, ::-1][:, :q][u] ** 2, axis=0))
    return min(max(carried / total, 0.0), 1.0)


def first_look_noise_level(C, V1, m, t) -> float:
    r"""``ρ = ‖E₁‖ / λ̂₁``: the first look's noise over its top eigenvalue (public).

    ``C = G_{:k,:k} − m̂m̂ᵀ`` is the first look's covariance BEFORE any projection, ``V1`` the
    entry variances of the released augmented ``G`` (the plan's), ``m`` the released mean of
    ``x − c`` and ``t`` the public constant. The noise of ``Ĉ_ij`` is ``δG_ij − δm_i m_j −
    m_i δm_j`` (to first order), of variance ``W_ij = V_ij + m_j² v_i + m_i² v_j`` off the
    diagonal and ``V_ii + 4 m_i² v_i`` on it (``v_i = V_ik / t²``; ``m_i²`` debiased,
    ``max(m̂_i² − v_i, 0)``, as :func:`~matrixdp.models.coinpress.first_noise_scale`).
    ``‖E₁‖`` is read as ``2 max_i (Σ_j W_ij)^{1/2}``, the leading term of the spectral norm of a
    symmetric matrix with independent centred entries of variances ``W`` [1]_ (exact for a
    Wigner matrix as ``k → ∞``). ``λ̂₁ <= 0`` gives ``ρ = ∞``. Post-processing of the first
    release and public inputs; ``docs/coinpress.md`` § "Adaptive (PCA), continued: a margin for a
    noise-level first look (task PK2)".

    References
    ----------
    .. [1] A. S. Bandeira and R. van Handel, "Sharp nonasymptotic bounds on the norm of random
       matrices with independent entries", Annals of Probability 44(4), 2016.
    """
    C = np.asarray(C, dtype=np.float64)
    V1 = np.asarray(V1, dtype=np.float64)
    k = C.shape[0]
    v = V1[:k, k] / (t * t)
    m2 = np.maximum(np.asarray(m, dtype=np.float64) ** 2 - v, 0.0)
    W = V1[:k, :k] + np.outer(v, m2) + np.outer(m2, v)
    W[np.diag_indices(k)] += 2.0 * m2 * v
    norm = 2.0 * float(np.sqrt(np.max(np.sum(W, axis=1))))
    lam1 = float(np.linalg.eigvalsh(0.5 * (C + C.T))[-1])
    return float(np.inf) if not lam1 > 0 else norm / lam1


def noise_level_margin(rho: float) -> float:
    r"""``M(ρ) = max(1, ρ)``: the factor by which the whitened step's predicted deficit must beat
    the moments release's under ``step_margin="noise-level"`` (task PK2): the step is taken iff
    ``M(ρ)·P_cp < P_mom``. Non-decreasing in ``ρ`` (:func:`first_look_noise_level`): 1 (the
    default's ranking) while the first look's top eigenvalue exceeds its noise's norm, ``ρ``
    beyond; ``ρ = ∞`` (no positive eigenvalue) gives ``∞``, the moments release. Pure; the
    derivation is in ``docs/coinpress.md`` § "Adaptive (PCA), continued: a margin for a
    noise-level first look (task PK2)".
    """
    rho = float(rho)
    if not rho >= 0:
        raise ValueError(f"rho must be >= 0, got {rho!r}")
    return max(1.0, rho)
