"""The weighted upper-triangle release of the i.i.d. second-moment plans (task TR).

Bounds of :mod:`matrixdp.models._triangle` against exhaustive and random neighbouring pairs, the
plan's claimed entry variances and single charge, and the exact Gaussian privacy profile on a
worst-case pair (``docs/when_mvg_wins.md`` §9).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from matrixdp.models._moments import (augmented_task, balanced_constant, plan_second_moment,
                                      release_second_moment)
from matrixdp.models import _moments
from matrixdp.models._triangle import (add_remove_triangle_sq, add_remove_weights,
                                       replace_one_triangle, triangle_sq_norm)


@pytest.fixture(autouse=True)
def _triangle_switch_on(request, monkeypatch):
    """The triangle is a research allocation, switched in by ``_moments.IID_TRIANGLE`` (off by
    default): the tests below exercise it through ``noise="iid"`` with the switch on, except
    the one test of the shipped default."""
    if "shipped" not in request.node.name:
        monkeypatch.setattr(_moments, "IID_TRIANGLE", True)


def test_shipped_iid_plan_is_the_full_draw_and_the_triangle_switch_is_off():
    from matrixdp.models import DPCovariance

    assert _moments.IID_TRIANGLE is False and _moments.AUTO_TRIANGLES is False
    task = augmented_task(-np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0]), 50,
                          kind="covariance")[0]
    plan, _ = plan_second_moment(task, epsilon=1.0, delta=1e-6, noise="iid")
    assert plan.allocation == "iid" and plan.triangle is None
    X = np.random.default_rng(0).uniform(-1, 1, size=(50, 3))
    est = DPCovariance(bounds=(-1, 1), noise="iid", random_state=0).fit(X)
    assert est.allocation_ == "iid"


def _vertices(lo, hi):
    return np.array([np.where(np.array(b) == 1, hi, lo)
                     for b in itertools.product((0, 1), repeat=lo.size)])


def _pairs_max(lo, hi, x, rng, n=20000):
    V = _vertices(lo, hi)
    D = np.einsum("ai,aj->aij", V, V)[:, None] - np.einsum("ai,aj->aij", V, V)[None, :]
    best = float(np.max(triangle_sq_norm(D, x)))
    z = rng.uniform(lo, hi, size=(n, lo.size))
    zp = rng.uniform(lo, hi, size=(n, lo.size))
    D = np.einsum("ai,aj->aij", z, z) - np.einsum("ai,aj->aij", zp, zp)
    return max(best, float(np.max(triangle_sq_norm(D, x))))


@pytest.mark.parametrize("h", [[1.0, 2.0, 3.0, 4.0, 5.0], [3.0, 1.0, 0.5], [1.0, 1.0, 1.0]])
def test_replace_one_bound_holds_and_is_attained_with_a_balanced_constant(h):
    """No vertex or random pair exceeds R⁴ at x_max; the balanced constant attains it; the
    search does exceed it at 1.5·x_max (the check can fail)."""
    h = np.asarray(h)
    t = balanced_constant(h, float(np.mean(h * h)))
    lo, hi = np.append(-h, t), np.append(h, t)
    bound, x_max, fixed = replace_one_triangle(lo, hi)
    assert fixed.tolist() == [False] * h.size + [True]
    assert bound == pytest.approx((h @ h + t * t) ** 2)
    x = np.where(fixed, 0.0, x_max)
    found = _pairs_max(lo, hi, x, np.random.default_rng(0))
    assert found <= bound * (1 + 1e-12)
    assert found >= bound * (1 - 1e-9)
    worse = np.where(fixed, 0.0, 1.5 * x_max)
    assert _pairs_max(lo, hi, worse, np.random.default_rng(1)) > bound * (1 + 1e-6)


def test_replace_one_bound_holds_for_an_unbalanced_constant_and_an_asymmetric_box():
    rng = np.random.default_rng(2)
    for lo, hi in ((np.array([-3.0, -1.0, -0.5, 4.0]), np.array([3.0, 1.0, 0.5, 4.0])),
                   (np.array([-1.0, 0.0, -2.0]), np.array([3.0, 2.0, -1.0]))):
        bound, x_max, fixed = replace_one_triangle(lo, hi)
        assert _pairs_max(lo, hi, np.where(fixed, 0.0, x_max), rng) <= bound * (1 + 1e-12)


def test_add_remove_triangle_is_exact_at_the_farthest_vertex():
    lo, hi = np.array([-3.0, 0.0, -1.0, 2.0]), np.array([3.0, 0.5, 2.0, 2.0])
    reach = np.maximum(np.abs(lo), np.abs(hi))
    for x in (np.full(4, 0.5), np.ones(4), np.array([0.1, 3.0, 0.7, 2.0])):
        V = _vertices(lo, hi)
        vals = triangle_sq_norm(np.einsum("ai,aj->aij", V, V), x)
        assert np.max(vals) == pytest.approx(add_remove_triangle_sq(reach, x), rel=1e-12)
        z = np.random.default_rng(3).uniform(lo, hi, size=(5000, 4))
        assert np.max(triangle_sq_norm(np.einsum("ai,aj->aij", z, z), x)) <= \
            add_remove_triangle_sq(reach, x) * (1 + 1e-12)


def test_add_remove_weights_minimise_the_loss():
    """The closed form beats random positive weights on σ₁²-free loss (a + Σρx)(A + ΣB/x)."""
    task, _, _ = augmented_task(np.array([-3.0, 0.0, -1.0]), np.array([3.0, 0.5, 2.0]), None,
                                "covariance", neighbouring="add-remove")
    W, r = task.loss_matrix, task.reach
    diag = np.diagonal(W)

    def loss(x):
        return add_remove_triangle_sq(r, x) * (np.sum(W) - np.sum(diag) + np.sum(diag / x))

    best = loss(add_remove_weights(r, W))
    rng = np.random.default_rng(4)
    for _ in range(300):
        assert loss(np.exp(rng.normal(0, 2, r.size))) >= best * (1 - 1e-9)
    assert best < loss(np.full(r.size, 0.5))  # better than today's law


def _centred(h, n=500, kind="covariance", neighbouring="replace-one"):
    h = np.asarray(h, dtype=float)
    return augmented_task(-h, h, n, kind, neighbouring)


def test_iid_plan_is_the_triangle_and_keeps_the_off_diagonal_of_the_full_draw():
    """Balanced centred box: off-diagonal variance unchanged, diagonal variance σ²/(2x) (< σ²/2),
    the constant's diagonal as before, the same exact (ε, δ); auto's iid candidate unchanged."""
    task, _, t = _centred([1.0, 2.0, 3.0, 4.0, 5.0])
    new, _ = plan_second_moment(task, epsilon=1.0, delta=1e-6, noise="iid")
    old, _ = plan_second_moment(task, epsilon=1.0, delta=1e-6, noise="auto", allocation="iid")
    auto_cands = plan_second_moment(task, epsilon=1.0, delta=1e-6, noise="auto")[1]
    assert new.allocation == "iid-triangle" and old.allocation == "iid"
    assert auto_cands["iid"] == pytest.approx(old.expected_loss, rel=1e-15)
    assert "iid-triangle" not in auto_cands
    s2 = old.mechanism.sigma ** 2
    k = task.lower.size
    off = ~np.eye(k, dtype=bool)
    np.testing.assert_allclose(new.entry_variance[off], old.entry_variance[off], rtol=1e-12)
    np.testing.assert_allclose(old.entry_variance[off], s2 / 2, rtol=1e-12)
    _, x_max, fixed = replace_one_triangle(task.lower, task.upper)
    dv = np.diagonal(new.entry_variance)
    np.testing.assert_allclose(dv[~fixed], s2 / 2 / x_max[~fixed], rtol=1e-12)
    assert np.all(dv[~fixed] < s2 / 2)
    np.testing.assert_allclose(dv[fixed], s2, rtol=1e-12)  # the constant keeps x = 1/2
    assert new.privacy.exact and old.privacy.exact
    assert (new.privacy.epsilon, new.privacy.delta) == (old.privacy.epsilon, old.privacy.delta)
    assert new.expected_loss < 0.95 * old.expected_loss


@pytest.mark.parametrize("neighbouring", ["replace-one", "add-remove"])
def test_triangle_calibration_is_not_refuted_by_the_exact_profile_on_a_worst_pair(neighbouring):
    """The released vector's change on a worst-case pair of datasets, fed to the exact Gaussian
    profile at the plan's σ: δ(ε) <= δ (equal where the claim is exact); 0.7σ is refuted."""
    from matrixdp.calibration.gaussian import gaussian_delta

    h = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    n = 50
    task, _, t = _centred(h, n=n, neighbouring=neighbouring)
    plan, _ = plan_second_moment(task, epsilon=1.0, delta=1e-6, noise="iid")
    lay = plan.triangle
    if neighbouring == "replace-one":  # the balanced vertex pair: uᵀu' = -t²
        signs = np.array(list(itertools.product((-1, 1), repeat=h.size)))
        u = h
        up = signs[np.argmin(np.abs(signs @ (h * h) + t * t))] * h
        base = np.tile(np.append(np.zeros(h.size), t), (n, 1))
        Z1, Z2 = base.copy(), base.copy()
        Z1[0], Z2[0] = np.append(u, t), np.append(up, t)
    else:  # one record at the farthest vertex added
        Z1 = np.tile(np.append(np.zeros(h.size), t), (n, 1))
        Z2 = np.vstack([Z1, np.append(h, t)])
    q = task.query()
    G1, G2 = q.compute(Z1), q.compute(Z2)
    y = (G1 - G2)[lay.rows, lay.cols] * lay.root_x
    shift = float(np.linalg.norm(y))
    assert shift == pytest.approx(plan.mechanism.sensitivity, rel=1e-9)  # the pair is worst
    d = gaussian_delta(1.0, plan.mechanism.sigma, shift)
    assert d <= 1e-6 * (1 + 1e-6) and d >= 1e-6 * (1 - 1e-6)
    assert gaussian_delta(1.0, 0.7 * plan.mechanism.sigma, shift) > 2e-6


