"""UCI Cardiotocography (CTG): 2,126 fetal cardiotocograms, 21 features, two labellings.

Used by the MVG paper's Experiment III (covariance estimation).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np

from .._validation import check_choice
from ..errors import DatasetError, InvalidParameterError
from ._base import (Dataset, DatasetSource, data_home as _data_home, describe, make_frame,
                    read_verified, sha256_bytes)
from ._checksums import SHA256
from ._fetch import download_to_temp

__all__ = ["load_ctg", "CTG_SOURCE", "CTG_FEATURES", "derive_ctg_csv"]

CTG_SOURCE = DatasetSource(
    name="UCI Cardiotocography",
    folder="ctg",
    page="https://archive.ics.uci.edu/dataset/193/cardiotocography",
    url="https://archive.ics.uci.edu/ml/machine-learning-databases/00193/CTG.xls",
    license="CC BY 4.0",
    citation=("Campos, D., Bernardes, J. (2010). Cardiotocography. UCI Machine Learning "
              "Repository. https://doi.org/10.24432/C51S4N; Ayres de Campos et al. (2000), "
              "SisPorto 2.0, J Matern Fetal Med."),
    how_to_get=("The loader reads ctg/CTG_Data_sheet.csv, a lossless export of the 'Data' sheet "
                "of CTG.xls; download=True fetches CTG.xls and derives it (needs xlrd)."),
)

_CSV = "ctg/CTG_Data_sheet.csv"
_XLS = "ctg/CTG.xls"
CTG_FEATURES = ["LB", "AC", "FM", "UC", "DL", "DS", "DP", "ASTV", "MSTV", "ALTV", "MLTV", "Width",
                "Min", "Max", "Nmax", "Nzeros", "Mode", "Mean", "Median", "Variance", "Tendency"]
_LABELS = ["CLASS", "NSP"]
_NSP_NAMES = ["normal", "suspect", "pathologic"]
_CLASS_NAMES = ["A", "B", "C", "D", "E", "AD", "DE", "LD", "FS", "SUSP"]
_SCALINGS = (None, "minmax")


def derive_ctg_csv(xls_path: str | os.PathLike) -> bytes:
    """Export the 23 modelling columns of CTG.xls's ``Data`` sheet as CSV bytes.

    The export keeps rows where both ``LB`` and ``CLASS`` are present, renames the
    per-second rate columns ``AC.1 … DP.1`` to ``AC … DP``, writes all-integral
    columns as ints and other floats with Python's shortest repr. It reproduces the
    shipped ``CTG_Data_sheet.csv`` byte for byte, so its SHA-256 verifies the xls
    content even though Excel rewrites the xls metadata on every save.
    """
    try:
        import xlrd
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("deriving CTG_Data_sheet.csv needs xlrd; "
                          "install it with `pip install matrixdp[data]`") from exc
    try:
        sheet = xlrd.open_workbook(str(xls_path)).sheet_by_name("Data")
    except Exception as exc:  # xlrd raises its own error types for damaged files
        raise DatasetError(f"{xls_path}: cannot read the 'Data' sheet ({exc})") from exc
    header = [str(cell.value) for cell in sheet.row(1)]
    rate_columns = {"AC", "FM", "UC", "DL", "DS", "DP"}
    index = []
    for name in CTG_FEATURES + _LABELS:
        positions = [i for i, h in enumerate(header) if h == name]
        # The sheet has the raw counts first and the per-second rates second.
        index.append(positions[1] if name in rate_columns else positions[0])
    rows = []
    for r in range(2, sheet.nrows):
        values = sheet.row_values(r)
        if values[index[0]] == "" or values[index[-2]] == "":
            continue
        rows.append([float(values[i]) for i in index])
    integral = [all(row[j].is_integer() for row in rows) for j in range(len(index))]
    lines = [",".join(CTG_FEATURES + _LABELS)]
    for row in rows:
        lines.append(",".join(str(int(v)) if integral[j] else repr(v) for j, v in enumerate(row)))
    return ("\n".join(lines) + "\n").encode()


def _download(home: Path, progress: bool) -> None:
    folder = home / "ctg"
    folder.mkdir(parents=True, exist_ok=True)
    part = download_to_temp(CTG_SOURCE.url, folder, "CTG.xls", progress=progress)
    try:
        payload = derive_ctg_csv(part)
        got = sha256_bytes(payload)
        if got != SHA256[_CSV]:
            raise DatasetError(
                f"CTG.xls from {CTG_SOURCE.url} does not contain the recorded data (derived CSV "
                f"SHA-256 {got}, expected {SHA256[_CSV]}); refused")
        (home / _CSV).write_bytes(payload)
        part.replace(home / _XLS)
    finally:
        part.unlink(missing_ok=True)


def load_ctg(*, data_home: str | os.PathLike | None = None, download: bool = False,
             scaling: str | None = None, center: bool = False, target: str = "NSP",
             progress: bool = True) -> Dataset:
    """Load the Cardiotocography data: 2,126 records x 21 features, labels NSP and CLASS.

    Parameters
    ----------
    data_home : path-like, optional
        See :func:`matrixdp.datasets.data_home`.
    download : bool, default False
        Fetch CTG.xls from UCI when the CSV is missing and derive the CSV
        (verified against the recorded SHA-256 of the derived bytes).
    scaling : {None, "minmax"}, default None
        ``"minmax"`` maps every feature to [0, 1] with the data's own minimum and
        maximum (the MVG paper's "all in [0, 1]", Experiment III; spec mvg.md §8.3).
        The bounds come from the private data, a leak in a real DP pipeline: they are
        kept for reproduction and recorded in ``preprocessing``.
    center : bool, default False
        Subtract each feature's mean after scaling (the spec's decision for
        Experiment III; centring by the private mean is also data-dependent, A13).
    target : {"NSP", "CLASS"}, default "NSP"
        NSP: 1 normal / 2 suspect / 3 pathologic. CLASS: morphologic pattern 1..10.
    progress : bool, default True
        Show a progress bar while downloading.

    Returns
    -------
    Dataset
        ``data`` (2126, 21) float, the per-second rates for AC…DP (not raw counts);
        ``target`` (2126,) int; ``extras`` holds both label columns.

    References
    ----------
    .. [1] Ayres de Campos, D. et al. (2000). SisPorto 2.0: a program for automated
       analysis of cardiotocograms. J Matern Fetal Med 9(5), 311–318.
    """
    check_choice(scaling, _SCALINGS, "scaling")
    if target not in _LABELS:
        raise InvalidParameterError("target", f"must be 'NSP' or 'CLASS', got {target!r}")
    home = _data_home(data_home)
    if download and not (home / _CSV).is_file():
        _download(home, progress)
    payload = read_verified(home, _CSV, CTG_SOURCE, "load_ctg")
    table = np.loadtxt(io.BytesIO(payload), delimiter=",", skiprows=1, dtype=float)
    features = table[:, :21].copy()
    labels = {"CLASS": table[:, 21].astype(int), "NSP": table[:, 22].astype(int)}
    preprocessing: dict = {"scaling": scaling, "center": center}
    if scaling == "minmax":
        low, high = features.min(axis=0), features.max(axis=0)
        span = np.where(high > low, high - low, 1.0)
        features = (features - low) / span
        preprocessing.update(minimum=low.tolist(), maximum=high.tolist(), data_dependent=True)
    if center:
        mean = features.mean(axis=0)
        features = features - mean
        preprocessing.update(mean=mean.tolist(), data_dependent=True)
    body = ("2126 cardiotocograms x 21 features (AC, FM, UC, DL, DS, DP are per-second rates from "
            "the 'Data' sheet); labels NSP (normal/suspect/pathologic) and CLASS (10 patterns). "
            f"Scaling: {scaling}; centred: {center}.")
    return Dataset(
        data=features, target=labels[target], feature_names=list(CTG_FEATURES),
        target_names=_NSP_NAMES if target == "NSP" else _CLASS_NAMES,
        frame=make_frame(features, CTG_FEATURES, labels[target], target),
        description=describe(CTG_SOURCE, body), name="ctg", extras=labels,
        preprocessing=preprocessing)
