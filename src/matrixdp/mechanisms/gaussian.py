"""The Gaussian mechanism ((ε, δ)-DP for an L2 sensitivity), analytic or classic calibration."""

from __future__ import annotations

import numpy as np

from .._validation import check_delta, check_epsilon, check_sensitivity
from ..calibration.gaussian import (
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    gaussian_delta,
)
from ..errors import InvalidParameterError
from .base import Mechanism, NoiseSummary, PrivacyGuarantee, check_neighbouring

__all__ = ["GaussianMechanism"]

_CALIBRATIONS = ("analytic", "classic")


class GaussianMechanism(Mechanism):
    r"""Add i.i.d. N(0, σ²) noise calibrated to an L2 sensitivity.

    Guarantee: (ε, δ)-DP under the neighbouring relation for which
    ``sensitivity`` bounds :math:`\|f(X) - f(X')\|_2` (Frobenius norm for
    matrices). With ``calibration="analytic"`` (default) σ is the smallest
    that meets (ε, δ) (Balle & Wang 2018), so the guarantee is exact; with
    ``"classic"`` σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth, needs ε < 1), a sufficient
    but loose bound. The derivation is in ``docs/derivations/gaussian.md``.

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

    Attributes
    ----------
    sigma, scale : float
        The noise standard deviation.
    variance, bias, mse : float
        σ², 0 and σ² per entry.

    References
    ----------
    .. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
       Differential Privacy: Analytical Calibration and Optimal Denoising", ICML 2018.
    .. [2] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", 2014, Theorem A.1.
    """

    name = "gaussian"

    def __init__(self, *, epsilon, delta, sensitivity, calibration: str = "analytic",
                 neighbouring: str = "replace-one"):
        if calibration not in _CALIBRATIONS:
            raise InvalidParameterError(
                "calibration", f"must be one of {_CALIBRATIONS}, got {calibration!r}")
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.sensitivity = check_sensitivity(sensitivity)
        self.calibration = calibration
        self.neighbouring = check_neighbouring(neighbouring)
        if calibration == "analytic":
            self.sigma = analytic_gaussian_sigma(self.epsilon, self.delta, self.sensitivity)
        else:
            self.sigma = classic_gaussian_sigma(self.epsilon, self.delta, self.sensitivity)

    @property
    def scale(self) -> float:
        return self.sigma

    @property
    def variance(self) -> float:
        return self.sigma ** 2

    @property
    def bias(self) -> float:
        return 0.0

    @property
    def mse(self) -> float:
        return self.variance

    @property
    def privacy(self) -> PrivacyGuarantee:
        return PrivacyGuarantee(epsilon=self.epsilon, delta=self.delta,
                                neighbouring=self.neighbouring, calibration=self.calibration,
                                exact=self.calibration == "analytic", mechanism=self.name,
                                mu=self.sensitivity / self.sigma)

    def privacy_profile(self, epsilon) -> float:
        """Exact δ(ε) of this mechanism at ``epsilon`` (see :func:`~matrixdp.calibration.gaussian_delta`)."""
        return gaussian_delta(epsilon, self.sigma, self.sensitivity)

    def noise_summary(self, shape) -> NoiseSummary:
        size = int(np.prod(shape))
        return NoiseSummary("gaussian", self.sigma, self.variance, self.variance * size)

    def _noise(self, shape, rng):
        noise = rng.standard_normal(size=shape)
        noise *= self.sigma
        return noise

    def to_dp_event(self):
        """The ``dp_accounting.GaussianDpEvent`` of one release (needs ``matrixdp[accounting]``)."""
        import dp_accounting

        return dp_accounting.GaussianDpEvent(noise_multiplier=self.sigma / self.sensitivity)
