"""The shared second-moment release: claimed entry variances, closed-form shares, public-only planning."""

from __future__ import annotations

import math

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.models._moments import (balanced_constant, plan_second_moment, release_second_moment,
                                      task_shares)
from matrixdp.models.joint_release import regression_task


def _regression_case(n=300):
    lo_x, hi_x = np.zeros(3), np.array([1.0, 10.0, 100.0])
    task, cx, cy, t = regression_task(lo_x, hi_x, -2.0, 2.0, n, True)
    rng = np.random.default_rng(0)
    X = rng.uniform(lo_x, hi_x, (n, 3))
    y = rng.uniform(-2, 2, n)
    Z = np.column_stack([X - cx, y - cy, np.full(n, t)])
    return task, Z


@pytest.mark.parametrize("noise", ["mvg", "iid"])
def test_entry_variances_match_the_released_noise(noise):
    """Weighted squared error of the release vs its claimed expected loss: ±12% accepted,
    0.7x / 1.3x noise scale rejected (the weights differ by orders of magnitude here)."""
    task, Z = _regression_case()
    truth = Z.T @ Z / Z.shape[0]
    W = task.loss_matrix
    losses, sq = [], []
    for seed in range(300):
        rel = release_second_moment(Z, task, epsilon=1.0, delta=1e-6, noise=noise, rng=seed)
        err = rel.value - truth
        losses.append(np.sum(W * err * err))
        sq.append(err * err)
    ratio = np.mean(losses) / rel.expected_loss
    assert abs(ratio - 1) < 0.12, ratio
    for wrong in (0.49, 1.69):
        assert abs(ratio / wrong - 1) > 0.12
    # entrywise as well (diagonal entries, each its own variance)
    diag_ratio = np.diagonal(np.mean(sq, axis=0)) / np.diagonal(rel.entry_variance)
    assert np.all(np.abs(diag_ratio - 1) < 0.25), diag_ratio


def test_task_shares_are_the_lagrange_solution():
    """θ ∝ h√w minimises Σ w_i v_i under Σ h_i²/v_i = B (checked against random feasible points)."""
    task, _ = _regression_case()
    theta = task_shares(task)
    h, w = task.reach, task.weights
    v = h * h / theta  # B = 1
    best = np.dot(w, v)
    rng = np.random.default_rng(1)
    for _ in range(200):
        th = rng.dirichlet(np.ones(h.size))
        assert np.dot(w, h * h / th) >= best * (1 - 1e-12)


def test_auto_is_the_least_expected_loss_and_never_worse_than_iid():
    task, _ = _regression_case()
    best, cands = plan_second_moment(task, epsilon=1.0, delta=1e-6, noise="auto")
    assert best.expected_loss == min(cands.values())
    assert best.expected_loss <= cands["iid"]
    with pytest.raises(InvalidParameterError, match="noise"):
        plan_second_moment(task, epsilon=1.0, delta=1e-6, noise="gaussian")


def test_balanced_constant_attains_an_orthogonal_vertex_pair():
    h = np.array([0.5, 1.0, 1.5, 2.0])
    t = balanced_constant(h, float(np.mean(h * h)))
    signs = 1 - 2 * ((np.arange(16)[:, None] >> np.arange(4)) & 1)
    assert np.min(np.abs(signs @ (h * h) + t * t)) < 1e-12
    # very unequal ranges: no balanced value near the target, the target itself is used
    h = np.array([0.5, 2.5, 700.0])
    assert balanced_constant(h, float(np.mean(h * h))) == pytest.approx(np.sqrt(np.mean(h * h)))


