"""Releases and estimators charge accountants and ledgers: once, before their noise."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp import RONGauss
from matrixdp.accounting import Accountant, Ledger
from matrixdp.errors import BudgetExceededError


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 6))
    y = (X[:, 0] > 0).astype(int)
    return X, y


def test_ron_gauss_fit_is_charged_once_with_its_composed_budget():
    X, y = _data()
    with Accountant(epsilon=2.0) as acc:
        model = RONGauss(dim=3, epsilon=1.0, task="classification", classes=[0, 1],
                         class_weights="dp", epsilon_counts=0.2, random_state=1).fit(X, y)
    assert [label for label, _ in acc.spends] == ["ron-gauss fit"]  # counts not charged twice
    assert acc.total().epsilon == pytest.approx(1.0)
    assert model.privacy_.epsilon == pytest.approx(1.0)
    # parts: eps_mean + eps_cov (parallel over the classes) + eps_counts
    assert model.epsilon_mean_ + model.epsilon_cov_ + model.epsilon_counts_ == pytest.approx(1.0)


def test_ron_gauss_refused_before_any_noise_and_seeded_output_unchanged(tmp_path):
    X, y = _data()
    plain = RONGauss(dim=3, epsilon=1.0, random_state=5).fit(X)
    led = Ledger.create(tmp_path / "t.ledger", dataset="t", epsilon=1.5)
    charged = RONGauss(dim=3, epsilon=1.0, random_state=5).fit(X, ledger=led)
    np.testing.assert_array_equal(plain.covariance_, charged.covariance_)
    again = RONGauss(dim=3, epsilon=1.0, random_state=5)
    with pytest.raises(BudgetExceededError):
        again.fit(X, ledger=led)
    assert not hasattr(again, "covariance_") and not hasattr(again, "privacy_")
    assert len(led.history()) == 1
