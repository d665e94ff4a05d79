"""The PCA frame's gaps de-inflated against the projected noise (task PG, opt-in
``AdaptiveOptions(gap_inflation="projected-noise")``; ``docs/coinpress.md`` § Adaptive (PCA),
"Gaps against the projected noise (task PG)")."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.feasible import project_feasible
from matrixdp.models.adaptive import (AdaptiveOptions, GAP_INFLATIONS, adaptive_covariance,
                                      moments_pair_variance, pca_frame, projected_gap_inflation)

K = 8


def _project(M):
    return project_feasible(M, -np.ones(K), np.ones(K), "covariance", units="unit-box")


def _law(sigma):
    """Entry variances of a first look with a known mean (no mean noise): every entry of the
    k × k block has sd ``sigma``."""
    V = np.full((K + 1, K + 1), sigma ** 2)
    V[:, K] = V[K, :] = 0.0
    return V


def _noise(V, rng):
    G = np.triu(rng.standard_normal((K + 1, K + 1))) * np.sqrt(V)
    return (G + np.triu(G, 1).T)[:K, :K]


def _gap_ratios(lam, q, sigma, project, seeds=60):
    """est/true of every counted pair's gap over ``seeds`` first looks of the spiked model
    ``diag(lam)`` (unit box, released and projected as DPPCA's frame reads it), pooled."""
    C, V, m = np.diag(lam), _law(sigma), np.zeros(K)
    out = []
    for s in range(seeds):
        A = _project(C + _noise(V, np.random.default_rng(s)))
        U, g = pca_frame(A, V, m, 1.0, q, project=project)
        lt = np.einsum("ai,ab,bi->i", U, C, U)
        gt = lt[:q, None] - lt[None, q:]
        out.append((g / gt)[g > 0])
    return np.concatenate(out)


@pytest.mark.parametrize("lam, q, sigma", [
    ([0.6, 0.4] + [0.02] * 6, 2, 0.08),
    ([0.8] + [0.01] * 7, 1, 0.15),
])
def test_projected_gaps_recover_a_spiked_model_and_reject_inflated_gaps(lam, q, sigma):
    """On a spiked model whose bulk is at the first look's noise level, the gaps de-inflated
    against the projected noise are the true gaps within ±30% (pooled median of est/true over 60
    seeded first looks), and the same check rejects gaps twice the truth. The pair de-inflation
    ``N_ij`` (the default) leaves them inflated: its median ratio is larger."""
    r = np.median(_gap_ratios(lam, q, sigma, _project))
    assert 0.7 <= r <= 1.3
    assert not 0.7 <= r / 2.0 <= 1.3  # gaps inflated 2x would fail the same check
    assert np.median(_gap_ratios(lam, q, sigma, None)) > r


def test_at_the_truth_the_bootstrap_is_the_released_gaps_inflation():
    """Taken at the true covariance (a spectrum well inside the box: the projection is neutral),
    the bootstrap's inflation of each squared eigen-gap (32 antithetic public draws) is the
    inflation of the released gaps, measured here on 4,000 independent first looks: the median
    ratio over the pairs above the Monte Carlo's resolution within ±30% (each within 0.5-2x:
    32 draws leave a second-order Monte Carlo error); the check rejects twice the truth, and
    the pair formula's N_ij, which leaves out the repulsion by the other directions, is below
    0.7x of it on those pairs."""
    lam = np.array([0.6, 0.4, 0.2, 0.15, 0.1, 0.08, 0.05, 0.03])
    sigma, m, q = 0.01, np.zeros(K), 2
    V = _law(sigma)
    I = projected_gap_inflation(np.diag(lam), lam, V, m, 1.0, q, _project)
    rng = np.random.default_rng(2026)
    ev = np.stack([np.linalg.eigvalsh(np.diag(lam) + _noise(V, rng))[::-1] for _ in range(4000)])
    g = lam[:q, None] - lam[None, q:]
    true = np.mean((ev[:, :q, None] - ev[:, None, q:]) ** 2, axis=0) - g * g
    s, diag = moments_pair_variance(V, m, 1.0, np.eye(K), q)
    N = diag[:q, None] + diag[None, q:] + 4.0 * s[:, q:]
    big = true > 3.0 * N  # above the 4,000 draws' Monte Carlo error (sd ~ N/2 here)
    assert big.sum() >= 4
    ratio = I[big] / true[big]
    assert 0.7 <= np.median(ratio) <= 1.3
    assert np.all((0.5 <= ratio) & (ratio <= 2.0))
    assert not 0.7 <= np.median(ratio) / 2.0 <= 1.3
    assert np.all(N[big] / true[big] < 0.7)


def test_pure_projected_noise_is_removed():
    """A first look of pure noise (the true covariance 0): the projection keeps the noise's
    positive part, whose gaps survive the pair de-inflation; against the projected noise the
    de-inflated gaps fall to the floor √N_ij/2 on most pairs (174 of 234 counted pairs over 20
    seeded first looks; the pair de-inflation floors 102)."""
    V, m, q = _law(0.1), np.zeros(K), 2
    floored = pair_floored = total = 0
    for s in range(20):
        A = _project(_noise(V, np.random.default_rng(100 + s)))
        U, g = pca_frame(A, V, m, 1.0, q, project=_project)
        U0, g0 = pca_frame(A, V, m, 1.0, q)
        sv, diag = moments_pair_variance(V, m, 1.0, U, q)
        floor = 0.5 * np.sqrt(diag[:q, None] + diag[None, q:] + 4.0 * sv[:, q:])
        sv0, diag0 = moments_pair_variance(V, m, 1.0, U0, q)
        floor0 = 0.5 * np.sqrt(diag0[:q, None] + diag0[None, q:] + 4.0 * sv0[:, q:])
        floored += int(np.sum((g > 0) & np.isclose(g, floor)))
        pair_floored += int(np.sum((g0 > 0) & np.isclose(g0, floor0)))
        total += int(np.sum(g > 0))
    assert floored >= 0.6 * total
    assert pair_floored < 0.5 * total


def test_the_bootstrap_is_deterministic_and_public():
    """The same first look gives the same inflation (a fixed public seed, not the release's
    stream), and a different seed gives a different Monte Carlo (the seed is used)."""
    lam = np.array([0.5, 0.3] + [0.05] * 6)
    V, m = _law(0.05), np.zeros(K)
    A = _project(np.diag(lam) + _noise(V, np.random.default_rng(7)))
    w = np.linalg.eigvalsh(A)[::-1]
    a = projected_gap_inflation(A, w, V, m, 1.0, 2, _project)
    b = projected_gap_inflation(A, w, V, m, 1.0, 2, _project)
    c = projected_gap_inflation(A, w, V, m, 1.0, 2, _project, seed=1)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def _table(seed=0, n=300, d=6):
    rng = np.random.default_rng(seed)
    X = np.clip(rng.standard_normal((n, d)) * np.array([0.5, 0.3, 0.1, 0.1, 0.1, 0.1]), -1, 1)
    return X, -np.ones(d), np.ones(d)


def test_option_is_validated_and_pair_is_the_default():
    assert GAP_INFLATIONS == ("pair", "projected-noise")
    assert AdaptiveOptions().gap_inflation == "pair"
    with pytest.raises(InvalidParameterError, match="gap_inflation"):
        AdaptiveOptions(gap_inflation="bootstrap")
    with pytest.raises(InvalidParameterError, match="gap_inflation"):
        AdaptiveOptions(gap_inflation="projected-noise", pca_gaps="spiked")


@pytest.mark.parametrize("branch", [None, "moments", "coinpress"])
def test_same_releases_guarantee_and_a_single_charge(branch):
    """Post-processing of the first look: the same (ε, δ), the same GDP parameters, ONE charge;
    with a forced branch the fit is the default's byte for byte (only the choice can differ)."""
    X, lo, hi = _table()
    got = {}
    for gi in GAP_INFLATIONS:
        entered = []

        def charging(guarantee, entered=entered):
            entered.append(guarantee)
            return contextlib.nullcontext()

        opts = AdaptiveOptions(branch=branch, gap_inflation=gi,
                               noise_pairs="normalised" if gi != "pair" else "sum")
        res = adaptive_covariance(X, lo, hi, epsilon=2.0, delta=1e-6, kind="pca",
                                  n_components=2, rng=11, charging=charging, options=opts)
        assert len(entered) == 1
        got[gi] = (res, entered[0])
    (a, ga), (b, gb) = got["pair"], got["projected-noise"]
    assert ga == gb and a.privacy == b.privacy
    assert (a.privacy.epsilon, a.privacy.delta) == (2.0, 1e-6)
    assert a.mus[0] == b.mus[0]
    assert np.sqrt(np.sum(np.square(b.mus))) <= b.privacy.mu * (1 + 1e-9)
    if branch is not None:
        assert a.choice == b.choice == branch
        assert a.mus == b.mus
        np.testing.assert_array_equal(a.covariance, b.covariance)


def test_the_fit_is_reproducible_with_the_option():
    X, lo, hi = _table(1)
    opts = AdaptiveOptions(gap_inflation="projected-noise", noise_pairs="normalised")
    a = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2,
                            rng=5, options=opts)
    b = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2,
                            rng=5, options=opts)
    np.testing.assert_array_equal(a.covariance, b.covariance)
    assert a.predicted == b.predicted or all(
        (x == y) or (x != x and y != y) for x, y in zip(a.predicted.values(), b.predicted.values()))
