"""The seam between releases and budget keepers: the default accountants and one ``charge`` hook.

Bottom layer (imports nothing from matrixdp), so that :mod:`matrixdp.mechanisms` can charge a
release to an accountant or a ledger without importing :mod:`matrixdp.accounting` (which sits
above it). A *budget keeper* is any object with a ``charge(guarantee, label=...)`` context
manager that refuses (raises) on entry when the guarantee does not fit, and records the spend;
:class:`matrixdp.accounting.Accountant` and :class:`matrixdp.accounting.Ledger` are the two
shipped ones.
"""

from __future__ import annotations

import contextlib
import threading
from contextvars import ContextVar

__all__ = ["charge", "check", "keepers_for", "default_keepers", "use_default", "suspended",
           "DefaultKeeperMixin", "KeeperGroup", "carry_block_keeper"]

#: The keepers made default by ``with Accountant(...):`` / ``with Ledger...:`` blocks, innermost
#: last. A ContextVar, so threads and asyncio tasks each see their own stack; ``None`` (the
#: default) means that this context never entered a block nor suspended them.
_DEFAULTS: ContextVar[tuple | None] = ContextVar("matrixdp_default_budget_keepers", default=None)

#: Every block open in any thread of this process, in opening order: ``[(token, keeper), ...]``.
#: A thread started inside a ``with`` block (a ``ThreadPoolExecutor`` worker, joblib's threading
#: backend) does not inherit the block's context; its releases are charged to these instead of
#: running uncharged (never under-count: a release in an unrelated thread may be charged too).
_OPEN: list = []
_OPEN_LOCK = threading.Lock()


def default_keepers() -> tuple:
    """The budget keepers made default by the enclosing ``with`` blocks (innermost last).

    In a context that never entered a block (a thread started inside one does not inherit it),
    the keepers of every block open in any thread of the process.
    """
    keepers = _DEFAULTS.get()
    if keepers is None:
        with _OPEN_LOCK:
            keepers = tuple(k for _, k in _OPEN)
    return _distinct(keepers)


def _identity(keeper):
    """What makes two keepers one budget: the keeper's ``keeper_identity`` when it has one (a
    :class:`~matrixdp.accounting.Ledger`: its file, so two handles of one file are one budget),
    else the object itself."""
    ident = getattr(keeper, "keeper_identity", None)
    return ("identity", ident) if ident is not None else ("object", id(keeper))


def _distinct(keepers) -> tuple:
    """Each keeper once, in first-seen order: ``with acc:`` inside ``with acc:`` is one budget,
    charged once (it was charged once per block), and so are two handles of one ledger file."""
    out = {}
    for k in keepers:
        out.setdefault(_identity(k), k)
    return tuple(out.values())


class KeeperGroup:
    """Several budget keepers charged as one: what an unfitted estimator copied inside ``with``
    blocks carries to a worker process (:func:`carry_block_keeper`), where no block is open.
    Every member checks before any is charged; :func:`keepers_for` charges the members, each
    once (a group given inside the same blocks again does not charge them twice)."""

    def __init__(self, keepers):
        self.keepers = tuple(keepers)

    def check(self, guarantee) -> None:
        for keeper in self.keepers:
            keeper.check(guarantee)

    @contextlib.contextmanager
    def charge(self, guarantee, label: str = ""):
        for keeper in self.keepers:
            keeper.check(guarantee)
        with contextlib.ExitStack() as stack:
            for keeper in self.keepers:
                stack.enter_context(keeper.charge(guarantee, label=label))
            yield guarantee

    def __repr__(self) -> str:
        return f"KeeperGroup({', '.join(map(repr, self.keepers))})"


def _members(keepers):
    for k in keepers:
        if isinstance(k, KeeperGroup):
            yield from k.keepers
        else:
            yield k


def keepers_for(accountant=None, ledger=None) -> tuple:
    """The budget keepers a release given ``accountant`` / ``ledger`` is charged to, each once.

    Every keeper of the enclosing ``with`` blocks (:func:`default_keepers`) and every explicit
    keeper: an explicit keeper ADDS to the blocks' keepers, it does not replace them (task KB,
    session 24: a fit given its own ``Accountant`` inside ``with ledger:`` left the dataset's
    ledger empty, 45 of 45 catalogue cases; docs/accounting.md §5b). Explicit keepers come first. A
    keeper that declares ``forwards_to_blocks`` (the CLI's charge-in-place, which charges through
    this seam itself) is charged alone here, so that the blocks are charged once.
    """
    explicit = _distinct(_members(k for k in (accountant, ledger) if k is not None))
    if any(getattr(e, "forwards_to_blocks", False) for e in explicit):
        return explicit
    return _distinct(explicit + default_keepers())


def check(guarantee, accountant=None) -> None:
    """Refuse ``guarantee`` now if a budget keeper would (nothing is recorded): the keepers
    :func:`keepers_for` names. For a fit that charges in several entries (DP bounds first, then
    the release), so that a budget too small for the whole fit refuses it before its first
    entry is charged."""
    for keeper in keepers_for(accountant):
        keeper.check(guarantee)


