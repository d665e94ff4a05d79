"""Tables, public schemas, splits and metrics of the synthetic-data benchmark.

Imported by ``synth_benchmark.py`` in both of its processes (matrixdp's generators in the main
venv, MST/AIM in the benchmark venv), so every method is scored by the same code on the same
splits. Needs numpy, pandas, scikit-learn and ``matrixdp.datasets`` / ``matrixdp.synth.schema``.

Public bounds below are round domain ranges fixed in this file (units and documented ranges of
each variable). They were written with the variables' definitions at hand, NOT computed by code
from the records; values outside are clipped. Category lists come from the loaders' public lists.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "src"))

from matrixdp.synth.schema import TableSchema  # noqa: E402

try:  # one BLAS/OpenMP thread: on a shared 2-core machine, thread pools spin against other jobs
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
    pass

TARGET = "__target__"
EVAL_BINS = 10  # equal-width bins on the public bounds for the TV metrics (fixed, public)


@dataclass
class Table:
    """A benchmark table: training/test frames (features only), labels, the public schema."""

    name: str
    train: object
    test: object
    y_train: np.ndarray
    y_test: np.ndarray
    schema: TableSchema
    note: str


def _adult():
    from matrixdp.datasets import load_adult
    from matrixdp.datasets.adult import ADULT_CATEGORIES

    tr = load_adult(split="train", drop_missing=True).frame
    te = load_adult(split="test", drop_missing=True).frame
    bounds = {"age": (17, 90), "fnlwgt": (0, 1.5e6), "education-num": (1, 16),
              "capital-gain": (0, 99999), "capital-loss": (0, 5000), "hours-per-week": (1, 99)}
    schema = TableSchema(bounds=bounds, categories=ADULT_CATEGORIES,
                         integer=tuple(bounds))
    cols = list(bounds) + list(ADULT_CATEGORIES)
    ytr = (tr["income"] == ">50K").to_numpy(dtype=int)
    yte = (te["income"] == ">50K").to_numpy(dtype=int)
    return Table("adult", tr[cols].reset_index(drop=True), te[cols].reset_index(drop=True), ytr, yte,
                 schema, "official train/test split, rows with '?' dropped (30,162 / 15,060); "
                         "target income >50K")


def _split(frame, y, seed=0, test=0.3):
    rng = np.random.default_rng(seed)  # a public, data-independent split
    perm = rng.permutation(len(frame))
    cut = int(round(len(frame) * (1 - test)))
    a, b = perm[:cut], perm[cut:]
    return (frame.iloc[a].reset_index(drop=True), frame.iloc[b].reset_index(drop=True), y[a], y[b])


def _lending_club():
    import pandas as pd
    from matrixdp.datasets import load_lending_club
    from matrixdp.datasets.lending_club import LENDING_CLUB_PURPOSES

    d = load_lending_club(one_hot=False)
    frame = pd.DataFrame(d.data, columns=d.feature_names)
    bounds = {"int.rate": (0.0, 0.3), "installment": (0.0, 1000.0), "log.annual.inc": (7.0, 15.0),
              "dti": (0.0, 30.0), "fico": (600, 850), "days.with.cr.line": (0.0, 20000.0),
              "revol.bal": (0.0, 200000.0), "revol.util": (0.0, 120.0),
              "inq.last.6mths": (0, 10), "delinq.2yrs": (0, 5), "pub.rec": (0, 5)}
    for c in bounds:
        frame[c] = frame[c].astype(float)
    for c in ("fico", "inq.last.6mths", "delinq.2yrs", "pub.rec"):
        frame[c] = frame[c].astype(np.int64)
    frame["credit.policy"] = frame["credit.policy"].astype(float).astype(int).astype(str)
    cats = {"credit.policy": ["0", "1"], "purpose": list(LENDING_CLUB_PURPOSES)}
    schema = TableSchema(bounds=bounds, categories=cats,
                         integer=("fico", "inq.last.6mths", "delinq.2yrs", "pub.rec"))
    cols = list(bounds) + list(cats)
    tr, te, ytr, yte = _split(frame[cols], np.asarray(d.target, dtype=int))
    return Table("lending_club", tr, te, ytr, yte, schema,
                 "9,578 loans, seeded 70/30 split (6,705 / 2,873); target not.fully.paid")


def _ctg():
    import pandas as pd
    from matrixdp.datasets import load_ctg

    d = load_ctg(target="NSP")
    frame = pd.DataFrame(np.asarray(d.data, dtype=float), columns=d.feature_names)
    rate = (0.0, 0.02)
    bounds = {"LB": (80, 200), "AC": rate, "FM": (0.0, 0.5), "UC": rate, "DL": rate,
              "DS": (0.0, 0.002), "DP": (0.0, 0.01), "ASTV": (0, 100), "MSTV": (0.0, 10.0),
              "ALTV": (0, 100), "MLTV": (0.0, 60.0), "Width": (0, 200), "Min": (50, 200),
              "Max": (100, 250), "Nmax": (0, 20), "Nzeros": (0, 10), "Mode": (50, 250),
              "Mean": (50, 250), "Median": (50, 250), "Variance": (0, 300)}
    ints = ("LB", "ASTV", "ALTV", "Width", "Min", "Max", "Nmax", "Nzeros", "Mode", "Mean",
            "Median", "Variance")
    for c in ints:
        frame[c] = np.round(frame[c]).astype(np.int64)
    frame["Tendency"] = np.round(frame["Tendency"]).astype(int).astype(str)
    cats = {"Tendency": ["-1", "0", "1"]}
    schema = TableSchema(bounds=bounds, categories=cats, integer=ints)
    y = (np.asarray(d.target) > 1).astype(int)  # suspect or pathologic vs normal
    cols = list(bounds) + list(cats)
    tr, te, ytr, yte = _split(frame[cols], y)
    return Table("ctg", tr, te, ytr, yte, schema,
                 "2,126 cardiotocograms, seeded 70/30 split (1,488 / 638); target NSP != normal")


def _fair():
    """statsmodels' ``fair`` survey table (Fair 1978; 6,366 married women), a HELD-OUT table: no
    rule or default of ``matrixdp.synth`` was chosen on it; it only checks rules fixed before.

    Public schema written from the dataset's documentation (``statsmodels.datasets.fair.NOTE``)
    before any run on it: the coded answers are categories with their documented codes
    (rate_marriage 1-5, religious 1-4, educ 9/12/14/16/17/20, occupation and occupation_husb 1-6);
    age, years married and number of children are numeric with round ranges of the variables'
    meaning (not read from the records): age 15-65 (married adults), yrs_married 0-45, children
    0-10 (a count: integer). Target: affairs > 0 (the ``affairs`` column itself is dropped).
    Written before any generator ran on the table, but after each column's minimum, maximum and
    distinct values were printed while checking that it loads (so not written blind).
    Needs statsmodels (a benchmark-only dependency: ``pip install .[experiments]``)."""
    import pandas as pd
    import statsmodels.api as sm

    raw = sm.datasets.fair.load_pandas().data
    codes = {"rate_marriage": [1, 2, 3, 4, 5], "religious": [1, 2, 3, 4],
             "educ": [9, 12, 14, 16, 17, 20], "occupation": [1, 2, 3, 4, 5, 6],
             "occupation_husb": [1, 2, 3, 4, 5, 6]}
    bounds = {"age": (15, 65), "yrs_married": (0, 45), "children": (0, 10)}
    frame = pd.DataFrame({c: raw[c].astype(float) for c in bounds})
    frame["children"] = np.round(frame["children"]).astype(np.int64)
    for c, cats in codes.items():
        frame[c] = raw[c].round().astype(int).astype(str)
    schema = TableSchema(bounds=bounds, categories={c: [str(v) for v in v_] for c, v_ in codes.items()},
                         integer=("children",))
    y = (raw["affairs"].to_numpy() > 0).astype(int)
    cols = list(bounds) + list(codes)
    tr, te, ytr, yte = _split(frame[cols], y)
    return Table("fair", tr, te, ytr, yte, schema,
                 "6,366 survey answers (statsmodels fair), seeded 70/30 split; target affairs > 0; "
                 "held out")


def _randhie():
    """statsmodels' ``randhie`` table (RAND Health Insurance Experiment, 20,190 person-years), a
    NEVER-SEEN check table of issue #26's round-3 DPTreeCopula work: no rule or default of
    ``matrixdp.synth`` was chosen on it.

    Public schema written from the dataset's documentation (``statsmodels.datasets.randhie.NOTE``)
    only, committed before any run on the table and before any of its values was printed:
    lncoins = ln(coinsurance + 1) with 0 <= coinsurance <= 100, so [0, ln 101] -> (0, 4.7);
    lpi = ln(max(1, annual participation incentive payment)) >= 0, upper end a round guess of
    the payment's scale (ln of about $3,000) -> (0, 8); fmde = 0 or ln(max(1, MDE / (0.01
    coinsurance))) >= 0, a round guess -> (0, 10); disea, the number of chronic diseases, a
    round guess -> (0, 50) (not declared integer: the documentation does not say it is one).
    idp and physlm are documented 0/1 indicators: categories. hlthg / hlthf / hlthp are the
    dummies of one self-rated health answer whose omitted category is "excellent": one
    categorical column health in {excellent, good, fair, poor}. Target: mdvis > 0 (at least one
    outpatient visit to an MD); the ``mdvis`` count itself is dropped.
    Needs statsmodels (a benchmark-only dependency: ``pip install .[experiments]``)."""
    import pandas as pd
    import statsmodels.api as sm

    raw = sm.datasets.randhie.load_pandas().data
    bounds = {"lncoins": (0.0, 4.7), "lpi": (0.0, 8.0), "fmde": (0.0, 10.0), "disea": (0.0, 50.0)}
    frame = pd.DataFrame({c: raw[c].astype(float) for c in bounds})
    for c in ("idp", "physlm"):
        frame[c] = raw[c].round().astype(int).astype(str)
    health = np.full(len(raw), "excellent", dtype=object)
    for col, name in (("hlthg", "good"), ("hlthf", "fair"), ("hlthp", "poor")):
        health[raw[col].to_numpy() > 0.5] = name
    frame["health"] = health
    cats = {"idp": ["0", "1"], "physlm": ["0", "1"],
            "health": ["excellent", "good", "fair", "poor"]}
    schema = TableSchema(bounds=bounds, categories=cats, integer=())
    y = (raw["mdvis"].to_numpy() > 0).astype(int)
    cols = list(bounds) + list(cats)
    tr, te, ytr, yte = _split(frame[cols], y)
    return Table("randhie", tr, te, ytr, yte, schema,
                 "20,190 person-years (statsmodels randhie), seeded 70/30 split; target mdvis > 0; "
                 "never seen before the round-3 check")


def _anes96():
    """statsmodels' ``anes96`` table (1996 American National Election Study extract, 944
    respondents), a NEVER-SEEN check table for ``matrixdp.synth`` (round 3, the CLI's default
    generator): no rule or default of ``matrixdp.synth`` was chosen on it. (The estimators' rules
    of issue #24 used its numeric view as a check table, ``_check_tables.py``; none of its values
    was looked at for synthetic data.)

    Public schema written from the dataset's documentation (``statsmodels.datasets.anes96.NOTE``)
    only, committed before any run on the table and before any of its values was printed (only
    the column names, shape and dtypes were read): the coded answers are categories with their
    documented codes: PID 0-6 (party identification), educ 1-7, income 1-24 (brackets),
    selfLR / ClinLR / DoleLR 1-7 (left-right scale). Numeric: popul (census place population in
    1000s; a round cap above any US city, as in ``_check_tables.ANES96_BOUNDS``) 0-10,000; TVnews
    (times per week) 0-7, integer; age 18-100 (voting age, capped), integer. ``logpopul`` is
    dropped (a function of popul). Target: vote (0 Clinton, 1 Dole).
    Needs statsmodels (a benchmark-only dependency: ``pip install .[experiments]``)."""
    import pandas as pd
    import statsmodels.api as sm

    raw = sm.datasets.anes96.load_pandas().data
    bounds = {"popul": (0.0, 10000.0), "TVnews": (0.0, 7.0), "age": (18.0, 100.0)}
    codes = {"PID": range(0, 7), "educ": range(1, 8), "income": range(1, 25),
             "selfLR": range(1, 8), "ClinLR": range(1, 8), "DoleLR": range(1, 8)}
    frame = pd.DataFrame({c: raw[c].astype(float) for c in bounds})
    for c in ("TVnews", "age"):
        frame[c] = np.round(frame[c]).astype(np.int64)
    for c in codes:
        frame[c] = raw[c].round().astype(int).astype(str)
    schema = TableSchema(bounds=bounds,
                         categories={c: [str(v) for v in v_] for c, v_ in codes.items()},
                         integer=("TVnews", "age"))
    y = (raw["vote"].to_numpy() > 0.5).astype(int)
    cols = list(bounds) + list(codes)
    tr, te, ytr, yte = _split(frame[cols], y)
    return Table("anes96", tr, te, ytr, yte, schema,
                 "944 respondents (statsmodels anes96), seeded 70/30 split; target vote (Dole); "
                 "never seen by matrixdp.synth before the round-3 CLI-default check")


LOADERS = {"adult": _adult, "lending_club": _lending_club, "ctg": _ctg, "fair": _fair,
           "randhie": _randhie, "anes96": _anes96}


def load_table(name: str) -> Table:
    from matrixdp.cli.reproduce import find_data_home

    home = find_data_home(Path(__file__).resolve().parent)  # $MATRIXDP_DATA, else shared/datasets
    if home is not None:
        os.environ.setdefault("MATRIXDP_DATA", str(home))
    return LOADERS[name]()


# ------------------------------------------------------------------ encodings
def design_matrix(frame, schema: TableSchema) -> np.ndarray:
    """Numeric columns scaled to [0, 1] by their public bounds, then one-hot categories."""
    parts = []
    for c, (lo, hi) in schema.bounds.items():
        parts.append(((np.clip(frame[c].to_numpy(dtype=float), lo, hi) - lo) / (hi - lo))[:, None])
    for c, cats in schema.categories.items():
        v = frame[c].to_numpy(dtype=object)
        parts.append((v[:, None] == np.asarray(cats, dtype=object)[None, :]).astype(float))
    return np.hstack(parts)


def eval_codes(frame, y, schema: TableSchema) -> np.ndarray:
    """Integer codes for the TV metrics: numeric columns on EVAL_BINS public bins, target last."""
    out = []
    for c, (lo, hi) in schema.bounds.items():
        x = np.clip(frame[c].to_numpy(dtype=float), lo, hi)
        out.append(np.minimum(((x - lo) / (hi - lo) * EVAL_BINS).astype(int), EVAL_BINS - 1))
    for c, cats in schema.categories.items():
        lookup = {v: i for i, v in enumerate(cats)}
        out.append(np.array([lookup[v] for v in frame[c].to_numpy(dtype=object)]))
    out.append(np.asarray(y, dtype=int))
    return np.column_stack(out)


def cardinalities(schema: TableSchema, n_classes: int = 2) -> list:
    return ([EVAL_BINS] * len(schema.bounds) + [len(v) for v in schema.categories.values()]
            + [n_classes])


def marginal_tv(real: np.ndarray, syn: np.ndarray, cards: list) -> tuple[float, float]:
    """Mean total-variation distance over all 1-way and all 2-way marginals."""
    one = []
    for j, k in enumerate(cards):
        p = np.bincount(real[:, j], minlength=k) / len(real)
        q = np.bincount(syn[:, j], minlength=k) / len(syn)
        one.append(0.5 * np.abs(p - q).sum())
    two = []
    for a in range(len(cards)):
        for b in range(a + 1, len(cards)):
            ka, kb = cards[a], cards[b]
            p = np.bincount(real[:, a] * kb + real[:, b], minlength=ka * kb) / len(real)
            q = np.bincount(syn[:, a] * kb + syn[:, b], minlength=ka * kb) / len(syn)
            two.append(0.5 * np.abs(p - q).sum())
    return float(np.mean(one)), float(np.mean(two))


def _pearson(M: np.ndarray) -> np.ndarray:
    """Pearson correlation matrix of the columns of M (a constant column correlates 0)."""
    M = M - M.mean(axis=0)
    sd = np.sqrt((M ** 2).mean(axis=0))
    Z = M / np.where(sd > 0, sd, 1.0)
    C = Z.T @ Z / len(M)
    np.fill_diagonal(C, 1.0)
    return C


def correlation_error(A: np.ndarray, B: np.ndarray) -> float:
    """Frobenius norm of the difference of the Pearson correlation matrices (constant columns 0)."""
    return float(np.linalg.norm(_pearson(A) - _pearson(B)))


def max_correlation_error(A: np.ndarray, B: np.ndarray) -> float:
    """The largest absolute difference of any pairwise Pearson correlation (constant columns 0)."""
    return float(np.abs(_pearson(A) - _pearson(B)).max())


def tstr_scores(X_syn, y_syn, X_test, y_test) -> dict:
    """Train on synthetic, test on real: accuracy, ROC AUC, balanced accuracy (LR and GB)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score

    out = {}
    y_syn = np.asarray(y_syn, dtype=int)
    for name, make in (("lr", lambda: LogisticRegression(max_iter=2000)),
                       ("gb", lambda: HistGradientBoostingClassifier(random_state=0))):
        if np.unique(y_syn).size < 2:  # one synthetic class: a constant predictor
            prob = np.full(len(y_test), float(y_syn[0]) if y_syn.size else 0.0)
        else:
            clf = make().fit(X_syn, y_syn)
            prob = clf.predict_proba(X_test)[:, 1]
        pred = (prob > 0.5).astype(int)
        out[f"{name}_acc"] = accuracy_score(y_test, pred)
        out[f"{name}_auc"] = roc_auc_score(y_test, prob) if np.unique(prob).size > 1 else 0.5
        out[f"{name}_bacc"] = balanced_accuracy_score(y_test, pred)
    return out


