"""RON-Gauss on Dask collections: a two-pass, blockwise fit and partitioned synthetic output.

The fit never collects the records. Algorithm 1 needs the DP mean of the normalised records
*before* it can centre them, so a fit on a Dask collection reads the data twice:

1. per block: normalise every record to unit norm and sum (count, sum) -> tree reduction ->
   the DP mean is released on the driver (the same Laplace mechanism as in memory);
2. per block: normalise, subtract the released DP mean, re-normalise, project with the public
   ``W`` (and append the checked, centred label) and sum the second moments -> tree reduction ->
   the DP second moment is released on the driver.

Only ``m + 1`` and ``(p + 1)²`` numbers reach the driver. The released values equal the
in-memory ones for the same ``random_state`` up to floating-point summation order.
See ``docs/scaling.md``.
"""

from __future__ import annotations

import numpy as np

from .._record_sums import tree_sum, as_record_matrix, dask_target_records, is_dask_collection
from ..errors import InvalidParameterError, InvalidShapeError, OutOfBoundsError
from .covariance import aug_cov_sensitivity, cov_sensitivity, make_symmetric_psd, noisy_second_moment
from .group import GroupFit
from .preprocessing import centred_projection, dp_mean_from_sum, unit_row_pass

__all__ = ["is_dask_collection", "dask_feature_matrix", "fit_group_replace_one_dask",
           "write_parquet_samples"]

_LABELS_OUTSIDE = ("has labels outside the public label bound; clip them first or pass "
                   "clip_labels=True (CLI: --clip-labels), or widen the bound from domain "
                   "knowledge (it must never be read from the data)")


def dask_feature_matrix(X, y=None):
    """Lazy records of a Dask ``X`` (with the label as a last column when ``y`` is given) and the
    column names of a Dask DataFrame (None for arrays)."""
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
    return mat, names


def _finite(block):
    arr = np.asarray(block, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise InvalidParameterError("X", "contains NaN or infinite values: clean or impute them "
                                         "before a private release")
    return arr


def _first_pass(block, m, W):
    """``[count, Σ normalize(x)]`` of one block (the in-memory fit's blocked pass)."""
    arr = np.ascontiguousarray(_finite(block)[:, :m])
    out = np.empty(m + 1)
    out[0] = arr.shape[0]
    out[1:] = unit_row_pass(arr, W[:, :0])[1]
    return out


def _second_pass(block, m, mu_dp, W, shift, bound, clip_labels):
    """``Σ u uᵀ`` of one block, ``u = (normalize(normalize(x) - μ) W, y - shift)``."""
    arr = _finite(block)
    X = np.ascontiguousarray(arr[:, :m])
    r, _, Y = unit_row_pass(X, W)
    Xt = centred_projection(X, W, r, Y, mu_dp)
    if bound is not None:
        labels = arr[:, m] - shift
        if np.any(np.abs(labels) > bound):
            if not clip_labels:
                raise OutOfBoundsError("y", _LABELS_OUTSIDE)
            labels = np.clip(labels, -bound, bound)
        Xt = np.hstack([Xt, labels[:, None]])
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


def fit_group_replace_one_dask(mat, m, W, *, label_shift=0.0, label_bound=None, clip_labels=False,
                               epsilon_mean, epsilon_cov, mode="corrected", noise="full",
                               psd="clip", rng, numerics="float") -> GroupFit:
    """:func:`~matrixdp.synth.group.fit_group_replace_one` on a lazy Dask matrix, in two passes.

    ``mat`` holds the ``m`` features (and the raw label as column ``m`` when ``label_bound`` is
    given). ``rng`` is used exactly as in memory (the mean's noise, then the second moment's).
    """
    first = _blockwise_total(mat, _first_pass, m, W)
    n = int(round(first[0]))
    if n < 1:
        raise InvalidShapeError("X", "has no samples")
    mu_dp, mean_mech = dp_mean_from_sum(first[1:], n, epsilon_mean, rng, mode=mode,
                                        numerics=numerics)
    p = W.shape[1]
    second = _blockwise_total(mat, _second_pass, m, mu_dp, W, float(label_shift), label_bound,
                              bool(clip_labels))
    sens = (cov_sensitivity(p, n, mode, noise) if label_bound is None
            else aug_cov_sensitivity(p, label_bound, n, mode, noise))
    raw, cov_mech = noisy_second_moment(second / n, epsilon=epsilon_cov, sensitivity=sens,
                                        noise=noise, rng=rng, numerics=numerics)
    return GroupFit(mu_dp, raw, make_symmetric_psd(raw, psd), mean_mech.scale, cov_mech.scale,
                    mean_mech.sensitivity, sens, float(n))


def _sample_partition(model, size, seed, columns, label_column, add_mean):
    import pandas as pd

    out = model.sample(int(size), rng=np.random.default_rng(seed), add_mean=add_mean)
    if isinstance(out, tuple):
        X_syn, y_syn = out
        frame = pd.DataFrame(X_syn, columns=columns)
        frame[label_column] = y_syn
        return frame
    return pd.DataFrame(out, columns=columns)


def write_parquet_samples(model, path, n_samples: int, *, partitions: int, random_state=None,
                          add_mean=False, columns=None, label_column="y"):
    """Write ``n_samples`` synthetic records as ``partitions`` Parquet files (see
    :meth:`~matrixdp.synth.RONGauss.sample_to_parquet`). Returns the list of written files."""
    from pathlib import Path

    import dask.dataframe as dd
    from dask import delayed

    sizes = np.full(partitions, n_samples // partitions, dtype=np.int64)
    sizes[: n_samples % partitions] += 1
    # one SeedSequence (from random_state, or OS entropy when None) spawns a child per partition;
    # nothing is kept on the model
    seeds = np.random.SeedSequence(random_state).spawn(partitions)
    meta = _sample_partition(model, 1, 0, columns, label_column, add_mean).iloc[:0]
    task = delayed(_sample_partition, pure=False)
    parts = [task(model, int(k), s, columns, label_column, add_mean) for k, s in zip(sizes, seeds)]
    frame = dd.from_delayed(parts, meta=meta, verify_meta=False)
    frame.to_parquet(str(path), write_index=False, compute=True)
    return sorted(str(f) for f in Path(path).glob("*.parquet"))
