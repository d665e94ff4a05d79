"""The on-disk Ledger: durability under SIGKILL, racing processes, corrupted and foreign files."""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import signal
import sqlite3
import time

import numpy as np
import pytest

from matrixdp import GaussianMechanism, LaplaceMechanism, PrivacyGuarantee
from matrixdp.accounting import Ledger
from matrixdp.errors import BudgetExceededError, InvalidParameterError, LedgerError

FORK = mp.get_context("fork")
STEP = LaplaceMechanism(epsilon=0.01, sensitivity=1.0).privacy
#: Bound of every "spend until refused" loop: far more than any budget here admits, so a ledger
#: that never refuses makes the test fail instead of looping forever.
MAX_TRIES = 200
NEVER_REFUSED = -1


@pytest.fixture
def path(tmp_path):
    return tmp_path / "table.ledger"


def test_create_open_spend_history(path):
    led = Ledger.create(path, dataset="table v1", epsilon=1.0, delta=1e-6)
    gauss = GaussianMechanism(epsilon=0.3, delta=1e-8, sensitivity=1.0)
    gauss.release(np.zeros(2), rng=0, ledger=led, label="means")
    led.spend(LaplaceMechanism(epsilon=0.2, sensitivity=2.0).privacy, label="histogram")
    led.close()
    again = Ledger.open(path, dataset="table v1")
    hist = again.history()
    assert [h["label"] for h in hist] == ["means", "histogram"]
    assert [h["status"] for h in hist] == ["released", "released"]
    assert hist[0]["mu"] == pytest.approx(gauss.privacy.mu)
    spent = again.spent()
    assert spent.delta == 1e-6 and spent.epsilon < 0.5 + 1e-9
    eps_left, _ = again.remaining()
    assert 0.4 < eps_left < 0.6
    with pytest.raises(BudgetExceededError, match="ledger table.ledger"):
        again.spend(LaplaceMechanism(epsilon=0.9, sensitivity=1.0).privacy)
    assert len(again.history()) == 2
    again.close()


def test_charge_reserves_before_noise_and_counts_aborted(path):
    led = Ledger.create(path, dataset="t", epsilon=1.0)
    with led.charge(STEP, label="a") as entry:
        # durably reserved: another connection already sees it
        other = Ledger.open(path)
        assert [(h["id"], h["status"]) for h in other.history()] == [(entry, "reserved")]
    assert other.history()[0]["status"] == "released"
    with pytest.raises(ZeroDivisionError):
        with led.charge(STEP, label="b"):
            1 / 0
    statuses = [h["status"] for h in other.history()]
    assert statuses == ["released", "aborted"]
    assert other.spent().epsilon == pytest.approx(0.02)  # aborted still counts


def test_default_ledger_and_relation_rules(path):
    led = Ledger.create(path, dataset="t", epsilon=1.0, relation="add-remove")
    mech = LaplaceMechanism(epsilon=0.1, sensitivity=1.0, neighbouring="add-remove")
    with led:
        mech.release(0.0, rng=0)
    assert len(led.history()) == 1
    with pytest.raises(InvalidParameterError, match="neighbouring"):
        led.spend(STEP)  # replace-one


def test_never_overwrites_and_stores_no_data(path):
    led = Ledger.create(path, dataset="secret-table.csv", epsilon=1.0)
    value = 98765.4321
    LaplaceMechanism(epsilon=0.1, sensitivity=1.0).release(value, rng=0, ledger=led, label="x")
    led.close()
    with pytest.raises(LedgerError, match="already exists"):
        Ledger.create(path, dataset="other", epsilon=5.0)
    raw = b"".join(p.read_bytes() for p in path.parent.iterdir() if p.name.startswith(path.name))
    assert b"98765" not in raw and np.float64(value).tobytes() not in raw
    assert b"secret-table" not in raw  # only the identity's hash is stored
    with pytest.raises(LedgerError, match="another dataset"):
        Ledger.open(path, dataset="a different table")


