"""Plain definitions of the technical words a report uses, for a reader without our docs.

The reports of ``matrixdp release`` and ``matrixdp synth`` end with "Words used on this page":
the entries of :data:`GLOSSARY` whose pattern occurs in the page's own text (so the list stays
short and never defines a word the page does not use). Found by the curator walkthrough of
session 23 (``results/curator_walkthrough.md``): the reports used these words undefined.
Definitions are public text only; nothing here depends on the data.
"""

from __future__ import annotations

import re

__all__ = ["GLOSSARY", "WALKTHROUGH_JARGON", "terms_used", "terms_on_page"]

#: (term shown, regular expression searched in the page's text, definition).
GLOSSARY: tuple[tuple[str, str, str], ...] = (
    ("noise", r"\bnoise\b",
     "random numbers added to each released number so that no one record can be read off it; "
     "its size follows from the public ranges, the number of records, ε and δ, never from the "
     "data."),
    ("standard deviation (std)", r"standard deviation|\bstd\b",
     "the typical size of the noise: the noise is smaller than one standard deviation about two "
     "times in three, and smaller than about two standard deviations 95 times in 100."),
    ("95% interval", r"95% interval|95% quantile|interval",
     "the range printed as [low, high]: the value computed from the records without noise lies "
     "in it for about 95 of 100 releases (for intervals marked approximate, roughly so). It "
     "covers the noise only, not the other errors named on this page."),
    ("public range, bounds", r"public range|\bbounds?\b",
     "the smallest and largest value a column can take, set by the data's curator from "
     "documentation or domain knowledge, never read off the data."),
    ("clipping, clipping bias", r"clip",
     "a value outside its public range is moved to the nearest end of the range before the "
     "release; if real records lie outside, the release describes the clipped records, and "
     "the difference (clipping bias) is not in the error bars."),
    ("0/1 indicator, share", r"0/1 indicator|\bshares?\b",
     "a text column becomes one column per category, 1 when the record is in that category and "
     "0 otherwise; its mean is the share of records in the category."),
    ("post-processing, projection, feasible set", r"post-processing|project|feasible",
     "any computation on the released numbers alone (it costs no privacy budget). The release is "
     "moved (projected) to the nearest values the statistic can possibly take given the public "
     "ranges (the feasible set): a mean inside its range, shares that sum to 1, a covariance "
     "matrix with no negative variance."),
    ("simplex", r"simplex",
     "the possible values of a set of shares: each at least 0, together summing to 1."),
    ("convex set", r"convex",
     "a set that contains the straight line between any two of its points; moving a release to "
     "the nearest point of such a set never moves it away from a true value inside the set."),
    ("Euclidean norm, Frobenius norm", r"Euclidean|Frobenius",
     "the overall size of an error over several numbers: the square root of the sum of the "
     "squared errors of a vector's (Euclidean) or a matrix's (Frobenius) entries."),
    ("covariance, variance", r"covarian|variance",
     "how two columns vary together, in the product of their units; a column's variance (its "
     "covariance with itself) is the square of its spread."),
    ("correlation", r"correlation",
     "a covariance rescaled to lie between −1 and 1 (1: the columns rise together exactly; 0: no "
     "straight-line relation)."),
    ("PSD (positive semidefinite)", r"\bPSD\b|semidefinite",
     "a matrix that can be a covariance matrix: no combination of the columns has a negative "
     "variance."),
    ("principal components, eigenvalues, explained variance",
     r"principal|eigen|explained.variance|loading",
     "the directions along which the records spread most (components, with their loadings on "
     "each column) and how much spread each direction holds (its eigenvalue or explained "
     "variance)."),
    ("first-order, delta method, plug-in, second-order bias",
     r"first-order|delta-method|delta method|plug-in|second-order",
     "ways of computing an error bar approximately: from a straight-line approximation of the "
     "computation (first-order, delta method), with released values standing in for unknown "
     "true ones (plug-in), and widened by the next term of that approximation (second-order "
     "bias). Such bars are marked approximate: their coverage is roughly, not exactly, 95%."),
    ("regression coefficient, intercept, target, feature",
     r"coefficient|intercept|\btarget\b|\bfeatures?\b",
     "a linear regression predicts the target column from the feature columns; a coefficient is "
     "how much the prediction moves per unit of its feature, the intercept is the prediction "
     "when every feature is 0."),
    ("reference category", r"reference",
     "in a regression, the first listed category of a text column gets no coefficient; each "
     "other category's coefficient is its difference from it."),
    ("extrapolation", r"extrapolat",
     "a prediction outside the public ranges of the features (e.g. the intercept when 0 is "
     "outside a feature's range): the target's range does not bound it."),
    ("sufficient statistics", r"sufficient statistic",
     "the summary a regression is solved from: the averages of the products of every pair of "
     "columns, the target and a constant column of 1s included ([X y 1]'[X y 1]/n)."),
    ("ridge, shrinkage, penalty (λ)", r"ridge|shrunk|shrink|penalt|λ",
     "when the released summary is too noisy to solve as it is, the coefficients are pulled "
     "towards 0 (and sometimes the intercept towards the middle of the target's range) by a "
     "penalty set from the public noise level (λ, read off the noisy release; --alpha adds the "
     "user's own). The error bars are then for that pulled-in (ridge) regression computed from "
     "the records with the same penalty, not for ordinary least squares: the difference between "
     "the two is a bias they do not include (bias_bound bounds it for the intercept)."),
    ("least squares (ordinary least squares)", r"least.squares",
     "the usual linear regression: the coefficients that make the sum of the squared "
     "differences between the target and its prediction over the records as small as "
     "possible, with no penalty."),
    ("half-width", r"half-width",
     "half of a public range, (high − low) / 2: the unit in which errors of differently scaled "
     "columns are compared."),
    ("neighbouring relation, replace-one, add/remove", r"neighbour|replace-one|add/remove|add-remove",
     "which change of the table the guarantee covers. replace-one: one person's record replaced "
     "by any other, the number of records unchanged (so that number is public). add/remove: one "
     "record added or removed (the number of records is protected too)."),
    ("mechanism, mvg, iid, analytic Gaussian", r"mechanism|\bmvg\b|\biid\b|analytic",
     "the procedure that adds the noise. iid (analytic Gaussian): independent normal noise of "
     "the same size on every number. mvg (matrix-variate Gaussian): normal noise shaped to the "
     "columns' ranges, larger where a column's range is wider."),
    ("noise allocation, expected loss", r"allocation|expected loss|task-weighted|mse-optimal",
     "how the noise is shared among the released numbers (iid, task-weighted, mse-optimal, "
     "iid-unit-box are the shapes tried); the one with the least expected loss (the average "
     "squared error, in the units stated) is used, chosen from public information only."),
    ("calibration, exact, tight, upper bound", r"calibration|\btight\b|upper bound",
     "how the noise size was derived from ε and δ. exact / tight: the stated ε is the smallest "
     "that holds; an upper bound: the guarantee holds, possibly with room to spare."),
    ("sensitivity, witness", r"sensitivity|witness|equimodal",
     "how much one person's record can change the released statistic, in the units the noise "
     "is calibrated in; a witness is a pair of tables differing in one record that attains a "
     "stated value; outer-equimodal names the bound used."),
    ("numerics, floating point", r"numerics|floating|Mironov",
     "computers round numbers; the guarantee is proven for exact arithmetic, and rounding of the "
     "noise can leak in principle (Mironov 2012). --numerics exact (means and sums) draws the "
     "noise without that rounding."),
    ("ledger, composition, gdp", r"ledger|\bgdp\b|compos",
     "the ledger records every release from this table and refuses one that would exceed the "
     "budget. Releases together reveal more than each alone; the ledger adds them up with a "
     "tight rule for Gaussian noise (gdp: Gaussian differential privacy) and states the total "
     "as one ε at the ledger's δ, so it can be less than the sum of the ε asked for."),
    ("DP (differential privacy)", r"differentially private|\bDP\b|-DP",
     "the guarantee stated at the top of this page, with its parameters ε and δ."),
    ("copula, histogram", r"copula|histogram",
     "the synthetic records are drawn from noisy per-column histograms (counts of records per "
     "interval of the public range) and a noisy table of how the columns move together "
     "(a Gaussian copula); only these noisy summaries are used."),
    ("μ (mu), Gaussian DP", r"\bmu\b|μ|Gaussian DP",
     "another way to state the guarantee of Gaussian noise: μ is the ratio of how far one record "
     "can move the statistic to the noise's standard deviation; every μ corresponds to a curve "
     "of (ε, δ) pairs, and the ε printed is the one at the stated δ."),
    ("group privacy", r"group privacy",
     "a guarantee for one added or removed record also covers a replaced one (a removal plus an "
     "addition) at twice the μ."),
    ("sigma (σ)", r"\bsigma\b|σ", "the standard deviation of the noise."),
    ("normal scores, score moments", r"score",
     "each record's value turned into its position on a bell curve (its normal score); their "
     "averaged products (score moments) give the synthetic table's dependence between columns."),
    ("classes, in parallel", r"\bclass|parallel",
     "the categories of the target column split the records into groups (classes); releases "
     "made separately on disjoint groups cost the budget once, not once per group."),
    ("files named docs/… or results/…", r"docs/|results/",
     "pages of the matrixdp source distribution (its docs/ and results/ folders), where the "
     "method and its measured accuracy are written up."),
)