def test_triangle_release_is_charged_once_and_replays_with_its_seed():
    from matrixdp.accounting import Accountant
    from matrixdp.models import DPCovariance

    rng = np.random.default_rng(5)
    lo, hi = np.zeros(4), np.array([1.0, 2.0, 3.0, 4.0])
    X = rng.uniform(lo, hi, size=(400, 4))
    acc = Accountant(epsilon=1.0, delta=1e-5)
    a = DPCovariance(bounds=(lo, hi), noise="iid", epsilon=1.0, delta=1e-5, accountant=acc,
                     random_state=7).fit(X)
    assert len(acc.spends) == 1
    assert a.allocation_ == "iid-triangle" and a.noise_ == "iid"
    b = DPCovariance(bounds=(lo, hi), noise="iid", epsilon=1.0, delta=1e-5,
                     random_state=7).fit(X)
    np.testing.assert_array_equal(a.covariance_, b.covariance_)
    np.testing.assert_allclose(a.covariance_, a.covariance_.T)


def test_triangle_options_beat_their_full_draw_counterparts():
    """Every triangle allocation's expected loss is at most its full-matrix counterpart's (the
    fallback option is the full draw's law), on centred, Gram and add-remove tasks."""
    lo, hi = np.array([-1.0, 0.0, -3.0, 5.0]), np.array([2.0, 1.0, 3.0, 9.0])
    pairs = (("iid", "iid-triangle"), ("iid-unit-box", "iid-unit-box-triangle"),
             ("task-weighted", "task-weighted-triangle"), ("mse-optimal", "mse-optimal-triangle"))
    for kind in ("covariance", "correlation", "gram"):
        for nb in ("replace-one", "add-remove"):
            task, _, _ = augmented_task(lo, hi, 1000, kind, nb)
            for full, tri in pairs:
                a = plan_second_moment(task, epsilon=1.0, delta=1e-6, allocation=full)[0]
                b = plan_second_moment(task, epsilon=1.0, delta=1e-6, allocation=tri)[0]
                assert b.expected_loss <= a.expected_loss * (1 + 1e-12), (kind, nb, full)


