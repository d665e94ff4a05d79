"""argparse value types whose errors are one line naming the option (via ``OneLineParser``)."""

from __future__ import annotations

import argparse

__all__ = ["seed"]


def seed(text: str) -> int:
    """A seed: an integer >= 0 (argparse reports ``argument --seed: ...`` on one line)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return value
