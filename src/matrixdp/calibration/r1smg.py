r"""Calibration math of the rank-1 singular multivariate Gaussian (R1SMG) mechanism (pure).

Everything here reproduces Ji & Li (2024) *as published*, plus the functions
that measure what the published calibration really gives. The paper's
Theorem 5 is **not sound**: R1SMG at ``r1smg_sigma_star(ε, δ, Δ, M)`` is not
(ε, δ)-DP (see ``docs/r1smg.md``). The true privacy profile is
:func:`r1smg_true_delta`; :func:`r1smg_ball_delta_lower_bound` is the closed-form
counterexample.

Dimensions: ``dim`` is the number of released entries M (M·N for a matrix
query, which is flattened before the noise is drawn).

References
----------
.. [1] T. Ji and P. Li, "Less is More: Revisiting the Gaussian Mechanism for
   Differential Privacy", USENIX Security 2024 (arXiv:2306.02256v3).
"""

from __future__ import annotations

import math
import warnings
from functools import lru_cache

import numpy as np

from .._validation import check_delta, check_epsilon, check_sensitivity
from ..errors import InvalidParameterError

__all__ = [
    "r1smg_log_psi",
    "r1smg_psi",
    "r1smg_theta0",
    "r1smg_sigma_star",
    "r1smg_accuracy_loss_constant",
    "r1smg_expected_accuracy_loss",
    "paper_classic_constant",
    "paper_analytic_constant",
    "paper_mvg_constant",
    "r1smg_kurtosis",
    "r1smg_skewness",
    "iid_gaussian_kurtosis",
    "iid_gaussian_skewness",
    "gaussian_loss_raw_moments",
    "gaussian_loss_kurtosis",
    "gaussian_loss_skewness",
    "lemma2_angle_bound",
    "r1smg_equivalent_gaussian_epsilon",
    "r1smg_log_noise_density",
    "r1smg_privacy_loss",
    "r1smg_ball_delta_lower_bound",
    "r1smg_true_delta",
    "Remark1Warning",
]


class Remark1Warning(UserWarning):
    """ε ≥ 1/M: outside the paper's (heuristic) Remark 1 range for R1SMG."""


