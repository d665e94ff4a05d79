"""The released eigenvalues de-biased as a whole (task PS, ``matrixdp.models.spiked``) and the
PCA ranking's ``pca_gaps="spiked"`` (opt-in; ``docs/coinpress.md`` § Adaptive (PCA),
"Spiked-model gaps (task PS)")."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.models.adaptive import (AdaptiveOptions, PCA_GAPS, adaptive_covariance,
                                      moments_pair_variance, pca_frame)
from matrixdp.models.spiked import spiked_eigenvalues


def _wigner(rng, k, sigma=1.0):
    """Symmetric, off-diagonal variance σ², diagonal 2σ² (the GOE)."""
    G = rng.standard_normal((k, k)) * sigma
    return (G + G.T) / np.sqrt(2.0)


def _debias(Ch, s_off, s_diag):
    lam = np.linalg.eigvalsh(Ch)[::-1]
    k = lam.size
    s = np.full((k, k), s_off)
    return lam, spiked_eigenvalues(lam, s, np.full(k, s_diag))


def test_bbp_outlier_is_inverted():
    """One spike θ = 3σ√k over a null Wigner bulk (k = 40, 200 draws, seed 1): the released top
    eigenvalue is θ + kσ²/θ (BBP; median within 3%), the de-biased one is θ (median within 3%),
    which rejects θ·(1 ± 0.3) and the raw released value (1.11θ)."""
    rng = np.random.default_rng(1)
    k = 40
    theta = 3.0 * np.sqrt(k)
    raw, est = [], []
    for _ in range(200):
        Ch = _wigner(rng, k)
        Ch[0, 0] += theta
        lam, lt = _debias(Ch, 1.0, 2.0)
        raw.append(lam[0])
        est.append(lt[0])
    assert np.median(raw) == pytest.approx(theta + k / theta, rel=0.03)
    assert np.median(est) == pytest.approx(theta, rel=0.03)
    for wrong in (0.7 * theta, 1.3 * theta, theta + k / theta):
        assert not np.median(est) == pytest.approx(wrong, rel=0.03)


def test_an_isotropic_release_has_no_gaps():
    """C = 5·I plus Wigner noise (200 draws, seed 2): the released eigenvalues spread over
    ±2σ√k, which a pair's correction does not see. De-biased, the median of the spectrum's
    range over the released range is below 0.1 at k = 12 and 40 (the released range: 1), and at
    k = 12 at least 40% of the draws have no spread at all. The tail is what the clustering
    gives: where an edge eigenvalue is, by chance, more than 2 pair sds from its neighbour it is
    taken as separated (75% quantile 0.27 at k = 12; ``docs/coinpress.md``, "Spiked-model gaps")."""
    for k in (12, 40):
        rng = np.random.default_rng(2)
        ratios = []
        for _ in range(200):
            lam, lt = _debias(5.0 * np.eye(k) + _wigner(rng, k), 1.0, 2.0)
            ratios.append(np.ptp(lt) / np.ptp(lam))
        assert np.median(ratios) < 0.1
        if k == 12:
            assert np.mean(np.array(ratios) == 0) >= 0.4


def test_a_cluster_keeps_its_de_noised_spread():
    """A spectrum spread linearly over ±3 (k = 12) under Wigner noise of σ = 0.6 (one
    cluster): the released Σ(λ̂ − mean)² is inflated by the noise's centred trace; the mean over
    300 draws of the de-biased Σ(λ̃ − mean)² is within 10% of the true one, the released one is
    not."""
    rng = np.random.default_rng(3)
    k, sig = 12, 0.6
    lam0 = np.linspace(3.0, -3.0, k)
    true = float(np.sum((lam0 - lam0.mean()) ** 2))
    got, raw = [], []
    for _ in range(300):
        lam, lt = _debias(np.diag(lam0) + _wigner(rng, k, sig), sig ** 2, 2 * sig ** 2)
        got.append(np.sum((lt - lt.mean()) ** 2))
        raw.append(np.sum((lam - lam.mean()) ** 2))
    assert np.mean(got) == pytest.approx(true, rel=0.10)
    assert not np.mean(raw) == pytest.approx(true, rel=0.10)


def test_separated_eigenvalues_without_noise_are_unchanged_and_order_is_kept():
    lam = np.array([1.0, 5.0, 3.0, -2.0])
    np.testing.assert_array_equal(spiked_eigenvalues(lam, np.zeros((4, 4)), np.zeros(4)), lam)
    s = np.full((4, 4), 0.01)
    d = np.full(4, 0.02)
    p = np.array([2, 0, 3, 1])
    out = spiked_eigenvalues(lam, s, d)
    np.testing.assert_allclose(spiked_eigenvalues(lam[p], s, d), out[p], rtol=1e-12)
    # the pull of the others at second order: 5 is pushed up by Σ s/(5 − λ_j), so it comes down
    assert out[1] == pytest.approx(5.0 - 0.01 * (1 / 4 + 1 / 2 + 1 / 7), rel=1e-12)


def test_frame_with_spiked_gaps_is_the_same_frame():
    """pca_frame(spiked=True): the same frame and the same pairs that count; each gap is
    |λ̃_i − λ̃_j| of the de-biased eigenvalues in the frame."""
    rng = np.random.default_rng(4)
    k, q, t = 6, 2, 10.0
    C1 = np.diag([1.0, 0.9, 0.5, 0.45, 0.44, 0.1]) + 0.02 * rng.standard_normal((k, k))
    C1 = 0.5 * (C1 + C1.T)
    V1 = np.full((k + 1, k + 1), 3e-4)
    m = np.zeros(k)
    U0, g0 = pca_frame(C1, V1, m, t, q)
    U1, g1 = pca_frame(C1, V1, m, t, q, spiked=True)
    np.testing.assert_array_equal(U0, U1)
    lam = np.einsum("ai,ab,bi->i", U1, C1, U1)
    s, d = moments_pair_variance(V1, m, t, U1, k)
    lt = spiked_eigenvalues(lam, s, d)
    want = np.abs(lt[:q, None] - lt[None, q:])
    np.testing.assert_allclose(g1, np.where(g0 > 0, want, 0.0), rtol=1e-9, atol=1e-15)


def _table(seed=0, n=400, d=6):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (n, d)), -np.ones(d), np.ones(d)


def test_pca_gaps_is_validated_and_pairwise_is_the_default():
    X, lo, hi = _table()
    with pytest.raises(InvalidParameterError, match="pca_gaps"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2, rng=0,
                            options=AdaptiveOptions(pca_gaps="bbp"))
    assert PCA_GAPS == ("pairwise", "spiked")
    a = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2,
                            rng=0)
    b = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2, rng=0,
                            options=AdaptiveOptions(pca_gaps="pairwise"))
    assert np.array_equal(a.covariance, b.covariance)
    assert a.predicted == b.predicted


@pytest.mark.parametrize("branch", ["moments", "coinpress"])
def test_spiked_is_post_processing_of_the_same_releases_and_charge(branch):
    """The gaps are post-processing of the first look: the guarantee and the charge (one event,
    the same) never change. The predictions can change whether the counts statistic is needed
    (and its bins), as any ranking option's; with the branch forced on isotropic d = 6 data at
    ε = 1 no statistic is needed by either, so the draws and the release are the same, while
    the step's predicted deficit differs (the spiked gaps are smaller)."""
    X, lo, hi = _table(1)
    r, charged = {}, {}
    for p in PCA_GAPS:
        entered = []

        def charging(guarantee, entered=entered):
            entered.append(guarantee)
            return contextlib.nullcontext()

        r[p] = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2,
                                   rng=7, charging=charging,
                                   options=AdaptiveOptions(branch=branch, pca_gaps=p))
        charged[p] = entered
    assert np.array_equal(r["pairwise"].covariance, r["spiked"].covariance)
    assert np.array_equal(r["pairwise"].location, r["spiked"].location)
    assert r["pairwise"].privacy == r["spiked"].privacy
    assert charged["pairwise"] == charged["spiked"] and len(charged["spiked"]) == 1
    assert r["spiked"].predicted["coinpress"] != r["pairwise"].predicted["coinpress"]


def test_spiked_messages_read_no_private_value():
    """Nothing printed or kept beyond the predictions (post-processing of DP releases): the
    keys of ``predicted`` are those of the default."""
    X, lo, hi = _table(2)
    a = adaptive_covariance(X, lo, hi, epsilon=2.0, delta=1e-6, kind="pca", n_components=2,
                            rng=3)
    b = adaptive_covariance(X, lo, hi, epsilon=2.0, delta=1e-6, kind="pca", n_components=2, rng=3,
                            options=AdaptiveOptions(pca_gaps="spiked"))
    assert set(a.predicted) == set(b.predicted)
