"""Seeded fits shared by the dominating-triangle tests (tasks CV, TP, TC, session 24): three small
public tables (uniform, clipped Gaussian, widely scaled), each fitted at ε ∈ (0.5, 5) and
random_state ∈ (0, 1), and a short digest of the released arrays, so that each option's "off is
the release before, byte for byte" test compares against hashes taken before the option existed."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np


def triangle_tables(correlated: bool = False):
    """The three tables with their public bounds; ``correlated``: the first table's second column
    made 0.8 × its first plus 0.2 × itself (no extra draw: the other tables are unchanged)."""
    rng = np.random.default_rng(7)
    X1 = rng.uniform(-1, 1, (3000, 4))
    if correlated:
        X1[:, 1] = 0.8 * X1[:, 0] + 0.2 * X1[:, 1]
    b1 = (-np.ones(4), np.ones(4))
    X2 = np.clip(rng.standard_normal((3000, 3)) * [1, 2, 0.5], -50, 50)
    b2 = (np.full(3, -50.0), np.full(3, 50.0))
    X3 = rng.uniform(0, 1, (3000, 3)) * [1, 10, 100]
    b3 = (np.zeros(3), np.array([1.0, 10.0, 100.0]))
    return [(X1, b1), (X2, b2), (X3, b3)]


def seeded_fits(make, correlated: bool = False) -> list:
    """``make(X, bounds, epsilon, seed).fit(X)`` over the tables × ε ∈ (0.5, 5) × seed ∈ (0, 1),
    in that order (the order of the committed hashes), with RuntimeWarnings silenced."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for X, b in triangle_tables(correlated):
            for eps in (0.5, 5.0):
                for s in (0, 1):
                    out.append(make(X, b, eps, s).fit(X))
    return out


def digest(*arrays) -> str:
    """The first 16 hex digits of the sha256 of the arrays' bytes, concatenated."""
    return hashlib.sha256(b"".join(np.asarray(a).tobytes() for a in arrays)).hexdigest()[:16]
