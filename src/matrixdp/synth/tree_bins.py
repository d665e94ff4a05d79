"""DPTreeCopula's public grids: the bins per numeric column (``n_bins="auto"``/``"per-class"``),
the edge tables' cells of an integer column, the wide columns and their geometric bin edges, and
the cells of a column with public atoms on those grids (:class:`AtomGrid`).
Functions of the public schema, public constants and released counts only.
Derivation: ``docs/tree_copula.md``.
"""

from __future__ import annotations

import math

import numpy as np

from .schema import NumericCells

__all__ = [
    "AtomGrid",
    "AUTO_BINS", "AUTO_BINS_SHARE", "AUTO_BINS_RATIO", "CLASS_BINS_RATIO", "WIDE_RANGE",
    "GEOMETRIC_SPAN", "auto_bins", "class_bins", "integer_edge_bins", "wide_range_columns",
    "geometric_position", "geometric_value", "geometric_edges",
]


#: ``n_bins="auto"``: the candidate bin counts (largest first), the share of μ² spent on the DP
#: record count that chooses among them, and the required average records per bin and class in
#: units of the histograms' noise σ (public constants; the ratio was chosen on CTG and Lending
#: Club, ``docs/tree_copula.md``, "Low ε and small classes").
AUTO_BINS = (32, 16, 8)
AUTO_BINS_SHARE = 0.02
AUTO_BINS_RATIO = 2.0


#: ``n_bins="per-class"``: a class's numeric histograms get the largest of ``AUTO_BINS`` whose
#: expected records per bin, n̂_c / bins, reach ``CLASS_BINS_RATIO`` times the histograms' noise σ
#: (signal-to-noise at least 1 per bin; a public constant chosen on CTG only,
#: ``docs/tree_copula.md``, "Bins per class").
CLASS_BINS_RATIO = 1.0


def auto_bins(n_records: float, n_classes: int, sigma: float) -> int:
    """The bins per numeric column of ``n_bins="auto"``: the largest of ``AUTO_BINS`` whose
    average records per bin and class, ``n_records / (n_classes · bins)``, is at least
    ``AUTO_BINS_RATIO`` times the histograms' noise ``sigma`` (else the smallest). ``n_records``
    is the DP record count: post-processing of a release and of public values."""
    per_class = max(float(n_records), 0.0) / int(n_classes)
    for bins in AUTO_BINS:
        if per_class / bins >= AUTO_BINS_RATIO * float(sigma):
            return bins
    return AUTO_BINS[-1]


def class_bins(class_counts, sigma: float, ratio: float = None) -> np.ndarray:
    """The bins per numeric column of each class under ``n_bins="per-class"``: for class c the
    largest of ``AUTO_BINS`` with ``class_counts[c] / bins >= ratio * sigma`` (else the smallest),
    ``ratio`` defaulting to ``CLASS_BINS_RATIO``. ``class_counts`` are the DP class sizes released
    before the histograms and ``sigma`` the histograms' public noise scale: post-processing."""
    r = CLASS_BINS_RATIO if ratio is None else float(ratio)
    n = np.maximum(np.asarray(class_counts, dtype=np.float64), 0.0)
    out = np.full(n.shape, AUTO_BINS[-1], dtype=np.int64)
    for bins in AUTO_BINS[::-1]:  # smallest first: the largest that passes wins
        out = np.where(n / bins >= r * float(sigma), bins, out)
    return out


def integer_edge_bins(bounds, integer: bool, pair_bins: int, fine_bins: int) -> int:
    """Cells of a numeric column in the edge tables under ``edge_bins="integers"``, from the
    public schema only.

    ``2 · pair_bins`` for an integer column whose public range hi − lo is at least ``pair_bins``
    and below ``2 · pair_bins``: equal-width cells of width (hi − lo) / (2 · pair_bins) < 1 then
    hold at most one integer value each, where ``pair_bins`` cells put two neighbouring values in
    one cell (Adult's ``education-num``, 1–16, on 8 cells: two education levels per cell, so the
    edge to ``education`` cannot carry their one-to-one relation). Else ``pair_bins`` (a narrower
    integer range is resolved already, a wider one by neither). Only when ``2 · pair_bins`` divides
    the fine grid ``fine_bins``.
    """
    lo, hi = (float(v) for v in bounds)
    width, pb = hi - lo, int(pair_bins)
    if integer and pb <= width < 2 * pb and fine_bins % (2 * pb) == 0:
        return 2 * pb
    return pb


