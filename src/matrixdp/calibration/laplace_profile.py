r"""Exact privacy profile of a Laplace release whose neighbouring difference is a vector.

A release ``value + Lap(b)^k`` (i.i.d. coordinates) on neighbouring values that
differ by a vector d has a privacy loss that is a sum of independent per-coordinate
Laplace losses, coordinate i with sensitivity :math:`|d_i|`. Its hockey-stick
divergence δ(ε) is therefore the δ of the *composition* of k one-dimensional
Laplace mechanisms with sensitivities :math:`|d_i|` and scale b.

- When :math:`\|d\|_1/b \le \varepsilon` the loss never exceeds ε and δ(ε) = 0
  exactly (pure ε-DP on this pair); no numerics are needed.
- Otherwise δ(ε) > 0, and we evaluate it with the privacy-loss distributions
  (PLD) of ``dp-accounting``: the *pessimistic* discretisation gives a certified
  upper bound, the *optimistic* one a certified lower bound, both converging to
  the exact value as the discretisation interval shrinks.

``dp-accounting`` is an optional dependency (extras ``test`` and
``accounting``); it is imported lazily, and without it only the exact-zero case
is available (otherwise :class:`~matrixdp.errors.NoExactProfileError`).

The derivation is in ``docs/audit.md`` ("Laplace releases of vectors").
"""

from __future__ import annotations

import numpy as np

from .._validation import check_nonnegative_epsilon, check_positive
from ..errors import InvalidParameterError, NoExactProfileError

__all__ = ["laplace_vector_delta", "laplace_vector_delta_bounds", "DEFAULT_DISCRETIZATION"]

#: Discretisation interval of the privacy loss (in nats) used by the PLD.
DEFAULT_DISCRETIZATION = 1e-4


def _magnitudes(difference, scale) -> tuple[np.ndarray, np.ndarray]:
    """Distinct nonzero |d_i|/b_i and how often each occurs (composition groups, unit scale)."""
    d = np.abs(np.asarray(difference, dtype=float)).ravel()
    if d.size == 0 or not np.all(np.isfinite(d)):
        raise InvalidParameterError("difference", "must be a non-empty finite array")
    b = np.asarray(scale, dtype=float)
    if not (np.all(np.isfinite(b)) and np.all(b > 0)):
        raise InvalidParameterError("scale", "must be positive and finite")
    try:
        b = np.broadcast_to(b, np.shape(difference)).ravel()
    except ValueError:
        raise InvalidParameterError(
            "scale", f"must be a number or broadcast to the difference's shape "
                     f"{np.shape(difference)}, got shape {b.shape}") from None
    ratio = d / b
    ratio = ratio[ratio > 0]
    if ratio.size == 0:
        raise InvalidParameterError("difference", "must not be all zero")
    # Coordinates equal up to rounding (e.g. ±√2/p written by different formulas) form one group.
    rounded = np.round(ratio, 12 - int(np.floor(np.log10(ratio.max()))))
    values, counts = np.unique(rounded, return_counts=True)
    return values, counts


def _pld_delta(epsilon: float, values, counts, discretization: float, pessimistic: bool) -> float:
    try:
        from dp_accounting.pld import privacy_loss_distribution as pld
    except ImportError as exc:  # optional dependency
        raise NoExactProfileError(
            "the exact delta of a multi-coordinate Laplace release needs dp-accounting "
            "(pip install 'matrixdp[accounting]')") from exc
    total = None
    for sens, count in zip(values, counts):
        one = pld.from_laplace_mechanism(
            parameter=1.0, sensitivity=float(sens),
            value_discretization_interval=float(discretization),
            pessimistic_estimate=pessimistic, use_connect_dots=pessimistic)
        part = one.self_compose(int(count)) if count > 1 else one
        total = part if total is None else total.compose(part)
    return float(min(1.0, max(0.0, total.get_delta_for_epsilon(float(epsilon)))))


def laplace_vector_delta_bounds(epsilon, scale, difference, *,
                                discretization: float = DEFAULT_DISCRETIZATION) -> tuple[float, float]:
    r"""Certified (lower, upper) bounds on δ(ε) of ``value + Lap(scale)^k`` on a pair at ``difference``.

    Parameters
    ----------
    epsilon : float
        ε ≥ 0 at which to evaluate.
    scale : float or array_like
        The Laplace scale b (one for all coordinates, or b_i per coordinate,
        broadcast to ``difference``'s shape). Coordinate i contributes a Laplace
        loss with sensitivity |d_i|/b_i at unit scale.
    difference : array_like
        value_prime − value (any shape; flattened).
    discretization : float
        PLD discretisation interval (smaller: tighter, slower).

    Returns
    -------
    (lower, upper) : tuple of float
        Both 0.0 when :math:`\|d\|_1/b \le \varepsilon` (exact). Otherwise the
        optimistic and pessimistic PLD values; the true δ(ε) lies between them.

    Raises
    ------
    NoExactProfileError
        When numerics are needed and ``dp-accounting`` is not installed.

    References
    ----------
    .. [1] S. Meiser and E. Mohammadi, "Tight on Budget? Tight Bounds for r-Fold
       Approximate Differential Privacy", CCS 2018 (privacy buckets).
    .. [2] V. Doroshenko, B. Ghazi, P. Kamath, R. Kumar and P. Manurangsi,
       "Connect the Dots: Tighter Discrete Approximations of Privacy Loss
       Distributions", PoPETs 2022.
    """
    e = check_nonnegative_epsilon(epsilon)
    h = check_positive(discretization, "discretization")
    values, counts = _magnitudes(difference, scale)
    if float(np.sum(values * counts)) <= e * (1.0 + 1e-12):
        return 0.0, 0.0
    lower = _pld_delta(e, values, counts, h, pessimistic=False)
    upper = _pld_delta(e, values, counts, h, pessimistic=True)
    return lower, max(lower, upper)


def laplace_vector_delta(epsilon, scale, difference, *,
                         discretization: float = DEFAULT_DISCRETIZATION) -> float:
    """δ(ε) of ``value + Lap(scale)`` (independent coordinates) at ``difference``: a certified upper bound.

    Exact (0.0) in the pure-DP case; otherwise the pessimistic PLD value (see
    :func:`laplace_vector_delta_bounds`, whose lower bound certifies a refutation).
    """
    e = check_nonnegative_epsilon(epsilon)
    h = check_positive(discretization, "discretization")
    values, counts = _magnitudes(difference, scale)
    if float(np.sum(values * counts)) <= e * (1.0 + 1e-12):
        return 0.0
    return _pld_delta(e, values, counts, h, pessimistic=True)
