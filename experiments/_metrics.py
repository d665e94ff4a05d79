"""Utility metrics of the MVG paper's experiments (spec mvg.md §8.1–§8.3)."""

from __future__ import annotations

import numpy as np


def rmse(predictions: np.ndarray, truth: np.ndarray) -> float:
    """Root mean squared error (Experiment I)."""
    diff = np.asarray(predictions, dtype=float) - np.asarray(truth, dtype=float)
    return float(np.sqrt(np.mean(diff * diff)))


def captured_variance_error(v: np.ndarray, covariance: np.ndarray) -> float:
    """Δρ(v) = λ₁(S̄) − vᵀS̄v for a unit vector v (Eq. 28, Experiment II); ≥ 0, 0 at the top PC."""
    v = np.asarray(v, dtype=float)
    v = v / np.linalg.norm(v)
    top = np.linalg.eigvalsh(covariance)[-1]
    return float(top - v @ covariance @ v)


def residual_sum_of_squares(components: np.ndarray, covariance: np.ndarray) -> float:
    """RSS = Σ_i (λ_i − ṽ_iᵀS̄ṽ_i)² (Eq. 29, Experiment III).

    ``components`` holds the private estimate's eigenvectors in its columns, sorted by
    the private eigenvalue, largest first; λ_i are S̄'s eigenvalues, largest first.
    """
    lam = np.linalg.eigvalsh(covariance)[::-1]
    captured = np.einsum("ji,jk,ki->i", components, covariance, components)
    return float(np.sum((lam - captured) ** 2))


def top_eigenvector(matrix: np.ndarray) -> np.ndarray:
    """Eigenvector of the largest eigenvalue of a symmetric matrix."""
    _, vec = np.linalg.eigh(matrix)
    return vec[:, -1]


def sorted_eigenvectors(matrix: np.ndarray) -> np.ndarray:
    """Eigenvectors of a symmetric matrix in columns, largest eigenvalue first."""
    _, vec = np.linalg.eigh(matrix)
    return vec[:, ::-1]
