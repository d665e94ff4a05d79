"""Progress of long command-line jobs, counted in rows (or bytes), for terminals and for logs.

On a terminal a tqdm bar (:mod:`matrixdp._progress`); when stderr is not a terminal (a
redirected log, a batch job) one plain line every few seconds, so a log shows that the job is
alive and how far it got. ``--quiet`` or ``MATRIXDP_PROGRESS=never`` silences both;
``MATRIXDP_PROGRESS_INTERVAL`` sets the seconds between log lines (default 5). Only public
quantities are shown: the requested row count, rows written, bytes of a file read.
"""

from __future__ import annotations

import os
import sys
import time

from .._progress import ENV_VAR, Progress, progress_enabled

__all__ = ["RowProgress", "human_bytes"]


def human_bytes(n: float) -> str:
    """``1.5 GB``-style size (decimal units)."""
    n = float(n)
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000.0
    return f"{n:.1f} TB"  # pragma: no cover


class RowProgress:
    """Advance with :meth:`update` (rows or bytes done); close with :meth:`close` or ``with``.

    Parameters
    ----------
    total : int
        Units expected (rows to write, bytes to read).
    desc : str
        What is being done ("matrixdp synth: sampling").
    quiet : bool
        No output at all.
    unit : {"rows", "bytes"}
    stream : file, optional
        Default stderr.
    interval : float, optional
        Seconds between log lines off a terminal (default ``MATRIXDP_PROGRESS_INTERVAL`` or 5).
    """

    def __init__(self, total: int, desc: str, *, quiet: bool = False, unit: str = "rows",
                 stream=None, interval: float | None = None, clock=time.monotonic):
        self.total = int(total)
        self.desc = desc
        self.unit = unit
        self.done = 0
        self.stream = sys.stderr if stream is None else stream
        self._clock = clock
        mode = os.environ.get(ENV_VAR, "auto").strip().lower()
        silenced = quiet or mode in ("never", "0", "no", "false")
        self._bar = None
        self._log = False
        if not silenced and progress_enabled(True, self.stream):
            self._bar = Progress(total=self.total, desc=desc, stream=self.stream)
            self._bar.unit = unit
            if unit == "bytes":
                self._bar.unit, self._bar.unit_scale, self._bar.unit_divisor = "B", True, 1000
        elif not silenced:
            self._log = True
        if interval is None:
            try:
                interval = float(os.environ.get("MATRIXDP_PROGRESS_INTERVAL", "5"))
            except ValueError:
                interval = 5.0
        self.interval = max(0.0, interval)
        self._last = self._clock()
        self._printed = None

    def _amount(self, n: int) -> str:
        return human_bytes(n) if self.unit == "bytes" else f"{n:,} rows"

    def _line(self) -> str:
        share = 100.0 * self.done / self.total if self.total else 100.0
        done = human_bytes(self.done) if self.unit == "bytes" else f"{self.done:,}"
        return f"{self.desc}: {done} of {self._amount(self.total)} ({share:.1f}%)"

    def update(self, n: int) -> None:
        self.done += int(n)
        if self._bar is not None:
            self._bar.update(int(n))
        elif self._log:
            now = self._clock()
            if now - self._last >= self.interval:
                self._last = now
                self._printed = self.done
                print(self._line(), file=self.stream, flush=True)

    def close(self) -> None:
        # a log that showed progress also shows the end (short jobs print nothing at all)
        if self._log and self._printed is not None and self._printed != self.done:
            self._printed = self.done
            print(self._line(), file=self.stream, flush=True)
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> "RowProgress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
