"""argparse value types whose errors are one line naming the option (via ``OneLineParser``)."""

from __future__ import annotations

import argparse
import contextlib
import math

__all__ = ["seed", "check_epsilon_option", "naming_input"]

#: The Python arguments through which a command hands the records of its input to the library.
DATA_ARGUMENTS = ("X", "y", "frame")


def seed(text: str) -> int:
    """A seed: an integer >= 0 (argparse reports ``argument --seed: ...`` on one line)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return value


def check_epsilon_option(value: float, option: str = "--epsilon") -> float:
    """A command's ``--epsilon`` after parsing: finite and > 0, else the one-line
    :class:`~matrixdp.errors.InvalidParameterError` naming the option."""
    from ..errors import InvalidParameterError

    if not (math.isfinite(value) and value > 0):
        raise InvalidParameterError(option, f"must be a finite number > 0, got {value:g}")
    return value


@contextlib.contextmanager
def naming_input(option: str):
    """Report a refused value of the input under the command's name for it (``INPUT``,
    ``--data``), not under the library's argument (``X``, ``y``, ``frame``), which the command
    line does not have. The message is otherwise the library's."""
    from ..errors import InvalidParameterError

    try:
        yield
    except InvalidParameterError as exc:
        if exc.argument not in DATA_ARGUMENTS:
            raise
        message = str(exc)[len(exc.argument) + 2:]
        try:
            renamed = type(exc)(option, message)
        except TypeError:  # pragma: no cover - a subclass with another signature
            renamed = InvalidParameterError(option, message)
        raise renamed from None
