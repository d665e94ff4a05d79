"""GaussianMechanism: scale, release contract, statistical checks, errors."""

import numpy as np
import pytest
from scipy.stats import kstest, norm

import matrixdp
from matrixdp.calibration import analytic_gaussian_sigma, classic_gaussian_sigma
from matrixdp.errors import InvalidParameterError, InvalidPrivacyParameterError, NonFiniteInputError

ALPHA = 1e-6  # KS significance: tiny, so a true-scale failure is a real bug


def test_sigma_and_moments():
    m = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=2.0)
    assert m.sigma == pytest.approx(analytic_gaussian_sigma(1.0, 1e-5, 2.0))
    assert m.scale == m.sigma and m.variance == pytest.approx(m.sigma ** 2)
    assert m.bias == 0.0 and m.mse == m.variance
    c = matrixdp.GaussianMechanism(epsilon=0.5, delta=1e-5, sensitivity=2.0, calibration="classic")
    assert c.sigma == pytest.approx(classic_gaussian_sigma(0.5, 1e-5, 2.0))
    assert not c.privacy.exact and m.privacy.exact


def test_release_contract():
    m = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    rel = m.release(np.ones((4, 5)), rng=0)
    assert rel.value.shape == (4, 5) and rel.value.dtype == np.float64
    assert rel.privacy.epsilon == 1.0 and rel.privacy.delta == 1e-5
    assert rel.privacy.neighbouring == "replace-one" and rel.privacy.calibration == "analytic"
    assert rel.noise.per_entry_variance == pytest.approx(m.variance)
    assert rel.noise.expected_squared_error == pytest.approx(20 * m.variance)
    assert isinstance(m.release(3.0, rng=0).value, float)
    assert m.release(np.zeros(3, np.float32), rng=0).value.dtype == np.float32
    assert m.release(np.zeros(3, int), rng=0).value.dtype == np.float64


def test_seeded_release_repeats_and_default_differs():
    m = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    assert np.array_equal(m.release(np.zeros(5), rng=3).value, m.release(np.zeros(5), rng=3).value)
    assert not np.array_equal(m.release(np.zeros(5)).value, m.release(np.zeros(5)).value)


@pytest.mark.parametrize("calibration,eps", [("analytic", 2.0), ("classic", 0.5)])
@pytest.mark.parametrize("rng", [12345, None])
def test_noise_has_the_claimed_scale(calibration, eps, rng):
    m = matrixdp.GaussianMechanism(epsilon=eps, delta=1e-6, sensitivity=1.0, calibration=calibration)
    noise = m.release(np.zeros(20000), rng=rng).value
    assert kstest(noise, norm(scale=m.sigma).cdf).pvalue > ALPHA
    for wrong in (0.7, 1.3):
        assert kstest(noise, norm(scale=wrong * m.sigma).cdf).pvalue < ALPHA


def test_large_array_single_pass():
    m = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    value = np.zeros(10 ** 6)
    out = m.release(value, rng=1).value
    assert out.shape == value.shape and abs(out.std() / m.sigma - 1) < 0.01


@pytest.mark.parametrize("kwargs,name", [
    (dict(epsilon=0, delta=1e-5, sensitivity=1), "epsilon"),
    (dict(epsilon=1, delta=0, sensitivity=1), "delta"),
    (dict(epsilon=1, delta=1, sensitivity=1), "delta"),
    (dict(epsilon=1, delta=1e-5, sensitivity=0), "sensitivity"),
    (dict(epsilon=1, delta=1e-5, sensitivity=float("nan")), "sensitivity"),
    (dict(epsilon=2, delta=1e-5, sensitivity=1, calibration="classic"), "epsilon"),
])
def test_bad_parameters(kwargs, name):
    with pytest.raises(InvalidPrivacyParameterError, match=name):
        matrixdp.GaussianMechanism(**kwargs)


def test_bad_calibration_name_and_relation():
    with pytest.raises(InvalidParameterError, match="calibration"):
        matrixdp.GaussianMechanism(epsilon=1, delta=1e-5, sensitivity=1, calibration="magic")
    with pytest.raises(InvalidParameterError, match="neighbouring"):
        matrixdp.GaussianMechanism(epsilon=1, delta=1e-5, sensitivity=1, neighbouring="swap")


def test_non_finite_value_rejected():
    m = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    with pytest.raises(NonFiniteInputError, match="value"):
        m.release(np.array([1.0, np.nan]))


def test_profile_and_dp_event():
    m = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    assert m.privacy_profile(1.0) == pytest.approx(1e-5, rel=1e-6)
    dp_accounting = pytest.importorskip("dp_accounting")
    event = m.to_dp_event()
    assert isinstance(event, dp_accounting.GaussianDpEvent)
    assert event.noise_multiplier == pytest.approx(m.sigma)


