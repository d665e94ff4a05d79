"""Budget keepers share nothing with the caller: mutating anything the caller passed in (a
guarantee whose numbers are arrays it keeps, a mechanism's configuration) or got back (the spend
history, what this process charged) cannot raise the remaining budget or change a recorded spend.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from matrixdp import PrivacyGuarantee
from matrixdp.accounting import Accountant, Ledger


def _caller_guarantee(epsilon=0.4, delta=1e-6):
    """A guarantee built from 0-d arrays the caller keeps (and can overwrite in place)."""
    eps, dlt = np.array(epsilon), np.array(delta)
    return PrivacyGuarantee(epsilon=eps, delta=dlt, calibration="test", mechanism="test"), \
        (eps, dlt)


def _overwrite(arrays) -> None:
    for a in arrays:
        a[...] = 1e-9


def _try_to_mutate(got) -> None:
    """What a caller could do to a history it got back (lists/dicts are mutable)."""
    with contextlib.suppress(AttributeError, TypeError):
        got.clear()
    with contextlib.suppress(AttributeError, TypeError):
        got.append(("forged", None))


def _state(keeper):
    spent = keeper.total() if isinstance(keeper, Accountant) else keeper.spent()
    return keeper.remaining(), (spent.epsilon, spent.delta)


def test_accountant_records_what_was_spent_not_the_callers_objects():
    g, arrays = _caller_guarantee()
    acc = Accountant(epsilon=1.0, delta=1e-5)
    acc.spend(g, label="first")
    before = _state(acc)
    _overwrite(arrays)                    # the caller's numbers, overwritten after the spend
    _try_to_mutate(acc.spends)
    assert _state(acc) == before
    assert [(label, float(s.epsilon), float(s.delta)) for label, s in acc.spends] == \
        [("first", 0.4, 1e-6)]


def test_ledger_records_what_was_spent_not_the_callers_objects(tmp_path):
    g, arrays = _caller_guarantee()
    led = Ledger.create(tmp_path / "t.ledger", dataset="t", epsilon=1.0, delta=1e-5)
    try:
        led.spend(g, label="first")
        before = _state(led), [(h["label"], h["epsilon"]) for h in led.history()]
        _overwrite(arrays)
        _try_to_mutate(led.charged_here)
        history = led.history()
        history[0]["epsilon"] = 0.0
        _try_to_mutate(history)
        assert (_state(led), [(h["label"], h["epsilon"]) for h in led.history()]) == before
        assert [(float(s.epsilon), float(s.delta)) for _, s in led.charged_here] == \
            [(0.4, 1e-6)]
    finally:
        led.close()


@pytest.mark.parametrize("keeper", ["accountant", "ledger"])
def test_a_mechanism_configured_by_the_caller_charges_what_it_was_built_with(keeper, tmp_path):
    """A baseline configured with the caller's guarantee charges that guarantee as it was at
    construction: overwriting the caller's numbers afterwards cannot lower the charge."""
    from matrixdp.baselines import SymmetricNoiseMechanism

    def run(overwrite: bool):
        g, arrays = _caller_guarantee(0.5, 1e-6)
        mech = SymmetricNoiseMechanism(dim=3, kind="gaussian", scale=0.5, privacy=g)
        if overwrite:
            _overwrite(arrays)
        if keeper == "accountant":
            k = Accountant(epsilon=1.0, delta=1e-5)
            mech.release(np.eye(3), rng=0, accountant=k)
            return _state(k)
        path = tmp_path / f"{overwrite}.ledger"
        k = Ledger.create(path, dataset="t", epsilon=1.0, delta=1e-5)
        try:
            mech.release(np.eye(3), rng=0, ledger=k)
            return _state(k)
        finally:
            k.close()

    assert run(overwrite=True) == run(overwrite=False)
