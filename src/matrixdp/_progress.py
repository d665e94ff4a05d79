"""A dependency-free progress bar for long CLI work (internal)."""

from __future__ import annotations

import sys
import time


class Progress:
    """Iterate over ``iterable`` while drawing a one-line bar on ``stream`` (stderr).

    Drawing is skipped when ``enabled`` is False; it is throttled to ten updates
    a second so it never dominates the work.
    """

    def __init__(self, iterable=None, *, total=None, desc: str = "", enabled: bool = True,
                 stream=None, width: int = 30):
        self.iterable = iterable
        self.total = total if total is not None else (len(iterable) if hasattr(iterable, "__len__") else None)
        self.desc = desc
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.n = 0
        self._last = 0.0
        self._start = time.monotonic()

    def __iter__(self):
        for item in self.iterable:
            yield item
            self.update()
        self.close()

    def update(self, k: int = 1) -> None:
        self.n += k
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.1 or (self.total and self.n >= self.total)):
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = now - self._start
        if self.total:
            frac = min(1.0, self.n / self.total)
            bar = "#" * int(frac * self.width)
            text = f"\r{self.desc} [{bar:<{self.width}}] {self.n}/{self.total} {elapsed:5.1f}s"
        else:
            text = f"\r{self.desc} {self.n} {elapsed:5.1f}s"
        self.stream.write(text)
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