def test_sum_of_outer_products_shift_is_exact_against_vertex_enumeration():
    import itertools

    from matrixdp.calibration.mvg_exact import AxisPrecision
    from matrixdp.models._moments import SumOfOuterProducts

    lo, hi = np.array([-1.0, 0.0, 2.0, 3.0]), np.array([2.0, 5.0, 2.0, 4.0])
    q = SumOfOuterProducts(lo, hi)
    verts = np.array(list(itertools.product(*zip(lo, hi))))
    assert q.sensitivity_l2 == pytest.approx(np.max(np.sum(verts ** 2, axis=1)))
    rng = np.random.default_rng(0)
    for rotated in (False, True):
        p = rng.uniform(0.5, 2.0, 4)
        u = np.linalg.qr(rng.normal(size=(4, 4)))[0] if rotated else None
        a = AxisPrecision(p, u)
        bound = q.shift_bound(a, a)
        amat = a.matrix()
        brute = np.max(np.einsum("ki,ij,kj->k", verts, amat, verts)) ** 2  # (zᵀAz)², convex in z
        assert bound.exact and bound.value_sq == pytest.approx(brute, rel=1e-12)


@pytest.mark.parametrize("noise", ["mvg", "iid"])
def test_add_remove_sums_have_the_claimed_variances(noise):
    """Add-remove releases the sums ZᵀZ; their error matches entry_variance (±12%, 0.7x/1.3x out)."""
    lo_x, hi_x = np.zeros(3), np.array([1.0, 10.0, 100.0])
    n = 200
    task, cx, cy, t = regression_task(lo_x, hi_x, -2.0, 2.0, n, True, "add-remove")
    assert task.n_samples is None and task.query().neighbouring == "add-remove"
    rng = np.random.default_rng(0)
    X = rng.uniform(lo_x, hi_x, (n, 3))
    y = rng.uniform(-2, 2, n)
    Z = np.column_stack([X - cx, y - cy, np.full(n, t)])
    truth = Z.T @ Z
    W = task.loss_matrix
    losses = []
    for seed in range(300):
        rel = release_second_moment(Z, task, epsilon=1.0, delta=1e-6, noise=noise, rng=seed)
        err = rel.value - truth
        losses.append(np.sum(W * err * err))
    assert rel.privacy.neighbouring == "add-remove" and rel.privacy.exact
    ratio = np.mean(losses) / rel.expected_loss
    assert abs(ratio - 1) < 0.12, ratio
    for wrong in (0.49, 1.69):
        assert abs(ratio / wrong - 1) > 0.12


# --------------------------------------------------------------------- a public constant column
@pytest.mark.parametrize("noise", ["auto", "iid", "mvg"])
def test_zero_width_column_is_released_by_every_noise_option(noise):
    """A column whose public bounds are equal (lower == upper) is public and constant: every
    plan must still build (``mse-optimal`` used to give it a zero precision share and raise),
    and the released second moment of the constant column is the public value."""
    from matrixdp.models import DPCovariance, DPLinearRegression, DPPCA
    from matrixdp.models._moments import positive_shares

    rng = np.random.default_rng(11)
    X = rng.uniform(0.0, 1.0, size=(3000, 4))
    X[:, 2] = 0.5
    lo, hi = np.array([0.0, 0.0, 0.5, 0.0]), np.array([1.0, 1.0, 0.5, 1.0])
    common = dict(epsilon=1.0, delta=1e-6, noise=noise, random_state=3)
    cov = DPCovariance(bounds=(lo, hi), **common).fit(X).covariance_
    assert np.all(np.isfinite(cov))
    np.testing.assert_allclose(cov[2], 0.0, atol=1e-12)  # a constant has no variance
    lin = DPLinearRegression(bounds_X=(lo, hi), bounds_y=(0.0, 1.0), **common).fit(X, X[:, 0])
    assert np.all(np.isfinite(lin.coef_)) and abs(lin.coef_[0] - 1.0) < 0.3
    comp = DPPCA(n_components=2, bounds=(lo, hi), **common).fit(X).components_
    np.testing.assert_allclose(comp[:, 2], 0.0, atol=1e-9)
    shares = positive_shares(np.array([2.0, 0.0, 1.0]))
    assert np.all(shares > 0) and shares[1] < 1e-6 and math.isclose(shares.sum(), 1.0)
    np.testing.assert_allclose(positive_shares(np.zeros(4)), 0.25)
