"""The ``_budget`` seam: default budget keepers of ``with`` blocks, across threads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from matrixdp import LaplaceMechanism
from matrixdp._budget import default_keepers, suspended
from matrixdp.accounting import Accountant
from matrixdp.errors import BudgetExceededError


def test_a_thread_started_inside_a_block_is_charged_to_it():
    # a worker thread does not inherit the block's context: its releases ran uncharged
    # (4 releases of epsilon 0.6 under a budget of 1.0, nothing recorded)
    mech = LaplaceMechanism(epsilon=0.6, sensitivity=1.0)
    acc = Accountant(epsilon=1.0)

    def one(i):
        try:
            mech.release(0.0, rng=i)
            return "released"
        except BudgetExceededError:
            return "refused"

    with acc:
        with ThreadPoolExecutor(2) as ex:
            out = list(ex.map(one, range(4)))
    assert sorted(out) == ["refused"] * 3 + ["released"]
    assert acc.total().epsilon == pytest.approx(0.6)


def test_blocks_close_and_suspension_still_holds():
    acc = Accountant(epsilon=1.0)
    with acc:
        with ThreadPoolExecutor(1) as ex:
            assert ex.submit(default_keepers).result() == (acc,)
        with suspended():
            assert default_keepers() == ()
        assert default_keepers() == (acc,)
    with ThreadPoolExecutor(1) as ex:
        assert ex.submit(default_keepers).result() == ()
    assert default_keepers() == ()


def test_nested_blocks_of_one_keeper_charge_it_once():
    # ``with acc:`` inside ``with acc:`` charged every release twice (0.6 for one release of 0.3)
    acc = Accountant(epsilon=1.0)
    with acc:
        with acc:
            LaplaceMechanism(epsilon=0.3, sensitivity=1.0).release(0.0)
        assert default_keepers() == (acc,)
    assert acc.total().epsilon == pytest.approx(0.3) and len(acc.spends) == 1
    other = Accountant(epsilon=1.0)
    with acc, other:   # two keepers: each charged once
        LaplaceMechanism(epsilon=0.3, sensitivity=1.0).release(0.0)
    assert acc.total().epsilon == pytest.approx(0.6) and other.total().epsilon == pytest.approx(0.3)


def test_threads_sharing_a_keeper_leave_its_blocks_in_any_order():
    # the open blocks were a list on the keeper: the thread that left first closed the other
    # thread's block (ValueError "... was created in a different Context") in both threads
    import threading
    import time

    acc = Accountant(epsilon=10.0)
    errors = []

    def block(enter_after, stay):
        try:
            time.sleep(enter_after)
            with acc:
                time.sleep(stay)
                LaplaceMechanism(epsilon=0.1, sensitivity=1.0).release(0.0)
        except Exception as exc:  # pragma: no cover - the defect
            errors.append(exc)

    first = threading.Thread(target=block, args=(0.0, 0.2))
    second = threading.Thread(target=block, args=(0.1, 0.3))   # enters later, leaves later
    first.start(), second.start()
    first.join(30), second.join(30)
    assert errors == []
    assert acc.total().epsilon == pytest.approx(0.2)
    assert default_keepers() == ()


def _regression_data():
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (400, 2))
    y = np.clip(X @ [0.5, -0.3] + 0.1 * rng.standard_normal(400), -1, 1)
    return X, y


def test_worker_processes_of_a_ledger_block_charge_the_ledger(tmp_path):
    # the fits ran in loky worker processes, where no block is open: 5 fits, 0 entries
    from sklearn.model_selection import cross_val_score

    from matrixdp import DPLinearRegression
    from matrixdp.accounting import Ledger

    X, y = _regression_data()
    led = Ledger.create(tmp_path / "l.db", dataset="d", epsilon=2.5, delta=1e-5)
    with led:
        cross_val_score(DPLinearRegression(epsilon=1.0, delta=1e-6, bounds_X=(-1, 1),
                                           bounds_y=(-1, 1)), X, y, cv=5, n_jobs=2)
    assert len(led.history()) == 5
    led.close()


def test_worker_processes_of_an_accountant_block_fail_loudly():
    # an in-memory accountant cannot follow the fits to other processes: refuse, never run them
    # uncharged (5 fits of epsilon 1 inside a budget of 1.5, nothing recorded)
    import pickle

    from sklearn.model_selection import cross_val_score

    from matrixdp import DPLinearRegression

    X, y = _regression_data()
    acc = Accountant(epsilon=1.5, delta=1e-5)
    with acc:
        with pytest.raises(pickle.PicklingError):
            cross_val_score(DPLinearRegression(epsilon=1.0, delta=1e-6, bounds_X=(-1, 1),
                                               bounds_y=(-1, 1)), X, y, cv=5, n_jobs=2)
    assert acc.total().epsilon == 0.0


def test_carry_block_keeper_only_for_unfitted_estimators_without_a_keeper(tmp_path):
    import copy
    import pickle

    from matrixdp import DPMean
    from matrixdp.accounting import Ledger
    from matrixdp.synth import RONGauss

    led = Ledger.create(tmp_path / "l.db", dataset="d", epsilon=5.0)
    acc = Accountant(epsilon=5.0)
    fresh = DPMean(epsilon=1.0, bounds=(0, 1))
    fitted = DPMean(epsilon=1.0, bounds=(0, 1), random_state=0).fit([[0.5], [0.2]])
    with led:
        assert pickle.loads(pickle.dumps(fresh)).accountant.path == led.path
        assert pickle.loads(pickle.dumps(RONGauss(dim=1, epsilon=1.0))).accountant.path == led.path
        assert pickle.loads(pickle.dumps(fitted)).accountant is None   # a saved model
    with acc:
        assert copy.deepcopy(fresh).accountant is acc                  # in process: the handle
        with pytest.raises(TypeError, match="Accountant cannot be shared across processes"):
            pickle.dumps(fresh)
        explicit = DPMean(epsilon=1.0, bounds=(0, 1), accountant=led)
        # its fit here charges led and the block's acc (task KB): the copy carries both
        assert copy.deepcopy(explicit).accountant.keepers == (led, acc)
        own = DPMean(epsilon=1.0, bounds=(0, 1), accountant=acc)
        assert copy.deepcopy(own).accountant is acc                    # already the block's
    with led:
        assert copy.deepcopy(explicit).accountant is led
    assert copy.deepcopy(explicit).accountant is led                   # outside any block
    assert pickle.loads(pickle.dumps(fresh)).accountant is None        # outside any block
    assert fresh.accountant is None
    led.close()


def test_worker_processes_of_a_ledger_block_charge_it_beside_an_explicit_ledger(tmp_path):
    # task KB: inside `with led:`, a fit given its own ledger charges both in process; the copies
    # sent to worker processes carried the explicit ledger only (the block's file: 0 entries)
    from sklearn.model_selection import cross_val_score

    from matrixdp import DPLinearRegression
    from matrixdp.accounting import Ledger

    X, y = _regression_data()
    led = Ledger.create(tmp_path / "l.db", dataset="d", epsilon=10.0, delta=1e-5)
    own = Ledger.create(tmp_path / "own.db", dataset="d", epsilon=10.0, delta=1e-5)
    with led:
        cross_val_score(DPLinearRegression(epsilon=1.0, delta=1e-6, bounds_X=(-1, 1),
                                           bounds_y=(-1, 1), accountant=own), X, y, cv=3,
                        n_jobs=2)
    assert len(led.history()) == 3 and len(own.history()) == 3
    assert led.spent(method="basic").epsilon == pytest.approx(3.0)
    led.close(), own.close()


def test_worker_processes_of_an_accountant_block_with_an_explicit_ledger_fail_loudly(tmp_path):
    # the block's in-memory accountant cannot follow the fits: refused, nothing charged
    import pickle

    from sklearn.model_selection import cross_val_score

    from matrixdp import DPLinearRegression
    from matrixdp.accounting import Ledger

    X, y = _regression_data()
    acc = Accountant(epsilon=10.0, delta=1e-5)
    own = Ledger.create(tmp_path / "own.db", dataset="d", epsilon=10.0, delta=1e-5)
    with acc:
        with pytest.raises(pickle.PicklingError):
            cross_val_score(DPLinearRegression(epsilon=1.0, delta=1e-6, bounds_X=(-1, 1),
                                               bounds_y=(-1, 1), accountant=own), X, y, cv=3,
                            n_jobs=2)
    assert acc.spends == () and own.history() == []
    own.close()
