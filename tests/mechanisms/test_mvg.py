"""MVGMechanism: every calibration is private, exact is tight, allocation trades, bad input raises."""

import math
import numpy as np
import pytest

import matrixdp
from matrixdp import DPDirectionsMVG, MVGMechanism
from matrixdp.calibration.gaussian import analytic_gaussian_sigma, max_gaussian_shift
from matrixdp.calibration.mvg_theorems import (
    equimodal_precision_budget,
    precision_norm_product,
    theorem2_budget,
    unimodal_precision_budget,
)
from matrixdp.calibration.mvg_exact import exact_privacy_profile, mahalanobis_sensitivity
from matrixdp.calibration.allocation import binary_allocation, mse_optimal_allocation
from matrixdp.errors import (
    InvalidParameterError,
    InvalidPrivacyParameterError,
    InvalidShapeError,
    NonFiniteInputError,
    NotPositiveSemidefiniteError,
    OutOfBoundsError,
)
from matrixdp.queries import CovarianceQuery, IdentityQuery


def _rotation(d, rng):
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diagonal(r))


def _independent_delta(mech, eps):
    """delta(eps) recomputed from the dense row_cov/col_cov (independent eigendecompositions)."""
    return exact_privacy_profile(eps, mech.query, mech.row_cov, mech.col_cov)


def test_public_api_names():
    assert matrixdp.MVGMechanism is MVGMechanism
    assert matrixdp.mechanisms.MVGMechanism is MVGMechanism
    assert matrixdp.queries.IdentityQuery is IdentityQuery


# ----------------------------------------------------------------------------- privacy grid
def _grid_cases(rng, n_cases):
    for _ in range(n_cases):
        eps = float(rng.choice([0.1, 0.5, 1.0, 3.0]))
        delta = float(rng.choice([1e-8, 1e-5, 1e-3]))
        m, n = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        kind = rng.choice(["number", "identity", "covariance"])
        yield eps, delta, m, n, kind


@pytest.mark.parametrize("calibration", ["exact", "theorem2", "theorem3"])
def test_every_calibration_is_private_on_a_random_grid(calibration):
    rng = np.random.default_rng({"exact": 0, "theorem2": 1, "theorem3": 2}[calibration])
    checked = 0
    for eps, delta, m, n, kind in _grid_cases(rng, 40):
        if kind == "identity":
            sens = IdentityQuery(bounds=(-rng.uniform(0, 2, n), rng.uniform(0.1, 2, n)), n_samples=m)
            shape = (m, n)
        elif kind == "covariance":
            sens = CovarianceQuery(bounds=(-1.0, rng.uniform(0.5, 2)), n_features=n, n_samples=50)
            shape = (n, n)
        else:
            sens = float(rng.uniform(0.1, 3))
            shape = (m, n) if calibration != "theorem3" else (m, m)
        if calibration == "theorem3" and kind == "identity":
            continue
        modes = ["iid", "equimodal"] if calibration == "theorem3" else ["iid", "unimodal"]
        if shape[0] == shape[1] and kind != "identity" and calibration != "theorem3":
            modes.append("equimodal")
        for mode in modes:
            dim = shape[0] if (mode == "equimodal" or kind != "identity") else shape[1]
            kw = {}
            if mode != "iid":
                kw["directions"] = _rotation(dim, rng) if rng.random() < 0.5 else None
                kw["precision"] = rng.dirichlet(np.ones(dim))
            if calibration != "exact" and kind == "number":
                kw["gamma"] = sens * rng.uniform(0.5, 10)
            mech = MVGMechanism(shape=shape, epsilon=eps, delta=delta, sensitivity=sens,
                                calibration=calibration, mode=mode, **kw)
            assert mech.privacy_profile(eps) <= delta * (1 + 1e-7)
            assert _independent_delta(mech, eps) <= delta * (1 + 1e-6)
            checked += 1
    assert checked >= 40


