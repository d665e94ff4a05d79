"""The Gaussian mechanism ((ε, δ)-DP for an L2 sensitivity), analytic or classic calibration."""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, check_delta, check_epsilon, check_sensitivity
from ..calibration.gaussian import (
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    gaussian_delta,
)
from .base import Mechanism, NoiseSummary, PrivacyGuarantee, check_neighbouring
from .lattice import (
    LatticePlanRelease,
    check_granularity,
    check_numerics,
    gaussian_lattice_plan,
    gaussian_plan_delta,
    lattice_noise,
)

__all__ = ["GaussianMechanism"]

_CALIBRATIONS = ("analytic", "classic")


class GaussianMechanism(LatticePlanRelease, Mechanism):
    r"""Add i.i.d. N(0, σ²) noise calibrated to an L2 sensitivity.

    Guarantee: (ε, δ)-DP under the neighbouring relation for which
    ``sensitivity`` bounds :math:`\|f(X) - f(X')\|_2` (Frobenius norm for
    matrices). With ``calibration="analytic"`` (default) σ is the smallest
    that meets (ε, δ) (Balle & Wang 2018), so the guarantee is exact; with
    ``"classic"`` σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth, needs ε < 1), a sufficient
    but loose bound. The derivation is in ``docs/gaussian.md``.

    With ``numerics="exact"`` the value of d entries is rounded to the lattice
    gℤᵈ (g a power of two, by default the largest with g√d ≤ 2⁻¹⁰Δ), discrete
    Gaussian noise is drawn exactly with integer arithmetic (Canonne, Kamath &
    Steinke 2020) and the float is formed last; σ is calibrated to the lattice
    sensitivity (Δ/g + √d) through the discrete Gaussian's zCDP bound, a proven
    upper bound (``calibration="discrete-zcdp"``, ``exact=False``) that costs
    about 10–25% more σ than the analytic float calibration. See ``docs/numerics.md``.

    Parameters
    ----------
    epsilon : float
        > 0 (< 1 for ``"classic"``).
    delta : float
        In (0, 1).
    sensitivity : float
        L2 sensitivity, a public bound (never computed from the data).
    calibration : {"analytic", "classic"}
    neighbouring : str, default "replace-one"
        Relation under which ``sensitivity`` was derived; recorded in the guarantee.
    numerics : {"float", "exact"}, default "float"
        ``"float"``: N(0, σ²) in floating point (the guarantee assumes idealised
        real arithmetic). ``"exact"``: lattice release with exact discrete
        Gaussian noise (floating-point safe).
        Entries beyond ±2⁶¹ lattice steps (±2⁶¹·g) are clipped there before the noise
        (``docs/numerics.md``; with the default g, about 2⁵¹·Δ/√d for d entries): a value that large is
        released as the clipped one, silently, since a warning would depend on the data.
    granularity : float, optional
        Exact numerics only: the lattice step, a power of two (default chosen
        from the sensitivity and the value's size).

    Attributes
    ----------
    sigma, scale : float
        The noise standard deviation (exact numerics: the discrete Gaussian's σ
        for a scalar release; :meth:`noise_summary` gives it for any shape).
    variance, bias, mse : float
        σ², 0 and σ² per entry.

    References
    ----------
    .. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
       Differential Privacy: Analytical Calibration and Optimal Denoising", ICML 2018.
    .. [2] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", 2014, Theorem A.1.
    .. [3] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
       Differential Privacy", NeurIPS 2020.
    """

    name = "gaussian"

    def __init__(self, *, epsilon, delta, sensitivity, calibration: str = "analytic",
                 neighbouring: str = "replace-one", numerics: str = "float", granularity=None):
        check_choice(calibration, _CALIBRATIONS, "calibration")
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.sensitivity = check_sensitivity(sensitivity)
        self.calibration = calibration
        self.neighbouring = check_neighbouring(neighbouring)
        self.numerics = check_numerics(numerics)
        self.granularity = check_granularity(granularity)
        if self.numerics == "exact":
            self._plans = {}
            self.sigma = self._plan(1).parameter
        elif calibration == "analytic":
            self.sigma = analytic_gaussian_sigma(self.epsilon, self.delta, self.sensitivity)
        else:
            self.sigma = classic_gaussian_sigma(self.epsilon, self.delta, self.sensitivity)

    def with_sensitivity(self, sensitivity) -> "GaussianMechanism":
        """The same (ε, δ), calibration, relation and numerics at another L2 sensitivity.

        The noise scales with the sensitivity (the Gaussian-DP shift ``μ = Δ/σ`` is kept), so a
        release whose sensitivity is chosen later (a clip set from earlier releases, a
        histogram with more cells per record) keeps the claim it was charged for.
        """
        return type(self)(epsilon=self.epsilon, delta=self.delta, sensitivity=sensitivity,
                          calibration=self.calibration, neighbouring=self.neighbouring,
                          numerics=self.numerics, granularity=self.granularity)

    def _release_terms(self, shape) -> tuple:
        """The (guarantee, noise summary) of a release of ``shape``, cached per shape.

        Both are frozen and depend only on the public configuration and the shape; the
        configuration cannot change after construction (``Mechanism.__setattr__``), so the cache
        never goes stale. It is bounded (cleared past 64 shapes).
        """
        terms = self.__dict__.get("_terms")
        if terms is None:
            terms = {}
            object.__setattr__(self, "_terms", terms)
        found = terms.get(shape)
        if found is None:
            if len(terms) >= 64:
                terms.clear()
            found = terms[shape] = (self._privacy_for(shape), self.noise_summary(shape))
        return found

    def _plan(self, size: int):
        """The lattice plan for a value of ``size`` entries (public; cached)."""
        size = max(int(size), 1)
        if size not in self._plans:
            self._plans[size] = gaussian_lattice_plan(self.epsilon, self.delta, self.sensitivity,
                                                      size, self.granularity)
        return self._plans[size]

    @property
    def scale(self) -> float:
        return self.sigma

    @property
    def privacy(self) -> PrivacyGuarantee:
        if self.numerics == "exact":
            return self._privacy_for((1,))
        return PrivacyGuarantee(epsilon=self.epsilon, delta=self.delta,
                                neighbouring=self.neighbouring, calibration=self.calibration,
                                exact=self.calibration == "analytic", mechanism=self.name,
                                mu=self.sensitivity / self.sigma)

    def _privacy_for(self, shape) -> PrivacyGuarantee:
        if self.numerics == "exact":
            plan = self._plan(int(np.prod(shape)))
            return PrivacyGuarantee(epsilon=self.epsilon, delta=self.delta,
                                    neighbouring=self.neighbouring, calibration="discrete-zcdp",
                                    exact=False, mechanism=self.name, notes=(plan.note(),))
        return self.privacy

    def privacy_profile(self, epsilon) -> float:
        """δ(ε) of this mechanism at ``epsilon``.

        Float numerics: the exact Gaussian profile
        (:func:`~matrixdp.calibration.gaussian_delta`). Exact numerics: the proven
        discrete-Gaussian bound of a scalar release
        (:func:`~matrixdp.calibration.discrete.discrete_gaussian_delta`).
        """
        if self.numerics == "exact":
            return gaussian_plan_delta(self._plan(1), epsilon)
        return gaussian_delta(epsilon, self.sigma, self.sensitivity)

    def noise_summary(self, shape) -> NoiseSummary:
        size = int(np.prod(shape)) if np.ndim(shape) else int(shape)
        if self.numerics == "exact":
            plan = self._plan(size)
            var = plan.noise_std ** 2
            # rounding to the lattice moves each entry by at most g/2 (a deterministic bias)
            return NoiseSummary("discrete-gaussian", plan.parameter, var,
                                (var + plan.granularity ** 2 / 4) * size)
        var = self.sigma ** 2
        return NoiseSummary("gaussian", self.sigma, var, var * size)

    def _noise(self, shape, rng):
        if self.numerics == "exact":
            plan = self._plan(int(np.prod(shape)))
            return lattice_noise(plan, shape, rng).astype(np.float64) * plan.granularity
        noise = rng.standard_normal(size=shape)
        noise *= self.sigma
        return noise

    def _randomise(self, arr, gen):
        if self.numerics == "exact":
            return self._release_exact(arr, gen)
        # value + noise with one allocation (the same floats as ``arr + sigma * z``)
        out = gen.standard_normal(size=arr.shape)
        out *= self.sigma
        out += arr
        return out

    def to_dp_event(self):
        """The ``dp_accounting`` event of one release (needs ``matrixdp[accounting]``).

        Float numerics: ``GaussianDpEvent``. Exact numerics: ``ZCDpEvent`` with
        ρ = D₂/(2σ²) of a scalar release (the discrete Gaussian's proven bound; its
        exact privacy-loss law is not the continuous one).
        """
        import dp_accounting

        if self.numerics == "exact":
            plan = self._plan(1)
            return dp_accounting.ZCDpEvent(rho=plan.sensitivity / (2 * float(plan.sigma2)))
        return dp_accounting.GaussianDpEvent(noise_multiplier=self.sigma / self.sensitivity)
