"""Progress bars for long work (internal): tqdm, drawn only on a terminal unless forced.

A bar is drawn when the caller enables it **and** its stream (stderr) is a terminal, so
logs, pipes and CI output stay clean. ``MATRIXDP_PROGRESS=always`` forces bars on (e.g.
for a log that should show progress), ``MATRIXDP_PROGRESS=never`` turns them off.
Command-line tools turn them off with ``--quiet``.
"""

from __future__ import annotations

import os
import sys

from tqdm import tqdm

__all__ = ["Progress", "progress_enabled"]

#: Environment variable overriding terminal detection: "always", "never" or "auto".
ENV_VAR = "MATRIXDP_PROGRESS"


def progress_enabled(enabled: bool = True, stream=None) -> bool:
    """Whether a bar should be drawn on ``stream`` (default stderr)."""
    if not enabled:
        return False
    mode = os.environ.get(ENV_VAR, "auto").strip().lower()
    if mode in ("always", "1", "yes", "true"):
        return True
    if mode in ("never", "0", "no", "false"):
        return False
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):  # closed stream
        return False


def Progress(iterable=None, *, total=None, desc: str = "", enabled: bool = True, stream=None):
    """A tqdm bar over ``iterable`` (or a manual one with ``total``), or a silent one.

    Supports iteration, ``update(k)``, ``close()`` and use as a context manager.
    """
    stream = sys.stderr if stream is None else stream
    return tqdm(iterable, total=total, desc=desc or None, file=stream, leave=True,
                disable=not progress_enabled(enabled, stream), dynamic_ncols=True)
