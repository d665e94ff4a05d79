"""DPTreeCopula's releases: the passes over the records (in memory or Dask partitions) and the
Gaussian releases between them, each through its Mechanism, then their post-processing into
marginals, correlations, the tree and its edge counts. Derivation: ``docs/tree_copula.md``.
"""

from __future__ import annotations

import math

import numpy as np

from .copula import interval_score_moments, simplex_projection
from .edge_tables import coarsen
from .labels import generator_labels
from .tree_marginals import (
    pooled_within_bins,
    shrunk_counts,
    smoothed_counts,
    span_above,
    thresholded_probs,
    tree_levels,
    tree_probs,
)
from .tree_structure import choose_second_parents, spanning_tree

__all__ = [
    "SHRINK_SPREAD", "MIN_SCORE_VARIANCE", "class_pass", "hist_pass", "moment_pass",
    "edge_pass", "release_statistics", "dask_reducer", "dask_checked_class_counts",
]


#: Assumed spread (standard deviation) of a latent correlation between the classes, in the
#: partial pooling of ``correlation="shrunk"`` (a public constant, not fitted to data).
SHRINK_SPREAD = 0.1


#: Score variance below which a copula column counts as constant in a class (its DP marginal has
#: one bin): its correlations are set to 0 (post-processing; see ``release_statistics``).
MIN_SCORE_VARIANCE = 1e-8


def _repair_correlation(R: np.ndarray) -> np.ndarray:
    """Symmetric PSD matrix with unit diagonal near R: clip eigenvalues, rescale the diagonal."""
    R = (R + R.T) / 2.0
    vals, vecs = np.linalg.eigh(R)
    A = (vecs * np.clip(vals, 1e-6, None)) @ vecs.T
    d = np.sqrt(np.diag(A))
    A = A / d[:, None] / d[None, :]
    return (A + A.T) / 2.0


def class_pass(block, n_cls):
    """Per block: the record count of every class."""
    if block is None:
        return np.zeros(n_cls)
    return np.bincount(block[2], minlength=n_cls).astype(np.float64)


def hist_pass(block, cols, card, n_cls, merge=None, lut=None):
    """Per block: the one-way counts of every class and column, side by side. ``merge`` (column
    -> (n_cls,) ints, ``n_bins="per-class"``): class j's fine codes of that column are divided by
    ``merge[c][j]``, so its counts fill the first ``card[c] // merge[c][j]`` cells of its row.
    ``lut`` (column -> (n_cls, card) ints; a column with public atoms under ``"per-class"``):
    class j's cell of a fine cell is ``lut[c][j, cell]`` instead (:meth:`~.tree_bins.AtomGrid.class_lut`)."""
    if block is None:
        return np.zeros((n_cls, sum(card[c] for c in cols)))
    fine, _, label = block
    merge = merge or {}
    lut = lut or {}
    return np.concatenate([np.bincount(label * card[c] + (lut[c][label, fine[c]] if c in lut else
                                                          fine[c] // merge[c][label] if c in merge
                                                          else fine[c]),
                                       minlength=n_cls * card[c])
                           .reshape(n_cls, card[c]).astype(np.float64) for c in cols], axis=1)


def moment_pass(block, cols, num, n_cls, scores_per_class, clip, pairs, ccard, diagonal=False):
    """Per block: clipped score moments of the copula columns (off-diagonal, then the diagonal
    divided by √2 when ``diagonal``) and the coarse pair counts."""
    k_num = len(num)
    iu = np.triu_indices(k_num, 1)
    cells = sum(ccard[cols[a]] * ccard[cols[b]] for a, b in pairs)
    G = np.zeros((n_cls, iu[0].size + (k_num if diagonal else 0)))
    N = np.zeros((n_cls, cells))
    if block is None:
        return G, N
    fine, coarse, label = block
    if scores_per_class is not None:
        for j in range(n_cls):
            mask = label == j
            S = np.empty((int(mask.sum()), k_num))
            for t, i in enumerate(num):
                S[:, t] = scores_per_class[j][t][fine[cols[i]][mask]]
            norms = np.sqrt(np.einsum("ij,ij->i", S, S))
            S *= np.minimum(1.0, clip / np.maximum(norms, 1e-300))[:, None]
            M = S.T @ S
            G[j] = np.concatenate([M[iu], np.diag(M) / math.sqrt(2.0)]) if diagonal else M[iu]
    start = 0
    for a, b in pairs:
        ca, cb = cols[a], cols[b]
        size = ccard[ca] * ccard[cb]
        N[:, start:start + size] = np.bincount(
            (label * ccard[ca] + coarse[ca]) * ccard[cb] + coarse[cb],
            minlength=n_cls * size).reshape(n_cls, size)
        start += size
    return G, N


