r"""Floating-point-safe correlated Gaussian noise per record (local DP), e.g. Farokhi's Fisher noise.

A record ``x`` (a row, inside a public box of widths R) gets noise ``F z``, z ~ N(0, I), with a
public colouring matrix F. Equivalently, the whitened record ``w = A x`` (A ≈ F⁻¹) gets i.i.d.
unit noise and is mapped back by F. The exact path releases ``w`` on a lattice with exact
discrete Gaussian noise (:mod:`matrixdp.mechanisms.lattice`) and forms ``F·g·(R(Ŵ/g) + Z)`` last.

Sensitivity of the *computed* whitened record, for every pair of records in the box:

* exact part: sup_{|d_j| ≤ R_j} ‖A d‖₂ = max over the box's vertices of ‖A diag(R) s‖₂ (a convex
  function is maximal at a vertex) = ‖A diag(R)‖_{∞,2}, enumerated for p ≤ 16, otherwise
  :func:`~matrixdp.calibration.fisher_ldp.norm_inf2` (the float path's: exact for a diagonal
  matrix and by enumeration up to p = 20, else the bound min(√p‖M‖₂, √Σ_i(Σ_j|m_ij|)²));
  evaluated in float64 and inflated by 2⁻²⁰. (Before session 22 the p > 16 branch used
  min(Σ_j R_j‖A_{:,j}‖₂, ‖A diag(R)‖_F), whose Frobenius term is no bound: the all-ones
  vertex of an equicorrelated A reaches √p times it; ``results/defect_hunt_dh_notes.md``.)
* float error of Ŵ = fl(X Aᵀ): per record ‖ŵ − Ax‖₂ ≤ γ_p ‖A‖_F ‖x‖₂ ≤ γ_p ‖A‖_F B
  (γ_p = pu/(1 − pu), u = 2⁻⁵³; B = the largest ‖x‖₂ in the box), twice between neighbours.

The derivation is in ``docs/numerics.md``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..calibration.discrete import (
    default_granularity,
    discrete_gaussian_sigma2,
    lattice_l2_sensitivity_squared,
)
from ..calibration.fisher_ldp import norm_inf2
from .exact_sampling import discrete_gaussian
from .lattice import LatticePlan, to_lattice

__all__ = ["RecordLatticePlan", "box_sensitivity", "record_lattice_plan", "record_lattice_release"]

_U = 2.0 ** -53
_VERTEX_MAX_P = 16


def box_sensitivity(whiten: np.ndarray, widths: np.ndarray) -> float:
    """sup ‖A d‖₂ over |d_j| ≤ R_j, ×(1 + 2⁻²⁰): exact over the vertices for p ≤ 16, else
    :func:`~matrixdp.calibration.fisher_ldp.norm_inf2` of ``A diag(R)`` (exact for a diagonal
    matrix or p ≤ 20, otherwise a valid upper bound)."""
    m = np.asarray(whiten, dtype=np.float64) * np.asarray(widths, dtype=np.float64)[None, :]
    p = m.shape[1]
    if p <= _VERTEX_MAX_P:
        signs = np.array(list(itertools.product((-1.0, 1.0), repeat=p - 1)), dtype=np.float64)
        signs = np.hstack([np.ones((signs.shape[0], 1)), signs]) if p > 1 else np.ones((1, 1))
        value = float(np.sqrt(np.max(np.sum((signs @ m.T) ** 2, axis=1))))
    else:
        value = float(norm_inf2(m))
    return value * (1 + 2.0 ** -20)


@dataclass(frozen=True)
class RecordLatticePlan:
    """Public parameters of the exact per-record release (see the module docstring)."""

    lattice: LatticePlan
    whiten: np.ndarray
    colour: np.ndarray
    sensitivity_bound: float

    @property
    def noise_scale(self) -> float:
        """σ_W: the noise std in whitened units (the float path has 1)."""
        return self.lattice.noise_std

    def note(self) -> str:
        return (self.lattice.note() + f"; per record, the whitened record A x is computed in float64 "
                f"and its sensitivity over the public box bounded by {self.sensitivity_bound:.12g} "
                f"(float error included); noise std in whitened units {self.noise_scale:.6g}")


def record_lattice_plan(whiten, colour, widths, max_record_norm: float, epsilon: float, delta: float,
                        granularity=None) -> RecordLatticePlan:
    """Plan the exact release of records in a box of ``widths`` with ‖x‖₂ ≤ ``max_record_norm``."""
    a = np.asarray(whiten, dtype=np.float64)
    p = a.shape[1]
    exact_part = box_sensitivity(a, widths)
    gamma_p = p * _U / (1 - p * _U)
    err = gamma_p * float(np.linalg.norm(a)) * (1 + 2.0 ** -30) * float(max_record_norm)
    s_hat = (exact_part + 2 * err) * (1 + 2.0 ** -40)
    g = granularity if granularity is not None else default_granularity(s_hat, p, norm="l2")
    d2 = lattice_l2_sensitivity_squared(s_hat, g, p)
    lattice = LatticePlan(granularity=g, size=p, sensitivity=d2,
                          sigma2=discrete_gaussian_sigma2(epsilon, delta, d2))
    return RecordLatticePlan(lattice=lattice, whiten=a, colour=np.asarray(colour, dtype=np.float64),
                             sensitivity_bound=s_hat)


def record_lattice_release(X: np.ndarray, plan: RecordLatticePlan, rng) -> np.ndarray:
    """``F·g·(R(X Aᵀ/g) + Z)`` row by row (vectorised over all records).

    ``rng`` is the Generator the noise is drawn from; its state determines every draw, so a
    seeded one is replayable by anyone who knows the seed (they regenerate the noise and
    subtract it).
    """
    lat = plan.lattice
    base = to_lattice(np.asarray(X, dtype=np.float64) @ plan.whiten.T, lat.granularity)
    z = discrete_gaussian(base.shape, lat.sigma2, rng)
    return ((base + z).astype(np.float64) * lat.granularity) @ plan.colour.T


def max_box_norm(low, high) -> float:
    """The largest ‖x‖₂ over the box [low, high] (slightly inflated for its float evaluation)."""
    corner = np.maximum(np.abs(np.asarray(low, float)), np.abs(np.asarray(high, float)))
    return float(np.linalg.norm(corner)) * (1 + 2.0 ** -30)
