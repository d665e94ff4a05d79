"""The Laplace mechanism (pure ε-DP for an L1 sensitivity)."""

from __future__ import annotations

import numpy as np

from .._validation import check_epsilon, check_sensitivity
from ..calibration.laplace import laplace_scale
from .base import Mechanism, NoiseSummary, PrivacyGuarantee, check_neighbouring
from .lattice import (
    LatticePlanRelease,
    check_granularity,
    check_numerics,
    laplace_lattice_plan,
    lattice_noise,
)

__all__ = ["LaplaceMechanism"]


class LaplaceMechanism(LatticePlanRelease, Mechanism):
    r"""Add i.i.d. Laplace(0, b) noise with :math:`b = \Delta_1/\varepsilon`.

    Guarantee: pure ε-DP (δ = 0) under the neighbouring relation for which
    ``sensitivity`` bounds the L1 distance :math:`\|f(X) - f(X')\|_1`. The
    calibration is exact (tight) for the worst-case pair. Works on scalars and
    arrays of any shape in one vectorised pass.

    With ``numerics="exact"`` the value of d entries is rounded to the lattice
    gℤᵈ (g a power of two, by default the largest with g·d ≤ 2⁻¹⁰Δ₁) and discrete
    Laplace noise of scale b ≥ (Δ₁/g + d)/ε lattice steps is drawn exactly with
    integer arithmetic (Canonne, Kamath & Steinke 2020, Algorithm 2); the float is
    formed last. The guarantee is pure ε-DP for the released floats, with no
    floating-point caveat (``calibration="discrete-laplace"``; ``exact=False``
    since the rounding's sensitivity inflation is a worst-case bound). See
    ``docs/numerics.md``.

    Parameters
    ----------
    epsilon : float
        > 0.
    sensitivity : float
        L1 sensitivity of the query, a public bound (never computed from the data).
    neighbouring : str, default "replace-one"
        The relation under which ``sensitivity`` was derived; it is recorded in
        the guarantee.
    numerics : {"float", "exact"}, default "float"
        ``"float"``: textbook floating-point Laplace (the guarantee assumes
        idealised real arithmetic; its bit-level output is *not* ε-DP, Mironov
        2012). ``"exact"``: lattice release with exact discrete Laplace noise.
        Entries beyond ±2⁶¹ lattice steps (±2⁶¹·g) are clipped there before the noise
        (``docs/numerics.md``; with the default g, about 2⁵¹·Δ₁/d for d entries): a value that large is
        released as the clipped one, silently, since a warning would depend on the data.
    granularity : float, optional
        Exact numerics only: the lattice step, a power of two.

    Attributes
    ----------
    scale : float
        b.
    variance, bias, mse : float
        Per-entry noise variance 2b², bias 0 and mean squared error 2b².

    References
    ----------
    .. [1] C. Dwork, F. McSherry, K. Nissim and A. Smith, "Calibrating Noise to
       Sensitivity in Private Data Analysis", TCC 2006.
    .. [2] I. Mironov, "On Significance of the Least Significant Bits for
       Differential Privacy", CCS 2012.
    .. [3] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
       Differential Privacy", NeurIPS 2020.
    """

    name = "laplace"

    def __init__(self, *, epsilon, sensitivity, neighbouring: str = "replace-one",
                 numerics: str = "float", granularity=None):
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_sensitivity(sensitivity)
        self.neighbouring = check_neighbouring(neighbouring)
        self.numerics = check_numerics(numerics)
        self.granularity = check_granularity(granularity)
        self._plans = {}
        if self.numerics == "exact":
            self.scale = self._plan(1).parameter
        else:
            self.scale = laplace_scale(self.epsilon, self.sensitivity)

    def _plan(self, size: int):
        """The lattice plan for a value of ``size`` entries (public; cached)."""
        size = max(int(size), 1)
        if size not in self._plans:
            self._plans[size] = laplace_lattice_plan(self.epsilon, self.sensitivity, size,
                                                     self.granularity)
        return self._plans[size]

    @property
    def privacy(self) -> PrivacyGuarantee:
        if self.numerics == "exact":
            return self._privacy_for((1,))
        return PrivacyGuarantee(epsilon=self.epsilon, delta=0.0, neighbouring=self.neighbouring,
                                calibration="laplace", exact=True, mechanism=self.name)

    def _privacy_for(self, shape) -> PrivacyGuarantee:
        if self.numerics == "exact":
            plan = self._plan(int(np.prod(shape)))
            return PrivacyGuarantee(epsilon=self.epsilon, delta=0.0, neighbouring=self.neighbouring,
                                    calibration="discrete-laplace", exact=False, mechanism=self.name,
                                    notes=(plan.note(),))
        return self.privacy

    def noise_summary(self, shape) -> NoiseSummary:
        size = int(np.prod(shape))
        if self.numerics == "exact":
            plan = self._plan(size)
            var = plan.noise_std ** 2
            return NoiseSummary("discrete-laplace", plan.parameter, var,
                                (var + plan.granularity ** 2 / 4) * size)
        var = 2.0 * self.scale ** 2
        return NoiseSummary("laplace", self.scale, var, var * size)

    def _noise(self, shape, rng):
        if self.numerics == "exact":
            plan = self._plan(int(np.prod(shape)))
            return lattice_noise(plan, shape, rng).astype(np.float64) * plan.granularity
        return rng.laplace(0.0, self.scale, size=shape)

    def to_dp_event(self):
        """The ``dp_accounting`` event of one release (needs ``matrixdp[accounting]``).

        Float numerics: ``LaplaceDpEvent``. Exact numerics: ``ZCDpEvent`` with
        ρ = ε²/2 (pure ε-DP implies it; the discrete Laplace's loss law is not the
        continuous one's).
        """
        import dp_accounting

        if self.numerics == "exact":
            return dp_accounting.ZCDpEvent(rho=self.epsilon ** 2 / 2)
        return dp_accounting.LaplaceDpEvent(noise_multiplier=self.scale / self.sensitivity)