def test_exact_standard_basis_is_tight():
    rng = np.random.default_rng(3)
    for _ in range(15):
        eps = float(rng.uniform(0.05, 5))
        delta = float(10 ** rng.uniform(-9, -2))
        m, n = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        q = IdentityQuery(bounds=(-rng.uniform(0, 2, n), rng.uniform(0.1, 2, n)), n_samples=m)
        for sens, mode, kw in [(float(rng.uniform(0.1, 4)), "iid", {}),
                               (float(rng.uniform(0.1, 4)), "unimodal", {"precision": rng.dirichlet(np.ones(m))}),
                               (q, "iid", {}),
                               (q, "unimodal", {"precision": rng.dirichlet(np.ones(n))})]:
            mech = MVGMechanism(shape=(m, n), epsilon=eps, delta=delta, sensitivity=sens, mode=mode, **kw)
            assert mech.privacy.exact
            assert mech.privacy_profile(eps) == pytest.approx(delta, rel=1e-6)
            assert _independent_delta(mech, eps) == pytest.approx(delta, rel=1e-6)


def test_exact_iid_noise_never_exceeds_analytic_gaussian():
    rng = np.random.default_rng(4)
    for _ in range(10):
        eps, delta = float(rng.uniform(0.1, 4)), float(10 ** rng.uniform(-8, -3))
        n = int(rng.integers(1, 6))
        for sens in (float(rng.uniform(0.1, 3)),
                     IdentityQuery(bounds=(0, rng.uniform(0.5, 2, n)), n_samples=7),
                     CovarianceQuery(bounds=(-1, 1), n_features=n, n_samples=20)):
            shape = (n, n) if isinstance(sens, CovarianceQuery) else (7, n)
            s2 = sens if isinstance(sens, float) else sens.sensitivity_l2
            mech = MVGMechanism(shape=shape, epsilon=eps, delta=delta, sensitivity=sens)
            sigma2 = analytic_gaussian_sigma(eps, delta, s2) ** 2
            assert mech.noise_summary().per_entry_variance <= sigma2 * (1 + 1e-9)
            # the MSE-optimal directional allocation is never worse than i.i.d. either
            if not isinstance(sens, CovarianceQuery):
                costs = matrixdp.queries.as_structure(sens, shape).direction_costs(col_dirs=np.eye(n))
                opt = MVGMechanism(shape=shape, epsilon=eps, delta=delta, sensitivity=sens, mode="unimodal",
                                   axis=1, precision=mse_optimal_allocation(costs))
                assert opt.noise_summary().expected_squared_error <= sigma2 * 7 * n * (1 + 1e-9)


def test_directional_allocation_trades_precision_at_no_privacy_cost():
    q = IdentityQuery(bounds=(0, 1), n_features=6, n_samples=50)
    eps, delta = 1.0, 1e-5
    iid = MVGMechanism(shape=(50, 6), epsilon=eps, delta=delta, sensitivity=q)
    theta = binary_allocation([0, 5], 90, 6)
    directional = MVGMechanism(shape=(50, 6), epsilon=eps, delta=delta, sensitivity=q, precision=theta)
    assert directional.mode == "unimodal" and directional.axis == 1
    v_iid = iid.noise_summary().per_entry_variance
    # important features get 2.7x less noise variance than i.i.d., the others more, same (eps, delta)
    assert directional.variances[0] == pytest.approx(v_iid / (0.45 * 6), rel=1e-9)
    assert directional.variances[1] > v_iid
    assert directional.privacy_profile(eps) == pytest.approx(delta, rel=1e-6)
    assert directional.privacy.exact
    # on a Frobenius ball there is nothing to trade: the exact calibration keeps every direction
    # at most as noisy as... the best direction equals i.i.d.
    ball = MVGMechanism(shape=(6, 4), epsilon=eps, delta=delta, sensitivity=2.0, precision=theta)
    ball_iid = MVGMechanism(shape=(6, 4), epsilon=eps, delta=delta, sensitivity=2.0)
    assert ball.variances.min() == pytest.approx(ball_iid.variances[0], rel=1e-9)


