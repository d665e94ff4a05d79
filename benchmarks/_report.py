"""Write one named section of BENCHMARKS.md, keeping the other sections (benchmark helper)."""

from __future__ import annotations

import platform
import re
import time
from pathlib import Path

import numpy as np

BENCHMARKS_MD = Path(__file__).resolve().parents[1] / "BENCHMARKS.md"
HEADER = ("# Benchmarks\n\nSpeed and memory measurements, written by the scripts in `benchmarks/`. "
          "Re-run a script to refresh its section.\n")


def machine_line() -> str:
    import os

    return (f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"numpy {np.__version__}; run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.")


def write_section(title: str, body: str, path: Path = BENCHMARKS_MD) -> None:
    """Replace (or append) the ``## title`` section of ``path`` with ``body``."""
    text = path.read_text() if path.exists() else HEADER
    section = f"## {title}\n\n{machine_line()}\n\n{body.strip()}\n"
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text.rstrip("\n") + "\n")
