"""Public schema of a mixed table (bounds per numeric column, categories per categorical column).

The schema is a public input of the tabular generators: nothing in it may be computed from the
records. :class:`TableSchema` validates a pandas DataFrame against it, clips numeric columns into
their bounds and codes categorical columns as integers in the schema's category order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import category_spelling_hint, check_atoms, check_n_records
from ..errors import InvalidParameterError, InvalidShapeError

__all__ = ["TableSchema", "NumericCells", "numeric_cells"]


@dataclass(frozen=True)
class TableSchema:
    """Public description of a table: numeric bounds and category lists.

    Parameters
    ----------
    bounds : dict of str -> (float, float)
        For each numeric column, its PUBLIC range ``(lo, hi)`` with ``lo < hi``
        (values outside are clipped into it). Never computed from the data.
    categories : dict of str -> sequence
        For each categorical column, its PUBLIC list of categories (no duplicates).
    integer : sequence of str, optional
        Numeric columns whose synthetic values are rounded to integers (e.g. an age
        in years); their bounds must contain an integer. Public, like the rest of the schema: a numeric column not named here is
        continuous (float), whatever the dtype of the data (reading the dtype would let one
        record with a non-integer value change the output's column type).
    atoms : dict of str -> sequence of float, optional
        For a numeric column, PUBLIC values it takes with positive probability ("point masses",
        e.g. ``{"earnings": [0.0]}`` for "earnings, 0 if unemployed"), declared from the
        documentation like the bounds, never read off the data. Each atom lies inside the
        column's bounds, no duplicates; on an ``integer`` column each atom is an integer
        (:func:`~matrixdp._validation.check_atoms`). The generators that support them
        (:class:`~matrixdp.synth.DPCopula`, :class:`~matrixdp.synth.DPTreeCopula`) give each
        atom its own histogram cell (:func:`numeric_cells`), so the synthetic column keeps the
        point mass; ``docs/copula.md``, "Public atoms" [1]_, ``docs/tree_copula.md``, "Public
        atoms" [2]_.

    References
    ----------
    .. [1] docs/copula.md, "Public atoms".
    .. [2] docs/tree_copula.md, "Public atoms".

    Notes
    -----
    A column named in both ``bounds`` and ``categories`` is an error; the columns of a
    frame passed to :meth:`encode` must be exactly the schema's columns.
    """

    bounds: dict = field(default_factory=dict)
    categories: dict = field(default_factory=dict)
    integer: tuple = ()
    atoms: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.bounds, dict) or not isinstance(self.categories, dict):
            raise InvalidParameterError("schema", "bounds and categories must be dicts keyed by column")
        both = set(self.bounds) & set(self.categories)
        if both:
            raise InvalidParameterError(
                "schema", f"column(s) {sorted(map(str, both))} are both numeric and categorical")
        if not self.bounds and not self.categories:
            raise InvalidParameterError("schema", "has no columns")
        clean = {}
        for name, pair in self.bounds.items():
            try:
                lo, hi = (float(v) for v in pair)
            except (TypeError, ValueError):
                raise InvalidParameterError(
                    "bounds", f"column {name!r}: expected a pair (lo, hi), got {pair!r}") from None
            if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
                raise InvalidParameterError("bounds", f"column {name!r}: need finite lo < hi, got {pair!r}")
            clean[name] = (lo, hi)
        object.__setattr__(self, "bounds", clean)
        cats = {}
        for name, values in self.categories.items():
            arr = np.asarray(list(values), dtype=object)
            if arr.ndim != 1 or arr.size < 1:
                raise InvalidParameterError("categories", f"column {name!r}: need a non-empty list")
            if len(set(arr.tolist())) != arr.size:
                raise InvalidParameterError("categories", f"column {name!r}: duplicate categories")
            cats[name] = arr
        object.__setattr__(self, "categories", cats)
        unknown = [c for c in self.integer if c not in self.bounds]
        if unknown:
            raise InvalidParameterError("integer", f"names non-numeric column(s) {unknown}")
        for name in self.integer:
            lo, hi = clean[name]
            if math.ceil(lo) > math.floor(hi):  # rounding would leave the public range
                raise InvalidParameterError(
                    "integer", f"column {name!r}: its bounds ({lo:g}, {hi:g}) contain no integer, "
                               "so its synthetic values could not be both integers and within "
                               "them; widen the bounds or drop the column from integer")
        object.__setattr__(self, "integer", tuple(self.integer))
        object.__setattr__(self, "atoms", self._checked_atoms())

    def _checked_atoms(self) -> dict:
        """The atoms as sorted float tuples per numeric column, after validation (public
        inputs only: every message names the column and the declared value): the column is
        numeric here, then :func:`~matrixdp._validation.check_atoms`, the one validation the
        bounds-file parser also calls."""
        if self.atoms is None:
            return {}
        if not isinstance(self.atoms, dict):
            raise InvalidParameterError("atoms", "must be a dict keyed by numeric column")
        clean = {}
        for name, values in self.atoms.items():
            if name in self.categories:
                raise InvalidParameterError(
                    "atoms", f"column {name!r} is categorical; atoms apply to numeric columns "
                             "(a category is its own cell already)")
            if name not in self.bounds:
                raise InvalidParameterError("atoms", f"column {name!r} is not a numeric column "
                                                     "of the schema")
            lo, hi = self.bounds[name]
            vals = check_atoms(values, lo, hi, integer=name in self.integer, column=name,
                               argument="atoms")
            if vals:
                clean[name] = vals
        return clean

    def atoms_of(self, name) -> tuple:
        """The declared atoms of numeric column ``name`` (sorted; empty if none; schemas
        pickled before atoms existed: none)."""
        return getattr(self, "atoms", {}).get(name, ())

    @property
    def columns(self) -> list:
        """Numeric columns first, then categorical (schema order)."""
        return list(self.bounds) + list(self.categories)

    def check_columns(self, frame, argument: str = "X", relation: str = "add-remove") -> list:
        """The frame's column order, after checking it holds exactly the schema's columns.

        An empty frame is accepted under ``relation="add-remove"`` (the generators' relation: 0
        and 1 row are neighbours, so the fit releases noise only; :func:`~matrixdp._validation.
        min_records`) and refused under replace-one."""
        if not (hasattr(frame, "columns") and hasattr(frame, "dtypes")):
            raise InvalidParameterError(argument, "must be a pandas DataFrame (the generator works on "
                                                  "named columns)")
        cols = list(frame.columns)
        missing = [c for c in self.columns if c not in cols]
        extra = [c for c in cols if c not in self.bounds and c not in self.categories]
        if missing or extra:
            raise InvalidShapeError(
                argument, f"columns must match the schema: missing {missing}, not in schema {extra}")
        self.check_numeric_dtypes(frame, argument)
        check_n_records(frame.shape[0], relation, argument, "has no rows")
        return cols

    def check_numeric_dtypes(self, frame, argument: str = "X") -> None:
        """Refuse a date or time column where the schema has numeric bounds (in memory or Dask:
        the dtypes only, nothing is computed). Cast to float they are nanoseconds, which the
        bounds would clip to a constant column released as if it were data (hunt DH2)."""
        dated = [name for name in self.bounds if name in frame.columns
                 and getattr(frame[name].dtype, "kind", "") in ("M", "m")]
        if dated:
            raise InvalidParameterError(
                argument, f"column(s) {dated} hold dates or times; convert them to numbers in the "
                          "units of their public bounds (for example days since a public date) "
                          "before the release")

    def encode(self, frame, argument: str = "X") -> tuple[dict, dict]:
        """Numeric columns clipped into their bounds and categorical columns as integer codes.

        Returns
        -------
        numeric : dict of str -> float ndarray
        codes : dict of str -> int ndarray (index into ``categories[name]``)

        Raises
        ------
        InvalidParameterError
            For a missing or non-finite numeric value, or a value outside a category list
            (the message gives counts only, never the values).
        """
        self.check_columns(frame, argument)
        numeric = {}
        for name, (lo, hi) in self.bounds.items():
            try:
                col = frame[name].to_numpy(dtype=np.float64)
            except (TypeError, ValueError):
                raise InvalidParameterError(argument, f"column {name!r} is not numeric") from None
            bad = ~np.isfinite(col)
            if bad.any():
                raise InvalidParameterError(
                    argument, f"column {name!r} has missing or non-finite values; impute or drop "
                              "them before the release")
            numeric[name] = np.clip(col, lo, hi)
        codes = {}
        for name, cats in self.categories.items():
            import pandas as pd

            # hash the column once (fast on arrow strings), then map its few distinct values
            values, uniques = pd.factorize(frame[name], use_na_sentinel=True)
            lookup = {c: i for i, c in enumerate(cats.tolist())}
            table = np.array([lookup.get(u, -1) for u in uniques.tolist()] + [-1], dtype=np.int64)
            code = table[values]  # NA (-1 from factorize) maps to the trailing -1
            if (values < 0).any():  # a missing cell is not an undeclared category: say which
                raise InvalidParameterError(
                    argument, f"column {name!r} has missing values; impute or drop them before "
                              "the release")
            if (code < 0).any():
                raise InvalidParameterError(
                    argument, f"column {name!r} has values that are not in the public category "
                              "list; add them to the schema's categories or map them first"
                              + category_spelling_hint(cats.tolist()))
            codes[name] = code
        return numeric, codes


class NumericCells:
    """The histogram cells of one numeric column: its public bins plus one cell per atom.

    The ONE definition of a numeric column's cells, shared by fitting (:meth:`code`) and
    sampling (:attr:`lo`, :attr:`hi`). Bins are the intervals of ``edges``; an atom a lies in
    bin b(a) and its cell is placed just before that bin when a is below the bin's midpoint,
    else just after it (value order; atoms in one bin keep their order). A value equal to an
    atom (after clipping) is coded to the atom's cell, any other value to its bin. Decoding
    draws uniformly on [lo, hi] of the cell: an atom cell has lo = hi = a, so it decodes to
    exactly a. Without atoms the cells are the bins, coded and decoded exactly as before.
    A function of public values only (edges from the bounds, declared atoms);
    ``docs/copula.md``, "Public atoms".

    Parameters
    ----------
    edges : ndarray of shape (n_bins + 1,)
        Increasing public bin edges.
    atoms : sequence of float
        Sorted public atoms inside ``[edges[0], edges[-1]]``.

    Attributes
    ----------
    size : int
        Number of cells, ``n_bins + len(atoms)``.
    lo, hi : ndarray of shape (size,)
        The interval of each cell in cell order (``lo == hi`` for an atom).
    cell_bin : ndarray of int, shape (size,)
        The bin each cell lies in (a bin's cell: that bin; an atom's cell: b(a)); non-decreasing
        in cell order. DPTreeCopula decodes a bin's cell through it and maps fine bins to its
        coarser grids (:class:`~matrixdp.synth.tree_bins.AtomGrid`, where every atom keeps a
        cell of its own).
    """

    def __init__(self, edges, atoms=()):
        e = np.asarray(edges, dtype=np.float64)
        self.edges = e
        self.n_bins = e.size - 1
        self.atoms = np.asarray(sorted(float(a) for a in atoms), dtype=np.float64)
        m = self.atoms.size
        if m == 0:
            self.size = self.n_bins
            self.lo, self.hi = e[:-1], e[1:]
            self.bin_cell = None
            self.atom_cell = None
            self.cell_bin = np.arange(self.n_bins)
            return
        b = self._bin(self.atoms)
        after = self.atoms >= 0.5 * (e[b] + e[b + 1])
        # sort keys: (bin, 0 | 1 | 2, value): an atom before its bin, the bin, an atom after it
        keys_bin = np.arange(self.n_bins) * 3 + 1
        keys_atom = b * 3 + np.where(after, 2, 0)
        keys = np.concatenate([keys_bin, keys_atom]).astype(np.float64)
        order = np.lexsort((np.concatenate([e[:-1], self.atoms]), keys))
        cell = np.empty(order.size, dtype=np.int64)
        cell[order] = np.arange(order.size)
        self.bin_cell = cell[:self.n_bins]
        self.atom_cell = cell[self.n_bins:]
        self.size = self.n_bins + m
        lo = np.empty(self.size)
        hi = np.empty(self.size)
        lo[self.bin_cell], hi[self.bin_cell] = e[:-1], e[1:]
        lo[self.atom_cell], hi[self.atom_cell] = self.atoms, self.atoms
        self.lo, self.hi = lo, hi
        self.cell_bin = np.empty(self.size, dtype=np.int64)
        self.cell_bin[self.bin_cell] = np.arange(self.n_bins)
        self.cell_bin[self.atom_cell] = b

    def _bin(self, x) -> np.ndarray:
        return np.clip(np.searchsorted(self.edges, x, side="right") - 1, 0, self.n_bins - 1)

    def code(self, x, bins=None) -> np.ndarray:
        """The cell of every value of ``x`` (already clipped into the bounds); vectorised.
        ``bins``: the bin of every value when the caller computes it its own way (a model's
        binning of the same public edges); default: from the edges."""
        b = self._bin(x) if bins is None else np.asarray(bins)
        if self.bin_cell is None:
            return b
        x = np.asarray(x, dtype=np.float64)
        pos = np.clip(np.searchsorted(self.atoms, x), 0, self.atoms.size - 1)
        hit = self.atoms[pos] == x
        return np.where(hit, self.atom_cell[pos], self.bin_cell[b])

    def is_atom(self) -> np.ndarray:
        """Boolean mask over the cells: True for an atom's cell."""
        mask = np.zeros(self.size, dtype=bool)
        if self.atom_cell is not None:
            mask[self.atom_cell] = True
        return mask


def numeric_cells(schema, name, edges) -> NumericCells:
    """The cells of numeric column ``name`` of ``schema`` on the public ``edges``: its bins and
    one cell per declared atom (:class:`NumericCells`)."""
    return NumericCells(edges, schema.atoms_of(name))
