"""Test statistics for the black-box auditor: each maps outputs to one scalar per output.

A statistic is any callable ``statistic(outputs, value, value_prime) -> ndarray``
with ``outputs`` of shape ``(n, *value.shape)`` and a result of shape ``(n,)``,
oriented so that *large* values point to ``value_prime``. Give it a ``name``
attribute to have it reported. The auditor tries both tails, so the
orientation only matters for reading its reports.
"""

from __future__ import annotations

from typing import Callable, Protocol

import numpy as np

__all__ = [
    "Statistic",
    "projection",
    "distance_ratio",
    "log_likelihood_ratio_for",
    "named_statistic",
]


class Statistic(Protocol):
    name: str

    def __call__(self, outputs: np.ndarray, value: np.ndarray,
                 value_prime: np.ndarray) -> np.ndarray: ...


def _flat(outputs: np.ndarray) -> np.ndarray:
    return np.asarray(outputs, dtype=float).reshape(len(outputs), -1)


def named_statistic(name: str):
    """Decorator: attach ``name`` to a statistic function."""
    def wrap(func):
        func.name = name
        return func
    return wrap


@named_statistic("projection")
def projection(outputs, value, value_prime):
    """⟨output − value, d⟩/‖d‖ with d = value_prime − value (the optimal test for i.i.d. Gaussian noise)."""
    d = np.ravel(value_prime) - np.ravel(value)
    d = d / np.linalg.norm(d)
    return (_flat(outputs) - np.ravel(value)) @ d


@named_statistic("distance-ratio")
def distance_ratio(outputs, value, value_prime):
    r"""ln‖output − value‖ − ln‖output − value_prime‖.

    Catches noise whose density is concentrated near the released value, which is
    what makes rank-1 noise with a secret random direction (R1SMG) non-private:
    its law has density ∝ ‖n‖^{1−M} e^{−‖n‖²/(2σ*)}, which puts probability
    ≈ Δ/√(2πσ*) within Δ/2 of the true value, where the neighbour's output almost
    never lands (it would need its random direction within 30° of the difference).
    The exact R1SMG privacy loss is a function of these two distances only.
    """
    flat = _flat(outputs)
    with np.errstate(divide="ignore"):
        return (np.log(np.linalg.norm(flat - np.ravel(value), axis=1))
                - np.log(np.linalg.norm(flat - np.ravel(value_prime), axis=1)))


def _gaussian_iid_llr(sigma: float):
    @named_statistic("log-likelihood-ratio")
    def llr(outputs, value, value_prime):
        flat = _flat(outputs)
        a = np.sum((flat - np.ravel(value)) ** 2, axis=1)
        b = np.sum((flat - np.ravel(value_prime)) ** 2, axis=1)
        return (a - b) / (2.0 * sigma ** 2)
    return llr


def _laplace_llr(scale: float):
    @named_statistic("log-likelihood-ratio")
    def llr(outputs, value, value_prime):
        flat = _flat(outputs)
        a = np.sum(np.abs(flat - np.ravel(value)), axis=1)
        b = np.sum(np.abs(flat - np.ravel(value_prime)), axis=1)
        return (a - b) / scale
    return llr


def _matrix_gaussian_llr(row_cov: np.ndarray, col_cov: np.ndarray):
    """LLR of matrix-normal noise N = row_cov^{1/2} Z col_cov^{1/2} (linear in the output)."""
    row_inv = np.linalg.inv(np.asarray(row_cov, dtype=float))
    col_inv = np.linalg.inv(np.asarray(col_cov, dtype=float))

    @named_statistic("log-likelihood-ratio")
    def llr(outputs, value, value_prime):
        a = np.asarray(value, dtype=float)
        b = np.asarray(value_prime, dtype=float)
        # log p(Y|B) − log p(Y|A) = tr(col⁻¹ (B−A)ᵀ row⁻¹ Y) − ½ tr(col⁻¹(BᵀR⁻¹B − AᵀR⁻¹A))
        weight = row_inv @ (b - a) @ col_inv
        const = 0.5 * (np.sum(b * (row_inv @ b @ col_inv)) - np.sum(a * (row_inv @ a @ col_inv)))
        y = np.asarray(outputs, dtype=float).reshape((len(outputs),) + a.shape)
        return np.tensordot(y, weight, axes=([1, 2], [0, 1])) - const
    return llr


def log_likelihood_ratio_for(mechanism) -> Callable | None:
    """The exact log-likelihood ratio log p(y | value_prime) − log p(y | value), if known.

    Dispatch: the mechanism's own ``log_likelihood_ratio(outputs, value, value_prime)``;
    matrix-normal noise (``row_cov`` and ``col_cov`` attributes); i.i.d. Gaussian
    (``GaussianMechanism``); Laplace (``LaplaceMechanism``). ``None`` otherwise.
    """
    from ..mechanisms import GaussianMechanism, LaplaceMechanism

    own = getattr(mechanism, "log_likelihood_ratio", None)
    if callable(own):
        @named_statistic("log-likelihood-ratio")
        def llr(outputs, value, value_prime):
            return np.asarray(own(outputs, value, value_prime), dtype=float)
        return llr
    if getattr(mechanism, "row_cov", None) is not None and getattr(mechanism, "col_cov", None) is not None:
        return _matrix_gaussian_llr(mechanism.row_cov, mechanism.col_cov)
    if isinstance(mechanism, GaussianMechanism):
        return _gaussian_iid_llr(mechanism.sigma)
    if isinstance(mechanism, LaplaceMechanism):
        return _laplace_llr(mechanism.scale)
    return None
