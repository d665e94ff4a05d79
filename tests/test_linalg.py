"""Shared linear algebra: vec/unvec and orthonormal directions (matrixdp._linalg)."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp._linalg import check_directions, standard_directions, unvec, vec
from matrixdp.errors import InvalidParameterError, InvalidShapeError, NonFiniteInputError


def _orthonormal(dim, seed):
    q, r = np.linalg.qr(np.random.default_rng(seed).standard_normal((dim, dim)))
    return q * np.sign(np.diagonal(r))


def test_check_directions_accepts_orthonormal_and_standard_basis():
    q = _orthonormal(5, 0)
    assert np.array_equal(check_directions(q, 5), q)
    assert np.array_equal(check_directions(standard_directions(3), 3), np.eye(3))


@pytest.mark.parametrize("bad, error", [
    (1.01 * _orthonormal(4, 1), InvalidParameterError),                  # not unit norm
    (np.array([[1.0, 0.1, 0, 0], [0, 1.0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0]]), InvalidParameterError),
    (np.ones((4, 3)), InvalidShapeError),                                  # not square
    (np.eye(3), InvalidShapeError),                                        # wrong dim
    (np.where(np.eye(4) > 0, np.nan, 0.0), NonFiniteInputError),
])
def test_check_directions_rejects(bad, error):
    with pytest.raises(error) as info:
        check_directions(bad, 4, "directions")
    assert info.value.argument == "directions"


def test_vec_unvec_round_trip():
    a = np.arange(6.0).reshape(2, 3)
    assert vec(a).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    assert np.array_equal(unvec(vec(a), (2, 3)), a)


# ----------------------------------------------------------------------------- probe certificate
def _perturbed(dim, seed, i, j, size):
    """``W = Q S`` with ``S = I + size/2 (e_i e_jᵀ + e_j e_iᵀ)``: ``WᵀW - I`` has ``size`` at
    (i, j) and (j, i) (plus ``size²/4`` on the diagonal)."""
    s = np.eye(dim)
    s[i, j] = s[j, i] = size / 2
    return _orthonormal(dim, seed) @ s


def test_probe_count_reaches_the_stated_false_acceptance():
    from matrixdp._linalg import PROBE_FALSE_ACCEPT, _probe_threshold, probe_count

    for d in (256, 1000, 2000, 3000, 10000):
        k = probe_count(d)
        q = np.sqrt(2 / np.pi) * _probe_threshold(d) / 1e-8
        assert k >= 1 and q ** k <= PROBE_FALSE_ACCEPT < q ** (k - 1)
    assert probe_count(2000) == 8       # 19 with the unsplit γ_d rounding bound
    assert probe_count(10 ** 5) == 0    # rounding alone near atol: the exact check decides


def test_probe_threshold_is_the_split_rounding_bound():
    """τ(d) = 2 γ_m (d + sqrt(d)) with m = s + ceil(d/s) - 1, s = ceil(sqrt(d)): at d = 2000,
    s = 45 and m = 89 (an unsplit inner product would need γ_2000, 22x larger)."""
    from matrixdp._linalg import _probe_chunk, _probe_gamma, _probe_threshold

    u = 2.0 ** -53
    assert [_probe_chunk(d) for d in (1, 2, 4, 5, 2000, 2025, 2026)] == [1, 2, 2, 3, 45, 45, 46]
    assert _probe_gamma(2000) == pytest.approx(89 * u / (1 - 89 * u), rel=1e-15)
    assert _probe_threshold(2000) == pytest.approx(2 * 89 * u * (2000 + np.sqrt(2000)), rel=1e-12)


def test_probe_certificate_accepts_orthonormal_and_rejects_perturbed_columns():
    from matrixdp._linalg import orthonormal_by_probes, probe_count

    d = 300
    rng = np.random.default_rng(0)
    q = _orthonormal(d, 5)
    probes = rng.standard_normal((d, probe_count(d)))
    assert orthonormal_by_probes(q, probes)
    assert np.array_equal(check_directions(q, d, probes=probes), q)
    for size in (3e-8, 1e-6, 1e-2):        # max|WᵀW - I| = size > atol = 1e-8
        w = _perturbed(d, 5, 7, 200, size)
        assert not orthonormal_by_probes(w, probes)
        with pytest.raises(InvalidParameterError):
            check_directions(w, d, probes=probes)
    # within the tolerance: the exact check accepts it; the probes may not certify it, but then
    # the exact check decides, so check_directions never refuses what the exact check accepts
    w = _perturbed(d, 5, 7, 200, 5e-9)
    assert np.array_equal(check_directions(w, d, probes=probes), check_directions(w, d))


@pytest.mark.parametrize("size", ["20 tau", 2e-8])
def test_one_probe_passes_a_too_large_error_at_most_at_the_stated_rate(size):
    """Per probe, columns with an error s pass with probability <= sqrt(2/pi) tau/s (both rows i
    and j of E must pass: about 0.04² for s = 20 tau, 1e-8 for s = 2e-8). 4000 single probes;
    an accept-all certificate (or one ignoring E) fails by thousands."""
    from matrixdp._linalg import _probe_threshold, orthonormal_by_probes

    d = 256
    size = 20 * _probe_threshold(d) if size == "20 tau" else size
    w = _perturbed(d, 9, 3, 100, size)
    rng = np.random.default_rng(11)
    passed = sum(orthonormal_by_probes(w, rng.standard_normal((d, 1))) for _ in range(4000))
    bound = np.sqrt(2 / np.pi) * _probe_threshold(d) / size             # per row
    assert passed <= 4000 * bound          # expected about 4000 * bound²


def test_probe_certificate_at_d_610_refuses_small_defects_and_passes_rounding():
    """The brief's cases on the certificate alone (no exact fallback), several probe sets each:
    one entry perturbed by 1e-6 and one column scaled by 1 + 1e-7 (max|WᵀW - I| = 2e-7) are never
    certified; a rounding-level perturbation of orthonormal columns (a few ulps per entry) is
    certified every time (so the mechanism never falls back to the O(d³) check for it)."""
    from matrixdp._linalg import orthonormal_by_probes, probe_count

    d = 610                                # s = 25: the last pieces are short (610 = 24 * 25 + 10)
    q = _orthonormal(d, 21)
    entry = q.copy()
    entry[123, 456] += 1e-6
    column = q.copy()
    column[:, 77] *= 1 + 1e-7
    noise = np.random.default_rng(4).uniform(-4, 4, size=q.shape)
    ulps = q * (1 + noise * np.finfo(float).eps)
    for w in (entry, column):
        assert np.max(np.abs(w.T @ w - np.eye(d))) > 1e-7
    assert np.max(np.abs(ulps.T @ ulps - np.eye(d))) < 1e-13
    rng = np.random.default_rng(8)
    for _ in range(5):
        probes = rng.standard_normal((d, probe_count(d)))
        assert not orthonormal_by_probes(entry, probes)
        assert not orthonormal_by_probes(column, probes)
        assert orthonormal_by_probes(ulps, probes)
        assert orthonormal_by_probes(q, probes)
        assert orthonormal_by_probes(np.asfortranarray(q), probes)   # any memory layout
        assert not orthonormal_by_probes(np.asfortranarray(entry), probes)


def test_check_directions_with_probes_still_refuses_non_finite_and_wrong_shapes():
    from matrixdp._linalg import probe_count

    d = 300
    probes = np.random.default_rng(3).standard_normal((d, probe_count(d)))
    for bad in (np.nan, np.inf):
        w = _orthonormal(d, 2)
        w[10, 20] = bad
        with pytest.raises(NonFiniteInputError):
            check_directions(w, d, probes=probes)
    with pytest.raises(InvalidShapeError):
        check_directions(np.eye(d)[:, :-1], d, probes=probes)


def test_probe_certificate_in_two_steps_projects_and_decides_as_the_one_call():
    """ProbeCertificate.project returns rows @ W (summed by row blocks, to rounding) and the
    decision is that of orthonormal_by_probes, whether or not project ran; a second project is
    the plain product."""
    from matrixdp._linalg import ProbeCertificate, orthonormal_by_probes, probe_count

    d = 300
    q = _orthonormal(d, 6)
    bad = _perturbed(d, 6, 4, 250, 1e-6)
    rng = np.random.default_rng(12)
    rows = rng.uniform(-1, 1, size=(2, d))
    for w in (q, bad):
        probes = rng.standard_normal((d, probe_count(d)))
        cert = ProbeCertificate(w, probes)
        assert cert.finite
        np.testing.assert_allclose(cert.project(rows), rows @ w, rtol=0, atol=1e-13)
        assert np.array_equal(cert.project(rows), rows @ w)
        assert cert.passed() == orthonormal_by_probes(w, probes) == (w is q)
        assert ProbeCertificate(w, probes).passed() == (w is q)
    w = q.copy()
    w[3, 4] = np.nan
    assert not ProbeCertificate(w, rng.standard_normal((d, 2))).finite


def test_check_directions_refuses_overflowing_columns():
    """Finite but huge entries: WᵀW overflows (inf, or NaN where +inf and -inf meet, which the
    comparison must not let through); refused with the certificate and without it."""
    from matrixdp._linalg import probe_count

    d = 300
    w = _orthonormal(d, 3) * 1e200
    with np.errstate(over="ignore", invalid="ignore"):
        for probes in (None, np.random.default_rng(0).standard_normal((d, probe_count(d)))):
            with pytest.raises(InvalidParameterError, match="orthonormal"):
                check_directions(w, d, probes=probes)


def test_eigencov_diagonal_matches_the_dense_matrix():
    """``EigenCov.diagonal`` (hunt HW: the MVG per-entry variances ``Σ_ii Ψ_jj``) without the
    dense matrix; a diagonal covariance returns a copy of its variances."""
    from matrixdp._linalg import EigenCov

    rng = np.random.default_rng(4)
    q, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    lam = rng.uniform(0.1, 3.0, 5)
    cov = EigenCov(lam, q)
    assert np.allclose(cov.diagonal(), np.diag(cov.matrix()), rtol=1e-12, atol=1e-14)
    plain = EigenCov(lam)
    out = plain.diagonal()
    assert np.array_equal(out, lam) and out is not plain.variances
