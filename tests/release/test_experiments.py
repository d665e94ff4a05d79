"""Smoke test: the Farokhi experiment scripts run with tiny settings and write their tables."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"


def _run(script, out, data_home, *extra):
    env = dict(os.environ, MATRIXDP_DATA=str(data_home))
    cmd = [sys.executable, str(EXPERIMENTS / script), "--trials", "1", "--out", str(out),
           "--no-plot", "--quiet", *extra]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_toy2d_writes_table(tmp_path, data_home):
    _run("farokhi_toy2d.py", tmp_path, data_home)
    md = (tmp_path / "farokhi_toy2d.md").read_text()
    assert "| 0.0001 | 10 | 200 | 200 |" in md
    assert "NO DP guarantee" in md
    assert (tmp_path / "farokhi_toy2d.csv").read_text().startswith("lam,")


def test_wdbc_writes_table_with_anchors(tmp_path, data_home):
    _run("farokhi_wdbc.py", tmp_path, data_home, "--lams", "1e-2", "1")
    md = (tmp_path / "farokhi_wdbc.md").read_text()
    assert "28.413 m" in md
    assert "| 0.9613 (60 support vectors) |" in md
    csv_lines = (tmp_path / "farokhi_wdbc.csv").read_text().strip().splitlines()
    assert len(csv_lines) == 3


def test_lending_club_writes_table(tmp_path, data_home):
    _run("farokhi_lending_club.py", tmp_path, data_home, "--lams", "1e-2", "1e2")
    md = (tmp_path / "farokhi_lending_club.md").read_text()
    assert "STAND-IN" in md and "int.rate" in md


@pytest.mark.slow
def test_adult_smoke(tmp_path, data_home):
    _run("farokhi_adult.py", tmp_path, data_home, "--lams", "1", "--max-rows", "2000")
    assert "Adult" in (tmp_path / "farokhi_adult.md").read_text()
