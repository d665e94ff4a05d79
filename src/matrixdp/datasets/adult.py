"""UCI Adult (1994 Census extract): predict whether income exceeds $50K. Needs pandas."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np

from ..errors import InvalidParameterError
from ._base import (Dataset, DatasetSource, data_home as _data_home, describe, read_verified,
                    require_pandas)
from ._checksums import SHA256
from ._fetch import download_file

__all__ = ["load_adult", "ADULT_SOURCE", "ADULT_CATEGORIES", "ADULT_COLUMNS"]

_BASE_URL = "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/"
ADULT_SOURCE = DatasetSource(
    name="UCI Adult",
    folder="adult",
    page="https://archive.ics.uci.edu/dataset/2/adult",
    url=_BASE_URL + "adult.data",
    license="CC BY 4.0",
    citation=("Becker, B., Kohavi, R. (1996). Adult. UCI Machine Learning Repository. "
              "https://doi.org/10.24432/C5XW20."),
)

_FILES = {"train": "adult/adult.data", "test": "adult/adult.test", "names": "adult/adult.names"}
ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
                 "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
                 "hours-per-week", "native-country"]
NUMERIC = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]

#: Category lists as published in ``adult.names`` (public metadata, not derived from
#: the records), so the one-hot layout never depends on the data.
ADULT_CATEGORIES: dict[str, list[str]] = {
    "workclass": ["Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
                  "State-gov", "Without-pay", "Never-worked"],
    "education": ["Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
                  "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th", "Doctorate",
                  "5th-6th", "Preschool"],
    "marital-status": ["Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
                       "Married-spouse-absent", "Married-AF-spouse"],
    "occupation": ["Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
                   "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
                   "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
                   "Armed-Forces"],
    "relationship": ["Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"],
    "race": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    "sex": ["Female", "Male"],
    "native-country": ["United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
                       "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China",
                       "Cuba", "Iran", "Honduras", "Philippines", "Italy", "Poland", "Jamaica",
                       "Vietnam", "Mexico", "Portugal", "Ireland", "France", "Dominican-Republic",
                       "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia", "Hungary", "Guatemala",
                       "Nicaragua", "Scotland", "Thailand", "Yugoslavia", "El-Salvador",
                       "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands"],
}


def _read_split(pandas, home: Path, split: str):
    payload = read_verified(home, _FILES[split], ADULT_SOURCE, "load_adult")
    frame = pandas.read_csv(io.BytesIO(payload), header=None, names=ADULT_COLUMNS + ["income"],
                            skipinitialspace=True, skiprows=1 if split == "test" else 0,
                            na_values="?", keep_default_na=False)
    frame["income"] = frame["income"].str.rstrip(".")
    return frame


def load_adult(*, split: str = "train", one_hot: bool = False, drop_missing: bool = False,
               data_home: str | os.PathLike | None = None, download: bool = False,
               progress: bool = True) -> Dataset:
    """Load UCI Adult. Needs pandas.

    Parameters
    ----------
    split : {"train", "test", "both"}, default "train"
        ``adult.data`` (32,561 rows), ``adult.test`` (16,281 rows) or both stacked
        (``extras["split"]`` tells them apart).
    one_hot : bool, default False
        False: ``data`` is an object array of the 14 raw columns (numbers and strings;
        missing values are None). True: ``data`` is float, the 6 numeric columns then
        one indicator per category *as listed in adult.names* (public metadata, so the
        layout does not depend on the records); a missing category is all zeros.
    drop_missing : bool, default False
        Drop rows with any missing value ('?'): 30,162 train and 15,060 test rows remain.
    data_home : path-like, optional
        See :func:`matrixdp.datasets.data_home`.
    download : bool, default False
        Fetch missing files from UCI (each verified against its SHA-256).
    progress : bool, default True
        Show a progress bar while downloading.

    Returns
    -------
    Dataset
        ``target`` is 1 for ``>50K`` and 0 for ``<=50K`` (the test file's trailing
        period is removed); ``target_names`` = ``["<=50K", ">50K"]``.

    References
    ----------
    .. [1] Kohavi, R. (1996). Scaling up the accuracy of naive-Bayes classifiers: a
       decision-tree hybrid. KDD.
    """
    if split not in ("train", "test", "both"):
        raise InvalidParameterError("split", f"must be 'train', 'test' or 'both', got {split!r}")
    pandas = require_pandas("load_adult")
    home = _data_home(data_home)
    splits = ["train", "test"] if split == "both" else [split]
    if download:
        for key in splits + ["names"]:
            rel = _FILES[key]
            if not (home / rel).is_file():
                download_file(_BASE_URL + Path(rel).name, home / rel, SHA256[rel], progress=progress)
    frames = []
    for key in splits:
        part = _read_split(pandas, home, key)
        part["split"] = key
        frames.append(part)
    frame = pandas.concat(frames, ignore_index=True)
    if drop_missing:
        frame = frame.dropna().reset_index(drop=True)
    target = (frame["income"] == ">50K").to_numpy(dtype=int)
    if one_hot:
        blocks = [frame[NUMERIC].to_numpy(dtype=float)]
        names = list(NUMERIC)
        for column, categories in ADULT_CATEGORIES.items():
            values = frame[column].to_numpy(dtype=object)
            blocks.append((values[:, None] == np.array(categories, dtype=object)[None, :]).astype(float))
            names += [f"{column}={c}" for c in categories]
        data = np.hstack(blocks)
    else:
        raw = frame[ADULT_COLUMNS].astype(object)
        data = raw.where(raw.notna(), None).to_numpy(dtype=object)
        names = list(ADULT_COLUMNS)
    body = (f"{len(frame)} adults ({split} split), 14 attributes; target income >50K. "
            f"One-hot: {one_hot}; rows with missing values dropped: {drop_missing}.")
    return Dataset(
        data=data, target=target, feature_names=names, target_names=["<=50K", ">50K"],
        frame=frame, description=describe(ADULT_SOURCE, body), name="adult",
        extras={"split": frame["split"].to_numpy(dtype=str)},
        preprocessing={"one_hot": one_hot, "drop_missing": drop_missing})
