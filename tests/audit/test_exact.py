"""exact_delta: dispatch and the Laplace profile."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

import matrixdp
from matrixdp.audit import NoExactProfileError, exact_delta, has_exact_profile, laplace_delta
from matrixdp.calibration.gaussian import gaussian_delta


def hockey_stick(pdf_p, pdf_q, eps, lo=-60, hi=60):
    val, _ = integrate.quad(lambda t: max(0.0, pdf_p(t) - math.exp(eps) * pdf_q(t)), lo, hi,
                            points=[0.0, 1.0], limit=400)
    return val


def test_gaussian_dispatch_uses_exact_profile():
    for cal, eps in (("analytic", 1.0), ("classic", 0.5)):
        m = matrixdp.GaussianMechanism(epsilon=eps, delta=1e-5, sensitivity=2.0, calibration=cal)
        for e in (0.1, eps, 3.0):
            assert exact_delta(m, e) == pytest.approx(gaussian_delta(e, m.sigma, 2.0))
    analytic = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    assert exact_delta(analytic, 1.0) == pytest.approx(1e-5, rel=1e-6)
    classic = matrixdp.GaussianMechanism(epsilon=0.5, delta=1e-5, sensitivity=1.0, calibration="classic")
    assert exact_delta(classic, 0.5) < 1e-5


def test_duck_typed_gaussian_noise():
    class Noise:
        sigma, sensitivity = 2.0, 1.0
    assert exact_delta(Noise(), 0.5) == pytest.approx(gaussian_delta(0.5, 2.0, 1.0))
    assert has_exact_profile(Noise())


@pytest.mark.parametrize("eps0", [0.5, 1.0, 3.0])
def test_laplace_profile_matches_numerical_hockey_stick(eps0):
    b = 1.0 / eps0
    p = stats.laplace(loc=0, scale=b).pdf
    q = stats.laplace(loc=1.0, scale=b).pdf
    for e in (0.0, 0.3 * eps0, 0.9 * eps0):
        assert laplace_delta(e, eps0) == pytest.approx(hockey_stick(p, q, e), abs=1e-7)
    assert laplace_delta(eps0, eps0) == 0.0 and laplace_delta(2 * eps0, eps0) == 0.0
    m = matrixdp.LaplaceMechanism(epsilon=eps0, sensitivity=3.0)
    assert exact_delta(m, 0.5 * eps0) == pytest.approx(laplace_delta(0.5 * eps0, eps0))


def test_laplace_split_shift_is_not_worse_than_one_coordinate():
    # The profile is for the shift along one coordinate; a shift split over two coordinates
    # (same L1 norm) has a smaller δ — checked by Monte Carlo of the privacy loss.
    rng = np.random.default_rng(0)
    eps0 = 1.0
    y = rng.laplace(size=(1_000_000, 2))
    loss = (np.abs(y - 0.5).sum(axis=1) - np.abs(y).sum(axis=1)) * eps0   # ln p(y)/p'(y), y ~ p
    for e in (0.2, 0.5):
        split = np.mean(np.maximum(0, -np.expm1(e - loss)))
        assert split <= laplace_delta(e, eps0) + 0.002


def test_r1smg_true_profile_and_unknown_mechanism():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = matrixdp.R1SMGMechanism(dim=100, epsilon=1.0, delta=1e-5, sensitivity=1.0,
                                    allow_unsafe=True)
    assert exact_delta(r, 1.0) > 0.9   # claimed 1e-5

    class Opaque:
        def sample_noise(self, shape, rng=None):
            return np.zeros(shape)
    with pytest.raises(NoExactProfileError, match="audit_mechanism"):
        exact_delta(Opaque(), 1.0)
    assert not has_exact_profile(Opaque())
    with pytest.raises(ValueError, match="epsilon"):
        exact_delta(r, -1.0)
