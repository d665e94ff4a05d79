"""RON-Gauss on Dask input (two-pass blockwise fit) and partitioned Parquet sampling."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError, OutOfBoundsError
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
def never_collected(monkeypatch):
    def refuse(self, *args, **kwargs):
        raise AssertionError("a private Dask collection was collected to the driver")

    for cls in {da.Array, type(dd.from_pandas(pd.DataFrame({"a": [1.0]}), npartitions=1)),
                type(dd.from_pandas(pd.Series([1.0]), npartitions=1))}:
        monkeypatch.setattr(cls, "compute", refuse)
        monkeypatch.setattr(cls, "__array__", refuse, raising=False)


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


def test_unsupported_settings_say_so():
    X, y = _data(n=200)
    Xd = da.from_array(X, chunks=50)
    with pytest.raises(InvalidParameterError, match="replace-one"):
        RONGauss(dim=2, epsilon=1.0, task="classification", classes=[0, 1]).fit(
            Xd, da.from_array((y > 0).astype(int), chunks=50))
    with pytest.raises(InvalidParameterError, match="replace-one"):
        RONGauss(dim=2, epsilon=1.0, neighbouring="add-remove").fit(Xd)


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
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster):
        got = RONGauss(dim=3, epsilon=2.0, random_state=2).fit(da.from_array(X, chunks=1_500))
        files = got.sample_to_parquet(tmp_path / "syn", 5_000, partitions=3, random_state=0)
    np.testing.assert_allclose(got.covariance_raw_, ref.covariance_raw_, rtol=1e-9, atol=1e-11)
    assert len(files) == 3 and len(pd.read_parquet(tmp_path / "syn")) == 5_000
