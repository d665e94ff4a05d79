"""Task RC2 (issue #24, docs/regression.md §4j): the check tables of
``experiments/regression_consistency_rc2.py --part check``, chosen by the lead's rule and logged
here (a NEW file: ``_check_tables.py`` is not edited, other helpers log tables there).

THE LEAD'S LIST, in its order: DoctorContacts, BudgetFood, nlschools, Labour, Hedonic, Somerville,
Capm, Hdma, azpro; the first SIX usable are the check tables. Usable: a numeric target and >= 3
numeric features with bounds from the DOCUMENTATION alone (``data(name, show_doc=True)``: units,
documented ranges and codings; a generous physical cap where a unit is documented but no range,
as the earlier check tables); skip a table a results file names.

HOW EACH WAS EXAMINED (written before any value of these tables was read; only the documentation,
the column names and dtypes and the row counts were looked at). ``git grep -w -i NAME`` over every
local branch: no results file names any of the nine as a table. "Labour" occurs once in a results
file (results/synth_cli_default_2.md, "labour force participation": the English word, not the
table) and in experiments/_synth_tables_fresh.py (the same prose); the other hits are lists of
tables examined or avoided by earlier tasks' scripts (experiments/_check_tables.py,
regression_adaptive_boost.py, regression_ls_rounds.py, regression_boost_count.py,
_synth_tables_geom.py, _synth_tables_hist.py, docs/tree_copula.md for Hdma: documentation only, no
value, no results file). Target: the documentation's response where it names one, else the first
column whose bounds follow from the documentation.

1. DoctorContacts — USABLE. Target mdu, the number of outpatient visits to a medical doctor
   (first column): a count, [0, 730]: at most one visit a day over the documented survey period
   1977-1978 (a generous physical cap). Features: lc = log(coinsrate + 1), coinsurance rate
   documented 0 to 100 -> [0, log 101]; idp, physlim, child, black (documented yes/no questions,
   stored as booleans) [0, 1]; sex (documented levels male, female; male = 1) [0, 1]; educdec
   (years of schooling) [0, 30]; age (exact age, years) [0, 110]. Left out: lpi, fmde, linc, lfam
   (logs of amounts with no documented range), ndisease (a count without a cap), health (a
   four-level factor; not needed).
2. BudgetFood — USABLE. Target wfood, "percentage of total expenditure which the household has
   spent on food" (first column): a percentage, [0, 100]. Features: age (of the reference person,
   years) [0, 110]; size (of the household, persons) [1, 50] (generous); town (documented 1-5)
   [1, 5]; sex (documented levels man, woman; man = 1) [0, 1]. Left out: totexp (no unit).
   (Task R8's script considered it and read "percentage" as no stated scale; here a percentage
   is read as 0-100, its documented unit; if the values are shares in [0, 1] the bound is loose,
   never clipping.)
3. nlschools — NOT usable: the target lang ("language test score") and IQ ("verbal IQ") and SES
   have no documented range or scale; GS (class size) and COMB (0/1) leave < 3 bounded features
   for any target.
4. Labour — USABLE (not named by any results file, see above). Target capital (first column),
   "total fixed assets, end of 1995 (in 1000000 euro)": [0, 100000] (million euro; a generous
   cap, 100 billion euro). Features: labour (number of workers) [0, 500000]; output (value added,
   million euro) [0, 100000]; wage (wage costs per worker, 1000 euro) [0, 1000]. All generous
   caps on documented units.
5. Hedonic — NOT usable: the target mv ("median value of owner-occupied homes") has no unit
   (and nothing else in the documentation bounds it); besides, its records are Boston's census
   tracts, used (as MASS's Boston) by the check of docs/regression.md §4c.
6. Somerville — NOT usable: target visits ("annual number of visits") [0, 365] is bounded, but
   of the features only ski and feeSom (yes/no questions) have documented bounds; quality (a
   "ranking score" with no scale), income and the three expenditures (no unit) do not: < 3.
7. Capm — USABLE. Target rfood, excess returns of the food industry (first column); the unit
   (percent or fraction) is not documented: [-105, 105] covers both (a return cannot fall below
   -100%, an excess return below that by the risk-free rate, <= 5% a month; +105% a month a
   generous cap). Features: rdur, rcon, rmrf (excess returns) [-105, 105]; rf (risk-free return)
   [0, 100]. Monthly 1960-2002: a time series, split at random by the protocol like every table.
8. Hdma — USABLE. No response named; dir, hir, lvr (ratios with no documented range: a ratio of
   payments to income can exceed 1) cannot be bounded, so the target is ccs, "consumer credit
   score from 1 to 6" [1, 6]. Features: mcs ("mortgage credit score from 1 to 4") [1, 4]; uria
   (an unemployment rate; percent or fraction, undocumented) [0, 100]; comdominiom (is unit
   condominium?) [0, 1]; pbcr, dmi, self, single, black (documented yes/no questions; yes = 1)
   [0, 1]. Left out: deny (a function of the application's outcome, not a regressor of the
   credit score), dir, hir, lvr (no range).
9. azpro — USABLE (the sixth; not needed beyond it: the first six usable are 1, 2, 4, 7, 8, 9).
   Target los (the documentation's response: "Count models use los as response variable";
   "0 counts are structurally excluded"): days, [1, 365] (a generous cap: a year). Features:
   procedure (1 = CABG, 0 = PTCA), sex (1 = male), admit (1 = urgent/emergency), age75 (1 = age >
   75): documented 0/1 codes, [0, 1]. Left out: hospital (an encrypted facility code).

Check tables, in order: DoctorContacts, BudgetFood, Labour, Capm, Hdma, azpro.
"""

