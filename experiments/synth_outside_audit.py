"""Outside-style audit of the synthetic-data path (issue #26, task E): ``matrixdp synth``
(``--model copula``, ``tree-copula``, ``ron-gauss``) and the Python classes ``DPCopula``,
``DPTreeCopula`` and ``RONGauss`` on never-seen tables and curator scenarios.

Same style as ``experiments/outside_audit.py`` (issue #24): one PASS/FAIL line per check, then a
triage of every FAIL. Output: ``results/synth_outside_audit.{md,csv}``; the command is in the
results file.

The public schemas below were written from each table's documentation
(``statsmodels.datasets.<name>.NOTE``, Greene's Econometric Analysis where the NOTE defers to
its source) and from the meaning of the variables, and committed BEFORE anything was run on the
tables (only column names, dtypes and shapes were read). They are loose-but-honest, as a
curator's would be. A column the documentation describes as a code or category is categorical.
"""

from __future__ import annotations

# ----------------------------------------------------------------------------- public schemas
#: table -> {"target": class column or None, "regress": numeric column for the utility check or
#: None, "columns": {name: {"lo", "hi"[, "integer"]} or {"categories": [...]}}} in output order.
#: Only documentation and domain knowledge; no value of a table was looked at.
TABLE_SCHEMAS = {
    # Greene's intercity mode choice (Sydney-Canberra-Melbourne). One record per traveller: the row
    # of the CHOSEN mode (choice == 1), so a person is one record. mode is a documented code
    # (1 air, 2 train, 3 bus, 4 car) -> a categorical class column with the documented labels.
    "modechoice": {"target": "mode", "regress": "gc", "columns": {
        "ttme": {"lo": 0.0, "hi": 180.0},            # terminal waiting time, minutes (0 for car)
        "invc": {"lo": 0.0, "hi": 500.0},            # in-vehicle cost, dollars
        "invt": {"lo": 0.0, "hi": 1500.0},           # in-vehicle time, minutes
        "gc": {"lo": 0.0, "hi": 1000.0},             # generalised cost, dollars
        "hinc": {"lo": 0.0, "hi": 200.0},            # household income, $1000s
        "psize": {"lo": 1.0, "hi": 10.0, "integer": True},  # group size (number of people)
        "mode": {"categories": ["air", "train", "bus", "car"]},
    }},
    # Grunfeld (1950): 11 firms x 20 years. Money in MILLIONS of 1947 dollars (the source's unit;
    # the NOTE omits 'millions': assumption stated). firm: the NOTE's 11 names, spelled as the NOTE
    # spells them. year: integer 1935-1954.
    "grunfeld": {"target": None, "regress": "invest", "columns": {
        "invest": {"lo": 0.0, "hi": 2000.0},
        "value": {"lo": 0.0, "hi": 10000.0},
        "capital": {"lo": 0.0, "hi": 5000.0},
        "firm": {"categories": ["General Motors", "US Steel", "General Electric", "Chrysler",
                                "Atlantic Refining", "IBM", "Union Oil", "Westinghouse",
                                "Goodyear", "Diamond Match", "American Steel"]},
        "year": {"lo": 1935.0, "hi": 1954.0, "integer": True},
    }},
    # Stanford heart transplant (69 patients): survival in days after surgery (program 1967-1974,
    # at most ~7 years: 0-3650 loose), censors a 0/1 code (1 uncensored) -> categorical class,
    # age in years at surgery (possibly fractional: not integer).
    "heart": {"target": "censors", "regress": "survival", "columns": {
        "survival": {"lo": 0.0, "hi": 3650.0},
        "age": {"lo": 0.0, "hi": 100.0},
        "censors": {"categories": [0, 1]},
    }},
    # Spector & Mazzeo (1980), 32 students: GPA on the 4-point scale, TUCE the number of correct
    # answers (integer; the test has ~30 items, 0-50 loose), PSI 0/1 code (participation),
    # GRADE 0/1 code (grade improved) -> the class column.
    "spector": {"target": "GRADE", "regress": "GPA", "columns": {
        "GPA": {"lo": 0.0, "hi": 4.0},
        "TUCE": {"lo": 0.0, "hi": 50.0, "integer": True},
        "PSI": {"categories": [0, 1]},
        "GRADE": {"categories": [0, 1]},
    }},
    # US states 2009 (50 + DC): rates per 100,000 and percentages. 'single' is a ratio of
    # household counts (fraction or percent: 0-100 holds both). No categorical column.
    "statecrime": {"target": None, "regress": "murder", "columns": {
        "violent": {"lo": 0.0, "hi": 3000.0},        # violent crimes per 100,000
        "murder": {"lo": 0.0, "hi": 50.0},           # murders per 100,000
        "hs_grad": {"lo": 0.0, "hi": 100.0},
        "poverty": {"lo": 0.0, "hi": 100.0},
        "single": {"lo": 0.0, "hi": 100.0},
        "white": {"lo": 0.0, "hi": 100.0},
        "urban": {"lo": 0.0, "hi": 100.0},
    }},
    # Greene's credit card data (72 card holders): AVGEXP average monthly card spend ($), AGE in
    # years (Greene gives years plus twelfths: not integer), INCOME in $10,000s, INCOMESQ its
    # square, OWNRENT a 0/1 code (owns the home) -> the class column.
    "ccard": {"target": "OWNRENT", "regress": "AVGEXP", "columns": {
        "AVGEXP": {"lo": 0.0, "hi": 5000.0},
        "AGE": {"lo": 18.0, "hi": 100.0},
        "INCOME": {"lo": 0.0, "hi": 20.0},
        "INCOMESQ": {"lo": 0.0, "hi": 400.0},
        "OWNRENT": {"categories": [0, 1]},
    }},
}

#: Pre-registered verdict rules (written before any run):
#: - "runs": exit status 0 and an output file, or a refusal whose stderr is ONE line starting
#:   with "matrixdp" or "error" (no "Traceback"); which scenarios MUST refuse is listed in
#:   SCENARIO_EXPECT.
#: - utility smoke alarm, only where n >= 200 and eps = 3 (smaller tables are INFO only):
#:   mean one-way marginal TV of the synthetic table < that of a table drawn uniformly from the
#:   public schema (same n); TSTR score (accuracy for a class target, R^2 for `regress`) >= the
#:   majority / mean baseline minus 0.05.
UTILITY_MIN_N = 200
UTILITY_EPS = 3.0
