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

    for d in (256, 1000, 2000, 3000):
        k = probe_count(d)
        q = np.sqrt(2 / np.pi) * _probe_threshold(d, 1e-8) / 1e-8
        assert k >= 1 and q ** k <= PROBE_FALSE_ACCEPT < q ** (k - 1)
    assert probe_count(2000) == 19
    assert probe_count(20000) == 0      # rounding alone near atol: the exact check decides


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


def test_one_probe_passes_a_just_too_large_error_at_most_at_the_stated_rate():
    """Per probe, columns with an error s > atol pass with probability <= sqrt(2/pi) tau/s
    (both rows i and j of E must pass: about 0.04² here). 4000 single probes; an accept-all
    certificate (or one ignoring E) fails by thousands."""
    from matrixdp._linalg import _probe_threshold, orthonormal_by_probes

    d = 256
    w = _perturbed(d, 9, 3, 100, 2e-8)
    rng = np.random.default_rng(11)
    passed = sum(orthonormal_by_probes(w, rng.standard_normal((d, 1))) for _ in range(4000))
    bound = np.sqrt(2 / np.pi) * _probe_threshold(d, 1e-8) / 2e-8       # 0.04 per row
    assert passed <= 4000 * bound          # expected about 4000 * bound² = 6


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
