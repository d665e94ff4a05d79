"""The ledger is tamper-evident (a SHA-256 chain over the budget and every entry), says
"permission denied" for permission problems, and reads a read-only file without leaving files."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import warnings

import pytest

from matrixdp import LaplaceMechanism
from matrixdp.accounting import Ledger
from matrixdp.accounting.ledger import LedgerWarning
from matrixdp.errors import BudgetExceededError, LedgerError

STEP = LaplaceMechanism(epsilon=0.1, sensitivity=1.0).privacy


def make(tmp_path, n=4, epsilon=1.0):
    path = tmp_path / "t.ledger"
    led = Ledger.create(path, dataset="t", epsilon=epsilon)
    for i in range(n):
        led.spend(STEP, label=f"s{i + 1}")
    led.close()
    return path


def edit(path, *sql):
    con = sqlite3.connect(path)
    for stmt in sql:
        con.execute(stmt)
    con.commit()
    con.close()


def refused(path, match):
    """Both opening and spending through an object opened before the edit are refused."""
    with pytest.raises(LedgerError, match=match):
        Ledger.open(path)


def test_an_untouched_ledger_verifies(tmp_path):
    path = make(tmp_path)
    led = Ledger.open(path)
    assert [h["label"] for h in led.history()] == ["s1", "s2", "s3", "s4"]
    assert led.spent().epsilon == pytest.approx(0.4)
    led.close()


@pytest.mark.parametrize("sql, match", [
    (["UPDATE spends SET epsilon = 0 WHERE id = 2"], "first bad row is entry 2 \\('s2'\\)"),
    (["UPDATE spends SET epsilon = 0"], "first bad row is entry 1 \\('s1'\\)"),
    (["UPDATE spends SET label = 'x' WHERE id = 3"], "first bad row is entry 3"),
    (["DELETE FROM spends WHERE id = 2"], "first bad row is entry 2 \\(missing"),
    (["DELETE FROM spends"], "its entries were removed"),
    (["DELETE FROM spends WHERE id = 4"], "entries after 3 were removed.*first bad row is 4"),
    # reordering: swap two entries' contents (ids stay 1..4)
    (["UPDATE spends SET id = 100 WHERE id = 1", "UPDATE spends SET id = 1 WHERE id = 2",
      "UPDATE spends SET id = 2 WHERE id = 100"], "first bad row is entry 1 \\('s2'\\)"),
    (["UPDATE meta SET value = '5.0' WHERE key = 'epsilon'"], "budget .*meta.* was edited"),
    (["UPDATE meta SET value = '0.001' WHERE key = 'delta'"], "budget .*meta.* was edited"),
    (["UPDATE meta SET value = 'other' WHERE key = 'dataset_hash'"], "meta.* was edited"),
])
def test_edits_are_detected_on_open(tmp_path, sql, match):
    path = make(tmp_path)
    edit(path, *sql)
    with pytest.raises(LedgerError, match="does not verify: " if "meta" not in match else
                       "does not verify"):
        Ledger.open(path)
    with pytest.raises(LedgerError, match=match):
        Ledger.open(path)
    with pytest.raises(LedgerError, match=match):
        Ledger.open(path, readonly=True)


def test_an_empty_ledger_with_a_raised_budget_is_detected(tmp_path):
    path = make(tmp_path, n=0)
    edit(path, "UPDATE meta SET value = '100.0' WHERE key = 'epsilon'")
    refused(path, "budget .*was edited")


def test_edits_made_while_open_are_detected_before_the_next_spend(tmp_path):
    path = make(tmp_path, n=9)  # 0.9 of 1.0 spent
    led = Ledger.open(path)
    edit(path, "UPDATE spends SET epsilon = 0")
    with pytest.raises(LedgerError, match="first bad row is entry 1"):
        led.spend(STEP, label="after the edit")
    with pytest.raises(LedgerError, match="does not verify"):
        led.history()
    led.close()


def test_status_changes_are_not_chained_because_every_status_counts(tmp_path):
    path = make(tmp_path, n=10)  # full
    edit(path, "UPDATE spends SET status = 'aborted'")
    led = Ledger.open(path)
    assert led.spent().epsilon == pytest.approx(1.0)
    with pytest.raises(BudgetExceededError):
        led.spend(STEP)
    led.close()


def test_a_schema_1_ledger_is_adopted_once_with_a_warning(tmp_path):
    """Version 1 had no chain: its entries are adopted as they are, and from then on verified."""
    path = make(tmp_path, n=3)
    edit(path, "ALTER TABLE spends DROP COLUMN chain",
         "DELETE FROM meta WHERE key IN ('genesis', 'head', 'dataset_name')",
         "UPDATE meta SET value = '1' WHERE key = 'schema'", "PRAGMA user_version = 1")
    with pytest.raises(LedgerError, match="schema-1 ledger.*write access"):
        Ledger.open(path, readonly=True)
    with pytest.warns(LedgerWarning, match="adopted as it is \\(3 entries\\)"):
        led = Ledger.open(path)
    assert led.spent().epsilon == pytest.approx(0.3)
    led.spend(STEP, label="s4")
    led.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        led = Ledger.open(path)  # adopted once: no warning the second time
    assert len(led.history()) == 4
    led.close()
    edit(path, "UPDATE spends SET epsilon = 0 WHERE id = 1")
    refused(path, "first bad row is entry 1")


def test_zero_budget_is_refused(tmp_path):
    from matrixdp.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="epsilon"):
        Ledger.create(tmp_path / "z.ledger", dataset="t", epsilon=0.0)
    assert not (tmp_path / "z.ledger").exists()


def test_read_only_handle_refuses_to_spend(tmp_path):
    path = make(tmp_path, n=1)
    led = Ledger.open(path, readonly=True)
    assert led.spent().epsilon == pytest.approx(0.1)
    with pytest.raises(LedgerError, match="read-only"):
        led.spend(STEP)
    led.close()
    assert len(Ledger.open(path).history()) == 1


# ------------------------------------------------- permissions, enforced as for any user
# Root bypasses file permissions through its capabilities (CAP_DAC_OVERRIDE), so a chmod test
# run as root proves nothing. The subprocess below runs with those capabilities removed from
# its bounding set: still uid 0 (it can import the interpreter under /root) but the kernel now
# checks the mode bits of files it owns, as for any user.
_DROP = "-dac_override,-dac_read_search,-fowner"
as_nobody = pytest.mark.skipif(shutil.which("setpriv") is None or os.geteuid() != 0,
                               reason="needs setpriv and root (to drop the capabilities that "
                                      "bypass permissions)")


def run_as_nobody(code: str, *paths):
    """Run ``code`` with this Python, without the capabilities that bypass permissions."""
    src = os.path.dirname(os.path.dirname(__import__("matrixdp").__file__))
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": src, "HOME": "/tmp",
           "OPENBLAS_NUM_THREADS": "1"}
    cmd = ["setpriv", f"--bounding-set={_DROP}", sys.executable, "-c", textwrap.dedent(code),
           *map(str, paths)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def shared_dir(tmp_path):
    d = tmp_path / "shared"
    d.mkdir()
    return d


@as_nobody
def test_read_only_file_says_permission_denied_and_show_leaves_no_files(shared_dir):
    path = make(shared_dir, n=2)
    os.chmod(path, 0o444)  # readable, not writable (for a process without CAP_DAC_OVERRIDE)
    code = """
        import sys
        from matrixdp import LaplaceMechanism
        from matrixdp.accounting import Ledger
        from matrixdp.errors import LedgerError
        import os
        assert not os.access(sys.argv[1], os.W_OK)  # permissions are enforced here
        try:
            Ledger.open(sys.argv[1])
        except LedgerError as exc:
            print("OPEN:", exc)
        led = Ledger.open(sys.argv[1], readonly=True)
        print("SPENT:", round(led.spent().epsilon, 6), len(led.history()))
        led.close()
        from matrixdp.cli import main
        sys.exit(main(["budget", "show", sys.argv[1]]))
    """
    res = run_as_nobody(code, path)
    assert res.returncode == 0, res.stderr
    assert f"OPEN: cannot write the ledger at {path}: permission denied" in res.stdout
    assert "corrupt" not in res.stdout + res.stderr and "backup" not in res.stdout + res.stderr
    assert "SPENT: 0.2 2" in res.stdout
    assert "remaining" in res.stdout
    assert sorted(p.name for p in shared_dir.iterdir()) == ["t.ledger"]  # no -wal/-shm left


@as_nobody
def test_read_only_folder(shared_dir):
    path = make(shared_dir, n=2)
    os.chmod(shared_dir, 0o555)  # the file is writable, its folder is not: no -wal can be made
    code = """
        import sys
        from matrixdp.cli import main
        code = main(["budget", "show", sys.argv[1]])
        print("SHOW", code)
        sys.exit(main(["budget", "init", sys.argv[2], "--epsilon", "1", "--dataset", "d"]))
    """
    res = run_as_nobody(code, path, shared_dir / "new.ledger")
    assert "SHOW 0" in res.stdout, res.stderr
    assert res.returncode == 1
    assert f"cannot write the ledger at {shared_dir / 'new.ledger'}: permission denied" \
        in res.stderr
    assert "corrupt" not in res.stderr
    assert sorted(p.name for p in shared_dir.iterdir()) == ["t.ledger"]


@as_nobody
def test_spending_through_the_cli_on_a_read_only_ledger(shared_dir):
    path = make(shared_dir, n=1)
    os.chmod(path, 0o444)
    data = shared_dir / "t.csv"
    data.write_text("a,b\n" + "".join(f"{i % 7},{i % 3}\n" for i in range(50)))
    code = """
        import sys
        from matrixdp.cli import main
        sys.exit(main(["release", sys.argv[1], "--query", "mean", "--bounds", "a=0:10", "--bounds", "b=0:10",
                       "--epsilon", "0.1", "--ledger", sys.argv[2], "--dataset", "t",
                       "--out", sys.argv[3]]))
    """
    res = run_as_nobody(code, data, path, shared_dir / "out.json")
    assert res.returncode == 1
    assert f"cannot write the ledger at {path}: permission denied" in res.stderr
    assert "corrupt" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert not (shared_dir / "out.json").exists()


def test_a_restored_backup_is_detected(tmp_path):
    path = make(tmp_path, n=3)
    backup = tmp_path / "backup.ledger"
    shutil.copy(path, backup)
    led = Ledger.open(path)
    led.spend(STEP, label="s4")
    led.spend(STEP, label="s5")
    led.close()
    shutil.copy(backup, path)  # the curator restores yesterday's copy: 2 spends forgotten
    with pytest.raises(LedgerError, match="holds 3 entries but this user saw 5.*restored backup"):
        Ledger.open(path)
    with pytest.raises(LedgerError, match="restored backup"):
        Ledger.open(path, readonly=True)


def test_a_spend_committed_while_another_process_opens_is_not_a_restored_backup(tmp_path,
                                                                              monkeypatch):
    """Racing processes: another connection commits a spend (and records it as seen) after this
    open took its read snapshot. The record must be read before the snapshot, or the open sees
    "1 entry recorded, 0 in the file" and refuses a healthy ledger as a restored backup (this
    failed on CI under load before the fix)."""
    path = make(tmp_path, n=0)
    other = Ledger.open(path)
    original = Ledger._catch_up
    raced = []

    def catch_up_then_race(self, con):
        head = original(self, con)
        if not raced and self is not other:  # inside the new handle's read snapshot
            raced.append(True)
            other.spend(STEP, label="racer")
        return head

    monkeypatch.setattr(Ledger, "_catch_up", catch_up_then_race)
    led = Ledger.open(path)  # refused as "a restored backup" before the fix
    assert raced
    monkeypatch.setattr(Ledger, "_catch_up", original)
    assert len(led.history()) == 1
    led.close()
    other.close()


def test_the_record_of_what_was_seen_lives_outside_the_ledger(tmp_path, monkeypatch):
    state = tmp_path / "state"
    monkeypatch.setenv("MATRIXDP_STATE_DIR", str(state))
    path = make(tmp_path, n=2)
    files = list((state / "ledgers").iterdir())
    assert len(files) == 1 and b"t.ledger" not in files[0].read_bytes()
    Ledger.open(path, readonly=True).close()
