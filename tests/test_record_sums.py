"""Sums over records for numpy, pandas and Dask inputs (src/matrixdp/_record_sums.py)."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp._record_sums import as_record_matrix, bounded_record_sums, is_dask_collection
from matrixdp.errors import InvalidParameterError, OutOfBoundsError

da = pytest.importorskip("dask.array")


def _data(n=5_003, d=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(scale=[1.0, 3.0, 0.5, 10.0][:d], size=(n, d))


def _reference(X, lo, hi):
    Xc = np.clip(X, lo, hi)
    return Xc.shape[0], Xc.sum(axis=0), Xc.T @ Xc


@pytest.mark.parametrize("chunk_rows", [1, 997, 100_000])
def test_numpy_chunks_match_one_pass(chunk_rows):
    X = _data(n=2_000)
    lo, hi = np.array([-1, -2, -1, -5.0]), np.array([1, 2, 1, 5.0])
    got = bounded_record_sums(X, lo, hi, chunk_rows=chunk_rows)
    n, s, g = _reference(X, lo, hi)
    assert got.n == n
    np.testing.assert_allclose(got.sum, s, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(got.gram, g, rtol=1e-12, atol=1e-9)


def test_dask_array_matches_numpy_up_to_summation_order():
    X = _data()
    lo, hi = -2.0, 2.0
    ref = bounded_record_sums(X, lo, hi)
    got = bounded_record_sums(da.from_array(X, chunks=(400, 2)), lo, hi)
    assert got.n == ref.n
    np.testing.assert_allclose(got.sum, ref.sum, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(got.gram, ref.gram, rtol=1e-12, atol=1e-9)


def test_dask_dataframe_and_float32_blocks():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X = _data().astype(np.float32)
    frame = dd.from_pandas(pd.DataFrame(X, columns=list("abcd")), npartitions=7)
    assert is_dask_collection(frame)
    got = bounded_record_sums(frame, -3.0, 3.0)
    n, s, g = _reference(X.astype(np.float64), -3.0, 3.0)
    assert got.n == n
    np.testing.assert_allclose(got.gram, g, rtol=1e-10)


def test_out_of_bounds_raises_without_revealing_data():
    X = _data()
    X[17, 2] = 987654.321
    with pytest.raises(OutOfBoundsError) as info:
        bounded_record_sums(X, -1e3, 1e3, clip=False)
    assert "987654" not in str(info.value)
    assert "clip=True" in str(info.value)
    with pytest.raises(OutOfBoundsError):
        bounded_record_sums(da.from_array(X, chunks=(1000, 4)), -1e3, 1e3, clip=False)
    clipped = bounded_record_sums(X, -1e3, 1e3, clip=True)
    assert clipped.sum[2] <= np.clip(X[:, 2], -1e3, 1e3).sum() + 1e-6


def test_non_finite_records_raise():
    X = _data()
    X[3, 0] = np.nan
    with pytest.raises(OutOfBoundsError, match="finite"):
        bounded_record_sums(X, -1, 1)


def test_bad_arguments_name_themselves():
    with pytest.raises(InvalidParameterError, match="bounds"):
        bounded_record_sums(_data(), 1.0, -1.0)
    with pytest.raises(InvalidParameterError, match="chunk_rows"):
        bounded_record_sums(_data(), -1, 1, chunk_rows=0)
    with pytest.raises(InvalidParameterError, match="X"):
        as_record_matrix(np.zeros((2, 2, 2)))


def test_local_cluster_with_processes():
    distributed = pytest.importorskip("distributed")
    X = _data(n=20_000)
    ref = bounded_record_sums(X, -2.0, 2.0)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        got = bounded_record_sums(da.from_array(X, chunks=(3_000, 4)), -2.0, 2.0)
    np.testing.assert_allclose(got.gram, ref.gram, rtol=1e-12, atol=1e-9)
    assert got.n == ref.n


def test_center_is_subtracted_after_clipping():
    X = _data()
    lo, hi = np.array([-1, -2, -1, -5.0]), np.array([1, 2, 1, 5.0])
    c = 0.5 * (lo + hi) + np.array([0.25, -0.5, 0.0, 1.0])
    got = bounded_record_sums(X, lo, hi, center=c, chunk_rows=777)
    Z = np.clip(X, lo, hi) - c
    np.testing.assert_allclose(got.sum, Z.sum(0), rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(got.gram, Z.T @ Z, rtol=1e-12, atol=1e-9)
    dsk = bounded_record_sums(da.from_array(X, chunks=(999, 4)), lo, hi, center=c)
    np.testing.assert_allclose(dsk.gram, Z.T @ Z, rtol=1e-12, atol=1e-9)


def test_column_stack_sums_equal_the_concatenated_table():
    from matrixdp._record_sums import ColumnStack

    rng = np.random.default_rng(4)
    X = rng.uniform(-2, 2, size=(10_000, 3))
    y = rng.uniform(-3, 3, size=10_000)
    lo, hi = np.array([-1, -1, -1, -2.0]), np.array([1, 1, 1, 2.0])
    center = np.array([0.1, 0, -0.1, 0.5])
    full = bounded_record_sums(np.column_stack([X, y]), lo, hi, center=center, chunk_rows=999)
    lazy = bounded_record_sums(ColumnStack(X, y), lo, hi, center=center, chunk_rows=999)
    assert lazy.n == full.n == 10_000
    np.testing.assert_allclose(lazy.sum, full.sum, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(lazy.gram, full.gram, rtol=1e-12, atol=1e-9)
    # the inputs are untouched (clipping happens on chunk copies)
    assert np.abs(X).max() > 1.5 and np.abs(y).max() > 2.5
    with pytest.raises(OutOfBoundsError):
        bounded_record_sums(ColumnStack(X, y), lo, hi, clip=False)


def test_in_memory_chunks_bounded_by_an_eighth_of_the_rows():
    import matrixdp._record_sums as rs

    seen = []
    original = rs._block_sums

    def spy(block, **kw):
        seen.append(block.shape[0])
        return original(block, **kw)

    X = np.random.default_rng(1).uniform(-1, 1, size=(80_000, 2))
    rs._block_sums = spy
    try:
        out = bounded_record_sums(X, -1, 1)
    finally:
        rs._block_sums = original
    assert max(seen) == 10_000 and sum(seen) == 80_000
    np.testing.assert_allclose(out.gram, X.T @ X, rtol=1e-10)
