"""Auditing MVG: every calibration and mode is consistent; an over-claim is caught."""

import numpy as np
import pytest

from matrixdp import MVGMechanism
from matrixdp.audit import audit_mechanism, default_witnesses, exact_delta
from matrixdp.audit import catalogue as cat
from matrixdp.audit.statistics import log_likelihood_ratio_for
from matrixdp.mechanisms.mvg_sampler import mvg_logpdf
from matrixdp.queries import CovarianceQuery, IdentityQuery


@pytest.mark.parametrize("config", cat.MVG_CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}")
def test_every_mvg_calibration_and_mode_is_consistent(config):
    calibration, mode = config[0], config[1]
    row = cat.run_entry(f"mvg-{calibration}-{mode}", n_samples=10_000, seed=3)
    assert row.verdict == "consistent"
    assert row.epsilon_lower_bound < row.claimed_epsilon
    assert row.exact_delta <= row.claimed_delta * (1 + 1e-6)
    if calibration == "exact":   # tight: the profile meets the claim with equality
        assert row.exact_delta == pytest.approx(row.claimed_delta, rel=1e-6)


def test_overclaimed_mvg_is_caught():
    q = IdentityQuery(bounds=(0.0, 1.0), n_features=3, n_samples=4)
    mech = MVGMechanism(shape=(4, 3), epsilon=2.0, delta=1e-5, sensitivity=q, mode="unimodal",
                        precision=[0.6, 0.3, 0.1])
    a, b = default_witnesses(mech)[-1]
    res = audit_mechanism(mech, a, b, epsilon=0.5, delta=1e-5, n_samples=20_000, rng=0)
    assert not res.passed and res.epsilon_lower_bound > 0.5
    assert exact_delta(mech, 0.5) > 1e-5


def test_mahalanobis_witness_is_worse_than_frobenius_witness():
    q = IdentityQuery(bounds=(0.0, 1.0), n_features=3, n_samples=4)
    mech = MVGMechanism(shape=(4, 3), epsilon=1.0, delta=1e-5, sensitivity=q, mode="unimodal",
                        precision=[0.8, 0.15, 0.05])
    pairs = default_witnesses(mech)
    assert len(pairs) == 2
    llr = log_likelihood_ratio_for(mech)
    # The LLR of Gaussian noise is linear; its spread (2 x shift) is the Mahalanobis distance.
    shifts = []
    for a, b in pairs:
        d = b - a
        shifts.append(np.sqrt(np.sum(d * (np.linalg.inv(mech.row_cov) @ d @ np.linalg.inv(mech.col_cov)))))
    assert shifts[1] >= shifts[0] - 1e-12
    assert shifts[1] == pytest.approx(mech.mahalanobis_sensitivity, rel=1e-9)
    assert llr is not None


def test_matrix_llr_matches_mvg_density():
    q = CovarianceQuery(bounds=(0.0, 1.0), n_features=3, n_samples=10)
    mech = MVGMechanism(shape=(3, 3), epsilon=1.0, delta=1e-5, sensitivity=q, mode="equimodal",
                        precision=[0.6, 0.3, 0.1])
    a, b = default_witnesses(mech)[-1]
    y = a + mech.sample_noise((3, 3), rng=1)
    llr = log_likelihood_ratio_for(mech)(y[None], a, b)[0]
    expected = (mvg_logpdf(y, mech.row_cov, mech.col_cov, mean=b)
                - mvg_logpdf(y, mech.row_cov, mech.col_cov, mean=a))
    assert llr == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_catalogue_batch_draws_come_from_the_mechanisms_own_sampler():
    from scipy import stats
    entry = {e.name: e for e in cat.catalogue()}["mvg-exact-unimodal"]
    wrapped, _ = entry.build()
    mech = wrapped._mechanism
    single = mech.sample_noise(mech.shape, rng=11)
    batch = wrapped.sample_noise_batch(1, mech.shape, rng=11)
    assert batch.shape == (1,) + mech.shape and np.array_equal(batch[0], single)
    many = wrapped.sample_noise_batch(3000, mech.shape, rng=1)
    loop = np.stack([mech.sample_noise(mech.shape, rng=g)
                     for g in np.random.default_rng(2).integers(0, 2**32, 3000)])
    u = np.random.default_rng(3).standard_normal(mech.shape)
    assert stats.ks_2samp(np.tensordot(many, u, 2), np.tensordot(loop, u, 2)).pvalue > 1e-4
    assert wrapped.privacy == mech.privacy and wrapped.privacy_profile(1.0) == mech.privacy_profile(1.0)
