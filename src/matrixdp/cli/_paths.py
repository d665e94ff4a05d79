"""Input and output paths of the command line: every error names the option it is about.

An input must be an existing regular file (a directory says so); an output must not be an
input, must not overwrite an existing file without ``--force``, and its folder must exist.
Outputs are written to a temporary file beside the target and renamed into place, so an
interrupted run never leaves a half-written file under the requested name.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..errors import InvalidParameterError

__all__ = ["check_input_file", "check_output_path", "atomic_output", "check_disk_space", "COMPLETED"]

#: Outputs completed (renamed into place) by this run of the command line (the Ctrl-C message).
COMPLETED: list = []


def check_input_file(path, option: str = "INPUT") -> Path:
    """Return ``path`` as a Path after checking it is an existing regular file."""
    file = Path(path)
    if file.is_dir():
        raise InvalidParameterError(option, f"{path} is a directory, not a file")
    if not file.exists():
        raise InvalidParameterError(option, f"file not found: {path}")
    if not file.is_file():
        raise InvalidParameterError(option, f"{path} is not a regular file")
    return file


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:  # pragma: no cover - permission problems: fall back to the resolved names
        return a.resolve() == b.resolve()


def check_output_path(path, *, force: bool = False, inputs=(), option: str = "--out") -> Path:
    """Check that ``path`` may be written.

    Parameters
    ----------
    path : str or Path
        The requested output file.
    force : bool
        Allow replacing an existing file (never an input file, never a directory).
    inputs : iterable of paths
        Files the command reads; the output may not be one of them.
    option : str
        The option's name, used in every message.
    """
    out = Path(path)
    if str(path).strip() == "":
        raise InvalidParameterError(option, "must be a file name")
    for source in inputs:
        source = Path(source)
        if out.resolve() == source.resolve() or _same_file(out, source):
            raise InvalidParameterError(
                option, f"{path} is the input file {source}; choose another output file")
    if out.is_dir():
        raise InvalidParameterError(option, f"{path} is a directory; give a file name")
    parent = out.resolve().parent
    if not parent.is_dir():
        raise InvalidParameterError(option, f"the folder {out.parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise InvalidParameterError(option, f"the folder {out.parent} is not writable")
    if out.exists() and not force:
        raise InvalidParameterError(
            option, f"{path} already exists; pass --force to replace it")
    return out


@contextlib.contextmanager
def atomic_output(path: Path, mode: str = "w", **kwargs):
    """Open ``path.part`` for writing and rename it onto ``path`` on success (delete it on error)."""
    path = Path(path)
    part = path.with_name(path.name + ".part")
    try:
        with open(part, mode, **kwargs) as fh:
            yield fh
        os.replace(part, path)
        COMPLETED.append(path)
    except BaseException:
        part.unlink(missing_ok=True)
        raise


def interrupted_outputs(command: str = "") -> str:
    """What an interrupted run left: the outputs it completed (partial ``.part`` files are
    removed by :func:`atomic_output`)."""
    if command == "reproduce":  # experiment scripts write their results folders themselves
        return "the experiment's results files written so far may be incomplete"
    if not COMPLETED:
        return "no output was written (partial .part files removed)"
    return ("only these outputs were completed before the interrupt: "
            + ", ".join(str(p) for p in COMPLETED) + " (partial .part files removed)")


def check_disk_space(path, needed_bytes: float, *, option: str = "--out", advice: str = "") -> None:
    """Refuse (one line naming ``option``) when the folder of ``path`` has less free space than
    ``needed_bytes`` (an estimate from public quantities), before anything is written."""
    import shutil

    from ._rows import human_bytes

    folder = Path(path).resolve().parent
    try:
        free = shutil.disk_usage(folder).free
    except OSError:  # pragma: no cover - no way to know: let the write itself fail
        return
    if needed_bytes > free:
        raise InvalidParameterError(
            option, f"the output would take about {human_bytes(needed_bytes)} but {folder} has "
                    f"{human_bytes(free)} free" + (f"; {advice}" if advice else ""))
