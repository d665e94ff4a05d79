"""Fisher-information privacy for releasing a whole training set (Farokhi): the Cramér–Rao
privacy level, the design objective, and the optimal i.i.d. noise (Gaussian, Theorem 2.4)
with its Fisher-matched Laplace baseline (pure math; their samplers are in
:mod:`matrixdp.mechanisms.fisher`).

Records are rows: ``X`` is ``(n_samples, n_features)`` and each row gets its own noise
vector. The paper stacks records as columns; nothing else changes. The derivation is in
``docs/fisher.md``.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_finite_array, check_positive
from ..errors import InvalidParameterError, InvalidShapeError, NotPositiveSemidefiniteError

__all__ = [
    "check_weights",
    "spd_power",
    "check_lam",
    "gaussian_fisher",
    "crb",
    "privacy_measure",
    "design_objective",
    "optimal_gaussian_cov",
    "optimal_cost",
    "optimal_gaussian_factor",
    "laplace_fisher_matched_scales",
    "laplace_fisher",
    "utility_lower_bound",
]


# --------------------------------------------------------------------------- helpers
def check_weights(weights, n_features: int | None = None, argument: str = "weights") -> np.ndarray:
    """Return the privacy weighting matrix Π as a symmetric positive-definite ``(p, p)`` array.

    Parameters
    ----------
    weights : None, float, 1-D or 2-D array_like
        ``None`` means the identity (the paper's choice in every experiment); a scalar
        ``c`` means ``c * I``; a 1-D array is the diagonal of Π; a 2-D array is Π itself.
    n_features : int, optional
        Required when ``weights`` is None or a scalar; checked against the array otherwise.

    Raises
    ------
    NotPositiveSemidefiniteError
        If Π is not symmetric positive definite.
    InvalidShapeError
        If its size does not match ``n_features``.
    """
    if weights is None or np.ndim(weights) == 0:
        if n_features is None:
            raise InvalidParameterError("n_features", "is needed when weights is None or a scalar")
        scale = 1.0 if weights is None else check_positive(weights, argument,
                                                           NotPositiveSemidefiniteError)
        return scale * np.eye(int(n_features))
    arr = check_finite_array(weights, argument)
    if arr.ndim == 1:
        if not (arr > 0).all():
            raise NotPositiveSemidefiniteError(argument, "diagonal weights must all be > 0")
        arr = np.diag(arr)
    elif arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise InvalidShapeError(argument, f"must be a square matrix, got shape {arr.shape}")
    if n_features is not None and arr.shape[0] != n_features:
        raise InvalidShapeError(argument, f"must be {n_features}x{n_features}, got {arr.shape}")
    if not np.allclose(arr, arr.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(arr).max())):
        raise NotPositiveSemidefiniteError(argument, "must be symmetric")
    arr = 0.5 * (arr + arr.T)
    evals = np.linalg.eigvalsh(arr)
    # scale-free: a Fisher information of noise over wide public ranges (widths ~1e6 and up:
    # sqrt(lam) ~ 1e-15) is a fine matrix; an absolute floor refused it after the noise was
    # drawn (hunt DH)
    if not (evals[-1] > 0 and evals[0] > 1e-12 * evals[-1]):
        raise NotPositiveSemidefiniteError(
            argument, f"must be positive definite (smallest eigenvalue {evals[0]:.3g})")
    return arr


def spd_power(matrix: np.ndarray, power: float) -> np.ndarray:
    """``matrix ** power`` for a symmetric positive-definite matrix (via its eigendecomposition)."""
    evals, vecs = np.linalg.eigh(matrix)
    return (vecs * evals ** power) @ vecs.T


def check_lam(lam) -> float:
    """Validate the privacy-utility trade-off weight λ (> 0)."""
    return check_positive(lam, "lam")


# ---------------------------------------------------------------- Fisher information
def gaussian_fisher(cov) -> np.ndarray:
    r"""Fisher information of a Gaussian location family with covariance ``cov``: :math:`\Sigma^{-1}`.

    Parameters
    ----------
    cov : array_like, (p, p)
        Symmetric positive-definite noise covariance.

    Returns
    -------
    ndarray, (p, p)
    """
    sigma = check_weights(cov, argument="cov")
    return spd_power(sigma, -1.0)


def crb(weights, fisher) -> float:
    r"""The Cramér–Rao privacy level :math:`\mathrm{Tr}(\Pi\,\mathcal I^{-1})` that the paper reports.

    A lower bound on :math:`\mathbb E[(x_i-\hat x_i)^\top\Pi(x_i-\hat x_i)]` for every unbiased
    estimator :math:`\hat x_i` of a record from its noisy copy (Proposition 2.2, with the
    spec's correction A1: the weighted error is :math:`e^\top\Pi e`). For the optimal
    Gaussian noise it equals :math:`\mathrm{Tr}(\Pi^{1/2})/\sqrt\lambda` (200/20/2 in the paper's
    2-D example).

    Parameters
    ----------
    weights : None or array_like
        Π (see :func:`check_weights`).
    fisher : array_like, (p, p)
        Fisher information matrix of the noise.

    References
    ----------
    .. [1] F. Farokhi, "Privacy-Preserving Public Release of Datasets for Support Vector
       Machine Classification", Proposition 2.2.
    """
    info = check_weights(fisher, argument="fisher")
    pi = check_weights(weights, info.shape[0])
    return float(np.trace(pi @ np.linalg.inv(info)))


def privacy_measure(weights, fisher) -> float:
    r"""The (looser) privacy measure the paper optimises: :math:`1/\mathrm{Tr}(\Pi^{-1}\mathcal I)`.

    Always at most :func:`crb`.
    """
    info = check_weights(fisher, argument="fisher")
    pi = check_weights(weights, info.shape[0])
    return float(1.0 / np.trace(np.linalg.solve(pi, info)))


def design_objective(weights, fisher, second_moment, lam) -> float:
    r"""The design cost of problem P(λ): :math:`\mathrm{Tr}(\Pi^{-1}\mathcal I)+\lambda\,\mathrm{Tr}(V_{nn})`.

    Parameters
    ----------
    weights : None or array_like
        Π.
    fisher : array_like, (p, p)
        Fisher information of the noise.
    second_moment : array_like, (p, p) or (p,)
        :math:`V_{nn}=\mathbb E[nn^\top]` (raw second moment; a 1-D array is its diagonal).
    lam : float
        Utility weight λ > 0.
    """
    lam = check_lam(lam)
    info = check_weights(fisher, argument="fisher")
    pi = check_weights(weights, info.shape[0])
    v = np.asarray(second_moment, dtype=float)
    tr_v = float(np.sum(v)) if v.ndim == 1 else float(np.trace(v))
    return float(np.trace(np.linalg.solve(pi, info))) + lam * tr_v


# ------------------------------------------------------------- optimal Gaussian noise
def optimal_gaussian_cov(lam, weights=None, n_features: int | None = None) -> np.ndarray:
    r"""Covariance of the optimal i.i.d. noise (Theorem 2.4): :math:`\Sigma^*=\Pi^{-1/2}/\sqrt\lambda`.

    Parameters
    ----------
    lam : float
        Utility weight λ > 0 (larger λ, less noise).
    weights : None or array_like
        Π (identity if None; then ``n_features`` is required).
    n_features : int, optional

    Returns
    -------
    ndarray, (p, p)

    References
    ----------
    .. [1] F. Farokhi, Theorem 2.4; ``docs/fisher.md``.
    """
    lam = check_lam(lam)
    pi = check_weights(weights, n_features)
    return spd_power(pi, -0.5) / math.sqrt(lam)


def optimal_cost(lam, weights=None, n_features: int | None = None) -> float:
    r"""The optimal value :math:`J^*=2\sqrt\lambda\,\mathrm{Tr}(\Pi^{-1/2})` of P(λ)."""
    lam = check_lam(lam)
    pi = check_weights(weights, n_features)
    return 2.0 * math.sqrt(lam) * float(np.trace(spd_power(pi, -0.5)))


def optimal_gaussian_factor(lam, weights=None, n_features: int | None = None) -> np.ndarray:
    r"""The symmetric square root :math:`A=\lambda^{-1/4}\Pi^{-1/4}` of :math:`\Sigma^*` (:math:`AA^\top=\Sigma^*`)."""
    lam = check_lam(lam)
    pi = check_weights(weights, n_features)
    return spd_power(pi, -0.25) / lam ** 0.25


# ------------------------------------------------------------ Fisher-matched Laplace
def laplace_fisher_matched_scales(lam, weights=None, n_features: int | None = None):
    r"""Scales and basis of the Fisher-matched Laplace baseline (spec §5.5).

    In Π's eigenbasis :math:`\Pi=U\,\mathrm{diag}(\vartheta)\,U^\top`, coordinate :math:`j` gets
    Laplace noise of scale :math:`b_j=(\lambda\vartheta_j)^{-1/4}` (the Gaussian standard
    deviation there), so the Fisher information is exactly :math:`\sqrt\lambda\,\Pi^{1/2}`, the
    Gaussian optimum's, and every Fisher-based privacy number matches. Its second moment is
    twice the Gaussian's, so its cost is :math:`1.5J^*`.

    Returns
    -------
    scales : ndarray, (p,)
        :math:`b_j`.
    basis : ndarray, (p, p)
        :math:`U` (identity for diagonal Π, columns ordered as the features then).
    """
    lam = check_lam(lam)
    pi = check_weights(weights, n_features)
    if np.count_nonzero(pi - np.diag(np.diag(pi))) == 0:
        theta, basis = np.diag(pi).copy(), np.eye(pi.shape[0])
    else:
        theta, basis = np.linalg.eigh(pi)
    return (lam * theta) ** -0.25, basis


def laplace_fisher(scales, basis=None) -> np.ndarray:
    r"""Fisher information :math:`U\,\mathrm{diag}(1/b^2)\,U^\top` of independent Laplace(b_j) noise in basis U."""
    b = np.asarray(scales, dtype=float)
    u = np.eye(b.size) if basis is None else np.asarray(basis, dtype=float)
    return (u / b ** 2) @ u.T


# ------------------------------------------------------------------------ utility
def utility_lower_bound(n_records: int, c: float, radius: float, second_moment) -> float:
    r"""Proposition 2.3's bound :math:`1-(qc^2/\varepsilon^2)\mathrm{Tr}(V_{nn})`, clipped at 0.

    The constant :math:`c\ge1` (and the radius's validity range :math:`\varepsilon_0`) exist but
    cannot be computed from the paper, so this is **not** a numeric guarantee: it is the
    formula for a caller-supplied ``c``.
    """
    c = check_positive(c, "c")
    radius = check_positive(radius, "radius")
    v = np.asarray(second_moment, dtype=float)
    tr_v = float(np.sum(v)) if v.ndim == 1 else float(np.trace(v))
    return max(0.0, 1.0 - int(n_records) * c * c / radius ** 2 * tr_v)
