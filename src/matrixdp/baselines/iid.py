"""i.i.d. Gaussian noise with the Dwork–Roth ("classic") calibration, as the MVG paper's baselines use it.

The MVG paper runs the Gaussian baseline [Dwork et al. 2006] at ε = 1, the boundary of the
Dwork–Roth theorem (proved for ε < 1), which :class:`~matrixdp.GaussianMechanism` refuses.
:class:`ClassicGaussianBaseline` accepts any ε but only when the *exact* privacy profile
(Balle & Wang) confirms that the classic σ really gives (ε, δ)-DP, so it never over-claims.

Derivation: ``docs/baselines.md``.
"""

from __future__ import annotations

import math

from .._validation import check_delta, check_epsilon, check_sensitivity
from ..calibration.gaussian import gaussian_delta
from ..errors import InvalidPrivacyParameterError
from ..mechanisms.base import PrivacyGuarantee, check_neighbouring
from ..mechanisms.gaussian import GaussianMechanism

__all__ = ["ClassicGaussianBaseline", "dwork_roth_sigma"]


def dwork_roth_sigma(epsilon, delta, sensitivity) -> float:
    r"""σ = Δ₂ √(2 ln(1.25/δ)) / ε, accepted for any ε > 0 when the exact profile confirms it.

    Parameters
    ----------
    epsilon, delta, sensitivity : float
        ε > 0, δ in (0, 1), L2 sensitivity Δ₂ > 0.

    Returns
    -------
    float
        The classic σ.

    Raises
    ------
    InvalidPrivacyParameterError
        When the exact δ(ε) of N(0, σ²) noise exceeds ``delta`` (the formula would
        over-claim; this happens for large ε).

    References
    ----------
    .. [1] C. Dwork and A. Roth (2014), The Algorithmic Foundations of Differential
       Privacy, Theorem A.1.
    .. [2] B. Balle and Y.-X. Wang (2018), Improving the Gaussian mechanism for
       differential privacy, ICML (the exact profile used as the check).
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    sens = check_sensitivity(sensitivity)
    sigma = sens * math.sqrt(2.0 * math.log(1.25 / d)) / eps
    true_delta = gaussian_delta(eps, sigma, sens)
    if true_delta > d:
        raise InvalidPrivacyParameterError(
            "epsilon", f"the classic sigma {sigma:.6g} gives delta {true_delta:.3g} > {d:.3g} at "
                       f"epsilon={eps}; use the analytic calibration")
    return sigma


class ClassicGaussianBaseline(GaussianMechanism):
    """i.i.d. N(0, σ²) with the classic σ, valid at ε ≥ 1 when the exact profile confirms it.

    Same interface as :class:`~matrixdp.GaussianMechanism`; the guarantee records
    ``calibration="classic (exact-profile checked)"`` and ``exact=False`` (σ is larger
    than needed; the analytic calibration is the tight one).

    Parameters
    ----------
    epsilon, delta, sensitivity : float
        As for :class:`~matrixdp.GaussianMechanism`.
    neighbouring : str, default "replace-one"

    References
    ----------
    .. [1] C. Dwork, K. Kenthapadi, F. McSherry, I. Mironov, M. Naor (2006). Our data,
       ourselves: privacy via distributed noise generation. EUROCRYPT.
    """

    name = "gaussian-classic"

    def __init__(self, *, epsilon, delta, sensitivity, neighbouring: str = "replace-one"):
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.sensitivity = check_sensitivity(sensitivity)
        self.calibration = "classic"
        self.neighbouring = check_neighbouring(neighbouring)
        self.sigma = dwork_roth_sigma(self.epsilon, self.delta, self.sensitivity)

    @property
    def privacy(self) -> PrivacyGuarantee:
        return PrivacyGuarantee(epsilon=self.epsilon, delta=self.delta,
                                neighbouring=self.neighbouring,
                                calibration="classic (exact-profile checked)", exact=False,
                                mechanism=self.name)
