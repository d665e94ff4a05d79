"""UCI Liver Disorders (BUPA): five blood tests and average daily alcohol consumption.

Used by the MVG paper's Experiment I (regression of ``drinks`` on the blood tests).
"""

from __future__ import annotations

import io
import os

import numpy as np

from .._validation import check_choice
from ._base import (Dataset, DatasetSource, data_home as _data_home, describe, make_frame,
                    read_verified)
from ._checksums import SHA256
from ._fetch import download_file

__all__ = ["load_liver", "LIVER_SOURCE", "LIVER_FEATURES"]

LIVER_SOURCE = DatasetSource(
    name="UCI Liver Disorders (BUPA)",
    folder="liver_disorders",
    page="https://archive.ics.uci.edu/dataset/60/liver+disorders",
    url="https://archive.ics.uci.edu/ml/machine-learning-databases/liver-disorders/bupa.data",
    license="CC BY 4.0",
    citation=("Liver Disorders (1990). UCI Machine Learning Repository. "
              "https://doi.org/10.24432/C54G67; McDermott & Forsyth (2016), Pattern "
              "Recognition Letters (on the meaning of 'selector')."),
)

_FILE = "liver_disorders/bupa.data"
LIVER_FEATURES = ["mcv", "alkphos", "sgpt", "sgot", "gammagt"]
_COLUMNS = LIVER_FEATURES + ["drinks", "selector"]
_SCALINGS = (None, "global", "per_feature")


def load_liver(*, data_home: str | os.PathLike | None = None, download: bool = False,
               scaling: str | None = None, progress: bool = True) -> Dataset:
    """Load the BUPA Liver Disorders data: 345 patients, 5 blood tests, ``drinks`` as target.

    Parameters
    ----------
    data_home : path-like, optional
        See :func:`matrixdp.datasets.data_home`.
    download : bool, default False
        Fetch ``bupa.data`` from UCI when it is missing (checksum verified).
    scaling : {None, "global", "per_feature"}, default None
        None returns raw values. The MVG paper's preprocessing ("all features and the
        teacher values are center-adjusted and are in [-1, 1]") is:

        * ``"global"`` (the spec's decision, mvg.md §8.1): centre each of the six
          columns (five features and ``drinks``) by its mean, then divide *all* of
          them by the single largest absolute centred entry, so every entry lies in
          [-1, 1]. This reproduces Table 3's non-private RMSE scale (≈ 1.2e-2).
        * ``"per_feature"``: centre each column, then divide each by its own largest
          absolute centred entry.

        Both use the data's own means and maxima, which is a privacy leak in a real DP
        pipeline (the released noise scale then depends on private data; spec mvg.md
        §10 A13). They exist to reproduce the paper; with private data, scale by
        public bounds instead. The constants are in ``preprocessing``.
    progress : bool, default True
        Show a progress bar while downloading.

    Returns
    -------
    Dataset
        ``data`` (345, 5) float: mcv, alkphos, sgpt (= ALT), sgot (= AST), gammagt;
        ``target`` (345,) float ``drinks`` (half-pint equivalents per day, 0–20);
        ``extras["selector"]`` the UCI train/test flag (1/2; not a diagnosis).

    References
    ----------
    .. [1] McDermott, J., Forsyth, R. S. (2016). Diagnosing a disorder in a
       classification benchmark. Pattern Recognition Letters 73, 41–43.
    .. [2] Chanyaswad, T., Dytso, A., Poor, H. V., Mittal, P. (2018). MVG mechanism:
       differential privacy under matrix-valued query. CCS (Experiment I).
    """
    check_choice(scaling, _SCALINGS, "scaling")
    home = _data_home(data_home)
    if download and not (home / _FILE).is_file():
        download_file(LIVER_SOURCE.url, home / _FILE, SHA256[_FILE], progress=progress)
    raw = np.loadtxt(io.BytesIO(read_verified(home, _FILE, LIVER_SOURCE, "load_liver")),
                     delimiter=",", dtype=float)
    features = raw[:, :5].copy()
    drinks = raw[:, 5].copy()
    selector = raw[:, 6].astype(int)
    preprocessing: dict = {"scaling": scaling}
    if scaling is not None:
        table = np.column_stack([features, drinks])
        centre = table.mean(axis=0)
        centred = table - centre
        if scaling == "global":
            scale = np.full(table.shape[1], np.abs(centred).max())
        else:
            scale = np.abs(centred).max(axis=0)
        table = centred / scale
        features, drinks = table[:, :5], table[:, 5]
        preprocessing.update(centre=dict(zip(_COLUMNS[:6], centre.tolist())),
                             scale=dict(zip(_COLUMNS[:6], scale.tolist())),
                             data_dependent=True)
    body = ("345 patients x 5 blood tests (mcv, alkphos, sgpt=ALT, sgot=AST, gammagt); target "
            "'drinks' (average daily alcohol, half-pint equivalents). 'selector' is a train/test "
            f"field, not a diagnosis (McDermott & Forsyth 2016). Scaling: {scaling}.")
    return Dataset(
        data=features, target=drinks, feature_names=list(LIVER_FEATURES), target_names=["drinks"],
        frame=make_frame(features, LIVER_FEATURES, drinks, "drinks"),
        description=describe(LIVER_SOURCE, body), name="liver",
        extras={"selector": selector}, preprocessing=preprocessing)