def test_triangle_entry_variances_match_the_released_noise_add_remove():
    """Add-remove, loss-optimal weights: empirical entry variances within ±15% of the claim over
    2,000 seeds; 0.7x / 1.3x noise scale rejected."""
    task, _, t = _centred([1.0, 3.0, 0.5], neighbouring="add-remove")
    plan = plan_second_moment(task, epsilon=1.0, delta=1e-6, noise="iid")
    G = np.diag(np.append(np.ones(3), t * t))
    err = np.array([release_second_moment(None, task, epsilon=1.0, delta=1e-6, noise="iid",
                                          rng=s, value=G, plan=plan).value - G
                    for s in range(2000)])
    ratio = np.mean(err ** 2, axis=0) / plan[0].entry_variance
    assert np.all(np.abs(ratio - 1) < 0.15), ratio
    for wrong in (0.49, 1.69):
        assert np.all(np.abs(ratio / wrong - 1) > 0.15)


def test_noise_scale_is_the_diagonal_for_full_draws_and_the_off_diagonal_form_for_triangles():
    """The regression solvers' noise metric: bit for bit the diagonal sd for the full draws; for a
    triangle release √2·(off-diagonal sd), which covers every entry (s_i s_j/2 >= V_ij)."""
    from matrixdp.models._moments import noise_scale
    from matrixdp.models.joint_release import regression_task

    task = regression_task(np.zeros(4), np.array([1.0, 10.0, 80.0, 600.0]), -4.0, 4.0, 2000,
                           True)[0]
    for alloc in ("iid", "task-weighted", "mse-optimal"):
        V = plan_second_moment(task, epsilon=1.0, delta=1e-6, allocation=alloc)[0].entry_variance
        assert np.array_equal(noise_scale(V), np.sqrt(np.diagonal(V)))
    for alloc in ("iid-triangle", "task-weighted-triangle"):
        V = plan_second_moment(task, epsilon=1.0, delta=1e-6, allocation=alloc)[0].entry_variance
        s = noise_scale(V)
        off = ~np.eye(V.shape[0], dtype=bool)
        ratio = (np.outer(s, s) / 2)[off] / V[off]
        assert np.all(ratio >= 1 - 1e-9) and np.all(ratio <= 1 + 1e-6)
        assert np.all(s * s >= np.diagonal(V) * (1 - 1e-12))
        assert np.any(s * s > 1.5 * np.diagonal(V))  # the diagonal's own sd would be too small


