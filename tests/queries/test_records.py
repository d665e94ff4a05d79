"""Identity and covariance queries: public-bound sensitivities, validation, shift bounds, witnesses."""

import math
import numpy as np
import pytest

from matrixdp.calibration.mvg_exact import AxisPrecision
from matrixdp.errors import (
    InvalidParameterError,
    InvalidShapeError,
    NonFiniteInputError,
    OutOfBoundsError,
)
from matrixdp.queries import CovarianceQuery, FrobeniusBall, IdentityQuery


def _random_rotation(d, rng):
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diagonal(r))


# ----------------------------------------------------------------------------- spec §11.14
def test_identity_sensitivity_paper_values():
    assert IdentityQuery(bounds=(-1, 1), n_features=6).sensitivity_l2 == pytest.approx(2 * math.sqrt(6))
    assert IdentityQuery(bounds=(0, 1), n_features=21).sensitivity_l2 == pytest.approx(math.sqrt(21))
    a, b, m = -3.0, 5.0, 7
    assert IdentityQuery(bounds=(a, b), n_features=m).sensitivity_l2 == pytest.approx((b - a) * math.sqrt(m))
    q = IdentityQuery(bounds=(-1, 1), n_features=6, n_samples=248)
    assert q.gamma == pytest.approx(math.sqrt(1488))
    assert q.shape == (248, 6) and not q.symmetric and q.neighbouring == "replace-one"


def test_identity_per_feature_bounds():
    q = IdentityQuery(bounds=([0, -2, 10], [1, 2, 13]), n_samples=5)
    assert q.n_features == 3
    assert q.sensitivity_l2 == pytest.approx(math.sqrt(1 + 16 + 9))
    assert q.gamma == pytest.approx(math.sqrt(5 * (1 + 4 + 169)))
    assert IdentityQuery(radius=2.0, n_features=3, n_samples=4).sensitivity_l2 == 4.0


def test_covariance_sensitivity_paper_and_tight():
    paper = CovarianceQuery(bounds=(-100, 100), n_features=4, n_samples=10176, sensitivity_bound="paper")
    assert paper.sensitivity_l2 == pytest.approx(8e4 / 10176, rel=1e-12)
    assert paper.sensitivity_l2 == pytest.approx(7.861635, rel=1e-7)
    assert paper.gamma == pytest.approx(4 * 100 ** 2)   # Example 1: gamma = m c^2
    tight = CovarianceQuery(bounds=(-100, 100), n_features=4, n_samples=10176)
    assert tight.sensitivity_l2 == pytest.approx(math.sqrt(2) * 4e4 / 10176, rel=1e-12)
    assert tight.sensitivity_l2_exact and tight.psd and tight.symmetric


def test_covariance_sensitivity_is_sound_when_not_exact():
    # m = 3: no two orthogonal +-1 vectors; the bound must be >= the brute-force sup over vertices
    q = CovarianceQuery(bounds=(-1, 1), n_features=3, n_samples=1)
    verts = np.array(np.meshgrid(*[[-1, 1]] * 3)).reshape(3, -1).T
    best = max(np.linalg.norm(np.outer(x, x) - np.outer(y, y)) for x in verts for y in verts)
    assert best == pytest.approx(4.0)
    assert not q.sensitivity_l2_exact
    assert q.sensitivity_l2 >= best


def test_invalid_bounds_and_counts():
    with pytest.raises(InvalidParameterError, match="bounds"):
        IdentityQuery(n_features=3)
    with pytest.raises(InvalidParameterError, match="bounds"):
        IdentityQuery(bounds=(1, 0), n_features=3)
    with pytest.raises(InvalidParameterError, match="n_features"):
        IdentityQuery(bounds=(0, 1))
    with pytest.raises(InvalidParameterError, match="n_samples"):
        CovarianceQuery(bounds=(0, 1), n_features=3, n_samples=None)
    with pytest.raises(InvalidParameterError, match="n_samples"):
        IdentityQuery(bounds=(0, 1), n_features=3).gamma
    with pytest.raises(InvalidParameterError, match="gamma"):
        FrobeniusBall(1.0).gamma


