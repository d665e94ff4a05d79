"""Pure calibration math (no randomness): noise scales and exact privacy profiles.

Imports only ``errors``, ``_validation`` and ``_linalg`` (``tests/test_layering.py``). Submodules:

* :mod:`.gaussian` — classic and analytic Gaussian, exact δ(ε); :mod:`.laplace`,
  :mod:`.laplace_profile` (δ(ε) of vector Laplace noise); :mod:`.r1smg`.
* :mod:`.mvg_theorems` — the MVG paper's Theorems 2, 3, 5, 6; :mod:`.mvg_exact` — the exact
  calibration given a query's sensitivity structure; :mod:`.allocation` — precision
  allocations (binary, max-PNR / water-filling / Theorem 7, mse-optimal, exact-budget max-PNR).
* :mod:`.fisher` — Fisher information and Farokhi's optimal noise; :mod:`.fisher_ldp` — its
  local-DP ε (the paper's Theorem 2.5 and the exact analytic ε).
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
