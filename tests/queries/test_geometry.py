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