# ----------------------------------------------------------------------------- noise scale
@pytest.mark.parametrize("factor, accept", [(1.0, True), (0.7, False), (1.3, False)])
def test_empirical_noise_matches_claimed_scale(factor, accept):
    rng = np.random.default_rng(5)
    w = _rotation(4, rng)
    mech = MVGMechanism(shape=(4, 50), epsilon=1.0, delta=1e-5, sensitivity=1.0, mode="unimodal",
                        directions=w, precision=[0.4, 0.3, 0.2, 0.1])
    gen = np.random.default_rng(7)
    draws = np.stack([mech.release(np.zeros((4, 50)), rng=gen).value for _ in range(200)])
    proj = np.einsum("di,kdn->kin", w, draws)              # coordinates along the directions
    emp = proj.var(axis=(0, 2))
    claimed = mech.variances * factor ** 2
    n_samples = 200 * 50
    tol = 5 * math.sqrt(2 / n_samples)                      # 5 standard errors of a variance ratio
    ok = np.all(np.abs(emp / claimed - 1) < tol)
    assert ok == accept
    # row/column covariances E[Z Z^T] = tr(Psi) Sigma
    zz = np.einsum("kmn,kpn->mp", draws, draws) / 200
    np.testing.assert_allclose(zz, 50 * mech.row_cov, atol=0.1 * np.abs(50 * mech.row_cov).max())


def test_release_shape_seed_and_summary():
    mech = MVGMechanism(shape=(3, 2), epsilon=1.0, delta=1e-5, sensitivity=1.0)
    a = mech.release(np.zeros((3, 2)), rng=3)
    b = mech.release(np.zeros((3, 2)), rng=3)
    np.testing.assert_array_equal(a.value, b.value)
    assert a.value.shape == (3, 2) and a.privacy.epsilon == 1.0 and a.noise.distribution == "mvg"
    assert a.metadata["mahalanobis_sensitivity"] == pytest.approx(max_gaussian_shift(1.0, 1e-5))
    assert a.noise.per_entry_variance == pytest.approx(analytic_gaussian_sigma(1.0, 1e-5, 1.0) ** 2)


# ----------------------------------------------------------------------------- paper algorithms (spec §11)
def test_algorithm1_structure_and_budget_equality():
    rng = np.random.default_rng(6)
    w = _rotation(3, rng)
    theta = np.array([0.5, 0.3, 0.2])
    mech = MVGMechanism(shape=(3, 8), epsilon=1.0, delta=1e-3, sensitivity=0.5, gamma=2.0,
                        calibration="theorem2", mode="unimodal", directions=w, precision=theta)
    p = unimodal_precision_budget(1.0, 1e-3, (3, 8), 0.5, 2.0)
    assert mech.precision_budget == pytest.approx(p)
    np.testing.assert_allclose(mech.col_cov, np.eye(8))
    np.testing.assert_allclose(mech.row_cov, w @ np.diag(1 / np.sqrt(theta * p)) @ w.T, rtol=1e-10)
    # spec §11.5: the Theorem 2 condition holds with equality for sum(theta) = 1
    assert precision_norm_product(mech.row_cov, mech.col_cov) == pytest.approx(
        theorem2_budget(1.0, 1e-3, (3, 8), 0.5, 2.0), rel=1e-9)
    assert not mech.privacy.exact


def test_algorithm2_and_iid_variances():
    m, n = 4, 6
    mech = MVGMechanism(shape=(4, 4), epsilon=1.0, delta=1e-3, sensitivity=0.5, gamma=1.0,
                        calibration="theorem3", mode="equimodal")
    np.testing.assert_allclose(mech.row_cov, mech.col_cov)
    p3 = equimodal_precision_budget(1.0, 1e-3, 4, 0.5, 1.0, theorem=3)
    np.testing.assert_allclose(np.diagonal(mech.row_cov), math.sqrt(4 / p3))   # Sigma = sqrt(m/P) I
    iid = MVGMechanism(shape=(m, n), epsilon=1.0, delta=1e-3, sensitivity=0.5, gamma=1.0,
                       calibration="theorem2")
    b2 = theorem2_budget(1.0, 1e-3, (m, n), 0.5, 1.0)
    assert iid.noise_summary().per_entry_variance == pytest.approx(math.sqrt(m * n) / b2, rel=1e-10)