def terms_used(text: str) -> list[dict]:
    """The glossary entries whose pattern occurs in ``text`` (a page's text, tags stripped)."""
    return [{"term": term, "definition": definition}
            for term, pattern, definition in GLOSSARY
            if re.search(pattern, text, flags=re.IGNORECASE)]


def terms_on_page(page: str) -> list[dict]:
    """:func:`terms_used` of an HTML page's visible text: scripts, styles and tags removed,
    entities decoded (the one reader of both reports, ``release --report`` and ``synth
    --report``)."""
    import html

    text = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", page, flags=re.S)
    return terms_used(html.unescape(re.sub(r"<[^>]+>", " ", text)))


#: Technical words the curator walkthrough (session 23, ``results/curator_walkthrough.md``) found
#: used without explanation in the reports, each with the glossary term that must then explain it
#: (read by ``tests/cli/test_report.py`` and ``experiments/curator_walkthrough.py``).
WALKTHROUGH_JARGON = {
    "standard deviation": "standard deviation", "noise std": "standard deviation",
    "95% interval": "95% interval", "95% quantile": "95% interval", "clipping bias": "clipping",
    "feasible set": "feasible set", "simplex": "simplex", "convex": "convex set",
    "Frobenius": "Frobenius norm", "Euclidean": "Euclidean norm", "first-order": "first-order",
    "plug-in": "plug-in", "delta-method": "delta method", "second-order": "second-order",
    "PSD": "PSD", "iid": "iid", "mvg": "mvg", "task-weighted": "noise allocation",
    "expected loss": "expected loss", "calibration": "calibration", "tight": "tight",
    "numerics": "numerics", "Mironov": "numerics", "sensitivity": "sensitivity",
    "witness": "witness", "replace-one": "replace-one", "gdp": "gdp", "ridge": "ridge",
    "sufficient statistic": "sufficient statistics", "half-width": "half-width",
    "intercept": "intercept", "reference": "reference category", "eigen": "eigenvalues",
    "explained variance": "explained variance", "post-processing": "post-processing",
    "0/1 indicator": "0/1 indicator", "results/": "results/", "mu=": "μ (mu)",
    "group privacy": "group privacy", "sigma": "sigma", "score moments": "score moments",
    "in parallel": "in parallel", "copula": "copula", "histogram": "histogram",
}
