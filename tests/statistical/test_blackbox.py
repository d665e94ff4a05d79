"""The black-box auditor's false-accusation rate over many independent audits (slow)."""

import math

import pytest

import matrixdp
from matrixdp.audit import audit_mechanism, default_witnesses


def audit(mech, n, seed=0, **kw):
    (a, b), = default_witnesses(mech)
    return audit_mechanism(mech, a, b, n_samples=n, rng=seed, **kw)


@pytest.mark.slow
def test_false_accusation_rate_below_one_minus_confidence_for_tight_gaussian():
    # 200 independent audits of the exact (tight) analytic Gaussian at confidence 0.9: the
    # fraction of bounds above the true epsilon must not exceed 10% (it is far lower, since
    # Bonferroni and Clopper-Pearson are conservative). One-sided binomial check at 3 sigma.
    mech = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-2, sensitivity=1.0)
    runs = 200
    above = sum(audit(mech, n=4_000, seed=s, confidence=0.9).epsilon_lower_bound > 1.0
                for s in range(runs))
    assert above / runs <= 0.1 + 3 * math.sqrt(0.1 * 0.9 / runs)
