r"""Calibration on the integer lattice: discrete Gaussian and discrete Laplace (pure, no randomness).

The exact-numerics path releases a value ``x`` as ``g·(R(x/g) + Z)``: the value is
rounded to the lattice gℤᵈ (g a public power of two, so ``x/g`` is exact in
floating point and R is round-to-nearest), integer noise Z is added, and the float
is formed at the end. Privacy is that of the integer mechanism R(x/g) + Z, whose
sensitivity on ℤᵈ is bounded here, in integers:

* L2: ‖R(x/g) − R(x′/g)‖₂² ≤ ⌊(Δ₂/g + √k)²⌋ where k is the number of entries that
  can differ between neighbours (default: all d). Proof: per entry
  |R(a) − R(b)| ≤ |a − b| + 1 and = 0 when a = b, so by Minkowski
  ‖v‖₂ ≤ ‖(x − x′)/g‖₂ + ‖1_changed‖₂ ≤ Δ₂/g + √k, and ‖v‖₂² is an integer.
* L1: ‖v‖₁ ≤ ⌊Δ₁/g + k⌋ by the same per-entry bound.

The discrete Gaussian's guarantee (:func:`discrete_gaussian_delta`) is proven for
every integer shift of squared norm ≤ D₂: CKS20 (Section 2) show the
multivariate discrete Gaussian has Rényi divergence ≤ α‖v‖²/(2σ²) — ρ-zCDP with
ρ = D₂/(2σ²), the same as the continuous Gaussian — and (ε, δ) follows from the
optimal zCDP conversion (given in CKS20 and Asoodeh et al. 2020). In one dimension the exact
profile (CKS20 Thm 7) is :func:`discrete_gaussian_delta_1d`. The discrete Laplace
with scale b is exactly Δ₁/b-DP for integer shifts of L1 norm ≤ Δ₁.

The derivation is in ``docs/numerics.md``.

References
----------
.. [1] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
   Differential Privacy", NeurIPS 2020 (arXiv:2004.00010).
.. [2] M. Bun and T. Steinke, "Concentrated Differential Privacy: Simplifications,
   Extensions, and Lower Bounds", TCC 2016.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .._validation import check_delta, check_epsilon, check_nonnegative_epsilon, check_positive
from ..errors import InvalidParameterError, InvalidPrivacyParameterError

__all__ = [
    "default_granularity",
    "lattice_l2_sensitivity_squared",
    "lattice_l1_sensitivity",
    "discrete_gaussian_normaliser",
    "discrete_gaussian_pmf",
    "discrete_gaussian_variance",
    "discrete_gaussian_delta_1d",
    "zcdp_delta",
    "discrete_gaussian_delta",
    "discrete_gaussian_sigma2",
    "discrete_laplace_scale",
    "discrete_laplace_variance",
]

#: Default relative inflation of the sensitivity by the rounding (g·√k ≤ 2⁻¹⁰ Δ₂).
DEFAULT_INFLATION = 2.0 ** -10


def _check_size(size, argument: str = "size") -> int:
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise InvalidParameterError(argument, f"must be an integer >= 1, got {size!r}")
    return int(size)


def _check_power_of_two(granularity) -> Fraction:
    g = check_positive(granularity, "granularity")
    mantissa, _ = math.frexp(g)
    if mantissa != 0.5:
        raise InvalidParameterError(
            "granularity", f"must be a power of two (so that x / g is exact), got {granularity!r}")
    return Fraction(g)


def default_granularity(sensitivity, changed_entries, *, norm: str = "l2",
                        inflation: float = DEFAULT_INFLATION) -> float:
    r"""The largest power of two g whose rounding inflates the sensitivity by at most ``inflation``.

    L2: g·√k ≤ inflation·Δ₂; L1: g·k ≤ inflation·Δ₁ (k = ``changed_entries``). The
    lattice step is then a fixed small fraction of Δ, hence of σ (σ ∝ Δ).

    Parameters
    ----------
    sensitivity : float
        Δ₂ or Δ₁ (public).
    changed_entries : int
        How many entries can differ between neighbours (default in the mechanisms: all).
    norm : {"l2", "l1"}
    inflation : float
        In (0, 1).

    Returns
    -------
    float
        A power of two.
    """
    delta = check_positive(sensitivity, "sensitivity", InvalidPrivacyParameterError)
    k = _check_size(changed_entries, "changed_entries")
    infl = check_positive(inflation, "inflation")
    if norm == "l2":
        target = infl * delta / math.sqrt(k)
    elif norm == "l1":
        target = infl * delta / k
    else:
        raise InvalidParameterError("norm", f"must be 'l2' or 'l1', got {norm!r}")
    return math.ldexp(1.0, math.floor(math.log2(target)))


def lattice_l2_sensitivity_squared(sensitivity, granularity, changed_entries) -> int:
    r"""Integer bound D₂ ≥ ‖R(x/g) − R(x′/g)‖₂² for ‖x − x′‖₂ ≤ Δ₂ (round-to-nearest R).

    D₂ = ⌊(Δ₂/g + √k)²⌋, computed exactly (Δ₂ and g are read as the dyadic
    rationals they store; √k is bounded above by a rational within 2⁻⁴⁰).
    """
    a = Fraction(check_positive(sensitivity, "sensitivity", InvalidPrivacyParameterError))
    a /= _check_power_of_two(granularity)
    k = _check_size(changed_entries, "changed_entries")
    root = math.isqrt(k)
    sqrt_hi = Fraction(root) if root * root == k else Fraction(math.isqrt(k << 80) + 1, 1 << 40)
    return math.floor(a * a + 2 * a * sqrt_hi + k)


def lattice_l1_sensitivity(sensitivity, granularity, changed_entries) -> int:
    r"""Integer bound D₁ ≥ ‖R(x/g) − R(x′/g)‖₁ for ‖x − x′‖₁ ≤ Δ₁: D₁ = ⌊Δ₁/g + k⌋."""
    a = Fraction(check_positive(sensitivity, "sensitivity", InvalidPrivacyParameterError))
    a /= _check_power_of_two(granularity)
    return math.floor(a + _check_size(changed_entries, "changed_entries"))


# ----------------------------------------------------------- the distribution
def _as_sigma2(sigma2) -> float:
    s2 = float(sigma2)
    if not (math.isfinite(s2) and s2 > 0):
        raise InvalidParameterError("sigma2", f"must be finite and > 0, got {sigma2!r}")
    return s2


def discrete_gaussian_normaliser(sigma2) -> float:
    r"""Θ(σ²) = Σ_{k∈ℤ} exp(−k²/(2σ²)) (direct sum for σ² < 0.1, Jacobi/Poisson form otherwise).

    Poisson summation: Θ = √(2πσ²)·(1 + 2 Σ_{m≥1} exp(−2π²σ²m²)).
    """
    s2 = _as_sigma2(sigma2)
    if s2 < 0.1:
        k = np.arange(1, 40)
        return float(1.0 + 2.0 * np.sum(np.exp(-k * k / (2.0 * s2))))
    m = np.arange(1, 12)
    return float(math.sqrt(2 * math.pi * s2) * (1.0 + 2.0 * np.sum(np.exp(-2 * math.pi ** 2 * s2 * m * m))))


def discrete_gaussian_pmf(k, sigma2) -> np.ndarray:
    """P(Z = k) for the discrete Gaussian with parameter σ² (``k`` integer array)."""
    s2 = _as_sigma2(sigma2)
    kk = np.asarray(k, dtype=float)
    return np.exp(-kk * kk / (2.0 * s2)) / discrete_gaussian_normaliser(s2)


def discrete_gaussian_variance(sigma2) -> float:
    r"""E[Z²] of the discrete Gaussian (its mean is 0), in closed form.

    From Θ(s) = √(2πs)(1 + 2Σ e^{−2π²sm²}) and E[Z²] = 2s²Θ′(s)/Θ(s):

    .. math:: \mathrm{Var} = s - 8\pi^2 s^2 \frac{\sum_m m^2 e^{-2\pi^2 s m^2}}{1 + 2\sum_m e^{-2\pi^2 s m^2}}

    (s = σ²; so Var < σ², and Var/σ² → 1 exponentially fast). For s < 0.1 the
    defining sum is used.
    """
    s = _as_sigma2(sigma2)
    if s < 0.1:
        k = np.arange(1, 40, dtype=float)
        w = np.exp(-k * k / (2.0 * s))
        return float(2.0 * np.sum(k * k * w) / (1.0 + 2.0 * np.sum(w)))
    m = np.arange(1, 12, dtype=float)
    e = np.exp(-2 * math.pi ** 2 * s * m * m)
    return float(s - 8 * math.pi ** 2 * s * s * np.sum(m * m * e) / (1.0 + 2.0 * np.sum(e)))


# --------------------------------------------------------------- privacy
def discrete_gaussian_delta_1d(epsilon, sigma2, shift: int) -> float:
    r"""Exact δ(ε) of Z ↦ x + Z, Z discrete Gaussian, for neighbours at integer distance ``shift``.

    CKS20 Theorem 7: δ = P[Z > εσ²/Δ − Δ/2] − e^ε P[Z > εσ²/Δ + Δ/2]. It is
    evaluated as Σ_{k > εσ²/Δ − Δ/2} (p(k) − e^ε p(k + Δ)), a sum of positive terms.
    Meant for moderate σ (the sum has ~40σ terms).
    """
    eps = check_nonnegative_epsilon(epsilon)
    s2 = _as_sigma2(sigma2)
    if isinstance(shift, bool) or not isinstance(shift, (int, np.integer)) or shift < 1:
        raise InvalidParameterError("shift", f"must be an integer >= 1, got {shift!r}")
    d = int(shift)
    lo = math.floor(eps * s2 / d - d / 2) + 1
    sigma = math.sqrt(s2)
    hi = lo + int(60 * sigma + 4 * d + 60)
    k = np.arange(lo, hi, dtype=float)
    log_theta = math.log(discrete_gaussian_normaliser(s2))
    log_p = -k * k / (2 * s2) - log_theta
    log_q = -(k + d) ** 2 / (2 * s2) - log_theta + eps
    terms = np.exp(log_p) * -np.expm1(log_q - log_p)
    return float(math.fsum(np.maximum(terms, 0.0)))


def zcdp_delta(epsilon, rho) -> float:
    r"""δ(ε) implied by ρ-zCDP, via the optimal conversion (CKS20; Asoodeh et al. 2020).

    .. math:: \delta = \inf_{\alpha > 1} \frac{e^{(\alpha-1)(\alpha\rho - \varepsilon)}}{\alpha}
              \Big(1 - \frac1\alpha\Big)^{\alpha - 1}

    Every α gives a valid bound, so the numerical minimisation can only lose
    tightness, never validity.
    """
    eps = check_nonnegative_epsilon(epsilon)
    r = check_positive(rho, "rho")
    return min(1.0, math.exp(_zcdp_log_delta(eps, r)) * (1 + 1e-12))


def _zcdp_log_delta(eps: float, r: float) -> float:
    def log_delta(log_am1: float) -> float:
        am1 = math.exp(log_am1)
        alpha = 1.0 + am1
        return am1 * (alpha * r - eps) - math.log(alpha) + am1 * (math.log(am1) - math.log(alpha))

    centre = min(max(math.log(max((eps + r) / (2 * r) - 1.0, 1e-9)), -25.0), 45.0)
    from scipy.optimize import minimize_scalar   # lazy: `import matrixdp` stays scipy-free

    res = minimize_scalar(log_delta, bounds=(centre - 8.0, centre + 8.0), method="bounded",
                          options={"xatol": 1e-12})
    return min(float(res.fun), log_delta(centre), 0.0)


def discrete_gaussian_delta(epsilon, sigma2, sensitivity_squared) -> float:
    r"""A proven δ(ε) for x ↦ x + Z on ℤᵈ, Z i.i.d. discrete Gaussian, ‖x − x′‖₂² ≤ D₂.

    ρ = D₂/(2σ²) (CKS20 §2: exactly the continuous Gaussian's zCDP) and the
    optimal zCDP → (ε, δ) conversion :func:`zcdp_delta`. Valid in any dimension.
    """
    s2 = _as_sigma2(sigma2)
    d2 = check_positive(sensitivity_squared, "sensitivity_squared", InvalidPrivacyParameterError)
    return zcdp_delta(epsilon, d2 / (2.0 * s2))


def _rho_for(epsilon: float, delta: float) -> float:
    """The largest ρ with zcdp_delta(ε, ρ) ≤ δ (bisection on log ρ)."""
    f = lambda lr: _zcdp_log_delta(epsilon, math.exp(lr)) - math.log(delta)
    lo, hi = math.log(1e-12), math.log(1e6)
    if f(lo) > 0:
        raise InvalidPrivacyParameterError("delta", f"is too small for epsilon={epsilon!r}")
    if f(hi) < 0:
        # rho above 1e6 (scipy's "f(a) and f(b) must have different signs" before, hunt HY)
        raise InvalidPrivacyParameterError(
            "epsilon", f"is too large for the exact (discrete Gaussian) calibration at "
                       f"delta={delta!r}: zCDP rho would exceed 1e6; use numerics='float'")
    from scipy.optimize import brentq             # lazy: `import matrixdp` stays scipy-free

    return math.exp(brentq(f, lo, hi, xtol=1e-14, rtol=1e-14))


def discrete_gaussian_sigma2(epsilon, delta, sensitivity_squared) -> Fraction:
    r"""σ² (a rational) for which the lattice discrete Gaussian meets (ε, δ) at ‖v‖₂² ≤ D₂.

    The target σ² = D₂/(2ρ*) with ρ* the largest ρ whose zCDP conversion meets δ is
    rounded *up* (so privacy is never overstated, relative step ≤ 2⁻²³) to the form
    t·M/2^q with t = ⌊σ⌋ + 1, in which the exact sampler's arithmetic stays in
    int64; the result is checked against δ before it is returned.
    """
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    d2 = check_positive(sensitivity_squared, "sensitivity_squared", InvalidPrivacyParameterError)
    target = Fraction(d2) / (2 * Fraction(_rho_for(eps, dlt)))
    for bump in range(64):
        tgt = target * (1 + Fraction(bump, 1 << 20))
        s2 = _sampler_friendly(tgt)
        if discrete_gaussian_delta(eps, s2, d2) <= dlt:
            return s2
    raise RuntimeError("discrete Gaussian calibration did not converge")  # pragma: no cover


def _sampler_friendly(target: Fraction) -> Fraction:
    """The smallest t·M/Q ≥ target with t = ⌊√target⌋ + 1, Q = 2^q, σ·Q ≈ 2²⁴ (relative step ≤ 2⁻²³).

    In this form the exact sampler's acceptance test is γ = (|y|Q − M)²/(2tMQ): all
    its integers stay below 2⁶² for proposals within ~45σ of 0.
    """
    t = math.isqrt(math.floor(target)) + 1
    q = max(0, 24 - t.bit_length())
    return Fraction(t * math.ceil(target * (1 << q) / t), 1 << q)


def discrete_laplace_scale(epsilon, sensitivity) -> Fraction:
    r"""A rational scale b ≥ D₁/ε (numerator < 2⁵⁶) for the ε-DP discrete Laplace.

    For integer shifts with L1 norm ≤ D₁ the privacy loss of P(z) ∝ e^{−|z|/b} is at
    most D₁/b ≤ ε, for every output (pure ε-DP, exactly). ε is read as the dyadic
    rational it stores; when b's numerator would exceed 2⁵⁶ it is rounded up on a
    2⁻ᵏ grid (relative change < 2⁻⁴⁹).
    """
    eps = Fraction(check_epsilon(epsilon))
    d1 = Fraction(check_positive(sensitivity, "sensitivity", InvalidPrivacyParameterError))
    b = d1 / eps
    if b.numerator < (1 << 56):
        return b
    k = max(0, 50 - math.ceil(b).bit_length())
    return Fraction(math.ceil(b * (1 << k)), 1 << k)


def discrete_laplace_variance(scale) -> float:
    r"""Var of the discrete Laplace with scale b: 2e^{−1/b}/(1 − e^{−1/b})²."""
    b = float(check_positive(float(scale), "scale"))
    q = math.exp(-1.0 / b)
    return 2.0 * q / (-math.expm1(-1.0 / b)) ** 2
