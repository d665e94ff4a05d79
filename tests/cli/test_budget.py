"""``matrixdp budget init|show|history``."""

from __future__ import annotations

import re

from matrixdp import GaussianMechanism, LaplaceMechanism
from matrixdp.accounting import Ledger
from matrixdp.cli import main


def test_budget_init_show_history(tmp_path, capsys):
    path = tmp_path / "adult.db"
    assert main(["budget", "init", str(path), "--epsilon", "2", "--delta", "1e-6",
                 "--dataset", "adult v1"]) == 0
    assert "created" in capsys.readouterr().out
    led = Ledger.open(path, dataset="adult v1")
    GaussianMechanism(epsilon=0.5, delta=1e-8, sensitivity=1.0).release(0.0, rng=0, ledger=led,
                                                                         label="mean age")
    LaplaceMechanism(epsilon=0.25, sensitivity=1.0).release(3.0, rng=1, ledger=led, label="count")
    led.close()
    assert main(["budget", "show", str(path)]) == 0
    out = capsys.readouterr().out
    spent = float(re.search(r"spent:\s+epsilon=([0-9.]+)", out).group(1))
    assert 0.5 < spent <= 0.75 + 1e-9 and "over 2 entries" in out
    assert "2 released, 0 reserved" in out
    assert main(["budget", "history", str(path)]) == 0
    out = capsys.readouterr().out
    assert "mean age" in out and "count" in out and "released" in out


def test_budget_errors_are_one_line(tmp_path, capsys):
    path = tmp_path / "x.db"
    path.write_bytes(b"not a ledger at all" * 20)
    assert main(["budget", "show", str(path)]) == 1
    err = capsys.readouterr().err
    assert "not a matrixdp ledger" in err and len(err.strip().splitlines()) == 1
    assert main(["budget", "init", str(path), "--epsilon", "1"]) == 1
    assert "already exists" in capsys.readouterr().err