def test_theorem_calibrations_are_vastly_conservative():
    q = CovarianceQuery(bounds=(-1, 1), n_features=4, n_samples=1000)
    t3 = MVGMechanism(shape=(4, 4), epsilon=1.0, delta=1e-3, sensitivity=q, calibration="theorem3")
    t2 = MVGMechanism(shape=(4, 4), epsilon=1.0, delta=1e-3, sensitivity=q, calibration="theorem2",
                      mode="equimodal")
    ex = MVGMechanism(shape=(4, 4), epsilon=1.0, delta=1e-3, sensitivity=q, mode="equimodal")
    assert t3.gamma == q.gamma == 4.0
    assert ex.noise_summary().per_entry_variance < t3.noise_summary().per_entry_variance \
        < t2.noise_summary().per_entry_variance
    assert t3.privacy_profile(1.0) < 1e-3 * 1e-3


# ----------------------------------------------------------------------------- DP directions
def test_dp_directions_budget_split_and_composition():
    rng = np.random.default_rng(8)
    X = rng.uniform(-1, 1, size=(300, 5)) * np.array([1, 0.2, 0.2, 0.2, 1])
    q = IdentityQuery(bounds=(-1, 1), n_features=5, n_samples=300)
    mech = DPDirectionsMVG(shape=(300, 5), epsilon=1.0, delta=1e-5, sensitivity=q,
                           random_state=1, precision="max-pnr").fit(X).mechanism_
    assert mech.dp_directions.epsilon == pytest.approx(0.2) and mech.dp_directions.delta == pytest.approx(2e-6)
    assert mech.privacy.epsilon == 1.0 and mech.privacy.delta == 1e-5 and not mech.privacy.exact
    assert mech.privacy_profile(0.8) <= 0.8e-5 * (1 + 1e-7)
    np.testing.assert_allclose(mech.directions.T @ mech.directions, np.eye(5), atol=1e-10)
    assert mech.theta.sum() == pytest.approx(1.0)
    assert any("composition" in note for note in mech.privacy.notes)
    with pytest.raises(InvalidPrivacyParameterError):
        MVGMechanism(shape=(300, 5), epsilon=1.0, delta=1e-5, sensitivity=q,
                     dp_directions=(np.eye(5), matrixdp.PrivacyGuarantee(1.0, 1e-6)))