def edge_pass(block, cols, trees, card, ecard, n_cls, second=None, grids=None):
    """Per block: the counts of every class's tree edges on the edge cells ``ecard`` (a numeric
    column's fine code divided by ``card // ecard``; a categorical column's code), concatenated.
    ``second`` (``max_parents=2``; per class, per edge, (column index, its cells) or None): an
    edge with a second parent x counts the 3-way table (parent, x, child) instead, C-ordered.
    ``grids`` (column -> :class:`~.tree_bins.AtomGrid`; the columns with public atoms): a fine
    cell's edge cell is its cell on the grid of ``ecard`` cells (an atom keeps its own cell)."""
    def extra(j, e):
        return None if second is None else second[j][e]

    sizes = [ecard[cols[a]] * ecard[cols[b]] * (1 if extra(j, e) is None else extra(j, e)[1])
             for j in range(n_cls) for e, (a, b) in enumerate(trees[j])]
    if block is None:
        return np.zeros(sum(sizes))
    fine, _, label = block
    grids = grids or {}

    def on_grid(c, cells, rows=slice(None)):  # fine codes of column c on a grid of `cells` cells
        if c in grids:
            return grids[c].coarse_codes(fine[c][rows], cells - grids[c].n_atoms)
        return fine[c][rows] // (card[c] // cells)

    coarse = {c: on_grid(c, ecard[c]) for c in cols}
    out = []
    for j in range(n_cls):
        mask = label == j
        for e, (a, b) in enumerate(trees[j]):
            ca, cb, x = cols[a], cols[b], extra(j, e)
            if x is None:
                out.append(np.bincount(coarse[ca][mask] * ecard[cb] + coarse[cb][mask],
                                       minlength=ecard[ca] * ecard[cb]).astype(np.float64))
            else:  # x on its 3-way cells ex (a numeric x may be coarser than its edge cells)
                cx, ex = cols[x[0]], x[1]
                code = (coarse[ca][mask] * ex + on_grid(cx, ex, mask)) * ecard[cb] + coarse[cb][mask]
                out.append(np.bincount(code, minlength=ecard[ca] * ex * ecard[cb]).astype(np.float64))
    return np.concatenate(out) if out else np.zeros(0)


