"""The public API contract that the issues' acceptance checks call, exercised end to end."""

import numpy as np
import pytest

import matrixdp


def test_foundation_contract():
    from matrixdp.calibration import (analytic_gaussian_sigma, classic_gaussian_sigma,
                                      gaussian_delta, gaussian_epsilon)
    from matrixdp.rng import make_rng

    sigma = analytic_gaussian_sigma(1.0, 1e-5, 1.0)
    assert classic_gaussian_sigma(0.5, 1e-5, 1.0) > sigma / 2
    assert gaussian_epsilon(gaussian_delta(1.0, sigma, 1.0), sigma, 1.0) == pytest.approx(1.0, rel=1e-8)
    for mech in (matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0),
                 matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)):
        rel = mech.release(np.zeros(3), rng=make_rng(0))
        assert rel.value.shape == (3,) and rel.privacy.epsilon == 1.0
        assert rel.privacy.delta in (0.0, 1e-5)


def test_mvg_contract():
    from matrixdp.calibration.allocation import binary_allocation, max_pnr_allocation
    from matrixdp.mechanisms.mvg_sampler import sample_mvg
    from matrixdp.queries import CovarianceQuery, IdentityQuery

    Z = sample_mvg(np.eye(3), 2 * np.eye(4), rng=0, method="affine")
    assert Z.shape == (3, 4)
    assert sample_mvg(np.eye(2), np.eye(2), rng=0, method="kronecker").shape == (2, 2)
    q = IdentityQuery(bounds=(np.zeros(4), np.ones(4)), n_samples=10)
    c = CovarianceQuery(bounds=(np.zeros(4), np.ones(4)), n_samples=10)
    for query in (q, c):
        assert query.sensitivity_l2 > 0 and query.gamma > 0
    mech = matrixdp.MVGMechanism(shape=(10, 4), epsilon=1.0, delta=1e-5, sensitivity=q)
    rel = mech.release(np.full((10, 4), 0.5), rng=0)
    assert rel.value.shape == (10, 4)
    assert mech.privacy_profile(1.0) <= 1e-5 * (1 + 1e-6)
    for attr in ("row_cov", "col_cov", "precision_budget", "mahalanobis_sensitivity"):
        assert getattr(mech, attr) is not None
    for calibration, mode in [("theorem2", "unimodal"), ("theorem3", "equimodal"), ("exact", "iid")]:
        m = matrixdp.MVGMechanism(shape=(4, 4), epsilon=1.0, delta=1e-5, sensitivity=1.0,
                                  calibration=calibration, mode=mode, gamma=4.0, axis=0)
        assert m.privacy_profile(1.0) <= 1e-5 * (1 + 1e-6)
    theta = binary_allocation([0, 1], 80, dim=4)
    assert theta.sum() == pytest.approx(1.0)
    assert max_pnr_allocation(np.array([4.0, 2.0, 1.0, 0.5]), 10.0).sum() <= 1 + 1e-9


def test_audit_and_r1smg_contract():
    from matrixdp.audit import audit_mechanism, exact_delta
    from matrixdp.errors import UnsafeMechanismError

    gauss = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    assert exact_delta(gauss, 1.0) == pytest.approx(1e-5, rel=1e-6)
    res = audit_mechanism(gauss, np.zeros(2), np.array([1.0, 0.0]), epsilon=1.0, delta=1e-5,
                          n_samples=2000, rng=0)
    assert res.passed and res.epsilon_lower_bound < 1.0
    with pytest.raises(UnsafeMechanismError, match="r1smg"):
        matrixdp.R1SMGMechanism(dim=10, epsilon=0.05, delta=1e-5, sensitivity=1.0)
    with pytest.warns(Warning):
        r = matrixdp.R1SMGMechanism(dim=10, epsilon=0.05, delta=1e-5, sensitivity=1.0, allow_unsafe=True)
        assert not r.release(np.zeros(10), rng=0).privacy.exact


def test_rongauss_contract():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 6))
    model = matrixdp.RONGauss(dim=3, epsilon=1.0, random_state=0).fit(X)
    assert model.sample(5, rng=0).shape[0] == 5
    assert model.privacy_.epsilon == pytest.approx(1.0)
    for attr in ("projection_", "mean_", "covariance_"):
        assert getattr(model, attr) is not None


def test_fisher_contract():
    from matrixdp.errors import OutOfBoundsError

    ranges = [(0.0, 1.0)] * 3  # (n_features, 2): one (low, high) per feature
    X = np.random.default_rng(0).uniform(size=(50, 3))
    rel = matrixdp.FisherNoiseMechanism(epsilon=1.0, delta=1e-5, feature_ranges=ranges).release(X)
    assert rel.value.shape == X.shape and rel.privacy.neighbouring == "local"
    assert rel.privacy.epsilon == pytest.approx(1.0) and rel.privacy.delta == pytest.approx(1e-5)
    with pytest.raises(OutOfBoundsError):
        matrixdp.FisherNoiseMechanism(lam=1.0, feature_ranges=ranges).release(X + 2.0)
