r"""Regression on a released training set (Farokhi §2.4): the paper's ridge-regularised least squares.

.. math:: \ell(\varphi)=\sigma\,\varphi^\top\varphi+\frac1q\sum_{i=1}^q(y_i-\varphi^\top x_i)^2,
          \qquad \varphi^*=(X^\top X/q+\sigma I)^{-1}X^\top y/q,

with :math:`\sigma=10^{-5}` and no intercept, as in the paper's Lending Club experiment. The model
trained on the noisy features :math:`\bar X` is evaluated on the **original** data (spec §5.4).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_finite_array, check_positive
from ..errors import InvalidShapeError

__all__ = ["fit_ridge", "ridge_loss", "ridge_gradient"]


def _check_xy(X, y):
    X = check_finite_array(X, "X", ndim=2)
    y = check_finite_array(y, "y", ndim=1)
    if y.shape[0] != X.shape[0]:
        raise InvalidShapeError("y", "must have one entry per row of X")
    return X, y


def fit_ridge(X, y, *, sigma: float = 1e-5) -> np.ndarray:
    r"""The minimiser :math:`\varphi^*` of the paper's regression loss (closed form).

    Solved as the least-squares problem :math:`\|[X/\sqrt q;\ \sqrt\sigma I]\varphi-[y/\sqrt q;\ 0]\|^2`,
    which is better conditioned than the normal equations for raw (unscaled) features.

    Parameters
    ----------
    X : array_like (q, p)
    y : array_like (q,)
    sigma : float, default 1e-5
        Ridge weight σ > 0.

    Returns
    -------
    ndarray (p,)

    References
    ----------
    .. [1] F. Farokhi, §2.4 and §3.2.3.
    """
    X, y = _check_xy(X, y)
    sigma = check_positive(sigma, "sigma")
    q, p = X.shape
    root_q = math.sqrt(q)
    design = np.vstack([X / root_q, math.sqrt(sigma) * np.eye(p)])
    target = np.concatenate([y / root_q, np.zeros(p)])
    return np.linalg.lstsq(design, target, rcond=None)[0]


def ridge_loss(phi, X, y, *, sigma: float = 1e-5) -> float:
    r""":math:`\sigma\|\varphi\|^2+\frac1q\|y-X\varphi\|^2`."""
    X, y = _check_xy(X, y)
    phi = np.asarray(phi, dtype=float)
    resid = y - X @ phi
    return float(sigma * phi @ phi + resid @ resid / X.shape[0])


def ridge_gradient(phi, X, y, *, sigma: float = 1e-5) -> np.ndarray:
    r"""Gradient :math:`2\sigma\varphi-\frac2qX^\top(y-X\varphi)` (zero at :func:`fit_ridge`'s solution)."""
    X, y = _check_xy(X, y)
    phi = np.asarray(phi, dtype=float)
    return 2 * sigma * phi - 2.0 / X.shape[0] * X.T @ (y - X @ phi)
