r"""Sensitivity of the weighted upper triangle of a second-moment matrix (pure math, no randomness).

The i.i.d. plans of :mod:`matrixdp.models._moments` release ``G = κ Σ_k z_k z_kᵀ`` (``κ = 1/n``
replace-one, ``κ = 1`` add-remove) for records ``z`` in a public box. A symmetric matrix is its
upper triangle; releasing the vector ``y = (x_i^{1/2} G_ii ; G_ij, i < j)`` (the diagonal entry
``i`` multiplied by a public weight ``√x_i``) with i.i.d. Gaussian noise and dividing the diagonal
back is post-processing of one Gaussian mechanism whose L2 sensitivity is

.. math:: \Delta_x^2 = \sup \Big(\tfrac12 \|D\|_F^2 + \sum_i (x_i - \tfrac12) D_{ii}^2\Big),

``D`` the change of ``G`` between neighbours. ``x_i = 1/2`` is the law of today's full ``k × k``
draw at the Frobenius sensitivity, symmetrised (diagonal ``σ²``, off-diagonal ``σ²/2``).

- Replace-one (:func:`replace_one_triangle`): with ``r`` the reach of the box, ``H = Σ r_i²`` over
  the coordinates of positive width, ``T² = Σ t_i²`` over the constant ones and ``R² = H + T²``,
  ``Δ_x <= κ R²`` for every ``x_i <= 1/2 + (H/2 + T²)/r_i²``; a constant coordinate's diagonal
  never changes (``D_ii = 0``), so its weight is free (the plans keep ``x = 1/2`` there).
- Add-remove (:func:`add_remove_triangle_sq`): ``D = ±zzᵀ`` and ``Δ_x² = R⁴/2 + Σ (x_i - 1/2) r_i⁴``
  exactly (the farthest vertex), for every ``x_i >= 0``.

Derivations and the searches that check them: ``docs/when_mvg_wins.md`` §9 (The triangle).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["replace_one_triangle", "add_remove_triangle_sq", "add_remove_weights",
           "triangle_sq_norm"]


def triangle_sq_norm(D: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``Σ_{i<j} D_ij² + Σ_i x_i D_ii²`` of ``(..., k, k)`` symmetric differences ``D``."""
    D = np.asarray(D, dtype=np.float64)
    diag = np.diagonal(D, axis1=-2, axis2=-1)
    off = 0.5 * (np.sum(D * D, axis=(-2, -1)) - np.sum(diag * diag, axis=-1))
    return off + np.sum(np.asarray(x) * diag * diag, axis=-1)


