"""Tests of ``matrixdp reproduce``: listing, running a script, and the errors outside a checkout."""

from __future__ import annotations

import pytest

from matrixdp.cli import main
from matrixdp.cli import reproduce


def test_reproduce_list(capsys):
    assert main(["reproduce", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("mvg-exp1", "mvg-exp2", "mvg-exp3"):
        assert name in out


def test_reproduce_runs_a_script(tmp_path, data_home, capsys):
    assert main(["reproduce", "mvg-exp3", "--trials", "2", "--out", str(tmp_path), "--no-progress"]) == 0
    assert (tmp_path / "mvg_exp3_ctg.md").is_file() and (tmp_path / "mvg_exp3_ctg.csv").is_file()
    assert "wrote" in capsys.readouterr().out


def test_reproduce_unknown_name_is_one_line(capsys):
    assert main(["reproduce", "no-such-table"]) == 1
    err = capsys.readouterr().err
    assert "unknown experiment" in err and "mvg-exp1" in err and "Traceback" not in err


def test_reproduce_outside_a_checkout(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(reproduce, "_SOURCE_EXPERIMENTS", tmp_path / "nowhere")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(reproduce.ExperimentsNotFoundError, match="source checkout"):
        reproduce.find_experiments_dir()
    assert main(["reproduce", "mvg-exp1"]) == 1
    assert "source checkout" in capsys.readouterr().err


def test_reproduce_all_runs_every_experiment(tmp_path, monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(reproduce, "run_experiment", lambda name, argv: calls.append((name, argv)) or 0)
    assert main(["reproduce", "all", "--trials", "3"]) == 0
    assert [c[0] for c in calls] == list(reproduce.EXPERIMENTS)
    assert all(c[1] == ["--trials", "3"] for c in calls)
