"""Sums over records of bounded data, block by block, for numpy, pandas and Dask inputs.

Every statistic matrixdp releases from a table (a count, a sum, a Gram or scatter matrix,
the augmented ``[X y]`` regression statistics) is a sum of one term per record. This module
computes those sums *before* any noise is drawn: in memory in row chunks (so clipping never
copies the whole table), and on Dask collections block by block with a tree reduction, so
that nothing private reaches the driver except the reduced statistics. The noise is then drawn
once, on the driver, by the caller's mechanism.

Bounds are public inputs: records are checked against them block by block (``clip=True``
projects each entry onto its public interval, ``clip=False`` raises), and no message says
how many records or which values were outside.

See ``docs/scaling.md`` for how to run this on a Dask cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import check_box_bounds, check_in_bounds, check_row_norms
from .errors import InvalidParameterError, OutOfBoundsError

__all__ = ["RecordSums", "ColumnStack", "is_dask_collection", "as_record_matrix", "bounded_record_sums",
           "ball_record_sums", "dask_target_records", "dask_target_vector", "tree_sum",
           "residual_correlation_sums",
           "DEFAULT_CHUNK_ROWS"]

#: Rows per in-memory chunk: bounds the temporaries of a clip + Gram pass (~8 MB per
#: 16 features at float64) while keeping BLAS calls large enough to run at full speed.
DEFAULT_CHUNK_ROWS = 65_536
#: In memory a chunk is also at most 1/8 of the rows, but never fewer than this many.
_MIN_CHUNK_ROWS = 4_096


@dataclass(frozen=True)
class RecordSums:
    """Sums over records: the sufficient statistics of bounded data.

    Attributes
    ----------
    n : int
        Number of records summed.
    sum : ndarray of shape (d,)
        Sum of the (clipped) records.
    gram : ndarray of shape (d, d) or None
        Sum of outer products ``x xᵀ`` of the (clipped) records, when asked for.

    Notes
    -----
    These are exact, private values: release them only through a mechanism.
    """

    n: int
    sum: np.ndarray
    gram: np.ndarray | None = None

    def __add__(self, other: "RecordSums") -> "RecordSums":
        gram = None if self.gram is None or other.gram is None else self.gram + other.gram
        return RecordSums(self.n + other.n, self.sum + other.sum, gram)


class ColumnStack:
    """In-memory records ``[A B ...]`` (columns side by side) without building the table.

    The in-memory counterpart of a lazy Dask concatenation: :func:`bounded_record_sums` reads it
    in row chunks, so a regression's ``[X y]`` is never copied whole. Each part is a 2-D array
    (records in rows) or a 1-D array (one column), all with the same number of rows.
    """

    ndim = 2

    def __init__(self, *parts):
        from .errors import InvalidShapeError

        cols = [np.asarray(p) for p in parts]
        cols = [c[:, None] if c.ndim == 1 else c for c in cols]
        if not cols or any(c.ndim != 2 for c in cols):
            raise InvalidParameterError("X", "must be 2-D (records in rows)")
        n = cols[0].shape[0]
        if any(c.shape[0] != n for c in cols):
            raise InvalidShapeError("y", "must have one entry per row of X")
        self.parts = cols
        self.shape = (n, sum(c.shape[1] for c in cols))

    def __getitem__(self, rows):
        if not isinstance(rows, slice):
            raise TypeError("ColumnStack supports row slices only")
        return np.concatenate([c[rows] for c in self.parts], axis=1, dtype=np.float64)


def is_dask_collection(X) -> bool:
    """True when ``X`` is a Dask array or Dask DataFrame (without importing Dask)."""
    module = type(X).__module__ or ""
    return module.startswith("dask.") or module.startswith("dask_expr")


def _dask_frame_to_array(X, columns):
    if columns is not None:
        X = X[list(columns)]
    # unknown partition lengths: computing them would be an extra pass over the data
    return X.to_dask_array()


def as_record_matrix(X, argument: str = "X", *, columns=None):
    """Return ``X`` as a 2-D array of records in rows, keeping Dask collections lazy.

    Parameters
    ----------
    X : array_like, pandas.DataFrame, dask.array.Array or dask.dataframe.DataFrame
        The private table (records in rows).
    argument : str
        Name used in error messages.
    columns : sequence of str, optional
        For data frames: the columns to use, in this order.

    Returns
    -------
    numpy.ndarray (float64) or dask.array.Array (rows chunked, all columns in one chunk)
    """
    if is_dask_collection(X):
        if hasattr(X, "to_dask_array"):
            X = _dask_frame_to_array(X, columns)
        if X.ndim == 1:
            X = X[:, None]
        if X.ndim != 2:
            raise InvalidParameterError(argument, f"must be 2-D (records in rows), got {X.ndim}-D")
        if len(X.chunks[1]) != 1:
            X = X.rechunk({1: -1})
        return X
    if isinstance(X, ColumnStack):  # read in row chunks by the sums: never copied whole
        return X
    if columns is not None and hasattr(X, "loc"):
        X = X[list(columns)]
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise InvalidParameterError(argument, f"must be 2-D (records in rows), got {arr.ndim}-D")
    return arr


def dask_target_vector(y):
    """A Dask target as one lazy column: a Series (from a Series or a one-column frame) or a 1-D
    array (from a 1-D or one-column array). Raises unless ``y`` is such a Dask collection."""
    from .errors import InvalidShapeError

    if not is_dask_collection(y):
        raise InvalidParameterError("y", "must be a Dask collection (array, Series or one-column "
                                         "frame) partitioned like X when X is a Dask collection")
    if hasattr(y, "to_dask_array"):  # a Series or a frame
        if getattr(y, "ndim", 1) == 2:
            if len(y.columns) != 1:
                raise InvalidShapeError("y", "must have one column")
            y = y[y.columns[0]]
        return y
    if y.ndim == 2:
        if y.shape[1] != 1:
            raise InvalidShapeError("y", "must have one column")
        y = y[:, 0]
    if y.ndim != 1:
        raise InvalidShapeError("y", "must be 1-D")
    return y


def dask_target_records(X, y):
    """The lazy augmented table ``[X y]`` (records in rows) of a Dask ``X`` and target ``y``.

    ``X`` and ``y`` must be Dask collections partitioned alike (e.g. columns of one frame).
    """
    import dask.array as da

    from .errors import InvalidShapeError

    y = dask_target_vector(y)
    if hasattr(X, "to_dask_array") and hasattr(y, "to_dask_array"):
        try:
            frame = X.assign(_matrixdp_target_=y)
        except Exception as exc:  # pragma: no cover - partitions that cannot be aligned
            raise InvalidShapeError("y", "must be partitioned like X (e.g. a column of the same "
                                         "frame)") from exc
        return frame.to_dask_array()
    Xa = X.to_dask_array(lengths=True) if hasattr(X, "to_dask_array") else X
    ya = y.to_dask_array(lengths=True) if hasattr(y, "to_dask_array") else y
    if any(np.isnan(c) for c in Xa.chunks[0] + ya.chunks[0]):
        Xa, ya = Xa.compute_chunk_sizes(), ya.compute_chunk_sizes()  # lengths only, no values
    if Xa.chunks[0] != ya.chunks[0]:
        ya = ya.rechunk({0: Xa.chunks[0]})
    return da.concatenate([Xa.rechunk({1: -1}), ya[:, None]], axis=1)


def _finite_block(block, argument: str, fresh: bool) -> np.ndarray:
    """``block`` as a float64 array (a copy unless ``fresh``: the block is already a new
    float64 array), refused if any entry is NaN or infinite (the message names no value)."""
    arr = np.array(block, dtype=np.float64, copy=not fresh)
    if not np.all(np.isfinite(arr)):
        raise OutOfBoundsError(argument, "records must be finite (NaN or infinity found); drop or "
                                         "impute them before the release")
    return arr


def _block_sums(block: np.ndarray, *, with_gram: bool, clip: bool, lo=None, hi=None,
                center: np.ndarray | None = None, radius: float | None = None,
                argument: str = "X", bound_name: str = "radius", fresh: bool = False) -> RecordSums:
    """Sums of one block of records (float64 whatever the block's dtype), checked first.

    Box (``radius`` None): each raw entry within ``[lo, hi]`` (clipped, or raise), then the
    public ``center`` subtracted. Ball: ``x - center`` within the L2 ball of ``radius`` (rows
    rescaled onto it, or raise). Messages name no value.
    """
    arr = _finite_block(block, argument, fresh)
    if radius is None:
        if clip:
            np.clip(arr, lo, hi, out=arr)
        else:
            check_in_bounds(arr, lo, hi, argument)
    if center is not None:
        arr -= center
    if radius is not None:
        arr = check_row_norms(arr, radius, argument, bound_name=bound_name, clip=clip)
    gram = arr.T @ arr if with_gram else None
    return RecordSums(arr.shape[0], arr.sum(axis=0), gram)


def _sum_blocks(mat, gram: bool, chunk_rows: int, *, center=None, **checks) -> RecordSums:
    """Add up :func:`_block_sums` over the blocks of a Dask matrix (in a tree, only the sums
    reaching the driver) or over row chunks of an in-memory one (bounded temporaries)."""
    if int(chunk_rows) < 1:
        raise InvalidParameterError("chunk_rows", f"must be >= 1, got {chunk_rows!r}")
    d = mat.shape[1]
    if center is not None:
        checks["center"] = np.broadcast_to(np.asarray(center, dtype=np.float64), (d,)).copy()
    empty = RecordSums(0, np.zeros(d), np.zeros((d, d)) if gram else None)
    return _reduce_blocks(mat, _block_sums, empty, chunk_rows, with_gram=gram, **checks)


def _reduce_blocks(mat, block_fn, empty, chunk_rows: int, **kw):
    """``Σ block_fn(block, **kw)`` over the blocks of a Dask matrix (in a tree: only the
    per-block results reach the driver) or over row chunks of an in-memory one (bounded
    temporaries); ``empty`` is the sum of no block."""
    if is_dask_collection(mat):
        import dask
        from dask import delayed

        part = delayed(block_fn, pure=True)
        parts = [part(b, **kw) for b in mat.to_delayed().ravel()]
        if not parts:
            return empty
        (total,) = dask.compute(tree_sum(parts))
        return total
    total = empty
    # at most an eighth of the table per chunk (bounded temporaries relative to the input too),
    # but never under _MIN_CHUNK_ROWS rows, which keeps the BLAS calls large
    step = min(int(chunk_rows), max(_MIN_CHUNK_ROWS, -(-mat.shape[0] // 8)))
    fresh = isinstance(mat, ColumnStack)  # its chunks are new float64 arrays: no second copy
    for start in range(0, mat.shape[0], step):  # chunks, not records: bounded temporaries
        total = total + block_fn(mat[start:start + step], fresh=fresh, **kw)
    return total


def tree_sum(parts: list, split_every: int = 8):
    """Sum Dask delayed parts pairwise in a tree of fan-in ``split_every``."""
    from dask import delayed

    add = delayed(lambda *xs: sum(xs[1:], xs[0]), pure=True)
    while len(parts) > 1:
        parts = [add(*parts[i:i + split_every]) if len(parts[i:i + split_every]) > 1
                 else parts[i] for i in range(0, len(parts), split_every)]
    return parts[0]


def _block_residual_correlation(block, *, lo, hi, center, t, beta, tau, unit,
                                fresh: bool = False) -> np.ndarray:
    """``Σ u_i clip(y_i - z_iᵀβ, ±τ)`` over one block of ``[x y]`` records (see
    :func:`residual_correlation_sums`)."""
    arr = _finite_block(block, "X", fresh)
    np.clip(arr, lo, hi, out=arr)
    arr -= center
    d = arr.shape[1] - 1
    x, y = arr[:, :d], arr[:, d]
    pred = x @ beta[:d]
    if t:
        pred += t * beta[d]
    r = np.clip(y - pred, -tau, tau)
    out = x.T @ r
    if t:
        out = np.append(out, t * r.sum())
    return out * unit


def residual_correlation_sums(XY, lower, upper, center, t: float, beta, tau: float, unit, *,
                              chunk_rows: int = DEFAULT_CHUNK_ROWS) -> np.ndarray:
    """``Σ_i u_i clip(y_i - z_iᵀβ, -τ, τ)``: the clipped residual correlation of one boosting
    round (``models.boosting``, ``docs/regression.md`` §4c), block by block.

    ``XY``: the records ``[x y]`` in rows (``ColumnStack(X, y)`` in memory, or
    :func:`dask_target_records`); each entry is clipped to its public interval ``[lower,
    upper]`` and the public ``center`` subtracted; ``z = (x - c_x, t)`` (``t = 0``: no constant
    coordinate); ``u = z ⊙ unit`` with ``unit`` the public per-coordinate rescaling (0 drops a
    coordinate). Exact (private) sums of ``d (+1)`` numbers; release them through a mechanism.
    For Dask input only those numbers reach the driver (tree reduction, as
    :func:`bounded_record_sums`).
    """
    mat = as_record_matrix(XY, "X")
    lo, hi = check_box_bounds(lower, upper, mat.shape[1], "bounds")
    c = np.broadcast_to(np.asarray(center, dtype=np.float64), (mat.shape[1],)).copy()
    kw = dict(lo=lo, hi=hi, center=c, t=float(t), beta=np.asarray(beta, dtype=np.float64),
              tau=float(tau), unit=np.asarray(unit, dtype=np.float64))
    size = mat.shape[1] - 1 + (1 if t else 0)
    total = _reduce_blocks(mat, _block_residual_correlation, np.zeros(size), chunk_rows, **kw)
    return np.asarray(total, dtype=np.float64)


def bounded_record_sums(X, lower, upper, *, clip: bool = True, gram: bool = True, center=None,
                        argument: str = "X", chunk_rows: int = DEFAULT_CHUNK_ROWS) -> RecordSums:
    """Count, sum and Gram matrix of the records of ``X`` checked against public bounds.

    Parameters
    ----------
    X : array_like, pandas.DataFrame, dask.array.Array or dask.dataframe.DataFrame
        Private records in rows (``n_samples, n_features``).
    lower, upper : float or array_like of shape (n_features,)
        Public per-feature bounds (never read from the data).
    clip : bool, default True
        Project out-of-bounds entries onto the bounds (a record-wise map, so the sensitivity
        of every bounded query is unchanged); with False, such records raise
        :class:`~matrixdp.errors.OutOfBoundsError`.
    gram : bool, default True
        Also return the Gram matrix ``Σ x xᵀ``.
    center : array_like of shape (n_features,), optional
        A public point subtracted from every (clipped) record before summing (e.g. the middle of
        the public box), so the sums are those of the centred records without cancellation.
    argument : str
        Name used in error messages.
    chunk_rows : int
        Rows per in-memory chunk (numpy input).

    Returns
    -------
    RecordSums
        Exact (private) sums; release them through a mechanism.

    Notes
    -----
    For Dask input, each block is clipped and summed where it lives, the partial sums are
    added in a tree (fan-in 8), and only the ``d + d²`` numbers of the result are computed on
    the driver, with whatever scheduler is active (threads by default, or a
    ``distributed.Client``). Results agree with the in-memory path up to floating-point
    summation order.
    """
    mat = as_record_matrix(X, argument)
    lo, hi = check_box_bounds(lower, upper, mat.shape[1], "bounds")
    return _sum_blocks(mat, gram, chunk_rows, clip=clip, lo=lo, hi=hi, center=center,
                       argument=argument)


def ball_record_sums(X, radius: float, *, clip: bool = True, gram: bool = True, center=None,
                     argument: str = "X", bound_name: str = "radius",
                     chunk_rows: int = DEFAULT_CHUNK_ROWS) -> RecordSums:
    """Count, sum and Gram matrix of records checked against a public L2 ball.

    The ball version of :func:`bounded_record_sums`: each record ``x - center`` must have
    ``‖x - center‖ <= radius`` (a public bound); with ``clip=True`` a record outside is
    rescaled onto the ball (a record-wise map, so the sensitivity of every ball-bounded query
    is unchanged), with ``clip=False`` it raises :class:`~matrixdp.errors.OutOfBoundsError`
    naming no value. Sums are of the *centred* records.

    Parameters
    ----------
    X : array_like, pandas.DataFrame, dask.array.Array or dask.dataframe.DataFrame
        Private records in rows.
    radius : float
        Public bound on each centred record's L2 norm (never read from the data).
    clip, gram, center, argument, chunk_rows
        As in :func:`bounded_record_sums`.
    bound_name : str
        Name of the bound in error messages.

    Returns
    -------
    RecordSums
        Exact (private) sums of the centred, norm-bounded records.

    Notes
    -----
    Dask blocks are checked (or projected onto the ball) where they live and summed in the same
    tree as :func:`bounded_record_sums`; only the reduced sums reach the driver.
    """
    r = float(radius)
    if not (np.isfinite(r) and r > 0):
        raise InvalidParameterError(bound_name, f"must be a positive finite number, got {radius!r}")
    return _sum_blocks(as_record_matrix(X, argument), gram, chunk_rows, clip=clip, center=center,
                       radius=r, argument=argument, bound_name=bound_name)
