"""RON-Gauss on Dask collections: a blockwise fit in passes, and partitioned synthetic output.

The fit never collects the records. Algorithm 1 needs the DP mean of the normalised records
*before* it can centre them, so a fit on a Dask collection reads the data in passes:

1. per block: check the records (finite; labels within the public bound, or in the public
   class list), normalise every record to unit norm and sum, per group: (count, Σ x̂) (and, for
   regression, the sum of the checked labels) -> tree reduction -> driver;
2. per group, in the in-memory fit's order: the group's DP mean (and DP count, when sizes are
   private) is released on the driver; then one pass per block normalises, subtracts the
   released mean, re-normalises, projects with the public ``W`` (and appends the checked,
   centred label) and sums the second moments of that group's records -> tree reduction -> the
   DP second moment is released on the driver.

The unsupervised and regression tasks have one group (two passes); classification has one group
per public class (1 + k passes): each class's second moment is released before the next class's
count and mean, as in memory, so that the same ``random_state`` gives the same release. Only
``k (m + 2)`` and ``(p + 1)²`` numbers per pass reach the driver; the releases are those of
:mod:`matrixdp.synth.group` (the same calibration as in memory). See ``docs/scaling.md``.
"""

from __future__ import annotations

import numpy as np

from .._record_sums import (as_record_matrix, dask_target_records, dask_target_vector,
                            is_dask_collection, tree_sum)
from ..errors import InvalidParameterError, InvalidShapeError
from .._validation import check_n_records
from ._input import checked_centred_labels, classes_outside
from .group import GroupCalibration, GroupFit, release_group_mean, release_group_moment
from .preprocessing import centred_projection, unit_row_pass

__all__ = ["is_dask_collection", "refuse_empty", "sampled_array_chunk", "dask_feature_matrix", "dask_class_codes",
           "dask_group_sums", "fit_groups_dask", "write_parquet_samples", "dask_schema_columns",
           "aligned_partitions", "dask_block_reducer", "write_sampled_frames"]

def dask_feature_matrix(X, y=None):
    """Lazy records of a Dask ``X`` (with ``y`` as a last column when given: the raw label, or a
    class code from :func:`dask_class_codes`) and the column names of a Dask DataFrame (None for
    arrays)."""
    names = None
    if hasattr(X, "dtypes"):
        bad = [str(c) for c, dt in X.dtypes.items()
               if not (np.issubdtype(dt, np.number) or np.issubdtype(dt, np.bool_))]
        if bad:
            raise InvalidParameterError("X", f"non-numeric column(s) {bad}; RON-Gauss needs numeric "
                                             "features - one-hot encode categorical columns first "
                                             "or drop them")
        names = np.asarray([str(c) for c in X.columns], dtype=object)
    if y is None:
        mat = as_record_matrix(X, "X")
    else:
        mat = dask_target_records(X, y)
    if mat.ndim != 2:
        raise InvalidShapeError("X", "must be 2-D (n_samples, n_features)")
    if len(mat.chunks[1]) != 1:  # every block holds whole records (features and label)
        mat = mat.rechunk({1: -1})
    return mat, names


def _codes(labels, classes):
    """Index of every label in the public class list (float, for the record matrix); raises
    when a label is not in it."""
    labels = np.asarray(labels).reshape(-1)
    codes = np.full(labels.shape[0], -1.0)
    for j, c in enumerate(classes):  # the public classes, not the records
        codes[labels == c] = j
    if np.any(codes < 0):
        raise InvalidParameterError("y", classes_outside(classes))
    return codes


def _series_codes(part, classes):
    import pandas as pd

    return pd.Series(_codes(part.to_numpy(), classes), index=part.index)


def dask_class_codes(y, classes):
    """A lazy Dask collection of the class codes of ``y`` (positions in the public ``classes``),
    partitioned like ``y``; labels outside the list raise when a block is computed."""
    y = dask_target_vector(y)
    classes = np.asarray(classes)
    if hasattr(y, "to_dask_array"):
        return y.map_partitions(_series_codes, classes, meta=(y.name, "f8"))
    return y.map_blocks(_codes, classes, dtype=np.float64)


