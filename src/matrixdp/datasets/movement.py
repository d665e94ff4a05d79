"""UCI Indoor User Movement Prediction from RSS data ("MovementAAL").

314 sequences of radio signal strength (RSS) from 4 anchors, 13,197 time steps in all.
Used by the MVG paper's Experiment II (first principal component of the 4x4 covariance).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np

from ..errors import DatasetError, InvalidParameterError
from ._base import (Dataset, DatasetSource, checksum_error, data_home as _data_home, describe,
                    make_frame, missing_file_error, read_verified, sha256_bytes)
from ._checksums import MOVEMENT_AAL_RSS_COMBINED_SHA256, SHA256
from ._fetch import download_to_temp, extract_members

__all__ = ["load_movement_aal", "MOVEMENT_AAL_SOURCE", "MOVEMENT_FEATURES"]

MOVEMENT_AAL_SOURCE = DatasetSource(
    name="UCI Indoor User Movement Prediction from RSS data (MovementAAL)",
    folder="movement_aal",
    page="https://archive.ics.uci.edu/dataset/348/indoor+user+movement+prediction+from+rss+data",
    url="https://archive.ics.uci.edu/ml/machine-learning-databases/00348/MovementAAL.zip",
    license="CC BY 4.0",
    citation=("Bacciu, D., Barsocchi, P., Chessa, S., Gallicchio, C., Micheli, A. (2014). An "
              "experimental characterization of reservoir computing in ambient assisted living "
              "applications. Neural Computing and Applications 24(6), 1451-1464."),
    how_to_get=("Unzip the UCI archive so that movement_aal/dataset/MovementAAL_RSS_1.csv ... _314.csv, "
                "movement_aal/dataset/MovementAAL_target.csv and movement_aal/groups/*.csv exist."),
)

N_SEQUENCES = 314
MOVEMENT_FEATURES = ["RSS_anchor1", "RSS_anchor2", "RSS_anchor3", "RSS_anchor4"]
_RSS = [f"movement_aal/dataset/MovementAAL_RSS_{i}.csv" for i in range(1, N_SEQUENCES + 1)]
_TARGET = "movement_aal/dataset/MovementAAL_target.csv"
_GROUPS = "movement_aal/groups/MovementAAL_DatasetGroup.csv"
_PATHS = "movement_aal/groups/MovementAAL_Paths.csv"
_REQUIRED = _RSS + [_TARGET, _GROUPS, _PATHS]


def _download(home: Path, progress: bool) -> None:
    folder = home / "movement_aal"
    folder.mkdir(parents=True, exist_ok=True)
    part = download_to_temp(MOVEMENT_AAL_SOURCE.url, folder, "MovementAAL.zip", progress=progress)
    try:
        wanted = {rel: rel[len("movement_aal/"):] for rel in _REQUIRED}
        extract_members(part, wanted, home, {rel: SHA256[rel] for rel in _REQUIRED})
    finally:
        part.unlink(missing_ok=True)


def _read_rss(home: Path) -> list[bytes]:
    """Read the 314 RSS files and verify their combined SHA-256 (one hash, not 314)."""
    payloads = []
    for rel in _RSS:
        path = home / rel
        if not path.is_file():
            raise missing_file_error(MOVEMENT_AAL_SOURCE, home, rel, "load_movement_aal")
        payloads.append(path.read_bytes())
    combined = sha256_bytes(b"".join(payloads))
    if combined != MOVEMENT_AAL_RSS_COMBINED_SHA256:
        # Name the first damaged file rather than only the combined digest.
        for rel, payload in zip(_RSS, payloads):
            got = sha256_bytes(payload)
            if got != SHA256[rel]:
                raise checksum_error(rel, home / rel, SHA256[rel], got)
        raise DatasetError("MovementAAL RSS files fail their combined checksum")  # pragma: no cover
    return payloads


def _two_column_ints(payload: bytes) -> np.ndarray:
    return np.loadtxt(io.BytesIO(payload), delimiter=",", comments="#", dtype=int, ndmin=2)


def load_movement_aal(*, data_home: str | os.PathLike | None = None, download: bool = False,
                      rss_scale: float = 1.0, center: bool = False, progress: bool = True
                      ) -> Dataset:
    """Load MovementAAL as one table of time steps (13,197 x 4 RSS values).

    Parameters
    ----------
    data_home : path-like, optional
        See :func:`matrixdp.datasets.data_home`.
    download : bool, default False
        Fetch and unzip the UCI archive when files are missing (every member verified).
    rss_scale : float, default 1.0
        Multiply the RSS values, which UCI distributes already rescaled to [-1, 1] per
        anchor (a public, documented range), by this constant. The MVG paper states its
        features lie in [-100, 100] (Experiment II): use ``rss_scale=100``. The bound
        ``|x| <= rss_scale`` is public, so sensitivities derived from it are sound.
    center : bool, default False
        Subtract each anchor's mean (the paper's "center-adjusted"). The mean is
        computed from the data: a leak in a real DP pipeline (spec mvg.md §10 A13);
        the constants are recorded in ``preprocessing``.
    progress : bool, default True
        Show a progress bar while downloading.

    Returns
    -------
    Dataset
        ``data`` (13197, 4) float, rows are time steps in sequence order;
        ``target`` (13197,) int, the class label (+1 room change, -1 none) of each
        step's sequence; ``extras``: ``sequence_id``, ``dataset_id``, ``path_id`` per
        step, ``sequence_target`` (314,), and ``sequences``, a list of per-sequence
        arrays (views into ``data``).

    Notes
    -----
    The MVG paper reports 10,176 samples; this release has 13,197 steps (12,589
    unique) and no combination of dataset groups or paths gives 10,176. The loader
    returns the release as it is (see ``shared/datasets/README.md`` §3).

    References
    ----------
    .. [1] Bacciu, D. et al. (2014). An experimental characterization of reservoir
       computing in ambient assisted living applications. Neural Computing and
       Applications 24(6), 1451–1464.
    """
    if not (np.isfinite(rss_scale) and rss_scale > 0):
        raise InvalidParameterError("rss_scale", f"must be a finite positive number, got {rss_scale!r}")
    home = _data_home(data_home)
    if download and not all((home / rel).is_file() for rel in _REQUIRED):
        _download(home, progress)
    payloads = _read_rss(home)
    blocks = [np.loadtxt(io.BytesIO(p), delimiter=",", comments="#", dtype=float, ndmin=2)
              for p in payloads]
    lengths = np.array([b.shape[0] for b in blocks])
    data = np.concatenate(blocks) * float(rss_scale)
    targets = _two_column_ints(read_verified(home, _TARGET, MOVEMENT_AAL_SOURCE, "load_movement_aal"))
    groups = _two_column_ints(read_verified(home, _GROUPS, MOVEMENT_AAL_SOURCE, "load_movement_aal"))
    paths = _two_column_ints(read_verified(home, _PATHS, MOVEMENT_AAL_SOURCE, "load_movement_aal"))
    ids = np.arange(1, N_SEQUENCES + 1)
    for table, name in ((targets, "target"), (groups, "dataset group"), (paths, "paths")):
        if not np.array_equal(table[:, 0], ids):  # pragma: no cover - guarded by the checksums
            raise DatasetError(f"MovementAAL {name} file is not in sequence-ID order")
    preprocessing: dict = {"rss_scale": float(rss_scale), "center": center,
                           "public_bound": float(rss_scale)}
    if center:
        mean = data.mean(axis=0)
        data = data - mean
        preprocessing.update(mean=mean.tolist(), data_dependent=True)
    sequence_id = np.repeat(ids, lengths)
    step_target = np.repeat(targets[:, 1], lengths)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    sequences = [data[offsets[i]:offsets[i + 1]] for i in range(N_SEQUENCES)]
    body = ("314 sequences (13,197 steps) of RSS from 4 anchors, natively rescaled by UCI to [-1, 1]; "
            f"multiplied by {rss_scale}; centred: {center}. Target +1 = room change.")
    return Dataset(
        data=data, target=step_target, feature_names=list(MOVEMENT_FEATURES),
        target_names=["no room change (-1)", "room change (+1)"],
        frame=make_frame(data, MOVEMENT_FEATURES, step_target, "class_label"),
        description=describe(MOVEMENT_AAL_SOURCE, body), name="movement_aal",
        extras={"sequence_id": sequence_id, "dataset_id": np.repeat(groups[:, 1], lengths),
                "path_id": np.repeat(paths[:, 1], lengths), "sequence_target": targets[:, 1],
                "sequences": sequences},
        preprocessing=preprocessing)