def test_compute_validates_data():
    q = IdentityQuery(bounds=(0, 1), n_features=2, n_samples=3)
    X = np.array([[0.1, 0.2], [0.5, 0.9], [1.0, 0.0]])
    np.testing.assert_array_equal(q.compute(X), X)
    with pytest.raises(OutOfBoundsError):
        q.compute(X + 0.5)
    with pytest.raises(NonFiniteInputError):
        q.compute(np.where(X > 0.8, np.nan, X))
    with pytest.raises(InvalidShapeError):
        q.compute(X[:2])
    clipped = IdentityQuery(bounds=(0, 1), n_features=2, clip=True).compute(X + 0.5)
    assert clipped.max() == 1.0
    c = CovarianceQuery(bounds=(-1, 1), n_features=2, n_samples=3)
    np.testing.assert_allclose(c.compute(X), X.T @ X / 3)
    with pytest.raises(OutOfBoundsError):
        c.compute(X * 3)
    centred = CovarianceQuery(bounds=(0, 1), n_features=2, n_samples=3, center=0.5)
    np.testing.assert_allclose(centred.compute(X), (X - 0.5).T @ (X - 0.5) / 3)
    assert centred.gamma == pytest.approx(0.5)
    ball = IdentityQuery(radius=1.0, n_features=2)
    with pytest.raises(OutOfBoundsError):
        ball.compute([[1.0, 1.0]])


# ----------------------------------------------------------------------------- shift bounds
def _brute_identity_sup(q, a, b):
    """Brute force over records k and vertices of the difference box."""
    w = q.half_widths
    verts = np.array(np.meshgrid(*[[-1, 1]] * w.size)).reshape(w.size, -1).T * w
    quad = np.einsum("ij,jk,ik->i", verts, b, verts).max()
    return np.diagonal(a).max() * quad


def test_identity_shift_bound_matches_brute_force():
    rng = np.random.default_rng(0)
    q = IdentityQuery(bounds=([0, -1, 2, 0], [1, 1, 5, 3]), n_samples=5)
    for _ in range(5):
        u, v = _random_rotation(5, rng), _random_rotation(4, rng)
        row = AxisPrecision(rng.uniform(0.5, 3, 5), u)
        col = AxisPrecision(rng.uniform(0.5, 3, 4), v)
        bound = q.shift_bound(row, col)
        assert bound.exact
        assert bound.value_sq == pytest.approx(_brute_identity_sup(q, row.matrix(), col.matrix()), rel=1e-12)


def test_identity_shift_bound_large_dim_is_upper_bound():
    rng = np.random.default_rng(1)
    d = 20
    q = IdentityQuery(bounds=(0, 1), n_features=d, n_samples=3)
    col = AxisPrecision(rng.uniform(0.5, 3, d), _random_rotation(d, rng))
    bound = q.shift_bound(AxisPrecision.identity(3), col)
    b = col.matrix()
    samples = rng.choice([-1.0, 1.0], size=(20000, d))
    assert bound.value_sq >= np.einsum("ij,jk,ik->i", samples, b, samples).max()
    assert bound.value_sq >= bound.lower_sq


def test_direction_costs_exact_for_standard_basis_upper_bound_otherwise():
    rng = np.random.default_rng(2)
    q = IdentityQuery(bounds=([0, 0, 0], [1, 2, 3]), n_samples=4)
    costs = q.direction_costs(col_dirs=np.eye(3))
    assert costs.exact
    np.testing.assert_allclose(costs.costs, [1, 4, 9])
    p = rng.uniform(0.1, 2, 3)
    sup = q.shift_bound(AxisPrecision.identity(4), AxisPrecision(p)).value_sq
    assert costs.bound_sq(p) == pytest.approx(sup, rel=1e-12)
    v = _random_rotation(3, rng)
    rot = q.direction_costs(col_dirs=v)
    assert not rot.exact
    sup = q.shift_bound(AxisPrecision.identity(4), AxisPrecision(p, v)).value_sq
    assert rot.bound_sq(p) >= sup * (1 - 1e-12)


