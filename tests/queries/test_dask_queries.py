"""Queries and DP directions on Dask input: the in-memory value, only reduced sums collected."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp import DPDirectionsMVG
from matrixdp._record_sums import ball_record_sums
from matrixdp.errors import InvalidParameterError, InvalidShapeError, OutOfBoundsError
from matrixdp.models.dp_directions import dp_covariance_eigen
from matrixdp.queries import CovarianceQuery, IdentityQuery

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

N, D = 2_003, 4
CENTER = np.array([0.5, -0.25, 0.0, 1.0])


def _records(seed=0, scale=0.6):
    return np.random.default_rng(seed).normal(loc=CENTER, scale=scale, size=(N, D))


@pytest.fixture
def never_collected(refuse_collecting):
    """Any attempt to bring a whole Dask collection to the driver fails."""
    refuse_collecting("array", "frame", persist=True)


QUERIES = {
    "box, clip": lambda: CovarianceQuery(bounds=(-1.0, 2.0), n_features=D, n_samples=N,
                                         center=CENTER, clip=True),
    "ball, clip": lambda: CovarianceQuery(radius=1.5, n_features=D, n_samples=N, center=CENTER,
                                          clip=True),
}


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_covariance_query_on_dask_is_the_in_memory_value(name, never_collected):
    q = QUERIES[name]()
    X = _records()
    ref = q.compute(X)
    got = q.compute(da.from_array(X, chunks=(331, D)))
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-13)
    frame = dd.from_pandas(pd.DataFrame(X.astype(np.float32), columns=list("abcd")),
                           npartitions=3)
    np.testing.assert_allclose(q.compute(frame), q.compute(X.astype(np.float32)), rtol=1e-9)
    q.check_value(got)  # within the public gamma: the clip really bounded every block


def test_covariance_query_on_dask_raises_on_a_block_outside_the_bounds_without_values():
    X = _records()
    X[1_500, 2] = 123.456  # one record in a late block
    for q in (CovarianceQuery(bounds=(-10.0, 10.0), n_features=D, n_samples=N),
              CovarianceQuery(radius=8.0, n_features=D, n_samples=N)):
        with pytest.raises(OutOfBoundsError) as err:
            q.compute(da.from_array(X, chunks=(500, D)))
        assert "123" not in str(err.value)


def test_covariance_query_on_dask_checks_the_public_count_without_echoing_it():
    q = CovarianceQuery(bounds=(-1.0, 2.0), n_features=D, n_samples=N + 7, clip=True)
    with pytest.raises(InvalidShapeError, match=f"n_samples={N + 7}") as err:
        q.compute(da.from_array(_records(), chunks=(500, D)))
    assert str(N) not in str(err.value).replace(str(N + 7), "")


def test_ball_bound_applies_to_the_centred_records():
    """The radius bounds ||x - c||: a record inside the ball around 0 but far from c is refused.

    The query's sensitivity assumes ||x - c|| <= radius; checking ||x|| instead (as this query
    once did) let a centred record of norm up to radius + ||c|| through.
    """
    c = np.array([0.9, 0.0])
    q = CovarianceQuery(radius=1.0, n_features=2, n_samples=2, center=c)
    X = np.array([[-0.9, 0.0], [0.5, 0.0]])          # ||x|| <= 1 but ||x - c|| = 1.8
    with pytest.raises(OutOfBoundsError):
        q.compute(X)
    with pytest.raises(OutOfBoundsError):
        q.compute(da.from_array(X, chunks=(1, 2)))
    clipped = CovarianceQuery(radius=1.0, n_features=2, n_samples=2, center=c, clip=True)
    value = clipped.compute(X)
    # the far record is projected onto the unit sphere around c: (x - c) = (-1, 0)
    np.testing.assert_allclose(value, np.array([[(1.0 + 0.16) / 2, 0.0], [0.0, 0.0]]))
    clipped.check_value(value)
    np.testing.assert_allclose(clipped.compute(da.from_array(X, chunks=(1, 2))), value)


def test_ball_record_sums_numpy_and_dask_agree_with_a_direct_projection():
    X = _records(seed=3, scale=1.5)
    c = CENTER
    z = X - c
    norms = np.linalg.norm(z, axis=1)
    z = z * np.minimum(1.0, 2.0 / norms)[:, None]
    assert (norms > 2.0).mean() > 0.1                  # the projection really acts
    for source in (X, da.from_array(X, chunks=(400, D))):
        sums = ball_record_sums(source, 2.0, center=c, chunk_rows=257)
        assert sums.n == N
        np.testing.assert_allclose(sums.sum, z.sum(axis=0), rtol=1e-12, atol=1e-10)
        np.testing.assert_allclose(sums.gram, z.T @ z, rtol=1e-12, atol=1e-10)
    with pytest.raises(OutOfBoundsError):
        ball_record_sums(X, 2.0, center=c, clip=False)
    with pytest.raises(InvalidParameterError):
        ball_record_sums(X, -1.0)


@pytest.mark.parametrize("query", [
    lambda: IdentityQuery(bounds=(-1.0, 2.0), n_features=D, n_samples=N, clip=True),
    lambda: CovarianceQuery(radius=1.5, n_features=D, n_samples=N, center=CENTER, clip=True),
])
def test_dp_directions_fit_on_dask_is_the_in_memory_fit(query, never_collected):
    X = _records()
    kwargs = dict(shape=(N, D) if isinstance(query(), IdentityQuery) else (D, D), epsilon=1.0,
                  delta=1e-5, precision="max-pnr")
    ref = DPDirectionsMVG(sensitivity=query(), random_state=11, **kwargs).fit(X)
    got = DPDirectionsMVG(sensitivity=query(), random_state=11, **kwargs).fit(
        da.from_array(X, chunks=(500, D)))
    np.testing.assert_allclose(got.directions_.directions, ref.directions_.directions,
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got.directions_.eigenvalues, ref.directions_.eigenvalues,
                               rtol=1e-9)
    assert got.directions_.privacy == ref.directions_.privacy
    g, r = got.mechanism_.privacy, ref.mechanism_.privacy   # its allocation used the eigenvalues
    assert (g.epsilon, g.delta, g.exact) == (r.epsilon, r.delta, r.exact)
    assert g.mu == pytest.approx(r.mu, rel=1e-9)
    other = DPDirectionsMVG(sensitivity=query(), random_state=12, **kwargs).fit(X)
    assert not np.allclose(other.directions_.eigenvalues, ref.directions_.eigenvalues, rtol=1e-6)


def test_dp_covariance_eigen_on_dask_needs_public_bounds():
    with pytest.raises(InvalidParameterError, match="bounds"):
        dp_covariance_eigen(da.from_array(_records(), chunks=(500, D)), epsilon=1.0, delta=1e-5,
                            sensitivity=2.0)
