"""The auditor refuses pairs that are not neighbouring for the mechanism it audits."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp import FisherNoiseMechanism, GaussianMechanism, LaplaceMechanism
from matrixdp.audit import audit_mechanism
from matrixdp.audit.pairs import check_pair
from matrixdp.errors import InvalidParameterError


def _gauss():
    return GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)


def test_a_pair_five_times_the_declared_sensitivity_is_refused_not_refuted():
    with pytest.raises(InvalidParameterError, match="not a neighbouring pair"):
        audit_mechanism(_gauss(), np.zeros(3), [5.0, 0.0, 0.0], n_samples=2000, rng=0)


def test_laplace_pairs_are_measured_in_l1():
    mech = LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
    # L2 distance 0.85 < 1 but L1 distance 1.2 > 1: not neighbouring for an L1 calibration
    with pytest.raises(InvalidParameterError, match="l1"):
        audit_mechanism(mech, np.zeros(2), [0.6, 0.6], n_samples=2000, rng=0)
    res = audit_mechanism(mech, np.zeros(2), [0.5, 0.5], n_samples=2000, rng=0)
    assert res.pair_checked and res.pair_neighbouring


def test_a_pair_at_exactly_the_sensitivity_is_audited_and_passes():
    res = audit_mechanism(_gauss(), np.zeros(3), [0.6, 0.8, 0.0], n_samples=4000, rng=1)
    assert res.pair_checked and res.pair_neighbouring and res.passed


def test_opting_in_measures_the_pair_without_a_verdict():
    with pytest.warns(UserWarning, match="not a neighbouring pair"):
        res = audit_mechanism(_gauss(), np.zeros(3), [5.0, 0.0, 0.0], n_samples=4000, rng=2,
                              allow_non_neighbouring=True)
    assert res.epsilon_lower_bound > res.claimed_epsilon  # the wide pair is easy to tell apart
    assert not res.pair_neighbouring and res.passed
    assert "no verdict" in str(res) and "REFUTED" not in str(res)


def test_local_dp_records_must_lie_in_the_public_box_and_differ_in_one_record():
    mech = FisherNoiseMechanism(epsilon=1.0, delta=1e-5, feature_ranges=[[0.0, 1.0]] * 2)
    assert check_pair(mech, [0.0, 0.0], [1.0, 1.0]).neighbouring
    outside = check_pair(mech, [0.0, 0.0], [1.5, 1.0])
    assert outside.checked and not outside.neighbouring and "feature_ranges" in outside.reason
    two_records = check_pair(mech, np.zeros((3, 2)), np.ones((3, 2)))
    assert not two_records.neighbouring and "one" in two_records.reason


def test_a_query_checks_its_answers_and_its_sensitivity():
    from matrixdp.queries import IdentityQuery

    query = IdentityQuery(bounds=(-1.0, 1.0), n_features=2, n_samples=3)
    a = np.zeros((3, 2))
    b = a.copy()
    b[0] = [1.0, 1.0]
    assert check_pair(_gauss(), a, b, query=query).neighbouring is False  # 1.41 > Gaussian's 1
    wide = GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=query.sensitivity_l2)
    assert check_pair(wide, a, b, query=query).neighbouring
    b[0] = [2.0, 0.0]  # outside the query's public box: not an answer of the query
    verdict = check_pair(wide, a, b, query=query)
    assert not verdict.neighbouring and "value_prime" in verdict.reason


def test_a_mechanism_without_a_declared_sensitivity_is_audited_unchecked():
    class Bare:
        name = "bare"

        def sample_noise(self, shape, rng=None):
            return np.random.default_rng(rng).normal(size=shape)

    res = audit_mechanism(Bare(), np.zeros(1), np.ones(1), epsilon=1.0, delta=1e-5,
                          n_samples=2000, rng=3)
    assert not res.pair_checked and res.pair_neighbouring


def test_mvg_pairs_are_measured_in_the_noise_geometry():
    from matrixdp import MVGMechanism
    from matrixdp.queries import FrobeniusBall

    mech = MVGMechanism(shape=(3, 2), epsilon=1.0, delta=1e-5, sensitivity=FrobeniusBall(1.0))
    row = np.linalg.cholesky(mech.row_cov)
    col = np.linalg.cholesky(mech.col_cov)
    unit = np.zeros((3, 2))
    unit[0, 0] = 1.0
    # D = L_row U L_colᵀ has Mahalanobis norm ‖U‖_F exactly
    at_bound = row @ (mech.mahalanobis_sensitivity * unit) @ col.T
    assert check_pair(mech, np.zeros((3, 2)), 0.999 * at_bound).neighbouring
    verdict = check_pair(mech, np.zeros((3, 2)), 1.5 * at_bound)
    assert verdict.checked and not verdict.neighbouring and verdict.norm == "mahalanobis"
