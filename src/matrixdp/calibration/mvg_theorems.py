"""Precision budgets of the MVG mechanism from the paper's Theorems 2 and 3 (pure math, no randomness).

These are the *paper-faithful* sufficient conditions of Chanyaswad et al. They
are sound but very conservative (see ``docs/mvg.md``); the tight
calibration lives with the mechanism (``calibration="exact"``).

Notation (paper orientation, ``f(X)`` is ``m x n``): ``s2`` is the Frobenius
(L2) sensitivity, ``gamma`` the public bound ``sup_X ||f(X)||_F``,
``r = min(m, n)``.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np

from .._linalg import cite
from .._validation import check_delta, check_epsilon, check_positive, check_sensitivity
from ..errors import InvalidParameterError, InvalidPrivacyParameterError, InvalidShapeError

__all__ = [
    "harmonic_number",
    "harmonic_number_half",
    "zeta_delta",
    "theorem2_coefficients",
    "theorem2_budget",
    "theorem3_coefficients",
    "theorem3_budget",
    "unimodal_precision_budget",
    "equimodal_precision_budget",
    "precision_norm_product",
    "theorem2_shift_bound",
    "theorem3_shift_bound",
]

_REFERENCE = """
    References
    ----------
    .. [1] T. Chanyaswad, A. Dytso, H. V. Poor and P. Mittal, "A Differential
       Privacy Mechanism Design Under Matrix-Valued Query", arXiv:1802.10077
       (journal version of "MVG Mechanism: Differential Privacy under
       Matrix-Valued Query", CCS 2018). Derivation and our fixes:
       ``docs/mvg.md``.
"""


_cite = cite(_REFERENCE)


# r = min(m, n) above which the harmonic sums use their asymptotic expansions.
_HARMONIC_SUM_LIMIT = 1_000_000


def _check_count(value, argument: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (Integral, np.integer)):
        raise InvalidParameterError(argument, f"must be a positive integer, got {value!r}")
    if value < 1:
        raise InvalidParameterError(argument, f"must be a positive integer, got {value!r}")
    return int(value)


def _check_shape(shape) -> tuple[int, int]:
    try:
        m, n = shape
    except (TypeError, ValueError):
        raise InvalidShapeError("shape", f"must be a pair (m, n) of positive integers, "
                                         f"got {shape!r}") from None
    return _check_count(m, "shape"), _check_count(n, "shape")


@_cite
def harmonic_number(r) -> float:
    r"""The r-th harmonic number :math:`H_r = \sum_{i=1}^{r} 1/i`.

    The paper calls it the "generalized harmonic number of order r"; it is the
    ordinary one (Remark 2).

    Parameters
    ----------
    r : int
        ``r >= 1``.

    Returns
    -------
    float
        E.g. ``harmonic_number(2) == 1.5``.
    """
    r = _check_count(r, "r")
    if r <= _HARMONIC_SUM_LIMIT:
        # summing small terms first keeps the rounding error at a few ulps
        return math.fsum(1.0 / np.arange(r, 0, -1, dtype=np.float64))
    x = float(r)
    return (math.log(x) + 0.5772156649015329 + 1 / (2 * x) - 1 / (12 * x * x)
            + 1 / (120 * x ** 4))


@_cite
def harmonic_number_half(r) -> float:
    r""":math:`H_{r,1/2} = \sum_{i=1}^{r} 1/\sqrt{i}` (the paper's "order r of 1/2").

    Parameters
    ----------
    r : int
        ``r >= 1``.

    Returns
    -------
    float
        E.g. ``harmonic_number_half(2) == 1 + 1/sqrt(2)``.
    """
    r = _check_count(r, "r")
    if r <= _HARMONIC_SUM_LIMIT:
        return math.fsum(1.0 / np.sqrt(np.arange(r, 0, -1, dtype=np.float64)))
    # Euler-Maclaurin: zeta(1/2) + 2 sqrt(r) + 1/(2 sqrt r) - 1/(24 r^{3/2})
    x = float(r)
    return (-1.4603545088095868 + 2 * math.sqrt(x) + 0.5 / math.sqrt(x)
            - 1 / (24 * x ** 1.5))


@_cite
def zeta_delta(delta, m, n) -> float:
    r""":math:`\zeta(\delta) = 2\sqrt{-mn\ln\delta} - 2\ln\delta + mn` (Theorem 2; ``m = n = r`` in Theorem 3).

    The paper uses it as a bound on :math:`\|\mathcal N\|_F` (Laurent-Massart
    actually bounds :math:`\|\mathcal N\|_F^2` by it; the paper's use is looser
    but valid since ``zeta >= 1``). Implemented as in the paper.

    Parameters
    ----------
    delta : float
        In (0, 1).
    m, n : int
        The query's shape.

    Returns
    -------
    float
    """
    d = check_delta(delta)
    m = _check_count(m, "m")
    n = _check_count(n, "n")
    log_d = math.log(d)
    mn = float(m) * float(n)
    return 2.0 * math.sqrt(-mn * log_d) - 2.0 * log_d + mn


def _check_sens_gamma(sensitivity, gamma, *, limit: float = 2.0) -> tuple[float, float]:
    s2 = check_sensitivity(sensitivity)
    if gamma is None:
        raise InvalidPrivacyParameterError(
            "gamma", "the paper's theorems need the public bound gamma = sup_X ||f(X)||_F; "
                     "pass it (it must come from public bounds, never from the data)")
    g = check_positive(gamma, "gamma", InvalidPrivacyParameterError)
    # triangle inequality: s2 = sup ||f(X1) - f(X2)||_F <= 2 gamma for any query
    if s2 > limit * g * (1 + 1e-12):
        raise InvalidPrivacyParameterError(
            "gamma", f"inconsistent bounds: sensitivity {s2!r} exceeds {limit:g}*gamma = "
                     f"{limit * g!r}, impossible since ||f(X1) - f(X2)||_F <= 2*gamma")
    return s2, g


def _stable_root(linear: float, quadratic: float, epsilon: float) -> float:
    """Positive root of ``quadratic*phi**2 + linear*phi = 2*epsilon``, cancellation-free."""
    return 4.0 * epsilon / (linear + math.sqrt(linear * linear + 8.0 * quadratic * epsilon))


@_cite
def theorem2_coefficients(epsilon, delta, shape, sensitivity, gamma) -> tuple[float, float]:
    r"""The coefficients :math:`(\alpha, \beta)` of Theorem 2 (general query).

    .. math::
        \alpha = [H_r + H_{r,1/2}]\gamma^2 + 2H_r\gamma s_2, \qquad
        \beta = 2(mn)^{1/4}\zeta(\delta)H_r s_2.

    Parameters
    ----------
    epsilon : float
        > 0 (validated for consistency with :func:`theorem2_budget`; α, β do not
        depend on it).
    delta : float
        In (0, 1).
    shape : tuple of int
        ``(m, n)``, the shape of ``f(X)``.
    sensitivity : float
        Frobenius sensitivity :math:`s_2 > 0`.
    gamma : float
        Public bound :math:`\gamma \ge s_2/2` on :math:`\|f(X)\|_F`.

    Returns
    -------
    (alpha, beta) : tuple of float

    Raises
    ------
    InvalidPrivacyParameterError
        Bad ε, δ, sensitivity, a missing γ or ``sensitivity > 2*gamma``.
    InvalidShapeError
        If ``shape`` is not a pair of positive integers.
    """
    check_epsilon(epsilon)
    d = check_delta(delta)
    m, n = _check_shape(shape)
    s2, g = _check_sens_gamma(sensitivity, gamma)
    r = min(m, n)
    h = harmonic_number(r)
    h_half = harmonic_number_half(r)
    alpha = (h + h_half) * g * g + 2.0 * h * g * s2
    beta = 2.0 * (float(m) * float(n)) ** 0.25 * zeta_delta(d, m, n) * h * s2
    return alpha, beta


@_cite
def theorem2_budget(epsilon, delta, shape, sensitivity, gamma) -> float:
    r"""Theorem 2's bound :math:`B_2` on :math:`\|\sigma(\Sigma^{-1})\|_2\,\|\sigma(\Psi^{-1})\|_2`.

    .. math:: B_2 = \frac{(-\beta + \sqrt{\beta^2 + 8\alpha\varepsilon})^2}{4\alpha^2}
              = \left(\frac{4\varepsilon}{\beta + \sqrt{\beta^2 + 8\alpha\varepsilon}}\right)^2,

    computed in the second (cancellation-free) form: in the paper's own settings
    :math:`\beta^2 \gg 8\alpha\varepsilon` and the first form loses ~8 digits.

    Parameters
    ----------
    epsilon, delta, shape, sensitivity, gamma
        As in :func:`theorem2_coefficients`.

    Returns
    -------
    float
        :math:`B_2 > 0`. E.g. m=2, n=3, s2=1, gamma=2, delta=1e-2, epsilon=0.5 gives
        6.83764746856e-05.
    """
    eps = check_epsilon(epsilon)
    alpha, beta = theorem2_coefficients(eps, delta, shape, sensitivity, gamma)
    return _stable_root(beta, alpha, eps) ** 2


def _check_r(r) -> int:
    if isinstance(r, tuple):
        m, n = _check_shape(r)
        if m != n:
            raise InvalidShapeError("r", f"Theorem 3 needs a square (r x r) query, got shape {r}")
        return m
    return _check_count(r, "r")


@_cite
def theorem3_coefficients(epsilon, delta, r, sensitivity, gamma) -> tuple[float, float]:
    r"""The coefficients :math:`(\omega, \beta)` of Theorem 3 (symmetric PSD query, Ψ = Σ).

    .. math::
        \omega = 4H_r\gamma s_2, \qquad \beta = 2\sqrt{r}\,\zeta(\delta)H_r s_2,
        \quad \zeta(\delta) = 2\sqrt{-r^2\ln\delta} - 2\ln\delta + r^2.

    (The paper's unicode rendering of β suggests :math:`\zeta^{1/2}`; its LaTeX
    source and the proof of Theorem 4 give :math:`r^{1/2}\zeta`, used here.)

    Parameters
    ----------
    epsilon : float
        > 0 (validated only).
    delta : float
        In (0, 1).
    r : int or tuple
        Side of the square query ``f(X) in R^{r x r}`` (a square shape tuple is accepted).
    sensitivity : float
        Frobenius sensitivity :math:`s_2 > 0`.
    gamma : float
        Public bound on :math:`\|f(X)\|_F`; ``sensitivity <= 2*gamma`` is required.

    Returns
    -------
    (omega, beta) : tuple of float
    """
    check_epsilon(epsilon)
    d = check_delta(delta)
    r = _check_r(r)
    s2, g = _check_sens_gamma(sensitivity, gamma)
    h = harmonic_number(r)
    omega = 4.0 * h * g * s2
    beta = 2.0 * math.sqrt(r) * zeta_delta(d, r, r) * h * s2
    return omega, beta


@_cite
def theorem3_budget(epsilon, delta, r, sensitivity, gamma) -> float:
    r"""Theorem 3's bound :math:`B_3` on :math:`\|\sigma(\Sigma^{-1})\|_2^2` (Ψ = Σ, symmetric PSD query).

    .. math:: B_3 = \left(\frac{4\varepsilon}{\beta + \sqrt{\beta^2 + 8\omega\varepsilon}}\right)^2.

    Parameters
    ----------
    epsilon, delta, r, sensitivity, gamma
        As in :func:`theorem3_coefficients`.

    Returns
    -------
    float
        :math:`B_3 > 0`; e.g. r=3, s2=0.5, gamma=1, delta=1e-3, epsilon=1 gives 2.66190873113e-04.
    """
    eps = check_epsilon(epsilon)
    omega, beta = theorem3_coefficients(eps, delta, r, sensitivity, gamma)
    return _stable_root(beta, omega, eps) ** 2


@_cite
def unimodal_precision_budget(epsilon, delta, shape, sensitivity, gamma) -> float:
    r"""Algorithm 1's precision budget :math:`P = B_2^2 / n` (Theorem 5, Ψ = I_n).

    The row covariance must satisfy :math:`\sum_i 1/\sigma_i(\Sigma)^2 \le P`, where
    :math:`\sigma_i(\Sigma)` are the eigenvalues of Σ, i.e. **variances** along
    its eigen-directions (the paper calls :math:`1/\sigma_i^2` a "precision";
    it is an inverse squared variance). Algorithm 1 sets
    :math:`\sigma_i(\Sigma) = 1/\sqrt{\theta_i P}`.

    Parameters
    ----------
    epsilon, delta, shape, sensitivity, gamma
        As in :func:`theorem2_coefficients`; ``shape = (m, n)`` with Σ ``m x m``
        and Ψ = I_n.

    Returns
    -------
    float
    """
    _, n = _check_shape(shape)
    b2 = theorem2_budget(epsilon, delta, shape, sensitivity, gamma)
    return b2 * b2 / n


@_cite
def equimodal_precision_budget(epsilon, delta, m, sensitivity, gamma, theorem=2) -> float:
    r"""Algorithm 2's precision budget (Theorem 6, Ψ = Σ, square ``m x m`` query).

    :math:`\sum_i 1/\sigma_i(\Sigma)^2 \le P` with :math:`P = B_2` (Theorem 2 at
    ``shape = (m, m)``) or :math:`P = B_3` (Theorem 3, which additionally needs the
    query to be symmetric PSD for every dataset).

    Parameters
    ----------
    epsilon, delta : float
        Privacy parameters.
    m : int
        Side of the square query.
    sensitivity, gamma : float
        As in :func:`theorem2_coefficients`.
    theorem : {2, 3}
        Which sufficient condition to use.

    Returns
    -------
    float
    """
    m = _check_count(m, "m")
    if theorem == 2 and not isinstance(theorem, bool):
        return theorem2_budget(epsilon, delta, (m, m), sensitivity, gamma)
    if theorem == 3:
        return theorem3_budget(epsilon, delta, m, sensitivity, gamma)
    raise InvalidParameterError("theorem", f"must be 2 or 3, got {theorem!r}")


@_cite
def precision_norm_product(row_cov, col_cov) -> float:
    r""":math:`\|\sigma(\Sigma^{-1})\|_2 \cdot \|\sigma(\Psi^{-1})\|_2 = \|\Sigma^{-1}\|_F \|\Psi^{-1}\|_F`.

    The quantity Theorem 2 bounds by :math:`B_2` (Theorem 3 bounds
    :math:`\|\Sigma^{-1}\|_F^2` with Ψ = Σ, the same number). Invariant under
    :math:`(a\Sigma, \Psi/a)`. Both covariances must be symmetric positive definite.

    Parameters
    ----------
    row_cov, col_cov : array_like
        Σ (m x m) and Ψ (n x n).

    Returns
    -------
    float
    """
    from .._linalg import covariance_eigenvalues

    row_eig = covariance_eigenvalues(row_cov, "row_cov", require_definite=True)
    col_eig = covariance_eigenvalues(col_cov, "col_cov", require_definite=True)
    return float(np.linalg.norm(1.0 / row_eig) * np.linalg.norm(1.0 / col_eig))


def theorem2_shift_bound(epsilon, delta, shape) -> float:
    r"""Upper bound on the Mahalanobis sensitivity μ of any (Σ, Ψ) accepted by Theorem 2.

    :math:`\mu = s_2/\sqrt{\lambda_{min}(\Sigma)\lambda_{min}(\Psi)} \le
    \varepsilon / ((mn)^{1/4}\zeta(\delta)H_r)`, independent of s₂ and γ (spec §2.6).

    It is an upper bound on μ, **not** by itself a soundness oracle: the exact δ(ε) at this
    shift can exceed δ (for ``shape=(1, 1)``: δ(100) ≈ 1 at δ = 0.5; at ε = 10⁴ for every
    shape and δ), because it drops the second constraint of Theorem 2, φ² ≤ 2ε/α, which is
    what holds μ down at large ε. The mechanisms' soundness is checked at ``s₂√B₂``, which
    keeps both (``tests/calibration/test_mvg_theorems.py``; ε from 10⁻³ to 10⁸).
    """
    eps = check_epsilon(epsilon)
    m, n = _check_shape(shape)
    return eps / ((float(m) * n) ** 0.25 * zeta_delta(delta, m, n) * harmonic_number(min(m, n)))


def theorem3_shift_bound(epsilon, delta, r) -> float:
    r"""Upper bound :math:`\mu \le \varepsilon/(\sqrt r\,\zeta(\delta)H_r)` for Theorem 3 (spec §2.6).

    An upper bound on μ, not a soundness oracle (see :func:`theorem2_shift_bound`).
    """
    eps = check_epsilon(epsilon)
    r = _check_r(r)
    return eps / (math.sqrt(r) * zeta_delta(delta, r, r) * harmonic_number(r))