def release_statistics(schema, cols, card, ccard, ecard, reduce, n_cls, mechs, clip_scale, gen, num, pooled,
               trace, shrink=False, marginals="per-class", bins_per_class=None, prior_counts=None,
               pooled_within=False, sparse=(None, 3.0), tree=(None, 0.0, (), "global", None),
               max_parents=1, atoms=None):
    """Three passes over the records (``reduce`` sums a block function over the blocks) and the
    Gaussian releases between them, each through its Mechanism (so charged), on the driver.

    ``bins_per_class`` (``n_bins="per-class"``): the bins of each class's numeric histograms,
    chosen from ``prior_counts`` (the released class sizes); only those cells are released, and
    each class's probabilities are spread evenly over the common fine grid of ``card``.
    ``tree`` = (branching, threshold) (``histogram_tree``): each numeric column's released cells
    of each class also release the coarse levels of a tree (same mechanism, one release), and
    its probabilities come from :func:`~.tree_marginals.tree_probs`.
    ``atoms`` (column -> :class:`~.tree_bins.AtomGrid`; the numeric columns with public atoms):
    their ``card`` cells are the grid's cells; every grouping of fine bins (coarse cells, merged
    bins) goes through the grid (``docs/tree_copula.md``, "Public atoms")."""
    k = len(cols)
    atoms = atoms or {}
    bins = {c: atoms[c].n_bins if c in atoms else card[c] for c in cols}  # fine bins (or categories)
    ratio = {c: card[c] // ccard[c] for c in cols if c not in atoms}
    sigma_h = mechs["histograms"].sigma
    # pass 1 -> release 1: one-way histograms, all classes and columns in one release
    cells = {c: np.full(n_cls, card[c], dtype=np.int64) for c in cols}  # released cells per class
    merge, lut = None, {}
    if bins_per_class is not None:
        merge = {c: bins[c] // np.asarray(bins_per_class, dtype=np.int64) for c in cols
                 if c in schema.bounds}
        cells.update({c: card[c] // merge[c] for c in merge if c not in atoms})
        for c in atoms:  # a class's own cells: its merged bins and the atoms
            lut[c], cells[c] = atoms[c].class_lut(merge[c])
    counts = reduce(hist_pass, cols, card, n_cls, merge, *((lut,) if lut else ()))
    branching, tree_t, tree_cols, tree_projection, tree_max_drop = tree
    tnodes = {}
    if branching is None and merge is None:
        noisy = np.asarray(mechs["histograms"].release(counts, rng=gen).value)
    elif branching is None:  # only the cells each class uses are released (the others are not data)
        used = np.concatenate([np.arange(card[c])[None, :] < cells[c][:, None] for c in cols], axis=1)
        noisy = np.zeros_like(counts)
        noisy[used] = np.asarray(mechs["histograms"].release(counts[used], rng=gen).value)
    else:  # histogram_tree: the used cells, then every numeric column's coarse levels, one release
        used = np.concatenate([np.arange(card[c])[None, :] < cells[c][:, None] for c in cols], axis=1)
        offset = dict(zip(cols, np.concatenate([[0], np.cumsum([card[c] for c in cols])[:-1]])))
        layout, node_parts = [], []  # (column, class, width, nodes) in release order
        for c in cols:
            if c not in tree_cols:
                continue
            for j in range(n_cls):
                m = int(cells[c][j])
                leaf = counts[j, offset[c]:offset[c] + m]
                for w in tree_levels(m, branching):
                    node_parts.append(leaf.reshape(m // w, w).sum(axis=1))
                    layout.append((c, j, w, m // w))
        n_used = int(used.sum())
        vec = np.concatenate([counts[used]] + node_parts)
        released = np.asarray(mechs["histograms"].release(vec, rng=gen).value)
        noisy = np.zeros_like(counts)
        noisy[used] = released[:n_used]
        pos = n_used
        for c, j, w, size in layout:
            tnodes.setdefault(c, [[] for _ in range(n_cls)])[j].append(released[pos:pos + size])
            pos += size
    raw = dict(zip(cols, np.split(noisy, np.cumsum([card[c] for c in cols])[:-1], axis=1)))
    # class sizes: inverse-variance average of the histogram totals (variance cells · σ_h²) and,
    # with n_bins="per-class", the released class sizes (variance σ_count²)
    totals = np.stack([raw[c].sum(axis=1) for c in cols], axis=1)
    if prior_counts is None and merge is None:
        w = np.array([1.0 / card[c] for c in cols])
        class_counts = np.clip(totals @ w / w.sum(), 1.0, None)
    else:
        w = np.stack([1.0 / cells[c] for c in cols], axis=1)  # (n_cls, k), in units of 1 / σ_h²
        est, weight = (totals * w).sum(axis=1), w.sum(axis=1)
        if prior_counts is not None:
            w0 = (sigma_h / mechs["class_counts"].sigma) ** 2
            est, weight = est + w0 * np.asarray(prior_counts, dtype=np.float64), weight + w0
        class_counts = np.clip(est / weight, 1.0, None)
    if marginals == "shrunk" and n_cls > 1:  # post-processing of the released histograms
        raw = {c: shrunk_counts(raw[c], class_counts, sigma_h) for c in cols}
    elif marginals == "smoothed":  # numeric columns only: their bins are ordered
        raw = {c: smoothed_counts(raw[c], sigma_h) if c in schema.bounds else raw[c]
               for c in cols}
    spans = {}
    if sparse[0] in ("pooled", "resolved", "tested"):  # one span per column from the summed counts
        for c in cols:
            if c not in schema.bounds:
                continue
            m = merge[c] if merge is not None and c in merge else np.ones(n_cls, dtype=np.int64)
            fine_counts = sum(np.repeat(raw[c][j, :card[c] // m[j]] / m[j], m[j]) for j in range(n_cls))
            # a fine bin's noise: class j's cell noise σ spread over its m_j bins, summed
            noise = sigma_h * math.sqrt(float(np.sum(1.0 / np.asarray(m, dtype=np.float64) ** 2)))
            cut = sparse[1] * noise
            # only where the average fine bin is resolved above the cut (DP total, public σ):
            # otherwise the bulk itself may fall below the cut, and the column is left as is
            if float(class_counts.sum()) / card[c] >= cut:
                spans[c] = span_above(fine_counts[None, :], cut)[0]
                if sparse[0] == "tested" and spans[c].any():
                    # keep a side whose summed counts are not consistent with zero records: the
                    # sum over n bins has noise sd σ·√(n Σ_j 1/m_j); cut it only below t times that
                    inside = np.flatnonzero(spans[c])
                    var_per_bin = sigma_h ** 2 * float(np.sum(1.0 / np.asarray(m, dtype=np.float64)))
                    for side in (np.arange(0, inside[0]), np.arange(inside[-1] + 1, card[c])):
                        if side.size and fine_counts[side].sum() >= sparse[1] * math.sqrt(var_per_bin * side.size):
                            spans[c][side] = True

    def to_probs(counts, n_hat, c, j=None):  # noisy counts (rows) -> probabilities
        if branching is not None and c in tree_cols:  # histogram_tree: per class (row)
            n_hat = np.broadcast_to(np.asarray(n_hat, dtype=np.float64).ravel(), (counts.shape[0],))
            rows = range(counts.shape[0]) if j is None else [j]
            return np.vstack([tree_probs(counts[r:r + 1], tnodes.get(c, [[]] * n_cls)[cls],
                                          tree_levels(counts.shape[1], branching), sigma_h, tree_t,
                                          n_hat[r], tree_projection, tree_max_drop)
                              for r, cls in enumerate(rows)])
        if sparse[0] is None or c not in schema.bounds:
            return simplex_projection(counts / n_hat, 1.0)
        if sparse[0] == "resolved" and float(np.sum(n_hat)) / counts.shape[1] >= sparse[1] * sigma_h:
            # a class resolved above the cut (its DP size per released cell): its own span
            return thresholded_probs(counts, n_hat, sparse[1] * sigma_h, tails=True)
        if sparse[0] in ("pooled", "resolved", "tested") and c not in spans:
            return simplex_projection(counts / n_hat, 1.0)
        if sparse[0] in ("pooled", "resolved", "tested"):
            span = spans[c]
            if j is not None:  # a class on merged cells: a cell is in if any of its bins is
                width = card[c] // counts.shape[1]
                span = span.reshape(-1, width).any(axis=1)
            if not span.any():
                return simplex_projection(counts / n_hat, 1.0)
            return simplex_projection(np.where(span[None, :], counts / n_hat, -1e6), 1.0)
        return thresholded_probs(counts, n_hat, sparse[1] * sigma_h, tails=sparse[0] == "tails")

    probs = {c: (to_probs(raw[c], class_counts[:, None], c) if sparse[0] != "resolved" else
                 np.vstack([to_probs(raw[c][j:j + 1], class_counts[j], c, j) for j in range(n_cls)]))
             for c in cols if merge is None or c not in merge}
    for c in (merge or {}):  # each class projected on its own cells, spread over the fine grid
        if c in atoms:  # a merged bin evenly over its fine bins, an atom's cell onto itself
            probs[c] = np.stack([atoms[c].spread(to_probs(raw[c][j:j + 1, :cells[c][j]],
                                                          class_counts[j], c, j)[0], lut[c][j])
                                 for j in range(n_cls)])
            continue
        probs[c] = np.stack([np.repeat(to_probs(raw[c][j:j + 1, :cells[c][j]], class_counts[j],
                                                c, j)[0] / merge[c][j], merge[c][j])
                             for j in range(n_cls)])
    if pooled_within and merge is not None:  # merged_bins="pooled": post-processing
        probs.update({c: atoms[c].pooled_within(probs[c], class_counts, lut[c]) if c in atoms else
                      pooled_within_bins(probs[c], class_counts, merge[c]) for c in merge})
    probs = {c: probs[c] for c in cols}  # in column order
    for c in cols:
        empty = probs[c].sum(axis=1) <= 0
        probs[c][empty] = 1.0 / card[c]
    # pass 2: score moments of the numeric columns (scores from the released histograms) and the
    # coarse counts of every pair with a categorical column
    k_num = len(num)
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k) if not (a in num and b in num)] \
        if "edges" in mechs else []
    scores_per_class, sds = None, np.ones((n_cls, k_num))
    if "correlation" in mechs:
        scores_per_class = []
        for j in range(n_cls):
            per = []
            for t, i in enumerate(num):
                _, score, var = interval_score_moments(probs[cols[i]][j])
                per.append(score)
                sds[j, t] = math.sqrt(max(var, 1e-12))
            scores_per_class.append(per)
    G, N = reduce(moment_pass, cols, num, n_cls, scores_per_class,
                  clip_scale * math.sqrt(max(k_num, 1)), pairs, ccard, trace)
    # release 2: numeric score moments
    corr = np.tile(np.eye(k_num), (n_cls, 1, 1))
    corr_raw = np.zeros((n_cls, k_num * (k_num - 1) // 2))
    if "correlation" in mechs:
        iu = np.triu_indices(k_num, 1)
        n_off = iu[0].size
        corr_raw = np.asarray(mechs["correlation"].release(
            G.sum(axis=0, keepdims=True) if pooled else G, rng=gen).value)
        if trace:  # effective count after clipping: released trace / the scores' total variance
            tr = corr_raw[:, n_off:].sum(axis=1) * math.sqrt(2.0)
            var = sds ** 2
            if pooled:  # one shrink factor for all classes: trace / (sum_j n_j * sum_t var_jt)
                ratio_ = tr[0] / max(float(class_counts @ var.sum(axis=1)), 1e-300)
                count = class_counts * min(max(ratio_, 1e-3), 1.0)
            else:
                ratio_ = tr / np.maximum(class_counts * var.sum(axis=1), 1e-300)
                count = class_counts * np.clip(ratio_, 1e-3, 1.0)
        else:
            count = class_counts
        scale = count[:, None] * sds[:, iu[0]] * sds[:, iu[1]]  # (n_cls, pairs)
        if pooled:  # one release of the within-class moments summed over the classes
            estimate = np.repeat(corr_raw[:, :n_off] / scale.sum(axis=0, keepdims=True), n_cls, axis=0)
        else:
            estimate = corr_raw[:, :n_off] / scale
            if shrink:  # partial pooling: each class's estimate shrunk toward the pooled one
                pooled_est = corr_raw[:, :n_off].sum(axis=0) / scale.sum(axis=0)
                tau2 = (mechs["correlation"].sigma / scale) ** 2  # noise variance of each entry
                w = SHRINK_SPREAD ** 2 / (SHRINK_SPREAD ** 2 + tau2)
                estimate = w * estimate + (1.0 - w) * pooled_est[None, :]
        # post-processing guards: a pair with a (near-)constant score in every class that enters
        # its estimate (a one-bin DP marginal) has a scale of ~0, so its estimate is the noise
        # divided by ~0, which the repair below spreads to every pair (a rank-one correlation);
        # such a pair carries no information: 0. Any estimate lies in [-1, 1].
        informative = sds ** 2 > MIN_SCORE_VARIANCE
        usable = informative[:, iu[0]] & informative[:, iu[1]]
        if pooled:
            usable = np.repeat(usable.any(axis=0, keepdims=True), n_cls, axis=0)
        estimate = np.clip(np.where(usable, estimate, 0.0), -1.0, 1.0)
        for j in range(n_cls):
            R = np.eye(k_num)
            R[iu] = estimate[j]
            R[(iu[1], iu[0])] = R[iu]
            corr[j] = _repair_correlation(R)
    trees = [[] for _ in range(n_cls)]
    raw_edges = [[] for _ in range(n_cls)]
    scores_raw = np.zeros((n_cls, 0))
    if "edges" not in mechs:
        return probs, class_counts, corr_raw, corr, scores_raw, trees, raw_edges, tnodes, None
    # release 3: pair scores against the released histograms (fixed before this release)
    pc = {c: np.stack([atoms[c].coarsen(probs[c][j], ccard[c] - atoms[c].n_atoms) if c in atoms else
                       coarsen(probs[c][j], ratio[c] > 1, ratio[c]) for j in range(n_cls)])
          for c in cols}
    scores = np.zeros((n_cls, len(pairs)))
    start = 0
    for p, (a, b) in enumerate(pairs):
        ca, cb = cols[a], cols[b]
        size = ccard[ca] * ccard[cb]
        E = class_counts[:, None, None] * pc[ca][:, :, None] * pc[cb][:, None, :]
        scores[:, p] = np.abs(N[:, start:start + size] - E.reshape(n_cls, size)).sum(axis=1)
        start += size
    if "scores" in mechs:
        scores_raw = np.asarray(mechs["scores"].release(scores, rng=gen).value)
    else:  # a single candidate pair: nothing to choose, nothing released
        scores_raw = np.zeros_like(scores)
    # normalise by the table's size so that wide tables do not win by their noise alone
    size = np.array([math.sqrt(ccard[cols[a]] * ccard[cols[b]]) for a, b in pairs])
    for j in range(n_cls):
        W = np.full((k, k), -np.inf)
        for (a, b), v in zip(pairs, scores_raw[j] / size):
            W[a, b] = W[b, a] = v
        trees[j] = spanning_tree(W, np.asarray(num, dtype=np.int64))
    # pass 3 -> release 4: the edge tables of every class's tree in one release (one record is in
    # one class and adds 1 to one cell of each of its class's edge tables)
    second = None
    if max_parents == 2:  # post-processing of releases 1 and 3 (public rule, before any edge noise)
        second = choose_second_parents(trees, pairs, scores_raw, cols, ccard, ecard, class_counts,
                                 mechs["edges"].sigma, num, set(schema.bounds),
                                 {c: g.n_atoms for c, g in atoms.items()})
    extra = (() if second is None and not atoms else
             (second,) + ((atoms,) if atoms else ()))
    noisy = np.asarray(mechs["edges"].release(reduce(edge_pass, cols, trees, card, ecard, n_cls,
                                                     *extra), rng=gen).value)
    shapes = [(ecard[cols[a]], ecard[cols[b]]) if second is None or second[j][e] is None else
              (ecard[cols[a]], second[j][e][1], ecard[cols[b]])
              for j in range(n_cls) for e, (a, b) in enumerate(trees[j])]
    parts = np.split(noisy, np.cumsum([int(np.prod(sh)) for sh in shapes])[:-1])
    n_e = len(trees[0])
    raw_edges = [[parts[j * n_e + e].reshape(shapes[j * n_e + e]) for e in range(n_e)]
                 for j in range(n_cls)]
    return probs, class_counts, corr_raw, corr, scores_raw, trees, raw_edges, tnodes, second


def _partition_label(model, xp, yp) -> np.ndarray:
    """The class codes of one partition's records (all 0 without labels), checked against the
    public class list (:func:`~.labels.generator_labels`)."""
    if yp is None:
        return np.zeros(xp.shape[0], dtype=np.int64)
    return generator_labels(model.classes, yp, xp.shape[0])[1]


def dask_checked_class_counts(model, X, y, cols, n_cls) -> np.ndarray:
    """The record count of every class of a Dask ``X``, after checking every partition's values,
    categories and labels against the public schema and class list: the checks of the in-memory
    fit (:meth:`~matrixdp.synth.TableSchema.encode`, :func:`~.labels.generator_labels`), which
    run before its charge. A Dask fit runs this pass before its charge too, so a refused table
    costs nothing (no code here depends on the fitted bins, which the charged counts choose).
    The counts are the exact class sizes :func:`class_pass` sums (the fit reuses them under
    ``n_bins="per-class"`` instead of reading the records again)."""
    import dask
    from dask import delayed

    from .._record_sums import tree_sum

    from ._dask import aligned_partitions

    xparts, yparts = aligned_partitions(X, y)

    def count(xp, yp):
        label = _partition_label(model, xp, yp)
        if xp.shape[0]:
            model.schema.encode(xp[cols])  # raises on a missing value or an undeclared category
        return np.bincount(label, minlength=n_cls).astype(np.float64)

    parts = [delayed(count, pure=True)(xp, yp) for xp, yp in zip(xparts, yparts)]
    return dask.compute(tree_sum(parts))[0]


def dask_reducer(model, X, y, cols, classes):
    """``reduce(fn, *args)``: ``fn`` on every partition's codes (lazily, never collecting the
    records), summed in a tree on the workers; only the sums reach the driver."""
    import dask
    from dask import delayed

    from .._record_sums import tree_sum

    from ._dask import aligned_partitions

    # labels paired row by row with their records (a label column of the same Parquet frame is
    # partitioned differently from the features when read on its own)
    xparts, yparts = aligned_partitions(X, y)

    def codes(xp, yp):
        return model._block_codes(xp[cols], _partition_label(model, xp, yp), cols)

    blocks = [delayed(codes, pure=True)(xp, yp) for xp, yp in zip(xparts, yparts)]

    def reduce(fn, *args):
        parts = [delayed(fn, pure=True)(b, *args) for b in blocks]
        if fn is moment_pass:  # returns (G, N): sum them as one flat vector
            parts = [delayed(lambda t: np.concatenate([t[0].ravel(), t[1].ravel()]))(q) for q in parts]
            first = fn(None, *args)
            flat = dask.compute(tree_sum(parts))[0]
            g = first[0].size
            return flat[:g].reshape(first[0].shape), flat[g:].reshape(first[1].shape)
        return dask.compute(tree_sum(parts))[0]

    return reduce
