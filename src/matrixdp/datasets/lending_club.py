"""LendingClub loans 2007–2010, the 14-column teaching subset (9,578 loans)."""

from __future__ import annotations

import csv
import io
import os

import numpy as np

from ._base import Dataset, DatasetSource, data_home as _data_home, describe, make_frame, read_verified

__all__ = ["load_lending_club", "LENDING_CLUB_SOURCE", "LENDING_CLUB_PURPOSES"]

LENDING_CLUB_SOURCE = DatasetSource(
    name="LendingClub loan data 2007-2010 (teaching subset, loan_data.csv)",
    folder="lending_club",
    page="https://www.kaggle.com/ (search 'Loan Data', Pierian Data course material)",
    url=None,
    license="none stated (LendingClub public loan data; redistribution terms unclear)",
    citation=("LendingClub Corporation, loan data 2007-2010, as subset in J. Portilla / Pierian Data, "
              "Python for Data Science and Machine Learning Bootcamp, loan_data.csv."),
    how_to_get=("There is no public direct-download URL with clear terms, so download=True is not "
                "supported: obtain loan_data.csv (9,578 rows x 14 columns) from the course material "
                "or Kaggle's 'Loan Data' and place it at lending_club/loan_data.csv."),
)

_FILE = "lending_club/loan_data.csv"
#: The seven ``purpose`` values of this subset (fixed, so the one-hot layout is data-independent).
LENDING_CLUB_PURPOSES = ["all_other", "credit_card", "debt_consolidation", "educational",
                         "home_improvement", "major_purchase", "small_business"]
_TARGET = "not.fully.paid"


def load_lending_club(*, one_hot: bool = True, data_home: str | os.PathLike | None = None,
                      download: bool = False) -> Dataset:
    """Load the LendingClub teaching subset; ``target`` is ``not.fully.paid`` (0/1).

    Parameters
    ----------
    one_hot : bool, default True
        True: ``data`` is float with ``purpose`` expanded to 7 indicator columns
        (``purpose=<value>``). False: ``data`` is an object array with ``purpose`` as
        a string column.
    data_home : path-like, optional
        See :func:`matrixdp.datasets.data_home`.
    download : bool, default False
        Not supported (no public direct URL with clear terms); raises
        :class:`~matrixdp.errors.DatasetError` explaining how to obtain the file
        when it is missing.

    Returns
    -------
    Dataset
        9,578 rows; 12 numeric columns plus ``purpose``; ``target`` (9578,) int.

    References
    ----------
    .. [1] LendingClub Corporation. Loan data 2007–2010 (LendingClub statistics).
    """
    home = _data_home(data_home)
    # download=True cannot help: the "missing" error below explains how to obtain the file.
    payload = read_verified(home, _FILE, LENDING_CLUB_SOURCE, "load_lending_club")
    # The file uses classic-Mac CR line terminators.
    text = payload.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    rows = [r for r in csv.reader(io.StringIO(text)) if r]
    header, body_rows = rows[0], np.array(rows[1:], dtype=object)
    target_col = header.index(_TARGET)
    purpose_col = header.index("purpose")
    target = body_rows[:, target_col].astype(int)
    feature_cols = [i for i in range(len(header)) if i != target_col]
    numeric_cols = [i for i in feature_cols if i != purpose_col]
    numeric = body_rows[:, numeric_cols].astype(float)
    purpose = body_rows[:, purpose_col].astype(str)
    if one_hot:
        indicators = (purpose[:, None] == np.array(LENDING_CLUB_PURPOSES)[None, :]).astype(float)
        # Keep the original column order: credit.policy, purpose=..., then the rest.
        data = np.hstack([numeric[:, :1], indicators, numeric[:, 1:]])
        names = ([header[numeric_cols[0]]] + [f"purpose={p}" for p in LENDING_CLUB_PURPOSES]
                 + [header[i] for i in numeric_cols[1:]])
        frame = make_frame(data, names, target, _TARGET)
    else:
        data = body_rows[:, feature_cols].copy()
        for j, col in enumerate(feature_cols):
            if col != purpose_col:
                data[:, j] = body_rows[:, col].astype(float)
        names = [header[i] for i in feature_cols]
        frame = make_frame(data, names, target, _TARGET)
    text_body = "9,578 loans x 13 attributes (12 numeric + purpose); target not.fully.paid."
    return Dataset(
        data=data, target=target, feature_names=names, target_names=["fully paid", "not fully paid"],
        frame=frame, description=describe(LENDING_CLUB_SOURCE, text_body), name="lending_club",
        extras={"purpose": purpose}, preprocessing={"one_hot": one_hot})
