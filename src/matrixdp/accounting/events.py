"""A guarantee as a ``dp-accounting`` event, for users who compose with that library directly.

What a release *was* (its guarantee) is kept apart from how releases compose (the accountants),
as in dp-accounting: a μ-GDP release is a ``GaussianDpEvent`` with noise multiplier 1/μ, a
Laplace-mechanism release a ``LaplaceDpEvent`` with noise multiplier 1/ε, anything else an
``UnsupportedDpEvent`` (dp-accounting's accountants then refuse it, rather than guess).
"""

from __future__ import annotations

from ..mechanisms.base import PrivacyGuarantee
from .composition import PLD_MISSING_MESSAGE, is_laplace_mechanism

__all__ = ["to_dp_event"]


def to_dp_event(guarantee):
    """The ``dp_accounting.DpEvent`` of one release (a guarantee, a Release or a mechanism).

    Raises ImportError (saying how to install it) without the optional ``dp-accounting``.

    Examples
    --------
    >>> from matrixdp import GaussianMechanism
    >>> ev = to_dp_event(GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=2.0))
    >>> type(ev).__name__, round(ev.noise_multiplier, 4)
    ('GaussianDpEvent', 3.7306)
    """
    try:
        import dp_accounting
    except ImportError as exc:
        raise ImportError(PLD_MISSING_MESSAGE.replace("method='pld'", "to_dp_event")) from exc
    g = getattr(guarantee, "privacy", guarantee)
    if not isinstance(g, PrivacyGuarantee):
        raise TypeError(f"guarantee: expected a PrivacyGuarantee, Release or mechanism, got "
                        f"{type(guarantee).__name__}")
    if g.refuted:
        return dp_accounting.UnsupportedDpEvent()
    if g.mu is not None:
        if g.mu == 0:
            return dp_accounting.NoOpDpEvent()
        return dp_accounting.GaussianDpEvent(noise_multiplier=1.0 / g.mu)
    if is_laplace_mechanism(g):
        return dp_accounting.LaplaceDpEvent(noise_multiplier=1.0 / g.epsilon)
    return dp_accounting.UnsupportedDpEvent()
