"""Held-out check of DP regression, covariance and PCA on scikit-learn's diabetes table (issue #24).

``sklearn.datasets.load_diabetes(scaled=False)``: 442 patients × 10 baseline variables, target a
quantitative measure of disease progression one year after baseline (Efron, Hastie, Johnstone &
Tibshirani 2004). No rule of the library was chosen on this table: it is used only to check rules
fixed beforehand. The public bounds below were written from the documentation and domain
knowledge before this script was first run (the commit that adds them contains no measurement).
"""

from __future__ import annotations

import numpy as np

#: Public feature bounds, written before any run, from documentation and clinical ranges — not
#: from the table. Units: scikit-learn's DESCR says "age in years" and names the others; the raw
#: file of Efron et al. (https://www4.stat.ncsu.edu/~boos/var.select/diabetes.html, the DESCR's
#: source URL) codes sex as 1/2. The serum measurements are assumed to be in mg/dL (a US study;
#: the documentation gives no units) and ltg to be the natural log of triglycerides in mg/dL
#: (scikit-learn: "possibly log of serum triglycerides level"); these are assumptions, stated as
#: such. Ranges are wide enough to hold any plausible adult patient, not fitted to this cohort.
FEATURE_BOUNDS = {
    "age": (0.0, 100.0),  # years ("age in years", DESCR); the human range, capped at 100
    "sex": (1.0, 2.0),  # coded 1/2 in the raw file of Efron et al. 2004 (DESCR source URL)
    "bmi": (10.0, 60.0),  # body mass index, kg/m²: below 10 or above 60 is extreme (WHO classes
    #                       start at 16 for severe thinness; class III obesity is >= 40)
    "bp": (40.0, 160.0),  # average (mean arterial) blood pressure, mmHg: shock < 50, crisis ~150
    "s1": (50.0, 500.0),  # tc, total serum cholesterol, mg/dL (desirable < 200, very high > 300)
    "s2": (0.0, 400.0),  # ldl, mg/dL (optimal < 100, very high >= 190; familial forms ~400)
    "s3": (10.0, 150.0),  # hdl, mg/dL (low < 40, high > 60)
    "s4": (1.0, 15.0),  # tch, total cholesterol / HDL ratio (ideal ~3.5, high risk > 5)
    "s5": (2.0, 8.0),  # ltg, ln(triglycerides mg/dL): ln(10) = 2.3 … ln(2980) = 8.0
    "s6": (40.0, 400.0),  # glu, blood glucose, mg/dL (hypoglycaemia < 70, diabetic range > 126)
}
#: Target bounds: scikit-learn's documentation of load_diabetes ("Targets: integer 25 - 346",
#: e.g. https://scikit-learn.org/0.24/modules/generated/sklearn.datasets.load_diabetes.html).
TARGET_BOUNDS = (25.0, 346.0)


def public_bounds(feature_names):
    """(lower, upper) arrays in the order of ``feature_names`` (public: no data)."""
    lo = np.array([FEATURE_BOUNDS[n][0] for n in feature_names])
    hi = np.array([FEATURE_BOUNDS[n][1] for n in feature_names])
    return lo, hi
