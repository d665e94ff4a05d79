"""The high-level FisherNoiseMechanism API."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import kstest, laplace, norm

import matrixdp
from matrixdp.calibration.gaussian import gaussian_delta
from matrixdp.errors import (
    InvalidParameterError,
    NotPositiveSemidefiniteError,
    OutOfBoundsError,
)
from matrixdp.mechanisms.fisher import FisherNoiseMechanism

UNIT2 = [[0.0, 1.0], [0.0, 1.0]]


def test_reexported():
    assert matrixdp.FisherNoiseMechanism is FisherNoiseMechanism


@pytest.mark.parametrize("lam,eps", [(1e-4, 0.4970), (1e-2, 1.7601), (1.0, 6.5730)])
def test_gaussian_release_carries_exact_ldp(lam, eps):
    mech = FisherNoiseMechanism(lam=lam, delta=1e-5, feature_ranges=UNIT2)
    X = np.random.default_rng(1).uniform(0, 1, (1000, 2))
    out = mech.release(X, rng=0)
    assert out.value.shape == X.shape
    assert out.privacy.neighbouring == "local"
    assert out.privacy.calibration == "analytic"
    assert out.privacy.exact is True
    assert out.privacy.epsilon == pytest.approx(eps, abs=1e-4)
    # checked against the exact profile: delta(eps) <= delta, and tight
    assert gaussian_delta(out.privacy.epsilon, 1.0, mech.whitened_sensitivity) <= 1e-5 * (1 + 1e-9)
    assert gaussian_delta(0.99 * out.privacy.epsilon, 1.0, mech.whitened_sensitivity) > 1e-5
    assert out.metadata["crb"] == pytest.approx(2 / math.sqrt(lam))
    assert out.noise.per_entry_variance == pytest.approx(1 / math.sqrt(lam))


def test_epsilon_delta_calibration_and_noise_scale():
    ranges = [[0.0, 2.0]] * 3
    mech = FisherNoiseMechanism(epsilon=1.0, delta=1e-6, feature_ranges=ranges)
    assert mech.privacy.epsilon == pytest.approx(1.0, rel=1e-8)
    assert mech.privacy_profile(1.0) == pytest.approx(1e-6, rel=1e-6)
    std = mech.lam ** -0.25
    noise = (mech.release(np.ones((20_000, 3)), rng=2).value - 1.0).ravel()
    assert kstest(noise, norm(scale=std).cdf).pvalue > 1e-4
    for wrong in (0.7, 1.3):
        assert kstest(noise, norm(scale=wrong * std).cdf).pvalue < 1e-4


def test_paper_bound_reported_as_refuted_in_notes():
    mech = FisherNoiseMechanism(lam=1.0, delta=1e-5, feature_ranges=[[0.0, 1.0]] * 30)
    assert mech.privacy.epsilon == pytest.approx(37.62, abs=0.01)
    assert any("FALSE" in note for note in mech.privacy.notes)
    small = FisherNoiseMechanism(lam=1.0, delta=1e-5, feature_ranges=UNIT2)
    assert any("holds here" in note for note in small.privacy.notes)


def test_laplace_kind():
    mech = FisherNoiseMechanism(lam=1e-4, feature_ranges=UNIT2, kind="laplace")
    assert mech.privacy.epsilon == pytest.approx(0.2)
    assert mech.privacy.delta == 0.0
    gauss = FisherNoiseMechanism(lam=1e-4, feature_ranges=UNIT2)
    assert mech.crb == pytest.approx(gauss.crb)
    assert mech.cost == pytest.approx(1.5 * gauss.cost)
    noise = mech.release(np.zeros((20_000, 2)), rng=3).value.ravel()
    assert kstest(noise, laplace(scale=10.0).cdf).pvalue > 1e-4
    assert kstest(noise, laplace(scale=13.0).cdf).pvalue < 1e-4
    by_eps = FisherNoiseMechanism(epsilon=0.5, feature_ranges=UNIT2, kind="laplace")
    assert by_eps.privacy.epsilon == pytest.approx(0.5)


def test_bounded_kind_states_no_dp():
    mech = FisherNoiseMechanism(lam=1.0, feature_ranges=UNIT2, kind="bounded",
                                noise_support=[[-1.0, 1.0], [0.0, 3.0]])
    out = mech.release(np.full((1000, 2), 0.5), rng=4)
    assert math.isinf(out.privacy.epsilon)
    assert out.privacy.exact is False
    assert any("NO differential-privacy guarantee" in n for n in out.privacy.notes)
    noise = out.value - 0.5
    assert (noise[:, 0] >= -1).all() and (noise[:, 0] <= 1).all()
    assert out.noise.bias == pytest.approx(np.mean([0.0, 1.375]), abs=1e-3)
    assert mech.cost == pytest.approx(10.0 + 6.738, abs=2e-3)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        FisherNoiseMechanism(epsilon=1.0, feature_ranges=UNIT2, kind="bounded",
                           noise_support=[[-1.0, 1.0]] * 2)
    with pytest.raises(InvalidParameterError, match="noise_support"):
        FisherNoiseMechanism(lam=1.0, feature_ranges=UNIT2, kind="bounded")


def test_out_of_range_data_error_or_clip():
    mech = FisherNoiseMechanism(lam=1e8, feature_ranges=UNIT2)
    X = np.array([[0.5, 0.5], [1.5, -0.2]])
    with pytest.raises(OutOfBoundsError):
        mech.release(X)
    clipped = FisherNoiseMechanism(lam=1e8, feature_ranges=UNIT2, clip=True).release(X, rng=5)
    np.testing.assert_allclose(clipped.value, [[0.5, 0.5], [1.0, 0.0]], atol=0.06)


def test_seeded_release_reproducible():
    X = np.full((5, 2), 0.5)
    a = FisherNoiseMechanism(lam=1.0, feature_ranges=UNIT2).release(X, rng=7).value
    b = FisherNoiseMechanism(lam=1.0, feature_ranges=UNIT2).release(X, rng=7).value
    np.testing.assert_array_equal(a, b)
    c = FisherNoiseMechanism(lam=1.0, feature_ranges=UNIT2).release(X).value
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("kwargs,err,name", [
    ({"lam": 0.0}, InvalidParameterError, "lam"),
    ({"lam": -1.0}, InvalidParameterError, "lam"),
    ({"lam": 1.0, "epsilon": 1.0, "delta": 1e-5}, InvalidParameterError, "lam"),
    ({}, InvalidParameterError, "lam"),
    ({"epsilon": 1.0}, InvalidParameterError, "delta"),
    ({"epsilon": -1.0, "delta": 1e-5}, InvalidParameterError, "epsilon"),
    ({"epsilon": 1.0, "delta": 1.5}, InvalidParameterError, "delta"),
    ({"lam": 1.0, "weights": [[1.0, 2.0], [2.0, 1.0]]}, NotPositiveSemidefiniteError, "weights"),
    ({"lam": 1.0, "kind": "cosine"}, InvalidParameterError, "kind"),
])
def test_bad_parameters(kwargs, err, name):
    with pytest.raises(err) as info:
        FisherNoiseMechanism(feature_ranges=UNIT2, **kwargs)
    assert info.value.argument == name


def test_missing_or_bad_ranges():
    with pytest.raises(InvalidParameterError, match="feature_ranges"):
        FisherNoiseMechanism(lam=1.0)
    with pytest.raises(InvalidParameterError, match="feature_ranges"):
        FisherNoiseMechanism(lam=1.0, feature_ranges=[[1.0, 0.0]])
    with pytest.raises(InvalidParameterError, match="feature_ranges"):
        FisherNoiseMechanism(lam=1.0, feature_ranges=[0.0, 1.0])
    mech = FisherNoiseMechanism(lam=1.0, feature_ranges=UNIT2)
    with pytest.raises(InvalidParameterError, match="X"):
        mech.release(np.zeros((3, 3)))
    with pytest.raises(InvalidParameterError, match="X"):
        mech.release(np.array([[np.nan, 0.0]]))


def test_dp_event_matches_dp_accounting():
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import PLDAccountant

    mech = FisherNoiseMechanism(lam=1e-2, delta=1e-5, feature_ranges=UNIT2)
    acct = PLDAccountant(value_discretization_interval=1e-4)
    acct.compose(mech.to_dp_event())
    assert acct.get_epsilon(1e-5) == pytest.approx(mech.privacy.epsilon, rel=2e-3)
    assert isinstance(mech.to_dp_event(), dp_accounting.GaussianDpEvent)
    with pytest.raises(InvalidParameterError, match="kind"):
        FisherNoiseMechanism(lam=1.0, feature_ranges=UNIT2, kind="laplace").to_dp_event()


@pytest.mark.parametrize("numerics", ["float", "exact"])
@pytest.mark.parametrize("width", [1e6, 1e9])
def test_wide_public_ranges_release_with_the_closed_form_crb(width, numerics):
    """Hunt DH (session 22): public ranges of width >= 1e6 (lam ~ 1e-29) made every release
    crash in its metadata, after the noise was drawn and charged: the Fisher information
    sqrt(lam) Pi^(1/2) fell under check_weights' absolute eigenvalue floor of 1e-12. The CRB is
    Tr(Pi^(1/2)) / sqrt(lam) (identity Pi: p / sqrt(lam)); scale-free now."""
    fr = np.array([[0.0, width], [0.0, 2 * width], [-width, width]])
    m = FisherNoiseMechanism(epsilon=1.0, delta=1e-5, feature_ranges=fr, numerics=numerics)
    rel = m.release(fr.mean(axis=1)[None, :], rng=0)
    assert rel.metadata["crb"] == pytest.approx(3.0 / math.sqrt(m.lam), rel=1e-9)
    assert np.all(np.isfinite(rel.value))
    # the noise scales with the ranges: its sd over the width is that of the unit-width box
    unit = FisherNoiseMechanism(epsilon=1.0, delta=1e-5, feature_ranges=fr / width,
                                numerics=numerics).release(fr.mean(axis=1)[None, :] / width, rng=0)
    ratio = math.sqrt(rel.noise.per_entry_variance / unit.noise.per_entry_variance) / width
    assert ratio == pytest.approx(1.0, rel=1e-3)
