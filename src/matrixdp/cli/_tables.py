"""Reading a curator's table (CSV or Parquet) and its public bounds schema.

The bounds schema is a small TOML file written by the curator from domain knowledge,
never from the data::

    # matrixdp bounds: PUBLIC ranges, from domain knowledge, never from the data
    target = "charges"            # the label column of --query linreg (optional)

    [columns]
    age = { lo = 18, hi = 90 }
    bmi = { lo = 15, hi = 45 }
    charges = { lo = 0, hi = 60000 }
    region = { categories = ["north", "south"] }   # one 0/1 column per category
    children = { lo = 0, hi = 10, integer = true } # synthetic values rounded to integers
    earnings = { lo = 0, hi = 1e5, atoms = [0] }   # a PUBLIC point mass ("0 if unemployed"),
                                                   # kept by matrixdp synth --model copula
    income = { dp = true, lo = 0, hi = 1e7 }       # no range known: a DP estimate inside
                                                   # this PUBLIC domain (docs/bounds.md)

Only the columns listed are read; the order of the file is the order of the release.
``matrixdp release --template DATA`` writes such a file with the column names only
(ranges set to ``nan``, which is refused until the curator fills them in).
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass, field
from numbers import Integral
from pathlib import Path

import numpy as np

from .._validation import category_spelling_hint, check_atoms
from ..errors import InvalidParameterError
from ._paths import check_input_file

__all__ = ["Column", "Schema", "read_table", "read_header", "read_schema", "parse_bound_options",
           "template_text", "design_matrix", "bounds_arrays", "check_sep", "delimiter_hint",
           "split_public_constants", "text_columns", "as_text"]

#: File suffixes read as Parquet (everything else is read as CSV).
PARQUET_SUFFIXES = (".parquet", ".pq")


def _is_parquet(path: Path) -> bool:
    return path.suffix.lower() in PARQUET_SUFFIXES


def _looks_numeric(name) -> bool:
    try:
        float(str(name))
    except ValueError:
        return False
    return True


def _check_header(columns, path, option: str) -> None:
    names = [str(c) for c in columns]
    if names and all(_looks_numeric(c) for c in names):
        raise InvalidParameterError(
            option, f"the first row of {path} looks like data, not a header (every column name "
                    "is a number); add a header row with the column names")
    unnamed = [c for c in names if c.startswith("Unnamed: ")]
    if unnamed:
        raise InvalidParameterError(
            option, f"{path} has {len(unnamed)} column(s) without a name in its header row")


def _pandas(option: str):
    try:
        import pandas
    except ImportError:  # pragma: no cover - pandas comes with the data/test extras
        raise InvalidParameterError(option, "reading a table needs pandas: "
                                            "pip install 'matrixdp[data]'") from None
    return pandas


#: Delimiters a one-column header is checked for (the hint names the likely one).
OTHER_DELIMITERS = {";": "';'", "\t": "'\\t' (tab)", "|": "'|'"}


def check_sep(sep, option: str = "--sep"):
    """The CSV delimiter of ``--sep`` (one character; ``\\t`` or ``tab`` for a tab), or None."""
    if sep is None:
        return None
    text = {"\\t": "\t", "tab": "\t", "TAB": "\t"}.get(str(sep), str(sep))
    if len(text) != 1 or text in ('"', "\n", "\r"):
        raise InvalidParameterError(option, "must be one character, e.g. --sep ';' or --sep tab "
                                            f"(got {sep!r})")
    return text


def delimiter_hint(names, path, sep) -> str | None:
    """A hint when a CSV read with ``sep`` has one column whose name holds another delimiter."""
    if len(names) != 1:
        return None
    name = str(names[0])
    for delim, shown in OTHER_DELIMITERS.items():
        if delim != (sep or ",") and delim in name:
            flag = "tab" if delim == "\t" else delim
            return (f"{path} was read as one column, but its header contains {shown}: it looks "
                    f"{shown}-separated; pass --sep '{flag}'")
    return None


def read_header(path, option: str = "DATA", sep=None) -> list[str]:
    """The column names of a CSV or Parquet file (reads no data rows).

    ``sep`` is the CSV delimiter (default ``,``). A CSV that comes out as one column whose name
    contains ``;``, a tab or ``|`` is refused with a one-line hint to pass ``--sep``.
    """
    pd = _pandas(option)

    file = check_input_file(path, option)
    try:
        if _is_parquet(file):
            import pyarrow.parquet as pq

            names = list(pq.read_schema(file).names)
        else:
            names = [str(c) for c in pd.read_csv(file, nrows=0, sep=sep or ",").columns]
    except UnicodeDecodeError:  # its message quotes a byte of the file: keep it out of logs
        raise InvalidParameterError(option, f"cannot read {path}: it is not valid UTF-8 text; "
                                            "re-encode it as UTF-8") from None
    except Exception as exc:  # pandas/pyarrow raise many types for unreadable files
        raise InvalidParameterError(option, f"cannot read {path}: {_short(exc)}") from None
    if not names:
        raise InvalidParameterError(option, f"{path} has no columns")
    if not _is_parquet(file):
        hint = delimiter_hint(names, path, sep)
        if hint:
            raise InvalidParameterError(option, hint)
    _check_header(names, path, option)
    if not _is_parquet(file):
        _check_unique(file, path, sep, option)
    return names


def _check_unique(file: Path, path, sep, option: str) -> None:
    """Refuse a CSV header that names a column twice: pandas would rename the second (``a.1``)
    and a bounds file's ``a`` would silently mean the first."""
    import csv
    from collections import Counter

    try:
        with open(file, newline="", encoding="utf-8-sig") as fh:
            raw = next(csv.reader(fh, delimiter=sep or ","), [])
    except (OSError, UnicodeDecodeError, csv.Error):  # pragma: no cover - pandas read it
        return
    twice = [name for name, k in Counter(raw).items() if k > 1 and name.strip()]
    if twice:
        # a name that is a number may be a value of a record (a header row missing): not shown
        shown = [repr(name) for name in twice if not _looks_numeric(name)] or ["(numbers)"]
        raise InvalidParameterError(
            option, f"{path} names column(s) {', '.join(shown)} twice (or more) in its header "
                    "row; rename them so that every column has its own name")