#: ``histogram_tree_columns="wide"``: a numeric column gets the tree when its public range is
#: non-negative and spans at least this many of its units (counts, money, sizes; a public rule
#: written before the check of task T, ``docs/tree_copula.md``, "Hierarchical one-way histograms").
WIDE_RANGE = 1000.0


def wide_range_columns(schema) -> list:
    """The numeric columns of ``schema`` whose public bounds satisfy lo >= 0 and
    hi - lo >= ``WIDE_RANGE`` (public schema only)."""
    return [c for c, (lo, hi) in schema.bounds.items()
            if float(lo) >= 0 and float(hi) - float(lo) >= WIDE_RANGE]


#: ``bin_edges="geometric-wide"``: a wide column (:func:`wide_range_columns`) is binned equal-width
#: on t(x) = log(1 + GEOMETRIC_SPAN (x - lo) / (hi - lo)) / log(1 + GEOMETRIC_SPAN), so its bins
#: grow geometrically (ratio (1 + GEOMETRIC_SPAN)^(1/bins)) above the public scale
#: (hi - lo) / GEOMETRIC_SPAN and are nearly equal below it (``docs/tree_copula.md``, "Geometric
#: bin edges"). A public constant, fixed before the check of task T2.
GEOMETRIC_SPAN = 100.0


def geometric_position(x, bounds) -> np.ndarray:
    """t(x) in [0, 1] of ``bin_edges="geometric-wide"``: log(1 + S (x - lo) / (hi - lo)) /
    log(1 + S), S = ``GEOMETRIC_SPAN``, for x clipped into the public ``bounds`` = (lo, hi).
    Increasing, t(lo) = 0, t(hi) = 1; a function of the public bounds only."""
    lo, hi = float(bounds[0]), float(bounds[1])
    z = (np.clip(np.asarray(x, dtype=np.float64), lo, hi) - lo) / (hi - lo)
    return np.log1p(GEOMETRIC_SPAN * z) / math.log1p(GEOMETRIC_SPAN)


def geometric_value(t, bounds) -> np.ndarray:
    """The inverse of :func:`geometric_position`: lo + (hi - lo) · expm1(t · log(1 + S)) / S."""
    lo, hi = float(bounds[0]), float(bounds[1])
    t = np.clip(np.asarray(t, dtype=np.float64), 0.0, 1.0)
    return np.clip(lo + (hi - lo) * np.expm1(t * math.log1p(GEOMETRIC_SPAN)) / GEOMETRIC_SPAN, lo, hi)


def geometric_edges(bounds, bins: int) -> np.ndarray:
    """The ``bins + 1`` public edges of ``bin_edges="geometric-wide"`` on ``bounds``:
    e_j = :func:`geometric_value` (j / bins), e_0 = lo, e_bins = hi (public values only).
    E.g. (0, 99999), 32 bins: 0, 155, 334, 541, ..., 74,692, 86,434, 99,999 (each bin about
    1.155 times as wide as the one before it above ~1,000; 8 bins: 0, 781, 2,170, 4,644, ...)."""
    e = geometric_value(np.arange(int(bins) + 1) / int(bins), bounds)
    e[0], e[-1] = float(bounds[0]), float(bounds[1])
    return e


