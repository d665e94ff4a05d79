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
