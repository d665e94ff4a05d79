"""The pure parts of experiments/ron_gauss_peers.py (no peer packages needed): the public bins,
midpoint decoding, the table encoding, and MST's replace-one zCDP calibration."""

from __future__ import annotations

import importlib
import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

from matrixdp.calibration.discrete import zcdp_delta

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
peers = importlib.import_module("ron_gauss_peers")

SCALE = {"age": 100.0, "education-num": 16.0, "capital-gain": 1e5, "capital-loss": 5e3,
         "hours-per-week": 100.0}


def test_public_edges_are_domain_constants():
    """Increasing edges fixed in advance: 5-unit bins centred on multiples of 5 for age and hours,
    one bin per grade, an exact-zero bin for capital gain/loss."""
    for name, edges in peers.PUBLIC_EDGES.items():
        assert np.all(np.diff(edges) > 0), name
    mids = peers.bin_midpoints(np.arange(21), peers.PUBLIC_EDGES["hours-per-week"]) * 100
    np.testing.assert_allclose(mids, 5.0 * np.arange(21), atol=1e-12)
    grades = peers.bin_midpoints(np.arange(16), peers.PUBLIC_EDGES["education-num"]) * 16
    np.testing.assert_allclose(grades, np.arange(1, 17), atol=1e-12)
    for name in ("capital-gain", "capital-loss"):
        edges = peers.PUBLIC_EDGES[name]
        assert peers.bin_midpoints([0], edges)[0] == 0.0
        assert peers.bin_codes([0.0], edges)[0] == 0
        assert peers.bin_codes([1.0 / SCALE[name]], edges)[0] == 1  # $1 leaves the zero bin


def test_bins_round_trip_to_midpoints_within_half_a_bin_and_clip_outside():
    rng = np.random.default_rng(0)
    for name, edges in peers.PUBLIC_EDGES.items():
        x = rng.uniform(edges[0], edges[-1], size=5000)
        codes = peers.bin_codes(x, edges)
        assert codes.min() >= 0 and codes.max() <= edges.size - 2
        width = np.diff(edges)[codes]
        assert np.all(np.abs(peers.bin_midpoints(codes, edges) - x) <= width / 2 + 1e-12), name
        assert np.all((edges[codes] <= x) & (x < edges[codes + 1]))
    edges = peers.PUBLIC_EDGES["age"]
    np.testing.assert_array_equal(peers.bin_codes([-5.0, 7.0], edges), [0, edges.size - 2])


def _toy_layout():
    names = list(peers.NUMERIC) + ["colour=red", "colour=green", "colour=blue", "sex=F", "sex=M"]
    rng = np.random.default_rng(1)
    n = 200
    X = np.zeros((n, len(names)))
    X[:, 0] = rng.integers(17, 91, n) / 100
    X[:, 1] = rng.integers(1, 17, n) / 16
    X[:, 2] = np.where(rng.random(n) < 0.8, 0, rng.integers(1, 99_999, n)) / 1e5
    X[:, 3] = np.where(rng.random(n) < 0.9, 0, rng.integers(1, 4_356, n)) / 5e3
    X[:, 4] = rng.integers(1, 100, n) / 100
    colour = rng.integers(0, 4, n)  # 3: missing (all indicators zero)
    X[colour < 3, 5 + colour[colour < 3]] = 1.0
    X[np.arange(n), 8 + rng.integers(0, 2, n)] = 1.0
    return names, X, rng.integers(0, 2, n)


def test_encode_decode_round_trip():
    names, X, y = _toy_layout()
    attrs, sizes = peers.table_domain(names)
    assert attrs == list(peers.NUMERIC) + ["colour", "sex", "income"]
    assert sizes == [21, 16, 21, 21, 21, 4, 3, 2]
    codes = peers.encode(X, y, names)
    assert np.all(codes < np.array(sizes)) and np.all(codes >= 0)
    assert np.all(codes[X[:, 5:8].sum(axis=1) == 0, 5] == 3)  # missing gets its own code
    X2, y2 = peers.decode(codes, names)
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(X2[:, 5:], X[:, 5:])  # categories: exact
    np.testing.assert_array_equal(X2[:, 1], X[:, 1])  # education-num: one bin per grade
    half = [2.5 / 100, 0, 2500 / 1e5, 125 / 5e3, 2.5 / 100]
    assert np.all(np.abs(X2[:, :5] - X[:, :5]) <= np.array(half) + 1e-12)
    zero = X[:, 2] == 0
    np.testing.assert_array_equal(X2[zero, 2], 0.0)


@pytest.mark.parametrize("eps", [0.1, 1.0, 10.0])
def test_mst_calibration_meets_exactly_the_target_under_replace_one(eps):
    """(8/3)·ρ_internal converts to (ε, 1e-9) exactly; a 30% larger ρ exceeds δ, a 30% smaller
    one is far inside it."""
    delta = 1e-9
    rho = peers.mst_internal_rho(eps, delta)
    rho_replace = peers.MST_REPLACE_ONE_FACTOR * rho
    assert zcdp_delta(eps, rho_replace) <= delta
    assert zcdp_delta(eps, rho_replace) == pytest.approx(delta, rel=1e-6)
    assert zcdp_delta(eps, 1.3 * rho_replace) > 10 * delta
    assert zcdp_delta(eps, rho_replace / 1.3) < delta / 10
    # the add/remove-only calibration (internal ρ = ρ*) would overspend by the factor 8/3
    assert zcdp_delta(eps, peers.MST_REPLACE_ONE_FACTOR * peers.replace_one_rho(eps, delta)) > 10 * delta


def test_replace_one_sensitivities_behind_the_factor():
    """Replacing one record: every one-way marginal moves by squared L2 norm ≤ 2 (Gaussian steps
    double their zCDP) and an L1 error score ‖x − x̂‖₁ of a two-way marginal by at most 2, with
    the range [−2, 2] attained (the selection's zCDP quadruples): 2/3 + 4/3 + 2/3 = 8/3."""
    rng = np.random.default_rng(3)
    sizes = (3, 4)
    data = rng.integers(0, 3, size=(30, 2)) % np.array(sizes)
    xhat = rng.uniform(0, 5, size=sizes)

    def two_way(d):
        return np.histogramdd(d, bins=[np.arange(s + 1) for s in sizes])[0]

    changes = []
    for i, new in itertools.product(range(len(data)), itertools.product(*map(range, sizes))):
        other = data.copy()
        other[i] = new
        for a in range(2):
            one = np.bincount(data[:, a], minlength=sizes[a]) - np.bincount(other[:, a], minlength=sizes[a])
            assert np.sum(one ** 2) <= 2
        changes.append(np.abs(two_way(other) - xhat).sum() - np.abs(two_way(data) - xhat).sum())
    changes = np.array(changes)
    assert changes.max() <= 2 + 1e-12 and changes.min() >= -2 - 1e-12
    # a sharper L1 change than 1: with x̂ = x every score grows by exactly 2 when a record moves
    x = two_way(data)
    other = data.copy()
    other[0] = [(data[0, 0] + 1) % sizes[0], data[0, 1]]
    assert np.abs(two_way(other) - x).sum() == pytest.approx(2.0)
    assert peers.MST_REPLACE_ONE_FACTOR == pytest.approx(2 / 3 + 4 / 3 + 2 / 3)