class AtomGrid:
    """The cells of a numeric column with PUBLIC atoms on DPTreeCopula's grids.

    Every grid of the tree model is a number of equal groups of the fine bins (the fine bins
    themselves, a class's merged bins under ``n_bins="per-class"``, the coarse cells of the pair
    scores, the edge cells). On a column with atoms each such grid of ``bins`` bins has
    ``bins + m`` cells: the :class:`~.schema.NumericCells` of every ``B / bins``-th fine edge and
    the m atoms (the one definition DPCopula uses), so an atom keeps its own cell on every grid and
    a record equal to an atom is in the atom's cell of each. :meth:`lut` maps a fine cell to its
    cell on a coarser grid (a fine bin's cell to the bin holding it, an atom's cell to the same
    atom's cell). A function of the public edges and atoms only; ``docs/tree_copula.md``,
    "Public atoms".

    Parameters
    ----------
    edges : ndarray of shape (B + 1,)
        The public fine-bin edges.
    atoms : sequence of float
        The column's public atoms (inside the edges' range).
    """

    def __init__(self, edges, atoms):
        self.edges = np.asarray(edges, dtype=np.float64)
        self.cells = NumericCells(self.edges, atoms)
        self.n_bins = self.cells.n_bins
        self.n_atoms = int(self.cells.atoms.size)
        self.size = self.cells.size
        self.cell_bin = self.cells.cell_bin
        self._luts = {}

    def code(self, x, bins) -> np.ndarray:
        """Fine cells of the clipped values ``x`` whose fine bins are ``bins`` (vectorised)."""
        return self.cells.code(x, bins)

    def lut(self, bins: int) -> np.ndarray:
        """The cell of every fine cell on the grid of ``bins`` bins (+ the atoms), which must
        divide the fine bins; its cells are numbered 0 .. bins + m - 1 in value order."""
        bins = int(bins)
        if bins not in self._luts:
            width = self.n_bins // bins
            grid = NumericCells(self.edges[::width], self.cells.atoms)
            if grid.bin_cell is None:  # no atoms: the bins
                row = self.cell_bin // width
            else:
                row = np.empty(self.size, dtype=np.int64)
                is_atom = self.cells.is_atom()
                row[~is_atom] = grid.bin_cell[self.cell_bin[~is_atom] // width]
                row[self.cells.atom_cell] = grid.atom_cell
            self._luts[bins] = row
        return self._luts[bins]

    def coarse_codes(self, cells, bins: int) -> np.ndarray:
        """The cell on the grid of ``bins`` bins of every fine cell in ``cells``."""
        return self.lut(bins)[np.asarray(cells)]

    def coarsen(self, p, bins: int) -> np.ndarray:
        """Probabilities (or counts) over the fine cells summed onto the grid of ``bins`` bins
        (``bins + m`` cells; an atom's mass stays on the atom's cell)."""
        return np.bincount(self.lut(bins), weights=np.asarray(p, dtype=np.float64),
                           minlength=int(bins) + self.n_atoms)

    def class_lut(self, merge) -> tuple:
        """``n_bins="per-class"``: for classes released on ``B / merge[j]`` bins, the map
        (n_cls, size) from a fine cell to the class's cell (:meth:`lut`) and each class's number
        of cells, ``B / merge[j] + m``."""
        bins = self.n_bins // np.asarray(merge, dtype=np.int64)
        return np.stack([self.lut(int(b)) for b in bins]), bins + self.n_atoms

    def spread(self, p, lut_row) -> np.ndarray:
        """A class's probabilities over its own cells spread over the fine cells: a merged bin's
        mass evenly over its fine bins, an atom's mass on the atom's fine cell."""
        p = np.asarray(p, dtype=np.float64)
        width = np.bincount(lut_row, minlength=p.size)
        return p[lut_row] / width[lut_row]

    def pooled_within(self, P, class_counts, lut):
        """``merged_bins="pooled"`` on these cells: each class's mass in one of its cells spread
        over the fine cells it covers in proportion to the pooled profile Σ_i n̂_i P_i (evenly
        where the profile has none there); an atom's cell covers one fine cell, so it keeps its
        mass. Post-processing of release 1."""
        P = np.array(P, dtype=np.float64)
        profile = np.asarray(class_counts, dtype=np.float64) @ P
        for j in range(P.shape[0]):
            row = lut[j]
            width = np.bincount(row)
            if np.all(width <= 1):
                continue
            tot = np.bincount(row, weights=profile)[row]
            shape = np.where(tot > 0, profile / np.where(tot > 0, tot, 1.0), 1.0 / width[row])
            P[j] = np.bincount(row, weights=P[j])[row] * shape
        return P
