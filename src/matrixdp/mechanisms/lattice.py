r"""The exact-numerics release: round to a public lattice gℤᵈ, add exact integer noise, scale back.

``numerics="exact"`` on a mechanism routes :meth:`Mechanism.release` here. The
value ``x`` is divided by the public power of two g (exact in floating point),
clipped to ±2⁶¹ lattice steps and rounded to the nearest integer; integer noise
from :mod:`matrixdp.mechanisms.exact_sampling` is added; the float
``g·(R(x/g) + Z)`` is formed last. Only the integer vector R(x/g) + Z depends on
the data, and its law is exactly the stated discrete one, so the float output is
post-processing and floating-point artefacts cannot leak (Mironov 2012). The
rounding's effect on the sensitivity is accounted for in
:mod:`matrixdp.calibration.discrete`; the derivation is in ``docs/numerics.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .._validation import check_choice
from ..calibration.discrete import (
    default_granularity,
    discrete_gaussian_delta,
    discrete_gaussian_sigma2,
    discrete_gaussian_variance,
    discrete_laplace_scale,
    discrete_laplace_variance,
    lattice_l1_sensitivity,
    lattice_l2_sensitivity_squared,
)
from ..errors import InvalidParameterError
from .exact_sampling import discrete_gaussian, discrete_gaussian_blocks, discrete_laplace

__all__ = ["NUMERICS", "check_numerics", "check_granularity", "LatticePlan",
           "gaussian_lattice_plan", "laplace_lattice_plan", "lattice_release",
           "LatticePlanRelease", "FLOAT_NOTE", "exact_note"]

NUMERICS = ("float", "exact")

#: The note every float-numerics guarantee carries.
FLOAT_NOTE = ("numerics: float — the guarantee assumes idealised real arithmetic; the bit-level "
              "artefacts of floating-point sampling and rounding (Mironov 2012) are not covered "
              "(use numerics='exact' where offered)")

#: Largest |lattice coordinate| kept before noise (clipping is 1-Lipschitz, so it keeps the bound).
_LATTICE_LIMIT = 1 << 61


def check_numerics(numerics) -> str:
    check_choice(numerics, NUMERICS, "numerics")
    return numerics


def check_granularity(granularity):
    """``None`` (chosen from the sensitivity) or a positive power of two."""
    if granularity is None:
        return None
    if isinstance(granularity, bool) or not isinstance(granularity, (int, float, np.floating, np.integer)):
        raise InvalidParameterError("granularity", f"must be None or a power of two, got {granularity!r}")
    g = float(granularity)
    if not (math.isfinite(g) and g > 0 and math.frexp(g)[0] == 0.5):
        raise InvalidParameterError(
            "granularity", f"must be a positive power of two (so that x / g is exact), got {granularity!r}")
    return g


@dataclass(frozen=True)
class LatticePlan:
    """Public parameters of one exact release of a value of ``size`` entries.

    Attributes
    ----------
    granularity : float
        The lattice step g (a power of two).
    size : int
        Entries released (all may change between neighbours).
    sensitivity : int
        Integer sensitivity on the lattice: D₂ (squared L2) for the Gaussian, D₁ for the Laplace.
    sigma2 : Fraction or None
        σ² of the discrete Gaussian, in lattice units.
    scale : Fraction or None
        b of the discrete Laplace, in lattice units.
    """

    granularity: float
    size: int
    sensitivity: int
    sigma2: Fraction | None = None
    scale: Fraction | None = None

    @property
    def noise_std(self) -> float:
        """Standard deviation of the noise in value units (g·√Var)."""
        return self.granularity * math.sqrt(self.lattice_variance)

    @property
    def lattice_variance(self) -> float:
        if self.sigma2 is not None:
            return discrete_gaussian_variance(self.sigma2)
        return discrete_laplace_variance(self.scale)

    @property
    def parameter(self) -> float:
        """σ (Gaussian) or b (Laplace) in value units."""
        if self.sigma2 is not None:
            return self.granularity * math.sqrt(self.sigma2)
        return self.granularity * float(self.scale)

    def note(self) -> str:
        kind = (f"discrete Gaussian, sigma^2 = {self.sigma2} lattice units, "
                f"integer L2 sensitivity^2 {self.sensitivity}" if self.sigma2 is not None else
                f"discrete Laplace, scale = {float(self.scale):.12g} lattice units, "
                f"integer L1 sensitivity {self.sensitivity}")
        return exact_note(f"lattice step g = {self.granularity!r} for {self.size} entries; {kind}")


def exact_note(detail: str) -> str:
    return ("numerics: exact — the value is rounded to a public lattice and the noise is drawn "
            "exactly with integer arithmetic from the CSPRNG's uniform integers; the float output "
            "is post-processing; rounding inflates the sensitivity and that inflation is accounted "
            f"for ({detail})")


def gaussian_lattice_plan(epsilon, delta, sensitivity, size: int, granularity=None) -> LatticePlan:
    """The discrete-Gaussian plan meeting (ε, δ) for an L2 sensitivity and a value of ``size`` entries."""
    g = granularity if granularity is not None else default_granularity(sensitivity, size, norm="l2")
    d2 = lattice_l2_sensitivity_squared(sensitivity, g, size)
    return LatticePlan(granularity=g, size=size, sensitivity=d2,
                       sigma2=discrete_gaussian_sigma2(epsilon, delta, d2))


def laplace_lattice_plan(epsilon, sensitivity, size: int, granularity=None) -> LatticePlan:
    """The discrete-Laplace plan meeting pure ε for an L1 sensitivity and a value of ``size`` entries."""
    g = granularity if granularity is not None else default_granularity(sensitivity, size, norm="l1")
    d1 = lattice_l1_sensitivity(sensitivity, g, size)
    return LatticePlan(granularity=g, size=size, sensitivity=d1,
                       scale=discrete_laplace_scale(epsilon, d1))


def gaussian_plan_delta(plan: LatticePlan, epsilon) -> float:
    """The proven δ(ε) of a discrete-Gaussian plan."""
    return discrete_gaussian_delta(epsilon, plan.sigma2, plan.sensitivity)


def to_lattice(arr: np.ndarray, granularity: float) -> np.ndarray:
    """R(x/g) as int64: exact division by the power of two g, clipping to ±2⁶¹, round-to-nearest."""
    lim = math.ldexp(float(_LATTICE_LIMIT), 0) * granularity
    arr = np.asarray(arr, dtype=np.float64)
    x = np.clip(arr, -lim, lim, out=np.empty_like(arr))
    x *= 1.0 / granularity          # g is a power of two: 1/g is exact and so is the product
    np.rint(x, out=x)
    return x.astype(np.int64)


def lattice_noise(plan: LatticePlan, shape, rng) -> np.ndarray:
    """Integer noise of ``shape`` for ``plan``.

    ``rng`` is the Generator the noise is drawn from; its state determines every draw, so a
    seeded one is replayable by anyone who knows the seed (they regenerate the noise and
    subtract it).
    """
    if plan.sigma2 is not None:
        return discrete_gaussian(shape, plan.sigma2, rng)
    return discrete_laplace(shape, plan.scale, rng)


def lattice_release(arr: np.ndarray, plan: LatticePlan, rng, n: int | None = None) -> np.ndarray:
    """``g·(R(x/g) + Z)`` (float64); with ``n``, ``n`` independent releases stacked on a new first axis.

    ``rng`` is the Generator the noise is drawn from; its state determines every draw, so a
    seeded one is replayable by anyone who knows the seed (they regenerate the noise and
    subtract it).
    """
    if plan.sigma2 is not None and n is None:
        return _gaussian_release_blocks(np.asarray(arr, dtype=np.float64), plan, rng)
    base = to_lattice(arr, plan.granularity)
    shape = base.shape if n is None else (int(n),) + base.shape
    noisy = lattice_noise(plan, shape, rng)
    noisy += base
    out = noisy.astype(np.float64)
    out *= plan.granularity
    return out


def _gaussian_release_blocks(arr: np.ndarray, plan: LatticePlan, rng) -> np.ndarray:
    """:func:`lattice_release` for the discrete Gaussian, block by block while the noise is in
    the CPU cache: the same operations as :func:`to_lattice` and the same output, bit for bit."""
    flat = arr.reshape(-1)
    out = np.empty(flat.size, dtype=np.float64)
    g = plan.granularity
    lim = math.ldexp(float(_LATTICE_LIMIT), 0) * g
    lattice = None
    for start, stop, z in discrete_gaussian_blocks(flat.size, plan.sigma2, rng):
        x = np.clip(flat[start:stop], -lim, lim, out=out[start:stop])
        x *= 1.0 / g
        np.rint(x, out=x)
        if lattice is None:
            lattice = np.empty(z.size, dtype=np.int64)
        r = lattice[:z.size]
        np.copyto(r, x, casting="unsafe")       # R(x/g) as int64 (integral floats: exact)
        z += r                                  # R(x/g) + Z, exactly, in int64
        np.multiply(z, g, out=x)                # g·(R(x/g) + Z): post-processing
    return out.reshape(arr.shape)


class LatticePlanRelease:
    """The exact-numerics releases of a mechanism whose lattice plan for ``size`` entries is
    ``self._plan(size)`` (:class:`~matrixdp.mechanisms.GaussianMechanism`,
    :class:`~matrixdp.mechanisms.LaplaceMechanism`): :func:`lattice_release` of the value, one at
    a time or ``n`` at once. Put before ``Mechanism`` in the bases."""

    def _release_exact(self, arr, gen):
        return lattice_release(arr, self._plan(arr.size), gen)

    def _release_batch_exact(self, value, n, rng=None):
        from ..rng import make_rng

        arr = self._check_value(value)
        return lattice_release(arr, self._plan(arr.size), make_rng(rng), n=n)
