"""DPTreeCopula's one-way marginals from its noisy histograms (post-processing of release 1):
the hierarchical histogram (``histogram_tree``), the sparse cut (``sparse``), shrunk and
smoothed counts (``marginals``) and pooled merged bins (``merged_bins``).
Derivation: ``docs/tree_copula.md``.
"""

from __future__ import annotations

import math

import numpy as np

from .copula import simplex_projection

__all__ = [
    "tree_levels", "tree_inference_matrix", "tree_estimate", "tree_probs", "span_above",
    "thresholded_probs", "pooled_within_bins", "shrunk_counts", "smoothed_counts",
]


def tree_levels(cells: int, branching: int) -> list:
    """Widths (in released cells) of the coarse levels of a ``branching``-ary tree over ``cells``
    equal-width cells, finest first: b, b², ... while the width is below ``cells`` and divides it
    (the root, all cells, is not a level). Public: depends on the grid and ``branching`` only.
    E.g. 32 cells, b = 4: [4, 16] (8 nodes, then 2); b = 8: [8] (4 nodes); b = 2: [2, 4, 8, 16]."""
    out, w = [], int(branching)
    while w < int(cells) and int(cells) % w == 0:
        out.append(w)
        w *= int(branching)
    return out


def tree_inference_matrix(cells: int, widths) -> np.ndarray:
    r"""The (cells × cells) matrix :math:`(\sum_\ell A_\ell^\top A_\ell)^{-1}` of the least-squares
    (constrained) inference of Hay et al. (2010) for a tree whose levels are the leaves (A_0 = I)
    and the coarse levels of ``widths`` (A_ℓ sums each block of w_ℓ neighbouring leaves), all
    observed with the same noise variance: the consistent leaf estimate is
    :math:`\hat x = M^{-1}(y_0 + \sum_\ell A_\ell^\top y_\ell)`, with covariance σ² M⁻¹. Public."""
    M = np.eye(int(cells))
    for w in widths:
        M += np.kron(np.eye(int(cells) // int(w)), np.ones((int(w), int(w))))
    return np.linalg.inv(M)


def tree_estimate(leaves, nodes, widths):
    """``histogram_tree``: the rows of noisy ``leaves`` (rows, m) made consistent with their noisy
    coarse ``nodes`` (one (rows, m / w) array per width of ``widths``) by least squares (Hay et
    al. 2010): returns the consistent leaves and the public matrix M⁻¹ (their covariance / σ²).
    Post-processing."""
    leaves = np.atleast_2d(np.asarray(leaves, dtype=np.float64))
    rows, m = leaves.shape
    Minv = tree_inference_matrix(m, widths)
    rhs = leaves + sum(np.repeat(np.atleast_2d(y), w, axis=1) for y, w in zip(nodes, widths))
    x = rhs @ Minv  # Minv is symmetric
    return x, Minv


def tree_probs(leaves, nodes, widths, sigma, threshold, n_hat, projection="global", max_drop=None):
    """Probabilities (rows, m) from the tree release of ``tree_estimate``; each row's total is
    ``n_hat`` (the DP class size; a scalar or one per row).

    ``projection="global"``: the subtrees whose consistent estimate is below ``threshold`` times
    its public noise sd are found top down (a subtree inside a dropped one is dropped; a parent
    whose children are all below keeps them all), and the consistent leaf estimates outside them
    are simplex-projected onto the class size in ONE projection, as the flat histogram is.
    ``"nested"``: every parent's mass is split among its children by a simplex projection of
    their estimates onto it, level by level (the first version screened).

    ``max_drop`` (a share, or None): a level's subtrees are dropped only in the rows (classes)
    where ``threshold`` × the node sd is at most ``max_drop`` × ``n_hat``, so that the real
    mass a dropped subtree can hold (below the cut) is a small share of the class."""
    x, Minv = tree_estimate(leaves, nodes, widths)
    rows, m = x.shape
    total = np.broadcast_to(np.asarray(n_hat, dtype=np.float64), (rows,)).astype(np.float64)
    if projection == "global":
        keep = np.ones((rows, m), dtype=bool)
        parent_w = m
        for w in list(widths)[::-1]:
            if threshold <= 0:
                break
            est = x.reshape(rows, m // w, w).sum(axis=2)
            block = np.zeros(m)
            block[:w] = 1.0
            sd = float(sigma) * math.sqrt(float(block @ Minv @ block))  # public: sd of a node
            grp = est.reshape(rows, m // parent_w, parent_w // w)
            low = grp < float(threshold) * sd
            low &= ~low.all(axis=2, keepdims=True)  # keep a parent's children if all are low
            if max_drop is not None:  # only where the cut is a small share of the class
                low &= (float(threshold) * sd <= float(max_drop) * total)[:, None, None]
            keep &= ~np.repeat(low.reshape(rows, m // w), w, axis=1)
            parent_w = w
        return simplex_projection(np.where(keep, x / np.maximum(total, 1e-300)[:, None], -1e6), 1.0)
    mass = total[:, None]  # (rows, 1): the root
    parent_w = m
    for w in list(widths)[::-1] + [1]:
        est = x.reshape(rows, m // w, w).sum(axis=2)  # children of width w
        k = parent_w // w  # children per parent
        grp = est.reshape(rows, m // parent_w, k)
        low = np.zeros(grp.shape, dtype=bool)
        if w > 1 and threshold > 0:
            block = np.zeros(m)
            block[:w] = 1.0
            sd = float(sigma) * math.sqrt(float(block @ Minv @ block))  # public: sd of a node
            low = grp < float(threshold) * sd
            low &= ~low.all(axis=2, keepdims=True)  # keep a parent's children if all are low
        par = np.maximum(mass.reshape(-1), 0.0)
        flat = grp.reshape(-1, k) / np.where(par > 0, par, 1.0)[:, None]
        flat = np.where(low.reshape(-1, k), -1e6, flat)  # a zeroed subtree: exactly 0 after projection
        share = simplex_projection(flat, 1.0)
        mass = (share * par[:, None]).reshape(rows, m // w)  # a parent without mass: 0
        parent_w = w
    return mass / np.maximum(total, 1e-300)[:, None]


def span_above(counts, cut):
    """Per row: True from the first to the last cell whose count reaches ``cut`` (all False
    when none does)."""
    strong = np.atleast_2d(counts) >= cut
    idx = np.arange(strong.shape[1])[None, :]
    first = np.argmax(strong, axis=1)[:, None]
    last = strong.shape[1] - 1 - np.argmax(strong[:, ::-1], axis=1)[:, None]
    return (idx >= first) & (idx <= last) & strong.any(axis=1, keepdims=True)


def thresholded_probs(counts, n_hat, cut, tails=True):
    """``sparse``: probabilities from rows of noisy counts that ignore pure-noise cells.

    ``tails=False`` (``sparse="cells"``): the cells below ``cut`` (= ``sparse_threshold`` × the
    histograms' σ) are set to 0 and the kept cells normalised. ``tails=True``
    (``sparse="tails"``): only the cells outside the span from the first to the last cell at or
    above ``cut`` are set to 0; the span is simplex-projected as a whole (as without ``sparse``).
    A row with no cell at or above ``cut`` falls back to the simplex projection of all cells.
    Post-processing of release 1 (``cut`` is public: a multiple of the public σ)."""
    counts = np.atleast_2d(np.asarray(counts, dtype=np.float64))
    fallback = simplex_projection(counts / n_hat, 1.0)  # n_hat: a scalar or one per row
    strong = counts >= cut
    any_ = strong.any(axis=1, keepdims=True)
    if tails:
        idx = np.arange(counts.shape[1])[None, :]
        first = np.argmax(strong, axis=1)[:, None]
        last = counts.shape[1] - 1 - np.argmax(strong[:, ::-1], axis=1)[:, None]
        span = (idx >= first) & (idx <= last)
        # outside the span a value far below any count: the projection sets it to exactly 0
        kept = simplex_projection(np.where(span, counts / n_hat, -1e6), 1.0)
    else:
        kept = np.where(strong, counts, 0.0)
        kept = kept / np.maximum(kept.sum(axis=1, keepdims=True), 1e-300)
    return np.where(any_, kept, fallback)


def pooled_within_bins(P, class_counts, merge):
    """``merged_bins="pooled"``: each class's mass in one of its merged cells (``merge[j]`` fine
    bins wide) spread over those fine bins in proportion to the pooled profile
    ``Σ_i n̂_i P_i`` of all classes, not evenly; evenly where the profile has no mass there.
    Each merged cell keeps its mass, so the released (coarse) cells are unchanged; the finer
    shape comes from the classes released on finer bins. Post-processing of release 1."""
    P = np.array(P, dtype=np.float64)
    profile = np.asarray(class_counts, dtype=np.float64) @ P
    for j, m in enumerate(np.asarray(merge, dtype=np.int64)):
        if m <= 1:
            continue
        prof = profile.reshape(-1, m)
        tot = prof.sum(axis=1, keepdims=True)
        shape = np.where(tot > 0, prof / np.where(tot > 0, tot, 1.0), 1.0 / m)
        P[j] = (P[j].reshape(-1, m).sum(axis=1, keepdims=True) * shape).ravel()
    return P


def shrunk_counts(raw, class_counts, sigma):
    """Each class's noisy counts (rows of ``raw``) shrunk toward the pooled counts scaled to the
    class's size, by the positive-part James–Stein factor from the noise variance of the
    difference (post-processing of released values only)."""
    share = class_counts / class_counts.sum()
    expected = share[:, None] * raw.sum(axis=0)[None, :]
    diff = raw - expected
    n_cls = raw.shape[0]
    # noise of diff_j per bin: e_j - share_j * sum_i e_i, variance sigma^2 ((1-s_j)^2 + s_j^2 (k-1))
    var = sigma ** 2 * ((1.0 - share) ** 2 + share ** 2 * (n_cls - 1))
    w = np.clip(1.0 - raw.shape[1] * var / np.maximum((diff ** 2).sum(axis=1), 1e-300), 0.0, 1.0)
    return expected + w[:, None] * diff


def smoothed_counts(raw, sigma):
    """Each row of the noisy counts ``raw`` (n_rows, d) replaced by its means over groups of L
    neighbouring bins, L in 1, 2, 4, ... (d / L >= 4 groups), L chosen per row by Stein's
    unbiased risk estimate of the squared error, ``||r - P_L r||² + σ² (2 d / L - d)``
    (``P_L`` the group-mean projection, trace d / L). Group sums are kept. Post-processing."""
    n, d = raw.shape
    best = raw.copy()
    risk = np.full(n, float(d) * sigma ** 2)  # L = 1: no smoothing, risk d σ²
    L = 2
    while d % L == 0 and d // L >= 4:
        means = np.repeat(raw.reshape(n, d // L, L).mean(axis=2), L, axis=1)
        sure = ((raw - means) ** 2).sum(axis=1) + sigma ** 2 * (2.0 * d / L - d)
        better = sure < risk
        best[better], risk[better] = means[better], sure[better]
        L *= 2
    return best