# ----------------------------------------------------------------------------- bad input
def test_bad_inputs_raise_documented_errors():
    base = dict(shape=(3, 3), epsilon=1.0, delta=1e-5, sensitivity=1.0)
    with pytest.raises(InvalidParameterError, match="directions"):
        MVGMechanism(**base, mode="unimodal", directions=np.ones((3, 3)))
    with pytest.raises(InvalidParameterError, match="precision"):
        MVGMechanism(**base, mode="unimodal", precision=[0.5, -0.1, 0.6])
    with pytest.raises(InvalidParameterError, match="precision"):
        MVGMechanism(**base, mode="unimodal", precision=[0.5, 0.4, 0.3])
    with pytest.raises(InvalidParameterError, match="gamma"):
        MVGMechanism(**base, calibration="theorem2")
    with pytest.raises(InvalidShapeError, match="shape"):
        MVGMechanism(shape=(3, 4), epsilon=1.0, delta=1e-5, sensitivity=1.0, mode="equimodal")
    with pytest.raises(InvalidShapeError):
        MVGMechanism(shape=(3, 4), epsilon=1.0, delta=1e-5, sensitivity=1.0, gamma=2.0,
                     calibration="theorem3")
    with pytest.raises(InvalidParameterError, match="calibration"):
        MVGMechanism(**base, calibration="paper")
    with pytest.raises(InvalidParameterError, match="mode"):
        MVGMechanism(**base, mode="bimodal")
    with pytest.raises(InvalidParameterError, match="mode"):
        MVGMechanism(**base, gamma=2.0, calibration="theorem3", mode="unimodal")
    with pytest.raises(InvalidPrivacyParameterError):
        MVGMechanism(shape=(3, 3), epsilon=0.0, delta=1e-5, sensitivity=1.0)
    with pytest.raises(InvalidPrivacyParameterError):
        MVGMechanism(shape=(3, 3), epsilon=1.0, delta=1.0, sensitivity=1.0)
    with pytest.raises(InvalidParameterError, match="calibration"):
        MVGMechanism(shape=(4, 4), epsilon=1.0, delta=1e-5, calibration="theorem3",
                     sensitivity=IdentityQuery(bounds=(0, 1), n_features=4, n_samples=4))
    mech = MVGMechanism(**base)
    with pytest.raises(InvalidShapeError):
        mech.release(np.zeros((3, 4)))
    with pytest.raises(NonFiniteInputError):
        mech.release(np.full((3, 3), np.nan))
    equi = MVGMechanism(**base, mode="equimodal")
    with pytest.raises(InvalidParameterError, match="symmetric"):
        equi.release(np.arange(9.0).reshape(3, 3))
    t3 = MVGMechanism(**base, gamma=2.0, calibration="theorem3")
    with pytest.raises(NotPositiveSemidefiniteError):
        t3.release(-np.eye(3))
    q = IdentityQuery(bounds=(0, 1), n_features=3, n_samples=2)
    with pytest.raises(OutOfBoundsError):
        MVGMechanism(shape=(2, 3), epsilon=1.0, delta=1e-5, sensitivity=q).release(np.full((2, 3), 2.0))
    with pytest.raises(InvalidShapeError):
        MVGMechanism(shape=(3, 3), epsilon=1.0, delta=1e-5, sensitivity=q)


def test_unused_budget_warns_and_is_not_exact():
    with pytest.warns(UserWarning, match="sum"):
        mech = MVGMechanism(shape=(3, 2), epsilon=1.0, delta=1e-5, sensitivity=1.0, mode="unimodal",
                            precision=[0.3, 0.3, 0.3])
    assert not mech.privacy.exact
    assert mech.privacy_profile(1.0) < 1e-5


def test_record_axis_directional_noise_on_identity_query():
    rng = np.random.default_rng(10)
    q = IdentityQuery(bounds=(0, rng.uniform(0.5, 2, 3)), n_samples=5)
    mech = MVGMechanism(shape=(5, 3), epsilon=0.7, delta=1e-6, sensitivity=q, mode="unimodal", axis=0,
                        directions=_rotation(5, rng), precision=rng.dirichlet(np.ones(5)))
    np.testing.assert_allclose(mech.col_cov, np.eye(3))
    assert mech.privacy_profile(0.7) == pytest.approx(1e-6, rel=1e-6)   # max_k diag exact
    assert _independent_delta(mech, 0.7) == pytest.approx(1e-6, rel=1e-6)


def test_mechanism_witnesses_attain_the_mahalanobis_sensitivity():
    q = IdentityQuery(bounds=([0, -1, 0], [1, 1, 3]), n_samples=4)
    mech = MVGMechanism(shape=(4, 3), epsilon=1.0, delta=1e-5, sensitivity=q, precision=[0.2, 0.5, 0.3],
                        directions=_rotation(3, np.random.default_rng(11)))
    pairs = mech.witnesses()
    a, b = pairs[-1]
    d = (a - b).reshape(-1, order="F")
    cov = np.kron(mech.col_cov, mech.row_cov)
    assert math.sqrt(d @ np.linalg.solve(cov, d)) == pytest.approx(mech.mahalanobis_sensitivity, rel=1e-9)
    for x, y in pairs:
        q.compute(x), q.compute(y)


