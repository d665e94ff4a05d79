"""UCI Swarm Behaviour (not shipped: about 725 MB). Ready for users who download it.

Used by the R1SMG paper's case study II (PCA on the "Flocking" file, 24,016 x 2,400).
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from .._validation import check_choice
from ..errors import DatasetError
from ._base import (Dataset, DatasetSource, data_home as _data_home, describe,
                    missing_file_error, require_pandas)
from ._fetch import download_to_temp, extract_members

__all__ = ["load_swarm", "SWARM_SOURCE"]

SWARM_SOURCE = DatasetSource(
    name="UCI Swarm Behaviour",
    folder="swarm_behaviour",
    page="https://archive.ics.uci.edu/dataset/524/swarm+behaviour",
    url="https://archive.ics.uci.edu/static/public/524/swarm+behaviour.zip",
    license="CC BY 4.0",
    citation=("Abpeikar, S., Kasmarik, K., et al. Swarm Behaviour. UCI Machine Learning Repository "
              "(dataset 524)."),
    how_to_get=("The archive is about 725 MB and is not shipped: download it from the UCI page and "
                "extract Aligned.csv, Flocking.csv and Grouped.csv into swarm_behaviour/. No SHA-256 "
                "is recorded for these files, so the loader checks their structure instead "
                "(24,016 rows, 2,400 features and one label column)."),
)

_FILES = ("Aligned", "Flocking", "Grouped")
N_ROWS, N_FEATURES = 24016, 2400
_SCALINGS = (None, "minmax")


def load_swarm(*, file: str = "Flocking", data_home: str | os.PathLike | None = None,
               download: bool = False, scaling: str | None = None, dtype=np.float64,
               progress: bool = True) -> Dataset:
    """Load one Swarm Behaviour file (24,016 x 2,400 features, binary label). Needs pandas.

    Parameters
    ----------
    file : {"Flocking", "Aligned", "Grouped"}, default "Flocking"
        Which labelling to load; the R1SMG paper's description matches "Flocking".
    data_home : path-like, optional
        See :func:`matrixdp.datasets.data_home`.
    download : bool, default False
        Fetch the UCI archive (~725 MB) and extract the three CSVs. No checksum is
        recorded for them (no copy was available when the checksums were taken), so
        the download is checked by structure only and a warning says so.
    scaling : {None, "minmax"}, default None
        ``"minmax"`` maps every feature to [-1, 1] with the data's own min and max (the
        paper's normalisation; data-dependent, so a leak in a real DP pipeline).
    dtype : numpy dtype, default float64
        Use ``numpy.float32`` to halve memory (~230 MB per file).
    progress : bool, default True
        Show a progress bar while downloading.

    Returns
    -------
    Dataset
        ``data`` (24016, 2400); ``target`` (24016,) int (1 = the behaviour is present).

    Raises
    ------
    DatasetError
        When the file is missing (with instructions) or malformed.
    """
    check_choice(file, _FILES, "file")
    check_choice(scaling, _SCALINGS, "scaling")
    home = _data_home(data_home)
    rel = f"swarm_behaviour/{file}.csv"
    if download and not (home / rel).is_file():
        folder = home / "swarm_behaviour"
        folder.mkdir(parents=True, exist_ok=True)
        part = download_to_temp(SWARM_SOURCE.url, folder, "swarm_behaviour.zip", progress=progress)
        try:
            extract_members(part, {f"swarm_behaviour/{f}.csv": f"{f}.csv" for f in _FILES}, home,
                            {f"swarm_behaviour/{f}.csv": None for f in _FILES})
        finally:
            part.unlink(missing_ok=True)
        warnings.warn("Swarm Behaviour has no recorded SHA-256; the download was checked by "
                      "structure only", UserWarning, stacklevel=2)
    path = home / rel
    if not path.is_file():
        raise missing_file_error(SWARM_SOURCE, home, rel, "load_swarm")
    pandas = require_pandas("load_swarm")
    frame = pandas.read_csv(path, low_memory=False)
    if frame.shape != (N_ROWS, N_FEATURES + 1):
        raise DatasetError(f"{path}: expected {N_ROWS} rows x {N_FEATURES + 1} columns, "
                           f"found {frame.shape[0]} x {frame.shape[1]}; refused")
    data = frame.iloc[:, :N_FEATURES].to_numpy(dtype=dtype)
    target = frame.iloc[:, N_FEATURES].to_numpy().astype(int)
    names = [str(c) for c in frame.columns[:N_FEATURES]]
    preprocessing: dict = {"scaling": scaling}
    if scaling == "minmax":
        low, high = data.min(axis=0), data.max(axis=0)
        span = np.where(high > low, high - low, 1.0)
        data = (2.0 * (data - low) / span - 1.0).astype(dtype, copy=False)
        preprocessing.update(data_dependent=True)
    body = f"{file}.csv: {N_ROWS} boid-swarm snapshots x {N_FEATURES} features; binary label."
    return Dataset(
        data=data, target=target, feature_names=names, target_names=[f"not {file}", file],
        frame=None, description=describe(SWARM_SOURCE, body), name=f"swarm_{file.lower()}",
        preprocessing=preprocessing)