def test_corrupted_and_foreign_files_give_clear_errors(tmp_path):
    garbage = tmp_path / "garbage.ledger"
    garbage.write_bytes(os.urandom(4096))
    with pytest.raises(LedgerError, match="not a matrixdp ledger"):
        Ledger.open(garbage)
    foreign = tmp_path / "foreign.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(LedgerError, match="another application"):
        Ledger.open(foreign)
    with pytest.raises(LedgerError, match="no ledger"):
        Ledger.open(tmp_path / "missing.ledger")
    # a real ledger with damaged pages
    good = tmp_path / "good.ledger"
    led = Ledger.create(good, dataset="t", epsilon=1.0)
    for i in range(50):
        led.spend(STEP.with_notes("x" * 200), label=f"s{i}")
    led.close()
    data = bytearray(good.read_bytes())
    size = len(data)
    data[4096:size] = os.urandom(size - 4096)
    good.write_bytes(bytes(data))
    with pytest.raises(LedgerError, match="corrupt|damaged|not a matrixdp"):
        led = Ledger.open(good)
        led.history()
    # never reset: the damaged file is left as it was
    assert good.read_bytes() == bytes(data)


# ------------------------------------------------------------------------------------ crash
def _spender(path, tag, conn):
    """Charge STEP repeatedly; acknowledge each reservation ('R') and release ('C')."""
    led = Ledger.open(path)
    conn.send(("ready", None))
    for i in range(100_000):  # bounded; killed by the parent long before
        label = f"{tag}-{i}"
        try:
            with led.charge(STEP, label=label):
                conn.send(("R", label))
            conn.send(("C", label))
        except BudgetExceededError:
            conn.send(("full", None))
            time.sleep(60)


def _kill_and_check(path, budget, kills, seed):
    rng = random.Random(seed)
    acknowledged_r, acknowledged_c = set(), set()
    for k in range(kills):
        parent, child = FORK.Pipe()
        proc = FORK.Process(target=_spender, args=(path, f"k{k}", child), daemon=True)
        proc.start()
        assert parent.poll(60) and parent.recv()[0] == "ready"
        time.sleep(rng.uniform(0.0, 0.12))
        os.kill(proc.pid, signal.SIGKILL)
        proc.join()
        while parent.poll():
            try:
                kind, label = parent.recv()
            except EOFError:
                break
            if kind == "R":
                acknowledged_r.add(label)
            elif kind == "C":
                acknowledged_c.add(label)
        led = Ledger.open(path)  # opens after every kill
        hist = led.history()
        labels = [h["label"] for h in hist]
        assert len(labels) == len(set(labels)), "an entry was recorded twice"
        status = {h["label"]: h["status"] for h in hist}
        assert acknowledged_r <= set(status), "an acknowledged reservation is missing"
        assert all(status[lab] == "released" for lab in acknowledged_c)
        total = led.spent()
        assert total.epsilon <= budget * (1 + 1e-12)
        assert total.epsilon == pytest.approx(0.01 * len(hist))
        led.close()
    return acknowledged_r


def _crash_run(tmp_path, kills, budget, seed):
    path = tmp_path / "crash.ledger"
    Ledger.create(path, dataset="t", epsilon=budget).close()
    acknowledged = _kill_and_check(path, budget, kills, seed)
    led = Ledger.open(path)
    statuses = {h["status"] for h in led.history()}
    full = led.spent().epsilon > budget - 0.01 * (1 + 1e-9)
    led.close()
    return acknowledged, statuses, full


def test_sigkill_at_random_points_never_loses_or_overspends(tmp_path):
    acknowledged, statuses, _ = _crash_run(tmp_path, kills=12, budget=0.6, seed=1)
    assert acknowledged  # the children did spend before being killed
    assert statuses <= {"reserved", "released"}


@pytest.mark.slow
def test_sigkill_two_hundred_times(tmp_path):
    acknowledged, statuses, full = _crash_run(tmp_path, kills=220, budget=6.0, seed=2)
    assert len(acknowledged) > 220
    assert "reserved" in statuses  # some kills landed between reserve and release
    assert full  # the budget ran out on the way, and was never exceeded


