"""Budget split of a sequence of Gaussian releases under one (ε, δ) (Gaussian DP composition).

k Gaussian mechanisms with Mahalanobis sensitivities μ_1, ..., μ_k (sensitivity / σ), chosen
adaptively, compose to a mechanism whose privacy profile is at most that of ONE Gaussian
mechanism with μ = sqrt(Σ μ_i²) (Dong, Roth & Su 2022, Cor. 3.3). So a total (ε, δ) fixes
μ* = :func:`~matrixdp.calibration.gaussian.max_gaussian_shift` (exact analytic Gaussian), and
a split of μ*² into shares gives each release σ_i = Δ_i / (μ* sqrt(share_i)). The composed
guarantee itself is built with :mod:`matrixdp.accounting`.
"""

from __future__ import annotations

import math

import numpy as np

from ..calibration.gaussian import gaussian_delta, max_gaussian_shift

__all__ = ["gdp_split", "gdp_delta"]


def gdp_split(epsilon: float, delta: float, shares) -> tuple[float, np.ndarray]:
    """μ* for (ε, δ) and the per-release shifts μ_i = μ* sqrt(share_i) (shares sum to 1)."""
    shares = np.asarray(shares, dtype=np.float64)
    shares = shares / shares.sum()
    mu = max_gaussian_shift(epsilon, delta)
    return mu, mu * np.sqrt(shares)


def gdp_delta(epsilon: float, mus) -> float:
    """δ(ε) of the composition of Gaussian releases with shifts ``mus`` (for checks and tests)."""
    total = math.sqrt(float(np.sum(np.square(np.asarray(mus, dtype=np.float64)))))
    return gaussian_delta(epsilon, 1.0, total)
