"""The data home, the :class:`Dataset` result object and checksum-verified file access.

Every loader reads its files through :func:`read_verified`, which hashes the bytes it
returns: a missing file raises :class:`~matrixdp.errors.DatasetError` saying where to put
it and where to get it, and a file whose SHA-256 differs from the recorded one is refused.
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DatasetError
from ._checksums import SHA256

__all__ = ["Dataset", "DatasetSource", "data_home", "read_verified", "require_pandas", "sha256_bytes"]

ENV_VAR = "MATRIXDP_DATA"


def _user_cache_dir() -> Path:
    """The platform's per-user cache directory for matrixdp (no third-party dependency)."""
    if sys.platform.startswith("win"):
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "matrixdp" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "matrixdp"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "matrixdp"


def data_home(data_home: str | os.PathLike | None = None) -> Path:
    """Return the directory that holds matrixdp's dataset files.

    Parameters
    ----------
    data_home : str or path-like, optional
        An explicit directory. When omitted, the ``MATRIXDP_DATA`` environment
        variable is used, else the per-user cache directory (``~/.cache/matrixdp``
        on Linux, honouring ``XDG_CACHE_HOME``; ``~/Library/Caches/matrixdp`` on
        macOS; ``%LOCALAPPDATA%\\matrixdp\\Cache`` on Windows).

    Returns
    -------
    pathlib.Path
        The directory (``~`` expanded). It is not created here; downloads create it.
    """
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    return _user_cache_dir()


@dataclass(frozen=True)
class DatasetSource:
    """Where a dataset comes from: its public page, download URL, licence and citation."""

    name: str
    folder: str
    page: str
    url: str | None
    license: str
    citation: str
    how_to_get: str = ""


@dataclass
class Dataset:
    """A loaded dataset (a scikit-learn style "Bunch" with typed fields).

    Records are in **rows** (``data`` is ``(n_samples, n_features)``), the
    scikit-learn convention; the papers put records in columns.

    Attributes
    ----------
    data : numpy.ndarray
        Features, ``(n_samples, n_features)``; float unless documented otherwise.
    target : numpy.ndarray or None
        One value per row, or None when the dataset has no target.
    feature_names : list of str
        Column names of ``data``.
    target_names : list of str
        For classification, the class names in label order; for regression, the
        name of the target column; empty when there is no target.
    frame : pandas.DataFrame or None
        ``data`` and ``target`` as one DataFrame when pandas is installed.
    description : str
        Provenance, licence, citation and the preprocessing applied.
    name : str
        Short name of the dataset.
    extras : dict
        Per-row side information (e.g. sequence ids, timestamps, record ids).
    preprocessing : dict
        What was done to the raw values, with every constant used (centres,
        scales, bounds), so a result can be mapped back to raw units.
    """

    data: np.ndarray
    target: np.ndarray | None
    feature_names: list[str]
    target_names: list[str]
    frame: Any = None
    description: str = ""
    name: str = ""
    extras: dict[str, Any] = field(default_factory=dict)
    preprocessing: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        target = None if self.target is None else self.target.shape
        return (f"Dataset(name={self.name!r}, data={self.data.shape}, target={target}, "
                f"features={len(self.feature_names)})")


def pandas_or_none():
    """Return the pandas module when installed, else None (pandas is an optional extra)."""
    try:
        import pandas
    except ImportError:  # pragma: no cover - exercised only without the extra
        return None
    return pandas


def require_pandas(what: str):
    """Import pandas or raise an ImportError that names the extra to install."""
    pandas = pandas_or_none()
    if pandas is None:  # pragma: no cover - exercised only without the extra
        raise ImportError(f"{what} needs pandas; install it with `pip install matrixdp[data]`")
    return pandas


def make_frame(data: np.ndarray, feature_names: list[str], target: np.ndarray | None,
               target_column: str | None):
    """Build the optional DataFrame view of a dataset (None when pandas is absent)."""
    pandas = pandas_or_none()
    if pandas is None:  # pragma: no cover
        return None
    frame = pandas.DataFrame(data, columns=list(feature_names))
    if target is not None and target_column is not None:
        frame[target_column] = target
    return frame


def sha256_bytes(payload: bytes) -> str:
    """Hex SHA-256 of ``payload``."""
    return hashlib.sha256(payload).hexdigest()


def missing_file_error(source: DatasetSource, home: Path, relpath: str, loader: str) -> DatasetError:
    """The error raised when a dataset file is absent: where to put it and how to get it."""
    target = home / relpath
    lines = [
        f"{source.name}: file {relpath!r} not found in the data home {home}.",
        f"Put it at {target} (data home = the data_home argument, else ${ENV_VAR}, "
        f"else {_user_cache_dir()}).",
    ]
    if source.url:
        lines.append(f"To fetch it from the public source, call {loader}(download=True) "
                     f"(downloads {source.url}).")
    if source.how_to_get:
        lines.append(source.how_to_get)
    lines.append(f"Source: {source.page} (licence: {source.license}).")
    return DatasetError(" ".join(lines))


def checksum_error(relpath: str, path: Path, expected: str, actual: str) -> DatasetError:
    """The error raised when a file's bytes are not the recorded ones."""
    return DatasetError(
        f"{path}: SHA-256 mismatch for {relpath!r} (expected {expected}, got {actual}); "
        "the file is corrupted or is a different version, and is refused. Delete it, then put "
        "the original file there or re-run with download=True.")


def expected_sha256(relpath: str) -> str:
    """The recorded SHA-256 of a data-home-relative path."""
    return SHA256[relpath]


def read_verified(home: Path, relpath: str, source: DatasetSource, loader: str,
                  expected: str | None = None) -> bytes:
    """Read a data file and check it against its recorded SHA-256.

    Parameters
    ----------
    home : Path
        The data home.
    relpath : str
        Path of the file relative to ``home`` (e.g. ``"liver_disorders/bupa.data"``).
    source : DatasetSource
        Provenance used in the error messages.
    loader : str
        Name of the public loader, for the "call ...(download=True)" hint.
    expected : str, optional
        Expected hex digest; default the recorded one for ``relpath``.

    Raises
    ------
    DatasetError
        When the file is missing or its checksum differs.
    """
    path = home / relpath
    if not path.is_file():
        raise missing_file_error(source, home, relpath, loader)
    payload = path.read_bytes()
    want = expected if expected is not None else expected_sha256(relpath)
    got = sha256_bytes(payload)
    if got != want:
        raise checksum_error(relpath, path, want, got)
    return payload


def describe(source: DatasetSource, body: str) -> str:
    """Compose a dataset description: body text, then provenance, licence and citation."""
    return (f"{source.name}\n\n{body.strip()}\n\nSource: {source.page}\nLicence: {source.license}\n"
            f"Citation: {source.citation}\n")
