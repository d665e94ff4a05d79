"""Public schema of a mixed table (bounds per numeric column, categories per categorical column).

The schema is a public input of the tabular generators: nothing in it may be computed from the
records. :class:`TableSchema` validates a pandas DataFrame against it, clips numeric columns into
their bounds and codes categorical columns as integers in the schema's category order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidParameterError, InvalidShapeError

__all__ = ["TableSchema"]


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
        in years). Public, like the rest of the schema: a numeric column not named here is
        continuous (float), whatever the dtype of the data (reading the dtype would let one
        record with a non-integer value change the output's column type).

    Notes
    -----
    A column named in both ``bounds`` and ``categories`` is an error; the columns of a
    frame passed to :meth:`encode` must be exactly the schema's columns.
    """

    bounds: dict = field(default_factory=dict)
    categories: dict = field(default_factory=dict)
    integer: tuple = ()

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
        object.__setattr__(self, "integer", tuple(self.integer))

    @property
    def columns(self) -> list:
        """Numeric columns first, then categorical (schema order)."""
        return list(self.bounds) + list(self.categories)

    def check_columns(self, frame, argument: str = "X") -> list:
        """The frame's column order, after checking it holds exactly the schema's columns."""
        if not (hasattr(frame, "columns") and hasattr(frame, "dtypes")):
            raise InvalidParameterError(argument, "must be a pandas DataFrame (the generator works on "
                                                  "named columns)")
        cols = list(frame.columns)
        missing = [c for c in self.columns if c not in cols]
        extra = [c for c in cols if c not in self.bounds and c not in self.categories]
        if missing or extra:
            raise InvalidShapeError(
                argument, f"columns must match the schema: missing {missing}, not in schema {extra}")
        if frame.shape[0] < 1:
            raise InvalidShapeError(argument, "has no rows")
        return cols

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
                              "list; add them to the schema's categories or map them first")
            codes[name] = code
        return numeric, codes
