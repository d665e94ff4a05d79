"""DPTreeCopula's sampling primitives: the one place sampling draws its randomness, inverse-CDF
draws from the released tables and the raking of a 3-way table to the drawn parents
(post-processing of the released model).
"""

from __future__ import annotations

import math

import numpy as np

from .tree_bins import geometric_value

__all__ = ["sampling_draws", "nonzero_bin", "inverse_cdf", "rake", "sample_codes", "decode_codes"]


def sampling_draws(gen, n: int, k: int, k_num: int) -> dict:
    """The one place sampling draws its randomness (post-processing of the released model):
    latent normals of the numeric block, uniforms for the tree, the output permutation."""
    return {"normal": gen.gaussian((n, k_num)), "uniform": gen.uniform_on((n, k)),
            "permutation": gen.shuffled_indices(n)}


def nonzero_bin(b: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """Move indices of zero-mass bins to the nearest bin with mass (vectorised)."""
    if np.all(mass[b] > 0):
        return b
    good = np.flatnonzero(mass > 0)
    pos = np.clip(np.searchsorted(good, b), 0, good.size - 1)
    left, right = good[np.clip(pos - 1, 0, good.size - 1)], good[pos]
    return np.where(np.abs(b - left) <= np.abs(right - b), left, right)


def inverse_cdf(P: np.ndarray, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Draw a column index from row ``rows[i]`` of the (unnormalised, non-negative) table P."""
    P = np.asarray(P, dtype=np.float64)
    tot = P.sum(axis=1, keepdims=True)
    Q = np.where(tot > 0, P / np.where(tot > 0, tot, 1.0), 1.0 / P.shape[1])
    cum = np.cumsum(Q, axis=1)
    cum[:, -1] = 1.0
    idx = np.minimum((cum[rows] <= u[:, None]).sum(axis=1), P.shape[1] - 1)
    zero = Q[rows, idx] <= 0  # never land on a zero-probability cell through rounding at a cut
    if zero.any():
        idx[zero] = np.argmax(Q[rows[zero]], axis=1)
    return idx


def rake(T, rows, iterations: int = 30) -> np.ndarray:
    """``max_parents=2``, sampling: the flattened 3-way table ``T`` ((parent, second parent) rows ×
    child) raked by iterative proportional fitting to the empirical distribution of the rows drawn
    so far (``rows``, the synthetic records' parent pairs) and to its own child margin (the DP
    one-way margin it was fitted to). Its conditionals then reproduce the child's DP margin on the
    synthetic parents, whose joint the model may draw differently from the table's own (parent,
    second parent) margin. Post-processing of the released model and public draws."""
    target = np.bincount(rows, minlength=T.shape[0]) / max(rows.size, 1)
    child = T.sum(axis=0)
    child = child / max(child.sum(), 1e-300)
    R = T.copy()
    for _ in range(iterations):
        rs = R.sum(axis=1)
        R = R * np.where(rs > 0, target / np.where(rs > 0, rs, 1.0), 0.0)[:, None]
        cs = R.sum(axis=0)
        R = R * np.where(cs > 0, child / np.where(cs > 0, cs, 1.0), 0.0)[None, :]
    # rows never drawn keep the table's conditional (they are not sampled from)
    return np.where(target[:, None] > 0, R, T)


def sample_codes(counts, draws, *, columns, numeric, latent, ratio, bins, correlation, marginals,
                 trees, edge_tables, second_parents, grids=None, within_bins="latent"):
    """Fine codes (n, k) and the position within the fine bin of every numeric value of the
    records of each class (``counts`` per class), from the released model's ``correlation``,
    ``marginals``, ``trees``, ``edge_tables`` and ``second_parents`` (None: none) and the
    public draws of :func:`sampling_draws`. ``numeric``: the numeric columns; ``latent``: the
    indices of the copula block; ``ratio``: fine bins per edge cell of each numeric column;
    ``bins``: the fine bins; ``grids`` (column -> :class:`~.tree_bins.AtomGrid`; the columns with
    public atoms): a fine cell's edge cell is its cell on the edge grid (an atom's: its own).
    ``within_bins``: a numeric value's position within its fine bin is the latent's conditional
    quantile there (``"latent"``) or the column's own public uniform draw, independent of the
    other columns (``"uniform"``). Post-processing of the released model."""
    from scipy.special import ndtr

    cols, k = columns, len(columns)
    grids = grids or {}

    def on_grid(c, codes, n_cells):  # fine codes -> the grid of n_cells cells of a numeric column
        if c in grids:
            return grids[c].coarse_codes(codes, n_cells - grids[c].n_atoms)
        return codes // (bins // n_cells)

    num_idx = latent
    n = int(np.sum(counts))
    fine = np.zeros((n, k), dtype=np.int64)
    within = np.full((n, k), 0.5)
    start = 0
    for j, m in enumerate(counts):
        m = int(m)
        if m == 0:
            continue
        sl = slice(start, start + m)
        coarse = np.zeros((m, k), dtype=np.int64)
        if num_idx:
            Z = draws["normal"][sl]
            if len(num_idx) > 1:
                vals, vecs = np.linalg.eigh(correlation[j])
                Z = Z @ (vecs * np.sqrt(np.clip(vals, 0.0, None))).T
            U = ndtr(Z)
            for t, i in enumerate(num_idx):
                cum = np.concatenate([[0.0], np.cumsum(marginals[cols[i]][j])])
                cum /= cum[-1]
                b = np.clip(np.searchsorted(cum, U[:, t], side="right") - 1, 0, cum.size - 2)
                b = nonzero_bin(b, np.diff(cum))
                mass = cum[b + 1] - cum[b]
                if within_bins == "uniform":  # a draw no other column shares (unused otherwise)
                    within[sl, i] = draws["uniform"][sl, i]
                else:
                    pos = (U[:, t] - cum[b]) / np.where(mass > 0, mass, 1.0)
                    within[sl, i] = np.clip(np.where(mass > 0, pos, 0.5), 0.0, 1.0)
                fine[sl, i] = b
                coarse[:, i] = (on_grid(cols[i], b, bins // ratio[cols[i]] + (
                    grids[cols[i]].n_atoms if cols[i] in grids else 0)) if cols[i] in numeric else b)
        else:  # no numeric column: the first categorical column is the root
            root = int(trees[j][0][0]) if trees[j] else 0
            coarse[:, root] = inverse_cdf(marginals[cols[root]][j][None, :],
                                           np.zeros(m, dtype=np.int64), draws["uniform"][sl, root])
            fine[sl, root] = coarse[:, root]
        for e, (a, b) in enumerate(trees[j]):
            x = None if second_parents is None else second_parents[j][e]
            T = edge_tables[j][e]
            if x is None:
                coarse[:, b] = inverse_cdf(T, coarse[:, a], draws["uniform"][sl, b])
            else:  # a 3-way table: the row is the pair (parent, second parent)
                cx = on_grid(cols[x], fine[sl, x], T.shape[1]) if cols[x] in numeric \
                    else fine[sl, x]
                rows = coarse[:, a] * T.shape[1] + cx
                coarse[:, b] = inverse_cdf(rake(T.reshape(-1, T.shape[2]), rows), rows,
                                            draws["uniform"][sl, b])
            fine[sl, b] = coarse[:, b]
        start += m
    return fine, within


def decode_codes(fine, within, *, columns, schema, bin_edges, geometric, bins, cells=None):
    """The synthetic frame from fine codes and positions within the bins: numeric values on the
    public ``bin_edges`` (uniform in the log position t on the ``geometric`` columns), the
    schema's integer columns rounded, categorical values from the public categories.
    ``cells`` (column -> :class:`~.schema.NumericCells`; the columns with public atoms): a fine
    code is a cell; a bin's cell decodes as its bin, an atom's cell to exactly the atom."""
    import pandas as pd

    out = {}
    for c_idx, c in enumerate(columns):
        if c in schema.bounds:
            lo, hi = schema.bounds[c]
            e = bin_edges[c]
            b = fine[:, c_idx]
            cell = None
            if cells and c in cells:
                cell, b = b, cells[c].cell_bin[b]
            if c in geometric:  # uniform in the log position t within the bin (public choice)
                values = geometric_value((b + within[:, c_idx]) / bins, (lo, hi))
            else:
                values = np.clip(e[b] + within[:, c_idx] * (e[b + 1] - e[b]), lo, hi)
            if cell is not None:  # an atom's cell has lo == hi == the atom: exactly the atom
                values = np.where(cells[c].is_atom()[cell], cells[c].lo[cell], values)
            if c in schema.integer:  # integer columns from the PUBLIC schema only
                out[c] = np.clip(np.round(values), math.ceil(lo), math.floor(hi)).astype(np.int64)
            else:
                out[c] = values
        else:
            out[c] = pd.Categorical.from_codes(fine[:, c_idx],
                                               categories=list(schema.categories[c]))
    return pd.DataFrame(out, columns=columns)
