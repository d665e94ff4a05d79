"""MOD-SULQ (Chaudhuri, Sarwate, Sinha 2013): Gaussian noise on the second-moment matrix.

Records scaled into the unit ball by a public bound R; A = XᵀX/(nR²); release A + N with N
symmetric and its upper triangle (diagonal included) i.i.d. N(0, β²); PCs are the top
eigenvectors of A + N. The paper's β (Algorithm 2) is checked against the exact Gaussian
privacy profile for the upper triangle's exact L2 sensitivity √2/n before it is used; the
analytic-Gaussian σ for that sensitivity (the smallest valid one) is available as
``calibration="analytic"``.

Derivation: ``docs/baselines.md`` (section MOD-SULQ).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_choice, check_delta, check_epsilon
from ..calibration.gaussian import analytic_gaussian_sigma, gaussian_delta, gaussian_log_delta_for_shift
from ..errors import InvalidParameterError, InvalidPrivacyParameterError, UnsafeMechanismError
from ..mechanisms.base import PrivacyGuarantee
from ..mechanisms.draw import charged_noise
from .pca_release import PCARelease, top_eigenvectors, unit_ball_second_moment

__all__ = ["unit_ball_upper_sensitivity", "mod_sulq_beta", "mod_sulq_sigma", "mod_sulq"]

CALIBRATIONS = ("paper", "analytic")


def _check_dims(d, n) -> tuple[int, int]:
    if int(d) != d or d < 1:
        raise InvalidParameterError("d", f"must be a positive integer, got {d!r}")
    if int(n) != n or n < 1:
        raise InvalidParameterError("n", f"must be a positive integer, got {n!r}")
    return int(d), int(n)


def unit_ball_upper_sensitivity(d: int, n: int) -> float:
    r"""Exact L2 sensitivity of the upper triangle (diagonal included) of XᵀX/n, ‖x‖₂ ≤ 1.

    Replacing x by y changes the triangle by that of D = (xxᵀ − yyᵀ)/n, whose squared norm
    is (‖D‖_F² + Σ_i D_ii²)/2. With ‖x‖, ‖y‖ ≤ 1: n²‖D‖_F² = ‖x‖⁴ + ‖y‖⁴ − 2(xᵀy)² ≤ 2 and
    n²Σ_i D_ii² = Σ_i (x_i² − y_i²)² ≤ Σ_i x_i⁴ + y_i⁴ ≤ 2, both attained by x = e₁, y = e₂.
    Hence √2/n for d ≥ 2 (and 1/n for d = 1, where D = (x² − y²)/n).

    Parameters
    ----------
    d : int
        Number of features.
    n : int
        Number of records.

    Returns
    -------
    float

    References
    ----------
    .. [1] K. Chaudhuri, A. D. Sarwate, K. Sinha (2013). A near-optimal algorithm for
       differentially-private principal components. JMLR 14, 2905–2943.
    """
    d, n = _check_dims(d, n)
    return (math.sqrt(2.0) if d >= 2 else 1.0) / n


def mod_sulq_beta(d: int, n: int, epsilon: float, delta: float) -> float:
    r"""The paper's noise level (Algorithm 2 of [1]_).

    β = (d+1)/(nε) · sqrt(2 ln((d² + d)/(2√(2π) δ))) + 1/(n√ε).

    Raises
    ------
    InvalidPrivacyParameterError
        If the logarithm's argument is ≤ 1 (only for d = 1 and δ ≥ 1/√(2π) ≈ 0.399), where
        the formula is undefined.

    References
    ----------
    .. [1] K. Chaudhuri, A. D. Sarwate, K. Sinha (2013). A near-optimal algorithm for
       differentially-private principal components. JMLR 14, 2905–2943.
    """
    d, n = _check_dims(d, n)
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    argument = (d * d + d) / (2.0 * math.sqrt(2.0 * math.pi) * dlt)
    if argument <= 1.0:
        raise InvalidPrivacyParameterError(
            "delta", f"MOD-SULQ's β is undefined for d={d}, delta={dlt} (log argument {argument:.3g} <= 1)")
    return (d + 1) / (n * eps) * math.sqrt(2.0 * math.log(argument)) + 1.0 / (n * math.sqrt(eps))


def mod_sulq_sigma(d: int, n: int, epsilon: float, delta: float, *,
                   calibration: str = "paper") -> tuple[float, PrivacyGuarantee]:
    r"""Noise level and guarantee of MOD-SULQ on the unit-ball matrix XᵀX/n.

    Parameters
    ----------
    d, n : int
        Features and records.
    epsilon, delta : float
        Target guarantee (replace-one).
    calibration : {"paper", "analytic"}
        ``"paper"``: the paper's β, accepted only if the exact Gaussian privacy profile at
        the exact sensitivity :func:`unit_ball_upper_sensitivity` gives δ(ε) ≤ δ (it held,
        with a large margin, on every point of the grid we checked; an exception raises
        :class:`~matrixdp.errors.UnsafeMechanismError`). ``exact=False``: β is larger than
        needed. ``"analytic"``: the smallest valid σ (Balle & Wang), ``exact=True``.

    Returns
    -------
    (sigma, PrivacyGuarantee)

    References
    ----------
    .. [1] K. Chaudhuri, A. D. Sarwate, K. Sinha (2013). A near-optimal algorithm for
       differentially-private principal components. JMLR 14, 2905–2943.
    .. [2] B. Balle, Y.-X. Wang (2018). Improving the Gaussian mechanism for differential
       privacy: analytical calibration and optimal denoising. ICML.
    """
    check_choice(calibration, CALIBRATIONS, "calibration")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    sens = unit_ball_upper_sensitivity(d, n)
    if calibration == "analytic":
        sigma = analytic_gaussian_sigma(eps, dlt, sens)
        return sigma, PrivacyGuarantee(epsilon=eps, delta=dlt, calibration="analytic", exact=True,
                                       mechanism="mod-sulq")
    sigma = mod_sulq_beta(d, n, eps, dlt)
    true_delta = gaussian_delta(eps, sigma, sens)
    if not true_delta <= dlt:
        raise UnsafeMechanismError(
            f"MOD-SULQ's β = {sigma:.6g} gives δ({eps}) = {true_delta:.3g} > {dlt} at sensitivity "
            f"{sens:.6g}; use calibration='analytic'")
    log10_delta = gaussian_log_delta_for_shift(eps, sens / sigma) / math.log(10.0)
    ratio = sigma / analytic_gaussian_sigma(eps, dlt, sens)
    return sigma, PrivacyGuarantee(
        epsilon=eps, delta=dlt, calibration="paper (exact-profile checked)", exact=False,
        mechanism="mod-sulq",
        notes=(f"exact δ(ε) of the paper's β is 10^{log10_delta:.1f}; β = {ratio:.3g} × the analytic σ",))


def mod_sulq(X, *, epsilon: float, delta: float, n_components: int, row_norm_bound: float,
             calibration: str = "paper", rng=None) -> PCARelease:
    r"""MOD-SULQ: top-k eigenvectors of XᵀX/(nR²) + N, N symmetric Gaussian ((ε, δ)-DP).

    Guarantee: (ε, δ)-DP under replace-one neighbours for rows in the public R-ball. With
    ``calibration="paper"`` the paper's β is a sufficient bound (re-checked against the exact
    Gaussian profile on every call; ~100x the tight σ at d ≈ 100), ``privacy.exact=False``;
    ``"analytic"`` is tight for the triangle's exact sensitivity √2/n, ``privacy.exact=True``.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Records in rows (the paper uses columns), ‖x‖₂ ≤ ``row_norm_bound`` (checked).
    epsilon, delta : float
        Privacy parameters (replace-one).
    n_components : int
        k, the number of directions released.
    row_norm_bound : float
        Public bound R; records are scaled by 1/R into the unit ball.
    calibration : {"paper", "analytic"}
        See :func:`mod_sulq_sigma`.
    rng : None, int or Generator
        ``None`` (default) draws from the per-process secure stream; a seed or a Generator makes the
        draws reproducible, so a seeded release is replayable by anyone who knows the seed (they
        regenerate the noise and subtract it).

    Returns
    -------
    PCARelease
        ``covariance`` is R²(A + N), the noisy XᵀX/n; ``noise_scale`` is σ on A.

    References
    ----------
    .. [1] K. Chaudhuri, A. D. Sarwate, K. Sinha (2013). A near-optimal algorithm for
       differentially-private principal components. JMLR 14, 2905–2943 (Algorithm 2).
    """
    a, n = unit_ball_second_moment(X, row_norm_bound)
    d = a.shape[0]
    sigma, privacy = mod_sulq_sigma(d, n, epsilon, delta, calibration=calibration)
    with charged_noise(privacy, rng, label="mod-sulq") as src:
        upper = np.triu(src.gaussian((d, d), sigma))
    noisy = a + upper + np.triu(upper, 1).T
    r2 = float(row_norm_bound) ** 2
    return PCARelease(components=top_eigenvectors(noisy, n_components), covariance=noisy * r2,
                      privacy=privacy, noise_scale=sigma,
                      metadata={"calibration": calibration, "row_norm_bound": float(row_norm_bound)})
