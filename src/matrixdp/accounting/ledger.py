"""The privacy budget of a dataset, on disk: a crash-safe, multi-process SQLite ledger.

One file per dataset (stdlib :mod:`sqlite3`, write-ahead log, ``synchronous=FULL``). A release
is charged in two durable steps: *reserve* (the budget is checked and the entry committed
before any noise is drawn) and *release* (the entry is marked released). A crash between the
two leaves the reservation counted as spent, since the noise may have been seen: the ledger
never under-counts. Writers take the write lock before reading the balance (``BEGIN
IMMEDIATE``), so processes spending against one ledger never overspend together. The file holds
no private data: labels, guarantees, timestamps and a hash of the dataset's identity.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import sqlite3
import threading
from pathlib import Path

from .._budget import use_default
from .._validation import check_nonnegative_epsilon
from ..errors import BudgetExceededError, InvalidParameterError, LedgerError
from ..mechanisms.base import PrivacyGuarantee, check_neighbouring
from .accountant import budget_message
from .composition import METHODS, Tally, compose_tally, within

__all__ = ["Ledger", "LEDGER_MAGIC"]

#: Identifies a matrixdp ledger: SQLite's ``application_id`` header field ("MDPL") and a row
#: of the ``meta`` table.
APPLICATION_ID = 0x4D44504C
LEDGER_MAGIC = "matrixdp privacy-budget ledger"
SCHEMA_VERSION = 1
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
    released_at TEXT
);
"""

_COLUMNS = "id, epsilon, delta, mu, neighbouring, calibration, exact, refuted, mechanism"


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds")


def dataset_hash(dataset) -> str:
    """SHA-256 of a dataset's identity (a name, a path, a version string: never its records)."""
    data = dataset if isinstance(dataset, bytes) else str(dataset).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def _connect(path: Path, timeout: float, must_exist: bool) -> sqlite3.Connection:
    uri = path.resolve().as_uri() + ("?mode=rw" if must_exist else "?mode=rwc")
    con = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None,
                          check_same_thread=False)
    con.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
    return con


