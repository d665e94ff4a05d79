"""CoinPress on a public box: the first step's whitening margin (round 3d, issue #24)."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp.calibration.gaussian import gaussian_epsilon, max_gaussian_shift
from matrixdp.models._moments import augmented_task, plan_second_moment
from matrixdp.models.adaptive import adaptive_covariance
from matrixdp.models.coinpress import coinpress_covariance, first_noise_scale


def off_centre_table(n=2000, seed=0):
    """Records whose means sit far from the middle of the public box [0, 10]^3 (−0.86 and −0.80
    half-widths for the first two features; the third is uniform, centred): a right-skewed
    feature and a concentrated one, as anes96's ``popul`` (−0.94) in its round public cap."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.lognormal(-0.5, 0.6, n), rng.normal(1.0, 0.3, n),
                         rng.uniform(0, 10, n)])
    return np.clip(X, 0.0, 10.0)


def _first_releases(X, lo, hi, eps, draws):
    """``draws`` first releases of CoinPress' step 1 (the one-shot release at μ*/2):
    ``(G, plan, t, center)`` per draw; the noise goes through the planned mechanism."""
    n = X.shape[0]
    task, center, t = augmented_task(lo, hi, n, "covariance")
    eps1 = gaussian_epsilon(1e-6, 1.0, max_gaussian_shift(eps, 1e-6) / 2)
    plan, _ = plan_second_moment(task, epsilon=eps1, delta=1e-6, noise="auto")
    Z = np.column_stack([X - center, np.full(n, t)])
    value = task.query().compute(Z)
    for s in range(draws):
        G = np.asarray(plan.mechanism.release(value, rng=s).value, dtype=np.float64)
        yield 0.5 * (G + G.T), plan, t


def test_the_first_margin_is_the_noise_scale_of_the_covariance_it_reads():
    """``Q_ii`` (:func:`first_noise_scale`) is the standard deviation of ``Ĉ_ii − C_ii`` for
    ``Ĉ = G − m̂m̂ᵀ`` read from the first release: 400 releases, z-scores per feature with an
    sd in [0.9, 1.1] (its sampling error is ~0.035; a ±30% wrong scale fails). The margin of
    round 3b (the noise of ``G`` alone, ``mean_noise=False``) leaves out the mean's term
    ``2 m_i δm_i``: on these off-centre features its z-scores have sd ~1.5 (checked > 1.3),
    and on the centred feature both agree."""
    X = off_centre_table()
    lo, hi = np.zeros(3), np.full(3, 10.0)
    C = np.cov(X.T, bias=True)
    z = {True: [], False: []}
    for G, plan, t in _first_releases(X, lo, hi, 1.0, 400):
        m = G[:3, 3] / t
        Ch = G[:3, :3] - np.outer(m, m)
        for mean_noise in (True, False):
            Q = first_noise_scale(plan.entry_variance, m, t, mean_noise=mean_noise)
            assert np.allclose(Q, np.diag(np.diagonal(Q)))
            z[mean_noise].append((np.diagonal(Ch) - np.diagonal(C)) / np.diagonal(Q))
    new, old = np.std(z[True], axis=0), np.std(z[False], axis=0)
    assert np.all((new > 0.9) & (new < 1.1)), new
    assert np.all(np.abs(np.mean(z[True], axis=0)) < 0.15)
    assert np.all(old[:2] > 1.3), old
    assert old[2] == pytest.approx(new[2], rel=0.02)


def test_first_noise_scale_is_the_closed_form():
    """``Q_ii² = V_ii + 4 max(m̂_i² − v_i, 0) v_i + 2 v_i²`` with ``v_i = V_ik/t²``; without the
    mean's term, ``√V_ii``."""
    V = np.array([[4.0, 1.0, 2.0], [1.0, 9.0, 8.0], [2.0, 8.0, 3.0]])
    m, t = np.array([3.0, 0.1]), 2.0
    v = np.array([2.0, 8.0]) / 4.0
    want = np.sqrt(np.array([4.0, 9.0]) + 4 * np.maximum(m * m - v, 0) * v + 2 * v * v)
    assert np.allclose(np.diagonal(first_noise_scale(V, m, t)), want)
    assert np.allclose(np.diagonal(first_noise_scale(V, m, t, mean_noise=False)), [2.0, 3.0])


def test_the_margin_is_post_processing_and_switchable():
    """``mean_margin`` changes only the whitening (a function of the first release): the budget,
    the guarantee and the first release are the same; the default is the margin of ``G``'s
    noise (unchanged behaviour), ``True`` the margin with the mean's term."""
    X = off_centre_table(3000, seed=1)
    lo, hi = np.zeros(3), np.full(3, 10.0)
    a = coinpress_covariance(X, lo, hi, epsilon=2.0, delta=1e-6, rng=5)
    b = coinpress_covariance(X, lo, hi, epsilon=2.0, delta=1e-6, rng=5, mean_margin=False)
    c = coinpress_covariance(X, lo, hi, epsilon=2.0, delta=1e-6, rng=5, mean_margin=True)
    assert np.array_equal(a.covariance, b.covariance)
    assert not np.array_equal(a.covariance, c.covariance)
    assert a.privacy == c.privacy
    assert a.radii_sq[0] == c.radii_sq[0]
    for mm in (True, False):
        r = adaptive_covariance(X, lo, hi, epsilon=2.0, delta=1e-6, rng=5, mean_margin=mm)
        assert np.sqrt(sum(x * x for x in r.mus)) <= max_gaussian_shift(2.0, 1e-6) * (1 + 1e-9)
