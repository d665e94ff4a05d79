"""Dataset loaders with checksums and a data home.

Every loader reads its files from the data home (:func:`data_home`: the ``data_home``
argument, else ``$MATRIXDP_DATA``, else a per-user cache directory), verifies each
file's SHA-256 against the value recorded when the data were collected, and returns a
:class:`Dataset` with records in rows. A missing file raises
:class:`~matrixdp.errors.DatasetError` saying where to put it and where to get it;
``download=True`` fetches it from its public source (checksum verified). See
``docs/datasets.md`` for provenance, licences and the papers' preprocessing.
"""

from ._base import Dataset, DatasetSource, data_home
from .adult import load_adult
from .ctg import load_ctg
from .lending_club import load_lending_club
from .liver import load_liver
from .movement import load_movement_aal
from .swarm import load_swarm
from .uber import load_uber_apr14, pickup_counts
from .wdbc import load_wdbc

__all__ = [
    "Dataset",
    "DatasetSource",
    "data_home",
    "load_adult",
    "load_ctg",
    "load_lending_club",
    "load_liver",
    "load_movement_aal",
    "load_swarm",
    "load_uber_apr14",
    "load_wdbc",
    "pickup_counts",
]
