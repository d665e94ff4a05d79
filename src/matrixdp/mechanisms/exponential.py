"""The exponential mechanism over a finite public set of candidates (e.g. DP quantiles).

Configuration plus :meth:`ExponentialMechanism.release`: given the utilities of m public
candidates (one row per selection), it releases one candidate per row, drawn with probability
``∝ exp(ε_row u / (2Δ))``. The released value is the selection as a one-hot row (so the value
keeps its shape); ``release.metadata["indices"]`` gives the chosen indices. Derivation:
``docs/bounds.md``.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_epsilon
from ..calibration.quantile import exponential_log_probabilities
from ..errors import InvalidParameterError
from .base import Mechanism, NoiseSummary, PrivacyGuarantee, check_neighbouring

__all__ = ["ExponentialMechanism"]


class ExponentialMechanism(Mechanism):
    r"""Select one public candidate per row of utilities with the exponential mechanism.

    A release of an ``(r, m)`` utility matrix makes r selections, each ``ε / r``-DP, so the
    release is ε-DP by basic composition (pure DP, δ = 0). Row i selects candidate j with
    probability :math:`\exp(\varepsilon u_{ij} / (2 r \Delta)) / \sum_k \exp(\varepsilon
    u_{ik} / (2 r \Delta))`, sampled exactly by inverting the cumulative probabilities with one
    uniform draw per row (up to floating-point rounding, as every float mechanism).

    Parameters
    ----------
    epsilon : float
        The ε of a whole release (shared equally by its rows).
    sensitivity : float, default 1.0
        Δ: the most one record changes any utility (under ``neighbouring``).
    neighbouring : {"replace-one", "add-remove"}, default "replace-one"
        The relation under which ``sensitivity`` holds (recorded in the guarantee).

    Notes
    -----
    The guarantee is a sufficient bound (``exact=False``): the exponential mechanism's
    factor 2 is not attained by every utility.

    References
    ----------
    .. [1] F. McSherry, K. Talwar, "Mechanism design via differential privacy", FOCS 2007.
    .. [2] A. Smith, "Privacy-preserving statistical estimation with optimal convergence
       rates", STOC 2011 (the quantile utility).
    .. [3] docs/bounds.md.
    """

    name = "exponential mechanism"

    def __init__(self, *, epsilon: float, sensitivity: float = 1.0,
                 neighbouring: str = "replace-one"):
        self.epsilon = check_epsilon(epsilon, "epsilon")
        if isinstance(sensitivity, bool) or not isinstance(sensitivity, (int, float)) or not (
                math.isfinite(sensitivity) and sensitivity > 0):
            raise InvalidParameterError("sensitivity", f"must be a finite number > 0, got "
                                                       f"{sensitivity!r}")
        self.sensitivity = float(sensitivity)
        self.neighbouring = check_neighbouring(neighbouring)

    @property
    def privacy(self) -> PrivacyGuarantee:
        return PrivacyGuarantee(
            epsilon=self.epsilon, delta=0.0, neighbouring=self.neighbouring,
            calibration="exponential", exact=False, mechanism=self.name,
            notes=(f"utility sensitivity {self.sensitivity:g}; the rows of a release share "
                   "epsilon equally (basic composition)",))

    def probabilities(self, scores) -> np.ndarray:
        """The exact selection probabilities of a release of ``scores`` (public formula)."""
        u = np.asarray(scores, dtype=np.float64)
        rows = 1 if u.ndim == 1 else u.shape[0]
        return np.exp(exponential_log_probabilities(u, self.epsilon / rows, self.sensitivity))

    def noise_summary(self, shape) -> NoiseSummary:
        nan = float("nan")  # the selection's error depends on the utilities (the data)
        return NoiseSummary("exponential-mechanism", nan, nan, nan, bias=nan)

    def _check_value(self, value) -> np.ndarray:
        u = np.asarray(value, dtype=np.float64)
        if u.ndim not in (1, 2) or u.shape[-1] < 1 or u.size == 0 or not np.all(np.isfinite(u)):
            raise InvalidParameterError("value", "must be a finite (m,) or (r, m) array of "
                                                 "utilities")
        return u

    def _noise(self, shape, rng) -> np.ndarray:
        raise NotImplementedError("the exponential mechanism selects; it adds no noise")

    def _randomise(self, arr: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        P = np.atleast_2d(self.probabilities(arr))
        cum = np.cumsum(P, axis=1)
        cum /= cum[:, -1:]
        u = gen.random(P.shape[0])
        # row i selects j with cum[j-1] <= u < cum[j]: a candidate of probability 0 never
        idx = np.minimum((cum <= u[:, None]).sum(axis=1), P.shape[1] - 1)
        out = np.zeros_like(P)
        out[np.arange(P.shape[0]), idx] = 1.0
        return out.reshape(arr.shape)

    @staticmethod
    def indices(release) -> np.ndarray:
        """The selected candidate of each row of a release (its one-hot value)."""
        return np.atleast_2d(np.asarray(release.value)).argmax(axis=1)
