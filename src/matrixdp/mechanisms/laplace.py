"""The Laplace mechanism (pure ε-DP for an L1 sensitivity)."""

from __future__ import annotations

import numpy as np

from .._validation import check_epsilon, check_sensitivity
from ..calibration.laplace import laplace_scale
from .base import Mechanism, NoiseSummary, PrivacyGuarantee, check_neighbouring

__all__ = ["LaplaceMechanism"]


class LaplaceMechanism(Mechanism):
    r"""Add i.i.d. Laplace(0, b) noise with :math:`b = \Delta_1/\varepsilon`.

    Guarantee: pure ε-DP (δ = 0) under the neighbouring relation for which
    ``sensitivity`` bounds the L1 distance :math:`\|f(X) - f(X')\|_1`. The
    calibration is exact (tight) for the worst-case pair. Works on scalars and
    arrays of any shape in one vectorised pass.

    Parameters
    ----------
    epsilon : float
        > 0.
    sensitivity : float
        L1 sensitivity of the query, a public bound (never computed from the data).
    neighbouring : str, default "replace-one"
        The relation under which ``sensitivity`` was derived; it is recorded in
        the guarantee.

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
    """

    name = "laplace"

    def __init__(self, *, epsilon, sensitivity, neighbouring: str = "replace-one"):
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_sensitivity(sensitivity)
        self.neighbouring = check_neighbouring(neighbouring)
        self.scale = laplace_scale(self.epsilon, self.sensitivity)

    @property
    def privacy(self) -> PrivacyGuarantee:
        return PrivacyGuarantee(epsilon=self.epsilon, delta=0.0, neighbouring=self.neighbouring,
                                calibration="laplace", exact=True, mechanism=self.name)

    def noise_summary(self, shape) -> NoiseSummary:
        size = int(np.prod(shape))
        var = 2.0 * self.scale ** 2
        return NoiseSummary("laplace", self.scale, var, var * size)

    def _noise(self, shape, rng):
        return rng.laplace(0.0, self.scale, size=shape)

    def to_dp_event(self):
        """The ``dp_accounting.LaplaceDpEvent`` of one release (needs ``matrixdp[accounting]``)."""
        import dp_accounting

        return dp_accounting.LaplaceDpEvent(noise_multiplier=self.scale / self.sensitivity)