def _short(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


#: CSV files larger than this report their reading progress (bytes read of the file size).
PROGRESS_BYTES = 64_000_000


class _CountingFile:
    """A binary file whose ``read`` counts the bytes handed to the CSV parser."""

    def __init__(self, fh, progress):
        self._fh = fh
        self._progress = progress

    def read(self, size=-1):
        data = self._fh.read(size)
        self._progress.update(len(data))
        return data

    def __iter__(self):  # pragma: no cover - pandas reads with read()
        return iter(self._fh)

    def __getattr__(self, name):
        return getattr(self._fh, name)


def _read_csv_with_progress(pd, file: Path, columns, sep, quiet: bool, option: str, dtype=None):
    from ._rows import RowProgress

    size = file.stat().st_size
    # one parse (no chunks to concatenate: no second copy of the table); the parser pulls the
    # file in blocks through read(), which advances the progress
    with open(file, "rb") as raw, RowProgress(size, f"reading {file.name}", quiet=quiet,
                                              unit="bytes") as bar:
        return pd.read_csv(_CountingFile(raw, bar), usecols=columns, sep=sep, dtype=dtype)


def read_table(path, option: str = "DATA", columns=None, sep=None, quiet: bool = False,
               text_columns=(), allow_empty: bool = False):
    """Read a CSV or Parquet file into a DataFrame, refusing a file without a header row.

    Parameters
    ----------
    path : str or Path
    option : str
        How the command line calls this input (used in every message).
    columns : list of str, optional
        Read only these columns (each must exist).
    sep : str, optional
        CSV delimiter (default ``,``); see :func:`read_header` for the hint when it looks wrong.
    quiet : bool
        No progress for a large CSV (one above :data:`PROGRESS_BYTES` reports the bytes read:
        a bar on a terminal, a line every few seconds in a log).
    text_columns : sequence of str
        Columns read as text, not parsed as numbers (a column whose PUBLIC categories are
        strings such as ``"0"``, ``"01"``: parsed as numbers, its values would never match them).
        A CSV reads them as text; a Parquet file's typed columns (int, bool) are converted to
        their text, missing values kept missing, so both formats of a table read alike.
    allow_empty : bool
        Accept a file with a header and no data rows (its columns other than ``text_columns``
        read as float64): for a command that releases under add/remove, where an empty table
        and a table of one record are neighbours and must be released alike
        (:func:`matrixdp._validation.min_records`). Without it (replace-one: the row count is
        public) such a file is refused.
    """
    pd = _pandas(option)

    file = check_input_file(path, option)
    sep = check_sep(sep)
    header = read_header(file, option, sep=sep)
    if columns is not None:
        missing = [c for c in columns if c not in header]
        if missing:
            raise InvalidParameterError(
                option, f"column(s) {', '.join(map(repr, missing))} not found in {path} "
                        f"(columns: {', '.join(header)})")
    dtype = {c: str for c in text_columns} or None
    try:
        if _is_parquet(file):
            frame = pd.read_parquet(file, columns=columns)
        elif file.stat().st_size > PROGRESS_BYTES:
            frame = _read_csv_with_progress(pd, file, columns, sep or ",", quiet, option,
                                            dtype=dtype)
        else:
            frame = pd.read_csv(file, usecols=columns, sep=sep or ",", dtype=dtype)
    except UnicodeDecodeError:  # its message quotes a byte of the file: keep it out of logs
        raise InvalidParameterError(option, f"cannot read {path}: it is not valid UTF-8 text; "
                                            "re-encode it as UTF-8") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, OSError) as exc:
        raise InvalidParameterError(option, f"cannot read {path}: {_short(exc)}") from None
    if frame.shape[1] == 0 or (frame.shape[0] == 0 and not allow_empty):
        raise InvalidParameterError(option, f"{path} has no data rows or no columns")
    if frame.shape[0] == 0:  # no values to infer a type from: numbers, except the text columns
        frame = frame.astype({c: np.float64 for c in frame.columns if c not in text_columns})
    if columns is not None:
        frame = frame[list(columns)]
    if _is_parquet(file):
        frame = as_text(frame, text_columns)
    return frame


