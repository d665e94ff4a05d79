"""DPTreeCopula's edge tables: joint tables from the noisy 2-way (and, with ``max_parents=2``,
3-way) counts of the tree's edges, fitted to the DP one-way marginals (post-processing).
Derivation: ``docs/tree_copula.md``.
"""

from __future__ import annotations

import math

import numpy as np

from .copula import simplex_projection

__all__ = ["coarsen", "fit_table", "fit_table3"]


def coarsen(p: np.ndarray, numeric: bool, ratio: int) -> np.ndarray:
    return p.reshape(-1, ratio).sum(axis=1) if numeric else p


def fit_table(raw, total, pa, pb, prior_mass, iterations: int = 30, per_row: bool = False) -> np.ndarray:
    """A joint table from a noisy count table: simplex projection, an independence prior of
    ``prior_mass`` pseudo-counts per cell, then iterative proportional fitting to the one-way
    probabilities ``pa``, ``pb`` (all post-processing of released statistics).

    ``per_row=False`` (``edge_prior="joint"``): the prior is ``prior_mass · cells · pa ⊗ pb``, so
    every parent row gets prior mass in proportion to its share and every row's conditional is
    pulled toward ``pb`` by the same fraction. ``per_row=True`` (``edge_prior="row"``): every
    parent row gets ``prior_mass`` per cell, ``prior_mass · kb · pb`` (a Dirichlet prior on each
    row's conditional): a row's noise does not depend on its mass, so rare rows are pulled toward
    ``pb`` and well-populated rows keep their own conditional (``docs/tree_copula.md``)."""
    shape = raw.shape
    T = simplex_projection(raw.reshape(1, -1), float(total))[0].reshape(shape)
    if per_row:
        pbn = pb / max(pb.sum(), 1e-300)
        T = T + prior_mass * shape[1] * np.broadcast_to(pbn[None, :], shape)
    else:
        T = T + prior_mass * shape[0] * shape[1] * np.outer(pa, pb)
    T = T / max(T.sum(), 1e-300)
    ra, rb = pa / max(pa.sum(), 1e-300), pb / max(pb.sum(), 1e-300)
    for _ in range(iterations):
        rs = T.sum(axis=1)
        T = T * np.where(rs > 0, ra / np.where(rs > 0, rs, 1.0), 0.0)[:, None]
        cs = T.sum(axis=0)
        T = T * np.where(cs > 0, rb / np.where(cs > 0, cs, 1.0), 0.0)[None, :]
    return T


def fit_table3(raw, total, pa, px, pb, prior_mass, iterations: int = 30, per_row: bool = True) -> np.ndarray:
    """``max_parents=2``: :func:`fit_table` for a noisy 3-way table (parent, second parent,
    child): simplex projection onto ``total``, the prior of ``edge_prior`` with each (parent,
    second parent) pair as a row (``per_row``: ``prior_mass`` pseudo-counts per cell shaped by
    the child's conditional on the first parent, from the table summed over the second parent --
    a back-off prior; else ``prior_mass · cells · pa ⊗ px ⊗ pb``), then iterative proportional
    fitting to the three DP one-way probabilities. Post-processing of released statistics."""
    shape = raw.shape
    T = simplex_projection(raw.reshape(1, -1), float(total))[0].reshape(shape)
    if per_row:
        # back-off prior: each (parent, second parent) row is shrunk toward the conditional of
        # the child on the first parent alone, P(b | a), from the table summed over x (its cells
        # carry noise σ·√e_x: fitted as an edge table with that prior), not toward the child's
        # margin -- so the shrinkage removes only the second parent's part, not a → b
        ab = fit_table(T.sum(axis=1), total, pa, pb, prior_mass * math.sqrt(shape[1]), per_row=True)
        rs = ab.sum(axis=1, keepdims=True)
        cond = np.where(rs > 0, ab / np.where(rs > 0, rs, 1.0), 1.0 / shape[2])
        T = T + prior_mass * shape[2] * np.broadcast_to(cond[:, None, :], shape)
    else:
        T = T + prior_mass * T.size * np.einsum("i,j,k->ijk", pa, px, pb)
    T = T / max(T.sum(), 1e-300)
    targets = [p / max(p.sum(), 1e-300) for p in (pa, px, pb)]
    for _ in range(iterations):
        for axis, r in enumerate(targets):
            other = tuple(i for i in range(3) if i != axis)
            s = T.sum(axis=other)
            f = np.where(s > 0, r / np.where(s > 0, s, 1.0), 0.0)
            T = T * np.expand_dims(f, other)
    return T
