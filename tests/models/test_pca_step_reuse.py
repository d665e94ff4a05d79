"""DPPCA's adaptive step with the first look reused (task PC, issue #24;
``PCAOptions(adaptive_step_reuse=True)`` passing ``AdaptiveOptions(step_reuse=True)`` to DPPCA's
adaptive fit; ``matrixdp.models.adaptive.steps.first_look_reuse``; ``docs/coinpress.md``
§ Adaptive (PCA), "The first look reused by the step (task PC)").

Asserted: ``adaptive_step_reuse=False`` (the default) is the release before the option byte for
byte (the hashes of ``test_pca_moments_triangle.CV``, taken before either option); with the
option the choice, the first look's predictions and the guarantee (so the charge) are the
default's, every moments fit is byte-identical and every whitened fit changes; the averaged
estimate's entry variances in the whitening's frame are the stated ``v₁v₂/(v₁ + v₂)`` (within
15%, and 0.7× / 1.3× of it rejected), the weights are the inverse-variance ones and the
average is unbiased; an invalid value is refused by the field's name.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from matrixdp.accounting import Accountant
from matrixdp.errors import InvalidParameterError
from matrixdp.models import DPPCA
from matrixdp.models.adaptive import AdaptiveOptions
from matrixdp.models.adaptive.frame import coinpress_pair_variance, moments_pair_variance
from matrixdp.models.adaptive.steps import first_look_reuse
from matrixdp.models.experimental import PCAOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _triangle_fits import digest, seeded_fits  # noqa: E402
from test_pca_moments_triangle import CV  # noqa: E402


def _fits(experimental=None):
    return seeded_fits(lambda X, b, eps, s: DPPCA(
        n_components=2, epsilon=eps, delta=1e-6, bounds=b, random_state=s,
        experimental=experimental))


def _hash(m):
    return digest(m.components_, m.explained_variance_)


def test_false_is_the_release_before_byte_for_byte():
    got = [(m.adaptive_choice_, _hash(m)) for m in _fits(PCAOptions(adaptive_step_reuse=False))]
    assert got == CV
    assert "first_look_weight" not in _fits()[0].adaptive_predicted_


def test_the_option_changes_only_the_whitened_fits():
    base = _fits()
    cand = _fits(PCAOptions(adaptive_step_reuse=True))
    assert {a.adaptive_choice_ for a in base} == {"moments", "coinpress"}  # both branches met
    for a, b in zip(base, cand):
        assert a.adaptive_choice_ == b.adaptive_choice_
        for key, value in a.adaptive_predicted_.items():  # the first look and the ranking
            same = b.adaptive_predicted_[key]
            assert same == value or (value != value and same != same), key
        assert a.privacy_ == b.privacy_  # the same (ε, δ)
        w = b.adaptive_predicted_["first_look_weight"]
        if a.adaptive_choice_ == "coinpress":
            assert _hash(a) != _hash(b)  # the first look averaged in
            assert 0.0 <= w <= 1.0
        else:
            assert _hash(a) == _hash(b)  # the moments branch: byte for byte
            assert w != w  # NaN: nothing reused


def test_the_charge_is_the_defaults():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (2000, 4))
    spent = []
    for opts in (None, PCAOptions(adaptive_step_reuse=True)):
        acc = Accountant(epsilon=10.0, delta=1e-3)
        DPPCA(n_components=2, epsilon=1.0, delta=1e-6, bounds=(-1, 1), random_state=0,
              accountant=acc, experimental=opts).fit(X)
        spent.append([(label, g.epsilon, g.delta) for label, g in acc.spends])
    assert spent[0] == spent[1] == [("DPPCA.fit", 1.0, 1e-6)]


def _frame_problem(k=4, seed=0):
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((k, k))
    C0 = B @ B.T / k
    Sb = rng.standard_normal((k, k))
    S = Sb @ Sb.T / k + 0.1 * np.eye(k)  # a whitening, not aligned with C0's frame
    t = 1.0
    V = np.zeros((k + 1, k + 1))  # independent entry variances of G (no mean noise: V[:k, k] = 0)
    V[:k, :k] = rng.uniform(0.02, 0.2, (k, k))
    V[:k, :k] = 0.5 * (V[:k, :k] + V[:k, :k].T)
    return C0, S, V, t, 0.3


def test_the_stated_variance_of_the_average():
    """Monte Carlo: the first look ``C0 + E₁`` (independent symmetric entries of variance ``V``)
    and the step ``C0 + S^{1/2}NS^{1/2}``; in the eigen-frame of ``S`` the average's entry
    variances are ``v₁v₂/(v₁ + v₂)`` (tolerance 15%; the same check at 0.7× and 1.3× of it
    fails), and its mean is ``C0`` (unbiased)."""
    k = 4
    C0, S, V, t, sigma = _frame_problem(k)
    m = np.zeros(k)
    w, U = np.linalg.eigh(S)
    root = (U * np.sqrt(w)) @ U.T
    v1, d1 = moments_pair_variance(V, m, t, U, k)
    v2, d2 = coinpress_pair_variance(S, U, k, sigma)
    v1, v2 = v1.copy(), v2.copy()
    v1[np.diag_indices(k)], v2[np.diag_indices(k)] = d1, d2
    stated = v1 * v2 / (v1 + v2)
    rng = np.random.default_rng(11)
    draws = 6000
    out = np.empty((draws, k, k))
    sd1 = np.sqrt(V[:k, :k])
    iu = np.triu_indices(k)
    for i in range(draws):
        E = np.zeros((k, k))
        E[iu] = rng.standard_normal(iu[0].size) * sd1[iu]
        E = E + np.triu(E, 1).T
        N = rng.standard_normal((k, k)) * sigma
        N = (N + N.T) / 2.0  # σ² on the diagonal, σ²/2 off it
        C, a = first_look_reuse(C0 + root @ N @ root, S, sigma, C0 + E, V, m, t)
        out[i] = U.T @ (C - C0) @ U
    np.testing.assert_allclose(a, v2 / (v1 + v2))  # the inverse-variance weights
    emp = out.var(axis=0)
    ratio = emp / stated
    assert np.all(np.abs(ratio - 1.0) <= 0.15), ratio
    for wrong in (0.7, 1.3):
        assert np.any(np.abs(emp / (wrong * stated) - 1.0) > 0.15), wrong
    # unbiased: the mean error within 4 standard errors in every entry
    assert np.all(np.abs(out.mean(axis=0)) <= 4.0 * np.sqrt(stated / draws))


def test_it_is_never_worse_than_the_better_estimate_in_the_frame():
    """Entry by entry, the stated variance of the average is at most the smaller of the two."""
    k = 4
    C0, S, V, t, sigma = _frame_problem(k, seed=1)
    _, U = np.linalg.eigh(S)
    v1 = moments_pair_variance(V, np.zeros(k), t, U, k)[0]
    v2 = coinpress_pair_variance(S, U, k, sigma)[0]
    stated = v1 * v2 / (v1 + v2)
    assert np.all(stated <= np.minimum(v1, v2) + 1e-15)


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_invalid_values_are_refused_by_name(bad):
    with pytest.raises(InvalidParameterError, match="adaptive_step_reuse"):
        PCAOptions(adaptive_step_reuse=bad)
    with pytest.raises(InvalidParameterError, match="step_reuse"):
        AdaptiveOptions(step_reuse=bad)