@pytest.mark.parametrize("alloc", ["iid-unit-box-triangle", "task-weighted-triangle"])
def test_rescaled_triangle_plans_hold_on_vertex_pairs_and_claim_their_variances(alloc):
    """The MVG/unit-box rescalings (records times a public vector): every vertex pair's shift of
    the released vector is within the plan's sensitivity (so δ(ε) <= δ at its σ), and the
    empirical entry variances match the claim (±15% over 2,000 seeds; 0.7x / 1.3x rejected)."""
    from matrixdp.calibration.gaussian import gaussian_delta

    lo, hi = np.array([0.0, 0.0, -3.0]), np.array([1.0, 10.0, 3.0])
    n = 40
    task, c, t = augmented_task(lo, hi, n, "covariance")
    plan, cands = plan_second_moment(task, epsilon=1.0, delta=1e-6, allocation=alloc)
    lay, sc = plan.triangle, plan.scale
    V = _vertices(task.lower, task.upper)
    D = (np.einsum("ai,aj->aij", V, V)[:, None] - np.einsum("ai,aj->aij", V, V)[None, :]) / n
    y = (D * np.outer(sc, sc))[..., lay.rows, lay.cols] * lay.root_x
    shift = float(np.sqrt(np.max(np.sum(y * y, axis=-1))))
    assert shift <= plan.mechanism.sensitivity * (1 + 1e-9)
    assert gaussian_delta(1.0, plan.mechanism.sigma, shift) <= 1e-6 * (1 + 1e-6)
    G = np.diag(np.append(hi - lo, t * t))
    err = np.array([release_second_moment(None, task, epsilon=1.0, delta=1e-6, rng=s, value=G,
                                          plan=(plan, cands)).value - G for s in range(2000)])
    ratio = np.mean(err ** 2, axis=0) / plan.entry_variance
    assert np.all(np.abs(ratio - 1) < 0.15), ratio
    for wrong in (0.49, 1.69):
        assert np.all(np.abs(ratio / wrong - 1) > 0.15)


def test_auto_keeps_the_full_draws_unless_the_switch_is_on_and_then_adds_dominating_triangles(
        monkeypatch):
    """``AUTO_TRIANGLES`` (task TG's rule): the old candidates stay; a triangle is added only
    where it dominates its candidate entry by entry, and ``auto`` then never loses expected
    loss."""
    task, _, _ = _centred([1.0, 2.0, 3.0, 4.0, 5.0])
    _, cands = plan_second_moment(task, epsilon=1.0, delta=1e-6, noise="auto")
    assert set(cands) == {"iid", "task-weighted", "mse-optimal", "unit-box"}
    monkeypatch.setattr(_moments, "AUTO_TRIANGLES", True)
    best, tri = plan_second_moment(task, epsilon=1.0, delta=1e-6, noise="auto")
    assert set(cands) < set(tri)
    assert all(tri[name] == cands[name] for name in cands)
    assert best.expected_loss < min(cands.values()) and best.triangle is not None


