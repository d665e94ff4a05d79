"""Tables larger than memory on the command line: many Parquet/CSV files read by Dask.

``matrixdp release`` and ``matrixdp synth`` take a directory or a glob of Parquet or CSV files
(or one file with ``--dask``); the table is then a ``dask.dataframe`` read partition by
partition, validated and encoded per partition with the same rules (and messages) as in memory,
and the estimators reduce it block by block (``docs/scaling.md``). ``--scheduler ADDRESS``
runs on an existing ``distributed`` cluster; otherwise Dask's threaded scheduler. Progress bars
come from ``dask.diagnostics.ProgressBar`` (threaded scheduler), on a terminal only unless
``MATRIXDP_PROGRESS=always``, never with ``--quiet``.
"""

from __future__ import annotations

import contextlib
import glob as _glob
import sys
from pathlib import Path

import numpy as np

from ..errors import InvalidParameterError, MatrixDPError
from ._tables import PARQUET_SUFFIXES, as_text, design_matrix, read_header

__all__ = ["dask_input_files", "read_dask_table", "dask_design_frame", "dask_session"]

_TABLE_SUFFIXES = PARQUET_SUFFIXES + (".csv",)
_GLOB_CHARS = set("*?[")


def dask_input_files(spec, *, force: bool, option: str = "DATA") -> list[Path] | None:
    """The files of a directory or glob (read with Dask), or None for one file read in memory.

    A single file is read with Dask only when ``force`` (``--dask``). All files must be of one
    kind (Parquet or CSV).
    """
    text = str(spec)
    path = Path(text)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in _TABLE_SUFFIXES)
        where = f"directory {text}"
        if not files:
            raise InvalidParameterError(option, f"{text} is a directory with no Parquet or CSV "
                                                "file (a directory is read as one table with Dask)")
    elif _GLOB_CHARS & set(text):
        files = sorted(Path(p) for p in _glob.glob(text) if Path(p).is_file())
        where = f"pattern {text}"
    elif force:
        if not path.is_file():
            raise InvalidParameterError(option, f"{text} does not exist or is not a file")
        return [path]
    else:
        return None
    if not files:
        raise InvalidParameterError(option, f"no Parquet or CSV file in the {where}")
    kinds = {p.suffix.lower() in PARQUET_SUFFIXES for p in files}
    if len(kinds) > 1:
        raise InvalidParameterError(option, f"the {where} mixes Parquet and CSV files; keep one "
                                            "kind")
    return files


def read_dask_table(files, option: str = "DATA", columns=None, text_columns=()):
    """A lazy ``dask.dataframe`` of ``files`` (only ``columns``, which must all exist);
    ``text_columns`` are read as text, as :func:`~matrixdp.cli._tables.read_table` reads them."""
    import dask.dataframe as dd

    header = read_header(files[0], option)
    if columns is not None:
        missing = [c for c in columns if c not in header]
        if missing:
            raise InvalidParameterError(
                option, f"column(s) {', '.join(map(repr, missing))} not found in {files[0]} "
                        f"(columns: {', '.join(header)})")
    names = [str(f) for f in files]
    if files[0].suffix.lower() in PARQUET_SUFFIXES:
        frame = dd.read_parquet(names, columns=columns)
        text = [c for c in text_columns if c in frame.columns]
        if text:
            frame = frame.map_partitions(as_text, text, meta=as_text(frame._meta, text))
    else:
        dtype = {c: str for c in text_columns} or None
        frame = dd.read_csv(names, usecols=columns, assume_missing=True, dtype=dtype)
    return frame if columns is None else frame[list(columns)]


def _encode(part, columns, option, clip, names):
    import pandas as pd

    return pd.DataFrame(design_matrix(part, columns, option=option, clip=clip), columns=names,
                        index=part.index)


def dask_design_frame(frame, columns, *, option: str = "DATA", clip: bool = True):
    """:func:`~matrixdp.cli._tables.design_matrix` per partition: a lazy float frame whose
    columns are the encoded names (one-hot columns ``name=category``)."""
    import pandas as pd

    names = [n for col in columns for n in col.output_names()]
    meta = pd.DataFrame({n: np.zeros(0) for n in names})
    return frame.map_partitions(_encode, columns, option, clip, names, meta=meta)


#: Modules whose ValueError inside a Dask computation is a failure to read or convert the data.
_READER_MODULES = ("dask", "pandas", "pyarrow", "numpy", "fsspec")


def _raised_by_a_reader(exc: BaseException) -> bool:
    """Whether ``exc`` was raised in a reader library (its innermost frame), not in matrixdp."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    module = "" if tb is None else str(tb.tb_frame.f_globals.get("__name__", ""))
    return module.split(".")[0] in _READER_MODULES


@contextlib.contextmanager
def dask_session(*, scheduler: str | None = None, quiet: bool = False, option: str = "DATA"):
    """Connect to ``scheduler`` (a ``distributed`` address) or use threads, with a progress bar
    on a terminal (threads only; never with ``quiet``).

    A value that a reader library cannot convert while the data are computed (Dask infers a
    CSV column's type from the first rows, so text in a later part of a numeric column fails
    only then) is reported as one line naming ``option``; the library's message is not shown,
    because it quotes the value (a record)."""
    from .._progress import progress_enabled

    client = None
    if scheduler:
        try:
            import distributed
        except ImportError:  # pragma: no cover - comes with the dask extra
            raise InvalidParameterError("--scheduler", "needs the 'distributed' package: pip "
                                                       "install 'matrixdp[dask]'") from None
        try:
            client = distributed.Client(scheduler, timeout="20s")
        except OSError as exc:
            raise InvalidParameterError("--scheduler", f"cannot reach {scheduler}: "
                                                       f"{type(exc).__name__}") from None
    try:
        if client is None and progress_enabled(not quiet, sys.stderr):
            from dask.diagnostics import ProgressBar

            with ProgressBar(out=sys.stderr, minimum=1.0):
                yield
        else:
            yield
    except ValueError as exc:
        if isinstance(exc, MatrixDPError) or not _raised_by_a_reader(exc):
            raise
        raise InvalidParameterError(
            option, f"a part of the input does not read as its column's type ({type(exc).__name__}"
                    " while computing; Dask infers each column's type from the first rows): a "
                    "column with text in later rows is not numeric (give it categories = [...] "
                    "or clean it), or a row is malformed; the reader's message is not shown "
                    "because it may quote a record") from None
    finally:
        if client is not None:
            client.close()
