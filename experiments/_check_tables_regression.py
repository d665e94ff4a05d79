"""Check tables for the regression floor (``experiments/regression_floor.py``, issue #24): small
regression tables no regression rule of ``matrixdp.models`` was chosen or checked on.

Same style as ``_check_tables.py``: each loader returns an ``_utility_common.Table`` whose records
are clipped to PUBLIC bounds written from the dataset's documentation (statsmodels' ``NOTE`` /
``DESCRLONG``, scikit-learn's ``DESCR``), the units of its original source and the physical or
institutional caps of what each variable is — never from the table's values. Where the
documentation leaves the storage open (a "proportion" stored as a fraction or a percent; an
index whose base is 1 or 100), the bound covers both and is loose on purpose. Only the column
names and the documented numbers of observations were looked at before these bounds were
committed; no value of any of these tables was printed or plotted.

Status: never seen by any regression rule until the deciding run of
``regression_floor.py --part check`` (the rule in ``decide``, committed before that run;
``results/regression_floor_check.md``). **Seen since** (round of issue #24, task F), and diagnosed
after that run (``--part diagnose``): a rule changed because of them must be checked on other
tables.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
from _check_tables_base import _table  # noqa: E402

#: table -> ({feature: (lower, upper)}, (target, lower, upper), what the bounds come from)
BOUNDS = {
    # Brownlee (1965), 21 days of an ammonia-oxidation plant. STACKLOSS is 10 x the percentage of
    # the ingoing ammonia that escapes; a plant losing more than 20% of its ammonia would not be
    # run, so [0, 200]. AIRFLOW: the rate of operation (% of capacity). WATERTEMP: cooling water,
    # degrees C (liquid, ambient). ACIDCONC: (acid concentration in % - 50) x 10, the
    # concentration between 50% and 100%.
    "stackloss": ({"AIRFLOW": (0.0, 100.0), "WATERTEMP": (0.0, 40.0), "ACIDCONC": (0.0, 500.0)},
                  ("STACKLOSS", 0.0, 200.0), "statsmodels stackloss.NOTE; Brownlee (1965)"),
    # Longley (1967), US 1947-1962; units of the source: thousands of persons, millions of
    # dollars, deflator 1954 = 100. Target TOTEMP (total employment, thousands: the US
    # population was below 200 million).
    "longley": ({"GNPDEFL": (50.0, 150.0), "GNP": (0.0, 1.0e6), "UNEMP": (0.0, 10000.0),
                 "ARMED": (0.0, 5000.0), "POP": (100000.0, 200000.0),
                 "YEAR": (1947.0, 1962.0)},
                ("TOTEMP", 0.0, 100000.0), "statsmodels longley.NOTE; Longley (1967) units"),
    # Gill's Scottish devolution referendum (1997), 32 council districts. YES: proportion voting
    # yes (fraction or percent: [0, 100] holds both). COUTAX: council tax in pounds per two
    # adults a year. UNEMPF, ACT, AGE: percentages. MOR: standardised mortality (UK = 100).
    # GDP: regional GDP (units not documented: loose). COUTAX_FEMALEUNEMP = COUTAX x UNEMPF.
    "scotland": ({"COUTAX": (0.0, 3000.0), "UNEMPF": (0.0, 100.0), "MOR": (50.0, 200.0),
                  "ACT": (0.0, 100.0), "GDP": (0.0, 100000.0), "AGE": (0.0, 100.0),
                  "COUTAX_FEMALEUNEMP": (0.0, 300000.0)},
                 ("YES", 0.0, 100.0), "statsmodels scotland.NOTE (Gill)"),
    # World copper market 1951-1975 (Gill). Target WORLDCONSUMPTION in 1000 metric tons (world
    # consumption below 20 million t). Prices in constant dollars (cents per pound, loose);
    # INCOMEINDEX base 1970 (1 or 100: [0, 200]); INVENTORYINDEX an annual inventory trend
    # measure (an index near 1: loose [0, 10]); TIME a trend over the 25 years.
    "copper": ({"COPPERPRICE": (0.0, 200.0), "INCOMEINDEX": (0.0, 200.0),
                "ALUMPRICE": (0.0, 200.0), "INVENTORYINDEX": (0.0, 10.0), "TIME": (0.0, 30.0)},
               ("WORLDCONSUMPTION", 0.0, 20000.0), "statsmodels copper.NOTE (Gill)"),
    # US states with executions, 1997 (Gill). EXECUTIONS per state a year; INCOME median per
    # capita, 1996 dollars; PERPOVERTY, PERBLACK percentages; VC100k96 violent crimes per
    # 100,000; SOUTH 0/1; DEGREE a proportion (fraction or percent: [0, 100]).
    "cpunish": ({"INCOME": (10000.0, 50000.0), "PERPOVERTY": (0.0, 100.0),
                 "PERBLACK": (0.0, 100.0), "VC100k96": (0.0, 2000.0), "SOUTH": (0.0, 1.0),
                 "DEGREE": (0.0, 100.0)},
                ("EXECUTIONS", 0.0, 100.0), "statsmodels cpunish.NOTE (Gill)"),
    # US House committees, 104th Congress (Gill). BILLS104 / BILLS103: bill assignments in the
    # first 100 days; SIZE members (the House has 435); SUBS subcommittees; STAFF staff members;
    # PRESTIGE 0/1.
    "committee": ({"SIZE": (0.0, 100.0), "SUBS": (0.0, 20.0), "STAFF": (0.0, 300.0),
                   "PRESTIGE": (0.0, 1.0), "BILLS103": (0.0, 1000.0)},
                  ("BILLS104", 0.0, 1000.0), "statsmodels committee.NOTE (Gill)"),
    # Kennan's strikes (June only). duration in days (cap 500); iprod unanticipated industrial
    # production, a deviation around 0 (units not documented: loose [-20, 20]).
    "strikes": ({"iprod": (-20.0, 20.0)}, ("duration", 0.0, 500.0),
                "statsmodels strikes.NOTE (Kennan)"),
    # US macro data 1959Q1-2009Q3. Target realinv (billions of chained 2005 dollars, SAAR).
    # Real aggregates in the same units (GDP below 20 trillion), cpi 1982-84 = 100, m1 billions,
    # rates and unemployment in percent, pop in thousands, infl annualised percent.
    "macrodata": ({"realgdp": (0.0, 20000.0), "realcons": (0.0, 15000.0),
                   "realgovt": (0.0, 2000.0), "realdpi": (0.0, 15000.0), "cpi": (0.0, 300.0),
                   "m1": (0.0, 3000.0), "tbilrate": (0.0, 20.0), "unemp": (0.0, 20.0),
                   "pop": (150000.0, 350000.0), "infl": (-20.0, 20.0)},
                  ("realinv", 0.0, 5000.0), "statsmodels macrodata.NOTE"),
    # Breast cancer counts of 301 counties: cancer count and the county's population (the
    # largest US county has about 10 million people; counts capped at 0.2% of that).
    "cancer": ({"population": (0.0, 1.0e7)}, ("cancer", 0.0, 20000.0),
               "statsmodels cancer.NOTE"),
}


def _statsmodels(name: str) -> uc.Table:
    import statsmodels.api as sm

    feats, target, source = BOUNDS[name]
    frame = getattr(sm.datasets, name).load_pandas().data
    return _table(name, frame, feats, target, source)


#: Linnerud (Tenenhaus 1998): 20 middle-aged men; exercises Chins, Situps, Jumps (counts);
#: target Weight (pounds in the source; [50, 350] also holds kilograms).
LINNERUD_BOUNDS = {"Chins": (0.0, 50.0), "Situps": (0.0, 500.0), "Jumps": (0.0, 500.0)}
LINNERUD_TARGET = ("Weight", 50.0, 350.0)


def linnerud() -> uc.Table:
    import pandas as pd
    from sklearn.datasets import load_linnerud

    ds = load_linnerud()
    frame = pd.DataFrame(np.asarray(ds.data, float), columns=list(ds.feature_names))
    frame["Weight"] = np.asarray(ds.target, float)[:, list(ds.target_names).index("Weight")]
    return _table("linnerud", frame, LINNERUD_BOUNDS, LINNERUD_TARGET,
                  "LINNERUD_BOUNDS (load_linnerud DESCR; Tenenhaus 1998)")


LOADERS = {name: (lambda name=name: _statsmodels(name)) for name in BOUNDS}
LOADERS["linnerud"] = linnerud
CHECK_TABLES = tuple(LOADERS)


def load(name: str) -> uc.Table:
    """A check table by name (``LOADERS``)."""
    return LOADERS[name]()
