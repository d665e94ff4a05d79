"""NYC Uber pickups, April 2014 (FiveThirtyEight's TLC FOIL release): 564,516 pickups.

Used by the R1SMG paper's case study I (pickup counts on an 89 x 89 grid).
"""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path

import numpy as np

from ..errors import InvalidParameterError
from ._base import (Dataset, DatasetSource, data_home as _data_home, describe, read_verified,
                    require_pandas)
from ._checksums import UBER_APR14_CSV_SHA256
from ._fetch import download_file

__all__ = ["load_uber_apr14", "UBER_APR14_SOURCE", "pickup_counts"]

UBER_APR14_SOURCE = DatasetSource(
    name="NYC Uber pickups, April 2014 (FiveThirtyEight / NYC TLC)",
    folder="uber_apr14",
    page="https://github.com/fivethirtyeight/uber-tlc-foil-response",
    url=("https://raw.githubusercontent.com/fivethirtyeight/uber-tlc-foil-response/"
         "63bb878b76f47f69b4527d50af57aac26dead983/uber-trip-data/uber-raw-data-apr14.csv"),
    license="CC BY 4.0 (FiveThirtyEight data note; NYC TLC public records under FOIL)",
    citation="FiveThirtyEight (2015), Uber TLC FOIL Response.",
    how_to_get=("Either uber_apr14/uber-raw-data-apr14.csv.gz (the shared gzip) or the plain "
                "uber_apr14/uber-raw-data-apr14.csv (the publisher's bytes) is accepted."),
)

_GZ = "uber_apr14/uber-raw-data-apr14.csv.gz"
_CSV = "uber_apr14/uber-raw-data-apr14.csv"
FEATURES = ["Lat", "Lon"]


def _read_csv_bytes(home: Path) -> bytes:
    if (home / _GZ).is_file():
        return gzip.decompress(read_verified(home, _GZ, UBER_APR14_SOURCE, "load_uber_apr14"))
    if (home / _CSV).is_file():
        return read_verified(home, _CSV, UBER_APR14_SOURCE, "load_uber_apr14",
                             expected=UBER_APR14_CSV_SHA256)
    return read_verified(home, _GZ, UBER_APR14_SOURCE, "load_uber_apr14")  # raises "missing"


def load_uber_apr14(*, data_home: str | os.PathLike | None = None, download: bool = False,
                    start: str | None = None, end: str | None = None,
                    progress: bool = True) -> Dataset:
    """Load the Uber April 2014 pickups (Date/Time, Lat, Lon, Base). Needs pandas.

    Parameters
    ----------
    data_home : path-like, optional
        See :func:`matrixdp.datasets.data_home`.
    download : bool, default False
        Fetch the publisher's CSV (26 MB) when neither file is present (checksum verified).
    start, end : str, optional
        Keep pickups with ``start <= Date/Time <= end`` (ISO strings, e.g.
        ``"2014-04-01 00:11"``). The R1SMG case study uses 2014-04-01 00:11 to
        2014-04-03 23:57.
    progress : bool, default True
        Show a progress bar while downloading.

    Returns
    -------
    Dataset
        ``data`` (n, 2) float: latitude and longitude; ``target`` None; ``extras``:
        ``datetime`` (datetime64[s]) and ``base`` (TLC base code, str).

    References
    ----------
    .. [1] FiveThirtyEight (2015). Uber TLC FOIL Response.
       https://github.com/fivethirtyeight/uber-tlc-foil-response
    """
    pandas = require_pandas("load_uber_apr14")
    home = _data_home(data_home)
    if download and not ((home / _GZ).is_file() or (home / _CSV).is_file()):
        download_file(UBER_APR14_SOURCE.url, home / _CSV, UBER_APR14_CSV_SHA256, progress=progress)
    frame = pandas.read_csv(io.BytesIO(_read_csv_bytes(home)))
    frame["Date/Time"] = pandas.to_datetime(frame["Date/Time"], format="%m/%d/%Y %H:%M:%S")
    if start is not None:
        frame = frame[frame["Date/Time"] >= pandas.Timestamp(start)]
    if end is not None:
        frame = frame[frame["Date/Time"] <= pandas.Timestamp(end)]
    frame = frame.reset_index(drop=True)
    data = frame[FEATURES].to_numpy(dtype=float)
    body = (f"{len(frame)} Uber pickups in April 2014 (window {start} .. {end}): Date/Time at minute "
            "resolution, Lat, Lon, Base. Lat/Lon include outliers far outside NYC.")
    return Dataset(
        data=data, target=None, feature_names=list(FEATURES), target_names=[], frame=frame,
        description=describe(UBER_APR14_SOURCE, body), name="uber_apr14",
        extras={"datetime": frame["Date/Time"].to_numpy().astype("datetime64[s]"),
                "base": frame["Base"].to_numpy(dtype=str)},
        preprocessing={"start": start, "end": end})


def pickup_counts(lat_lon: np.ndarray, *, bins: int = 89,
                  bounds: tuple[float, float, float, float]) -> np.ndarray:
    """Count pickups on an evenly spaced ``bins x bins`` latitude/longitude grid.

    Parameters
    ----------
    lat_lon : ndarray of shape (n, 2)
        Latitude and longitude of each pickup.
    bins : int, default 89
        Intervals per axis (the R1SMG case study uses 89, i.e. 7,921 cells).
    bounds : (lat_min, lat_max, lon_min, lon_max)
        The grid's extent. Pass public bounds (e.g. a fixed box around NYC); bounds
        taken from the data's own min/max leak through the grid (the R1SMG paper does
        not say which it used). Pickups outside are dropped.

    Returns
    -------
    ndarray of shape (bins, bins)
        Counts, rows indexed by latitude interval and columns by longitude interval.
        One pickup changes one cell by 1 (add/remove) or two cells (replace-one).
    """
    if int(bins) != bins or bins < 1:
        raise InvalidParameterError("bins", f"must be a positive integer, got {bins!r}")
    lat_min, lat_max, lon_min, lon_max = (float(b) for b in bounds)
    if not (lat_min < lat_max and lon_min < lon_max):
        raise InvalidParameterError("bounds", f"must be (lat_min < lat_max, lon_min < lon_max), got {bounds}")
    lat_lon = np.asarray(lat_lon, dtype=float)
    counts, _, _ = np.histogram2d(lat_lon[:, 0], lat_lon[:, 1], bins=int(bins),
                                  range=[[lat_min, lat_max], [lon_min, lon_max]])
    return counts
