"""numerics="exact" on the Gaussian and Laplace mechanisms: lattice outputs, guarantees that say
so, public per-shape plans, and the float path's stated assumption."""

import math
from fractions import Fraction

import numpy as np
import pytest

import matrixdp
from matrixdp.errors import InvalidParameterError
from matrixdp.mechanisms.lattice import gaussian_lattice_plan, lattice_release, to_lattice
from matrixdp.rng import make_rng


def exact_mechanisms():
    return [matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=2.0, numerics="exact"),
            matrixdp.LaplaceMechanism(epsilon=0.5, sensitivity=1.0, numerics="exact")]


@pytest.mark.parametrize("mech", exact_mechanisms(), ids=["gaussian", "laplace"])
def test_exact_release_lies_on_the_public_lattice(mech):
    value = np.linspace(-3, 3, 12).reshape(3, 4)
    rel = mech.release(value, rng=0)
    g = mech._plan(value.size).granularity
    assert rel.value.shape == (3, 4)
    assert np.all(rel.value / g == np.rint(rel.value / g))
    assert rel.privacy.numerics == "exact" and rel.privacy.notes[0].startswith("numerics: exact")
    assert f"for {value.size} entries" in rel.privacy.notes[0]
    assert isinstance(mech.release(0.3, rng=1).value, float)
    # seeded exact releases replay (documented: whoever knows the seed can replay them)
    assert np.array_equal(mech.release(value, rng=5).value, mech.release(value, rng=5).value)


@pytest.mark.parametrize("mech", exact_mechanisms(), ids=["gaussian", "laplace"])
def test_exact_noise_has_the_planned_scale(mech):
    out = mech.release(np.zeros(200_000), rng=3).value
    plan = mech._plan(200_000)
    sd = plan.noise_std
    # sample variance within 5 standard errors (kurtosis <= 6 for the Laplace), and not 30% off
    tol = 5 * sd ** 2 * math.sqrt(5 / 200_000)
    assert abs(out.var() - sd ** 2) < tol
    assert abs(out.var() - (1.3 * sd) ** 2) > tol and abs(out.var() - (0.7 * sd) ** 2) > tol
    assert mech.noise_summary((200_000,)).per_entry_variance == pytest.approx(sd ** 2)


def test_float_path_is_unchanged_and_says_what_it_assumes():
    g = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    assert g.numerics == "float" and g.privacy.calibration == "analytic" and g.privacy.exact
    assert "idealised real arithmetic" in g.privacy.notes[0]
    assert not hasattr(g, "release_batch")
    lap = matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
    assert lap.privacy.numerics == "float" and lap.scale == 1.0


def test_exact_gaussian_sigma_is_calibrated_on_the_inflated_lattice_sensitivity():
    mech = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0, numerics="exact")
    plan = mech._plan(1000)
    assert plan.sensitivity == math.floor((1 / plan.granularity + math.sqrt(1000)) ** 2)
    assert mech.privacy_profile(1.0) <= 1e-5
    analytic = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0).sigma
    assert analytic < mech.sigma < 1.12 * analytic
    assert plan.parameter == pytest.approx(mech.sigma, rel=2e-3)


def test_user_granularity_and_validation():
    mech = matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0, numerics="exact", granularity=0.25)
    plan = mech._plan(3)
    assert plan.granularity == 0.25 and plan.sensitivity == 4 + 3 and plan.scale == Fraction(7)
    with pytest.raises(InvalidParameterError, match="granularity"):
        matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0, numerics="exact", granularity=0.3)
    with pytest.raises(InvalidParameterError, match="numerics"):
        matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0, numerics="fast")


def test_to_lattice_is_exact_rounding_and_clips_huge_values():
    g = 2.0 ** -3
    x = np.array([0.0625, 0.1875 - 1e-17, -0.3, 1e300, -1e300])
    r = to_lattice(x, g)
    assert r[0] == 0 and r[1] == 2 and r[2] == -2          # ties to even; exact x/g
    assert r[3] == 2 ** 61 and r[4] == -(2 ** 61)


def test_batch_release_matches_one_at_a_time_law():
    plan = gaussian_lattice_plan(1.0, 1e-5, 1.0, 2)
    out = lattice_release(np.array([0.1, -0.2]), plan, make_rng(0), n=50_000)
    assert out.shape == (50_000, 2)
    assert np.allclose(out.mean(axis=0), [0.1, -0.2], atol=5 * plan.noise_std / math.sqrt(50_000) + plan.granularity)


def test_dp_events_of_the_exact_path_are_zcdp():
    pytest.importorskip("dp_accounting")
    g = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0, numerics="exact")
    lap = matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0, numerics="exact")
    assert type(g.to_dp_event()).__name__ == "ZCDpEvent"
    assert lap.to_dp_event().rho == 0.5


def test_values_beyond_the_lattice_range_are_clipped_as_documented():
    # hunt HY: the docstrings now state it; 1e300 is released as about 2**61 * g, where the
    # default g for 2 entries at sensitivity 1 is 2**-11 (Gaussian: g*sqrt(2) <= 2**-10;
    # Laplace: 2g <= 2**-10)
    import matrixdp
    for mech in (matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0,
                                            numerics="exact"),
                 matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0, numerics="exact")):
        out = mech.release(np.array([1e300, -1e300]), rng=0).value
        assert np.allclose(np.abs(out), 2.0 ** 50, rtol=1e-9)