class PeakMemory:
    """Peak resident memory above the level at entry (Linux: resets VmHWM via clear_refs)."""

    def __enter__(self):
        try:
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")
        except OSError:
            pass
        self.start = _status("VmRSS")
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0
        self.peak_mb = max(0.0, (_status("VmHWM") - self.start) / 1024.0)
        return False


def _status(key: str) -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return float(line.split()[1])  # kB
    return 0.0


def score_all(table: Table, X_syn, y_syn) -> dict:
    """Every metric of one synthetic table against the real training (TV, corr) and test (TSTR) data."""
    schema = table.schema
    Xs = design_matrix(X_syn, schema)
    Xtr = design_matrix(table.train, schema)
    Xte = design_matrix(table.test, schema)
    out = tstr_scores(Xs, y_syn, Xte, table.y_test)
    cards = cardinalities(schema)
    tv1, tv2 = marginal_tv(eval_codes(table.train, table.y_train, schema),
                           eval_codes(X_syn, y_syn, schema), cards)
    out["tv_1way"], out["tv_2way"] = tv1, tv2
    A = np.column_stack([Xtr, table.y_train])
    B = np.column_stack([Xs, np.asarray(y_syn, dtype=float)])
    out["corr_err"] = correlation_error(A, B)
    out["corr_max"] = max_correlation_error(A, B)
    try:  # SDMetrics-style scores, implemented in matrixdp.synth.evaluate (absent in old peer venvs)
        from matrixdp.synth.evaluate import column_pair_trends, column_shapes

        out["shape"] = float(np.mean(list(column_shapes(table.train, X_syn, schema).values())))
        out["pair_trend"] = float(np.mean(list(column_pair_trends(table.train, X_syn, schema).values())))
    except ImportError:  # pragma: no cover
        pass
    return out


#: Metrics of the synthetic-data tables where lower is better (the rest: higher is better).
LOWER_IS_BETTER = {"tv_1way", "tv_2way", "corr_err", "corr_max", "total_s"}


def metric_row(method, r, block, metrics) -> str:
    """One Markdown row of a per-(table, ε) block: ``r``'s mean of each metric, the best of the
    block in bold (ties unmarked), "–" where missing."""
    import pandas as pd

    cells = []
    for m in metrics:
        v, vals = r[m], block[m].dropna()
        best = vals.min() if m in LOWER_IS_BETTER else vals.max()
        d = 2 if m in ("corr_err", "total_s") else 3
        text = "–" if pd.isna(v) else f"{v:.{d}f}"
        if len(vals) > 1 and v == best and (vals != best).any():
            text = f"**{text}**"
        cells.append(text)
    return f"| {method} | {int(r.seeds)} | " + " | ".join(cells) + " |"
