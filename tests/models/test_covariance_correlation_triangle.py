"""The correlation default's moments branch drawn as a dominating triangle (task TC, session 24;
``CovarianceOptions(adaptive_correlation_triangle=True)`` → ``AdaptiveOptions(
moments_triangle=True)`` in ``DPCovariance(kind="correlation")``'s adaptive fit;
``docs/postprocessing.md`` § "The correlation's moments branch as a dominating triangle").

Asserted: ``adaptive_correlation_triangle=False`` is branch ``cv``'s correlation release byte for
byte (hashes of seeded fits taken on cv 203d132 before the option existed); with ``True`` the
choice, the predictions and the guarantee are the same, every whitened fit is byte-identical and
every moments fit draws the triangle; the pooled-floor shrinkage reads the averaged release's
entry variances, which are the triangle's (diagonal strictly smaller than the full draw's,
off-diagonal no larger). Whether it helps is the dev gate's question
(``results/corr_triangle_gate.md``), not a unit test's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from matrixdp.models import CovarianceOptions, DPCovariance
from matrixdp.models import covariance as covmod

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _triangle_fits import digest, seeded_fits, triangle_tables  # noqa: E402

FULL = CovarianceOptions(adaptive_correlation_triangle=False)
TRI = CovarianceOptions(adaptive_correlation_triangle=True)


#: ``DPCovariance(kind="correlation")`` on ``triangle_tables(correlated=True)`` × ε ∈ (0.5, 5) ×
#: seed ∈ (0, 1), computed on branch cv 203d132 (before this option): (choice, allocation, sha256
#: of covariance_, 16 hex).
CV = [("moments", "unit-box", "701d8f7077aa5771"), ("moments", "unit-box", "d8d3367db1ae6c88"),
      ("moments", "unit-box", "7e300981498e3234"), ("moments", "unit-box", "9ca1c6eddf942cd6"),
      ("moments", "iid", "1332df685c45a61a"), ("moments", "iid", "714bf6a57f2b2110"),
      ("coinpress", "coinpress", "952295125d4401ef"),
      ("coinpress", "coinpress", "7a46c73512235dbe"),
      ("moments", "unit-box", "1332df685c45a61a"), ("moments", "unit-box", "f00641db850dd3e7"),
      ("moments", "unit-box", "1332df685c45a61a"), ("moments", "unit-box", "587e5d00515dbf6d")]


def _fits(experimental=None):
    return seeded_fits(lambda X, b, eps, s: DPCovariance(
        epsilon=eps, delta=1e-6, bounds=b, kind="correlation", random_state=s,
        experimental=experimental), correlated=True)


def _hash(m):
    return digest(m.covariance_)


def _key(m):
    return (m.adaptive_choice_, m.allocation_, _hash(m))


def test_false_is_cvs_correlation_release_byte_for_byte():
    assert [_key(m) for m in _fits(FULL)] == CV
    assert [_key(m) for m in _fits()] == [_key(m) for m in _fits(FULL)]  # the default: False


def test_true_changes_only_the_moments_branchs_last_draw():
    base, cand = _fits(FULL), _fits(TRI)
    changed = 0
    for a, b in zip(base, cand):
        assert a.adaptive_choice_ == b.adaptive_choice_
        assert a.adaptive_predicted_.keys() == b.adaptive_predicted_.keys()
        for key, value in a.adaptive_predicted_.items():  # the first look and the counts
            got = b.adaptive_predicted_[key]
            assert got == value or (value != value and got != got), key
        assert a.privacy_ == b.privacy_  # the guarantee: identical
        assert a.method_ == b.method_ == "adaptive"
        if a.adaptive_choice_ == "coinpress":
            assert _key(a) == _key(b)  # the whitened step: byte for byte
        else:
            assert b.allocation_ == a.allocation_.replace("unit-box", "iid-unit-box") + "-triangle"
            changed += _hash(a) != _hash(b)
    # the correlated table's four moments fits all change (elsewhere the pooled floor may shrink
    # both releases to the same identity)
    assert changed >= 4


def _captured(X, b, eps, seed, opts, monkeypatch):
    """The adaptive result and the entry variances ``shrink_covariance`` read in one fit."""
    got = {}
    fit_adaptive, shrink = covmod.fit_adaptive, covmod.shrink_covariance

    def spy_fit(*args, **kw):
        out = fit_adaptive(*args, **kw)
        got["res"] = out[2]
        return out

    def spy_shrink(cov, G, V, *args, **kw):
        got["V"] = np.array(V, copy=True)
        return shrink(cov, G, V, *args, **kw)

    monkeypatch.setattr(covmod, "fit_adaptive", spy_fit)
    monkeypatch.setattr(covmod, "shrink_covariance", spy_shrink)
    m = DPCovariance(epsilon=eps, delta=1e-6, bounds=b, kind="correlation", random_state=seed,
                     experimental=opts).fit(X)
    monkeypatch.undo()
    return m, got


def test_the_pooled_floor_reads_the_triangles_entry_variances(monkeypatch):
    X, b = triangle_tables(correlated=True)[0]
    base, gb = _captured(X, b, 0.5, 0, FULL, monkeypatch)
    cand, gc = _captured(X, b, 0.5, 0, TRI, monkeypatch)
    assert base.shrinkage_ == cand.shrinkage_ == "projected"
    assert gc["res"].allocation.endswith("triangle")
    # the shrinkage reads the averaged release's variances: the triangle's
    np.testing.assert_array_equal(gc["V"], gc["res"].entry_variance)
    np.testing.assert_array_equal(gb["V"], gb["res"].entry_variance)
    k = X.shape[1]
    vb, vc = gb["V"], gc["V"]
    assert np.all(np.diag(vc)[:k] < np.diag(vb)[:k])  # strictly less noisy diagonal
    assert np.all(vc <= vb * (1 + 1e-9))  # and no entry noisier
    assert not np.array_equal(base.shrinkage_factors_, cand.shrinkage_factors_)


def test_the_option_is_validated_by_name():
    from matrixdp.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="adaptive_correlation_triangle"):
        CovarianceOptions(adaptive_correlation_triangle="on")
    # ignored by the covariance kind: the covariance default's release is unchanged
    X, b = triangle_tables(correlated=True)[0]
    a = DPCovariance(epsilon=1.0, bounds=b, random_state=0).fit(X)
    c = DPCovariance(epsilon=1.0, bounds=b, random_state=0, experimental=TRI).fit(X)
    assert _hash(a) == _hash(c)
