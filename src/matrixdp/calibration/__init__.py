"""Pure calibration math (no randomness): noise scales and exact privacy profiles.

Submodules: :mod:`matrixdp.calibration.gaussian` (classic and analytic Gaussian,
exact δ(ε)); later mechanism families add their own modules here.
"""

from .gaussian import (
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    gaussian_delta,
    gaussian_epsilon,
    gaussian_log_delta_for_shift,
    max_gaussian_shift,
)
from .laplace import laplace_scale

__all__ = [
    "analytic_gaussian_sigma",
    "classic_gaussian_sigma",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_log_delta_for_shift",
    "max_gaussian_shift",
    "laplace_scale",
]
