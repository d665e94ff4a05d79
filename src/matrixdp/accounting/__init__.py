"""Accounting across releases: compose guarantees, refuse overspending, keep a dataset's budget.

- :func:`compose` / :func:`parallel`: pure composition of :class:`~matrixdp.PrivacyGuarantee`\\ s
  (exact GDP, PLD through dp-accounting, RDP/zCDP, advanced (KOV), basic; ``method="auto"``
  keeps the tightest valid one and says which).
- :class:`Accountant`: an in-memory budget; ``with Accountant(...):`` makes it the default of
  every release inside the block.
- :class:`Ledger`: a dataset's budget in a crash-safe SQLite file shared by processes.
- :func:`charge`: the hook releases and estimators call (check before the noise, spend after).

The theorems and when each composition is exact: ``docs/accounting.md``.
"""

from .._budget import charge, default_keepers
from .accountant import Accountant
from .composition import METHODS, Tally, compose, local_as_replace_one, parallel, pld_available
from .events import to_dp_event
from .ledger import Ledger, LedgerWarning

__all__ = ["Accountant", "Ledger", "LedgerWarning", "compose", "parallel", "charge", "default_keepers",
           "METHODS", "Tally", "pld_available", "local_as_replace_one", "to_dp_event"]
