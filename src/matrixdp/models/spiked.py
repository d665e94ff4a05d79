"""The eigenvalues of a noisy symmetric release de-biased as a whole (task PS, issue #24): the
spiked-model inversion of the separated eigenvalues and the variance-matched shrinkage of the
unresolved ones, used by the PCA-loss ranking's ``pca_gaps="spiked"``
(``docs/coinpress.md`` § Adaptive (PCA), "Spiked-model gaps (task PS)").

Pure post-processing of released eigenvalues and public noise variances: no randomness.
"""

from __future__ import annotations

import numpy as np

#: Two adjacent released eigenvalues are in one cluster (unresolved from each other) when their
#: difference is below ``SPIKED_Z`` times the pair's noise sd ``√N_ab``
#: (``N_ab = var(e_a) + var(e_b) + 4 var(e_ab)``, the first look's resolution of the pair).
SPIKED_Z = 2.0


def spiked_eigenvalues(lam, s, diag, z: float = SPIKED_Z):
    r"""De-biased eigenvalues of a released symmetric matrix ``Ĉ = C + E`` (task PS).

    ``lam`` are the released eigenvalues ``λ̂`` in the order of the frame ``Û`` (its columns),
    ``s[a, b] = var(û_aᵀEû_b)`` (``a != b``) and ``diag[a] = var(û_aᵀEû_a)`` the public noise
    variances in that frame. The released eigenvalues of a noisy matrix spread as a whole (for a
    Wigner noise of off-diagonal variance ``σ²`` in dimension ``k``, a semicircle of radius
    ``2σ√k`` around the true value of an isotropic ``C``), which a pair's correction
    ``ĝ² − N_ab`` does not see. Here:

    1. **Clusters.** Sorted, adjacent released eigenvalues whose difference is below
       ``z·√N_ab`` join one cluster (``N_ab = diag_a + diag_b + 4 s_ab``).
    2. **The pull of the other clusters** (second order, the Schur complement's expectation).
       The eigenvalue equation of a direction ``u_i`` of ``C`` against the rest reads
       ``λ̂ = λ_i + e_ii + e_iᵀ(λ̂ − B)⁻¹e_i`` (``B`` the released rest, ``e_i`` the noise's
       couplings of ``u_i``), whose expectation in the released frame is
       ``λ̂_i ≈ λ_i + Σ_{j≠i} s_ij/(λ̂_i − λ̂_j)``. For one spike ``θ`` over a Wigner bulk at 0
       this is ``λ̂ = θ + kσ²/θ`` and its inversion ``θ = (λ̂ + √(λ̂² − 4kσ²))/2`` (the BBP
       outlier above the edge ``2σ√k``); with the released rest in place of the semicircle it
       holds for any noise variance profile and any rest spectrum, as long as ``λ̂_i`` is
       separated from the ``λ̂_j``. Each eigenvalue is corrected by the pull of the directions
       OUTSIDE its cluster, ``δ_i = Σ_{j∉B(i)} s_ij/(λ̂_i − λ̂_j)``.
    3. **Inside a cluster** ``B`` (two or more unresolved eigenvalues) the terms of the sum have
       both signs and no separation, so the inversion is not used. The released deviations
       ``d_i = λ̂_i − δ_i − μ_B`` from the cluster's mean ``μ_B`` have
       ``E Σ_B d_i² = Σ_B (λ_i − λ̄_B)² + n_B``, ``n_B = Σ_{a≠b∈B} s_ab + (1 − 1/|B|)Σ_B diag_a``
       (the centred trace of ``E_B²``: the noise's variances add to the spectrum's, as in a free
       convolution): the deviations are shrunk by ``√(max(Σ d² − n_B, 0)/Σ d²)``, so the
       cluster's estimated spread matches its de-noised second moment (0 where the noise explains
       all of it: an isotropic cluster, whose gaps are 0).

    Parameters
    ----------
    lam : ndarray (k,)
        Released eigenvalues in the frame's order.
    s : ndarray (k, k)
        Off-diagonal noise variances in the frame (the diagonal is ignored).
    diag : ndarray (k,)
        Diagonal noise variances in the frame.
    z : float
        The clusters' resolution in noise sds (:data:`SPIKED_Z`).

    Returns
    -------
    ndarray (k,)
        The de-biased eigenvalues, in the order of ``lam``.

    References
    ----------
    .. [1] J. Baik, G. Ben Arous and S. Péché, "Phase transition of the largest eigenvalue for
       nonnull complex sample covariance matrices", Ann. Probab. 33(5), 2005.
    .. [2] F. Benaych-Georges and R. R. Nadakuditi, "The eigenvalues and eigenvectors of finite,
       low rank perturbations of large random matrices", Adv. Math. 227(1), 2011.
    .. [3] matrixdp, ``docs/coinpress.md`` (§ Adaptive (PCA), "Spiked-model gaps (task PS)").
    """
    lam = np.asarray(lam, dtype=np.float64)
    k = lam.size
    s = np.array(s, dtype=np.float64, copy=True)
    np.fill_diagonal(s, 0.0)
    s = np.maximum(0.5 * (s + s.T), 0.0)
    diag = np.maximum(np.asarray(diag, dtype=np.float64), 0.0)
    o = np.argsort(-lam, kind="stable")
    ls, ss, ds = lam[o], s[np.ix_(o, o)], diag[o]
    # 1. clusters of adjacent unresolved eigenvalues (sorted order)
    n_adj = ds[:-1] + ds[1:] + 4.0 * ss[np.arange(k - 1), np.arange(1, k)]
    new = np.concatenate(([True], ls[:-1] - ls[1:] >= z * np.sqrt(n_adj)))
    label = np.cumsum(new) - 1
    same = label[:, None] == label[None, :]
    # 2. the pull of the directions outside the cluster (released rest, second order)
    diff = ls[:, None] - ls[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        pull = np.where(same | (diff == 0), 0.0, ss / np.where(same | (diff == 0), 1.0, diff))
    x = ls - pull.sum(axis=1)
    # 3. inside each cluster, the deviations shrunk to the de-noised second moment
    m = label.max() + 1
    size = np.bincount(label, minlength=m).astype(np.float64)
    mu = np.bincount(label, weights=x, minlength=m) / size
    d = x - mu[label]
    ssd = np.bincount(label, weights=d * d, minlength=m)
    off = np.where(same, ss, 0.0).sum(axis=1)
    noise = (np.bincount(label, weights=off, minlength=m)
             + (1.0 - 1.0 / size) * np.bincount(label, weights=ds, minlength=m))
    with np.errstate(divide="ignore", invalid="ignore"):
        shrink = np.where(ssd > 0, np.sqrt(np.maximum(ssd - noise, 0.0) / np.where(
            ssd > 0, ssd, 1.0)), 0.0)
    out = np.empty(k)
    out[o] = mu[label] + shrink[label] * d
    return out
