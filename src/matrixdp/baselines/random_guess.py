"""Random-guess baselines (data-independent): the floor any private method should beat.

The MVG paper's "random guess" rows are unspecified; the spec (mvg.md §8.4) decides:
uniform predictions in the teacher range (regression), a uniformly random unit vector
(first principal component) and a Haar-random orthonormal basis (all components).

Derivation: ``docs/baselines.md``.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidParameterError
from ..mechanisms.draw import public_randomness
from ..rng import random_directions

__all__ = ["uniform_predictions", "random_unit_vector", "random_orthonormal_basis"]


def uniform_predictions(n: int, low: float, high: float, rng=None) -> np.ndarray:
    """``n`` predictions drawn uniformly from [low, high] (a public target range).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed makes the draws
    reproducible (replayable by anyone who knows it; these draws are data-independent guesses, so
    replaying them reveals no private value).
    """
    if int(n) != n or n < 1:
        raise InvalidParameterError("n", f"must be a positive integer, got {n!r}")
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise InvalidParameterError("high", f"need finite low < high, got [{low}, {high}]")
    return public_randomness(rng).uniform_on(int(n), low, high)


def random_unit_vector(d: int, rng=None) -> np.ndarray:
    """A unit vector uniform on the sphere S^{d−1}.

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed makes the draws
    reproducible (replayable by anyone who knows it; these draws are data-independent guesses, so
    replaying them reveals no private value).
    """
    if int(d) != d or d < 1:
        raise InvalidParameterError("d", f"must be a positive integer, got {d!r}")
    v = public_randomness(rng).gaussian(int(d))
    return v / np.linalg.norm(v)


def random_orthonormal_basis(d: int, rng=None) -> np.ndarray:
    """A Haar-distributed d x d orthogonal matrix (columns are the basis vectors).

    :func:`matrixdp.rng.random_directions` (Gaussian QR with the sign fix, Mezzadri 2007).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed makes the draws
    reproducible (replayable by anyone who knows it; these draws are data-independent guesses, so
    replaying them reveals no private value).
    """
    if int(d) != d or d < 1:
        raise InvalidParameterError("d", f"must be a positive integer, got {d!r}")
    return random_directions(int(d), rng=rng)