@contextlib.contextmanager
def use_default(keeper):
    """Make ``keeper`` a default budget keeper inside the block (nested blocks add up)."""
    token = _DEFAULTS.set((_DEFAULTS.get() or ()) + (keeper,))
    mark = object()
    with _OPEN_LOCK:
        _OPEN.append((mark, keeper))
    try:
        yield keeper
    finally:
        with _OPEN_LOCK:
            _OPEN[:] = [(m, k) for m, k in _OPEN if m is not mark]
        _DEFAULTS.reset(token)


#: The ``with keeper:`` blocks open in this context, innermost last: ``((keeper, cm), ...)``.
#: Per context, not per keeper: threads sharing one keeper open and close their blocks in any
#: order (a list on the keeper let one thread close another's block: "Token was created in a
#: different Context").
_BLOCKS: ContextVar[tuple] = ContextVar("matrixdp_open_keeper_blocks", default=())


class DefaultKeeperMixin:
    """``with keeper:`` makes the keeper a default budget keeper inside the block
    (:func:`use_default`; nested and re-entered blocks add up, and each keeper is charged once).
    The open blocks are kept per context (thread, asyncio task), so threads sharing a keeper
    may enter and leave it in any order."""

    def __enter__(self):
        cm = use_default(self)
        cm.__enter__()
        _BLOCKS.set(_BLOCKS.get() + ((self, cm),))
        return self

    def __exit__(self, *exc) -> None:
        blocks = _BLOCKS.get()
        i = max(j for j, (k, _) in enumerate(blocks) if k is self)
        _BLOCKS.set(blocks[:i] + blocks[i + 1:])
        blocks[i][1].__exit__(*exc)


@contextlib.contextmanager
def suspended():
    """No default keeper inside the block: for code that has already charged a release's budget
    (an estimator's ``fit``) and then calls the mechanism that draws its noise."""
    token = _DEFAULTS.set(())
    try:
        yield
    finally:
        _DEFAULTS.reset(token)


@contextlib.contextmanager
def charge(guarantee, accountant=None, ledger=None, label: str = ""):
    """Charge one release to its budget keepers: refuse before the block, record the spend after.

    The keepers are ``accountant``, ``ledger`` and every keeper of the enclosing ``with`` blocks,
    each once (:func:`keepers_for`); with none, the block runs uncharged. Each keeper's
    ``charge`` checks (and, for a ledger, durably reserves) on entry, so a release that would
    overspend raises before any noise is drawn; the spend is recorded on entry (an
    ``Accountant`` records it there, under its lock; a ``Ledger`` reserves it durably and marks it
    released, or aborted, when the block exits) and stays recorded when the block raises (the
    noise may have been drawn: never under-count).
    Inside the block no default keeper is active, so an estimator that charges its whole
    guarantee is not charged again by the mechanisms it calls.
    """
    keepers = keepers_for(accountant, ledger)
    # Every keeper checks first, so that one refusing does not leave another charged.
    for keeper in keepers:
        keeper.check(guarantee)
    with contextlib.ExitStack() as stack:
        for keeper in keepers:
            stack.enter_context(keeper.charge(guarantee, label=label))
        # The charge covers everything inside: releases made within (an estimator's internal
        # mechanisms) are not charged to the default keepers a second time.
        token = _DEFAULTS.set(())
        try:
            yield guarantee
        finally:
            _DEFAULTS.reset(token)


def carry_block_keeper(state: dict) -> dict:
    """The state to pickle or copy of an estimator, carrying the keepers of open ``with`` blocks.

    An unfitted estimator pickled inside a ``with acc:`` / ``with ledger:`` block is usually on
    its way to a worker process (``cross_val_score`` or ``GridSearchCV`` with ``n_jobs=2`` on
    joblib's process backend), where no block is open: its fit ran uncharged (5 fits of epsilon 1
    inside ``with Accountant(epsilon=1.5)``, nothing recorded). The copy now carries every keeper
    its fit would charge here (:func:`keepers_for`: its own ``accountant`` and the blocks'
    keepers) as its ``accountant``, one keeper or a :class:`KeeperGroup`: a ``Ledger`` pickles as
    its path and the worker charges the file; an in-memory ``Accountant`` refuses to be pickled
    (its ``TypeError`` says to use a Ledger or ``n_jobs=1``), so the fit fails loudly instead. An
    in-process ``copy.deepcopy`` carries the same keepers (handles). Fitted estimators are left as
    they are, and so are estimators whose keeper already includes every block's.
    """
    if "accountant" not in state:
        return state
    if any(k.endswith("_") and not k.startswith("__") for k in state):  # fitted
        return state
    explicit = state["accountant"]
    if not default_keepers():
        return state
    if explicit is not None and not (callable(getattr(explicit, "check", None))
                                     and callable(getattr(explicit, "charge", None))):
        raise TypeError("an unfitted estimator whose accountant= has no check/charge (a "
                        "spend-only object) cannot carry the enclosing `with` blocks' keepers to "
                        "another process; pass an Accountant or a Ledger, or copy it outside the "
                        "blocks")
    keepers = keepers_for(explicit)
    carried = keepers[0] if len(keepers) == 1 else KeeperGroup(keepers)
    if carried is explicit:
        return state
    return dict(state, accountant=carried)