def _auto_plans(task, eps=1.0):
    """``{allocation: plan}`` of every candidate ``auto`` compares with the switch on."""
    _, cands = plan_second_moment(task, epsilon=eps, delta=1e-6, noise="auto")
    return {name: plan_second_moment(task, epsilon=eps, delta=1e-6, allocation=name)[0]
            for name in cands}


_BASE_OF = {"iid-triangle": "iid", "iid-unit-box-triangle": "unit-box",
            "task-weighted-triangle": "task-weighted", "mse-optimal-triangle": "mse-optimal"}


@pytest.mark.parametrize("h,kind", [([1.0, 2.0, 3.0, 4.0, 5.0], "covariance"),
                                    ([1.0, 1.0, 1.0], "pca"),
                                    ([0.5, 30.0, 1e4, 2.0], "covariance"),
                                    ([1.0, 10.0, 100.0, 1000.0, 5.0, 7.0], "correlation")])
def test_auto_admits_a_triangle_only_where_it_dominates_its_candidate(monkeypatch, h, kind):
    """Every triangle ``auto`` admits is at most its candidate's variance in EVERY entry and
    strictly below in one (so it is the candidate's law minus independent diagonal noise); a
    triangle that trades (larger off-diagonal variance) is not admitted."""
    monkeypatch.setattr(_moments, "AUTO_TRIANGLES", True)
    task, _, _ = _centred(h, kind=kind)
    plans = _auto_plans(task)
    admitted = [name for name in plans if name in _BASE_OF]
    for name in admitted:
        V, B = plans[name].entry_variance, plans[_BASE_OF[name]].entry_variance
        assert np.all(V <= B * (1 + 1e-9)) and np.any(V < 0.9 * B)
        off = ~np.eye(V.shape[0], dtype=bool)
        np.testing.assert_allclose(V[off], B[off], rtol=1e-6)  # off-diagonals as the candidate's
    for name, base in _BASE_OF.items():
        if name in admitted:
            continue
        tri = plan_second_moment(task, epsilon=1.0, delta=1e-6, allocation=name)[0]
        V, B = tri.entry_variance, plans[base].entry_variance
        assert not (np.all(V <= B * (1 + 1e-9)) and np.any(V < B * (1 - 1e-9))) or \
            not np.any(tri.triangle.root_x > np.sqrt(0.5) * (1 + 1e-9))


def test_auto_does_not_admit_the_trade_where_the_bound_is_not_attained(monkeypatch):
    """Adult's public box in original units (no vertex pair attains the Frobenius bound): the
    i.i.d. triangle's plan takes ``x_max`` at ``R²/n`` and trades +16% off-diagonal variance for
    a quieter diagonal (task TG's diagnosis); ``auto`` does not admit it, and does admit the
    i.i.d. triangle on a box where the bound is attained."""
    lo = np.array([17.0, 1e4, 1.0, 0.0, 0.0, 1.0])
    hi = np.array([90.0, 2e6, 16.0, 99999.0, 5000.0, 99.0])
    task, _, _ = augmented_task(lo, hi, 1000, "covariance")
    tri = plan_second_moment(task, epsilon=1.0, delta=1e-6, allocation="iid-triangle")[0]
    full = plan_second_moment(task, epsilon=1.0, delta=1e-6, allocation="iid")[0]
    lay = tri.triangle
    assert np.all(lay.root_x[lay.rows == lay.cols][:-1] > 1.0)  # the plan kept its x_max option
    assert tri.entry_variance[0, 1] > 1.1 * full.entry_variance[0, 1]  # the trade
    assert _moments._dominating_triangle(task, 1.0, 1e-6, full, None, "iid-triangle") is None
    monkeypatch.setattr(_moments, "AUTO_TRIANGLES", True)
    assert "iid-triangle" not in plan_second_moment(task, epsilon=1.0, delta=1e-6,
                                                    noise="auto")[1]
    attained, _, _ = _centred([1.0, 2.0, 3.0, 4.0, 5.0])
    assert "iid-triangle" in plan_second_moment(attained, epsilon=1.0, delta=1e-6,
                                                noise="auto")[1]


