"""The PCA ranking where the first look resolves no gap of its frame (task PT, opt-in
``pca_unresolved="step"``; ``docs/coinpress.md`` § Adaptive (PCA), "Unresolved frames (task
PT)")."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.models.adaptive import (AdaptiveOptions, PCA_UNRESOLVED, adaptive_covariance,
                                      moments_pair_variance, pca_frame, pca_frame_resolution)


def _table(seed=0, n=400, d=6, scale=None):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    if scale is not None:
        X = X * np.asarray(scale)
    return X, -np.ones(d), np.ones(d)


def test_resolution_counts_the_pairs_above_their_floor():
    """A pair is resolved iff ĝ² > (5/4)·N_ij (its de-inflated gap above the floor √N_ij/2),
    computed here by hand in the frame pca_frame returns; a clear spectrum with little noise
    resolves every counted pair and both top directions, an isotropic one with large noise
    none."""
    k, q, t = 6, 2, 10.0
    m = np.zeros(k)
    C_clear = np.diag([1.0, 0.6, 0.1, 0.08, 0.05, 0.02])
    small = np.full((k + 1, k + 1), 1e-8)
    assert pca_frame_resolution(C_clear, small, m, t, q) == (q * (k - q), q)
    rng = np.random.default_rng(3)
    E = rng.standard_normal((k, k)) * 0.05
    C_iso = 0.3 * np.eye(k) + 0.5 * (E + E.T)
    big = np.full((k + 1, k + 1), 0.05 ** 2 * t ** 4)
    pairs, top = pca_frame_resolution(C_iso, big, m, t, q)
    assert (pairs, top) == (0, 0)
    # by hand, on an intermediate release: the same frame as pca_frame, the same counted pairs
    V = np.full((k + 1, k + 1), 1e-3 ** 2 * t ** 4)
    C_mid = np.diag([0.5, 0.45, 0.44, 0.2, 0.1, 0.05]) + 0.5 * (E + E.T) * 0.1
    U, g = pca_frame(C_mid, V, m, t, q)
    lam = np.einsum("ai,ab,bi->i", U, C_mid, U)
    s, diag = moments_pair_variance(V, m, t, U, q)
    noise = diag[:q, None] + diag[None, q:] + 4.0 * s[:, q:]
    g_hat = lam[:q, None] - lam[None, q:]
    want = int(np.sum((g > 0) & (g_hat ** 2 > 1.25 * noise)))
    got = pca_frame_resolution(C_mid, V, m, t, q)[0]
    assert got == want
    assert 0 < got < q * (k - q)  # the check can fail both ways on this release


def test_option_is_validated_and_rank_is_the_default():
    X, lo, hi = _table()
    assert PCA_UNRESOLVED == ("rank", "step")
    with pytest.raises(InvalidParameterError, match="pca_unresolved"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2, rng=0,
                            options=AdaptiveOptions(pca_unresolved="always"))
    a = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2,
                            rng=0)
    b = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2, rng=0,
                            options=AdaptiveOptions(pca_unresolved="rank"))
    assert np.array_equal(a.covariance, b.covariance)
    assert a.predicted == b.predicted
    assert "unresolved_step" not in a.predicted  # the default's report is unchanged


def _charged(seed, **kw):
    entered = []

    def charging(guarantee):
        entered.append(guarantee)
        return contextlib.nullcontext()

    X, lo, hi = kw.pop("table")
    r = adaptive_covariance(X, lo, hi, kind="pca", n_components=2, rng=seed, delta=1e-6,
                            charging=charging, **kw)
    return r, entered


@pytest.mark.parametrize("branch", ["moments", "coinpress"])
def test_step_is_post_processing_of_the_same_releases_and_charge(branch):
    """With the branch forced the option changes nothing (the same draws, release, guarantee
    and the one charge); it only reads the first look."""
    tab = _table(1)
    r0, c0 = _charged(7, table=tab, epsilon=1.0, options=AdaptiveOptions(branch=branch))
    r1, c1 = _charged(7, table=tab, epsilon=1.0,
                      options=AdaptiveOptions(branch=branch, pca_unresolved="step"))
    assert np.array_equal(r0.covariance, r1.covariance)
    assert np.array_equal(r0.location, r1.location)
    assert r0.privacy == r1.privacy
    assert c0 == c1 and len(c1) == 1


def test_unresolved_frames_take_the_step_and_resolved_ones_rank_as_the_default():
    """Isotropic uniform data, d = 3, at ε = 1 (the first look resolves no gap in about
    half the fits) and a clear spectrum at ε = 10⁴ (every gap resolved): where the option
    reports an unresolved frame the choice is the whitened step, elsewhere the default's
    choice on the same seed;
    the guarantee and the single charge are the default's in every fit, and on the isotropic
    table the option changes at least one choice (the check can fail)."""
    iso = _table(2, d=3)
    clear = _table(3, scale=[1.0, 0.5, 0.2, 0.1, 0.05, 0.02])
    seen = {True: 0, False: 0}
    changed = 0
    for tab, eps in ((iso, 1.0), (clear, 1e4)):
        for seed in range(12):
            r0, c0 = _charged(seed, table=tab, epsilon=eps)
            r1, c1 = _charged(seed, table=tab, epsilon=eps,
                              options=AdaptiveOptions(pca_unresolved="step"))
            assert r0.privacy == r1.privacy and c0 == c1 and len(c1) == 1
            unres = r1.predicted["unresolved_step"]
            assert unres == (r1.predicted["frame_pairs_resolved"] == 0)
            seen[unres] += 1
            if unres:
                assert r1.choice == "coinpress"
                changed += r0.choice != r1.choice
            else:
                assert r1.choice == r0.choice
                assert np.array_equal(r0.covariance, r1.covariance)
    assert seen[True] > 0 and seen[False] > 0
    assert changed > 0
