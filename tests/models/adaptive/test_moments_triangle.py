"""The adaptive covariance's moments branch drawn as a dominating triangle (task CV, session 24;
``AdaptiveOptions(moments_triangle=True)``, ``CovarianceOptions(adaptive_moments_triangle=True)``;
``docs/coinpress.md`` § "The moments branch's last release as a dominating triangle").

Asserted: ``adaptive_moments_triangle=False`` is main's release byte for byte (hashes of seeded
fits taken on main c9ac1aa before the option existed) and the default (since task CV) is the
triangle; with it the first look, the choice, the predictions
and the guarantee are the default's, every whitened fit is byte-identical, and a moments fit
draws the triangle only where it dominates the plan entry by entry; the released diagonal's
spread matches the reported (combined) entry variance, which is below the default's.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from matrixdp.models import CovarianceOptions, DPCovariance
from matrixdp.models._moments import augmented_task, dominating_triangle_of, plan_second_moment
from matrixdp.models.adaptive import AdaptiveOptions, adaptive_covariance

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _triangle_fits import digest, seeded_fits  # noqa: E402


#: ``DPCovariance()`` on ``_triangle_fits.triangle_tables()`` × ε ∈ (0.5, 5) × seed ∈ (0, 1),
#: computed on main c9ac1aa (before this option): (choice, allocation, sha256 of covariance_
#: bytes, first 16 hex).
MAIN = [("moments", "unit-box", "f53214dd5e79921c"), ("moments", "unit-box", "04d8ce44c9b9d394"),
        ("moments", "unit-box", "55af1d943c14bc9b"), ("moments", "unit-box", "7e92022ed6fc735a"),
        ("coinpress", "coinpress", "0ba19d726a17fe18"),
        ("coinpress", "coinpress", "98aea0ee4d5fbaf5"),
        ("coinpress", "coinpress", "058b9823893d9b55"),
        ("coinpress", "coinpress", "aaad1734d804e034"),
        ("moments", "mse-optimal", "c141622edb67a8d3"),
        ("moments", "mse-optimal", "db26579945bcd900"),
        ("moments", "mse-optimal", "6141583abb60b72d"),
        ("moments", "mse-optimal", "9ac6e10815744434")]


def _fits(experimental=None):
    return seeded_fits(lambda X, b, eps, s: DPCovariance(
        epsilon=eps, delta=1e-6, bounds=b, random_state=s, experimental=experimental))


def _hash(m):
    return digest(m.covariance_)


def test_false_is_mains_release_byte_for_byte_and_the_default_is_the_triangle():
    got = [(m.adaptive_choice_, m.allocation_, _hash(m))
           for m in _fits(CovarianceOptions(adaptive_moments_triangle=False))]
    assert got == MAIN
    default = [(m.adaptive_choice_, m.allocation_, _hash(m)) for m in _fits()]
    assert default == [(m.adaptive_choice_, m.allocation_, _hash(m))
                       for m in _fits(CovarianceOptions(adaptive_moments_triangle=True))]
    assert default != MAIN


def test_the_option_changes_only_the_moments_branchs_last_draw():
    base = _fits(CovarianceOptions(adaptive_moments_triangle=False))
    cand = _fits()
    for a, b in zip(base, cand):
        assert a.adaptive_choice_ == b.adaptive_choice_
        assert a.adaptive_predicted_.keys() == b.adaptive_predicted_.keys()
        for key, value in a.adaptive_predicted_.items():  # the first look and the counts
            assert b.adaptive_predicted_[key] == value or (value != value and b.adaptive_predicted_[
                key] != b.adaptive_predicted_[key]), key
        assert a.privacy_ == b.privacy_
        if a.adaptive_choice_ == "coinpress":
            assert _hash(a) == _hash(b)  # the whitened step: byte for byte
        else:
            assert b.allocation_ == a.allocation_.replace("unit-box", "iid-unit-box") + "-triangle"
            assert _hash(a) != _hash(b)


def _uniform(n=20000, k=4, seed=11):
    return np.random.default_rng(seed).uniform(-1, 1, (n, k)), -np.ones(k), np.ones(k)


def test_the_triangle_is_drawn_only_where_it_dominates():
    X, lo, hi = _uniform(500, 3)
    task = augmented_task(lo, hi, 500, "covariance")[0]
    plan = plan_second_moment(task, epsilon=1.0, delta=1e-6)[0]
    tri = dominating_triangle_of(task, 1.0, 1e-6, plan)
    assert tri is not None and tri.allocation.endswith("triangle")
    assert np.all(tri.entry_variance <= plan.entry_variance * (1 + 1e-9))
    assert np.any(tri.entry_variance < plan.entry_variance * (1 - 1e-9))
    assert float(tri.privacy.mu) == pytest.approx(float(plan.privacy.mu), rel=1e-9)
    # add-remove: never admitted (the triangle's bound is proven for replace-one here)
    task_ar = augmented_task(lo, hi, 500, "covariance", neighbouring="add-remove")[0]
    plan_ar = plan_second_moment(task_ar, epsilon=1.0, delta=1e-6)[0]
    assert dominating_triangle_of(task_ar, 1.0, 1e-6, plan_ar) is None
    # a full draw's law that no triangle dominates (the plain i.i.d. plan on a box where the
    # triangle bound is not attained) is kept: here dominance fails for the i.i.d. full draw of a
    # one-signed Gram box, so the helper returns None rather than trading entries
    gram = augmented_task(np.zeros(3), np.ones(3), 500, "gram")[0]
    iid = plan_second_moment(gram, epsilon=1.0, delta=1e-6, noise="iid")[0]
    assert dominating_triangle_of(gram, 1.0, 1e-6, iid) is None


def test_the_released_diagonal_has_the_reported_variance_and_less_than_the_default():
    """400 forced moments fits on centred uniform records (mean ≈ 0, so the diagonal's noise is
    the release's ``δG_ii`` to first order): the pooled variance of ``Ĉ_ii − C_ii`` matches the
    reported combined entry variance within 15 % and rejects ±30 %; the default's reported
    diagonal variance is more than 3× the candidate's (the triangle's gain is real)."""
    X, lo, hi = _uniform()
    n, k = X.shape
    C = np.cov(X.T, bias=True)
    opts = AdaptiveOptions(branch="moments", moments_triangle=True)
    dev, V = [], None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for s in range(400):
            res = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=s, options=opts)
            dev.append(np.diag(res.covariance) - np.diag(C))
            V = res.entry_variance
        base = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=0,
                                   options=AdaptiveOptions(branch="moments"))
    assert res.allocation.endswith("triangle") and not base.allocation.endswith("triangle")
    v_diag = np.diag(V)[:k]
    ratio = float(np.mean(np.square(dev) / v_diag))
    assert 0.85 < ratio < 1.15
    for wrong in (0.7, 1.3):
        assert not 0.85 < ratio / wrong < 1.15
    assert np.all(np.diag(base.entry_variance)[:k] > 3 * v_diag)
    # and the off-diagonal entries are no noisier than the default's
    iu = np.triu_indices(k, 1)
    assert np.all(V[:k, :k][iu] <= base.entry_variance[:k, :k][iu] * (1 + 1e-9))


def test_the_option_is_validated_by_name():
    from matrixdp.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="moments_triangle"):
        AdaptiveOptions(moments_triangle=1)
    with pytest.raises(InvalidParameterError, match="adaptive_moments_triangle"):
        CovarianceOptions(adaptive_moments_triangle="on")
