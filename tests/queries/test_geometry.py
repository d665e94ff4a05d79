"""Shift geometry: box maxima and the Mahalanobis supremum over query differences (exact or certified)."""

import numpy as np
import pytest

from matrixdp.calibration.mvg_exact import AxisPrecision
from matrixdp.queries.geometry import box_quadratic_max, frobenius_ball_shift, outer_product_shift


def _spd(d, rng):
    a = rng.standard_normal((d, d))
    return a @ a.T + 0.3 * np.eye(d)


def test_box_quadratic_max_enumeration_and_bounds():
    rng = np.random.default_rng(3)
    a = _spd(5, rng)
    lo, hi = -rng.uniform(0, 2, 5), rng.uniform(0, 2, 5)
    val, exact, low, arg = box_quadratic_max(a, lo, hi)
    pts = rng.uniform(lo, hi, size=(20000, 5))
    assert exact and val == low and val >= np.einsum("ij,jk,ik->i", pts, a, pts).max()
    assert arg @ a @ arg == pytest.approx(val)
    diag = np.diag([1.0, 2.0, 3.0])
    val, exact, _, _ = box_quadratic_max(diag, [-1, 0, -3], [2, 1, 1])
    assert exact and val == pytest.approx(4 + 2 + 27)
    big = _spd(20, rng)
    val, exact, low, arg = box_quadratic_max(big, -np.ones(20), np.ones(20))
    signs = rng.choice([-1.0, 1.0], size=(20000, 20))
    assert val >= np.einsum("ij,jk,ik->i", signs, big, signs).max()
    assert low <= val * (1 + 1e-12) and arg @ big @ arg == pytest.approx(low)


def test_outer_product_ball_exact_formula():
    rng = np.random.default_rng(4)
    a = _spd(3, rng)
    prec = AxisPrecision.from_covariance(np.linalg.inv(a))
    r = 1.3
    b = outer_product_shift(prec, prec, scale=0.1, radius=r)
    lam = np.linalg.eigvalsh(a)
    assert b.exact and b.value_sq == pytest.approx(0.01 * r ** 4 * (lam[-1] ** 2 + lam[-2] ** 2), rel=1e-9)
    x = rng.standard_normal((20000, 3))
    y = rng.standard_normal((20000, 3))
    x *= r / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), r)   # inside the ball
    y *= r * rng.random((20000, 1)) / np.linalg.norm(y, axis=1, keepdims=True)
    f = (np.einsum("ki,ij,kj->k", x, a, x) ** 2 + np.einsum("ki,ij,kj->k", y, a, y) ** 2
         - 2 * np.einsum("ki,ij,kj->k", x, a, y) ** 2)
    assert 0.01 * f.max() <= b.value_sq * (1 + 1e-12)


def test_frobenius_ball_is_rotation_invariant():
    rng = np.random.default_rng(7)
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    p = rng.uniform(0.5, 2, 4)
    a = frobenius_ball_shift(2.0, AxisPrecision(p, q), AxisPrecision.identity(3))
    b = frobenius_ball_shift(2.0, AxisPrecision(p), AxisPrecision.identity(3))
    assert a.value_sq == pytest.approx(b.value_sq) == pytest.approx(4.0 * p.max())


def test_outer_product_unimodal_ball_exact_ky_fan():
    rng = np.random.default_rng(8)
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    p = np.array([3.0, 1.0, 0.5, 0.2])
    b = outer_product_shift(AxisPrecision(p, q), AxisPrecision.identity(4, 2.0), scale=0.5, radius=1.5)
    assert b.exact and b.value_sq == pytest.approx(2.0 * 0.25 * 1.5 ** 4 * (3.0 + 1.0), rel=1e-9)
    # random pairs inside the ball never exceed it
    a = AxisPrecision(p, q).matrix()
    x = rng.standard_normal((20000, 4))
    y = rng.standard_normal((20000, 4))
    x *= 1.5 * rng.random((20000, 1)) ** 0.25 / np.linalg.norm(x, axis=1, keepdims=True)
    y *= 1.5 * rng.random((20000, 1)) ** 0.25 / np.linalg.norm(y, axis=1, keepdims=True)
    n = np.einsum("ki,kj->kij", x, x) - np.einsum("ki,kj->kij", y, y)
    mu2 = 2.0 * 0.25 * np.einsum("kij,jl,kli->k", n, a, n)
    assert mu2.max() <= b.value_sq * (1 + 1e-12)


