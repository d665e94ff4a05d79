"""Exception and warning classes raised by matrixdp.

Every invalid argument raises a subclass of :class:`ValueError` whose message
names the argument and the allowed range, so callers can catch either the
specific class or plain ``ValueError``.
"""

from __future__ import annotations

__all__ = [
    "MatrixDPError",
    "NoExactProfileError",
    "InvalidParameterError",
    "InvalidPrivacyParameterError",
    "InvalidShapeError",
    "NonFiniteInputError",
    "OutOfBoundsError",
    "NotPositiveSemidefiniteError",
    "UnsafeMechanismError",
    "BudgetExceededError",
    "LedgerError",
    "DatasetError",
    "PrivacyLeakWarning",
    "RefutedGuaranteeWarning",
]


class MatrixDPError(Exception):
    """Base class of every matrixdp error."""


class InvalidParameterError(MatrixDPError, ValueError):
    """A parameter is outside its allowed range.

    Parameters
    ----------
    argument : str
        Name of the offending argument, as the caller spelled it.
    message : str
        What is wrong and what is allowed.
    """

    def __init__(self, argument: str, message: str):
        self.argument = argument
        super().__init__(f"{argument}: {message}")


class InvalidPrivacyParameterError(InvalidParameterError):
    """epsilon, delta or a sensitivity is invalid (e.g. epsilon <= 0, delta outside (0, 1))."""


class InvalidShapeError(InvalidParameterError):
    """An array has the wrong number of dimensions or the wrong shape."""


class NonFiniteInputError(InvalidParameterError):
    """An input contains NaN or infinity (never silently released)."""


class OutOfBoundsError(InvalidParameterError):
    """Data lies outside the public bounds declared for it."""


class NotPositiveSemidefiniteError(InvalidParameterError):
    """A matrix that must be a covariance is not symmetric positive (semi-)definite."""


class UnsafeMechanismError(MatrixDPError, RuntimeError):
    """A mechanism's published calibration does not give the claimed privacy.

    Raised when such a mechanism is constructed without an explicit
    ``allow_unsafe=True`` (or ``mode="paper"``) opt-in.
    """


class BudgetExceededError(MatrixDPError, RuntimeError):
    """A release would spend more privacy budget than is left."""


class NoExactProfileError(MatrixDPError, TypeError):
    """The mechanism has no known exact privacy profile (audit it black-box instead)."""


class LedgerError(MatrixDPError, OSError):
    """A privacy-budget ledger file is missing, corrupted or not a matrixdp ledger."""


class DatasetError(MatrixDPError, OSError):
    """A dataset file is missing or fails its checksum."""


class PrivacyLeakWarning(UserWarning):
    """The caller did something that may leak private information (e.g. data-derived bounds)."""


class RefutedGuaranteeWarning(UserWarning):
    """A release carries a guarantee that is known not to hold (an unsafe opt-in)."""
