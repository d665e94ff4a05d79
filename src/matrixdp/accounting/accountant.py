"""An in-memory privacy accountant: refuses a release that would overspend, before its noise.

See ``docs/accounting.md`` for the composition methods and how ``method="auto"`` chooses.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading

from .._budget import DefaultKeeperMixin
from .._validation import check_delta, check_nonnegative_epsilon
from ..errors import BudgetExceededError, InvalidParameterError
from ..mechanisms.base import PrivacyGuarantee, check_neighbouring
from .composition import METHODS, Tally, compose_tally, parallel, within

__all__ = ["Accountant", "budget_message"]

#: Relative slack on the ε comparison: absorbs floating-point rounding of a budget that fits
#: exactly k releases (0.1 * 10 summed), far below any meaningful privacy difference.
_REL_TOL = 1e-12


def budget_message(what: PrivacyGuarantee, total: PrivacyGuarantee, epsilon, delta,
                   spent: PrivacyGuarantee) -> str:
    """The refusal message: what would be spent, what the total would be, what remains."""
    left = max(0.0, epsilon - spent.epsilon) if math.isfinite(spent.epsilon) else 0.0
    return (f"the release would spend (epsilon={what.epsilon:.6g}, delta={what.delta:.3g}) "
            f"[{what.mechanism or 'release'}]; with what was spent the total would be "
            f"epsilon={total.epsilon:.6g} at delta={total.delta:.3g} ({total.calibration}), over "
            f"the budget (epsilon={epsilon:.6g}, delta={delta:.3g}); spent so far "
            f"epsilon={spent.epsilon:.6g} at delta={spent.delta:.3g}, about epsilon={left:.6g} "
            "remains")


class Accountant(DefaultKeeperMixin):
    """Track the privacy spent by a sequence of releases and refuse what would overspend.

    Parameters
    ----------
    epsilon : float, optional
        The ε budget (``None``: unlimited, only track).
    delta : float, optional
        The δ at which the composed spend is compared to ``epsilon`` (default 0: pure DP only).
    relation : str, optional
        Neighbouring relation of every release (default: the first spend's); mixing raises.
    method : {"auto", "gdp", "pld", "rdp", "advanced", "basic"}
        How to compose (see :func:`~matrixdp.accounting.compose`).
    allow_unsafe : bool
        Let refuted guarantees compose (the total is then marked refuted).

    Notes
    -----
    Used as a context manager (``with Accountant(epsilon=1, delta=1e-6) as acc:``) it becomes the
    default accountant of every mechanism release (and estimator) inside the block, as
    diffprivlib's ``BudgetAccountant`` does. The ε comparison has a relative slack of 1e-12
    (floating-point rounding).

    An accountant is a handle, not a value: ``copy.copy``, ``copy.deepcopy`` and so
    ``sklearn.base.clone`` return the same object, so every fold of ``cross_val_score`` or
    ``GridSearchCV`` (in one process) charges it. It cannot be pickled: in another process a
    copy would charge a separate tally, so pickling raises ``TypeError`` (use a
    :class:`~matrixdp.accounting.Ledger` across processes; to save an estimator fitted with
    ``accountant=acc``, ``set_params(accountant=None)`` first). See ``docs/security.md``.

    Examples
    --------
    >>> from matrixdp import GaussianMechanism
    >>> mech = GaussianMechanism(epsilon=0.5, delta=1e-7, sensitivity=1.0)
    >>> with Accountant(epsilon=1.0, delta=1e-6) as acc:
    ...     _ = mech.release(0.0, rng=1)
    ...     _ = mech.release(0.0, rng=2)
    >>> acc.total().calibration, acc.total().epsilon < 1.0
    ('gdp', True)
    """

    def __init__(self, epsilon=None, delta=None, *, relation: str | None = None,
                 method: str = "auto", allow_unsafe: bool = False):
        self.epsilon = None if epsilon is None else check_nonnegative_epsilon(epsilon)
        # a number in [0, 1) (text such as "0.1" was accepted, while epsilon refused it)
        self.delta = 0.0 if delta is None else check_delta(delta, allow_zero=True)
        if method != "auto" and method not in METHODS:
            raise InvalidParameterError("method", f"must be 'auto' or one of {METHODS}, got "
                                                  f"{method!r}")
        self.method = method
        self.relation = None if relation is None else check_neighbouring(str(relation))
        self.allow_unsafe = bool(allow_unsafe)
        self._tally = Tally(self.relation, self.allow_unsafe)
        self._spends: list[tuple[str, PrivacyGuarantee]] = []
        # threads sharing one accountant take turns: a check and its record are one step, so two
        # releases that each fit alone can never both pass the check before either is recorded
        self._lock = threading.RLock()
        self._pid = os.getpid()

    # ------------------------------------------------------------------ queries
    @property
    def spends(self) -> tuple:
        """``((label, guarantee), ...)`` in spending order."""
        return tuple(self._spends)

    def total(self, delta=None, method=None) -> PrivacyGuarantee:
        """The composed guarantee of everything spent, at ``delta`` (default: the budget's δ
        when it has one, else Σδ_i)."""
        if delta is None:
            delta = self.delta if self.delta > 0 else None
        with self._lock:
            return compose_tally(self._tally, delta, method or self.method)

    def remaining(self, delta=None) -> tuple[float, float]:
        """``(epsilon, delta)`` that any further release may still use.

        ``delta`` is the part of the δ budget given to what was spent (default: Σδ_i, capped
        at the budget). A release with ε <= the first and δ <= the second fits by basic
        composition with the spent total; :meth:`check` (tight composition) may admit more.
        """
        if self.epsilon is None:
            return math.inf, 1.0 - self.delta if self.delta else math.inf
        with self._lock:
            spent_delta = min(self._tally.delta_sum, self.delta) if delta is None \
                else float(delta)
            if spent_delta > self.delta:
                raise InvalidParameterError("delta", f"must be at most the budget's delta "
                                                     f"{self.delta:.3g}, got {delta!r}")
            spent = compose_tally(self._tally, spent_delta, self.method)
        return max(0.0, self.epsilon - spent.epsilon), self.delta - spent_delta

    # ------------------------------------------------------------------ spending
    def check(self, guarantee) -> None:
        """Raise :class:`~matrixdp.errors.BudgetExceededError` if ``guarantee`` does not fit
        (and ``InvalidParameterError`` for a different neighbouring relation)."""
        self._same_process()
        if self.epsilon is None:
            self._tally.validate(guarantee)
            return
        with self._lock:
            tally = self._tally.copy()
        g = tally.add(guarantee)
        if not within(tally, self.delta, self.epsilon, self.method, _REL_TOL):
            total = compose_tally(tally, self.delta, self.method)
            spent = self.total()
            raise BudgetExceededError(budget_message(g, total, self.epsilon, self.delta, spent))

    def spend(self, release_or_guarantee, *, label: str = "") -> PrivacyGuarantee:
        """Check, then record one release (a :class:`Release`, its guarantee or a mechanism).

        Returns the recorded guarantee (:meth:`total` composes everything spent).
        """
        self._same_process()
        with self._lock:
            self.check(release_or_guarantee)
            g = self._tally.add(release_or_guarantee)
            self._spends.append((str(label), g))
        return g

    def spend_parallel(self, guarantees, *, partition_public: bool, label: str = ""
                       ) -> PrivacyGuarantee:
        """Spend the parallel composition of releases on disjoint, publicly partitioned records
        (see :func:`~matrixdp.accounting.parallel`); returns that composed guarantee."""
        return self.spend(parallel(guarantees, partition_public=partition_public), label=label)

    @contextlib.contextmanager
    def charge(self, guarantee, label: str = ""):
        """Check and record the spend on entry, before any noise (it stays recorded when the
        block raises: the noise may have been drawn).

        The check and the record are one step under the accountant's lock, so threads sharing
        the accountant never overspend together (a check on entry and a record on exit let every
        thread pass the check before any recorded).
        """
        self.spend(guarantee, label=label)
        yield guarantee

    # ------------------------------------------------------------------ a handle, not a value
    def __copy__(self) -> "Accountant":
        # A budget keeper is a handle: sklearn.base.clone deep-copies an estimator's parameters,
        # and a copy would let every fold of cross_val_score / GridSearchCV spend the budget
        # again on its own private tally. Copies are therefore the same object.
        return self

    def __deepcopy__(self, memo) -> "Accountant":
        return self

    def _same_process(self) -> None:
        # A forked child (multiprocessing's "fork", e.g. a Pool made inside `with acc:`) holds a
        # copy of the accountant: its charges went to a tally the parent never saw (2 releases
        # of 0.6 under a budget of 1.0 in two children, the parent charged 0). Refuse, as a pickle.
        if os.getpid() != self._pid:
            raise TypeError(
                "an in-memory Accountant cannot be charged from another process (this is a "
                "forked copy: its spends would never reach the parent's tally); use a "
                "Ledger(path), which every process charges through its file, or n_jobs=1")

    def __reduce_ex__(self, protocol):
        # A pickle is how a budget goes to another process (joblib/loky, multiprocessing):
        # a copy there would charge its own tally and the spends would be lost. Refuse loudly.
        raise TypeError(
            "an in-memory Accountant cannot be shared across processes; use a Ledger(path) "
            "(it pickles as its path and every process charges the one file) or n_jobs=1 (a "
            "copy in another process would charge a separate tally); to save a fitted model, "
            "set_params(accountant=None) before pickling it")

    # ------------------------------------------------------------------ repr
    def __repr__(self) -> str:
        budget = "unlimited" if self.epsilon is None else \
            f"epsilon={self.epsilon:.6g}, delta={self.delta:.3g}"
        return f"Accountant({budget}; {self._tally.n} spends, method={self.method!r})"
