"""DPPCA's split first look (task PS, session 25; ``PCAOptions(adaptive_split_look=True)`` passing
``AdaptiveOptions(split_look=True)`` to DPPCA's adaptive fit; ``docs/coinpress.md`` § "The split
first look (task PS)").

Asserted: off is the default's fit byte for byte; on, every fit that draws ``Y₂`` is the default's
fit byte for byte (components, variances, mean, choice) and the others skip it; the guarantee and
the accountant's charge are the default's and the releases' GDP parameters sum to ``μ*²`` on both
paths (``μ₁²/2`` for the skipped path's first look); the skipped path's combined release (``Y₁``
averaged by inverse variance with the last release) has the entry variance it states, within 15%
over 300 draws, and the same check refuses that variance scaled by 0.7 or 1.3; invalid values and
the mixed first look are refused by name.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from matrixdp.accounting import Accountant
from matrixdp.calibration.gaussian import max_gaussian_shift
from matrixdp.errors import InvalidParameterError
from matrixdp.models import DPPCA
from matrixdp.models._moments import augmented_task
from matrixdp.models.adaptive import AdaptiveOptions, adaptive_covariance
from matrixdp.models.experimental import PCAOptions

ON = PCAOptions(adaptive_split_look=True)


def _wide():
    """Six unit-range features and two wide ones: the moments branch, Y₂ skipped (k = 5)."""
    rng = np.random.default_rng(0)
    hi = np.array([1.0] * 6 + [10.0, 10.0])
    return rng.uniform(0.0, 1.0, (2000, 8)) * hi, (np.zeros(8), hi)


def _step():
    """Records in a small part of a wide box: the whitened step, Y₂ drawn."""
    rng = np.random.default_rng(1)
    X = np.clip(rng.normal(0, 1, (3000, 6)) @ np.diag([3, 2, 1, 1, .5, .5]) * 0.05 + 0.5, 0, 1)
    return X, (np.full(6, -20.0), np.full(6, 20.0))


def _fit(table, k, seed, experimental=None, eps=1.0, **kw):
    X, b = table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return DPPCA(n_components=k, epsilon=eps, delta=1e-6, bounds=b, random_state=seed,
                     experimental=experimental, **kw).fit(X)


def _same(a, b):
    return (a.adaptive_choice_ == b.adaptive_choice_
            and np.array_equal(a.components_, b.components_)
            and np.array_equal(a.explained_variance_, b.explained_variance_)
            and np.array_equal(a.mean_, b.mean_))


def test_off_is_the_default_byte_for_byte():
    for seed in (0, 1):
        a = _fit(_wide, 5, seed)
        b = _fit(_wide, 5, seed, PCAOptions(adaptive_split_look=False))
        assert _same(a, b)
        assert "split_look" not in b.adaptive_predicted_


def test_fits_that_draw_y2_are_the_default_byte_for_byte():
    paths = {"drawn": 0, "skipped": 0}
    for table, k in ((_step, 2), (_wide, 5), (_wide, 2)):
        for eps in (0.5, 2.0):
            for seed in range(4):
                a, b = _fit(table, k, seed, eps=eps), _fit(table, k, seed, ON, eps=eps)
                path = b.adaptive_predicted_["split_look"]
                paths[path] += 1
                if path == "drawn":
                    assert _same(a, b)
                else:  # skipped: the moments branch from Y₁, a different release
                    assert b.adaptive_choice_ == "moments"
                    assert not np.array_equal(a.components_, b.components_)
    assert paths["drawn"] >= 8 and paths["skipped"] >= 8, paths


@pytest.mark.parametrize("table,k", [(_wide, 5), (_step, 2)])
def test_the_guarantee_and_the_charge_are_the_defaults(table, k):
    for seed in (0, 1):
        acc_a, acc_b = Accountant(epsilon=10.0, delta=1e-3), Accountant(epsilon=10.0, delta=1e-3)
        a = _fit(table, k, seed, accountant=acc_a)
        b = _fit(table, k, seed, ON, accountant=acc_b)
        pa, pb = a.privacy_, b.privacy_
        assert (pa.epsilon, pa.delta, pa.mu) == (pb.epsilon, pb.delta, pb.mu) == (1.0, 1e-6, pa.mu)
        assert len(pa.notes) == len(pb.notes)  # the split named in the composition's note
        assert [a == b for a, b in zip(pa.notes, pb.notes)].count(False) == 1
        assert any(b.startswith(a) and "two independent halves" in b
                   for a, b in zip(pa.notes, pb.notes))
        assert len(acc_a.spends) == len(acc_b.spends) == 1
        ta, tb = acc_a.total(), acc_b.total()
        assert (ta.epsilon, ta.delta) == (tb.epsilon, tb.delta)


@pytest.mark.parametrize("table,k,path", [(_wide, 5, "skipped"), (_step, 2, "drawn")])
def test_the_releases_split_the_budget_as_stated(table, k, path):
    X, (lo, hi) = table()
    for eps in (0.5, 2.0):
        mu_star = max_gaussian_shift(eps, 1e-6)
        ref = adaptive_covariance(X, lo, hi, epsilon=eps, delta=1e-6, kind="pca",
                                  n_components=k, rng=3)
        res = adaptive_covariance(X, lo, hi, epsilon=eps, delta=1e-6, kind="pca",
                                  n_components=k, rng=3, options=AdaptiveOptions(split_look=True))
        assert res.predicted["split_look"] == path
        mus = np.asarray(res.mus, dtype=float)
        mu1 = float(ref.mus[0])  # the whole first look's μ₁
        assert mus[0] ** 2 == pytest.approx(mu1 ** 2 / (2.0 if path == "skipped" else 1.0),
                                            rel=1e-9)
        assert math.sqrt(float(np.sum(mus ** 2))) <= mu_star * (1 + 1e-9)
        if path == "skipped":  # no statistic: nothing left over
            assert math.sqrt(float(np.sum(mus ** 2))) >= mu_star * (1 - 1e-6)


def _skipped_z2(draws=300, eps=1.0):
    """Mean over the skipped draws and entries of (Ĝ − G)²/V of the combined release."""
    X, (lo, hi) = _wide()
    n, d = X.shape
    _, center, t = augmented_task(lo, hi, n, "pca", n_components=5)
    Z = np.column_stack([X - center, np.full(n, t)])
    G_true = Z.T @ Z / n
    iu = np.triu_indices(d + 1)
    keep = (iu[0] < d) | (iu[1] < d)  # the corner t² is public
    z2, V, skipped = [], None, 0
    for s in range(draws):
        res = adaptive_covariance(X, lo, hi, epsilon=eps, delta=1e-6, kind="pca",
                                  n_components=5, rng=1000 + s,
                                  options=AdaptiveOptions(split_look=True))
        if res.predicted["split_look"] != "skipped":
            continue
        skipped += 1
        m = res.mean
        G = np.empty((d + 1, d + 1))
        G[:d, :d] = res.covariance + np.outer(m, m)
        G[:d, d] = G[d, :d] = m * t
        G[d, d] = t * t
        V = res.entry_variance if V is None else V
        assert np.array_equal(V, res.entry_variance)  # public: the same every skipped draw
        z2.append(((G - G_true)[iu][keep]) ** 2)
    # the skip is (nearly) unconditional on this table, so conditioning on it does not bias
    assert skipped >= 0.95 * draws, skipped
    return np.mean(np.asarray(z2), axis=0), V[iu][keep]


def test_the_skipped_paths_release_has_the_stated_variance():
    sq, V = _skipped_z2()
    ratio = float(np.mean(sq / V))
    assert abs(ratio - 1.0) < 0.15, ratio
    for wrong in (0.7, 1.3):  # the same check refuses a wrong stated variance
        assert abs(float(np.mean(sq / (wrong * V))) - 1.0) >= 0.15


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_invalid_values_are_refused_by_name(bad):
    with pytest.raises(InvalidParameterError, match="adaptive_split_look"):
        PCAOptions(adaptive_split_look=bad)
    with pytest.raises(InvalidParameterError, match="split_look"):
        AdaptiveOptions(split_look=bad)


def test_the_mixed_first_look_is_refused():
    X, (lo, hi) = _wide()
    with pytest.raises(InvalidParameterError, match="split_look"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=5,
                            rng=0, first_kind="mixed", options=AdaptiveOptions(split_look=True))
