r"""Floating-point-safe MVG noise: release the whitened value on a lattice, map back.

MVG noise ``Z ~ MVG(0, Σ, Ψ)`` added to ``F = f(X)`` equals ``B_Σ (W + N) B_Ψᵀ`` with
``W = B_Σ⁻¹ F B_Ψ⁻ᵀ`` and ``N`` i.i.d. N(0, 1), where ``B_Σ = U_Σ diag(p_Σ)^{-1/2}``
(likewise Ψ). The exact calibration's Mahalanobis sensitivity μ is the L2
sensitivity of ``W``. With ``numerics="exact"`` the mechanism therefore

1. projects F onto the public Frobenius ball of radius γ ≥ sup‖f(X)‖_F (the identity
   on valid inputs; it makes the float-error bound below data-independent),
2. computes Ŵ = diag(√p_Σ)·U_Σᵀ F U_Ψ·diag(√p_Ψ) in float64,
3. releases Ŵ on the lattice gℤ^{m×n} with exact discrete Gaussian noise calibrated
   to μ̂ ≥ sensitivity of the *computed* Ŵ (:mod:`matrixdp.mechanisms.lattice`),
4. maps back, Y = B_Σ W′ B_Ψᵀ (post-processing, any float error is harmless).

Float-error budget of step 2 (u = 2⁻⁵³, γ_k = ku/(1 − ku), standard model of
floating-point matrix products, which BLAS dgemm satisfies — any summation order,
FMA or not; not Strassen-type algorithms):

    |Ŵ − W| ≤ η · diag(√p_Σ)|U_Σ|ᵀ|F||U_Ψ|diag(√p_Ψ),  η = γ_m + γ_n + γ_mγ_n + 5u(1 + γ_m + γ_n + γ_mγ_n)

so ‖Ŵ − W‖_F ≤ η·K·γ with K = √max p_Σ·‖U_Σ‖_F·√max p_Ψ·‖U_Ψ‖_F (‖|U|‖₂ ≤ ‖U‖_F; 1 for
the standard basis). The projection is within ζγ of the exact one
(ζ = (γ_{mn} + 3u)(1 + γ_{mn})), so the computed Ŵ has L2 sensitivity at most

    μ̂ = μ·(1 + 2⁻²⁰) + 2·K·γ·(η + ζ),

the 2⁻²⁰ relative slack covering the float evaluation of μ itself (μ is a sum of
O(m + n) positive terms in float64, relative error ~10⁻¹³). The derivation is in
``docs/numerics.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..calibration.discrete import (
    default_granularity,
    discrete_gaussian_sigma2,
    lattice_l2_sensitivity_squared,
)
from .exact_sampling import discrete_gaussian
from .lattice import LatticePlan, to_lattice

__all__ = ["MVGLatticePlan", "mvg_lattice_plan", "mvg_lattice_release", "whiten", "colour"]

_U = 2.0 ** -53


def _gamma_k(k: int) -> float:
    return k * _U / (1 - k * _U)


@dataclass(frozen=True)
class MVGLatticePlan:
    """Public parameters of the exact-numerics MVG release.

    Attributes
    ----------
    lattice : LatticePlan
        The discrete-Gaussian plan for the whitened value (its σ is in W units).
    root_row, root_col : ndarray
        √p of each axis (inverse standard deviations along its directions).
    dirs_row, dirs_col : ndarray or None
        The directions (``None``: standard basis).
    gamma : float
        The public Frobenius radius the value is projected onto.
    mahalanobis_sensitivity : float
        μ of the float calibration.
    sensitivity_bound : float
        μ̂ ≥ L2 sensitivity of the float-computed Ŵ (rounding not yet included).
    """

    lattice: LatticePlan
    root_row: np.ndarray
    root_col: np.ndarray
    dirs_row: np.ndarray | None
    dirs_col: np.ndarray | None
    gamma: float
    mahalanobis_sensitivity: float
    sensitivity_bound: float

    @property
    def noise_scale(self) -> float:
        """σ_W: the noise std in W units (the float MVG path has 1)."""
        return self.lattice.noise_std

    def note(self) -> str:
        return (self.lattice.note() + f"; W = Sigma^-1/2 F Psi^-1/2 computed in float64, its "
                f"sensitivity bounded by {self.sensitivity_bound:.12g} (mu = "
                f"{self.mahalanobis_sensitivity:.12g} plus the float-error budget for "
                f"||F||_F <= gamma = {self.gamma:.6g}); noise std in W units {self.noise_scale:.6g}")


def mvg_lattice_plan(row, col, mahalanobis_sensitivity: float, epsilon: float, delta: float,
                     gamma: float, granularity=None) -> MVGLatticePlan:
    """Plan the exact-numerics release for axis precisions ``row``, ``col`` (AxisPrecision-like)."""
    m, n = int(row.precisions.size), int(col.precisions.size)
    root_row = np.sqrt(np.asarray(row.precisions, dtype=np.float64))
    root_col = np.sqrt(np.asarray(col.precisions, dtype=np.float64))

    def norm_f(u, d):
        return 1.0 if u is None else float(np.linalg.norm(u)) * (1 + 2.0 ** -30)

    k_factor = (float(root_row.max()) * (1 + _U) * norm_f(row.directions, m)
                * float(root_col.max()) * (1 + _U) * norm_f(col.directions, n))
    g_m, g_n = _gamma_k(m), _gamma_k(n)
    prod = g_m + g_n + g_m * g_n
    eta = prod + 5 * _U * (1 + prod)
    zeta = (_gamma_k(m * n) + 3 * _U) * (1 + _gamma_k(m * n))
    mu = float(mahalanobis_sensitivity)
    mu_hat = mu * (1 + 2.0 ** -20) + 2 * k_factor * float(gamma) * (eta + zeta)
    mu_hat *= 1 + 2.0 ** -40      # the float evaluation of this very formula
    g = granularity if granularity is not None else default_granularity(mu_hat, m * n, norm="l2")
    d2 = lattice_l2_sensitivity_squared(mu_hat, g, m * n)
    lattice = LatticePlan(granularity=g, size=m * n, sensitivity=d2,
                          sigma2=discrete_gaussian_sigma2(epsilon, delta, d2))
    return MVGLatticePlan(lattice=lattice, root_row=root_row, root_col=root_col,
                          dirs_row=row.directions, dirs_col=col.directions, gamma=float(gamma),
                          mahalanobis_sensitivity=mu, sensitivity_bound=mu_hat)


def _project(arr: np.ndarray, radius: float) -> np.ndarray:
    """Scale ``arr`` into the Frobenius ball of ``radius`` (the identity inside it)."""
    norm = float(np.linalg.norm(arr))
    if norm <= radius:
        return arr
    return arr * (radius / norm)


def whiten(arr: np.ndarray, plan: MVGLatticePlan) -> np.ndarray:
    w = arr if plan.dirs_row is None else plan.dirs_row.T @ arr
    w = w if plan.dirs_col is None else w @ plan.dirs_col
    return (w * plan.root_row[:, None]) * plan.root_col[None, :]


def colour(w: np.ndarray, plan: MVGLatticePlan) -> np.ndarray:
    """Y = B_Σ W B_Ψᵀ (works on a stack (k, m, n) too)."""
    y = (w / plan.root_row[:, None]) / plan.root_col[None, :]
    if plan.dirs_row is not None:
        y = plan.dirs_row @ y
    if plan.dirs_col is not None:
        y = y @ plan.dirs_col.T
    return y


def mvg_lattice_release(arr: np.ndarray, plan: MVGLatticePlan, rng, n: int | None = None) -> np.ndarray:
    """The exact-numerics MVG release of ``arr`` (``n`` stacked releases when given).

    ``rng`` is the Generator the noise is drawn from; its state determines every draw, so a
    seeded one is replayable by anyone who knows the seed (they regenerate the noise and
    subtract it).
    """
    lat = plan.lattice
    base = to_lattice(whiten(_project(np.asarray(arr, dtype=np.float64), plan.gamma), plan), lat.granularity)
    shape = base.shape if n is None else (int(n),) + base.shape
    w = (base + discrete_gaussian(shape, lat.sigma2, rng)).astype(np.float64) * lat.granularity
    return colour(w, plan)