def test_covariance_shift_bound_sound_against_random_pairs():
    rng = np.random.default_rng(3)
    q = CovarianceQuery(bounds=([-1, 0, -2], [1, 1, 0.5]), n_samples=10)
    v = _random_rotation(3, rng)
    cases = [
        (AxisPrecision(rng.uniform(0.5, 2, 3), v), None),             # equimodal
        (AxisPrecision(rng.uniform(0.5, 2, 3), v), AxisPrecision.identity(3)),   # unimodal
        (AxisPrecision(rng.uniform(0.5, 2, 3), v),
         AxisPrecision(rng.uniform(0.5, 2, 3), _random_rotation(3, rng))),       # general
    ]
    lo, hi = np.array([-1, 0, -2.0]), np.array([1, 1, 0.5])
    x = rng.uniform(lo, hi, size=(4000, 3))
    y = rng.uniform(lo, hi, size=(4000, 3))
    x[:1000] = np.where(rng.random((1000, 3)) < 0.5, lo, hi)     # include vertices
    y[:1000] = np.where(rng.random((1000, 3)) < 0.5, lo, hi)
    d = (np.einsum("ki,kj->kij", x, x) - np.einsum("ki,kj->kij", y, y)) / 10
    for row, col in cases:
        col = row if col is None else col
        bound = q.shift_bound(row, col)
        a, b = row.matrix(), col.matrix()
        mu2 = np.einsum("kij,jl,kml,mi->k", d, b, d, a)   # tr(A D B D^T)
        assert mu2.max() <= bound.value_sq * (1 + 1e-12)
        assert bound.lower_sq <= bound.value_sq * (1 + 1e-12)


# ----------------------------------------------------------------------------- witnesses
def test_identity_witnesses_are_neighbouring_and_worst_case():
    q = IdentityQuery(bounds=([0, -1], [2, 1]), n_samples=4)
    pairs = q.witnesses(col_cov=np.diag([1.0, 0.25]))
    assert isinstance(pairs, list) and len(pairs) == 2
    for a, b in pairs:
        assert isinstance(a, np.ndarray) and a.shape == (4, 2)
        assert np.count_nonzero(np.any(a != b, axis=1)) == 1       # one record replaced
        q.compute(a), q.compute(b)                                  # both admissible
    assert np.linalg.norm(pairs[0][0] - pairs[0][1]) == pytest.approx(q.sensitivity_l2)


def test_covariance_witnesses_attain_sensitivity():
    q = CovarianceQuery(bounds=(-1, 1), n_features=4, n_samples=6)
    pairs = q.witnesses(row_cov=np.eye(4), col_cov=np.eye(4))
    assert len(pairs) == 2
    for a, b in pairs:
        assert a.shape == (4, 4) and np.allclose(a, a.T)
        assert np.linalg.norm(a - b) <= q.sensitivity_l2 * (1 + 1e-12)
    assert np.linalg.norm(pairs[0][0] - pairs[0][1]) == pytest.approx(q.sensitivity_l2)


def test_covariance_one_signed_box_is_exact_via_entrywise_bound():
    q = CovarianceQuery(bounds=(0, 1), n_features=3, n_samples=10)
    assert q.sensitivity_l2_exact and q.sensitivity_l2 == pytest.approx(0.3)   # R^2/n, x = 1, y = 0
    rng = np.random.default_rng(9)
    lo, hi = np.array([-0.2, 0.0, 1.0]), np.array([1.0, 2.0, 3.0])
    q2 = CovarianceQuery(bounds=(lo, hi), n_samples=5)
    a = AxisPrecision(rng.uniform(0.5, 2, 3))
    b = AxisPrecision(rng.uniform(0.5, 2, 3))
    x = rng.uniform(lo, hi, size=(20000, 3))
    y = rng.uniform(lo, hi, size=(20000, 3))
    x[:5000] = np.where(rng.random((5000, 3)) < 0.5, lo, hi)
    y[:5000] = np.where(rng.random((5000, 3)) < 0.5, lo, hi)
    d = (np.einsum("ki,kj->kij", x, x) - np.einsum("ki,kj->kij", y, y)) / 5
    for row, col in [(a, b), (a, a), (a, AxisPrecision.identity(3))]:
        bound = q2.shift_bound(row, col)
        mu2 = np.einsum("kij,i,j->k", d * d, row.precisions, col.precisions)
        assert mu2.max() <= bound.value_sq * (1 + 1e-12)


def test_record_axis_costs_bound_the_supremum():
    rng = np.random.default_rng(14)
    q = IdentityQuery(bounds=([0, -1], [2, 1]), n_samples=6)
    u = _random_rotation(6, rng)
    costs = q.direction_costs(row_dirs=u)
    assert not costs.exact
    for _ in range(20):
        p = rng.uniform(0.1, 3, 6)
        sup = q.shift_bound(AxisPrecision(p, u), AxisPrecision.identity(2)).value_sq
        assert costs.bound_sq(p) >= sup * (1 - 1e-12)
    std = q.direction_costs(axis=0, shape=(6, 2))
    np.testing.assert_allclose(std.costs, q.sensitivity_l2 ** 2)