def check_r1smg_dim(dim) -> int:
    """Validate R1SMG's dimension M: an integer > 2 (Lemma 2 of Ji & Li needs it)."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise InvalidParameterError("dim", f"must be an integer > 2, got {dim!r}")
    if dim <= 2:
        raise InvalidParameterError(
            "dim", f"R1SMG needs M > 2 (Lemma 2 of Ji & Li requires it), got {dim!r}")
    return int(dim)


# --------------------------------------------------------------------- Theorem 5
def r1smg_log_psi(dim: int, delta: float) -> float:
    r"""Natural log of the paper's ψ (Theorem 5), computed with ``gammaln``.

    .. math:: \log\psi = \frac{2}{M-2}\Big(\log\delta + \log\Gamma\big(\tfrac{M-1}{2}\big)
              - \tfrac12\log\pi - \log\Gamma\big(\tfrac M2\big)\Big)

    Stable for M in the millions (no Γ overflow).

    Parameters
    ----------
    dim : int
        M > 2.
    delta : float
        In (0, 1).

    Returns
    -------
    float
        log ψ < 0.
    """
    m = check_r1smg_dim(dim)
    d = check_delta(delta)
    return (2.0 / (m - 2)) * (math.log(d) + _special().gammaln((m - 1) / 2.0)
                              - 0.5 * math.log(math.pi) - _special().gammaln(m / 2.0))


def r1smg_psi(dim: int, delta: float) -> float:
    r"""The paper's ψ = (δ Γ((M−1)/2) / (√π Γ(M/2)))^{2/(M−2)} ∈ (0, 1).

    Closed forms: ψ(3, δ) = (2δ/π)², ψ(4, δ) = δ/2; ψ → 1 as M → ∞.
    """
    return math.exp(r1smg_log_psi(dim, delta))


def r1smg_theta0(dim: int, delta: float) -> float:
    """The angle θ₀ (radians) with cos²θ₀ = ψ (the paper's Lemma 2 event)."""
    return math.acos(math.exp(0.5 * r1smg_log_psi(dim, delta)))


def r1smg_sigma_star(epsilon, delta, sensitivity, dim, *, remark1: str = "warn") -> float:
    r"""The paper's R1SMG noise eigenvalue σ* = 2Δ²/(εψ) (Theorem 5, with equality).

    **Not a valid calibration**: noise of this size is not (ε, δ)-DP (the spec's
    §8.1; :func:`r1smg_true_delta` gives the real δ). Provided for reproduction.

    Parameters
    ----------
    epsilon : float
        > 0. The paper's Remark 1 asks for ε < 1/M (a heuristic, not derived).
    delta : float
        In (0, 1).
    sensitivity : float
        L2 (Frobenius) sensitivity Δ > 0.
    dim : int
        Number of released entries M > 2.
    remark1 : {"warn", "raise", "ignore"}
        What to do when ε ≥ 1/M.

    Returns
    -------
    float
        σ* = E‖n‖².

    References
    ----------
    .. [1] Ji & Li 2024, Theorem 5 and Remark 1.
    """
    eps = check_epsilon(epsilon)
    sens = check_sensitivity(sensitivity)
    log_psi = r1smg_log_psi(dim, delta)
    if remark1 not in ("warn", "raise", "ignore"):
        raise InvalidParameterError("remark1", f"must be 'warn', 'raise' or 'ignore', got {remark1!r}")
    if eps * dim >= 1.0 and remark1 != "ignore":
        msg = (f"epsilon={eps:g} >= 1/M = {1.0 / dim:g}: outside the range of the paper's "
               "Remark 1 (a heuristic; no range of epsilon makes R1SMG private)")
        if remark1 == "raise":
            raise InvalidParameterError("epsilon", msg)
        warnings.warn(msg, Remark1Warning, stacklevel=2)
    return 2.0 * sens ** 2 / (eps * math.exp(log_psi))


# ------------------------------------------------------- Theorem 7 / Table 1
def r1smg_accuracy_loss_constant(epsilon, delta, dim) -> float:
    """The paper's C_R = 2/(εψ): E[ℒ] = σ* = C_R Δ² (Theorem 7); decreases to 2/ε as M grows."""
    eps = check_epsilon(epsilon)
    return 2.0 / (eps * r1smg_psi(dim, delta))


def r1smg_expected_accuracy_loss(epsilon, delta, sensitivity, dim) -> float:
    """E[ℒ] = E‖n‖² = σ* of R1SMG at the paper's calibration (Theorem 7)."""
    return r1smg_sigma_star(epsilon, delta, sensitivity, dim, remark1="ignore")


def paper_classic_constant(epsilon, delta, dim) -> float:
    """The paper's C_C = 2 ln(1.25/δ) M/ε² (classic Gaussian: E[ℒ] = C_C Δ²)."""
    eps, d = check_epsilon(epsilon), check_delta(delta)
    return 2.0 * math.log(1.25 / d) * int(dim) / eps ** 2


def paper_analytic_constant(epsilon, delta, dim) -> float:
    """The paper's C_A = (Φ⁻¹(δ)² + ε) M/ε².

    Not a lower bound on the analytic Gaussian's E[ℒ]/Δ² as the paper claims
    (erratum A1 of the spec): it is a *sufficient* variance, and the calibrated
    analytic variance is smaller.
    """
    eps, d = check_epsilon(epsilon), check_delta(delta)
    return (_special().ndtri(d) ** 2 + eps) * int(dim) / eps ** 2


def paper_mvg_constant(epsilon, rows, cols) -> float:
    """The paper's C_M = ((5/4)H_r + (1/4)H_{r,1/2}) MN/(2ε), r = min(M, N)."""
    eps = check_epsilon(epsilon)
    r = min(int(rows), int(cols))
    k = np.arange(1, r + 1, dtype=float)
    h_r, h_half = float(np.sum(1.0 / k)), float(np.sum(1.0 / np.sqrt(k)))
    return (1.25 * h_r + 0.25 * h_half) * int(rows) * int(cols) / (2.0 * eps)


# ------------------------------------------------ Theorems 8-9 (raw-moment ratios)
def r1smg_kurtosis() -> float:
    """The paper's "kurtosis" E[ℒ⁴]/E[ℒ²]² of R1SMG: 35/3 (a raw-moment ratio, as in Ji & Li)."""
    return 35.0 / 3.0


def r1smg_skewness() -> float:
    """The paper's "skewness" E[ℒ³]/E[ℒ²]^{3/2} of R1SMG: 5√3/3 (raw-moment ratio)."""
    return 5.0 * math.sqrt(3.0) / 3.0


def iid_gaussian_kurtosis(dim) -> float:
    """Raw-moment "kurtosis" of i.i.d. Gaussian noise (classic/analytic): (M+4)(M+6)/(M(M+2))."""
    m = float(dim)
    return (m + 4) * (m + 6) / (m * (m + 2))


def iid_gaussian_skewness(dim) -> float:
    """Raw-moment "skewness" of i.i.d. Gaussian noise: (M+4)/√(M(M+2))."""
    m = float(dim)
    return (m + 4) / math.sqrt(m * (m + 2))


def gaussian_loss_raw_moments(cov_eigenvalues) -> np.ndarray:
    r"""E[ℒ^t], t = 1..4, for ℒ = ‖n‖², n ~ N(0, Ξ) with eigenvalues ``cov_eigenvalues`` (Lemma 1).

    With a_k = Tr Ξ^k: E[ℒ] = a₁, E[ℒ²] = 2a₂ + a₁², E[ℒ³] = 8a₃ + 6a₂a₁ + a₁³,
    E[ℒ⁴] = 48a₄ + 32a₃a₁ + 12a₂² + 12a₂a₁² + a₁⁴. For MVG, Ξ = Σ⊗Ψ has the
    products of the two covariances' eigenvalues.
    """
    lam = np.asarray(cov_eigenvalues, dtype=float).ravel()
    a1, a2, a3, a4 = (float(np.sum(lam ** k)) for k in (1, 2, 3, 4))
    return np.array([a1, 2 * a2 + a1 ** 2, 8 * a3 + 6 * a2 * a1 + a1 ** 3,
                     48 * a4 + 32 * a3 * a1 + 12 * a2 ** 2 + 12 * a2 * a1 ** 2 + a1 ** 4])


def gaussian_loss_kurtosis(cov_eigenvalues) -> float:
    """The paper's raw-moment "kurtosis" E[ℒ⁴]/E[ℒ²]² of Gaussian noise with these eigenvalues."""
    m = gaussian_loss_raw_moments(cov_eigenvalues)
    return float(m[3] / m[1] ** 2)


def gaussian_loss_skewness(cov_eigenvalues) -> float:
    """The paper's raw-moment "skewness" E[ℒ³]/E[ℒ²]^{3/2} of Gaussian noise."""
    m = gaussian_loss_raw_moments(cov_eigenvalues)
    return float(m[2] / m[1] ** 1.5)


def lemma2_angle_bound(dim, theta0) -> float:
    """Lemma 2's bound √π Γ(P/2)/Γ((P−1)/2) cos(θ₀)^{P−2} on Pr[|θ − π/2| ≥ θ₀]."""
    p = check_r1smg_dim(dim)
    return math.exp(0.5 * math.log(math.pi) + _special().gammaln(p / 2.0)
                    - _special().gammaln((p - 1) / 2.0) + (p - 2) * math.log(math.cos(theta0)))


# ------------------------------------------------------ what it really gives (§8.1)
def r1smg_equivalent_gaussian_epsilon(epsilon, delta, dim) -> float:
    r"""ε of the classic Gaussian with R1SMG's per-coordinate variance σ*/M (spec §8.1.5).

    .. math:: \varepsilon_{G} = \sqrt{\ln(1.25/\delta)\,\varepsilon_R\,M\,\psi}

    E.g. Uber (M = 7921, ε_R = 1e-5, δ = 1e-7) gives 1.1347. Every fixed linear
    statistic of an R1SMG release is as noisy as under a classic Gaussian at ε_G,
    so ε_G (not ε_R) is the budget the "utility gains" are really bought with.
    """
    eps, d = check_epsilon(epsilon), check_delta(delta)
    return math.sqrt(math.log(1.25 / d) * eps * int(dim) * r1smg_psi(dim, d))


def r1smg_log_noise_density(noise_norm, dim, sigma_star):
    r"""Log density on ℝ^M of the marginal (v secret) R1SMG noise at norm ``noise_norm``.

    .. math:: p(n) = \frac{\Gamma(M/2)}{\pi^{M/2}\sqrt{2\pi\sigma^*}}\,\|n\|^{1-M} e^{-\|n\|^2/(2\sigma^*)}
    """
    m = check_r1smg_dim(dim)
    r = np.asarray(noise_norm, dtype=float)
    with np.errstate(divide="ignore"):
        return (_special().gammaln(m / 2.0) - 0.5 * m * math.log(math.pi)
                - 0.5 * math.log(2 * math.pi * sigma_star) + (1 - m) * np.log(r)
                - r ** 2 / (2.0 * sigma_star))


def r1smg_privacy_loss(dist_to_value, dist_to_value_prime, dim, sigma_star):
    r"""Exact privacy loss L(s) = ln p_x(s)/p_{x'}(s) of R1SMG (marginal over the secret v).

    .. math:: L(s) = (M-1)\ln\frac{\|s - f(x')\|}{\|s - f(x)\|} + \frac{\|s-f(x')\|^2 - \|s-f(x)\|^2}{2\sigma^*}

    Parameters
    ----------
    dist_to_value, dist_to_value_prime : array_like
        ‖s − f(x)‖ and ‖s − f(x′)‖.
    dim : int
    sigma_star : float
    """
    m = check_r1smg_dim(dim)
    a = np.asarray(dist_to_value, dtype=float)
    b = np.asarray(dist_to_value_prime, dtype=float)
    with np.errstate(divide="ignore"):
        return (m - 1) * (np.log(b) - np.log(a)) + (b ** 2 - a ** 2) / (2.0 * sigma_star)


def r1smg_ball_delta_lower_bound(epsilon, dim, sigma_star, sensitivity) -> float:
    r"""Closed-form lower bound on R1SMG's true δ(ε) from the ball event (spec §8.1.3).

    With B = {s : ‖s − f(x)‖ < Δ/2}: P_x[B] = 2Φ(Δ/(2√σ*)) − 1 and
    P_{x'}[B] ≤ P[u₁² > 3/4], u₁² ~ Beta(1/2, (M−1)/2), so
    δ(ε) ≥ P_x[B] − e^ε P[u₁² > 3/4] ≈ √(εψ/(4π)) at the paper's σ*.
    """
    eps = check_epsilon(epsilon)
    m = check_r1smg_dim(dim)
    sens = check_sensitivity(sensitivity)
    p_x = 2.0 * _special().ndtr(sens / (2.0 * math.sqrt(sigma_star))) - 1.0
    # P[u₁² > 3/4] for u₁² ~ Beta(1/2, (M−1)/2): 1 − I_{3/4}(a, b) = I_{1/4}(b, a).
    p_xp = _special().betainc((m - 1) / 2.0, 0.5, 0.25)
    return max(0.0, float(p_x - math.exp(eps) * p_xp))


@lru_cache(maxsize=8)
def _gauss_legendre(n: int):
    return np.polynomial.legendre.leggauss(n)


def _composite_nodes(breaks: np.ndarray, order: int):
    x, w = _gauss_legendre(order)
    lo, hi = breaks[:-1, None], breaks[1:, None]
    nodes = (0.5 * (hi - lo) * x + 0.5 * (hi + lo)).ravel()
    weights = (0.5 * (hi - lo) * w).ravel()
    return nodes, weights


def r1smg_true_delta(epsilon, dim, sigma_star, sensitivity, *, order: int = 24,
                     panels: int = 40) -> float:
    r"""The true hockey-stick δ(ε) of R1SMG noise σ* on a pair at distance Δ (spec §8.1.4).

    .. math:: \delta(\varepsilon) = \mathbb E_{s\sim\mathcal M(x)}\big[(1 - e^{\varepsilon - L(s)})_+\big]

    with L from :func:`r1smg_privacy_loss`. By rotation invariance the expectation
    is over two scalars: |z| (half-normal; ‖s − f(x)‖ = √σ*|z|) and u₁ = ⟨v, d⟩/Δ,
    with (1 + u₁)/2 ~ Beta((M−1)/2, (M−1)/2). It is computed by composite
    Gauss–Legendre quadrature on the two *quantile* scales (the integrand is
    bounded in [0, 1]), with panels refined geometrically towards |z| → 0 where
    the privacy loss is unbounded. Accuracy is about 1e-4 absolute (checked
    against Monte Carlo in the tests). Deterministic.

    Parameters
    ----------
    epsilon : float
        ε ≥ 0 at which to evaluate the profile.
    dim : int
        M > 2.
    sigma_star : float
        The noise eigenvalue σ* (= E‖n‖²).
    sensitivity : float
        ‖f(x) − f(x′)‖ (the worst case is the L2 sensitivity).
    order, panels : int
        Quadrature order per panel and number of panels per axis.

    Returns
    -------
    float
        δ(ε) in [0, 1].
    """
    eps = 0.0 if epsilon == 0 else check_epsilon(epsilon)
    m = check_r1smg_dim(dim)
    sens = check_sensitivity(sensitivity)
    scale = math.sqrt(float(sigma_star)) / sens  # noise std in units of Δ
    # Axis 1: q = P(|z| <= t) in (0, 1); geometric panels towards 0 and 1.
    inner = np.geomspace(1e-12, 0.5, panels // 2 + 1)
    outer = 1.0 - np.geomspace(0.5, 1e-12, panels // 2 + 1)[1:]
    q_breaks = np.concatenate([[0.0], inner, outer, [1.0]])
    q, wq = _composite_nodes(q_breaks, order)
    r = scale * _special().ndtri(0.5 * (1.0 + q))  # ‖a‖/Δ
    # Axis 2: p = P((1+u)/2 <= w), w ~ Beta(k, k).
    p_breaks = np.concatenate([[0.0], np.geomspace(1e-12, 0.5, panels // 2 + 1),
                               1.0 - np.geomspace(0.5, 1e-12, panels // 2 + 1)[1:], [1.0]])
    p, wp = _composite_nodes(p_breaks, order)
    k = (m - 1) / 2.0
    u = 2.0 * _special().betaincinv(k, k, p) - 1.0
    delta = 0.0
    for r_chunk, w_chunk in zip(np.array_split(r, max(1, r.size // 256)),
                                np.array_split(wq, max(1, r.size // 256))):
        rr = r_chunk[:, None]
        # ‖b‖²/‖a‖² − 1 = (2 r u + 1)/r², kept in log1p form for accuracy.
        excess = (2.0 * rr * u[None, :] + 1.0)
        with np.errstate(divide="ignore"):
            loss = (0.5 * (m - 1) * np.log1p(np.maximum(excess / rr ** 2, -1.0))
                    + excess / (2.0 * scale ** 2))
        integrand = -np.expm1(np.minimum(eps - loss, 0.0))
        delta += float(w_chunk @ (integrand @ wp))
    return min(1.0, max(0.0, delta))


def _special():
    """scipy.special, imported on first use (keeps scipy out of ``import matrixdp``)."""
    from scipy import special

    return special
