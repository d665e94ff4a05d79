"""Opt-in downloads from a dataset's public source, with a progress bar and a checksum check.

Nothing here runs unless a loader is called with ``download=True``. A download is
streamed to a ``.part`` file next to its destination, hashed while it streams, and
renamed into place only when its SHA-256 is the recorded one; otherwise it is deleted
and :class:`~matrixdp.errors.DatasetError` is raised. Tests replace :data:`urlopen`
(or use ``file://`` URLs) and never touch the network.
"""

from __future__ import annotations

import hashlib
import os
import urllib.request
import zipfile
from pathlib import Path

from .._progress import Progress
from ..errors import DatasetError

__all__ = ["download_file", "download_to_temp", "extract_members", "urlopen"]

#: The opener used for every download (module attribute so tests can replace it).
urlopen = urllib.request.urlopen

_CHUNK = 1 << 16
_TIMEOUT_SECONDS = 60


def _stream(url: str, dest: Path, *, progress: bool, desc: str) -> str:
    """Stream ``url`` into ``dest`` and return the hex SHA-256 of what was written."""
    digest = hashlib.sha256()
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        response = urlopen(url, timeout=_TIMEOUT_SECONDS)
    except (OSError, ValueError) as exc:
        raise DatasetError(f"could not download {url}: {exc}") from exc
    with response:
        length = response.headers.get("Content-Length") if hasattr(response, "headers") else None
        total = int(length) if length and str(length).isdigit() else None
        bar = Progress(None, total=total, desc=desc, enabled=progress)
        try:
            with open(dest, "wb") as out:
                while True:
                    chunk = response.read(_CHUNK)
                    if not chunk:
                        break
                    out.write(chunk)
                    digest.update(chunk)
                    bar.update(len(chunk))
        except OSError as exc:
            dest.unlink(missing_ok=True)
            raise DatasetError(f"download of {url} failed: {exc}") from exc
        finally:
            bar.close()
    return digest.hexdigest()


def download_file(url: str, dest: Path, sha256: str | None, *, progress: bool = True) -> Path:
    """Download ``url`` to ``dest`` and verify its SHA-256 before moving it into place.

    Parameters
    ----------
    url : str
        Public source URL (``https://`` or, in tests, ``file://``).
    dest : Path
        Final location; written atomically (``dest.part`` then rename).
    sha256 : str or None
        Expected hex digest. None only for sources without a recorded checksum
        (the caller must then check the content itself).
    progress : bool
        Draw a progress bar on stderr.

    Raises
    ------
    DatasetError
        When the download fails or its checksum differs (the partial file is deleted).
    """
    part = dest.with_name(dest.name + ".part")
    got = _stream(url, part, progress=progress, desc=f"downloading {dest.name}")
    if sha256 is not None and got != sha256:
        part.unlink(missing_ok=True)
        raise DatasetError(
            f"downloaded {url} but its SHA-256 is {got}, not the recorded {sha256}; "
            "the file was refused and deleted (the source may have changed or the "
            "transfer was corrupted).")
    os.replace(part, dest)
    return dest


def download_to_temp(url: str, folder: Path, name: str, *, progress: bool = True) -> Path:
    """Download ``url`` to ``folder/name.part`` without a checksum (for archives whose
    members are verified one by one after extraction); the caller deletes it."""
    part = folder / (name + ".part")
    _stream(url, part, progress=progress, desc=f"downloading {name}")
    return part


def extract_members(archive: Path, wanted: dict[str, str], home: Path,
                    expected: dict[str, str | None]) -> None:
    """Extract members of a zip archive by path suffix and verify each one.

    Parameters
    ----------
    archive : Path
        The downloaded zip file.
    wanted : dict
        Maps a data-home-relative destination to the member-path suffix that
        identifies it inside the archive (archives nest folders differently).
    home : Path
        The data home.
    expected : dict
        Expected SHA-256 per destination (None: not checked here).

    Raises
    ------
    DatasetError
        When the archive is unreadable, a member is missing or a checksum differs
        (nothing unverified is left in the data home).
    """
    try:
        zf = zipfile.ZipFile(archive)
    except zipfile.BadZipFile as exc:
        raise DatasetError(f"{archive}: not a readable zip archive ({exc})") from exc
    with zf:
        names = [n for n in zf.namelist() if not n.endswith("/") and "__MACOSX" not in n]
        for relpath, suffix in wanted.items():
            matches = [n for n in names if n == suffix or n.endswith("/" + suffix)]
            if not matches:
                raise DatasetError(f"{archive}: no member ending in {suffix!r}")
            payload = zf.read(sorted(matches, key=len)[0])
            want = expected.get(relpath)
            if want is not None:
                got = hashlib.sha256(payload).hexdigest()
                if got != want:
                    raise DatasetError(
                        f"{archive}: member {suffix!r} has SHA-256 {got}, not the recorded "
                        f"{want}; refused")
            target = home / relpath
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(target.name + ".part")
            tmp.write_bytes(payload)
            os.replace(tmp, target)