def text_columns(schema: "Schema") -> list:
    """Columns read as text: those whose public categories are all strings (parsed as numbers,
    codes such as "0", "1" or "01" would never match the categories listed in the file). One rule
    for ``release``, ``synth`` and ``audit --synth``."""
    return [c.name for c in schema.columns
            if c.is_categorical and all(isinstance(v, str) for v in c.categories)]


def as_text(frame, text_columns):
    """``frame`` with ``text_columns`` (those present) as text, missing values kept missing:
    what a CSV reader with ``dtype=str`` gives for a typed (Parquet) column."""
    present = [c for c in text_columns if c in frame.columns]
    if not present:
        return frame
    frame = frame.copy()
    for name in present:  # one vectorised conversion per column
        series = frame[name]
        frame[name] = series.astype(str).where(series.notna(), None)
    return frame


# --------------------------------------------------------------------------- bounds schema
@dataclass(frozen=True)
class Column:
    """One column of the schema: a numeric range or a list of categories (all public)."""

    name: str
    lo: float | None = None
    hi: float | None = None
    categories: tuple = ()
    integer: bool = False
    dp: bool = False
    atoms: tuple = ()

    @property
    def is_categorical(self) -> bool:
        return bool(self.categories)

    def output_names(self, drop_first: bool = False) -> list[str]:
        """Names of the encoded columns; ``drop_first`` leaves out the reference (first) category."""
        if self.is_categorical:
            cats = self.categories[1:] if drop_first else self.categories
            return [f"{self.name}={c}" for c in cats]
        return [self.name]


@dataclass(frozen=True)
class Schema:
    """The public schema of a release: columns in order, and the target for regression."""

    columns: tuple[Column, ...]
    target: str | None = None
    source: str = "--bounds"
    extra: dict = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    def features(self) -> list[Column]:
        return [c for c in self.columns if c.name != self.target]

    def to_json(self) -> dict:
        cols = {}
        for c in self.columns:
            cols[c.name] = ({"categories": list(c.categories)} if c.is_categorical
                            else {"lo": c.lo, "hi": c.hi})
            if c.integer:
                cols[c.name]["integer"] = True
            if c.dp:
                cols[c.name]["dp"] = True
            if c.atoms:
                cols[c.name]["atoms"] = list(c.atoms)
        return {"columns": cols, "target": self.target}


def categories_text(categories) -> str:
    """A schema's categories as text for a report: each quoted (TOML/JSON string syntax), so a
    category holding a comma ("Paris, TX") is not read as two."""
    import json

    return ", ".join(json.dumps(str(c), ensure_ascii=False) for c in categories)


