"""DPPCA's adaptive moments branch drawn as a dominating triangle (task TP, session 24;
``PCAOptions(adaptive_moments_triangle=True)`` passing ``AdaptiveOptions(moments_triangle=True)``
to DPPCA's adaptive fit; ``docs/coinpress.md`` § "The dominating triangle in the PCA default
(task TP)").

Asserted: ``adaptive_moments_triangle=False`` (the default) is branch ``cv``'s release byte for byte
(hashes of seeded fits taken on ``cv`` 203d132, before the option existed); with the option the
choice, the first look's predictions and the guarantee are the default's, every whitened (CoinPress)
fit is byte-identical and every moments fit changes; it combines with ``adaptive_step_margin``
(both options reach the fit); an invalid value is refused by the field's name.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.models import DPPCA
from matrixdp.models.experimental import PCAOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _triangle_fits import digest, seeded_fits  # noqa: E402

#: ``DPPCA(n_components=2)`` on ``_triangle_fits.triangle_tables()`` × ε ∈ (0.5, 5) × seed ∈
#: (0, 1), computed on branch ``cv`` 203d132 (before this option): (choice, sha256 of
#: components_ + explained_variance_ bytes, first 16 hex).
CV = [("moments", "d616532e7ab90304"), ("moments", "9f4c6704761f3b43"),
      ("moments", "8799c434014d7c4b"), ("moments", "9b251d827d750986"),
      ("coinpress", "a9dad5ee2944ae78"), ("coinpress", "54da3c07e53f6b12"),
      ("coinpress", "a36ff5ec1502dc00"), ("coinpress", "16e0ea7f919c34b5"),
      ("moments", "03353501490d39b4"), ("moments", "fcf83592375949bf"),
      ("moments", "bf7e52463817cd9b"), ("moments", "43b0193de472ac2d")]


def _fits(experimental=None):
    return seeded_fits(lambda X, b, eps, s: DPPCA(
        n_components=2, epsilon=eps, delta=1e-6, bounds=b, random_state=s,
        experimental=experimental))


def _hash(m):
    return digest(m.components_, m.explained_variance_)


def test_false_is_the_release_before_byte_for_byte():
    got = [(m.adaptive_choice_, _hash(m))
           for m in _fits(PCAOptions(adaptive_moments_triangle=False))]
    assert got == CV
    assert [(m.adaptive_choice_, _hash(m)) for m in _fits()] == got


def test_the_option_changes_only_the_moments_branchs_fits():
    base = _fits(PCAOptions(adaptive_moments_triangle=False))
    cand = _fits(PCAOptions(adaptive_moments_triangle=True))
    assert {a.adaptive_choice_ for a in base} == {"moments", "coinpress"}  # both branches met
    for a, b in zip(base, cand):
        assert a.adaptive_choice_ == b.adaptive_choice_
        assert a.adaptive_predicted_.keys() == b.adaptive_predicted_.keys()
        for key, value in a.adaptive_predicted_.items():  # the first look and the ranking
            same = b.adaptive_predicted_[key]
            assert same == value or (value != value and same != same), key
        assert a.privacy_ == b.privacy_  # the same (ε, δ) and charge
        if a.adaptive_choice_ == "coinpress":
            assert _hash(a) == _hash(b)  # the whitened step: byte for byte
        else:
            assert _hash(a) != _hash(b)  # the last release is the triangle's draw


def test_it_combines_with_the_step_margin():
    """Both knobs reach the adaptive fit: with the margin, the triangle changes the margin-only
    fit exactly where that fit takes the moments branch, and leaves its choice alone."""
    margin = _fits(PCAOptions(adaptive_step_margin="noise-level"))
    both = _fits(PCAOptions(adaptive_step_margin="noise-level", adaptive_moments_triangle=True))
    assert any(m.adaptive_choice_ == "moments" for m in margin)
    for a, b in zip(margin, both):
        assert a.adaptive_choice_ == b.adaptive_choice_
        assert a.adaptive_predicted_.get("step_margin") == b.adaptive_predicted_.get("step_margin")
        assert (_hash(a) == _hash(b)) == (a.adaptive_choice_ == "coinpress")


def test_an_invalid_value_is_refused_by_name():
    with pytest.raises(InvalidParameterError, match="adaptive_moments_triangle"):
        PCAOptions(adaptive_moments_triangle="on")
    with pytest.raises(InvalidParameterError, match="adaptive_moments_triangle"):
        PCAOptions(adaptive_moments_triangle=1)
