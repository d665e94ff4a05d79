"""The exact-path audit can fail: a deliberately under-noised exact mechanism is refuted.

Issue #23: the exact-numerics audits asserted only that a mechanism is cleared, so they could not
detect too little noise. Here an exact (lattice, discrete Gaussian) mechanism draws its noise at
a fraction of its calibrated sigma while keeping its (epsilon, delta) claim; the black-box
auditor, on the worst-case pair (one coordinate moved by the sensitivity), must refute the
claim, and on the honest mechanism with the same seed and sample size it must clear it.
"""

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from matrixdp import GaussianMechanism
from matrixdp.audit import audit_mechanism


class _UnderNoisedExact(GaussianMechanism):
    """Exact Gaussian noise at ``shrink``² of the calibrated lattice variance; the claim is kept."""

    shrink2 = Fraction(49, 100)

    def _plan(self, size):
        plan = super()._plan(size)
        return dataclasses.replace(plan, sigma2=plan.sigma2 * self.shrink2)


def _under(shrink2, **kw):
    cls = type("UnderNoised", (_UnderNoisedExact,), {"shrink2": shrink2})
    return cls(**kw)


@pytest.mark.parametrize("delta, shrink2, label", [
    (1e-2, Fraction(49, 100), "sigma x 0.7"),
    (1e-5, Fraction(1, 4), "sigma x 0.5"),
])
@pytest.mark.parametrize("seed", [0, 1])
def test_auditor_refutes_an_under_noised_exact_gaussian(delta, shrink2, label, seed):
    kw = dict(epsilon=1.0, delta=delta, sensitivity=1.0, numerics="exact")
    under = _under(shrink2, **kw)
    assert under.privacy.epsilon == 1.0 and under.privacy.delta == delta    # same claim
    res = audit_mechanism(under, np.zeros(1), np.ones(1), n_samples=100_000, rng=seed)
    assert not res.passed and res.epsilon_lower_bound > 1.0, (label, str(res))
    honest = audit_mechanism(GaussianMechanism(**kw), np.zeros(1), np.ones(1),
                             n_samples=100_000, rng=seed)
    assert honest.passed, str(honest)