def test_paper_experiment_one_budget_through_the_identity_query():
    """Exp. I (spec §2.4): s2 = 2 sqrt(6) and gamma = sqrt(1488) come from the query's bounds."""
    q = IdentityQuery(bounds=(-1.0, 1.0), n_features=6, n_samples=248)
    mech = MVGMechanism(shape=(248, 6), epsilon=1.0, delta=1 / 248, sensitivity=q,
                        calibration="theorem2", precision=binary_allocation([2, 5], 95, 6))
    assert mech.axis == 1 and mech.gamma == pytest.approx(math.sqrt(1488))
    assert mech.precision_budget == pytest.approx(1.638461694e-23, rel=1e-7)
    np.testing.assert_allclose(mech.row_cov, np.eye(248))
    assert mech.privacy_profile(1.0) < 1e-100


def test_exact_profile_invariant_under_rescaling_sigma_psi():
    rng = np.random.default_rng(13)
    q = IdentityQuery(bounds=(0, 1), n_features=3, n_samples=4)
    a = _rotation(4, rng) @ np.diag(rng.uniform(0.5, 2, 4)) @ _rotation(4, rng).T
    sigma = a @ a.T
    b = rng.standard_normal((3, 3))
    psi = b @ b.T + np.eye(3)
    base = mahalanobis_sensitivity(q, sigma, psi).value
    for scale in (1e-3, 0.5, 7.0):
        assert mahalanobis_sensitivity(q, scale * sigma, psi / scale).value == pytest.approx(base, rel=1e-9)


def test_tall_unimodal_standard_basis_is_not_materialised():
    import time

    t0 = time.perf_counter()
    mech = MVGMechanism(shape=(200_000, 3), epsilon=1.0, delta=1e-6, sensitivity=1.0, mode="unimodal",
                        precision=np.full(200_000, 1 / 200_000))
    assert time.perf_counter() - t0 < 5.0          # an eye(200000) would need 320 GB
    assert mech.privacy.exact and mech.directions is None
    assert mech.privacy_profile(1.0) == pytest.approx(1e-6, rel=1e-6)


def test_neighbouring_relation_must_match_the_query():
    q = IdentityQuery(bounds=(0, 1), n_features=2, n_samples=3)
    with pytest.raises(InvalidParameterError, match="neighbouring"):
        MVGMechanism(shape=(3, 2), epsilon=1.0, delta=1e-5, sensitivity=q, neighbouring="add-remove")
    mech = MVGMechanism(shape=(3, 2), epsilon=1.0, delta=1e-5, sensitivity=1.0, neighbouring="add-remove")
    assert mech.privacy.neighbouring == "add-remove"


def test_dp_event_matches_the_exact_profile():
    dp_accounting = pytest.importorskip("dp_accounting")
    mech = MVGMechanism(shape=(3, 4), epsilon=1.0, delta=1e-5, sensitivity=IdentityQuery(
        bounds=(0, [1, 2, 3, 4]), n_samples=3), precision=[0.4, 0.3, 0.2, 0.1])
    acc = dp_accounting.pld.PLDAccountant()
    acc.compose(mech.to_dp_event())
    assert acc.get_delta(1.0) == pytest.approx(1e-5, rel=1e-2)


def test_mode_conflicts_raise():
    q = IdentityQuery(bounds=(0, 1), n_features=3, n_samples=3)
    with pytest.raises(InvalidParameterError, match="mode"):
        MVGMechanism(shape=(3, 3), epsilon=1.0, delta=1e-5, sensitivity=q, mode="equimodal")
    with pytest.raises(InvalidParameterError, match="mode"):
        MVGMechanism(shape=(3, 3), epsilon=1.0, delta=1e-5, sensitivity=q, mode="iid",
                     dp_directions=np.zeros((3, 3)))


def test_identity_query_without_count_takes_it_from_the_shape():
    q = IdentityQuery(bounds=(-1, 1), n_features=6)
    mech = MVGMechanism(shape=(248, 6), epsilon=1.0, delta=1 / 248, sensitivity=q, calibration="theorem2")
    assert mech.gamma == pytest.approx(math.sqrt(1488)) and q.n_samples is None
    assert len(mech.witnesses()) == 2


