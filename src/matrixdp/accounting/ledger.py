"""The privacy budget of a dataset, on disk: a crash-safe, multi-process SQLite ledger.

One file per dataset (stdlib :mod:`sqlite3`, write-ahead log, ``synchronous=FULL``). A release
is charged in two durable steps: *reserve* (the budget is checked and the entry committed
before any noise is drawn) and *release* (the entry is marked released). A crash between the
two leaves the reservation counted as spent, since the noise may have been seen: the ledger
never under-counts. Writers take the write lock before reading the balance (``BEGIN
IMMEDIATE``), so processes spending against one ledger never overspend together. The file holds
no private data: labels, guarantees, timestamps and a hash of the dataset's identity.

Tamper evidence: the budget (``meta``) and every entry are chained with SHA-256 (each entry's
``chain`` is the hash of the previous chain value and the entry's canonical bytes; ``meta``
keeps the chain's start and its head), so an edited, deleted, inserted or reordered entry, a
changed budget or removed last entries are found on the next open or spend. A ledger is a
handle: copies (``copy.deepcopy``, ``sklearn.base.clone``) are the same object, and a pickle
holds only its path and identity, so a worker process re-opens the same file. The threat model:
``docs/security.md``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import sqlite3
import math
import threading
import time
import warnings
from pathlib import Path

from .._budget import DefaultKeeperMixin
from .._validation import check_delta, check_nonnegative_epsilon
from ..errors import BudgetExceededError, InvalidParameterError, LedgerError
from ..mechanisms.base import PrivacyGuarantee, check_neighbouring
from .accountant import budget_message
from .composition import METHODS, Tally, compose_tally, within

__all__ = ["Ledger", "LEDGER_MAGIC", "LedgerWarning"]

#: Identifies a matrixdp ledger: SQLite's ``application_id`` header field ("MDPL") and a row
#: of the ``meta`` table.
APPLICATION_ID = 0x4D44504C
LEDGER_MAGIC = "matrixdp privacy-budget ledger"
SCHEMA_VERSION = 2
#: Version 1 ledgers (no chain) are adopted once, with a :class:`LedgerWarning`.
_ADOPTABLE_SCHEMAS = ("1",)
_SQLITE_HEADER = b"SQLite format 3\x00"
#: Entry states; every one of them counts as spent.
STATUSES = ("reserved", "released", "aborted")

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE spends (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    label TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('reserved', 'released', 'aborted')),
    epsilon REAL NOT NULL,
    delta REAL NOT NULL,
    mu REAL,
    neighbouring TEXT NOT NULL,
    calibration TEXT NOT NULL,
    exact INTEGER NOT NULL,
    refuted INTEGER NOT NULL,
    mechanism TEXT NOT NULL,
    notes TEXT NOT NULL,
    reserved_at TEXT NOT NULL,
    released_at TEXT,
    chain TEXT NOT NULL
);
"""

_COLUMNS = "id, epsilon, delta, mu, neighbouring, calibration, exact, refuted, mechanism"
#: The columns a chain link covers: everything but ``status`` and ``released_at``, which change
#: once (reserved -> released/aborted) and do not matter to the budget (every status counts).
_CHAINED = ("id, label, epsilon, delta, mu, neighbouring, calibration, exact, refuted, "
            "mechanism, notes, reserved_at")
#: The meta keys the chain's start covers (the budget and the dataset's identity).
_META_CHAINED = ("magic", "schema", "epsilon", "delta", "relation", "method", "allow_unsafe",
                 "dataset_hash", "dataset_name", "created_at")


class LedgerWarning(UserWarning):
    """A ledger was adopted or read without the full tamper-evident chain (see the message)."""


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds")


def dataset_hash(dataset) -> str:
    """SHA-256 of a dataset's identity (a name, a path, a version string: never its records)."""
    data = dataset if isinstance(dataset, bytes) else str(dataset).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def _canonical(values) -> bytes:
    return json.dumps(list(values), separators=(",", ":"), ensure_ascii=False,
                      allow_nan=True).encode("utf-8")


def _genesis(meta: dict) -> str:
    """The chain's start: SHA-256 over the canonical budget and dataset identity."""
    body = _canonical([LEDGER_MAGIC] + [meta.get(k, "") for k in _META_CHAINED])
    return hashlib.sha256(b"matrixdp-ledger-genesis\n" + body).hexdigest()


def _link(previous: str, row) -> str:
    """The chain value of one entry: SHA-256 of the previous value and the entry's bytes."""
    return hashlib.sha256(previous.encode("ascii") + b"\n" + _canonical(row)).hexdigest()


