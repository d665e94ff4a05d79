"""The parameter protocol shared by every generator (``synth/_params.py``)."""

import pickle

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.synth import DPCopula, DPTreeCopula, RONGauss, TableSchema

SCHEMA = TableSchema(bounds={"a": (0, 10)}, categories={"c": ["x", "y"]})


@pytest.mark.parametrize("make", [lambda: DPCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1]),
                                  lambda: DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1]),
                                  lambda: RONGauss(dim=2)])
def test_every_generator_shares_the_protocol(make):
    model = make()
    name = type(model).__name__
    params = model.get_params()
    assert "epsilon" in params and "random_state" in params
    assert model.set_params(epsilon=0.25) is model and model.epsilon == 0.25
    assert repr(model).startswith(f"{name}(") and "epsilon=0.25" in repr(model)
    with pytest.raises(InvalidParameterError, match=f"is not a parameter of {name}"):
        model.set_params(not_a_parameter=1)
    # a Generator random_state is dropped on pickling (it would replay the noise); an int is kept
    model.set_params(random_state=np.random.default_rng(0))
    assert pickle.loads(pickle.dumps(model)).random_state is None
    model.set_params(random_state=7)
    assert pickle.loads(pickle.dumps(model)).random_state == 7


@pytest.mark.parametrize("make", [lambda rs: DPCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1],
                                                      random_state=rs),
                                  lambda rs: DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1],
                                                          random_state=rs),
                                  lambda rs: RONGauss(dim=2, random_state=rs)])
def test_clones_of_a_generator_random_state_draw_independent_noise(make):
    # sklearn's generic clone deep-copied a Generator: every clone drew the same noise (hunt HY)
    from sklearn.base import clone

    from matrixdp.accounting import Accountant

    acc = Accountant(epsilon=10.0)
    model = make(np.random.default_rng(5)).set_params(accountant=acc)
    first, second = clone(model), clone(model)
    a, b = first.random_state.random(4), second.random_state.random(4)
    assert not np.allclose(a, b)  # independent streams
    assert type(first) is type(model) and first.get_params().keys() == model.get_params().keys()
    assert first.accountant is acc  # a budget keeper is a handle, not copied
    again = clone(make(np.random.default_rng(5)))  # reproducible from the seed
    assert np.array_equal(again.random_state.random(4), a)
    assert clone(make(7)).random_state == 7  # an int seed is copied (scikit-learn's convention)


@pytest.mark.parametrize("name", ["RONGauss", "DPCopula", "DPTreeCopula"])
def test_grid_search_in_worker_processes_charges_the_ledger_file(name, tmp_path):
    """Hunt DH2: without scikit-learn tags, ``GridSearchCV(n_jobs=2)`` refused the generators
    before any fit (AttributeError ``__sklearn_tags__``; 0 of 3 ran on main). With them, every fit
    in the worker processes is charged to the one ledger file (2 candidates x 2 folds + refit),
    and an in-memory Accountant is refused loudly (it cannot be pickled)."""
    import sys
    from pathlib import Path

    from sklearn.model_selection import GridSearchCV, KFold

    from matrixdp.accounting import Accountant, Ledger

    sys.path.insert(0, str(Path(__file__).parents[1]))
    from _estimator_cases import CASES

    case = CASES[name]
    relation = case.relations[0]
    (X, y), _ = case.data(relation)
    ledger = Ledger.create(tmp_path / "l.db", dataset="d", epsilon=1e4, delta=0.1,
                           relation=relation)

    def search(keeper):
        return GridSearchCV(case.make(relation, accountant=keeper), {"epsilon": [0.5, 1.0]},
                            cv=KFold(2), n_jobs=2, scoring=lambda est, X, y=None: 0.0,
                            error_score="raise").fit(X, y)

    search(ledger)
    assert len(ledger.history()) == 5
    with pytest.raises(Exception, match="pickle|Pickl"):  # noqa: PT011 - joblib wraps it
        search(Accountant())


@pytest.mark.parametrize("name", ["RONGauss", "DPCopula", "DPTreeCopula"])
def test_cross_val_score_in_process_charges_every_fold(name):
    """The same gap refused ``cross_val_score`` with n_jobs=1 (0 of 3 ran on main): each fold's
    fit is a release, charged to the enclosing block."""
    import sys
    from pathlib import Path

    from sklearn.model_selection import KFold, cross_val_score

    from matrixdp.accounting import Accountant

    sys.path.insert(0, str(Path(__file__).parents[1]))
    from _estimator_cases import CASES

    case = CASES[name]
    relation = case.relations[0]
    (X, y), _ = case.data(relation)
    with Accountant(relation=relation) as acc:
        cross_val_score(case.make(relation), X, y, cv=KFold(3),
                        scoring=lambda est, X, y=None: 0.0, error_score="raise")
    assert len(acc.spends) == 3
