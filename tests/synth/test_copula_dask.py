"""DPCopula on Dask: an out-of-core fit in two passes that releases what the in-memory fit
releases (same seed), and chunked Parquet sampling with bounded memory."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from matrixdp.accounting import Accountant
from matrixdp.errors import InvalidParameterError, InvalidShapeError
from matrixdp.synth.copula import DPCopula
from matrixdp.synth.schema import TableSchema

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("pyarrow")

SCHEMA = TableSchema(bounds={"age": (18, 90), "income": (0.0, 200.0), "score": (-3.0, 3.0)},
                     categories={"colour": ["red", "green", "blue"], "size": ["S", "M", "L", "XL"]},
                     integer=("age",))


def _table(n=5_003, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(rng.uniform(size=n) < 0.3, "yes", "no")
    pos = y == "yes"
    age = np.clip(np.round(30 + 15 * pos + 10 * rng.standard_normal(n)), 18, 90).astype(int)
    income = np.clip(50 + 40 * pos + 0.8 * (age - 30) + 20 * rng.standard_normal(n), 0, 250)
    score = rng.standard_normal(n) + 0.5 * pos
    colour = np.where(rng.uniform(size=n) < 0.5 + 0.3 * pos, "red",
                      np.where(rng.uniform(size=n) < 0.5, "green", "blue"))
    size = np.array(["S", "M", "L", "XL"])[np.minimum((income / 50).astype(int), 3)]
    return pd.DataFrame({"age": age, "income": income, "score": score, "colour": colour,
                         "size": size}), y


@pytest.fixture
def never_collected(refuse_collecting):
    refuse_collecting("frame", "series")


def _same_release(got, ref):
    assert got.privacy_ == ref.privacy_
    assert got.columns_ == ref.columns_
    for c in ref.columns_:
        # exact integer counts plus the same noise: equal up to the float sum order
        np.testing.assert_allclose(got.marginal_counts_[c], ref.marginal_counts_[c], rtol=0,
                                   atol=1e-9)
        np.testing.assert_allclose(got.marginals_[c], ref.marginals_[c], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.class_counts_, ref.class_counts_, rtol=1e-12)
    np.testing.assert_allclose(got.correlation_raw_, ref.correlation_raw_, rtol=1e-9, atol=1e-8)
    np.testing.assert_allclose(got.correlation_, ref.correlation_, rtol=0, atol=1e-10)
    for c in ref.orders_:
        np.testing.assert_array_equal(got.orders_[c], ref.orders_[c])


@pytest.mark.parametrize("labelled", [True, False], ids=["classes", "unlabelled"])
def test_seeded_dask_fit_equals_the_in_memory_fit(labelled, never_collected):
    X, y = _table()
    kw = dict(schema=SCHEMA, epsilon=1.0, random_state=11)
    if labelled:
        kw["classes"] = ["no", "yes"]
    ref = DPCopula(**kw).fit(X, y if labelled else None)
    table = X.assign(t=y)
    ddf = dd.from_pandas(table, npartitions=7)
    got = DPCopula(**kw).fit(ddf[list(X.columns)], ddf["t"] if labelled else None)
    _same_release(got, ref)
    np.testing.assert_array_equal(got.classes_, ref.classes_)
    out_ref, out_got = ref.sample(300, random_state=4), got.sample(300, random_state=4)
    if labelled:
        pd.testing.assert_frame_equal(out_got[0], out_ref[0])
        np.testing.assert_array_equal(out_got[1], out_ref[1])
    else:
        pd.testing.assert_frame_equal(out_got, out_ref)
    # another seed is another release (so the comparison above can fail)
    other = DPCopula(**{**kw, "random_state": 12}).fit(X, y if labelled else None)
    assert not np.allclose(other.correlation_raw_, ref.correlation_raw_, rtol=1e-3)
    assert not np.allclose(other.marginal_counts_["age"], ref.marginal_counts_["age"], rtol=1e-3)


def test_columns_in_another_order_and_a_separately_partitioned_label():
    X, y = _table(n=2_000, seed=1)
    order = ["colour", "income", "size", "age", "score"]
    kw = dict(schema=SCHEMA, epsilon=2.0, classes=["no", "yes"], random_state=3)
    ref = DPCopula(**kw).fit(X[order], y)
    got = DPCopula(**kw).fit(dd.from_pandas(X[order], npartitions=3),
                             dd.from_pandas(pd.Series(y), npartitions=3))
    _same_release(got, ref)
    assert got.columns_ == order


def test_driver_receives_only_reduced_statistics(never_collected, computed_shapes):
    """Two passes; each returns a sum of a size fixed by the public schema and class list:
    (classes, sum of the cardinalities) counts, then (classes, k(k-1)/2) score moments. No row
    count is ever computed."""
    computed = computed_shapes
    X, y = _table(n=3_000)
    ddf = dd.from_pandas(X.assign(t=y), npartitions=5)
    DPCopula(schema=SCHEMA, epsilon=1.0, classes=["no", "yes"], n_bins=16, random_state=0).fit(
        ddf[list(X.columns)], ddf["t"])
    assert computed == [(2, 16 * 3 + 3 + 4), (2, 10)]


def test_budget_is_charged_once_and_refused_tables_cost_nothing():
    X, y = _table(n=1_200)
    y = y.astype(object)
    y[17] = "secret-label"
    ddf = dd.from_pandas(X.assign(t=y), npartitions=4)
    accountant = Accountant(epsilon=3.0, delta=1e-6)
    kw = dict(schema=SCHEMA, epsilon=1.0, classes=["no", "yes"])
    with pytest.raises(InvalidParameterError) as info:
        DPCopula(**kw).fit(ddf[list(X.columns)], ddf["t"], accountant=accountant)
    assert "secret" not in str(info.value) and "public class list" in str(info.value)
    assert accountant.spends == ()  # pass 1 refused the labels before the charge
    bad = X.copy()
    bad.loc[5, "colour"] = "secret-colour"
    with pytest.raises(InvalidParameterError) as info:
        DPCopula(**kw).fit(dd.from_pandas(bad, npartitions=4), dd.from_pandas(
            pd.Series(np.where(y == "secret-label", "no", y)), npartitions=4),
            accountant=accountant)
    assert "secret" not in str(info.value) and accountant.spends == ()
    ok = np.where(y == "secret-label", "no", y)
    ddf = dd.from_pandas(X.assign(t=ok), npartitions=4)
    DPCopula(**kw).fit(ddf[list(X.columns)], ddf["t"], accountant=accountant)
    assert len(accountant.spends) == 1


def test_dask_input_errors():
    X, y = _table(n=500)
    ddf = dd.from_pandas(X.assign(t=y), npartitions=2)
    kw = dict(schema=SCHEMA, epsilon=1.0, classes=["no", "yes"])
    with pytest.raises(InvalidShapeError, match="columns must match the schema"):
        DPCopula(**kw).fit(ddf, ddf["t"])  # the label column is not in the schema
    with pytest.raises(InvalidParameterError, match="is required"):
        DPCopula(**kw).fit(ddf[list(X.columns)])
    with pytest.raises(InvalidParameterError, match="Dask Series"):
        DPCopula(**kw).fit(ddf[list(X.columns)], y)
    da = pytest.importorskip("dask.array")
    with pytest.raises(InvalidShapeError, match="partitioned like X"):
        DPCopula(**kw).fit(ddf[list(X.columns)], da.from_array(y, chunks=100))
    with pytest.raises(InvalidShapeError, match="one column"):
        DPCopula(**kw).fit(ddf[list(X.columns)], ddf[["t", "age"]])


def test_labels_are_paired_with_their_records_by_index():
    """A Dask Series of labels from another source, partitioned differently (even with unknown
    divisions), is paired by index, as Dask aligns it; a one-column frame works too."""
    X, y = _table(n=1_500, seed=2)
    kw = dict(schema=SCHEMA, epsilon=1.0, classes=["no", "yes"], random_state=9)
    ref = DPCopula(**kw).fit(X, y)
    Xd = dd.from_pandas(X, npartitions=2)
    for labels in (dd.from_pandas(pd.Series(y), npartitions=3),
                   dd.from_pandas(pd.Series(y), npartitions=5).clear_divisions(),
                   dd.from_pandas(pd.DataFrame({"t": y}), npartitions=2)):
        got = DPCopula(**kw).fit(Xd.clear_divisions() if labels.known_divisions is False
                                 else Xd, labels)
        _same_release(got, ref)


def test_a_parquet_source_with_the_label_column(tmp_path):
    """``frame[features]`` and ``frame["y"]`` of one Parquet source: Dask partitions the two
    projections differently (it fuses small projected reads); they are read as one frame."""
    X, y = _table(n=6_000, seed=3)
    for i in range(4):
        X.iloc[i * 1500:(i + 1) * 1500].assign(t=y[i * 1500:(i + 1) * 1500]).to_parquet(
            tmp_path / f"part.{i}.parquet", index=False)
    frame = dd.read_parquet(str(tmp_path))
    kw = dict(schema=SCHEMA, epsilon=1.0, classes=["no", "yes"], random_state=2)
    got = DPCopula(**kw).fit(frame[list(X.columns)], frame["t"])
    _same_release(got, DPCopula(**kw).fit(X, y))


def test_an_empty_partition_contributes_nothing():
    X, y = _table(n=900)
    kw = dict(schema=SCHEMA, epsilon=1.0, classes=["no", "yes"], random_state=5)
    ref = DPCopula(**kw).fit(X, y)
    ddf = dd.from_pandas(X.assign(t=y), npartitions=3)
    # from_pandas splits 900 rows into 3 x 300: the first partition is emptied
    ddf = ddf.map_partitions(lambda p: p.iloc[:0] if len(p) and p.index[0] == 0 else p,
                             meta=ddf._meta)
    got = DPCopula(**kw).fit(ddf[list(X.columns)], ddf["t"])
    _same_release(got, DPCopula(**kw).fit(X.iloc[300:], y[300:]))
    assert not np.allclose(got.marginal_counts_["age"], ref.marginal_counts_["age"])


def test_sample_to_parquet_chunks_seeds_and_values(tmp_path):
    X, y = _table()
    model = DPCopula(schema=SCHEMA, epsilon=2.0, classes=["no", "yes"], random_state=1).fit(X, y)
    files = model.sample_to_parquet(tmp_path / "a", 25_001, chunk_rows=10_000, random_state=7)
    assert [f.rsplit("/", 1)[1] for f in files] == ["part.0.parquet", "part.1.parquet",
                                                      "part.2.parquet"]
    table = pd.read_parquet(tmp_path / "a")
    assert len(table) == 25_001 and list(table.columns) == list(X.columns) + ["y"]
    assert [len(pd.read_parquet(f)) for f in files] == [8_334, 8_334, 8_333]
    assert table["age"].dtype.kind == "i" and table["age"].between(18, 90).all()
    assert table["income"].between(0, 200).all() and table["score"].between(-3, 3).all()
    assert set(table["colour"].astype(str)) <= {"red", "green", "blue"}
    assert set(table["y"]) <= {"no", "yes"}
    # each chunk is model.sample(chunk) from its own child seed: the class share per chunk is
    # the DP prior (largest remainder), the chunks are different draws
    share = (table["y"] == "yes").mean()
    assert share == pytest.approx(model.class_priors_[1], abs=1e-3)
    assert not np.allclose(pd.read_parquet(files[0])["income"].to_numpy()[:100],
                           pd.read_parquet(files[1])["income"].to_numpy()[:100])
    # the synthetic marginal follows the model (std error of a share at n = 25k: ~0.3%)
    model_red = float(model.marginals_["colour"][:, 0] @ model.class_priors_)
    assert (table["colour"] == "red").mean() == pytest.approx(model_red, abs=0.015)
    # replayable with the seed; another call without one differs; rewriting replaces the files
    again = model.sample_to_parquet(tmp_path / "a", 25_001, chunk_rows=10_000, random_state=7)
    assert again == files
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "a"), table)
    model.sample_to_parquet(tmp_path / "b", 25_001, chunk_rows=10_000)
    assert not np.allclose(pd.read_parquet(tmp_path / "b")["income"], table["income"])
    # unlabelled: no label column
    plain = DPCopula(schema=SCHEMA, epsilon=2.0, random_state=1).fit(X)
    plain.sample_to_parquet(tmp_path / "c", 1_000, chunk_rows=400, random_state=0)
    assert list(pd.read_parquet(tmp_path / "c").columns) == list(X.columns)


def test_sample_to_parquet_validates_its_arguments(tmp_path):
    X, y = _table(n=400)
    model = DPCopula(schema=SCHEMA, epsilon=1.0, classes=["no", "yes"], random_state=0).fit(X, y)
    for kw, name in ((dict(n_samples=0), "n_samples"), (dict(n_samples=10, chunk_rows=0), "chunk_rows"),
                     (dict(n_samples=10, label_column="age"), "label_column"),
                     (dict(n_samples=10, random_state="x"), "random_state")):
        with pytest.raises(InvalidParameterError, match=name):
            model.sample_to_parquet(tmp_path / "x", **kw)
    with pytest.raises(Exception, match="not fitted"):
        DPCopula(schema=SCHEMA, epsilon=1.0).sample_to_parquet(tmp_path / "y", 10)
    # a Generator seeds the chunks (replayable from the same generator state)
    model.sample_to_parquet(tmp_path / "g1", 500, chunk_rows=200,
                            random_state=np.random.default_rng(3))
    model.sample_to_parquet(tmp_path / "g2", 500, chunk_rows=200,
                            random_state=np.random.default_rng(3))
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "g1"), pd.read_parquet(tmp_path / "g2"))


def test_fit_and_parquet_on_a_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    X, y = _table(n=4_000)
    kw = dict(schema=SCHEMA, epsilon=1.0, classes=["no", "yes"], random_state=6)
    ref = DPCopula(**kw).fit(X, y)
    ddf = dd.from_pandas(X.assign(t=y), npartitions=4)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster):
        got = DPCopula(**kw).fit(ddf[list(X.columns)], ddf["t"])
        files = got.sample_to_parquet(tmp_path / "syn", 3_000, chunk_rows=1_000, random_state=0,
                                      label_column="t")
    _same_release(got, ref)
    assert len(files) == 3
    synthetic = pd.read_parquet(tmp_path / "syn")
    assert list(synthetic.columns) == list(X.columns) + ["t"] and len(synthetic) == 3_000
    assert set(synthetic["t"]) <= {"no", "yes"}


def test_tree_copula_reads_a_parquet_source_with_the_label_column(tmp_path):
    """The same pairing for DPTreeCopula's Dask fit (its seeded Dask fit equals the in-memory
    one: tests/synth/test_tree_copula.py)."""
    from matrixdp.synth.tree_copula import DPTreeCopula

    X, y = _table(n=6_000, seed=4)
    for i in range(4):
        X.iloc[i * 1500:(i + 1) * 1500].assign(t=y[i * 1500:(i + 1) * 1500]).to_parquet(
            tmp_path / f"part.{i}.parquet", index=False)
    frame = dd.read_parquet(str(tmp_path))
    kw = dict(schema=SCHEMA, epsilon=1.0, classes=["no", "yes"], random_state=2)
    got = DPTreeCopula(**kw).fit(frame[list(X.columns)], frame["t"])
    ref = DPTreeCopula(**kw).fit(X, y)
    assert got.tree_ == ref.tree_
    np.testing.assert_allclose(got.class_counts_, ref.class_counts_, rtol=1e-12)
    np.testing.assert_allclose(got.correlation_raw_, ref.correlation_raw_, rtol=1e-9, atol=1e-8)
    np.testing.assert_allclose(got.scores_raw_, ref.scores_raw_, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("generator", ["DPCopula", "DPTreeCopula"])
@pytest.mark.parametrize("partitions", [None, 1, 3])
def test_an_empty_table_is_released_alike_in_memory_and_on_dask_charged_as_one_record(generator,
                                                                                     partitions):
    # the copulas' relation is add-remove, where 0 and 1 record are neighbours: the empty table
    # is released (noise only) and charged as one record is, in memory and on Dask alike. Before
    # task EA (session 22) both paths refused it ("has no rows"), which told the pair apart.
    from matrixdp.synth import DPTreeCopula
    from matrixdp._validation import check_n_records
    from matrixdp.synth._dask import refuse_empty

    cls = DPCopula if generator == "DPCopula" else DPTreeCopula

    def args_of(n):
        X, y = _table(n=40)
        X, y = X.iloc[:n], y[:n]
        if partitions is None:
            return X, y
        ddf = dd.from_pandas(X.assign(t=y), npartitions=partitions if n else 1)
        return ddf[list(X.columns)], ddf["t"]

    spends = []
    for n in (0, 1):
        accountant = Accountant(epsilon=3.0, delta=1e-6, relation="add-remove")
        model = cls(schema=SCHEMA, epsilon=1.0, classes=["no", "yes"], random_state=n)
        model.fit(*args_of(n), accountant=accountant)
        assert len(accountant.spends) == 1
        spends.append(accountant.spends[0][1])
        corr = np.asarray(model.correlation_, dtype=np.float64)
        assert np.all(np.isfinite(corr)) and np.all(np.isfinite(model.class_priors_))
        sample = model.sample(30, random_state=0)
        sample = sample[0] if isinstance(sample, tuple) else sample
        assert sample["age"].between(18, 90).all() and len(sample) == 30
    assert spends[0].epsilon == pytest.approx(spends[1].epsilon, rel=1e-12)
    assert spends[0].delta == spends[1].delta
    # the seam still refuses an empty table under replace-one (a public row count)
    with pytest.raises(InvalidShapeError, match="has no rows"):
        refuse_empty(0.0, "replace-one")
    refuse_empty(0.0, "add-remove")
    assert check_n_records(0, "add-remove") == 0
