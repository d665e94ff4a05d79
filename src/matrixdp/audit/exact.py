"""Exact privacy profiles δ(ε) of mechanisms, for comparison with their claims."""

from __future__ import annotations

import math

from .._validation import check_epsilon
from ..calibration.gaussian import gaussian_delta
from ..errors import NoExactProfileError

__all__ = ["NoExactProfileError", "exact_delta", "laplace_delta", "has_exact_profile"]


def laplace_delta(epsilon, mechanism_epsilon) -> float:
    r"""Exact δ(ε′) of the Laplace mechanism with scale Δ₁/ε on its worst-case pair.

    For a shift of the full L1 sensitivity along one coordinate (the pair
    ``0`` vs ``Δ₁e₁``), the hockey-stick divergence is

    .. math:: \delta(\varepsilon') = \max\big(0,\ 1 - e^{(\varepsilon' - \varepsilon)/2}\big),

    zero for ε′ ≥ ε (pure ε-DP).

    Parameters
    ----------
    epsilon : float
        ε′ ≥ 0 at which to evaluate.
    mechanism_epsilon : float
        The mechanism's ε = Δ₁/b.

    References
    ----------
    .. [1] B. Balle, G. Barthe and M. Gaboardi, "Privacy Amplification by
       Subsampling: Tight Analyses via Couplings and Divergences", NeurIPS 2018.
    """
    e = 0.0 if epsilon == 0 else check_epsilon(epsilon)
    e0 = check_epsilon(mechanism_epsilon, "mechanism_epsilon")
    return max(0.0, -math.expm1((e - e0) / 2.0))


def has_exact_profile(mechanism) -> bool:
    """Whether :func:`exact_delta` can evaluate ``mechanism``."""
    from ..mechanisms import LaplaceMechanism

    return (callable(getattr(mechanism, "privacy_profile", None))
            or isinstance(mechanism, LaplaceMechanism)
            or (hasattr(mechanism, "sigma") and hasattr(mechanism, "sensitivity")))


def exact_delta(mechanism, epsilon) -> float:
    r"""The exact δ(ε) of ``mechanism`` on its worst-case neighbouring pair.

    Dispatch, in order:

    1. ``mechanism.privacy_profile(epsilon)`` when it exists (i.i.d. and
       correlated Gaussian mechanisms such as MVG compute it from their
       covariance and the query's sensitivity structure; R1SMG's is its *true*
       profile, not the claimed one);
    2. Laplace: :func:`laplace_delta`;
    3. any object with ``sigma`` and ``sensitivity`` (i.i.d. Gaussian noise):
       :func:`~matrixdp.calibration.gaussian.gaussian_delta`.

    Parameters
    ----------
    mechanism : object
    epsilon : float
        ε ≥ 0.

    Returns
    -------
    float
        δ(ε) in [0, 1]. Compare with ``mechanism.privacy.delta``.

    Raises
    ------
    NoExactProfileError
        When none of the above applies; use :func:`~matrixdp.audit.audit_mechanism`.
    """
    from ..mechanisms import LaplaceMechanism

    e = 0.0 if epsilon == 0 else check_epsilon(epsilon)
    profile = getattr(mechanism, "privacy_profile", None)
    if callable(profile):
        return float(profile(e))
    if isinstance(mechanism, LaplaceMechanism):
        return laplace_delta(e, mechanism.epsilon)
    if hasattr(mechanism, "sigma") and hasattr(mechanism, "sensitivity"):
        return gaussian_delta(e, mechanism.sigma, mechanism.sensitivity)
    raise NoExactProfileError(
        f"{type(mechanism).__name__} has no exact privacy profile (no privacy_profile method, "
        "not Laplace or i.i.d. Gaussian); audit it with matrixdp.audit.audit_mechanism instead")
