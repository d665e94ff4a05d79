r"""Local differential privacy of Farokhi's optimal noise: the paper's bound (Theorem 2.5) and the
exact ε from the analytic-Gaussian privacy profile, for public per-feature ranges.

Whitening the optimal noise :math:`\mathcal N(0,\Pi^{-1/2}/\sqrt\lambda)` turns the release of a
record into a unit-variance Gaussian mechanism with L2 sensitivity

.. math:: \Delta_2=\lambda^{1/4}\,\|\Pi^{1/4}\mathrm{diag}(R)\|_{\infty,2},

where :math:`R_j` bounds :math:`|x_j-x'_j|` (the width of feature j's public range). The paper
assumes :math:`R_j=1` without saying so, and its constant :math:`1+\sqrt{2\ln(1/\delta)}` (Nikolov,
Talwar and Zhang) is **false** for :math:`\Delta_2\gtrsim3`: :func:`gaussian_ldp_epsilon` therefore
defaults to the exact ε (Balle and Wang's profile) and only reports the paper's value on request,
with a :class:`~matrixdp.errors.RefutedGuaranteeWarning` when the exact profile refutes it.
See ``docs/fisher.md``.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

from .._validation import check_choice, check_delta, check_epsilon, check_finite_array
from ..calibration.gaussian import gaussian_delta, gaussian_epsilon, max_gaussian_shift
from ..errors import InvalidParameterError, InvalidShapeError, RefutedGuaranteeWarning
from .fisher import check_lam, check_weights, laplace_fisher_matched_scales, spd_power

__all__ = [
    "norm_inf2",
    "norm_inf1",
    "check_ranges",
    "ldp_sensitivity_factor",
    "whitened_sensitivity",
    "paper_ldp_epsilon",
    "gaussian_ldp_epsilon",
    "gaussian_ldp_delta",
    "lambda_for_ldp",
    "laplace_ldp_epsilon",
    "lambda_for_laplace_ldp",
    "crb_for_ldp",
]

_METHODS = ("analytic", "paper")


# ----------------------------------------------------------------- induced norms
def _vertex_max(matrix: np.ndarray, order: int) -> float:
    """max over v in {±1}^p of ||A v||_order, by enumeration (v and -v give the same value)."""
    p = matrix.shape[1]
    best = 0.0
    chunk = 1 << min(p - 1, 14)
    signs_rest = itertools.product((1.0, -1.0), repeat=p - 1)
    while True:
        block = list(itertools.islice(signs_rest, chunk))
        if not block:
            break
        v = np.hstack([np.ones((len(block), 1)), np.asarray(block).reshape(len(block), p - 1)])
        av = v @ matrix.T
        vals = np.sqrt((av ** 2).sum(axis=1)) if order == 2 else np.abs(av).sum(axis=1)
        best = max(best, float(vals.max()))
    return best


def _is_diagonal(matrix: np.ndarray) -> bool:
    return matrix.shape[0] == matrix.shape[1] and np.count_nonzero(
        matrix - np.diag(np.diag(matrix))) == 0


def norm_inf2(matrix, *, exact_max_p: int = 20, return_exact: bool = False):
    r""":math:`\|A\|_{\infty,2}=\max_{x\ne0}\|Ax\|_2/\|x\|_\infty=\max_{v\in\{\pm1\}^p}\|Av\|_2`.

    Exact for diagonal A (the L2 norm of the diagonal) and by vertex enumeration when
    ``p <= exact_max_p``; otherwise the safe upper bound
    :math:`\min(\sqrt p\|A\|_2,\ \sqrt{\sum_i(\sum_j|a_{ij}|)^2})` (the exact value is NP-hard).

    Parameters
    ----------
    matrix : array_like, (k, p)
    exact_max_p : int
        Largest p for enumeration (cost :math:`2^{p-1}` matrix-vector products).
    return_exact : bool
        Also return whether the value is exact (True) or an upper bound.
    """
    a = check_finite_array(matrix, "matrix", ndim=2)
    p = a.shape[1]
    if _is_diagonal(a):
        value, exact = float(np.linalg.norm(np.diag(a))), True
    elif p <= exact_max_p:
        value, exact = _vertex_max(a, 2), True
    else:
        value = min(math.sqrt(p) * float(np.linalg.norm(a, 2)),
                    float(np.sqrt((np.abs(a).sum(axis=1) ** 2).sum())))
        exact = False
    return (value, exact) if return_exact else value


def norm_inf1(matrix, *, exact_max_p: int = 20, return_exact: bool = False):
    r""":math:`\|A\|_{\infty,1}=\max_{v\in\{\pm1\}^p}\|Av\|_1`; exact for diagonal A or small p, else
    the upper bound :math:`\sum_{ij}|a_{ij}|`."""
    a = check_finite_array(matrix, "matrix", ndim=2)
    p = a.shape[1]
    if _is_diagonal(a):
        value, exact = float(np.abs(np.diag(a)).sum()), True
    elif p <= exact_max_p:
        value, exact = _vertex_max(a, 1), True
    else:
        value, exact = float(np.abs(a).sum()), False
    return (value, exact) if return_exact else value


# ------------------------------------------------------------------- sensitivity
def check_ranges(ranges, n_features: int | None = None, argument: str = "ranges") -> np.ndarray:
    """Per-feature range widths :math:`R_j>0` (public bounds on :math:`|x_j-x'_j|`) as a 1-D array.

    ``ranges`` may be a scalar (same width for every feature; needs ``n_features``), a 1-D array
    of widths, or a ``(p, 2)`` array of ``[low, high]`` pairs.
    """
    if ranges is None:
        raise InvalidParameterError(argument, "public feature ranges are required (never derived "
                                              "from the data)")
    arr = check_finite_array(ranges, argument)
    if arr.ndim == 0:
        if n_features is None:
            raise InvalidParameterError(argument, "a scalar range needs n_features (or weights)")
        arr = np.full(int(n_features), float(arr))
    elif arr.ndim == 2 and arr.shape[1] == 2:
        arr = arr[:, 1] - arr[:, 0]
    elif arr.ndim != 1:
        raise InvalidShapeError(argument, f"must be a scalar, (p,) widths or (p, 2) bounds, got "
                                          f"shape {arr.shape}")
    if not (arr > 0).all():
        raise InvalidParameterError(argument, "every range must have a positive width")
    if n_features is not None and arr.size != n_features:
        raise InvalidShapeError(argument, f"must have {n_features} entries, got {arr.size}")
    return arr


def _resolve(weights, ranges):
    n = None
    if weights is not None and np.ndim(weights) > 0:
        n = np.shape(weights)[0]
    if n is None and ranges is not None and np.ndim(ranges) > 0:
        n = np.shape(ranges)[0]
    widths = check_ranges(ranges, n)
    pi = check_weights(weights, widths.size)
    return pi, widths


def ldp_sensitivity_factor(weights=None, ranges=1.0, *, exact_max_p: int = 20,
                           return_exact: bool = False):
    r""":math:`K=\|\Pi^{1/4}\mathrm{diag}(R)\|_{\infty,2}`, so that :math:`\Delta_2=\lambda^{1/4}K`."""
    pi, widths = _resolve(weights, ranges)
    return norm_inf2(spd_power(pi, 0.25) * widths, exact_max_p=exact_max_p,
                     return_exact=return_exact)


def whitened_sensitivity(lam, weights=None, ranges=1.0, *, exact_max_p: int = 20) -> float:
    r"""The whitened L2 sensitivity :math:`\Delta_2=\lambda^{1/4}\|\Pi^{1/4}\mathrm{diag}(R)\|_{\infty,2}`
    of one record under the optimal Gaussian noise (spec §3.2, correction A7)."""
    lam = check_lam(lam)
    return lam ** 0.25 * ldp_sensitivity_factor(weights, ranges, exact_max_p=exact_max_p)


def _ntz_constant(delta: float) -> float:
    return 1.0 + math.sqrt(2.0 * math.log(1.0 / delta))


def paper_ldp_epsilon(lam, delta, weights=None, ranges=1.0) -> float:
    r"""Theorem 2.5's ε: :math:`\Delta_2(1+\sqrt{2\ln(1/\delta)})`. **Not a valid guarantee** for
    :math:`\Delta_2\gtrsim3` (e.g. p = 30, λ = 1, δ = 1e-5 gives 31.76 where the true ε is 37.62).

    References
    ----------
    .. [1] F. Farokhi, Theorem 2.5; A. Nikolov, K. Talwar and L. Zhang, STOC 2013.
    """
    d = check_delta(delta)
    return whitened_sensitivity(lam, weights, ranges) * _ntz_constant(d)


def gaussian_ldp_delta(epsilon, lam, weights=None, ranges=1.0) -> float:
    r"""The exact δ(ε) of the optimal Gaussian noise as a local mechanism (Balle–Wang profile)."""
    eps = check_epsilon(epsilon)
    return gaussian_delta(eps, 1.0, whitened_sensitivity(lam, weights, ranges))


def gaussian_ldp_epsilon(lam, delta, weights=None, ranges=1.0, *, method: str = "analytic") -> float:
    r"""ε of the (ε, δ)-LDP guarantee of the optimal Gaussian noise for public ranges ``ranges``.

    Parameters
    ----------
    lam : float
        λ > 0.
    delta : float
        In (0, 1).
    weights : None or array_like
        Π.
    ranges : float or array_like
        Public per-feature widths (see :func:`check_ranges`); 1 reproduces the paper.
    method : {"analytic", "paper"}
        ``"analytic"`` (default): the smallest ε with exact δ(ε) <= δ; this is the guarantee.
        ``"paper"``: Theorem 2.5's formula; warns :class:`RefutedGuaranteeWarning` when the exact
        profile shows it is false.

    References
    ----------
    .. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for Differential
       Privacy", ICML 2018. [2] F. Farokhi, Theorem 2.5.
    """
    check_choice(method, _METHODS, "method")
    d = check_delta(delta)
    sens = whitened_sensitivity(lam, weights, ranges)
    if method == "analytic":
        return gaussian_epsilon(d, 1.0, sens)
    eps = sens * _ntz_constant(d)
    true_delta = gaussian_delta(eps, 1.0, sens)
    if true_delta > d * (1 + 1e-9):
        warnings.warn(
            f"Theorem 2.5's epsilon={eps:.4g} is refuted by the exact Gaussian profile: "
            f"whitened sensitivity {sens:.3g} > ~3 gives true delta {true_delta:.3g} > {d:.3g}; "
            f"the exact epsilon is {gaussian_epsilon(d, 1.0, sens):.4g}",
            RefutedGuaranteeWarning, stacklevel=2)
    return eps


def lambda_for_ldp(epsilon, delta, weights=None, ranges=1.0, *, method: str = "analytic") -> float:
    r"""The largest λ (least noise) whose optimal Gaussian noise is (ε, δ)-LDP for ``ranges``.

    ``"analytic"``: :math:`\lambda=(\mu^*(\epsilon,\delta)/K)^4` with the exact largest shift
    :math:`\mu^*` (:func:`~matrixdp.calibration.gaussian.max_gaussian_shift`);
    ``"paper"``: :math:`(\epsilon/(K(1+\sqrt{2\ln(1/\delta)})))^4` (may be unsafe, warns as
    :func:`gaussian_ldp_epsilon`). :math:`K=\|\Pi^{1/4}\mathrm{diag}(R)\|_{\infty,2}`.
    """
    check_choice(method, _METHODS, "method")
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    k = ldp_sensitivity_factor(weights, ranges)
    if method == "analytic":
        return (max_gaussian_shift(eps, d) / k) ** 4
    lam = (eps / (k * _ntz_constant(d))) ** 4
    gaussian_ldp_epsilon(lam, d, weights, ranges, method="paper")  # warns if refuted
    return lam


# ------------------------------------------------------------------------ Laplace
def laplace_factor(weights, ranges, exact_max_p=20):
    pi, widths = _resolve(weights, ranges)
    scales, basis = laplace_fisher_matched_scales(1.0, pi)
    # privacy loss of a shift d is sum_j |u_j^T d| / b_j with b_j = (lam theta_j)^{-1/4}
    return norm_inf1((basis.T / scales[:, None]) * widths, exact_max_p=exact_max_p,
                     return_exact=True)


def laplace_ldp_epsilon(lam, weights=None, ranges=1.0) -> float:
    r"""Pure ε-LDP of the Fisher-matched Laplace baseline: :math:`\lambda^{1/4}\|\mathrm{diag}(\vartheta^{1/4})U^\top\mathrm{diag}(R)\|_{\infty,1}`
    (:math:`p\lambda^{1/4}` for Π = I and unit ranges). An upper bound for non-diagonal Π with p > 20."""
    lam = check_lam(lam)
    return lam ** 0.25 * laplace_factor(weights, ranges)[0]


def lambda_for_laplace_ldp(epsilon, weights=None, ranges=1.0) -> float:
    """The λ whose Fisher-matched Laplace noise is exactly ε-LDP for ``ranges``."""
    eps = check_epsilon(epsilon)
    return (eps / laplace_factor(weights, ranges)[0]) ** 4


def crb_for_ldp(epsilon, delta, weights=None, ranges=1.0, *, method: str = "analytic") -> float:
    r"""The Cramér–Rao privacy level :math:`\mathrm{Tr}(\Pi^{1/2})/\sqrt\lambda` reached at an (ε, δ)-LDP budget.

    With ``method="paper"`` this is the paper's operational bound (Fig. 2),
    :math:`\mathrm{Tr}(\Pi^{1/2})K^2(1+\sqrt{2\ln(1/\delta)})^2/\epsilon^2`, which inherits Theorem 2.5's
    flaw. With ``"analytic"`` (default) it uses the exact λ of :func:`lambda_for_ldp`. Either way
    the order is :math:`\Theta(\ln(1/\delta)/\epsilon^2)`, not the paper's :math:`\ln^2` (A11).
    """
    lam = lambda_for_ldp(epsilon, delta, weights, ranges, method=method)
    pi, _ = _resolve(weights, ranges)
    return float(np.trace(spd_power(pi, 0.5))) / math.sqrt(lam)
