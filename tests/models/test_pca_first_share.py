"""DPPCA's adaptive first look at a smaller share of the budget (task PA, session 25;
``PCAOptions(adaptive_first_share=s)`` passing ``AdaptiveOptions(first_share=s)`` to DPPCA's adaptive
fit; ``docs/coinpress.md`` § "Adaptive (PCA): the first look's share (task PA)").

Asserted: ``None`` and the shipped share 1/4 are the default's fit byte for byte; with the option
the guarantee and the accountant's charge are the default's, the releases' GDP parameters are the
stated split (``μ₁² = s·μ*²``, ``Σ μ_i² <= μ*²``); the moments branch's combined release (the first
look averaged by inverse variance with the last release) has the entry variance it states, within
15% over 300 draws, and the same check refuses that variance scaled by 0.7 or 1.3; and the smaller
first look lowers the branch's public PCA-task loss on a table of unequal ranges.
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


def _table():
    """Unequal public ranges (the PCA allocation and the covariance allocation differ)."""
    rng = np.random.default_rng(11)
    X = rng.uniform(0.0, 1.0, (2000, 4)) * np.array([1.0, 5.0, 50.0, 500.0])
    X[:, 1] = np.clip(0.5 * X[:, 0] * 5.0 + 0.5 * X[:, 1], 0.0, 5.0)
    return X, (np.zeros(4), np.array([1.0, 5.0, 50.0, 500.0]))


def _fit(seed, experimental=None, eps=1.0, **kw):
    X, b = _table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return DPPCA(n_components=2, epsilon=eps, delta=1e-6, bounds=b, random_state=seed,
                     experimental=experimental, **kw).fit(X)


@pytest.mark.parametrize("value", [None, 0.25])
def test_none_and_the_shipped_share_are_the_default_byte_for_byte(value):
    for seed in (0, 1, 2):
        a, b = _fit(seed), _fit(seed, PCAOptions(adaptive_first_share=value))
        assert a.adaptive_choice_ == b.adaptive_choice_
        assert np.array_equal(a.components_, b.components_)
        assert np.array_equal(a.explained_variance_, b.explained_variance_)


def test_the_option_changes_the_fit_and_keeps_the_guarantee_and_the_charge():
    changed = 0
    for seed in (0, 1, 2):
        acc_a, acc_b = Accountant(epsilon=10.0, delta=1e-3), Accountant(epsilon=10.0, delta=1e-3)
        a = _fit(seed, accountant=acc_a)
        b = _fit(seed, PCAOptions(adaptive_first_share=0.125), accountant=acc_b)
        pa, pb = a.privacy_, b.privacy_  # the notes name the split; the guarantee is the same
        assert (pa.epsilon, pa.delta, pa.mu) == (pb.epsilon, pb.delta, pb.mu) == (1.0, 1e-6, pa.mu)
        assert "GDP shares 0.125 (first look)" in " ".join(pb.notes)
        assert len(acc_a.spends) == len(acc_b.spends) == 1
        ta, tb = acc_a.total(), acc_b.total()
        assert (ta.epsilon, ta.delta) == (tb.epsilon, tb.delta)
        changed += not np.array_equal(a.components_, b.components_)
    assert changed == 3


@pytest.mark.parametrize("share", [0.25, 0.125, 0.0625])
def test_the_releases_split_the_budget_as_stated(share):
    X, (lo, hi) = _table()
    for eps in (0.5, 5.0):
        mu_star = max_gaussian_shift(eps, 1e-6)
        res = adaptive_covariance(X, lo, hi, epsilon=eps, delta=1e-6, kind="pca",
                                  n_components=2, rng=3,
                                  options=AdaptiveOptions(first_share=share))
        mus = np.asarray(res.mus, dtype=float)
        assert mus[0] ** 2 == pytest.approx(share * mu_star ** 2, rel=1e-6)
        assert math.sqrt(float(np.sum(mus ** 2))) <= mu_star * (1 + 1e-9)
        assert math.sqrt(float(np.sum(mus ** 2))) >= mu_star * (1 - 1e-6)  # nothing left over


def _combined_z2(share, draws=300, eps=1.0):
    """Mean over draws and entries of (Ĝ − G)²/V for the moments branch's averaged release."""
    X, (lo, hi) = _table()
    n, d = X.shape
    _, center, t = augmented_task(lo, hi, n, "pca", n_components=2)
    Z = np.column_stack([X - center, np.full(n, t)])
    G_true = Z.T @ Z / n
    iu = np.triu_indices(d + 1)
    keep = (iu[0] < d) | (iu[1] < d)  # the corner t² is public
    z2, V = [], None
    opts = AdaptiveOptions(first_share=share, branch="moments")
    for s in range(draws):
        res = adaptive_covariance(X, lo, hi, epsilon=eps, delta=1e-6, kind="pca",
                                  n_components=2, rng=1000 + s, options=opts)
        m = res.mean
        G = np.empty((d + 1, d + 1))
        G[:d, :d] = res.covariance + np.outer(m, m)
        G[:d, d] = G[d, :d] = m * t
        G[d, d] = t * t
        V = res.entry_variance if V is None else V
        assert np.array_equal(V, res.entry_variance)  # public: the same every draw
        z2.append(((G - G_true)[iu][keep]) ** 2)
    return np.mean(np.asarray(z2), axis=0), V[iu][keep]


@pytest.mark.parametrize("share", [0.25, 0.125])
def test_the_combined_release_has_the_stated_variance(share):
    sq, V = _combined_z2(share)
    ratio = float(np.mean(sq / V))
    assert abs(ratio - 1.0) < 0.15, ratio
    for wrong in (0.7, 1.3):  # the same check refuses a wrong stated variance
        assert abs(float(np.mean(sq / (wrong * V))) - 1.0) >= 0.15


def test_a_smaller_first_look_lowers_the_moments_branchs_pca_loss():
    """The public PCA-task loss of the branch's combined release (the last plan's task weights)
    falls with the first share: the first look is allocated for the covariance."""
    X, (lo, hi) = _table()
    task = augmented_task(lo, hi, X.shape[0], "pca", n_components=2)[0]
    loss = {}
    for share in (0.25, 0.125):
        res = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca", n_components=2,
                                  rng=0, options=AdaptiveOptions(first_share=share,
                                                                 branch="moments"))
        loss[share] = float(np.sum(task.loss_matrix * res.entry_variance))
    assert loss[0.125] < 0.95 * loss[0.25]


@pytest.mark.parametrize("bad", [0.0, -0.1, 0.97, 1.0, True, "1/8"])
def test_invalid_shares_are_refused_by_name(bad):
    with pytest.raises(InvalidParameterError, match="adaptive_first_share"):
        PCAOptions(adaptive_first_share=bad)