@pytest.mark.parametrize("mode", ["unimodal", "equimodal", "iid"])
def test_construction_computes_the_shift_bound_once_and_it_equals_a_fresh_one(monkeypatch, mode):
    """The final Mahalanobis bound is the calibration's bound rescaled (mu^2 is linear in each
    axis's precisions): one shift_bound and one orthonormality check per construction, and the
    rescaled bound equals a fresh computation to 1e-12."""
    import matrixdp._linalg as linalg
    import matrixdp.mechanisms.mvg as mvg_module
    from matrixdp.rng import random_directions

    d = 12
    query = (CovarianceQuery(bounds=(-1.0, 1.0), n_features=d, n_samples=40) if mode == "equimodal"
             else IdentityQuery(bounds=(0.0, 1.0), n_features=d, n_samples=30))
    shape = (d, d) if mode == "equimodal" else (30, d)
    dirs = None if mode == "iid" else random_directions(d, d, rng=3)
    calls = {"shift": 0, "check": 0}
    original_shift = type(query).shift_bound
    original_check = linalg.check_directions

    def counting_shift(self, *a, **k):
        calls["shift"] += 1
        return original_shift(self, *a, **k)

    def counting_check(*a, **k):
        calls["check"] += 1
        return original_check(*a, **k)

    monkeypatch.setattr(type(query), "shift_bound", counting_shift)
    monkeypatch.setattr(mvg_module, "check_directions", counting_check)
    monkeypatch.setattr(linalg, "check_directions", counting_check)
    mech = MVGMechanism(shape=shape, epsilon=1.0, delta=1e-5, sensitivity=query, mode=mode,
                        directions=dirs)
    assert calls["shift"] == 1
    assert calls["check"] == (0 if dirs is None else 1)
    fresh = original_shift(mech.query, mech._row, mech._col)
    assert mech.mahalanobis_sensitivity == pytest.approx(fresh.value, rel=1e-12)
    # uniform shares sum to 1: the calibration spends the whole budget
    assert mech.mahalanobis_sensitivity == pytest.approx(mech.max_shift, rel=1e-9)
    assert mech.privacy_profile(1.0) <= 1e-5 * (1 + 1e-7)


@pytest.mark.parametrize("precision", ["uniform", "spread"])
def test_large_d_calibration_is_the_dense_one_or_more_conservative(monkeypatch, precision):
    """Above DENSE_BOX_MAX_DIM the shift bound comes from the eigen-form (no d x d precision) and
    the orthonormality check from probes: on random directions the calibration equals the dense
    one (uniform shares) or adds at least as much noise in every direction (spread shares)."""
    import matrixdp.queries.geometry as geometry
    from matrixdp.rng import random_directions

    d = geometry.DENSE_BOX_MAX_DIM + 44
    rng = np.random.default_rng(5)
    theta = None if precision == "uniform" else rng.dirichlet(np.full(d, 0.3))
    query = IdentityQuery(bounds=(0.0, 1.0), n_features=d, n_samples=20)
    for seed in range(3):
        dirs = random_directions(d, d, rng=seed)
        kw = dict(shape=(20, d), epsilon=1.0, delta=1e-5, sensitivity=query, directions=dirs,
                  precision=theta)
        new = MVGMechanism(**kw)
        with monkeypatch.context() as m:
            m.setattr(geometry, "DENSE_BOX_MAX_DIM", 10 ** 6)
            old = MVGMechanism(**kw)
        assert np.all(new.precisions <= old.precisions * (1 + 1e-12))
        assert new.privacy_profile(1.0) <= 1e-5 * (1 + 1e-7)
        if precision == "uniform":
            np.testing.assert_allclose(new.precisions, old.precisions, rtol=1e-12)


@pytest.mark.parametrize("defect", ["column", "entry"])
def test_large_d_non_orthonormal_directions_are_refused(defect):
    from matrixdp.rng import random_directions

    d = 300
    dirs = random_directions(d, d, rng=1)
    if defect == "column":
        dirs[:, 5] *= 1 + 1e-7
    else:
        dirs[17, 250] += 1e-6
    query = IdentityQuery(bounds=(0.0, 1.0), n_features=d, n_samples=20)
    with pytest.raises(InvalidParameterError, match="orthonormal"):
        MVGMechanism(shape=(20, d), epsilon=1.0, delta=1e-5, sensitivity=query, directions=dirs)


