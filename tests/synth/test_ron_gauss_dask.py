"""RON-Gauss on Dask input (blockwise fit in passes, every task and relation) and partitioned
Parquet sampling."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from matrixdp.accounting import Accountant
from matrixdp.errors import InvalidParameterError, InvalidShapeError, OutOfBoundsError
from matrixdp.synth import RONGauss

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")


def _data(n=4_003, m=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m)) @ rng.normal(size=(m, m)) + 2.0
    y = X[:, 0] - 0.5 * X[:, 1] + rng.normal(scale=0.1, size=n)
    return X, np.clip(y, -10, 10)


@pytest.fixture
def never_collected(refuse_collecting):
    refuse_collecting("array", "frame", "series")


def test_unsupervised_same_seed_same_release(never_collected):
    X, _ = _data()
    ref = RONGauss(dim=3, epsilon=2.0, random_state=4).fit(X)
    got = RONGauss(dim=3, epsilon=2.0, random_state=4).fit(da.from_array(X, chunks=(700, 6)))
    np.testing.assert_array_equal(got.projection_, ref.projection_)
    np.testing.assert_allclose(got.mean_, ref.mean_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.covariance_raw_, ref.covariance_raw_, rtol=1e-9, atol=1e-11)
    assert got.privacy_ == ref.privacy_
    assert got.mean_scale_ == ref.mean_scale_ and got.cov_scale_ == ref.cov_scale_
    other = RONGauss(dim=3, epsilon=2.0, random_state=5).fit(X)
    assert not np.allclose(other.covariance_raw_, ref.covariance_raw_, rtol=1e-6)


def test_regression_on_a_dask_frame(never_collected):
    X, y = _data()
    cols = [f"f{i}" for i in range(6)]
    frame = dd.from_pandas(pd.DataFrame(np.column_stack([X, y]), columns=cols + ["t"]),
                           npartitions=5)
    kw = dict(dim=2, epsilon=2.0, task="regression", label_bound=(-10, 10), random_state=8)
    ref = RONGauss(**kw).fit(X, y)
    got = RONGauss(**kw).fit(frame[cols], frame["t"])
    np.testing.assert_allclose(got.covariance_raw_, ref.covariance_raw_, rtol=1e-9, atol=1e-11)
    assert list(got.feature_names_in_) == cols
    assert got.privacy_ == ref.privacy_
    with pytest.raises(OutOfBoundsError) as info:
        RONGauss(**{**kw, "label_bound": (-1, 1)}).fit(frame[cols], frame["t"])
    assert "clip_labels" in str(info.value)
    clipped = RONGauss(**{**kw, "label_bound": (-1, 1)}, clip_labels=True).fit(frame[cols],
                                                                               frame["t"])
    ref_clipped = RONGauss(**{**kw, "label_bound": (-1, 1)}, clip_labels=True).fit(X, y)
    np.testing.assert_allclose(clipped.covariance_raw_, ref_clipped.covariance_raw_, rtol=1e-9,
                               atol=1e-11)


def _classes(X):
    """Three classes of unequal size (public list ["a", "b", "c"])."""
    return np.where(X[:, 0] > 3.0, "a", np.where(X[:, 1] > 1.0, "b", "c"))


#: every (task, relation, class sizes, label mean) setting the Dask fit gained, with its kwargs
NEW_SETTINGS = {
    "classification, replace-one, private sizes": dict(task="classification"),
    "classification, replace-one, public sizes": dict(task="classification",
                                                      class_sizes="public"),
    "classification, add-remove": dict(task="classification", neighbouring="add-remove"),
    "classification, public sizes, uniform weights, triu": dict(
        task="classification", class_sizes="public", class_weights="uniform", noise="triu"),
    "classification, private sizes, exact numerics": dict(task="classification",
                                                          numerics="exact"),
    "unsupervised, add-remove": dict(neighbouring="add-remove"),
    "regression, add-remove": dict(task="regression", neighbouring="add-remove"),
    "regression, replace-one, DP label mean": dict(task="regression", label_mean="dp"),
}

_FIT_ARRAYS = ("projection_", "mean_", "covariance_raw_", "covariance_", "mean_scale_",
               "cov_scale_", "mean_sensitivity_", "cov_sensitivity_", "class_counts_",
               "class_weights_", "class_means_", "n_records_", "label_mean_")


def _kwargs(setting):
    kw = dict(dim=3, epsilon=2.0, random_state=11, **NEW_SETTINGS[setting])
    if kw.get("task") == "classification":
        kw["classes"] = ["a", "b", "c"]
    if kw.get("task") == "regression":
        kw["label_bound"] = (-10, 10)
    return kw


def _labels(kw, X, y):
    return {"classification": _classes(X), "regression": y}.get(kw.get("task"))


@pytest.mark.parametrize("setting", sorted(NEW_SETTINGS))
@pytest.mark.parametrize("frame", [False, True], ids=["array", "frame"])
def test_new_settings_same_seed_same_release_and_samples(setting, frame, never_collected):
    X, y = _data()
    kw = _kwargs(setting)
    labels = _labels(kw, X, y)
    ref = RONGauss(**kw).fit(X, labels)
    if frame:
        cols = [f"f{i}" for i in range(X.shape[1])]
        table = pd.DataFrame(X, columns=cols)
        table["t"] = labels if labels is not None else 0.0
        ddf = dd.from_pandas(table, npartitions=6)
        got = RONGauss(**kw).fit(ddf[cols], None if labels is None else ddf["t"])
        assert list(got.feature_names_in_) == cols
    else:
        yd = None if labels is None else da.from_array(labels, chunks=650)
        got = RONGauss(**kw).fit(da.from_array(X, chunks=(650, X.shape[1])), yd)
    assert got.privacy_ == ref.privacy_
    compared = 0
    for name in _FIT_ARRAYS:
        assert hasattr(got, name) == hasattr(ref, name), name
        if hasattr(ref, name):
            compared += 1
            np.testing.assert_allclose(getattr(got, name), getattr(ref, name), rtol=1e-9,
                                       atol=1e-11, err_msg=name)
    assert compared >= 9
    if kw.get("task") == "classification":
        np.testing.assert_array_equal(got.classes_, ref.classes_)
        assert got.class_priors_ == ref.class_priors_ and got.class_sizes_ == ref.class_sizes_
    # the same model gives the same synthetic records (sampling factors the covariance, whose
    # eigenvectors can amplify the summation-order differences: records of scale ~0.1 agree to
    # 1e-6 absolute)
    out_ref, out_got = ref.sample(400, rng=5), got.sample(400, rng=5)
    if not isinstance(out_ref, tuple):
        out_ref, out_got = (out_ref, None), (out_got, None)
    np.testing.assert_allclose(out_got[0], out_ref[0], rtol=0, atol=1e-6)
    if kw.get("task") == "classification":
        np.testing.assert_array_equal(out_got[1], out_ref[1])
    elif out_ref[1] is not None:
        np.testing.assert_allclose(out_got[1], out_ref[1], rtol=0, atol=1e-6)
    # another seed is another release (the comparison above can fail)
    other = RONGauss(**{**kw, "random_state": 12}).fit(X, labels)
    assert not np.allclose(other.covariance_raw_, ref.covariance_raw_, rtol=1e-6)


def test_driver_receives_only_reduced_statistics(never_collected, computed_shapes):
    """Every value computed on the driver is a reduced statistic of public size: pass 1 gives
    k x (m + 1) sums, each later pass one (p x p) scatter; 1 + k passes for k classes."""
    X, _ = _data(n=3_000)
    m, p = X.shape[1], 2
    computed = computed_shapes
    labels = da.from_array(_classes(X), chunks=500)
    RONGauss(dim=p, epsilon=1.0, task="classification", classes=["a", "b", "c"],
             random_state=0).fit(da.from_array(X, chunks=500), labels)
    assert computed == [(3, m + 1)] + [(p, p)] * 3
    computed.clear()
    RONGauss(dim=p, epsilon=1.0, neighbouring="add-remove", random_state=0).fit(
        da.from_array(X, chunks=500))
    assert computed == [(1, m + 1), (p, p)]


def test_dask_label_errors_name_no_value():
    X, y = _data(n=600)
    Xd = da.from_array(X, chunks=150)
    labels = _classes(X)
    labels[17] = "secret-label"
    kw = dict(dim=2, epsilon=1.0, task="classification", classes=["a", "b", "c"])
    accountant = Accountant(epsilon=10.0)
    with pytest.raises(InvalidParameterError) as info:
        RONGauss(**kw).fit(Xd, da.from_array(labels, chunks=150), accountant=accountant)
    assert "secret" not in str(info.value) and "public class list" in str(info.value)
    # pass 1 refused the labels before the budget was charged (as the in-memory check does)
    assert accountant.spends == ()
    RONGauss(**kw).fit(Xd, da.from_array(_classes(X), chunks=150), accountant=accountant)
    assert len(accountant.spends) == 1
    with pytest.raises(InvalidParameterError, match="Dask collection"):
        RONGauss(**kw).fit(Xd, _classes(X))  # an in-memory y with a Dask X
    with pytest.raises(InvalidParameterError, match="is required"):
        RONGauss(**kw).fit(Xd)
    # public class sizes need every class: refused after pass 1, before any noise
    with pytest.raises(InvalidParameterError, match="has no records"):
        RONGauss(**{**kw, "classes": ["a", "b", "c", "d"]}, class_sizes="public").fit(
            Xd, da.from_array(_classes(X), chunks=150))
    # private class sizes handle an empty class, as in memory
    four = {**kw, "classes": ["a", "b", "c", "d"], "random_state": 3}
    got = RONGauss(**four).fit(Xd, da.from_array(_classes(X), chunks=150))
    ref = RONGauss(**four).fit(X, _classes(X))
    np.testing.assert_allclose(got.class_counts_, ref.class_counts_, rtol=1e-12)
    # labels as a one-column Dask frame (and a two-column one is refused)
    frame = dd.from_pandas(pd.DataFrame({"t": _classes(X)}), npartitions=3)
    one = RONGauss(**four).fit(Xd, frame)
    np.testing.assert_allclose(one.covariance_raw_, ref.covariance_raw_, rtol=1e-9, atol=1e-11)
    with pytest.raises(InvalidShapeError, match="one column"):
        RONGauss(**four).fit(Xd, frame.assign(u=frame["t"]))


def test_settings_in_memory_refuses_are_refused_on_dask_too():
    """label_mean='dp' is for regression under replace-one, in memory and on Dask alike."""
    X, y = _data(n=200)
    for kw in (dict(task="regression", label_bound=10, label_mean="dp",
                    neighbouring="add-remove"),
               dict(task="classification", classes=["a", "b", "c"], label_mean="dp")):
        for Xin, yin in ((X, y), (da.from_array(X, chunks=50), da.from_array(y, chunks=50))):
            with pytest.raises(InvalidParameterError, match="label_mean"):
                RONGauss(dim=2, epsilon=1.0, **kw).fit(Xin, yin)


def test_sample_to_parquet_partitions_and_seeds(tmp_path):
    X, y = _data()
    model = RONGauss(dim=2, epsilon=2.0, task="regression", label_bound=(-10, 10),
                     random_state=1).fit(X, y)
    files = model.sample_to_parquet(tmp_path / "a", 10_001, partitions=4, random_state=7)
    assert len(files) == 4
    table = pd.read_parquet(tmp_path / "a")
    assert list(table.columns) == ["z1", "z2", "y"] and len(table) == 10_001
    model.sample_to_parquet(tmp_path / "b", 10_001, partitions=4, random_state=7)
    np.testing.assert_array_equal(pd.read_parquet(tmp_path / "b").to_numpy(), table.to_numpy())
    model.sample_to_parquet(tmp_path / "c", 10_001, partitions=4)  # OS entropy
    assert not np.allclose(pd.read_parquet(tmp_path / "c").to_numpy(), table.to_numpy())
    # the partitions are independent draws from the model's Gaussian
    Z = table.to_numpy()
    parts = np.array_split(np.arange(len(Z)), 4)
    assert not np.allclose(Z[parts[0][:100]], Z[parts[1][:100]])
    # (standard error of a sample variance at n = 10^4: ~1.4%; a 30% wrong scale fails)
    np.testing.assert_allclose(np.diag(np.cov(Z.T, bias=True)), np.diag(model.covariance_),
                               rtol=0.08)
    # no generator is kept on the model by sampling
    assert not any(isinstance(v, np.random.Generator) and k != "_sampling_rng"
                   for k, v in vars(model).items())
    pickle.loads(pickle.dumps(model))


def test_two_pass_fit_and_parquet_on_a_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    X, _ = _data(n=6_000)
    ref = RONGauss(dim=3, epsilon=2.0, random_state=2).fit(X)
    cls_kw = dict(dim=2, epsilon=2.0, task="classification", classes=["a", "b", "c"],
                  random_state=6)
    cls_ref = RONGauss(**cls_kw).fit(X, _classes(X))
    table = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])]).assign(t=_classes(X))
    ddf = dd.from_pandas(table, npartitions=4)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster):
        got = RONGauss(dim=3, epsilon=2.0, random_state=2).fit(da.from_array(X, chunks=1_500))
        files = got.sample_to_parquet(tmp_path / "syn", 5_000, partitions=3, random_state=0)
        cls_got = RONGauss(**cls_kw).fit(ddf.drop(columns="t"), ddf["t"])
        cls_got.sample_to_parquet(tmp_path / "cls", 3_000, partitions=2, random_state=0,
                                  label_column="t")
    np.testing.assert_allclose(got.covariance_raw_, ref.covariance_raw_, rtol=1e-9, atol=1e-11)
    assert len(files) == 3 and len(pd.read_parquet(tmp_path / "syn")) == 5_000
    np.testing.assert_allclose(cls_got.covariance_raw_, cls_ref.covariance_raw_, rtol=1e-9,
                               atol=1e-11)
    np.testing.assert_allclose(cls_got.class_counts_, cls_ref.class_counts_, rtol=1e-12)
    assert cls_got.privacy_ == cls_ref.privacy_
    synthetic = pd.read_parquet(tmp_path / "cls")
    assert list(synthetic.columns) == ["z1", "z2", "t"] and len(synthetic) == 3_000
    assert set(synthetic["t"]) <= {"a", "b", "c"}


def test_sample_to_parquet_on_an_existing_directory_holds_only_the_new_table(tmp_path):
    # task HZ: a rewrite with fewer partitions left the earlier parts in place (base: a folder
    # of 10 parts rewritten with 2 held 1,800 records for n_samples=1,000, and the returned list
    # named 10 files, sorted as text so that part.10 came before part.2)
    X, _ = _data()
    model = RONGauss(dim=2, epsilon=2.0, random_state=1).fit(X)
    first = model.sample_to_parquet(tmp_path / "out", 1_000, partitions=12, random_state=3)
    assert [Path(f).name for f in first] == [f"part.{i}.parquet" for i in range(12)]
    (tmp_path / "out" / "notes.txt").write_text("kept")
    files = model.sample_to_parquet(tmp_path / "out", 1_000, partitions=2, random_state=3)
    assert [Path(f).name for f in files] == ["part.0.parquet", "part.1.parquet"]
    assert sorted(p.name for p in (tmp_path / "out").glob("*.parquet")) == [
        "part.0.parquet", "part.1.parquet"]
    assert sum(len(pd.read_parquet(f)) for f in files) == 1_000
    assert (tmp_path / "out" / "notes.txt").read_text() == "kept"  # only the parts are replaced
    (tmp_path / "out" / "notes.txt").unlink()
    assert len(pd.read_parquet(tmp_path / "out")) == 1_000


def test_sample_to_parquet_refuses_a_label_column_named_like_a_feature(tmp_path):
    # task HZ: with reconstruct=True on a frame with a feature "y", the default label_column "y"
    # replaced that feature by the labels, silently (3 columns written instead of 4)
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "y"])
    labels = np.clip(X["a"].to_numpy(), -1, 1)
    model = RONGauss(dim=2, epsilon=1.0, task="regression", label_bound=1, reconstruct=True,
                     random_state=0).fit(X, labels)
    with pytest.raises(InvalidParameterError, match="label_column"):
        model.sample_to_parquet(tmp_path / "a", 100, random_state=0)
    model.sample_to_parquet(tmp_path / "b", 100, random_state=0, label_column="target")
    assert list(pd.read_parquet(tmp_path / "b").columns) == ["a", "b", "y", "target"]


@pytest.mark.parametrize("task", ["unsupervised", "regression", "classification"])
def test_an_empty_table_is_released_alike_in_memory_and_on_dask_under_add_remove(task):
    """Task EA (session 22): under add/remove 0 and 1 record are neighbours, and both fits
    refused 0 records ("has no samples"); now the empty table is released (noise only) with the
    same release and charge in memory and on Dask. Under replace-one (a public count) both
    still refuse it, before any charge."""
    X, y = _data(n=0)
    kw = dict(dim=2, epsilon=2.0, task=task, random_state=6)
    if task == "regression":
        kw["label_bound"] = (-10, 10)
    if task == "classification":
        kw["classes"] = ["a", "b"]
        y = np.array([], dtype=object)
    yd = None if task == "unsupervised" else da.from_array(y, chunks=1)
    yy = None if task == "unsupervised" else y
    with Accountant(epsilon=10.0, delta=1e-3, relation="add-remove") as acc:
        ref = RONGauss(neighbouring="add-remove", **kw).fit(X, yy)
        got = RONGauss(neighbouring="add-remove", **kw).fit(da.from_array(X, chunks=(1, 6)), yd)
    assert len(acc.spends) == 2 and got.privacy_ == ref.privacy_
    np.testing.assert_allclose(got.covariance_raw_, ref.covariance_raw_, rtol=1e-9, atol=1e-11)
    assert np.all(np.isfinite(got.covariance_)) and np.linalg.eigvalsh(
        np.asarray(got.covariance_).reshape(-1, *got.covariance_.shape[-2:])).min() >= -1e-9
    out = got.sample(20, rng=0)
    assert np.all(np.isfinite(out[0] if isinstance(out, tuple) else out))
    acc = Accountant(epsilon=10.0, delta=1e-3)
    for X_, y_ in ((X, yy), (da.from_array(X, chunks=(1, 6)), yd)):
        with pytest.raises(InvalidShapeError, match="has no samples"):
            with acc:
                RONGauss(**kw).fit(X_, y_)
    assert acc.spends == ()
