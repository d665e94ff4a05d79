"""MVG with numerics="exact": the whitened value W is released on a lattice with exact discrete
Gaussian noise and mapped back; the float error of computing W is budgeted."""

import math

import numpy as np
import pytest

import matrixdp
from matrixdp.audit import audit_mechanism
from matrixdp.errors import InvalidParameterError
from matrixdp.mechanisms.mvg_lattice import colour, whiten
from matrixdp.queries import IdentityQuery


def make(numerics="exact", **kw):
    q = IdentityQuery(bounds=(0.0, 1.0), n_features=3, n_samples=20)
    rng = np.random.default_rng(0)
    dirs, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return matrixdp.MVGMechanism(shape=(20, 3), epsilon=1.0, delta=1e-5, sensitivity=q,
                                 mode="unimodal", directions=dirs, precision=[0.6, 0.2, 0.2],
                                 numerics=numerics, **kw)


def test_exact_release_is_a_lattice_point_in_whitened_coordinates():
    mech = make()
    plan = mech._lattice
    X = np.random.default_rng(1).uniform(size=(20, 3))
    y = mech.release(X, rng=2).value
    w = whiten(y, plan) / plan.lattice.granularity
    # mapping back and whitening again is float post-processing: within 1e-6 lattice steps
    assert np.max(np.abs(w - np.rint(w))) < 1e-6
    assert mech.privacy.numerics == "exact" and mech.privacy.calibration == "discrete-zcdp"
    assert "sensitivity bounded by" in mech.privacy.notes[0]


def test_float_error_budget_covers_the_computed_whitened_sensitivity():
    mech = make()
    plan = mech._lattice
    mu, mu_hat = plan.mahalanobis_sensitivity, plan.sensitivity_bound
    assert mu < mu_hat < mu * (1 + 1e-5)
    worst = 0.0
    for a, b in mech.witnesses():
        d = whiten(np.asarray(b, float), plan) - whiten(np.asarray(a, float), plan)
        worst = max(worst, float(np.linalg.norm(d)))
    assert worst <= mu_hat and worst > 0.99 * mu       # the witness nearly attains mu


def test_exact_noise_is_the_float_mvg_noise_scaled_by_sigma_w():
    flt, ex = make("float"), make()
    sigma_w = ex._lattice.noise_scale
    assert 1.0 < sigma_w < 1.15          # the discrete Gaussian's proven bound costs < 15%
    assert ex.noise_summary().per_entry_variance == pytest.approx(
        flt.noise_summary().per_entry_variance * sigma_w ** 2)
    zero = np.zeros((20, 3))
    draws = ex.release_batch(zero, 40_000, rng=3)
    emp = draws.var(axis=0).mean()
    tol = 5 * emp * math.sqrt(2 / 40_000)
    assert abs(emp - ex.noise_summary().per_entry_variance) < tol
    assert abs(emp - 1.3 ** 2 * ex.noise_summary().per_entry_variance) > tol
    assert ex.privacy_profile(1.0) <= 1e-5


def test_bit_level_auditor_clears_exact_mvg():
    mech = make()
    a, b = mech.witnesses()[-1]
    res = audit_mechanism(mech, a, b, n_samples=60_000, rng=0, resolution=0)
    assert res.passed, str(res)


def test_exact_mvg_needs_a_public_gamma():
    with pytest.raises(InvalidParameterError, match="gamma"):
        matrixdp.MVGMechanism(shape=(4, 3), epsilon=1.0, delta=1e-5, sensitivity=1.0, numerics="exact")
    mech = matrixdp.MVGMechanism(shape=(4, 3), epsilon=1.0, delta=1e-5, sensitivity=1.0,
                                 numerics="exact", gamma=10.0)
    out = mech.release(np.ones((4, 3)), rng=0)
    assert out.value.shape == (4, 3) and out.privacy.numerics == "exact"
    # a value outside the public gamma-ball is projected onto it before whitening
    big = mech.release(np.full((4, 3), 1e6), rng=0).value
    assert np.linalg.norm(big) < 10.0 + 20 * mech.noise_summary().scale * math.sqrt(12)


def test_colour_inverts_whiten():
    mech = make()
    X = np.random.default_rng(4).normal(size=(20, 3))
    assert np.allclose(colour(whiten(X, mech._lattice), mech._lattice), X)


def test_float_dp_directions_step_makes_the_composed_guarantee_float():
    from matrixdp.mechanisms.base import PrivacyGuarantee

    q = IdentityQuery(bounds=(0.0, 1.0), n_features=3, n_samples=20)
    spent = PrivacyGuarantee(epsilon=0.2, delta=2e-6)          # a float step (the default note)
    mech = matrixdp.MVGMechanism(shape=(20, 3), epsilon=1.0, delta=1e-5, sensitivity=q,
                                 mode="unimodal", dp_directions=(np.eye(3), spent), numerics="exact")
    assert mech.privacy.numerics == "float"
    assert mech.privacy.notes[0].startswith("numerics: float")
    assert any(n.startswith("numerics: exact") for n in mech.privacy.notes)
