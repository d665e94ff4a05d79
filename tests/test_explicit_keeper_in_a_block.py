"""A fit given its own keeper inside a ``with`` block of another warns that the block misses it.

An explicit ``accountant=`` replaces the keepers of the enclosing ``with`` blocks
(docs/accounting.md §5). Hunt DH2 (session 23): inside ``with ledger:`` (the dataset's ledger) a
fit given ``accountant=Accountant()`` was charged to that accountant only, and the ledger showed
nothing, silently, for 45 of 45 catalogue cases. ``_budget.charge`` (the one seam every charge
passes) now gives a :class:`PrivacyLeakWarning` with a fixed text; passing the block's own keeper,
or none, does not warn.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _estimator_cases import CASES  # noqa: E402

from matrixdp._budget import BYPASSED_BLOCK_WARNING  # noqa: E402
from matrixdp.accounting import Accountant, Ledger  # noqa: E402
from matrixdp.errors import PrivacyLeakWarning  # noqa: E402


def _fit_in_block(case, relation, block, keeper):
    D, _ = case.data(relation)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with block:
            case.fit(case.make(relation, accountant=keeper), D)
    return [str(w.message) for w in caught if w.category is PrivacyLeakWarning
            and str(w.message) == BYPASSED_BLOCK_WARNING]


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_explicit_keeper_inside_a_ledger_block_warns(name, tmp_path):
    case = CASES[name]
    relation = case.relations[0]
    ledger = Ledger.create(tmp_path / "l.db", dataset="d", epsilon=1e4, delta=0.1,
                           relation=relation)
    own = Accountant(relation=relation)
    warned = _fit_in_block(case, relation, ledger, own)
    assert len(warned) == case.charges  # one per entry the block did not record
    assert len(own.spends) == case.charges and ledger.history() == []


@pytest.mark.parametrize("name", ["DPMean", "DPLinearRegression", "RONGauss", "DPCopula"])
def test_the_blocks_own_keeper_or_none_does_not_warn(name, tmp_path):
    case = CASES[name]
    relation = case.relations[0]
    acc = Accountant(relation=relation)
    assert _fit_in_block(case, relation, acc, acc) == []
    assert _fit_in_block(case, relation, acc, None) == []
    assert len(acc.spends) == 2 * case.charges


def test_the_clis_charge_in_place_keeper_charges_the_block_without_a_warning():
    """``matrixdp synth``'s keeper (``cli._generator._ChargeInPlace``) with ``ledger=None``
    charges the enclosing block's keeper itself: no bypass warning, one entry in the block."""
    from matrixdp._budget import charge
    from matrixdp.mechanisms.base import PrivacyGuarantee
    from matrixdp.cli._generator import _ChargeInPlace

    g = PrivacyGuarantee(epsilon=0.5, delta=1e-9, neighbouring="add-remove")
    block = Accountant(relation="add-remove")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with block:
            with charge(g, accountant=_ChargeInPlace(g, None, "synth")):
                pass
    assert [w for w in caught if w.category is PrivacyLeakWarning] == []
    assert len(block.spends) == 1
    own = Accountant(relation="add-remove")  # an explicit ledger of its own still warns
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with block:
            with charge(g, accountant=_ChargeInPlace(g, own, "synth")):
                pass
    assert BYPASSED_BLOCK_WARNING in [str(w.message) for w in caught
                                      if w.category is PrivacyLeakWarning]
    assert len(block.spends) == 1 and len(own.spends) == 1
