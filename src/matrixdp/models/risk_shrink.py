"""A ridge on the fitted coefficients chosen by an unbiased estimate of its prediction risk
(``slope_shrink="sure"``; ``docs/regression.md`` §3d).

Pure post-processing of a fitted release: the fitted coefficients ``β̃``, the matrix the solve
inverted ``M``, the first-order covariance ``Ω`` of the noise in ``β̃`` (public: the release's
entry variances), the released second moments of the augmented records (the risk's weight) and
the public ridge metric. No budget, no randomness, no private data.
"""

from __future__ import annotations

import numpy as np

#: The ridge grid, in units of ``tr(M_ff) / tr(P)`` (the features' block of the solve's matrix
#: against the penalty's): ``0``, 49 log-spaced values over ``[1e-4, 1e4]``, and ``∞`` (slopes 0,
#: the level only). Public, fixed.
SURE_GRID = np.concatenate([[0.0], np.logspace(-4.0, 4.0, 49), [np.inf]])


#: The factors the noise covariance is read at (``docs/regression.md`` §3d): the chosen ``λ`` is the
#: smallest of the minimisers of ``R̂`` with ``Ω`` scaled by each.
SURE_NOISE_SCALES = (0.5,)
#: The ridge's metric: ``"noise"`` (the released Gram's diagonal noise sd, the adaptive ridge's
#: metric) or ``"gram"`` (the solve's own diagonal: a ridge on standardised coordinates).
SURE_METRIC = "gram"


def sure_ridge(beta, normal, cov, weight, penalty, *, n_free=0, grid=SURE_GRID,
               noise_scales=None):
    r"""The ridge ``λ`` on the grid that minimises the unbiased risk estimate, and its solution.

    Candidates ``β̂_λ = S_λ β̃``, ``S_λ = (M + λP)⁻¹ M`` (``P = diag(penalty)``, 0 on the last
    ``n_free`` coordinates, e.g. the intercept's constant: the level is refitted to the released
    means, not shrunk). With ``β̃ = β + e``, ``Cov(e) = Ω`` and ``W`` the risk's weight, the
    prediction risk ``R(λ) = E (β̂_λ − β)ᵀ W (β̂_λ − β)`` is
    ``βᵀ(S−I)ᵀW(S−I)β + tr(SᵀWSΩ)``, and ``E[β̃ᵀAβ̃] = βᵀAβ + tr(AΩ)`` makes

    .. math:: \hat R(λ) = β̃ᵀ(S−I)ᵀW(S−I)β̃ − \operatorname{tr}((S−I)ᵀW(S−I)Ω)
              + \operatorname{tr}(SᵀWSΩ)

    unbiased for it (``β̃`` read as unbiased for its target, ``M``, ``W``, ``Ω`` as fixed: the
    approximations of ``docs/regression.md`` §3d). ``λ = ∞``: the penalised coordinates are 0
    and the free ones solve their own block of ``M β̂ = M β̃``.

    Parameters
    ----------
    beta : ndarray (k,)
    normal : ndarray (k, k)
        The matrix the solve inverted (``M``).
    cov : ndarray (k, k)
        ``Ω``, the first-order noise covariance of ``beta``.
    weight : ndarray (k, k)
        ``W`` (PSD), e.g. the released second moments of the augmented records.
    penalty : ndarray (k,)
        The ridge metric, ``>= 0`` (0: not shrunk).
    n_free : int
        The number of trailing unpenalised coordinates whose value is refitted.

    Returns
    -------
    (beta_hat, lam, risks, S) : (ndarray, float, ndarray, ndarray)
        ``lam`` in the units of ``grid`` (``inf``: level only); ``risks`` the estimate per grid
        value; ``S`` the chosen linear map (``beta_hat = S beta``).

    References
    ----------
    .. [1] C. M. Stein, "Estimation of the mean of a multivariate normal distribution",
       Ann. Statist. 9(6), 1981.
    .. [2] C. L. Mallows, "Some comments on Cp", Technometrics 15(4), 1973.
    .. [3] matrixdp, ``docs/regression.md`` §3d.
    """
    b = np.asarray(beta, dtype=np.float64)
    M = np.asarray(normal, dtype=np.float64)
    M = 0.5 * (M + M.T)
    Om = np.asarray(cov, dtype=np.float64)
    W = np.asarray(weight, dtype=np.float64)
    P = np.asarray(penalty, dtype=np.float64).copy()
    k = b.size
    if n_free:
        P[k - n_free:] = 0.0
    pen = P > 0
    I = np.eye(k)
    scale = float(np.trace(M[np.ix_(pen, pen)])) / float(np.sum(P)) if np.any(pen) else 0.0
    scales = SURE_NOISE_SCALES if noise_scales is None else noise_scales
    risks = np.full((len(scales), len(grid)), np.inf)
    mats = []
    for j, g in enumerate(grid):
        if not np.any(pen):
            S = I
        elif np.isinf(g):
            S = np.zeros((k, k))
            free = ~pen
            if np.any(free):  # the free block of M β̂ = M β̃ with the penalised coordinates 0
                Mf = M[np.ix_(free, free)]
                S[np.ix_(free, np.arange(k))] = np.linalg.lstsq(Mf, M[free, :], rcond=None)[0]
        else:
            S = np.linalg.lstsq(M + g * scale * np.diag(P), M, rcond=None)[0]
        D = S - I
        DWD = D.T @ W @ D
        SWS = S.T @ W @ S
        for i, c in enumerate(scales):
            risks[i, j] = float(b @ DWD @ b) + c * (float(np.sum((SWS - DWD) * Om)))
        mats.append(S)
    j = min(int(np.argmin(r)) for r in risks)
    return mats[j] @ b, float(grid[j]), risks[0], mats[j]