def replace_one_triangle(lower, upper):
    r"""Certified triangle bound for ``D = zzᵀ - z'z'ᵀ`` (unit ``κ``), records in ``[lower, upper]``.

    Returns
    -------
    (sens_sq, x_max, fixed) : (float, ndarray (k,), ndarray of bool (k,))
        ``sens_sq = R⁴`` bounds ``Δ_x²`` for every ``0 <= x <= x_max`` on the coordinates of
        positive width; ``fixed`` marks the constant coordinates (``lower == upper``), whose
        diagonal entry does not change between neighbours (``x_max`` is ``inf`` there).

    Notes
    -----
    ``D = (p qᵀ + q pᵀ)/2`` with ``p = z - z'``, ``q = z + z'``, so ``‖D‖_F² = (‖p‖²‖q‖² +
    (pᵀq)²)/2`` and ``D_ii = p_i q_i``. With ``c_i = x_i - 1/2 >= 0`` every term of
    ``Δ_x² = (‖p‖²‖q‖² + (pᵀq)²)/4 + Σ c_i p_i² q_i²`` grows with ``P_i = |p_i|`` and
    ``Q_i = |q_i|`` (``|pᵀq| <= Σ P_i Q_i``), and ``P_i + Q_i = 2 max(|z_i|, |z'_i|) <= 2 r_i``;
    so take ``P_i = 2 r_i s_i``, ``Q_i = 2 r_i (1 - s_i)`` (``s_i = 0`` on a constant coordinate).
    With ``α = Σ r_i² s_i²``, ``β = Σ r_i² (1-s_i)²``, ``γ = Σ r_i² s_i (1-s_i)``
    (``α + β + 2γ = R²``) and ``S = α + β``: ``Δ_x² <= 4αβ + 4γ² + 16 Σ c_i r_i⁴ s_i²(1-s_i)²``.
    With ``c_i = λ/r_i²``, ``Σ_i r_i² (s_i(1-s_i))² <= γ/4``, ``αβ <= S²/4`` and ``γ = (R² - S)/2``:
    ``Δ_x² <= S² + (R² - S)² + 2λ(R² - S)``, convex in ``S ∈ [H/2 + T², R²]``, so at most its
    value at an end: ``R⁴`` at ``S = R²``, and ``S₀² + H²/4 + λH`` at ``S₀ = H/2 + T²``, which is
    ``<= (S₀ + H/2)² = R⁴`` iff ``λ <= S₀``. It is attained (``D_ii = 0``, ``‖D‖_F² = 2R⁴``) by
    the vertex pair that makes the Frobenius bound ``√2 R²`` exact; then ``Δ_x = Δ_F/√2``.
    """
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    r = np.maximum(np.abs(lo), np.abs(hi))
    fixed = lo == hi
    H = float(np.sum(r[~fixed] ** 2))
    T2 = float(np.sum(r[fixed] ** 2))
    lam = H / 2.0 + T2
    with np.errstate(divide="ignore"):
        x_max = np.where(fixed, np.inf, 0.5 + lam / np.where(r > 0, r * r, 0.0))
    return (H + T2) ** 2, x_max, fixed


def add_remove_triangle_sq(reach, x) -> float:
    r"""Exact ``Δ_x²`` for ``D = zzᵀ`` (add-remove, unit ``κ``), ``|z_i| <= r_i``, ``x_i >= 0``.

    ``Δ_x² = Σ_{i≠j} z_i² z_j²/2 + Σ_i x_i z_i⁴`` grows with every ``|z_i|``: its supremum is at the
    farthest vertex, ``R⁴/2 + Σ_i (x_i - 1/2) r_i⁴`` (attained).
    """
    r2 = np.asarray(reach, dtype=np.float64) ** 2
    R2 = float(np.sum(r2))
    return 0.5 * R2 * R2 + float(np.sum((np.asarray(x, dtype=np.float64) - 0.5) * r2 * r2))


def add_remove_weights(reach, loss_matrix, *, floor: float = 1e-2, ceil: float = 1e6):
    r"""Diagonal weights ``x`` minimising the expected loss of the add-remove triangle release.

    With ``a = (R⁴ - Σ r_i⁴)/2``, ``ρ_i = r_i⁴``, ``A = Σ_{i≠j} W_ij``, ``B_i = W_ii`` the loss is
    ``σ₁² (a + Σ ρ_i x_i)(A + Σ B_i/x_i)``; Cauchy-Schwarz gives its minimum
    ``σ₁² (√(aA) + Σ √(B_i ρ_i))²`` at ``x_i = √(a/A) √(B_i/ρ_i)``. The weights are clipped to
    ``[floor, ceil]`` (an unused diagonal keeps a finite variance); any ``x >= 0`` is private,
    the clipping only moves the loss away from the optimum.
    """
    r2 = np.asarray(reach, dtype=np.float64) ** 2
    W = np.asarray(loss_matrix, dtype=np.float64)
    rho = r2 * r2
    a = 0.5 * (float(np.sum(r2)) ** 2 - float(np.sum(rho)))
    B = np.maximum(np.diagonal(W), 0.0)
    A = max(float(np.sum(W) - np.sum(np.diagonal(W))), 0.0)
    lam = math.sqrt(a / A) if A > 0 and a > 0 else (ceil if A == 0 else floor)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = lam * np.sqrt(np.where(rho > 0, B / np.where(rho > 0, rho, 1.0), ceil ** 2))
    return np.clip(x, floor, ceil)
