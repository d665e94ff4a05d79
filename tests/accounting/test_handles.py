"""Budget keepers are handles: scikit-learn's clone, cross-validation and grid search (in one
process and across worker processes) charge the one Accountant or Ledger they were given."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from matrixdp import DPLinearRegression
from matrixdp.accounting import Accountant, Ledger
from matrixdp.errors import LedgerError

EPS, DELTA = 0.5, 1e-7
FOLDS = 3


def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(300, 3))
    y = np.clip(X @ np.array([0.5, -0.2, 0.1]) + rng.normal(0, 0.1, 300), -1, 1)
    return X, y


def model(keeper):
    return DPLinearRegression(epsilon=EPS, delta=DELTA, bounds_X=(-1, 1), bounds_y=(-1, 1),
                              random_state=0, accountant=keeper)


def test_copies_of_a_keeper_are_the_keeper(tmp_path):
    acc = Accountant(epsilon=10, delta=1e-5)
    led = Ledger.create(tmp_path / "t.ledger", dataset="t", epsilon=10, delta=1e-5)
    for keeper in (acc, led):
        assert copy.copy(keeper) is keeper and copy.deepcopy(keeper) is keeper
        assert clone(model(keeper)).accountant is keeper
    led.close()


def test_cross_val_score_charges_the_one_accountant_per_fold():
    acc = Accountant(epsilon=10, delta=1e-5)
    X, y = data()
    scores = cross_val_score(model(acc), X, y, cv=KFold(FOLDS))
    assert len(scores) == FOLDS
    assert len(acc.spends) == FOLDS
    assert [g.epsilon for _, g in acc.spends] == [pytest.approx(EPS)] * FOLDS
    assert acc.total(method="basic").epsilon == pytest.approx(FOLDS * EPS)


def test_cross_val_score_is_refused_when_the_folds_overspend():
    acc = Accountant(epsilon=2.5 * EPS, delta=1e-5, method="basic")  # two folds fit, not three
    X, y = data()
    from matrixdp.errors import BudgetExceededError

    with pytest.raises(BudgetExceededError):
        cross_val_score(model(acc), X, y, cv=KFold(FOLDS), error_score="raise")
    assert len(acc.spends) == 2


def test_grid_search_in_process_charges_every_fit():
    acc = Accountant(epsilon=100, delta=1e-4)
    X, y = data()
    grid = GridSearchCV(model(acc), {"fit_intercept": [True, False]}, cv=KFold(FOLDS), n_jobs=1)
    grid.fit(X, y)
    fits = 2 * FOLDS + 1  # every candidate on every fold, then the refit on all the data
    assert len(acc.spends) == fits
    assert acc.total(method="basic").epsilon == pytest.approx(fits * EPS)


def test_a_ledger_crosses_processes_as_its_path(tmp_path):
    path = tmp_path / "grid.ledger"
    led = Ledger.create(path, dataset="t", epsilon=100, delta=1e-4)
    X, y = data()
    grid = GridSearchCV(model(led), {"fit_intercept": [True, False]}, cv=KFold(FOLDS), n_jobs=2)
    grid.fit(X, y)
    fits = 2 * FOLDS + 1
    hist = Ledger.open(path).history()
    assert len(hist) == fits and {h["status"] for h in hist} == {"released"}
    assert sum(h["epsilon"] for h in hist) == pytest.approx(fits * EPS)
    led.close()


def test_cross_val_score_with_a_ledger_in_two_processes(tmp_path):
    path = tmp_path / "cv.ledger"
    led = Ledger.create(path, dataset="t", epsilon=100, delta=1e-4)
    X, y = data()
    cross_val_score(model(led), X, y, cv=KFold(FOLDS), n_jobs=2)
    assert len(led.history()) == FOLDS
    assert led.spent(method="basic").epsilon == pytest.approx(FOLDS * EPS)
    led.close()


def test_an_in_memory_accountant_refuses_to_cross_a_process():
    acc = Accountant(epsilon=10, delta=1e-5)
    with pytest.raises(TypeError, match="cannot be shared across processes; use a Ledger"):
        pickle.dumps(acc)
    X, y = data()
    with pytest.raises(Exception) as info:
        cross_val_score(model(acc), X, y, cv=KFold(FOLDS), n_jobs=2)
    chain, exc = [], info.value
    while exc is not None:  # joblib wraps it ("Could not pickle the task ...")
        chain.append(str(exc))
        exc = exc.__cause__ or exc.__context__
    assert any("cannot be shared across processes; use a Ledger" in m for m in chain)
    assert len(acc.spends) == 0  # nothing was charged to a copy


def test_saving_a_fitted_model(tmp_path):
    """A model fitted with an Accountant is saved after set_params(accountant=None); with a
    Ledger it pickles as is and the loaded model's keeper is the same file."""
    X, y = data()
    acc = Accountant(epsilon=10, delta=1e-5)
    fitted = model(acc).fit(X, y)
    with pytest.raises(TypeError, match="set_params\\(accountant=None\\)"):
        pickle.dumps(fitted)
    loaded = pickle.loads(pickle.dumps(fitted.set_params(accountant=None)))
    assert np.array_equal(loaded.coef_, fitted.coef_)

    led = Ledger.create(tmp_path / "m.ledger", dataset="t", epsilon=10, delta=1e-5)
    fitted = model(led).fit(X, y)
    loaded = pickle.loads(pickle.dumps(fitted))
    assert loaded.accountant.path == led.path.resolve()
    assert len(loaded.accountant.history()) == 1
    led.close()
    loaded.accountant.close()


def test_an_unpickled_ledger_must_be_the_same_ledger(tmp_path):
    path = tmp_path / "x.ledger"
    led = Ledger.create(path, dataset="t", epsilon=1.0)
    blob = pickle.dumps(led)
    led.close()
    path.unlink()
    Ledger.create(path, dataset="t", epsilon=5.0).close()  # another ledger at the same path
    with pytest.raises(LedgerError, match="not the one that was pickled"):
        pickle.loads(blob)