import math

RC2_TABLES = {
    "DoctorContacts": ("mdu", (0.0, 730.0), {
        "lc": (0.0, math.log(101.0)),
        "idp": (0.0, 1.0), "physlim": (0.0, 1.0), "child": (0.0, 1.0), "black": (0.0, 1.0),
        "sex": (0.0, 1.0),
        "educdec": (0.0, 30.0),
        "age": (0.0, 110.0),
    }, {"sex": {"male": 1, "female": 0}},
        "mdu: visits, at most one a day over 1977-1978; documented codings and units"),
    "BudgetFood": ("wfood", (0.0, 100.0), {
        "age": (0.0, 110.0), "size": (1.0, 50.0), "town": (1.0, 5.0), "sex": (0.0, 1.0),
    }, {"sex": {"man": 1, "woman": 0}},
        "wfood: a percentage, [0, 100]; town documented 1-5; generous caps on age, size"),
    "Labour": ("capital", (0.0, 100000.0), {
        "labour": (0.0, 500000.0), "output": (0.0, 100000.0), "wage": (0.0, 1000.0),
    }, {}, "million euro, workers, 1000 euro per worker (documented units; generous caps)"),
    "Capm": ("rfood", (-105.0, 105.0), {
        "rdur": (-105.0, 105.0), "rcon": (-105.0, 105.0), "rmrf": (-105.0, 105.0),
        "rf": (0.0, 100.0),
    }, {}, "returns (percent or fraction, undocumented): >= -100% less rf; generous cap"),
    "Hdma": ("ccs", (1.0, 6.0), {
        "mcs": (1.0, 4.0), "uria": (0.0, 100.0), "comdominiom": (0.0, 1.0),
        "pbcr": (0.0, 1.0), "dmi": (0.0, 1.0), "self": (0.0, 1.0), "single": (0.0, 1.0),
        "black": (0.0, 1.0),
    }, {c: {"yes": 1, "no": 0} for c in ("pbcr", "dmi", "self", "single", "black")},
        "ccs 1-6, mcs 1-4 documented; a rate [0, 100]; yes/no questions"),
    "azpro": ("los", (1.0, 365.0), {
        "procedure": (0.0, 1.0), "sex": (0.0, 1.0), "admit": (0.0, 1.0), "age75": (0.0, 1.0),
    }, {}, "los: days, >= 1 documented, a year's cap; documented 0/1 codes"),
}
