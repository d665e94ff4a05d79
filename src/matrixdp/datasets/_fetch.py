"""Opt-in downloads from a dataset's public source through `pooch`, with a checksum check.

Nothing here runs unless a loader is called with ``download=True``. :func:`pooch.retrieve`
downloads to a temporary file next to its destination, checks its SHA-256 against the
recorded one (:mod:`._checksums`) and moves it into place only when it matches; otherwise
the download is deleted and :class:`~matrixdp.errors.DatasetError` is raised. A file that is
already in the data home with the recorded checksum is not downloaded again (the data home
is pooch's cache, and works offline). ``file://`` URLs are copied (local mirrors, tests);
tests replace :data:`make_downloader` and never touch the network.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from .._progress import progress_enabled
from ..errors import DatasetError

__all__ = ["download_file", "download_to_temp", "extract_members", "make_downloader"]

_TIMEOUT_SECONDS = 60


class _FileDownloader:
    """A pooch downloader for ``file://`` URLs (local mirrors)."""

    def __call__(self, url: str, output_file, pooch_obj=None, check_only: bool = False):
        source = Path(urllib.request.url2pathname(urllib.parse.urlparse(url).path))
        if check_only:
            return source.is_file()
        with open(source, "rb") as src:
            if isinstance(output_file, (str, Path)):
                with open(output_file, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            else:
                shutil.copyfileobj(src, output_file)
        return None


def _default_downloader(url: str, progress: bool):
    """The pooch downloader for ``url``: HTTP(S)/FTP through pooch, ``file://`` by copying."""
    import pooch

    if urllib.parse.urlparse(url).scheme == "file":
        return _FileDownloader()
    return pooch.HTTPDownloader(progressbar=progress_enabled(progress), timeout=_TIMEOUT_SECONDS)


#: Returns the downloader for ``(url, progress)`` (module attribute so tests can replace it).
make_downloader = _default_downloader


@contextlib.contextmanager
def _quiet_pooch():
    """pooch logs every download at INFO level; matrixdp reports through its own messages."""
    import pooch

    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def _retrieve(url: str, dest: Path, sha256: str | None, progress: bool) -> Path:
    import pooch

    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        with _quiet_pooch():
            path = pooch.retrieve(url, known_hash=None if sha256 is None else f"sha256:{sha256}",
                                  fname=dest.name, path=dest.parent,
                                  downloader=make_downloader(url, progress))
    except ValueError as exc:
        if "hash" in str(exc).lower():
            raise DatasetError(
                f"downloaded {url} but its SHA-256 is not the recorded {sha256}; the file was "
                "refused and deleted (the source may have changed or the transfer was "
                "corrupted).") from None
        raise DatasetError(f"could not download {url}: {exc}") from exc
    except Exception as exc:  # network errors come from requests, urllib, ftplib, OSError ...
        raise DatasetError(f"could not download {url}: {exc}") from exc
    return Path(path)


def download_file(url: str, dest: Path, sha256: str | None, *, progress: bool = True) -> Path:
    """Download ``url`` to ``dest`` through pooch and verify its SHA-256 before it is kept.

    Parameters
    ----------
    url : str
        Public source URL (``https://``, or ``file://`` for a local mirror).
    dest : Path
        Final location (pooch writes a temporary file and moves it into place).
    sha256 : str or None
        Expected hex digest. None only for sources without a recorded checksum
        (the caller must then check the content itself).
    progress : bool
        Draw a progress bar on stderr (only on a terminal).

    Raises
    ------
    DatasetError
        When the download fails or its checksum differs (nothing is kept).
    """
    return _retrieve(url, Path(dest), sha256, progress)


def download_to_temp(url: str, folder: Path, name: str, *, progress: bool = True) -> Path:
    """Download ``url`` to ``folder/name.part`` without a checksum (for archives whose
    members are verified one by one after extraction); the caller deletes it."""
    part = Path(folder) / (name + ".part")
    part.unlink(missing_ok=True)  # never reuse a stale partial file as if it were the download
    return _retrieve(url, part, None, progress)


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
    import hashlib
    import os

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