def _writable(path: Path) -> bool:
    """Whether this process may write the ledger file and create its ``-wal`` beside it."""
    return os.access(path, os.W_OK) and os.access(path.resolve().parent, os.W_OK)


def _permission_denied(path: Path) -> LedgerError:
    folder = path.resolve().parent
    where = (f"the folder {folder} is read-only" if os.access(path, os.W_OK)
             else "the file is read-only")
    return LedgerError(f"cannot write the ledger at {path}: permission denied ({where}; "
                       "`matrixdp budget show` and `history` read it as it is)")


def _connect(path: Path, timeout: float, must_exist: bool, readonly: bool = False
             ) -> sqlite3.Connection:
    uri = path.resolve().as_uri()
    if readonly:
        # no write access: read through SQLite's read-only modes, which create no -wal/-shm.
        # ``immutable`` when no write-ahead log is pending (nothing else is writing it).
        wal = Path(str(path) + "-wal")
        uri += "?mode=ro" if wal.exists() else "?mode=ro&immutable=1"
    else:
        uri += "?mode=rw" if must_exist else "?mode=rwc"
    con = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None,
                          check_same_thread=False)
    con.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
    return con


def _state_file(genesis: str) -> Path:
    """Where this user keeps the high-water mark of one ledger (``$MATRIXDP_STATE_DIR``, else
    ``$XDG_STATE_HOME/matrixdp``, else ``~/.local/state/matrixdp``)."""
    base = os.environ.get("MATRIXDP_STATE_DIR")
    if not base:
        xdg = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"),
                                                               ".local", "state")
        base = os.path.join(xdg, "matrixdp")
    return Path(base) / "ledgers" / f"{genesis}.json"