def _load_toml(path: Path):
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidParameterError("--bounds", f"{path} is not valid TOML: {exc}") from None


def _number(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameterError("--bounds", f"{what} must be a number, got {value!r}")
    return float(value)


def _make_column(name: str, spec) -> Column:
    if not isinstance(spec, dict):
        raise InvalidParameterError(
            "--bounds", f"column {name!r}: expected {{ lo = ..., hi = ... }} or "
                        f"{{ categories = [...] }}, got {spec!r}")
    unknown = set(spec) - {"lo", "hi", "categories", "integer", "dp", "atoms"}
    if unknown:
        raise InvalidParameterError("--bounds", f"column {name!r}: unknown key(s) {sorted(unknown)}")
    for key in ("integer", "dp"):
        if key in spec and not isinstance(spec[key], bool):
            raise InvalidParameterError("--bounds", f"column {name!r}: {key} must be true or "
                                                    f"false, got {spec[key]!r}")
    integer, dp = bool(spec.get("integer", False)), bool(spec.get("dp", False))
    if "categories" in spec and (integer or dp):
        raise InvalidParameterError("--bounds", f"column {name!r}: integer and dp apply to "
                                                "numeric columns, not to categories")
    if "atoms" in spec and ("categories" in spec or dp):
        raise InvalidParameterError(
            "--bounds", f"column {name!r}: atoms apply to a numeric column with a PUBLIC lo and "
                        "hi, not to " + ("categories (each is its own cell already)"
                                         if "categories" in spec else "a dp range"))
    if dp:
        # the range, if given, is the PUBLIC domain the DP estimate searches (else a log grid)
        # lo and hi: a linear grid in that domain; one of them: the log grid cut there;
        # neither: the whole log grid (docs/bounds.md)
        lo = _number(spec["lo"], f"{name}.lo") if "lo" in spec else None
        hi = _number(spec["hi"], f"{name}.hi") if "hi" in spec else None
        for v in (lo, hi):
            if v is not None and not math.isfinite(v):
                raise InvalidParameterError("--bounds", f"column {name!r}: lo and hi must be "
                                                        "finite")
        if lo is not None and hi is not None and not lo < hi:
            raise InvalidParameterError("--bounds", f"column {name!r}: needs lo < hi")
        return Column(name, lo=lo, hi=hi, integer=integer, dp=True)
    if "categories" in spec:
        cats = spec["categories"]
        if not isinstance(cats, list) or not cats:
            raise InvalidParameterError(
                "--bounds", f"column {name!r}: list its PUBLIC categories, e.g. categories = "
                            "[\"a\", \"b\"] (they are not read from the data)")
        if len(set(map(str, cats))) != len(cats):
            raise InvalidParameterError("--bounds", f"column {name!r}: duplicate categories")
        return Column(name, categories=tuple(cats))
    if "lo" not in spec or "hi" not in spec:
        raise InvalidParameterError("--bounds", f"column {name!r}: needs both lo and hi")
    lo, hi = _number(spec["lo"], f"{name}.lo"), _number(spec["hi"], f"{name}.hi")
    if math.isnan(lo) or math.isnan(hi):
        raise InvalidParameterError(
            "--bounds", f"column {name!r}: fill in its PUBLIC range (lo, hi) from domain "
                        "knowledge, or delete the line to leave the column out")
    if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
        raise InvalidParameterError("--bounds", f"column {name!r}: needs finite lo <= hi, "
                                                f"got lo={lo:g}, hi={hi:g}")
    return Column(name, lo=lo, hi=hi, integer=integer, atoms=_atoms(name, spec, lo, hi, integer))


def _atoms(name: str, spec, lo: float, hi: float, integer: bool) -> tuple:
    """The column's PUBLIC atoms (values it takes with positive probability, e.g. ``atoms =
    [0]`` for "0 if none"): numbers inside [lo, hi], no duplicates, integers on an integer
    column; sorted. The one validation :class:`~matrixdp.synth.TableSchema` also calls
    (:func:`~matrixdp._validation.check_atoms`); checked here on its own because ``matrixdp
    release`` reads the same file without building a schema."""
    if "atoms" not in spec:
        return ()
    return check_atoms(spec["atoms"], lo, hi, integer=integer, column=name, argument="--bounds")


def split_public_constants(schema: Schema, option: str = "--bounds"):
    """Split the public constant columns (numeric, ``lo == hi``) off a bounds schema.

    The one rule shared by ``matrixdp synth`` and ``matrixdp audit --synth``: a numeric column
    whose PUBLIC range is a single value (``lo == hi``, e.g. a site code in a single-site
    extract) carries no information about any record. A generator does not model it (every
    synthetic record gets the value; no budget is charged for it) and the membership audit does
    not count it in its distances. The target is never split off.

    Parameters
    ----------
    schema : Schema
        The bounds schema (after any DP range has been resolved).
    option : str
        How the command line calls the bounds file (used in the message).

    Returns
    -------
    constants : dict
        Column name -> its public value (``lo``), in the order of the bounds file.
    modelled : Schema
        The same schema (same target) without those columns.

    Raises
    ------
    InvalidParameterError
        When every feature column is a public constant (nothing to synthesise).
    """
    from dataclasses import replace

    constants = {c.name: c.lo for c in schema.columns
                 if not c.is_categorical and c.lo is not None and c.lo == c.hi
                 and c.name != schema.target}
    n_features = sum(c.name != schema.target for c in schema.columns)
    if len(constants) == n_features:
        raise InvalidParameterError(option, "every feature column is a public constant "
                                            "(lo = hi): nothing to synthesise")
    modelled = replace(schema, columns=tuple(c for c in schema.columns if c.name not in constants))
    return constants, modelled


def read_schema(path) -> Schema:
    """Read a bounds TOML file (see the module docstring for its format)."""
    file = check_input_file(path, "--bounds")
    doc = _load_toml(file)
    unknown = set(doc) - {"columns", "target"}
    if unknown:
        raise InvalidParameterError("--bounds", f"{path}: unknown key(s) {sorted(unknown)}; "
                                                "expected [columns] and optionally target")
    cols = doc.get("columns")
    if not isinstance(cols, dict) or not cols:
        raise InvalidParameterError("--bounds", f"{path} has no [columns] table")
    target = doc.get("target")
    if target is not None and not isinstance(target, str):
        raise InvalidParameterError("--bounds", f"target must be a column name, got {target!r}")
    return Schema(tuple(_make_column(str(k), v) for k, v in cols.items()), target=target,
                  source=str(path))


def parse_bound_options(items) -> Schema:
    """Build a schema from repeated ``--bounds COL=LO:HI`` options."""
    columns = []
    for item in items:
        name, sep, rng = str(item).rpartition("=")
        lo_text, colon, hi_text = rng.partition(":")
        if not sep or not name or not colon:
            raise InvalidParameterError("--bounds", f"expected COL=LO:HI or a .toml file, got {item!r}")
        try:
            lo, hi = float(lo_text), float(hi_text)
        except ValueError:
            raise InvalidParameterError("--bounds", f"{item!r}: LO and HI must be numbers") from None
        columns.append(_make_column(name, {"lo": lo, "hi": hi}))
    names = [c.name for c in columns]
    if len(set(names)) != len(names):
        raise InvalidParameterError("--bounds", "a column is given twice")
    return Schema(tuple(columns), source="--bounds options")


def template_text(names, dtypes=None, data_name: str = "DATA") -> str:
    """A bounds file listing the columns with empty (``nan``) ranges: nothing from the data.

    ``dtypes`` (optional, column -> "numeric" or "text") only chooses between a range and
    a category list for each line.
    """
    lines = [
        f"# matrixdp bounds for {data_name}",
        "# Fill in PUBLIC ranges from domain knowledge (a form's limits, a device's range,",
        "# a regulation), never from the data: a range read off the data leaks it.",
        "# Values outside a range are clipped into it before the release.",
        "# Delete the line of a column you do not want in the release.",
        "# A text column takes its PUBLIC categories instead: col = { categories = [\"a\", \"b\"] }",
        "# matrixdp synth --model copula: a value a numeric column takes often by definition",
        "# (\"0 if none\") may be declared as a PUBLIC atom: col = { lo = 0, hi = 40, atoms = [0] }",
        "# For --query linreg, name the label column:",
        "# target = \"column name\"",
        "",
        "[columns]",
    ]
    for name in names:
        key = name if _BARE_KEY.fullmatch(name) else _toml_quote(name)
        if dtypes is not None and dtypes.get(name) == "text":
            lines.append(f"{key} = {{ categories = [] }}  # list the PUBLIC categories")
        else:
            lines.append(f"{key} = {{ lo = nan, hi = nan }}")
    return "\n".join(lines) + "\n"


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def design_matrix(frame, columns, option: str = "DATA", clip: bool = True,
                  drop_first: bool = False) -> np.ndarray:
    """Encode the schema's columns of ``frame`` as a float matrix within the public bounds.

    Numeric columns are clipped into their public range (``clip=True``) or refused when
    outside; categorical columns become one 0/1 column per public category (a value that
    is not a listed category is refused). Missing values are refused. Messages name the
    column, never a value or a count computed from the data.

    ``drop_first=True`` is *reference coding* (for a regression with an intercept): the first
    public category of each categorical column is the reference and gets no column, so the
    design is not collinear with the intercept; each remaining column's coefficient is the
    difference from the reference category.
    """
    import pandas as pd

    blocks = []
    for col in columns:
        series = frame[col.name]
        if series.isna().any():
            raise InvalidParameterError(
                option, f"column {col.name!r} has missing values; impute or drop them first "
                        "(matrixdp does not choose how)")
        if col.is_categorical:
            values = _category_text(series, col.categories)
            cats = np.asarray([str(c) for c in col.categories])
            if not np.isin(values, cats).all():
                raise InvalidParameterError(
                    option, f"column {col.name!r} holds values outside its public categories"
                            + category_spelling_hint(col.categories))
            if drop_first:
                cats = cats[1:]
            if cats.size:
                blocks.append((values[:, None] == cats[None, :]).astype(np.float64))
            continue
        if not pd.api.types.is_numeric_dtype(series.dtype):
            raise InvalidParameterError(
                option, f"column {col.name!r} is not numeric; give it categories = [...] in the "
                        "bounds file")
        x = series.to_numpy(dtype=np.float64)
        if not np.isfinite(x).all():
            raise InvalidParameterError(option, f"column {col.name!r} has non-finite values")
        if clip:
            x = np.clip(x, col.lo, col.hi)
        elif ((x < col.lo) | (x > col.hi)).any():
            raise InvalidParameterError(
                option, f"column {col.name!r} has values outside its public range "
                        f"[{col.lo:g}, {col.hi:g}]")
        blocks.append(x[:, None])
    if not blocks:
        return np.empty((frame.shape[0], 0))
    return np.hstack(blocks)


def _category_text(series, categories) -> np.ndarray:
    """The text of each value, as matched against ``str`` of the public categories; a float
    column whose categories are all integers (a Dask CSV reads integer codes as floats, a
    Parquet file may store them so) writes its whole numbers as integers, ``1.0`` as ``"1"``."""
    import pandas as pd

    text = series.astype(str).to_numpy()
    integer_codes = all(isinstance(c, Integral) and not isinstance(c, bool) for c in categories)
    if not (integer_codes and pd.api.types.is_float_dtype(series.dtype)):
        return text
    x = series.to_numpy(dtype=np.float64)
    whole = np.isfinite(x) & (x == np.round(x))
    return np.where(whole, np.where(whole, x, 0.0).astype(np.int64).astype(str), text)


def category_groups(columns) -> list[np.ndarray]:
    """Indices, in the encoded columns of :func:`bounds_arrays` (full one-hot coding), of each
    categorical column's block. Each record is in exactly one public category (undeclared
    categories and missing values are refused), so a block's shares sum to 1: public."""
    groups, start = [], 0
    for col in columns:
        width = len(col.output_names(False))
        if col.is_categorical:
            groups.append(np.arange(start, start + width))
        start += width
    return groups


def bounds_arrays(columns, drop_first: bool = False) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Lower and upper bounds and names of the encoded columns (one-hot columns are [0, 1]).

    ``drop_first``: reference coding, as in :func:`design_matrix`.
    """
    lo, hi, names = [], [], []
    for col in columns:
        if col.is_categorical:
            k = len(col.categories) - (1 if drop_first else 0)
            lo += [0.0] * k
            hi += [1.0] * k
        else:
            lo.append(col.lo)
            hi.append(col.hi)
        names += col.output_names(drop_first)
    return np.asarray(lo), np.asarray(hi), names
