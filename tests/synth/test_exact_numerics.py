"""RON-Gauss with numerics="exact": every Laplace step is the lattice discrete Laplace."""

import math

import numpy as np

from matrixdp.synth import RONGauss
from matrixdp.synth.covariance import noisy_second_moment
from matrixdp.synth.preprocessing import dp_mean


def test_second_moment_step_is_exact_discrete_laplace_with_the_planned_scale():
    p = 100
    raw, mech = noisy_second_moment(np.zeros((p, p)), epsilon=1.0, sensitivity=0.5, rng=0,
                                    numerics="exact")
    plan = mech._plan(p * p)
    assert mech.numerics == "exact"
    assert np.all(raw / plan.granularity == np.rint(raw / plan.granularity))
    var = plan.noise_std ** 2
    tol = 5 * var * math.sqrt(5 / raw.size)          # Laplace kurtosis 6: Var(x^2) <= 5 var^2
    assert abs(np.mean(raw ** 2) - var) < tol
    assert abs(np.mean(raw ** 2) - 1.3 ** 2 * var) > tol and abs(np.mean(raw ** 2) - 0.7 ** 2 * var) > tol


def test_mean_step_and_guarantee_say_exact():
    X = np.random.default_rng(0).normal(size=(400, 5))
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    mu, mech = dp_mean(Xn, 1.0, rng=1, numerics="exact")
    g = mech._plan(5).granularity
    assert np.all(mu / g == np.rint(mu / g))
    model = RONGauss(dim=3, epsilon=1.0, numerics="exact", random_state=0).fit(X)
    assert model.privacy_.numerics == "exact"
    assert RONGauss(dim=3, epsilon=1.0, random_state=0).fit(X).privacy_.numerics == "float"
    assert model.sample(10, rng=0).shape == (10, 3)