@pytest.mark.parametrize("case", ["add-remove", "gram-not-attained"])
def test_auto_is_bit_identical_where_no_triangle_is_admitted(monkeypatch, case):
    """Where the rule admits no triangle (add-remove; a box where every triangle trades), the
    switch changes nothing: same plan, same candidates, the same released bytes for a seed."""
    if case == "add-remove":
        task, _, _ = _centred([1.0, 2.0, 3.0], neighbouring="add-remove")
    else:  # one-signed, very unequal Gram box: no triangle attains, none dominates
        task, _, _ = augmented_task(np.array([1.0, 5.0]), np.array([2.0, 400.0]), 50, "gram")
    Z = np.random.default_rng(3).uniform(task.lower, task.upper, size=(50, task.lower.size))
    out = {}
    for on in (False, True):
        monkeypatch.setattr(_moments, "AUTO_TRIANGLES", on)
        plan, cands = plan_second_moment(task, epsilon=1.0, delta=1e-6, noise="auto")
        rel = release_second_moment(Z, task, epsilon=1.0, delta=1e-6, noise="auto", rng=11)
        out[on] = (plan.allocation, cands, rel.value.tobytes(), rel.entry_variance.tobytes())
    assert not any(name.endswith("triangle") for name in out[True][1])
    assert out[True] == out[False]


def test_auto_triangle_release_claims_its_variances(monkeypatch):
    """The plan ``auto`` picks with the switch on (a triangle): the empirical entry variances of
    the released matrix match ``entry_variance`` (±15% over 2,000 seeds; 0.7x/1.3x in sd
    rejected)."""
    monkeypatch.setattr(_moments, "AUTO_TRIANGLES", True)
    lo, hi = np.array([0.0, 0.0, -3.0]), np.array([1.0, 10.0, 3.0])
    task, c, t = augmented_task(lo, hi, 40, "covariance")
    plan, cands = plan_second_moment(task, epsilon=1.0, delta=1e-6, noise="auto")
    assert plan.triangle is not None
    G = np.diag(np.append(hi - lo, t * t))
    err = np.array([release_second_moment(None, task, epsilon=1.0, delta=1e-6, rng=s, value=G,
                                          plan=(plan, cands)).value - G for s in range(2000)])
    ratio = np.mean(err ** 2, axis=0) / plan.entry_variance
    assert np.all(np.abs(ratio - 1) < 0.15), ratio
    for wrong in (0.49, 1.69):
        assert np.all(np.abs(ratio / wrong - 1) > 0.15)


def test_planned_releases_go_through_apply_plan_only():
    """A plan of ``plan_second_moment`` meets its mechanism in ONE place,
    ``_moments.apply_plan`` (scale and triangle layout). Task TG found the adaptive and CoinPress
    first looks calling ``plan.mechanism.release`` on the full matrix themselves: with a triangle
    plan (calibrated for the triangle vector) that full draw would carry √2 times the claimed
    Gaussian-DP parameter. No module of the package may do so again."""
    import re
    from pathlib import Path

    import matrixdp

    root = Path(matrixdp.__file__).resolve().parent
    pattern = re.compile(r"\.mechanism\.release\(")
    hits = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                  if pattern.search(p.read_text(encoding="utf-8")))
    assert hits == ["models/_moments.py"], hits
    src = (root / "models" / "_moments.py").read_text(encoding="utf-8")
    body = src[src.index("def apply_plan"):src.index("def average_releases")]
    assert len(pattern.findall(src)) == len(pattern.findall(body)) == 2


@pytest.mark.parametrize("method", ["coinpress", "adaptive"])
def test_first_looks_with_a_triangle_plan_release_the_triangle(monkeypatch, method):
    """With the switch on, the adaptive and CoinPress estimators' first look draws the triangle
    (one normal per upper-triangle entry), not a full k × k draw at the triangle's σ (which
    fails here without ``apply_plan``)."""
    from matrixdp.mechanisms import GaussianMechanism
    from matrixdp.models import DPCovariance

    monkeypatch.setattr(_moments, "AUTO_TRIANGLES", True)
    shapes = []
    orig = GaussianMechanism.release

    def spy(self, value, rng=None):
        shapes.append(np.shape(value))
        return orig(self, value, rng=rng)

    monkeypatch.setattr(GaussianMechanism, "release", spy)
    X = np.random.default_rng(0).uniform(-1, 1, size=(400, 4)) * np.array([1.0, 2.0, 3.0, 4.0])
    DPCovariance(epsilon=1.0, bounds=(-np.array([1.0, 2.0, 3.0, 4.0]),
                                      np.array([1.0, 2.0, 3.0, 4.0])),
                 method=method, random_state=0).fit(X)
    k = 5  # 4 features and the constant
    # the first look is the triangle vector, not a full draw of the augmented matrix at the
    # triangle's σ (later whitened steps are full draws at their own calibration)
    assert shapes[0] == (k * (k + 1) // 2,), shapes
