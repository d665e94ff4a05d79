"""The defect hunts' probe runner: one probe program in a fresh process, on the base or this tree.

Each hunt (``defect_hunt_hx.py``, ``_hy``, ``_hz``, ``_hw``) writes its reproductions as short
programs that print one line (JSON) and runs each twice: with the library of a base commit (its
``src/``, and ``experiments/`` where ``matrixdp reproduce`` needs the scripts, taken with
``git archive`` into a temporary folder) and with this checkout's ``src/``. This module holds that
machinery once; the hunts keep their probes and their report layout.

Two output styles are kept because committed results files were written with them:
``style="json"`` (hunts HX, HW) reports a time-out as ``"timeout"`` and a crash as a JSON string
``"crash: <last stderr line>"``; ``style="text"`` (hunts HY, HZ) as ``timeout`` and
``exit <code>: [<last stderr line>]``.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def base_tree(commit: str, into: Path, paths=("src",)) -> Path:
    """Extract ``paths`` of ``commit`` (``git archive``) into ``into``; return ``into / "src"``."""
    data = subprocess.run(["git", "archive", commit, *paths], cwd=ROOT, check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def run_probe(program: str, src: Path, timeout: float, *, header: str = "",
              style: str = "json") -> str:
    """Run ``header + program`` with ``PYTHONPATH=src`` in a fresh process; its last output line.

    ``style="json"`` runs in an empty temporary directory with warnings ignored (hunts HX, HW);
    ``style="text"`` in the current directory, the header doing any such set-up (hunts HY, HZ).
    """
    code = header + textwrap.dedent(program)
    if style == "json":
        env = dict(os.environ, PYTHONPATH=str(src), PYTHONWARNINGS="ignore")
        with tempfile.TemporaryDirectory() as cwd:
            try:
                res = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env,
                                     capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return '"timeout"'
        if res.returncode != 0:
            last = (res.stderr.strip().splitlines() or ["?"])[-1]
            return json.dumps(f"crash: {last[:120]}")
        return res.stdout.strip().splitlines()[-1]
    if style != "text":
        raise ValueError(f"style must be 'json' or 'text', got {style!r}")
    env = dict(os.environ, PYTHONPATH=str(src))
    try:
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return f"exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:] or ''}"
    return lines[-1]


def markdown_row(cells, bar: str = "\\|") -> str:
    """One markdown table row; a ``|`` inside a cell becomes ``bar``."""
    return "| " + " | ".join(str(c).replace("|", bar) for c in cells) + " |"