def test_large_d_orthonormality_probes_leave_the_secure_stream_and_the_calibration_alone(
        monkeypatch):
    """The probes come from a fresh OS-keyed generator, not from the secure noise stream (the
    construction draws nothing from it), and the calibration is the one with the exact check
    (identical precisions and bound): the probes decide nothing but accept/refuse."""
    import matrixdp.mechanisms.mvg as mvg_module
    import matrixdp.rng as rng_module
    from matrixdp.rng import random_directions

    d = 300
    dirs = random_directions(d, d, rng=4)
    query = IdentityQuery(bounds=(0.0, 1.0), n_features=d, n_samples=20)
    kw = dict(shape=(20, d), epsilon=1.0, delta=1e-5, sensitivity=query, directions=dirs)

    def refuse():
        raise AssertionError("the construction drew from the secure noise stream")

    with monkeypatch.context() as m:
        m.setattr(rng_module, "secure_stream", refuse)
        m.setattr(rng_module, "fresh_secure_rng", refuse)
        probed = MVGMechanism(**kw)
    with monkeypatch.context() as m:
        m.setattr(mvg_module, "_orthonormality_probes", lambda dim: None)   # the exact check
        exact = MVGMechanism(**kw)
    assert np.array_equal(probed.precisions, exact.precisions)
    assert probed.mahalanobis_sensitivity == exact.mahalanobis_sensitivity
    assert probed.directions is dirs or np.array_equal(probed.directions, dirs)


@pytest.mark.parametrize("defect", ["nan", "zero column", "bad shares"])
def test_large_d_directions_refusal_comes_before_the_calibration(defect):
    """Above 256 the certificate decides after the calibration (sharing a pass over the
    directions), but a refusal is still what the caller sees: non-finite directions raise
    NonFiniteInputError, non-orthonormal ones (even when the calibration also fails, here with
    invalid shares) the orthonormality error, as with the check before the calibration."""
    from matrixdp.errors import NonFiniteInputError
    from matrixdp.rng import random_directions

    d = 300
    dirs = random_directions(d, d, rng=2)
    kw = {}
    if defect == "nan":
        dirs[7, 8] = np.nan
    elif defect == "zero column":
        dirs[:, 9] = 0.0
    else:
        dirs[:, 9] *= 1 + 1e-6
        kw["precision"] = np.full(d, -1.0 / d)
    query = IdentityQuery(bounds=(0.0, 1.0), n_features=d, n_samples=20)
    error = NonFiniteInputError if defect == "nan" else InvalidParameterError
    with pytest.raises(error) as info:
        MVGMechanism(shape=(20, d), epsilon=1.0, delta=1e-5, sensitivity=query, directions=dirs,
                     **kw)
    assert info.value.argument == "directions"
    if defect != "nan":
        assert "orthonormal" in str(info.value)


@pytest.mark.parametrize("eps,sens,what", [(1e300, 1e-300, "underflows"), (1.0, 1e300, "overflows")])
def test_noise_scale_that_under_or_overflows_is_refused_by_name(eps, sens, what):
    # hunt HY: ZeroDivisionError, or "variances: contains NaN or infinite entries; clean or
    # impute them" (no argument of the caller named)
    from matrixdp.errors import InvalidPrivacyParameterError
    with pytest.raises(InvalidPrivacyParameterError, match=f"^sensitivity: .*{what}"):
        MVGMechanism(shape=(3, 2), epsilon=eps, delta=1e-6, sensitivity=sens)
    # huge epsilon alone works (the profile was NaN there) and keeps its claim
    m = MVGMechanism(shape=(3, 2), epsilon=1e300, delta=1e-6, sensitivity=1.0)
    assert m.privacy_profile(1e300) <= 1e-6
