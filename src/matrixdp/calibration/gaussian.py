"""Calibration of the Gaussian mechanism: classic, analytic (exact) and its privacy profile.

Pure functions, no randomness. The exact profile is the oracle used by the
auditor and by the exact calibration of the MVG mechanism; the derivation is in
``docs/gaussian.md``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .._validation import (check_delta, check_epsilon, check_noise_scale,
                           check_nonnegative_epsilon, check_positive, check_sensitivity)
from ..errors import InvalidPrivacyParameterError

__all__ = [
    "classic_gaussian_sigma",
    "analytic_gaussian_sigma",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_log_delta_for_shift",
    "max_gaussian_shift",
]


def classic_gaussian_sigma(epsilon, delta, sensitivity) -> float:
    r"""Noise scale of the classic Gaussian mechanism (Dwork & Roth 2014, Thm A.1).

    .. math:: \sigma = \Delta_2 \sqrt{2\ln(1.25/\delta)}/\varepsilon

    Parameters
    ----------
    epsilon : float
        Privacy parameter, must satisfy ``0 < epsilon < 1`` (the theorem's range).
    delta : float
        Privacy parameter in (0, 1).
    sensitivity : float
        L2 sensitivity :math:`\Delta_2 > 0`.

    Returns
    -------
    float
        The standard deviation of the per-coordinate noise.

    Raises
    ------
    InvalidPrivacyParameterError
        If ``epsilon >= 1`` (the classic bound is not proved there; use
        :func:`analytic_gaussian_sigma`), any argument is out of range, or σ under- or
        overflows float64 (``check_noise_scale``).

    References
    ----------
    .. [1] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", Found. Trends Theor. Comput. Sci. 9(3-4), 2014, Theorem A.1.
    """
    eps = check_epsilon(epsilon)
    if eps >= 1:
        raise InvalidPrivacyParameterError(
            "epsilon", f"the classic Gaussian calibration holds only for epsilon in (0, 1), got "
                       f"{epsilon!r}; use calibration='analytic'")
    d = check_delta(delta)
    sens = check_sensitivity(sensitivity)
    return check_noise_scale(sens * math.sqrt(2.0 * math.log(1.25 / d)) / eps, eps, sens)


def gaussian_log_delta_for_shift(epsilon: float, shift: float) -> float:
    r"""Natural log of the exact :math:`\delta(\varepsilon)` of N(0,1) vs N(shift, 1).

    .. math:: \delta = \Phi(\mu/2 - \varepsilon/\mu) - e^{\varepsilon}\Phi(-\mu/2 - \varepsilon/\mu)

    computed as :math:`\log\Phi(a) + \log(1 - e^{\varepsilon + \log\Phi(b) - \log\Phi(a)})`
    so that it stays accurate when both terms are tiny. Internal: arguments are
    trusted (``epsilon >= 0``, ``shift >= 0``). Returns ``-inf`` for a zero shift.
    """
    if shift <= 0:
        return -math.inf
    if math.isinf(shift):
        return 0.0
    from scipy.special import log_ndtr  # lazy: keeps scipy out of ``import matrixdp``

    a = shift / 2.0 - epsilon / shift
    b = -shift / 2.0 - epsilon / shift
    log_pa = float(log_ndtr(a))
    if log_pa == -math.inf:
        # a below about -1e154 (huge epsilon, or a shift tiny against epsilon): delta <= Phi(a)
        # < exp(-1e308), zero in any precision; the subtraction below would be -inf - -inf = NaN
        return -math.inf
    log_eb = epsilon + float(log_ndtr(b))
    diff = log_eb - log_pa
    # 1 - e^diff carries a relative error of about eps_machine * |log_pa| / |diff|. When
    # the two terms nearly cancel (tiny epsilon and delta), recompute in extended precision
    # rather than return a delta that may be too small (an unsafe calibration).
    if -diff < _CANCELLATION_TOLERANCE * max(1.0, abs(log_pa), epsilon):
        return _log_delta_extended(epsilon, shift, -diff)
    return log_pa + math.log(-math.expm1(diff))


#: Below this ratio of |diff| to the magnitude of the log terms, double precision may lose
#: more than ~3 of its 16 digits in the profile: the extended-precision path takes over.
_CANCELLATION_TOLERANCE = 1e-3


def _log_delta_extended(epsilon: float, shift: float, neg_diff: float) -> float:
    """ln δ for N(0,1) vs N(shift,1) at ``epsilon`` with mpmath, at a precision that covers the
    cancellation, raised until two precisions agree to 1e-15 relative."""
    import mpmath

    # digits lost to the terms' size: log10 of max(1, epsilon, (epsilon/shift)^2), computed in
    # logs (``shift ** -2`` and ``epsilon ** 2`` overflow for a tiny shift or a huge epsilon)
    lost = max(0.0, math.log10(epsilon) if epsilon > 0 else 0.0,
               2.0 * math.log10(epsilon / shift) if epsilon > 0 else 0.0) + math.log10(2.0)
    lost += -math.log10(neg_diff) if neg_diff > 0 else 30.0
    dps = int(30 + lost)
    previous = None
    while dps <= 4000:
        with mpmath.workdps(dps):
            eps, mu = mpmath.mpf(epsilon), mpmath.mpf(shift)
            delta = mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu)
            value = -math.inf if delta <= 0 else float(mpmath.log(delta))
        if previous is not None and (value == previous or
                                     abs(value - previous) <= 1e-15 * max(1.0, abs(value))):
            return value
        previous = value
        dps *= 2
    return previous  # pragma: no cover - 4000 digits always suffice for doubles


def gaussian_delta(epsilon, sigma, sensitivity) -> float:
    r"""Exact privacy profile :math:`\delta(\varepsilon)` of the Gaussian mechanism.

    For noise :math:`N(0, \sigma^2 I)` and L2 sensitivity :math:`\Delta`, the
    smallest :math:`\delta` for which the mechanism is :math:`(\varepsilon,\delta)`-DP is

    .. math:: \delta(\varepsilon) = \Phi\!\left(\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\right)
              - e^{\varepsilon}\,\Phi\!\left(-\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\right).

    The same formula gives the exact profile of any correlated Gaussian noise
    once ``sensitivity / sigma`` is replaced by the Mahalanobis sensitivity.

    Parameters
    ----------
    epsilon : float
        ``epsilon >= 0``.
    sigma : float
        Noise standard deviation, > 0.
    sensitivity : float
        L2 sensitivity, > 0.

    Returns
    -------
    float
        :math:`\delta(\varepsilon)` in [0, 1).

    References
    ----------
    .. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
       Differential Privacy: Analytical Calibration and Optimal Denoising",
       ICML 2018, Theorem 8.
    """
    eps = check_nonnegative_epsilon(epsilon)
    s = check_positive(sigma, "sigma", InvalidPrivacyParameterError)
    sens = check_sensitivity(sensitivity)
    return math.exp(gaussian_log_delta_for_shift(eps, sens / s))


def max_gaussian_shift(epsilon, delta) -> float:
    r"""The largest shift :math:`\mu^*` such that N(0,1) vs N(μ,1) is (ε, δ)-indistinguishable.

    Solves ``gaussian_delta(epsilon, 1, mu) == delta`` for ``mu``. A Gaussian
    mechanism (of any covariance) is (ε, δ)-DP iff its Mahalanobis sensitivity
    is at most :math:`\mu^*`; ``analytic_gaussian_sigma`` is ``sensitivity / mu*``.

    Parameters
    ----------
    epsilon : float
        > 0.
    delta : float
        In (0, 1).

    Returns
    -------
    float
        :math:`\mu^* > 0`.
    """
    return _max_gaussian_shift(check_epsilon(epsilon), check_delta(delta))


@functools.lru_cache(maxsize=256)
def _max_gaussian_shift(eps: float, d: float) -> float:
    """:func:`max_gaussian_shift` on validated floats (a pure function of public inputs: cached)."""
    target = math.log(d)

    def f(log_mu: float) -> float:
        return gaussian_log_delta_for_shift(eps, math.exp(log_mu)) - target

    lo, hi = 0.0, 0.0
    # log-delta increases with mu; expand a bracket geometrically.
    while f(lo) > 0:
        lo -= 2.0
    while f(hi) < 0:
        hi += 1.0
    from scipy.optimize import brentq  # lazy: scipy.optimize costs ~0.3 s at import

    log_mu = brentq(f, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    # Err on the private side: step below the root by a relative 1e-12 (well above the
    # profile's evaluation error) and until the computed delta does not exceed the target.
    log_mu -= _SAFETY_MARGIN
    while f(log_mu) > 0:
        log_mu -= _SAFETY_MARGIN
    return math.exp(log_mu)


#: Relative step below the root of the profile (see :func:`max_gaussian_shift`).
_SAFETY_MARGIN = 1e-12
#: Largest ε :func:`gaussian_epsilon` searches (beyond, it reports ``inf``).
_EPSILON_MAX = 1e300


def analytic_gaussian_sigma(epsilon, delta, sensitivity) -> float:
    r"""Smallest σ for which the Gaussian mechanism is (ε, δ)-DP (analytic Gaussian mechanism).

    Exact for every ``epsilon > 0`` (unlike :func:`classic_gaussian_sigma`):
    σ = Δ / μ*(ε, δ), with μ* from :func:`max_gaussian_shift`.

    Parameters
    ----------
    epsilon : float
        > 0.
    delta : float
        In (0, 1).
    sensitivity : float
        L2 sensitivity, > 0.

    Returns
    -------
    float
        σ; e.g. ε = 1, δ = 1e-5, Δ = 1 gives σ ≈ 3.7306.

    Raises
    ------
    InvalidPrivacyParameterError
        For an argument out of range, or when σ underflows to 0 (no noise would be added) or
        σ² overflows float64 (extreme ``sensitivity / epsilon``).

    References
    ----------
    .. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
       Differential Privacy: Analytical Calibration and Optimal Denoising",
       ICML 2018, Algorithm 1.
    """
    sens = check_sensitivity(sensitivity)
    mu = max_gaussian_shift(epsilon, delta)
    return check_noise_scale(sens / mu, float(epsilon), sens)


def gaussian_epsilon(delta, sigma, sensitivity) -> float:
    r"""Inverse of :func:`gaussian_delta` in ε: the smallest ε ≥ 0 with δ(ε) <= ``delta``.

    Parameters
    ----------
    delta : float
        In (0, 1).
    sigma : float
        Noise standard deviation, > 0.
    sensitivity : float
        L2 sensitivity, > 0.

    Returns
    -------
    float
        ε (0.0 if even ε = 0 meets ``delta``; ``inf`` if no float64 ε does: the shift
        ``sensitivity / sigma`` above about 1e150 needs ε ≈ shift²/2 beyond float64's range).
    """
    d = check_delta(delta)
    s = check_positive(sigma, "sigma", InvalidPrivacyParameterError)
    sens = check_sensitivity(sensitivity)
    mu = sens / s
    target = math.log(d)

    def f(eps: float) -> float:
        return gaussian_log_delta_for_shift(eps, mu) - target

    if f(0.0) <= 0:
        return 0.0
    hi = max(1.0, mu)
    while f(hi) > 0:
        hi *= 2.0
        if hi > _EPSILON_MAX:
            return math.inf
    from scipy.optimize import brentq

    eps = brentq(f, 0.0, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500)
    # Report the safe side of the root: delta falls as epsilon grows.
    step = _SAFETY_MARGIN * max(eps, 1e-3)
    eps += step
    while f(eps) > 0:
        eps += step
    return eps

