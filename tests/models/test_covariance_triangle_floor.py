"""The pooled floor's weights under the dominating triangle (task TF, session 24;
``CovarianceOptions(adaptive_correlation_triangle=True, triangle_floor=True)`` →
``shrink_covariance(..., weight_floor="off-diagonal")``; ``docs/postprocessing.md`` § "The
triangle's weight floor (task TF)").

Asserted: ``triangle_floor`` changes nothing unless the triangle is drawn (the default's seeded
fits are branch cv's hashes, byte for byte; the triangle without it is TC's release byte for
byte); ``weight_floor="diagonal"`` is the previous call; on a synthetic noise-dominated release
whose off-diagonal noise is the same under a full draw (diagonal variance twice the
off-diagonal's) and a triangle (diagonal variance 1/16 of it), the corrected floor's mean factor
under the triangle is within ±30 % of the full draw's, while the diagonal-only floor's is more
than 30 % above it (TC's failure). Whether it helps on tables is the dev gate's question
(``results/corr_triangle_floor_gate.md``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.models import CovarianceOptions
from matrixdp.models import covariance as covmod

from .test_covariance_correlation_triangle import CV, _fits, _hash, _key

TRI = CovarianceOptions(adaptive_correlation_triangle=True)
TRI_FLOOR = CovarianceOptions(adaptive_correlation_triangle=True, triangle_floor=True)


def test_ignored_without_the_triangle_and_false_is_tcs_release():
    # alone, the default's release byte for byte (branch cv's hashes)
    assert [_key(m) for m in _fits(CovarianceOptions(triangle_floor=True))] == CV
    a, b = _fits(TRI), _fits(CovarianceOptions(adaptive_correlation_triangle=True,
                                               triangle_floor=False))
    assert [_key(m) for m in a] == [_key(m) for m in b]


def test_with_the_triangle_only_the_shrinkage_changes():
    a, b = _fits(TRI), _fits(TRI_FLOOR)
    changed = 0
    for x, y in zip(a, b):
        assert x.adaptive_choice_ == y.adaptive_choice_ and x.allocation_ == y.allocation_
        assert x.privacy_ == y.privacy_  # post-processing: the same guarantee
        if x.adaptive_choice_ == "coinpress":
            assert _key(x) == _key(y)
        changed += _hash(x) != _hash(y)
    assert changed >= 1


D, T, H = 6, 1.0, 1.0


def _release(rng, diag_ratio, rho=0.3, c=0.01, sigma=0.05):
    """A noise-dominated release (true variances ``c``, off-diagonal noise sd ``sigma``, i.e. 5
    in correlation units; the diagonal's variance ``diag_ratio · sigma²``), mean 0 and known."""
    C = c * ((1 - rho) * np.eye(D) + rho * np.ones((D, D)))
    V = np.full((D + 1, D + 1), sigma ** 2)
    V[np.diag_indices(D)] = diag_ratio * sigma ** 2
    V[:D, D] = V[D, :D] = 1e-12  # the mean's entries: essentially exact (0)
    V[D, D] = 1e-12
    Z = rng.standard_normal((D, D))
    Z = np.triu(Z) + np.triu(Z, 1).T
    noise = Z * np.sqrt(V[:D, :D])
    G = np.zeros((D + 1, D + 1))
    G[:D, :D] = C + noise
    G[D, D] = T * T
    return G[:D, :D].copy(), G, V


def _mean_factor(diag_ratio, weight_floor, reps=300):
    lo, hi = -np.full(D, H), np.full(D, H)
    out = []
    rng = np.random.default_rng(20261201)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for _ in range(reps):
            cov, G, V = _release(rng, diag_ratio)
            ref = covmod.nearest_correlation(covmod.correlation_from_covariance(
                covmod.project_feasible(cov, lo, hi, "correlation", units="unit-box")))
            _, f = covmod.shrink_covariance(
                cov, G, V, np.zeros(D), T, lo, hi, "correlation",
                group_ratio=covmod.CORRELATION_GROUP_RATIO, reference=ref,
                floor=covmod.PROJECTED_FLOOR, floor_rule="pooled", weight_floor=weight_floor)
            out.append(f[np.triu_indices(D, 1)].mean())
    return float(np.mean(out))


def test_the_corrected_floor_reads_equal_off_diagonal_noise_as_equal():
    full = _mean_factor(2.0, "diagonal")  # a full draw: the diagonal twice the off-diagonal
    tri = _mean_factor(1.0 / 16, "diagonal")  # TC: the triangle's quieter diagonal
    fixed = _mean_factor(1.0 / 16, "off-diagonal")
    assert full > 0
    assert abs(fixed / full - 1) <= 0.30, (full, fixed)
    assert tri / full > 1.30, (full, tri)  # the diagonal-only floor reads it as more signal
    # on the full draw itself the two floors nearly coincide (2 Var_ij = Var_ii there)
    assert abs(_mean_factor(2.0, "off-diagonal") / full - 1) <= 0.05


def test_weight_floor_is_validated_and_diagonal_is_the_previous_call():
    rng = np.random.default_rng(3)
    cov, G, V = _release(rng, 2.0)
    lo, hi = -np.full(D, H), np.full(D, H)
    args = (cov, G, V, np.zeros(D), T, lo, hi, "correlation")
    a = covmod.shrink_covariance(*args, group_ratio=2.0)
    b = covmod.shrink_covariance(*args, group_ratio=2.0, weight_floor="diagonal")
    np.testing.assert_array_equal(a[1], b[1])
    with pytest.raises(InvalidParameterError, match="weight_floor"):
        covmod.shrink_covariance(*args, weight_floor="both")
    with pytest.raises(InvalidParameterError, match="triangle_floor"):
        CovarianceOptions(triangle_floor="yes")
