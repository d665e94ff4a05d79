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


def test_dp_directions_mvg_charges_each_step_once_and_they_compose_to_the_total(tmp_path):
    from matrixdp import DPDirectionsMVG
    from matrixdp.queries import IdentityQuery

    X = np.random.default_rng(0).uniform(0, 1, size=(200, 4))
    q = IdentityQuery(bounds=(0.0, 1.0), n_features=4, n_samples=200)
    led = Ledger.create(tmp_path / "t.ledger", dataset="t", epsilon=1.0, delta=1e-5)
    model = DPDirectionsMVG(shape=(200, 4), epsilon=1.0, delta=1e-5, sensitivity=q,
                            random_state=1).fit(X, ledger=led)
    plain = DPDirectionsMVG(shape=(200, 4), epsilon=1.0, delta=1e-5, sensitivity=q,
                            random_state=1).fit(X)
    np.testing.assert_array_equal(model.directions_.directions, plain.directions_.directions)
    model.release(X, rng=2, ledger=led)
    hist = led.history()
    assert [h["label"] for h in hist] == ["dp directions", "mvg"]
    assert hist[0]["epsilon"] == pytest.approx(0.2) and hist[1]["epsilon"] == pytest.approx(0.8)
    basic = led.spent(delta=1e-5, method="basic")
    assert basic.epsilon == pytest.approx(1.0)  # the split, through sequential composition
    assert led.spent().epsilon <= 1.0  # the ledger's tightest (GDP: both steps are Gaussian)
    assert led.spent().calibration == "gdp"
    with pytest.raises(BudgetExceededError):  # nothing left for a second release
        model.release(X, rng=3, ledger=led)


def test_estimators_charge_once_with_explicit_or_default_accountants():
    from matrixdp.models import DPCovariance, DPMean

    X = np.random.default_rng(0).uniform(0, 1, size=(300, 3))
    bounds = ([0.0] * 3, [1.0] * 3)
    # explicit accountant, also the default of the block: charged once, not twice
    with Accountant(epsilon=5.0, delta=1e-5) as acc:
        DPMean(epsilon=0.5, delta=1e-7, bounds=bounds, accountant=acc, random_state=0).fit(X)
    assert len(acc.spends) == 1
    # no accountant argument: the block's default accountant is charged
    with Accountant(epsilon=5.0, delta=1e-5) as acc:
        DPCovariance(epsilon=0.5, delta=1e-7, bounds=bounds, random_state=0).fit(X)
    assert len(acc.spends) == 1 and acc.spends[0][1].epsilon == pytest.approx(0.5)
    # refused before any noise: nothing fitted
    tight = Accountant(epsilon=0.2, delta=1e-7)
    model = DPMean(epsilon=0.5, delta=1e-7, bounds=bounds, accountant=tight, random_state=0)
    with pytest.raises(BudgetExceededError):
        model.fit(X)
    assert len(tight.spends) == 0 and not hasattr(model, "mean_")
