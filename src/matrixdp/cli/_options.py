"""argparse value types whose errors are one line naming the option (via ``OneLineParser``)."""

from __future__ import annotations

import argparse
import math

__all__ = ["seed", "check_epsilon_option"]


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