def _finite(block):
    arr = np.asarray(block, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise InvalidParameterError("X", "contains NaN or infinite values: clean or impute them "
                                         "before a private release")
    return arr


def _checked_labels(arr, m, shift, bound, clip_labels):
    return checked_centred_labels(arr[:, m] - shift, shift, bound, clip_labels)


def _first_pass(block, m, n_groups, shift, bound, clip_labels):
    """Per group ``[count, Σ normalize(x), (Σ checked label)]`` of one block, shape
    (n_groups, m + 1 (+ 1)). With ``n_groups``, column ``m`` holds the class code."""
    arr = _finite(block)
    X = np.ascontiguousarray(arr[:, :m])
    extra = 0 if bound is None else 1
    out = np.zeros((1 if n_groups is None else n_groups, m + 1 + extra))
    if n_groups is None:
        out[0, 0] = X.shape[0]
        out[0, 1:m + 1] = unit_row_pass(X, np.zeros((m, 0)))[1]
        if bound is not None:
            out[0, m + 1] = _checked_labels(arr, m, shift, bound, clip_labels).sum()
        return out
    codes = arr[:, m]
    for j in range(n_groups):  # the public classes, not the records
        rows = codes == j
        out[j, 0] = np.count_nonzero(rows)
        out[j, 1:] = unit_row_pass(np.ascontiguousarray(X[rows]), np.zeros((m, 0)))[1]
    return out


def _second_pass(block, m, mu, W, group, shift, bound, clip_labels):
    """``Σ u uᵀ`` of one block's records (of class ``group`` when given),
    ``u = (normalize(normalize(x) - μ) W, y - shift)``."""
    arr = _finite(block)
    if group is not None:
        arr = arr[arr[:, m] == group]
    X = np.ascontiguousarray(arr[:, :m])
    r, _, Y = unit_row_pass(X, W)
    Xt = centred_projection(X, W, r, Y, mu)
    if bound is not None:
        Xt = np.hstack([Xt, _checked_labels(arr, m, shift, bound, clip_labels)[:, None]])
    return Xt.T @ Xt


def _blockwise_total(mat, fn, *args):
    import dask
    from dask import delayed

    task = delayed(fn, pure=True)
    parts = [task(b, *args) for b in mat.to_delayed().ravel()]
    if not parts:
        raise InvalidShapeError("X", "has no samples")
    (total,) = dask.compute(tree_sum(parts))
    return total


def dask_group_sums(mat, m, *, n_groups=None, label_shift=0.0, label_bound=None,
                    clip_labels=False) -> np.ndarray:
    """Pass 1: the per-group reduced statistics of a lazy record matrix (private values).

    ``mat`` holds the ``m`` features and, as column ``m``, the raw label (``label_bound``
    given: regression) or the class code (``n_groups`` given: classification). Returns an
    array of shape (groups, m + 1 (+ 1)): count, Σ x̂ (and Σ of the checked, centred labels).
    Every record is checked here, before any noise is drawn.
    """
    return _blockwise_total(mat, _first_pass, m, n_groups, float(label_shift), label_bound,
                            bool(clip_labels))


def fit_groups_dask(mat, m, W, cal: GroupCalibration, sums: np.ndarray, *, classified: bool,
                    label_shift=0.0, clip_labels=False, rng) -> list[GroupFit]:
    """Release every group of ``sums`` (from :func:`dask_group_sums`) in the in-memory order:
    the group's mean (:func:`~matrixdp.synth.group.release_group_mean`), one pass for its
    scatter, its second moment (:func:`~matrixdp.synth.group.release_group_moment`); then the
    next group. ``classified``: group j is the records of class code j."""
    fits = []
    for j in range(sums.shape[0]):
        first = release_group_mean(cal, int(round(sums[j, 0])), sums[j, 1:m + 1], rng)
        scatter = _blockwise_total(mat, _second_pass, m, first.mean, W,
                                   float(j) if classified else None, float(label_shift),
                                   cal.label_bound, bool(clip_labels))
        fits.append(release_group_moment(cal, first, scatter, rng))
    return fits


def sampled_array_chunk(model, size, seed, columns, label_column, add_mean):
    """One partition of :meth:`~matrixdp.synth.RONGauss.sample_to_parquet`: ``size`` records
    sampled with a child seed, as a frame with ``columns`` (and the labels as ``label_column``)."""
    import pandas as pd

    out = model.sample(int(size), rng=np.random.default_rng(seed), add_mean=add_mean)
    if isinstance(out, tuple):
        X_syn, y_syn = out
        frame = pd.DataFrame(X_syn, columns=columns)
        frame[label_column] = y_syn
        return frame
    return pd.DataFrame(out, columns=columns)


def write_parquet_samples(sample_part, path, n_samples: int, *, partitions: int,
                          random_state=None):
    """Write ``n_samples`` synthetic records as ``partitions`` Parquet files, one Dask task per
    partition: ``sample_part(size, seed)`` returns the partition's frame, ``seed`` a child of one
    :class:`numpy.random.SeedSequence` (from ``random_state``, or OS entropy when ``None``;
    nothing is kept on the model). Existing ``part.*.parquet`` files under ``path`` are deleted
    first (as :func:`write_sampled_frames` does). Used by
    :meth:`~matrixdp.synth.RONGauss.sample_to_parquet`
    (the tabular generators write through :func:`write_sampled_frames`, which keeps at most one
    chunk per worker thread in memory). Returns the written files in partition order."""
    from pathlib import Path

    import dask.dataframe as dd
    from dask import delayed

    sizes = np.full(partitions, n_samples // partitions, dtype=np.int64)
    sizes[: n_samples % partitions] += 1
    seeds = np.random.SeedSequence(random_state).spawn(partitions)
    meta = sample_part(1, np.random.SeedSequence(0)).iloc[:0]
    task = delayed(sample_part, pure=False)
    frame = dd.from_delayed([task(int(k), s) for k, s in zip(sizes, seeds)], meta=meta,
                            verify_meta=False)
    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    # the parts of an earlier, larger write would stay beside the new ones and be read with them
    # (a directory of 10 parts rewritten with 2 held 1.8 times the records asked for)
    _remove_parts(out)
    frame.to_parquet(str(out), write_index=False, compute=True,
                     name_function=lambda i: f"part.{i}.parquet")
    return [str(out / f"part.{i}.parquet") for i in range(partitions)]  # in partition order


def _remove_parts(folder) -> None:
    """Delete the ``part.*.parquet`` files of an earlier write in ``folder`` (other files stay)."""
    for old in folder.glob("part.*.parquet"):
        old.unlink()


# ---------------------------------------------------------------- tabular generators (DPCopula)
def dask_schema_columns(schema, X) -> list:
    """The column order of a Dask DataFrame ``X`` after checking it holds exactly the public
    schema's columns (names only: nothing is computed)."""
    if not (hasattr(X, "columns") and hasattr(X, "dtypes")):
        raise InvalidParameterError("X", "must be a Dask DataFrame (the generator works on named "
                                         "columns)")
    cols = list(X.columns)
    missing = [c for c in schema.columns if c not in cols]
    extra = [c for c in cols if c not in schema.bounds and c not in schema.categories]
    if missing or extra:
        raise InvalidShapeError("X", f"columns must match the schema: missing {missing}, not in "
                                     f"schema {extra}")
    schema.check_numeric_dtypes(X)
    return cols


def _apply_block(xp, yp, codes, fn, args):
    # one task per partition: the codes never outlive the block function (bounded memory)
    return fn(codes(xp, yp), *args)


_LABEL = "__matrixdp_label__"


def aligned_partitions(X, y) -> tuple[list, list]:
    """Delayed partitions of the Dask DataFrame ``X`` and the matching parts of the labels ``y``
    (a Dask Series, a one-column Dask frame, or None: ``[None, ...]``).

    A label column of the same frame (``frame[features]``, ``frame["y"]``) is paired row by row
    through one frame (Dask may otherwise partition the two projections of a Parquet source
    differently); labels from another source are paired by index when Dask can align them, else
    partition by partition, which then must match."""
    if y is None:
        xparts = X.to_delayed()
        return xparts, [None] * len(xparts)
    if not is_dask_collection(y):
        raise InvalidParameterError("y", "must be a Dask Series partitioned like X when X is a "
                                         "Dask collection")
    if getattr(y, "ndim", 1) == 2:  # a one-column frame
        if len(y.columns) != 1:
            raise InvalidShapeError("y", f"must be one column, got {len(y.columns)}")
        y = y[y.columns[0]]
    if hasattr(y, "to_frame"):  # a Dask Series: one frame with the features
        try:
            both = X.assign(**{_LABEL: y})
        except (ValueError, TypeError, NotImplementedError):
            both = None
        if both is not None:
            cols = list(X.columns)
            parts = both.to_delayed()
            return [p[cols] for p in parts], [p[_LABEL] for p in parts]
    xparts, yparts = X.to_delayed(), y.to_delayed()
    if len(yparts) != len(xparts):
        raise InvalidShapeError("y", "must be partitioned like X (same number of partitions)")
    return xparts, list(np.ravel(yparts))


def refuse_empty(n_records, relation: str) -> None:
    """Treat an empty Dask table as the in-memory fit does
    (:meth:`~matrixdp.synth.TableSchema.check_columns`,
    :func:`~matrixdp._validation.min_records`), from the exact total of a pass that ran before
    the charge: under replace-one it is refused (a refused table costs nothing); under add-remove
    (the copulas' relation) it is released like any other table, noise only, since 0 and 1 row
    are neighbours there. The message names no count."""
    check_n_records(int(round(float(n_records))), relation, "X", "has no rows")


def dask_block_reducer(X, y, codes):
    """``reduce(fn, *args)``: ``fn(codes(x_part, y_part), *args)`` on every partition of the Dask
    DataFrame ``X`` (and of the labels ``y``, see :func:`aligned_partitions`), summed in a tree
    on the workers. The records are read again by every call and never collected; only the sums
    (of a size fixed by the public schema) reach the driver."""
    import dask
    from dask import delayed

    from .._record_sums import tree_sum

    xparts, yparts = aligned_partitions(X, y)
    if not xparts:
        raise InvalidShapeError("X", "has no partitions")
    task = delayed(_apply_block, pure=True)

    def reduce(fn, *args):
        parts = [task(xp, yp, codes, fn, args) for xp, yp in zip(xparts, yparts)]
        (total,) = dask.compute(tree_sum(parts))
        return total

    return reduce


def _sampled_chunk(model, size, seed, label_column):
    """Sample ``size`` records from a fitted generator with a child seed (one chunk of
    ``sample_to_parquet``); labels, if any, become the column ``label_column``. No budget."""
    out = model.sample(int(size), random_state=np.random.default_rng(seed))
    if isinstance(out, tuple):
        frame, labels = out
        frame[label_column] = labels
        return frame
    return out


def _write_chunk(model, size, seed, label_column, file):
    frame = _sampled_chunk(model, size, seed, label_column)
    frame.to_parquet(file, index=False)
    return file


def write_sampled_frames(model, path, n_samples, *, chunk_rows, label_column="y",
                         random_state=None) -> list:
    """Write ``model.sample`` output in chunks of at most ``chunk_rows`` records, one Parquet file
    per chunk (``part.<i>.parquet`` under ``path``), each chunk sampled and written by one Dask
    task so that at most one chunk per worker thread is in memory. Each chunk samples from a
    child of one :class:`numpy.random.SeedSequence`, so the output depends on ``random_state``,
    ``n_samples`` and ``chunk_rows`` only. Used by :meth:`~matrixdp.synth.DPCopula.sample_to_parquet`
    and :meth:`~matrixdp.synth.DPTreeCopula.sample_to_parquet`. Returns the written files in
    order."""
    from numbers import Integral
    from pathlib import Path

    import dask
    from dask import delayed

    from ..mechanisms.draw import public_randomness

    if isinstance(n_samples, bool) or not isinstance(n_samples, Integral) or n_samples < 1:
        raise InvalidParameterError("n_samples", f"must be an integer >= 1, got {n_samples!r}")
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, Integral) or chunk_rows < 1:
        raise InvalidParameterError("chunk_rows", f"must be an integer >= 1, got {chunk_rows!r}")
    if not isinstance(label_column, str) or label_column in getattr(model, "columns_", ()):
        raise InvalidParameterError("label_column", "must be a string that is not a column name")
    if isinstance(random_state, np.random.Generator):  # a public seed for the chunks' streams
        random_state = int(public_randomness(random_state).integers_below(2 ** 62))
    elif random_state is not None and (isinstance(random_state, bool)
                                       or not isinstance(random_state, Integral)):
        raise InvalidParameterError("random_state", "must be None, an int or a numpy Generator")
    n_samples, chunk_rows = int(n_samples), int(chunk_rows)
    parts = -(-n_samples // chunk_rows)
    sizes = np.full(parts, n_samples // parts, dtype=np.int64)
    sizes[: n_samples % parts] += 1
    seeds = np.random.SeedSequence(random_state).spawn(parts)
    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    _remove_parts(out)
    width = len(str(parts - 1))
    files = [str(out / f"part.{i:0{width}d}.parquet") for i in range(parts)]
    task = delayed(_write_chunk, pure=False)
    (written,) = dask.compute([task(model, int(k), s, label_column, f)
                               for k, s, f in zip(sizes, seeds, files)])
    return list(written)
