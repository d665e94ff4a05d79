"""UCI Breast Cancer Wisconsin (Diagnostic): 569 tumours, 30 real features."""

from __future__ import annotations

import io
import os

import numpy as np

from ._base import Dataset, DatasetSource, data_home as _data_home, describe, make_frame, read_verified
from ._checksums import SHA256
from ._fetch import download_file

__all__ = ["load_wdbc", "WDBC_SOURCE", "WDBC_FEATURES"]

WDBC_SOURCE = DatasetSource(
    name="UCI Breast Cancer Wisconsin (Diagnostic)",
    folder="wdbc",
    page="https://archive.ics.uci.edu/dataset/17/breast+cancer+wisconsin+diagnostic",
    url="https://archive.ics.uci.edu/ml/machine-learning-databases/breast-cancer-wisconsin/wdbc.data",
    license="CC BY 4.0",
    citation=("Wolberg, W., Mangasarian, O., Street, N., Street, W. (1995). Breast Cancer Wisconsin "
              "(Diagnostic). UCI Machine Learning Repository. https://doi.org/10.24432/C5DW2B."),
)

_FILE = "wdbc/wdbc.data"
_BASE = ["radius", "texture", "perimeter", "area", "smoothness", "compactness", "concavity",
         "concave_points", "symmetry", "fractal_dimension"]
WDBC_FEATURES = [f"{b}_{s}" for s in ("mean", "se", "worst") for b in _BASE]


def load_wdbc(*, data_home: str | os.PathLike | None = None, download: bool = False,
              progress: bool = True) -> Dataset:
    """Load WDBC: 569 x 30 features; ``target`` 1 = malignant, 0 = benign.

    Parameters
    ----------
    data_home : path-like, optional
        See :func:`matrixdp.datasets.data_home`.
    download : bool, default False
        Fetch ``wdbc.data`` from UCI when missing (checksum verified).
    progress : bool, default True
        Show a progress bar while downloading.

    Returns
    -------
    Dataset
        ``data`` (569, 30) float (mean, standard error and worst of 10 nuclear
        measurements); ``target`` (569,) int with 1 = malignant (212) and 0 = benign
        (357) — note scikit-learn's ``load_breast_cancer`` uses the opposite coding;
        ``extras["id"]`` the patient ids.

    References
    ----------
    .. [1] Street, W. N., Wolberg, W. H., Mangasarian, O. L. (1993). Nuclear feature
       extraction for breast tumor diagnosis. IS&T/SPIE Electronic Imaging.
    """
    home = _data_home(data_home)
    if download and not (home / _FILE).is_file():
        download_file(WDBC_SOURCE.url, home / _FILE, SHA256[_FILE], progress=progress)
    payload = read_verified(home, _FILE, WDBC_SOURCE, "load_wdbc")
    raw = np.loadtxt(io.BytesIO(payload), delimiter=",", dtype=str)
    data = raw[:, 2:].astype(float)
    target = (raw[:, 1] == "M").astype(int)
    body = "569 tumours x 30 features (mean, se, worst of 10 measurements); target 1 = malignant."
    return Dataset(
        data=data, target=target, feature_names=list(WDBC_FEATURES),
        target_names=["benign", "malignant"],
        frame=make_frame(data, WDBC_FEATURES, target, "malignant"),
        description=describe(WDBC_SOURCE, body), name="wdbc",
        extras={"id": raw[:, 0].astype(np.int64)}, preprocessing={})