def _seen(genesis: str) -> tuple[int, str] | None:
    try:
        data = json.loads(_state_file(genesis).read_text())
        return int(data["entries"]), str(data["head"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _record_seen(genesis: str, entries: int, head: str) -> None:
    """Remember (best effort) the longest history of this ledger seen by this user."""
    seen = _seen(genesis)
    if seen is not None and seen[0] >= entries:
        return
    file = _state_file(genesis)
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_name(f".{file.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps({"entries": entries, "head": head}))
        os.replace(tmp, file)
    except OSError:
        pass


def _reopen(path: str, genesis: str, readonly: bool) -> "Ledger":
    """Unpickle a :class:`Ledger`: open the file again and check it is the same ledger."""
    led = Ledger.open(path, readonly=readonly)
    if led._genesis != genesis:
        led.close()
        raise LedgerError(f"{path}: the ledger there is not the one that was pickled (another "
                          "budget or dataset identity)")
    return led


class Ledger(DefaultKeeperMixin):
    """The privacy budget of one dataset, kept in an SQLite file.

    Create with :meth:`create`, open with :meth:`open`. ``spend``, ``charge`` and
    ``check`` work like :class:`~matrixdp.accounting.Accountant`'s; ``with ledger:`` makes it the
    default budget keeper of mechanism releases (and estimators) inside the block.

    Attributes
    ----------
    path : pathlib.Path
    epsilon, delta : float
        The budget: the composed spend at ``delta`` may not exceed ``epsilon``.
    relation : str
        Neighbouring relation of every spend.
    method : str
        Composition method (see :func:`~matrixdp.accounting.compose`).
    dataset_hash : str
        SHA-256 of the dataset identity given at creation.
    dataset_name : str or None
        The dataset's public name, when given at creation (``dataset_name=``).
    readonly : bool
        Opened with ``readonly=True`` (refuses to spend).

    Notes
    -----
    Tamper-evident: the budget and every entry are chained with SHA-256 and verified on open and
    before every spend; an edit raises :class:`~matrixdp.errors.LedgerError` naming the first bad
    entry. A ledger is a handle: ``copy.copy``, ``copy.deepcopy`` and ``sklearn.base.clone``
    return the same object, and a pickle holds the path and the chain's identity, so a worker
    process re-opens (and charges) the same file. Threat model and rules: ``docs/security.md``.

    Examples
    --------
    >>> import os, tempfile
    >>> from matrixdp import LaplaceMechanism
    >>> path = os.path.join(tempfile.mkdtemp(), "table.ledger")
    >>> ledger = Ledger.create(path, dataset="table v1", epsilon=1.0, delta=0.0)
    >>> mech = LaplaceMechanism(epsilon=0.5, sensitivity=1.0)
    >>> _ = mech.release(3.0, rng=0, ledger=ledger, label="count")
    >>> ledger.spent().epsilon, [h["status"] for h in ledger.history()]
    (0.5, ['released'])
    >>> ledger.close()
    """

    def __init__(self, path, con: sqlite3.Connection, meta: dict, timeout: float,
                 readonly: bool = False):
        self.path = Path(path)
        self._con = con
        self._timeout = timeout
        self.readonly = bool(readonly)
        self.epsilon = float(meta["epsilon"])
        self.delta = float(meta["delta"])
        self.relation = meta["relation"]
        self.method = meta["method"]
        self.allow_unsafe = meta["allow_unsafe"] == "1"
        self.dataset_hash = meta["dataset_hash"]
        self.dataset_name = meta.get("dataset_name") or None
        self.created_at = meta["created_at"]
        self._genesis = meta["genesis"]
        self._tally = Tally(self.relation, self.allow_unsafe)
        self._last_id = 0
        self._head = None  # the chain value of entry _last_id, once verified
        self._data_version = None
        self._recorded_at = -math.inf
        self._charged_here: list = []
        self._pid = os.getpid()
        # one connection per Ledger object: threads sharing it take turns per transaction
        self._lock = threading.RLock()

    @property
    def charged_here(self) -> tuple:
        """``((id, guarantee), ...)`` of the entries this object reserved (what this process
        charged); a tuple: what a caller gets back cannot change the record."""
        return tuple(self._charged_here)

    @property
    def keeper_identity(self) -> str:
        """The ledger's file (resolved path): two handles of one file are one budget, charged
        once when both are keepers of a release (``matrixdp._budget.keepers_for``)."""
        return str(self.path.resolve())

    # ------------------------------------------------------------------ a handle, not a value
    def __copy__(self) -> "Ledger":
        # A budget keeper is a handle: a copy that charged separately would let every fold of a
        # cross-validation (sklearn.base.clone deep-copies parameters) spend the budget again.
        return self

    def __deepcopy__(self, memo) -> "Ledger":
        return self

    def __reduce__(self):
        # Pickled as its path and identity: a worker process (joblib/loky, multiprocessing)
        # re-opens the same file and charges it under the same write lock.
        return (_reopen, (str(self.path.resolve()), self._genesis, self.readonly))

    # ------------------------------------------------------------------ create / open
    @classmethod
    def create(cls, path, *, dataset, epsilon, delta=0.0, relation: str = "replace-one",
               method: str = "auto", allow_unsafe: bool = False, timeout: float = 60.0,
               dataset_name: str | None = None) -> "Ledger":
        """Create a new ledger file (refuses to overwrite an existing one).

        Parameters
        ----------
        path : str or Path
        dataset : str or bytes
            The dataset's identity (name, version, path); only its SHA-256 is stored.
        epsilon : float
            The ε budget (> 0).
        delta : float
            The δ at which the composed spend is compared with ε (default 0: pure DP only).
        relation : str
            Neighbouring relation of every spend (default ``"replace-one"``).
        method : {"auto", "gdp", "pld", "rdp", "advanced", "basic"}
        allow_unsafe : bool
            Let refuted guarantees be spent (the total is then marked refuted).
        timeout : float
            Seconds to wait for another process's write lock.
        dataset_name : str, optional
            A public name of the dataset, stored in clear so that a mismatch can name both
            (the command line stores ``--dataset`` here); ``None``: only the hash is stored.
        """
        path = Path(path)
        eps = check_nonnegative_epsilon(epsilon)
        if eps <= 0:
            raise InvalidParameterError("epsilon", f"a budget must be > 0, got {epsilon!r}")
        dlt = check_delta(delta, allow_zero=True)   # a number in [0, 1), not text
        rel = check_neighbouring(str(relation))
        if method != "auto" and method not in METHODS:
            raise InvalidParameterError("method", f"must be 'auto' or one of {METHODS}, got "
                                                  f"{method!r}")
        if path.exists():
            raise LedgerError(f"{path}: a file already exists there; a ledger is never "
                              "overwritten (open it with Ledger.open, or choose a new path)")
        if not path.parent.is_dir():
            raise LedgerError(f"{path}: the directory {path.parent} does not exist")
        if not os.access(path.resolve().parent, os.W_OK):
            raise LedgerError(f"cannot write the ledger at {path}: permission denied (the "
                              f"folder {path.resolve().parent} is read-only)")
        meta = {"magic": LEDGER_MAGIC, "schema": str(SCHEMA_VERSION), "epsilon": repr(eps),
                "delta": repr(dlt), "relation": str(rel), "method": method,
                "allow_unsafe": "1" if allow_unsafe else "0",
                "dataset_hash": dataset_hash(dataset),
                "dataset_name": "" if dataset_name is None else str(dataset_name),
                "created_at": _now()}
        meta["genesis"] = meta["head"] = _genesis(meta)
        # Build it under a temporary name, then link it into place: a crash never leaves a
        # half-made ledger at ``path``, and an existing file is never replaced.
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            con = _connect(tmp, timeout, must_exist=False)
            try:
                con.execute("PRAGMA journal_mode = WAL")
                con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                con.execute("BEGIN IMMEDIATE")
                for stmt in _SCHEMA.strip().split(";"):
                    if stmt.strip():
                        con.execute(stmt)
                con.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta.items())
                con.execute("COMMIT")
            finally:
                con.close()
            os.link(tmp, path)
        except FileExistsError:
            raise LedgerError(f"{path}: a file already exists there; a ledger is never "
                              "overwritten") from None
        except (PermissionError, sqlite3.OperationalError) as exc:
            if isinstance(exc, PermissionError) or not os.access(path.parent, os.W_OK):
                raise LedgerError(f"cannot write the ledger at {path}: permission denied") \
                    from None
            raise
        finally:
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(str(tmp) + suffix)
        _fsync_dir(path.parent)
        return cls.open(path, timeout=timeout)

    @classmethod
    def open(cls, path, *, dataset=None, timeout: float = 60.0, readonly: bool = False
             ) -> "Ledger":
        """Open an existing ledger; ``dataset`` (optional) must match the one it was made for.

        Parameters
        ----------
        path : str or Path
        dataset : str or bytes, optional
            The dataset's identity; refused (``LedgerError``) when it is not the ledger's.
        timeout : float
            Seconds to wait for another process's write lock.
        readonly : bool
            Only read (``spent``, ``remaining``, ``history``). A file this process may not
            write is read through SQLite's read-only modes, leaving no ``-wal``/``-shm`` behind.

        Raises
        ------
        LedgerError
            The file is missing, is not an SQLite file, is another application's database, is
            corrupted (never silently reset), does not verify (an entry or the budget was
            edited, entries removed or reordered: the message names the first bad entry), or
            may not be written (``readonly=False``: "cannot write the ledger at PATH:
            permission denied").
        """
        path = Path(path)
        if not path.is_file():
            raise LedgerError(f"{path}: no ledger there; create one with Ledger.create or "
                              "`matrixdp budget init`")
        try:
            with open(path, "rb") as fh:
                head = fh.read(100)
        except PermissionError:
            raise LedgerError(f"cannot read the ledger at {path}: permission denied") from None
        if len(head) < 100 or not head.startswith(_SQLITE_HEADER):
            raise LedgerError(f"{path}: not a matrixdp ledger (not an SQLite database file)")
        writable = _writable(path)
        if not readonly and not writable:
            raise _permission_denied(path)
        ro_mode = readonly and not writable  # a writable file is read normally (WAL cleaned up)
        try:
            con = _connect(path, timeout, must_exist=True, readonly=ro_mode)
        except sqlite3.Error as exc:
            raise LedgerError(f"{path}: cannot open the ledger ({exc})") from None
        try:
            app = con.execute("PRAGMA application_id").fetchone()[0]
            if app != APPLICATION_ID:
                raise LedgerError(f"{path}: an SQLite database of another application, not a "
                                  "matrixdp ledger")
            check = con.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise LedgerError(f"{path}: the ledger is corrupted (SQLite quick_check: "
                                  f"{check}); restore it from a backup, never reset it")
            if not ro_mode:
                con.execute("PRAGMA synchronous = FULL")
                mode = con.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise LedgerError(f"{path}: cannot switch the ledger to write-ahead logging")
            try:
                meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
            except sqlite3.Error:
                meta = {}
            needed = ("magic", "schema", "epsilon", "delta", "relation", "method",
                      "allow_unsafe", "dataset_hash", "created_at")
            if meta.get("magic") != LEDGER_MAGIC or any(k not in meta for k in needed):
                raise LedgerError(f"{path}: the ledger's metadata is missing or damaged")
            if meta["schema"] in _ADOPTABLE_SCHEMAS:
                if readonly:
                    raise LedgerError(
                        f"{path}: a schema-{meta['schema']} ledger (no tamper-evident chain); "
                        "open it once with write access (any spend, or Ledger.open) to adopt it")
                meta = _adopt(con, path, meta)
            if meta["schema"] != str(SCHEMA_VERSION):
                raise LedgerError(f"{path}: ledger schema {meta['schema']} is not supported "
                                  f"(this matrixdp reads schema {SCHEMA_VERSION})")
            _check_meta(path, meta, None)
        except sqlite3.DatabaseError as exc:
            con.close()
            if "readonly" in str(exc) or "unable to open" in str(exc):
                raise (_permission_denied(path) if not writable else LedgerError(
                    f"{path}: cannot open the ledger ({exc})")) from None
            raise LedgerError(f"{path}: the ledger is corrupted or not a matrixdp ledger "
                              f"({exc}); never reset, restore it from a backup") from None
        except LedgerError:
            con.close()
            raise
        ledger = cls(path, con, meta, timeout, readonly=readonly)
        if dataset is not None and dataset_hash(dataset) != ledger.dataset_hash:
            ledger.close()
            name = f" {ledger.dataset_name!r}" if ledger.dataset_name else ""
            raise LedgerError(f"{path}: this ledger was created for another dataset{name}, not "
                              f"{str(dataset)!r} (the identity's hash differs)")
        try:
            # the record first, the ledger's snapshot after: a record says r entries only once
            # they were committed, so a later snapshot holds at least r unless the file is older
            # (reading them the other way round refused racing processes as restored backups)
            seen = _seen(ledger._genesis)
            with ledger._read() as con:
                ledger._check_seen(con, seen)
        except LedgerError:
            ledger.close()
            raise
        return ledger

    def _check_seen(self, con, seen) -> None:
        """Refuse a ledger older than one this user saw (a restored backup, a copy of an old
        version): its history must extend ``seen``, the longest history recorded for its chain,
        read *before* ``con``'s snapshot."""
        if seen is not None and seen[0] > 0:
            n, head = seen
            row = con.execute("SELECT chain FROM spends WHERE id = ?", (n,)).fetchone()
            if row is None or row[0] != head:
                have = con.execute("SELECT COUNT(*) FROM spends").fetchone()[0]
                raise LedgerError(
                    f"{self.path}: the ledger does not verify: it holds {have} entries but this "
                    f"user saw {n} (up to entry {n}, now missing or different): a restored "
                    "backup or an old copy would forget spent budget; open the newest ledger "
                    f"(the record of what was seen: {_state_file(self._genesis)})")
        if self._last_id:
            _record_seen(self._genesis, self._last_id,
                         con.execute("SELECT value FROM meta WHERE key = 'head'").fetchone()[0])

    def close(self) -> None:
        """Close the connection (the file stays consistent whether or not this is called)."""
        if self._con is not None:
            with contextlib.suppress(Exception):  # best effort: the restored-backup record
                with self._read():
                    pass
                if self._last_id:
                    _record_seen(self._genesis, self._last_id, self._head)
            self._con.close()
            self._con = None

    # ------------------------------------------------------------------ reading
    def _connection(self) -> sqlite3.Connection:
        if self._con is None:
            raise LedgerError(f"{self.path}: the ledger is closed")
        if self._pid != os.getpid():
            # a forked child (multiprocessing's "fork"): an SQLite connection must not be used
            # across fork; the child opens its own and re-verifies the whole chain before its
            # first read or spend (the parent's connection is left to the parent)
            ro = self.readonly and not _writable(self.path)
            con = _connect(self.path, self._timeout, must_exist=True, readonly=ro)
            if not ro:
                con.execute("PRAGMA synchronous = FULL")
            self._con, self._pid = con, os.getpid()
            self._head = self._data_version = None
            self._charged_here = []   # what the parent charged is not this process's
        return self._con

    def _catch_up(self, con) -> str:
        """Verify the chain (and the budget in meta), then add the entries committed since the
        last read to the in-memory tally; return the chain's head.

        The whole chain is verified whenever another connection committed since this one last
        looked (SQLite's ``data_version``); otherwise only the new entries are, from the head
        this object verified last (its tally was built from verified entries only).
        """
        version = con.execute("PRAGMA data_version").fetchone()[0]
        if self._head is None or version != self._data_version:
            meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
            _check_meta(self.path, meta, self._genesis)
            rows = con.execute(f"SELECT {_CHAINED}, chain FROM spends ORDER BY id").fetchall()
            head = _verify_rows(self.path, self._genesis, 0, rows, meta.get("head"))
        else:
            rows = con.execute(f"SELECT {_CHAINED}, chain FROM spends WHERE id > ? ORDER BY id",
                               (self._last_id,)).fetchall()
            stored = con.execute("SELECT value FROM meta WHERE key = 'head'").fetchone()
            head = _verify_rows(self.path, self._head, self._last_id, rows,
                                None if stored is None else stored[0])
        for row in rows:
            if row[0] > self._last_id:
                self._tally.add(_row_guarantee((row[0],) + tuple(row[2:10])))
                self._last_id = row[0]
        self._head, self._data_version = head, version
        return head

    @contextlib.contextmanager
    def _read(self):
        with self._lock:
            with self._read_unlocked() as con:
                yield con

    @contextlib.contextmanager
    def _read_unlocked(self):
        con = self._connection()
        try:
            con.execute("BEGIN")
            try:
                self._catch_up(con)
                yield con
            finally:
                con.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise self._db_error(exc, "read") from None

    def _db_error(self, exc, action: str) -> LedgerError:
        text = str(exc)
        if ("readonly" in text or "unable to open" in text or "permission" in text.lower()) \
                and not _writable(self.path):
            return _permission_denied(self.path)
        return LedgerError(f"{self.path}: cannot {action} the ledger ({exc})")

    def spent(self, delta=None, method=None) -> PrivacyGuarantee:
        """The composed guarantee of every entry (reserved ones included) at ``delta``
        (default: the budget's δ when it has one, else Σδ_i)."""
        with self._read():
            if delta is None:
                delta = self.delta if self.delta > 0 else None
            return compose_tally(self._tally, delta, method or self.method)

    def remaining(self, delta=None) -> tuple[float, float]:
        """``(epsilon, delta)`` still available (see :meth:`Accountant.remaining`)."""
        with self._read():
            spent_delta = min(self._tally.delta_sum, self.delta) if delta is None \
                else float(delta)
            if spent_delta > self.delta:   # as Accountant.remaining (it answered "0 left")
                raise InvalidParameterError("delta", f"must be at most the budget's delta "
                                                     f"{self.delta:.3g}, got {delta!r}")
            spent = compose_tally(self._tally, spent_delta, self.method)
        return max(0.0, self.epsilon - spent.epsilon), max(0.0, self.delta - spent_delta)

    def fits(self, guarantee) -> bool:
        """Whether ``guarantee`` fits the budget now (as :meth:`check`, without raising)."""
        g = self._validated(guarantee)
        with self._read():
            tally = self._tally.copy()
            tally.add(g)
            return within(tally, self.delta, self.epsilon, self.method)

    def largest_fitting(self, make, rtol: float = 1e-3) -> float:
        """The largest ε (to a relative ``rtol``, from below) such that the guarantee ``make(ε)``
        fits now: bisection on the same check that refuses a release (0.0 when nothing fits).

        The cheap composition bounds (basic, RDP, advanced: each monotone in ε) are bisected
        first and give the lower end of the bracket, so the costly PLD check runs a few times
        only.
        """
        with self._read():
            base = self._tally.copy()
        limit = self.epsilon * (1 + 1e-12)

        def tally_with(e):
            tally = base.copy()
            tally.add(self._validated(make(e)))
            return tally

        def fits(e):
            return within(tally_with(e), self.delta, self.epsilon, self.method)

        def cheap(e):
            for m in ("basic", "rdp", "advanced"):
                if self.method not in ("auto", m) or (m != "basic" and self.delta == 0):
                    continue
                try:
                    if compose_tally(tally_with(e), self.delta, m).epsilon <= limit:
                        return True
                except Exception:  # a method that does not apply to this sequence
                    continue
            return False

        def bisect(test, lo, hi, tol):
            while hi - lo > tol * hi:
                mid = 0.5 * (lo + hi)
                lo, hi = (mid, hi) if test(mid) else (lo, mid)
            return lo

        hi = self.epsilon
        if fits(hi):
            return hi
        lo = hi * 1e-9
        if not fits(lo):
            return 0.0
        lo = max(lo, bisect(cheap, 0.0, hi, 1e-9) if cheap(lo) else lo)
        return bisect(fits, lo, hi, rtol)

    def history(self) -> list[dict]:
        """Every entry, oldest first: id, label, status, ε, δ, μ, mechanism, calibration, exact,
        refuted, reserved_at, released_at."""
        with self._read() as con:
            rows = con.execute(
                "SELECT id, label, status, epsilon, delta, mu, mechanism, calibration, exact, "
                "refuted, neighbouring, reserved_at, released_at FROM spends ORDER BY id"
            ).fetchall()
        keys = ("id", "label", "status", "epsilon", "delta", "mu", "mechanism", "calibration",
                "exact", "refuted", "neighbouring", "reserved_at", "released_at")
        out = [dict(zip(keys, r)) for r in rows]
        for d in out:
            d["exact"], d["refuted"] = bool(d["exact"]), bool(d["refuted"])
        return out

    # ------------------------------------------------------------------ spending
    def _validated(self, guarantee) -> PrivacyGuarantee:
        g = Tally(self.relation, self.allow_unsafe).validate(guarantee)
        return g

    def _writing(self) -> sqlite3.Connection:
        if self.readonly:
            raise LedgerError(f"{self.path}: the ledger was opened read-only; open it with "
                              "Ledger.open(path) to spend")
        con = self._connection()
        try:
            con.execute("BEGIN IMMEDIATE")  # the write lock before reading the balance
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise LedgerError(f"{self.path}: could not take the ledger's write lock within "
                                  f"{self._timeout:g} s ({exc})") from None
            raise self._db_error(exc, "write") from None
        return con

    def _refuse_over_budget(self, g) -> None:
        """Raise :class:`~matrixdp.errors.BudgetExceededError` if ``g`` on top of the tally
        (caught up with the file by the caller) does not fit the budget."""
        tally = self._tally.copy()
        tally.add(g)
        if not within(tally, self.delta, self.epsilon, self.method):
            total = compose_tally(tally, self.delta, self.method)
            spent = compose_tally(self._tally, self.delta if self.delta > 0 else None, self.method)
            raise BudgetExceededError(f"ledger {self.path.name}: " + budget_message(
                g, total, self.epsilon, self.delta, spent))

    def _reserve(self, guarantee, label: str, status: str) -> int:
        """Check and durably record one entry in one IMMEDIATE transaction; return its id."""
        with self._lock:
            return self._reserve_unlocked(guarantee, label, status)

    def _reserve_unlocked(self, guarantee, label: str, status: str) -> int:
        g = self._validated(guarantee)
        con = self._writing()
        try:
            head = self._catch_up(con)
            self._refuse_over_budget(g)
            now = _now()
            entry = self._last_id + 1
            row = (entry, str(label), float(g.epsilon), float(g.delta),
                   None if g.mu is None else float(g.mu), str(g.neighbouring), g.calibration,
                   int(bool(g.exact)), int(bool(g.refuted)), g.mechanism, json.dumps(g.notes),
                   now)
            chain = _link(head, row)
            con.execute(
                "INSERT INTO spends (id, label, epsilon, delta, mu, neighbouring, calibration, "
                "exact, refuted, mechanism, notes, reserved_at, status, released_at, chain) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row + (status, now if status == "released" else None, chain))
            con.execute("UPDATE meta SET value = ? WHERE key = 'head'", (chain,))
            con.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            raise self._db_error(exc, "write") from None
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            raise
        self._charged_here.append((entry, g))
        # the record of what was seen (restored-backup check) at most once a second, and on
        # close: a file write per spend would cost as much as the spend's own commit
        now_s = time.monotonic()
        if now_s - self._recorded_at > 1.0:
            _record_seen(self._genesis, entry, chain)
            self._recorded_at = now_s
        return entry

    def _finish(self, entry_id: int, status: str) -> None:
        with self._lock:
            self._finish_unlocked(entry_id, status)

    def _finish_unlocked(self, entry_id: int, status: str) -> None:
        con = self._writing()
        try:
            con.execute("UPDATE spends SET status = ?, released_at = ? WHERE id = ?",
                        (status, _now(), entry_id))
            con.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            raise

    def check(self, guarantee) -> None:
        """Raise :class:`~matrixdp.errors.BudgetExceededError` if ``guarantee`` does not fit now
        (advisory: :meth:`charge` and :meth:`spend` check again under the write lock)."""
        g = self._validated(guarantee)
        if self.readonly:
            raise LedgerError(f"{self.path}: the ledger was opened read-only; open it with "
                              "Ledger.open(path) to spend")
        with self._read():
            self._refuse_over_budget(g)

    def spend(self, release_or_guarantee, *, label: str = "") -> int:
        """Record a release that already happened (checked first); returns the entry's id."""
        return self._reserve(release_or_guarantee, label, "released")

    @contextlib.contextmanager
    def charge(self, guarantee, label: str = ""):
        """Reserve durably before the block (raise if it does not fit), mark released after.

        Draw the noise inside the block. If the process dies inside it, the reservation stays
        and counts as spent; if the block raises, the entry is marked ``aborted`` and still
        counts (the noise may have been seen).
        """
        entry = self._reserve(guarantee, label, "reserved")
        try:
            yield entry
        except BaseException:
            self._finish(entry, "aborted")
            raise
        self._finish(entry, "released")

    # ------------------------------------------------------------------ repr
    def __repr__(self) -> str:
        return (f"Ledger({str(self.path)!r}; budget epsilon={self.epsilon:.6g}, "
                f"delta={self.delta:.3g}, {self.relation}, method={self.method!r})")


def _check_meta(path: Path, meta: dict, genesis: str | None) -> None:
    """The budget in ``meta`` is the one the chain started from (and, when given, the one this
    object opened)."""
    start = _genesis(meta)
    if meta.get("genesis") != start or (genesis is not None and start != genesis):
        raise LedgerError(f"{path}: the ledger does not verify: its budget or dataset identity "
                          "(the meta table) was edited after creation; a changed budget is never "
                          "accepted (restore the ledger from a backup)")


def _verify_rows(path: Path, start: str, start_id: int, rows, head) -> str:
    """Walk the chain from ``start`` (the value of entry ``start_id``; the genesis for 0); raise
    naming the first entry that does not verify; return the head."""
    value = start
    previous_id = start_id
    for row in rows:
        if row[0] != previous_id + 1 or _link(value, row[:-1]) != row[-1]:
            what = f"entry {row[0]} ({row[1]!r})"
            if row[0] > previous_id + 1:
                what = f"entry {previous_id + 1} (missing; the next entry is {row[0]})"
            raise LedgerError(f"{path}: the ledger does not verify: the first bad row is {what} "
                              "(edited, inserted, deleted or reordered after it was recorded); "
                              "restore the ledger from a backup, never edit it")
        value = row[-1]
        previous_id = row[0]
    if head != value:
        what = (f"entries after {previous_id} were removed" if previous_id
                else "its entries were removed")
        raise LedgerError(f"{path}: the ledger does not verify: {what} (the chain's head in meta "
                          f"does not match; the first bad row is {previous_id + 1}); restore the "
                          "ledger from a backup, never edit it")
    return value


def _adopt(con, path: Path, meta: dict) -> dict:
    """Give a schema-1 ledger (no chain) its chain, once, under the write lock, and warn."""
    con.execute("BEGIN IMMEDIATE")
    try:
        cur = dict(con.execute("SELECT key, value FROM meta").fetchall())
        if cur.get("schema") != "1":  # another process adopted it meanwhile
            con.execute("COMMIT")
            return cur
        cur["schema"] = str(SCHEMA_VERSION)
        cur.setdefault("dataset_name", "")
        cur["genesis"] = _genesis(cur)
        con.execute("ALTER TABLE spends ADD COLUMN chain TEXT")
        value = cur["genesis"]
        rows = con.execute(f"SELECT {_CHAINED} FROM spends ORDER BY id").fetchall()
        previous_id = 0
        for row in rows:
            # ids of a chained ledger are 1, 2, 3, ...: renumber a gap left by a deleted row
            if row[0] != previous_id + 1:
                con.execute("UPDATE spends SET id = ? WHERE id = ?", (previous_id + 1, row[0]))
                row = (previous_id + 1,) + tuple(row[1:])
            value = _link(value, row)
            con.execute("UPDATE spends SET chain = ? WHERE id = ?", (value, row[0]))
            previous_id = row[0]
        cur["head"] = value
        con.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                        [(k, cur[k]) for k in ("schema", "dataset_name", "genesis", "head")])
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        con.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            con.execute("ROLLBACK")
        raise
    warnings.warn(f"{path}: a schema-1 ledger without a tamper-evident chain was adopted as it is "
                  f"({len(rows)} entries): edits made to it before now cannot be detected; every "
                  "change from now on is", LedgerWarning, stacklevel=3)
    return cur


def _row_guarantee(row) -> PrivacyGuarantee:
    _, eps, dlt, mu, rel, calib, exact, refuted, mech = row
    return PrivacyGuarantee(epsilon=float(eps), delta=float(dlt), neighbouring=rel,
                            calibration=calib, exact=bool(exact), refuted=bool(refuted),
                            mechanism=mech, mu=None if mu is None else float(mu))


def _fsync_dir(directory: Path) -> None:
    """Make the new directory entry durable (POSIX; a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

