"""DPTreeCopula's dependence tree: the maximum spanning tree over the released pair scores and,
with ``max_parents=2``, the public rule that gives a tree column a second parent.
Post-processing of released scores and class sizes. Derivation: ``docs/tree_copula.md``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "SECOND_PARENT_NOISE_SHARE", "spanning_tree", "second_parent_allowed", "second_parent_gain",
    "second_parent_cells", "choose_second_parents",
]


def spanning_tree(W: np.ndarray, start: np.ndarray) -> list:
    """Edges (parent, child) of a maximum spanning tree (Prim) grown from the node set ``start``
    (already connected), in the order added, so every parent is drawn before its child."""
    k = W.shape[0]
    in_tree = np.zeros(k, dtype=bool)
    in_tree[start] = True
    if not in_tree.any():
        in_tree[0] = True
    members = np.flatnonzero(in_tree)
    best = W[members].max(axis=0)
    parent = members[np.argmax(W[members], axis=0)]
    edges = []
    while not in_tree.all():
        v = int(np.argmax(np.where(in_tree, -np.inf, best)))
        edges.append((int(parent[v]), v))
        in_tree[v] = True
        better = (W[v] > best) & ~in_tree
        best = np.where(better, W[v], best)
        parent = np.where(better, v, parent)
    return edges


#: ``max_parents=2``: a 3-way table is estimable only if the expected L1 mass of its noise,
#: √(2/π)·cells·σ_edges, is at most this share of the class's DP size n̂_c (a public constant,
#: written before the development run, ``docs/tree_copula.md``, "A second parent").
SECOND_PARENT_NOISE_SHARE = 0.5


def second_parent_allowed(score: float, cells_parent: int, cells_second: int, cells_child: int,
                          sigma: float, n_hat: float) -> bool:
    r"""The public rule of ``max_parents=2``: may a tree column take a second parent?

    With first parent a (e_a cells), candidate second parent x (e_x cells), child b (e_b cells),
    the edge table grows from e_a·e_b to e_a·e_x·e_b cells, each with Gaussian noise of sd σ
    (``sigma``, the edge release's: its sensitivity does not depend on the cells). Both must hold:

    (A) estimable: :math:`\sqrt{2/\pi}\,e_a e_x e_b\,\sigma \le` ``SECOND_PARENT_NOISE_SHARE``
        · n̂_c (the expected L1 mass of the 3-way table's noise is small against the class);
    (B) worth it: the released pair score of (x, b), :math:`	ilde q_{xb}` (the L1 distance of their
        counts from independence), exceeds the L1 noise the extra cells add,
        :math:`\sqrt{2/\pi}\,\sigma\,e_a e_b (e_x - 1)`.

    Every input is public or released (``score`` from release 3, ``n_hat`` from release 1):
    post-processing. Derivation: ``docs/tree_copula.md``, "A second parent".
    """
    noise = math.sqrt(2.0 / math.pi) * float(sigma)
    cells = int(cells_parent) * int(cells_second) * int(cells_child)
    estimable = noise * cells <= SECOND_PARENT_NOISE_SHARE * float(n_hat)
    worth = float(score) > noise * int(cells_parent) * int(cells_child) * (int(cells_second) - 1)
    return bool(estimable and worth)


def second_parent_gain(score: float, cells_parent: int, cells_second: int, cells_child: int,
                       sigma: float) -> float:
    """The net gain of a second parent in L1 count units (``max_parents=2``): its released pair
    score minus the expected L1 noise its extra cells add, q̃_xb − √(2/π)·σ·e_a·e_b·(e_x − 1)
    (condition (B) of :func:`second_parent_allowed` is gain > 0)."""
    return float(score) - math.sqrt(2.0 / math.pi) * float(sigma) * int(cells_parent) * int(cells_child) * (
        int(cells_second) - 1)


def second_parent_cells(cells: int, numeric: bool) -> list:
    """The public cell grids a second parent may take in a 3-way table, finest first: a numeric
    column's edge cells, then halved while at least 2 and dividing (8: 8, 4, 2); a categorical
    column's categories only."""
    out, c = [int(cells)], int(cells)
    while numeric and c % 2 == 0 and c // 2 >= 2:
        c //= 2
        out.append(c)
    return out


def choose_second_parents(trees, pairs, scores, cols, ccard, ecard, class_counts, sigma, latent, numeric,
                          atoms=None):
    """``max_parents=2``: per class, per tree edge (parent a, child b), ``(x, cells of x)`` for
    the second parent x of b, or None. Candidates: the columns sampled before b (the copula
    block, the root, the earlier tree children), other than a, each on its grids
    (:func:`second_parent_cells`); among those :func:`second_parent_allowed` admits, the one with
    the largest :func:`second_parent_gain`. Post-processing of the released scores and class
    sizes; a loop over columns, not records. ``atoms`` (column -> number of public atoms): such a
    numeric column's grids are its halved bins plus one cell per atom."""
    atoms = atoms or {}
    index = {pair: p for p, pair in enumerate(pairs)}
    out = []
    for j, tree in enumerate(trees):
        before = list(latent) if len(latent) else ([tree[0][0]] if tree else [])
        chosen = []
        for a, b in tree:
            pick, best_gain = None, 0.0
            for x in before:
                if x == a:
                    continue
                q = scores[j, index[(min(x, b), max(x, b))]]
                m = atoms.get(cols[x], 0)
                for ex in (e + m for e in second_parent_cells(ecard[cols[x]] - m, cols[x] in numeric)):
                    if second_parent_allowed(q, ecard[cols[a]], ex, ecard[cols[b]], sigma, class_counts[j]):
                        gain = second_parent_gain(q, ecard[cols[a]], ex, ecard[cols[b]], sigma)
                        if gain > best_gain:
                            pick, best_gain = (x, ex), gain
            chosen.append(pick)
            before.append(b)
        out.append(chosen)
    return out