# --------------------------------------------------------------- the small-release fast path
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_fast_path_still_rejects_non_finite_float64_arrays(bad):
    m = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0)
    for shape in [(10,), (3, 4)]:
        x = np.zeros(shape)
        x.flat[-1] = bad
        with pytest.raises(NonFiniteInputError):
            m.release(x)
        with pytest.raises(NonFiniteInputError):
            m.release(x[:, None] if x.ndim == 1 else x.T)  # non-contiguous views too


def test_fast_path_accepts_huge_finite_entries():
    m = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0)
    out = m.release(np.full(4, 1e300), rng=0).value
    assert np.all(np.isfinite(out))


def test_fast_path_same_floats_as_before():
    m = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=2.0)
    x = np.arange(10.0)
    z = np.random.Generator(np.random.PCG64(5)).standard_normal(10)
    np.testing.assert_array_equal(m.release(x, rng=5).value, x + z * m.sigma)


def test_configuration_cannot_change_after_construction():
    # hunt HY (session 19): ``m.epsilon = 0.5`` after construction used to be accepted, and every
    # later release claimed epsilon 0.5 with the noise calibrated for 1 (this test asserted it).
    # The configuration is now fixed, so the cached terms can never go stale.
    m = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0)
    x = np.zeros(10)
    r1 = m.release(x, rng=0)
    for name, value in (("epsilon", 0.5), ("sigma", 0.1), ("sensitivity", 100.0),
                        ("delta", 0.5), ("neighbouring", "add-remove")):
        with pytest.raises(AttributeError, match=f"{name} cannot be set after construction"):
            setattr(m, name, value)
    r2 = m.release(x, rng=0)
    assert r2.privacy == r1.privacy and np.array_equal(r2.value, r1.value)
    assert m.release(np.zeros(3)).noise.expected_squared_error == pytest.approx(3 * m.sigma ** 2)


def test_charge_still_refuses_before_the_draw():
    from matrixdp.accounting import Accountant
    from matrixdp.errors import BudgetExceededError

    m = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0)
    acc = Accountant(epsilon=1.0, delta=1e-6)

    class Spy(np.random.Generator):
        draws = 0

        def standard_normal(self, *a, **k):
            Spy.draws += 1
            return super().standard_normal(*a, **k)

    gen = Spy(np.random.PCG64(0))
    with acc:
        m.release(np.zeros(10), rng=gen)
        with pytest.raises(BudgetExceededError):
            m.release(np.zeros(10), rng=gen)
    assert Spy.draws == 1
    m.release(np.zeros(10), rng=gen, accountant=Accountant(epsilon=1.0, delta=1e-6))
    assert Spy.draws == 2


def test_with_sensitivity_keeps_the_claim_and_scales_the_noise():
    """``with_sensitivity``: same (ε, δ), calibration, relation and numerics; σ ∝ Δ (μ kept)."""
    from matrixdp.mechanisms import GaussianMechanism

    for calibration in ("analytic", "classic"):
        mech = GaussianMechanism(epsilon=0.5, delta=1e-6, sensitivity=2.0, calibration=calibration,
                                 neighbouring="add-remove")
        other = mech.with_sensitivity(6.0)
        assert (other.epsilon, other.delta, other.calibration, other.neighbouring, other.numerics) \
            == (mech.epsilon, mech.delta, mech.calibration, mech.neighbouring, mech.numerics)
        assert other.sensitivity == 6.0
        assert other.sigma == pytest.approx(3.0 * mech.sigma, rel=1e-9)
        assert mech.sensitivity == 2.0  # the original is unchanged


def test_sigma_that_under_or_overflows_is_refused_not_released():
    # hunt HY: sigma 0.0 (ZeroDivisionError in .privacy, or no noise) and sigma^2 overflow
    # (OverflowError in the noise summary) at extreme public inputs
    from matrixdp.errors import InvalidPrivacyParameterError
    with pytest.raises(InvalidPrivacyParameterError, match="sensitivity: .*underflows"):
        matrixdp.GaussianMechanism(epsilon=1e20, delta=1e-6, sensitivity=5e-324)
    with pytest.raises(InvalidPrivacyParameterError, match="sensitivity: .*overflows"):
        matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1e300)
    m = matrixdp.GaussianMechanism(epsilon=1e300, delta=1e-6, sensitivity=1.0)  # was ValueError
    assert m.sigma > 0 and m.privacy_profile(1e300) <= 1e-6
