import numpy as np
import pytest
from scipy.stats import kstest, laplace

import matrixdp
from matrixdp.errors import InvalidPrivacyParameterError, NonFiniteInputError

ALPHA = 1e-6


def test_scale_moments_and_guarantee():
    m = matrixdp.LaplaceMechanism(epsilon=0.5, sensitivity=2.0)
    assert m.scale == pytest.approx(4.0)
    assert m.variance == pytest.approx(32.0) and m.mse == m.variance and m.bias == 0
    p = m.privacy
    assert p.epsilon == 0.5 and p.delta == 0.0 and p.exact and "pure" in str(p)


@pytest.mark.parametrize("rng", [7, None])
def test_noise_has_the_claimed_scale(rng):
    m = matrixdp.LaplaceMechanism(epsilon=0.5, sensitivity=2.0)
    noise = m.release(np.zeros((100, 200)), rng=rng).value.ravel()
    assert kstest(noise, laplace(scale=m.scale).cdf).pvalue > ALPHA
    for wrong in (0.7, 1.3):
        assert kstest(noise, laplace(scale=wrong * m.scale).cdf).pvalue < ALPHA


def test_release_keeps_shape_and_kind():
    m = matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
    assert m.release(np.zeros((2, 3, 4)), rng=0).value.shape == (2, 3, 4)
    assert isinstance(m.release(1, rng=0).value, float)


@pytest.mark.parametrize("kwargs,name", [(dict(epsilon=-1, sensitivity=1), "epsilon"),
                                         (dict(epsilon=1, sensitivity=0), "sensitivity")])
def test_bad_parameters(kwargs, name):
    with pytest.raises(InvalidPrivacyParameterError, match=name):
        matrixdp.LaplaceMechanism(**kwargs)


def test_non_finite_rejected():
    with pytest.raises(NonFiniteInputError):
        matrixdp.LaplaceMechanism(epsilon=1, sensitivity=1).release([np.inf])


def test_dp_event():
    dp_accounting = pytest.importorskip("dp_accounting")
    event = matrixdp.LaplaceMechanism(epsilon=0.5, sensitivity=2.0).to_dp_event()
    assert isinstance(event, dp_accounting.LaplaceDpEvent) and event.noise_multiplier == pytest.approx(2.0)


def test_noise_scale_that_underflows_is_refused_not_released():
    # hunt HY: epsilon=1e300, sensitivity=1e-300 gave scale 0.0 and released the exact value
    # under a "pure epsilon-DP" guarantee
    with pytest.raises(InvalidPrivacyParameterError, match="sensitivity: .*underflows"):
        matrixdp.LaplaceMechanism(epsilon=1e300, sensitivity=1e-300)
    with pytest.raises(InvalidPrivacyParameterError, match="epsilon: .*overflows"):
        matrixdp.LaplaceMechanism(epsilon=1e-300, sensitivity=1.0)   # was an OverflowError
    m = matrixdp.LaplaceMechanism(epsilon=1e300, sensitivity=1.0)     # tiny but > 0: kept
    assert m.scale > 0 and np.isfinite(m.variance)