class Ledger:
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

    def __init__(self, path, con: sqlite3.Connection, meta: dict, timeout: float):
        self.path = Path(path)
        self._con = con
        self._timeout = timeout
        self.epsilon = float(meta["epsilon"])
        self.delta = float(meta["delta"])
        self.relation = meta["relation"]
        self.method = meta["method"]
        self.allow_unsafe = meta["allow_unsafe"] == "1"
        self.dataset_hash = meta["dataset_hash"]
        self.created_at = meta["created_at"]
        self._tally = Tally(self.relation, self.allow_unsafe)
        self._last_id = 0
        self._tokens: list = []
        # one connection per Ledger object: threads sharing it take turns per transaction
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ create / open
    @classmethod
    def create(cls, path, *, dataset, epsilon, delta=0.0, relation: str = "replace-one",
               method: str = "auto", allow_unsafe: bool = False, timeout: float = 60.0
               ) -> "Ledger":
        """Create a new ledger file (refuses to overwrite an existing one).

        Parameters
        ----------
        path : str or Path
        dataset : str or bytes
            The dataset's identity (name, version, path); only its SHA-256 is stored.
        epsilon : float
            The ε budget (>= 0).
        delta : float
            The δ at which the composed spend is compared with ε (default 0: pure DP only).
        relation : str
            Neighbouring relation of every spend (default ``"replace-one"``).
        method : {"auto", "gdp", "pld", "rdp", "advanced", "basic"}
        allow_unsafe : bool
            Let refuted guarantees be spent (the total is then marked refuted).
        timeout : float
            Seconds to wait for another process's write lock.
        """
        path = Path(path)
        eps = check_nonnegative_epsilon(epsilon)
        dlt = float(delta)
        if not 0 <= dlt < 1:
            raise InvalidParameterError("delta", f"must be in [0, 1), got {delta!r}")
        rel = check_neighbouring(str(relation))
        if method != "auto" and method not in METHODS:
            raise InvalidParameterError("method", f"must be 'auto' or one of {METHODS}, got "
                                                  f"{method!r}")
        if path.exists():
            raise LedgerError(f"{path}: a file already exists there; a ledger is never "
                              "overwritten (open it with Ledger.open, or choose a new path)")
        if not path.parent.is_dir():
            raise LedgerError(f"{path}: the directory {path.parent} does not exist")
        meta = {"magic": LEDGER_MAGIC, "schema": str(SCHEMA_VERSION), "epsilon": repr(eps),
                "delta": repr(dlt), "relation": str(rel), "method": method,
                "allow_unsafe": "1" if allow_unsafe else "0",
                "dataset_hash": dataset_hash(dataset), "created_at": _now()}
        # Build it under a temporary name, then link it into place: a crash never leaves a
        # half-made ledger at ``path``, and an existing file is never replaced.
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
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
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise LedgerError(f"{path}: a file already exists there; a ledger is never "
                              "overwritten") from None
        finally:
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(str(tmp) + suffix)
        _fsync_dir(path.parent)
        return cls.open(path, timeout=timeout)

    @classmethod
    def open(cls, path, *, dataset=None, timeout: float = 60.0) -> "Ledger":
        """Open an existing ledger; ``dataset`` (optional) must match the one it was made for.

        Raises
        ------
        LedgerError
            The file is missing, is not an SQLite file, is another application's database, or
            is corrupted (never silently reset).
        """
        path = Path(path)
        if not path.is_file():
            raise LedgerError(f"{path}: no ledger there; create one with Ledger.create or "
                              "`matrixdp budget init`")
        with open(path, "rb") as fh:
            head = fh.read(100)
        if len(head) < 100 or not head.startswith(_SQLITE_HEADER):
            raise LedgerError(f"{path}: not a matrixdp ledger (not an SQLite database file)")
        try:
            con = _connect(path, timeout, must_exist=True)
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
            if meta["schema"] != str(SCHEMA_VERSION):
                raise LedgerError(f"{path}: ledger schema {meta['schema']} is not supported "
                                  f"(this matrixdp reads schema {SCHEMA_VERSION})")
        except sqlite3.DatabaseError as exc:
            con.close()
            raise LedgerError(f"{path}: the ledger is corrupted or not a matrixdp ledger "
                              f"({exc}); never reset, restore it from a backup") from None
        except LedgerError:
            con.close()
            raise
        ledger = cls(path, con, meta, timeout)
        if dataset is not None and dataset_hash(dataset) != ledger.dataset_hash:
            ledger.close()
            raise LedgerError(f"{path}: this ledger was created for another dataset (the "
                              "identity's hash differs)")
        with ledger._read():
            pass
        return ledger

    def close(self) -> None:
        """Close the connection (the file stays consistent whether or not this is called)."""
        if self._con is not None:
            self._con.close()
            self._con = None

    # ------------------------------------------------------------------ reading
    def _connection(self) -> sqlite3.Connection:
        if self._con is None:
            raise LedgerError(f"{self.path}: the ledger is closed")
        return self._con

    def _catch_up(self, con) -> None:
        """Add the entries committed since the last read to the in-memory tally."""
        rows = con.execute(f"SELECT {_COLUMNS} FROM spends WHERE id > ? ORDER BY id",
                           (self._last_id,)).fetchall()
        for row in rows:
            self._tally.add(_row_guarantee(row))
            self._last_id = row[0]

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
            raise LedgerError(f"{self.path}: cannot read the ledger ({exc})") from None

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
            spent = compose_tally(self._tally, spent_delta, self.method)
        return max(0.0, self.epsilon - spent.epsilon), max(0.0, self.delta - spent_delta)

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

    def _reserve(self, guarantee, label: str, status: str) -> int:
        """Check and durably record one entry in one IMMEDIATE transaction; return its id."""
        with self._lock:
            return self._reserve_unlocked(guarantee, label, status)

    def _reserve_unlocked(self, guarantee, label: str, status: str) -> int:
        g = self._validated(guarantee)
        con = self._connection()
        try:
            con.execute("BEGIN IMMEDIATE")  # the write lock before reading the balance
        except sqlite3.OperationalError as exc:
            raise LedgerError(f"{self.path}: could not take the ledger's write lock within "
                              f"{self._timeout:g} s ({exc})") from None
        try:
            self._catch_up(con)
            tally = self._tally.copy()
            tally.add(g)
            if not within(tally, self.delta, self.epsilon, self.method):
                total = compose_tally(tally, self.delta, self.method)
                spent = compose_tally(self._tally, self.delta if self.delta > 0 else None,
                                      self.method)
                raise BudgetExceededError(f"ledger {self.path.name}: " + budget_message(
                    g, total, self.epsilon, self.delta, spent))
            now = _now()
            cur = con.execute(
                "INSERT INTO spends (label, status, epsilon, delta, mu, neighbouring, "
                "calibration, exact, refuted, mechanism, notes, reserved_at, released_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (str(label), status, float(g.epsilon), float(g.delta),
                 None if g.mu is None else float(g.mu), str(g.neighbouring), g.calibration,
                 int(bool(g.exact)), int(bool(g.refuted)), g.mechanism, json.dumps(g.notes),
                 now, now if status == "released" else None))
            con.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            raise
        return int(cur.lastrowid)

    def _finish(self, entry_id: int, status: str) -> None:
        with self._lock:
            self._finish_unlocked(entry_id, status)

    def _finish_unlocked(self, entry_id: int, status: str) -> None:
        con = self._connection()
        con.execute("BEGIN IMMEDIATE")
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
        with self._read():
            tally = self._tally.copy()
            tally.add(g)
            if not within(tally, self.delta, self.epsilon, self.method):
                total = compose_tally(tally, self.delta, self.method)
                spent = compose_tally(self._tally, self.delta if self.delta > 0 else None,
                                      self.method)
                raise BudgetExceededError(f"ledger {self.path.name}: " + budget_message(
                    g, total, self.epsilon, self.delta, spent))

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

    # ------------------------------------------------------------------ default keeper
    def __enter__(self) -> "Ledger":
        cm = use_default(self)
        cm.__enter__()
        self._tokens.append(cm)
        return self

    def __exit__(self, *exc) -> None:
        self._tokens.pop().__exit__(*exc)

    def __repr__(self) -> str:
        return (f"Ledger({str(self.path)!r}; budget epsilon={self.epsilon:.6g}, "
                f"delta={self.delta:.3g}, {self.relation}, method={self.method!r})")


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

