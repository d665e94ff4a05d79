"""Calibration of the Laplace mechanism (pure function)."""

from __future__ import annotations

from .._validation import check_epsilon, check_noise_scale, check_sensitivity

__all__ = ["laplace_scale"]


def laplace_scale(epsilon, sensitivity) -> float:
    r"""Scale :math:`b = \Delta_1/\varepsilon` of the ε-DP Laplace mechanism.

    Parameters
    ----------
    epsilon : float
        > 0.
    sensitivity : float
        L1 sensitivity :math:`\Delta_1 > 0`.

    Returns
    -------
    float

    Raises
    ------
    InvalidPrivacyParameterError
        For an invalid argument, or when ``sensitivity / epsilon`` underflows to 0 (no noise)
        or its variance ``2 b²`` overflows float64.

    References
    ----------
    .. [1] C. Dwork, F. McSherry, K. Nissim and A. Smith, "Calibrating Noise to
       Sensitivity in Private Data Analysis", TCC 2006.
    """
    eps = check_epsilon(epsilon)
    sens = check_sensitivity(sensitivity)
    return check_noise_scale(sens / eps, eps, sens)