# ------------------------------------------------------------------------------------ race
def _racer(path, start, conn):
    led = Ledger.open(path)
    start.wait()
    won = 0
    for _ in range(MAX_TRIES):  # bounded: a ledger that never refuses fails, not hangs
        try:
            led.spend(LaplaceMechanism(epsilon=0.125, sensitivity=1.0).privacy, label=str(os.getpid()))
            won += 1
        except BudgetExceededError:
            break
    else:
        won = NEVER_REFUSED
    conn.send(won)


def test_racing_processes_spend_exactly_the_budget(tmp_path):
    path = tmp_path / "race.ledger"
    Ledger.create(path, dataset="t", epsilon=1.0).close()  # fits exactly 8 charges of 0.125
    start = FORK.Event()
    pipes, procs = [], []
    for _ in range(5):
        parent, child = FORK.Pipe()
        proc = FORK.Process(target=_racer, args=(path, start, child))
        proc.start()
        pipes.append(parent)
        procs.append(proc)
    start.set()
    assert all(p.poll(120) for p in pipes), "a racing process did not finish within 120 s"
    wins = [p.recv() for p in pipes]
    assert NEVER_REFUSED not in wins, "the ledger never refused a process"
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    assert sum(wins) == 8
    led = Ledger.open(path)
    assert len(led.history()) == 8
    assert led.spent().epsilon == pytest.approx(1.0)
    with pytest.raises(BudgetExceededError):
        led.check(PrivacyGuarantee(epsilon=1e-9, delta=0.0))


def test_threads_sharing_one_ledger_object(path):
    import threading

    led = Ledger.create(path, dataset="t", epsilon=0.5)  # 50 charges of 0.01
    wins, errors = [], []

    def spend():
        for _ in range(MAX_TRIES):  # bounded: a ledger that never refuses fails, not hangs
            try:
                with led.charge(STEP, label="thread"):
                    pass
                wins.append(1)
            except BudgetExceededError:
                return
            except Exception as exc:  # pragma: no cover - reported below
                errors.append(exc)
                return
        errors.append(AssertionError("the ledger never refused this thread"))

    threads = [threading.Thread(target=spend) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread did not finish within 120 s"
    assert not errors and len(wins) == 50
    assert led.spent().epsilon == pytest.approx(0.5)


def test_remaining_refuses_a_delta_above_the_budget_as_the_accountant_does(path):
    from matrixdp.errors import InvalidParameterError

    led = Ledger.create(path, dataset="d", epsilon=1.0, delta=1e-6)
    try:
        # it answered (1.0, 0.0): the epsilon left at a delta the budget does not have
        with pytest.raises(InvalidParameterError, match="budget's delta"):
            led.remaining(delta=0.5)
        assert led.remaining(delta=1e-6) == (1.0, 0.0)
    finally:
        led.close()


def test_create_refuses_text_for_delta(path):
    with pytest.raises(InvalidParameterError, match="delta"):
        Ledger.create(path, dataset="d", epsilon=1.0, delta="0.1")
    assert not path.exists()


def _fork_spend(i):
    from matrixdp._budget import default_keepers

    (led,) = default_keepers()
    try:
        LaplaceMechanism(epsilon=0.3, sensitivity=1.0).release(0.0, rng=i)
        return ("released", id(led._con))
    except BudgetExceededError:
        return ("refused", id(led._con))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs the fork start method")
def test_forked_children_charge_the_ledger_through_their_own_connection(path):
    # a forked child used the parent's SQLite connection (SQLite: never across fork); it opens
    # its own, and the children together never overspend
    import multiprocessing as mp

    led = Ledger.create(path, dataset="d", epsilon=1.0)
    parent_con = id(led._con)
    with led:
        with mp.get_context("fork").Pool(3) as pool:
            out = pool.map(_fork_spend, range(6))
    assert sorted(o[0] for o in out) == ["refused"] * 3 + ["released"] * 3
    assert all(o[1] != parent_con for o in out)
    assert len(led.history()) == 3 and led.spent().epsilon == pytest.approx(0.9)
    led.close()