# ----------------------------------------------------------------------------- eigen-form box bound
def _random_case(rng, d, kind):
    from matrixdp.rng import random_directions

    if kind == "sparse":        # 2x2 rotations: a near-permutation, where R^T|A|R is tight
        u = np.eye(d)
        for k in range(0, d - 1, 2):
            t = rng.uniform(0, np.pi)
            u[k:k + 2, k:k + 2] = [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]
        u = u[:, rng.permutation(d)]
    else:
        u = random_directions(d, d, rng=int(rng.integers(1 << 30)))
    p = {"flat": rng.uniform(0.9, 1.1, d), "spread": rng.lognormal(0, 1.5, d),
         "spike": np.r_[50.0, np.ones(d - 1)]}[rng.choice(["flat", "spread", "spike"])]
    lo, hi = -rng.uniform(0.1, 2, d), rng.uniform(0.1, 2, d)
    return u, p, lo, hi


@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_eigen_box_bound_is_never_below_the_dense_bound_nor_the_supremum(kind):
    """Old (dense precision, eigendecomposition-free) vs new (eigen-form, O(d²)) on 60 random
    (U, p, box): the new bound is an upper bound at least as large as the old one (at least as
    conservative), its witness attains its lower value, and with flat precisions and dense
    directions (the benchmark's case) it equals the old value."""
    from matrixdp.queries.geometry import eigen_box_quadratic_bound

    rng = np.random.default_rng(17)
    for trial in range(60):
        d = int(rng.integers(17, 70))
        u, p, lo, hi = _random_case(rng, d, kind)
        a = (u * p) @ u.T
        a = 0.5 * (a + a.T)
        old, old_exact, old_low, _ = box_quadratic_max(a, lo, hi, eigen=(p, u))
        new, exact, low, arg = eigen_box_quadratic_bound(p, u, lo, hi)
        assert new >= old * (1 - 1e-12), (trial, new, old)
        assert low <= new * (1 + 1e-12) and arg @ a @ arg == pytest.approx(low, rel=1e-10)
        assert np.all((arg == lo) | (arg == hi))
        # random vertices never exceed it (it is an upper bound on the supremum)
        verts = np.where(rng.random((4000, d)) < 0.5, lo, hi)
        assert np.einsum("ij,jk,ik->i", verts, a, verts).max() <= new * (1 + 1e-12)
        if exact:
            assert new == low
        reach = np.maximum(np.abs(lo), np.abs(hi))
        if kind == "dense" and old == pytest.approx(p.max() * reach @ reach, rel=1e-12):
            assert new == pytest.approx(old, rel=1e-12)


def test_eigen_box_bound_exact_where_a_sign_vertex_is_the_top_eigenvector():
    """A Hadamard-like top direction with the largest precision: λ_max ‖R‖² is attained at the
    vertex of its signs, so the bound is exact (as the dense search finds)."""
    from matrixdp.queries.geometry import eigen_box_quadratic_bound

    d = 32
    h = np.array([[1.0]])
    while h.shape[0] < d:
        h = np.block([[h, h], [h, -h]])
    u = h / np.sqrt(d)
    p = np.r_[5.0, np.ones(d - 1)]
    val, exact, low, arg = eigen_box_quadratic_bound(p, u, -np.ones(d), np.ones(d))
    assert exact and val == pytest.approx(5.0 * d, rel=1e-12) and val == low


def test_record_box_shift_uses_the_eigen_form_above_the_dense_size():
    from matrixdp.queries.geometry import DENSE_BOX_MAX_DIM, record_box_shift
    from matrixdp.rng import random_directions

    d = DENSE_BOX_MAX_DIM + 4
    rng = np.random.default_rng(2)
    u = random_directions(d, d, rng=4)
    col = AxisPrecision(rng.uniform(0.5, 2.0, d), u)
    row = AxisPrecision(np.full(3, 2.0))
    w = rng.uniform(0.5, 1.5, d)
    fast = record_box_shift(row, col, half_widths=w)
    dense = record_box_shift(row, col, half_widths=w, dense=True)
    assert fast.value_sq >= dense.value_sq * (1 - 1e-12)
    assert fast.value_sq == pytest.approx(dense.value_sq, rel=1e-12)   # flat p, dense U
    ball = record_box_shift(row, col, radius=0.7)
    ball_dense = record_box_shift(row, col, radius=0.7, dense=True)
    assert ball.exact and ball.value_sq == pytest.approx(ball_dense.value_sq, rel=1e-12)


def test_memoised_reach_is_scoped_to_its_block():
    from matrixdp.queries.geometry import direction_reach, memoised_reach
    from matrixdp.rng import random_directions

    u = random_directions(40, 40, rng=1)
    r = np.linspace(0.5, 1.5, 40)
    want = np.abs(u).T @ r
    with memoised_reach():
        first = direction_reach(u, r)
        first[:] = 0.0                       # callers get copies: the memo is not corrupted
        np.testing.assert_allclose(direction_reach(u, r), want, rtol=1e-14)
        np.testing.assert_allclose(direction_reach(u, 2 * r), 2 * want, rtol=1e-14)
    u[:, 0] = -u[:, 0] * 2                   # changed after the block: recomputed
    np.testing.assert_allclose(direction_reach(u, r), np.abs(u).T @ r, rtol=1e-14)
