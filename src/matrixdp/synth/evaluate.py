"""Utility of synthetic data: train on synthetic, test on real.

Every helper fits the same model twice, once on the synthetic records and once on the real
training records mapped into the same space by ``model.transform``, and scores both on the
transformed real test records.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InvalidParameterError
from ._input import as_feature_matrix, as_label_vector

__all__ = ["UtilityReport", "classification_utility", "regression_utility", "clustering_utility",
           "evaluate_synthetic", "column_shapes", "column_pair_trends"]


@dataclass(frozen=True)
class UtilityReport:
    """Scores of a model trained on synthetic data and of the same model trained on real data.

    Attributes
    ----------
    metric : str
        ``"accuracy"``, ``"rmse"``, ``"nmi"`` or ``"ari"``.
    synthetic : float
        Score of the model trained on synthetic data (tested on real data).
    real : float
        Score of the same model trained on the real training data.
    baseline : float
        A trivial reference: majority-class accuracy, the RMSE of predicting the
        training mean, or 0 for NMI/ARI.
    extra : dict
        Other scores (e.g. NMI alongside ARI).
    """

    metric: str
    synthetic: float
    real: float
    baseline: float
    extra: dict

    def __str__(self) -> str:
        return (f"{self.metric}: synthetic {self.synthetic:.4f} | real {self.real:.4f} | "
                f"baseline {self.baseline:.4f}")


def _check_task(model, task: str) -> None:
    if not hasattr(model, "privacy_"):
        raise InvalidParameterError("model", "must be a fitted RONGauss")
    if model.task != task:
        raise InvalidParameterError("model", f"was fitted with task={model.task!r}, need {task!r}")


def classification_utility(model, X_train, y_train, X_test, y_test, *, n_samples=None,
                           estimator=None, rng=None) -> UtilityReport:
    """Accuracy on real test data of a classifier trained on synthetic vs real training data.

    Parameters
    ----------
    model : RONGauss
        Fitted with ``task="classification"`` on (X_train, y_train).
    X_train, y_train, X_test, y_test : array_like
        Real data; the features are mapped with ``model.transform``.
    n_samples : int, optional
        Synthetic sample size (default: len(X_train)).
    estimator : scikit-learn classifier, optional
        Default: ``LogisticRegression(max_iter=2000)``. Cloned for each fit.
    rng : None, int or Generator
        ``None`` (default) draws from the per-process secure stream; a seed makes the draws
        reproducible (replayable by anyone who knows it; these draws are post-processing of a DP
        model, so replaying them reveals no private value).

    Returns
    -------
    UtilityReport
        ``baseline`` is the accuracy of always predicting the majority test class;
        ``extra`` holds the balanced accuracies (mean per-class recall, chance 1/K)
        of both models.
    """
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression

    _check_task(model, "classification")
    est = estimator if estimator is not None else LogisticRegression(max_iter=2000)
    Xtr, _ = as_feature_matrix(X_train, "X_train")
    Xte, _ = as_feature_matrix(X_test, "X_test")
    ytr = as_label_vector(y_train, Xtr.shape[0], numeric=False, argument="y_train")
    yte = as_label_vector(y_test, Xte.shape[0], numeric=False, argument="y_test")
    X_syn, y_syn = model.sample(int(n_samples or Xtr.shape[0]), rng=rng)
    Zte = model.transform(Xte)
    pred_syn = _predict(clone(est), X_syn, y_syn, Zte)
    pred_real = _predict(clone(est), model.transform(Xtr), ytr, Zte)
    labels, counts = np.unique(yte, return_counts=True)
    return UtilityReport(
        "accuracy", float(np.mean(pred_syn == yte)), float(np.mean(pred_real == yte)),
        float(counts.max() / counts.sum()),
        {"balanced_accuracy": _balanced_accuracy(yte, pred_syn, labels),
         "balanced_accuracy_real": _balanced_accuracy(yte, pred_real, labels),
         "chance_balanced_accuracy": 1.0 / labels.size})


def _predict(est, X, y, X_test) -> np.ndarray:
    if np.unique(y).size < 2:  # a degenerate synthetic sample: predict its only class
        return np.full(X_test.shape[0], y[0])
    return est.fit(X, y).predict(X_test)


def _balanced_accuracy(y_true, y_pred, labels) -> float:
    """Mean per-class recall over the classes present in ``y_true`` (chance level 1/K)."""
    hits = (y_true[:, None] == labels) & (y_pred[:, None] == labels)
    return float(np.mean(hits.sum(axis=0) / (y_true[:, None] == labels).sum(axis=0)))


def regression_utility(model, X_train, y_train, X_test, y_test, *, n_samples=None,
                       estimator=None, rng=None) -> UtilityReport:
    """Test RMSE (in the label's units) of a regressor trained on synthetic vs real data.

    Default estimator: ``Ridge(alpha=1e-3)``. ``baseline`` is the RMSE of predicting
    the mean of ``y_train``.

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed makes the draws
    reproducible (replayable by anyone who knows it; these draws are post-processing of a DP model,
    so replaying them reveals no private value).
    """
    from sklearn.base import clone
    from sklearn.linear_model import Ridge

    _check_task(model, "regression")
    est = estimator if estimator is not None else Ridge(alpha=1e-3)
    Xtr, _ = as_feature_matrix(X_train, "X_train")
    Xte, _ = as_feature_matrix(X_test, "X_test")
    ytr = as_label_vector(y_train, Xtr.shape[0], numeric=True, argument="y_train")
    yte = as_label_vector(y_test, Xte.shape[0], numeric=True, argument="y_test")
    X_syn, y_syn = model.sample(int(n_samples or Xtr.shape[0]), rng=rng)
    Zte = model.transform(Xte)

    def rmse(pred):
        return float(np.sqrt(np.mean((pred - yte) ** 2)))

    r_syn = rmse(clone(est).fit(X_syn, y_syn).predict(Zte))
    r_real = rmse(clone(est).fit(model.transform(Xtr), ytr).predict(Zte))
    return UtilityReport("rmse", r_syn, r_real, rmse(np.full(yte.shape, ytr.mean())), {})


def clustering_utility(model, X_train, X_test, y_test, *, n_clusters, n_samples=None,
                       rng=None, random_state=0, n_init=10) -> UtilityReport:
    """K-means on synthetic vs real data; test points are assigned to the nearest centroid.

    Returns ARI as the main score, NMI in ``extra`` (``extra["nmi_real"]`` too).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed makes the draws
    reproducible (replayable by anyone who knows it; these draws are post-processing of a DP model,
    so replaying them reveals no private value).
    """
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    _check_task(model, "unsupervised")
    Xtr, _ = as_feature_matrix(X_train, "X_train")
    Xte, _ = as_feature_matrix(X_test, "X_test")
    yte = as_label_vector(y_test, Xte.shape[0], numeric=False, argument="y_test")
    X_syn = model.sample(int(n_samples or Xtr.shape[0]), rng=rng)
    Zte = model.transform(Xte)
    km_syn = KMeans(n_clusters=n_clusters, n_init=n_init, random_state=random_state).fit(X_syn)
    km_real = KMeans(n_clusters=n_clusters, n_init=n_init, random_state=random_state).fit(
        model.transform(Xtr))
    lab_syn, lab_real = km_syn.predict(Zte), km_real.predict(Zte)
    return UtilityReport(
        "ari", float(adjusted_rand_score(yte, lab_syn)), float(adjusted_rand_score(yte, lab_real)),
        0.0, {"nmi": float(normalized_mutual_info_score(yte, lab_syn)),
              "nmi_real": float(normalized_mutual_info_score(yte, lab_real))})


def evaluate_synthetic(model, X_train, y_train, X_test, y_test, **kwargs) -> UtilityReport:
    """Dispatch on ``model.task`` (clustering uses the number of distinct test labels as k)."""
    if model.task == "classification":
        return classification_utility(model, X_train, y_train, X_test, y_test, **kwargs)
    if model.task == "regression":
        return regression_utility(model, X_train, y_train, X_test, y_test, **kwargs)
    k = kwargs.pop("n_clusters", None) or int(np.unique(np.asarray(y_test)).size)
    return clustering_utility(model, X_train, X_test, y_test, n_clusters=k, **kwargs)


# ------------------------------------------------------------- table quality (SDMetrics-style)
def _binned(frame, schema, bins: int) -> dict:
    """Every column as integer codes: numeric columns on ``bins`` equal-width PUBLIC bins."""
    numeric, codes = schema.encode(frame, "frame")
    out = {}
    for c, (lo, hi) in schema.bounds.items():
        out[c] = (np.minimum(((numeric[c] - lo) / (hi - lo) * bins).astype(np.int64), bins - 1), bins)
    for c, cats in schema.categories.items():
        out[c] = (codes[c], cats.size)
    return out


def column_shapes(real, synthetic, schema) -> dict:
    """Per-column similarity of the marginals, as SDMetrics' ColumnShapes defines it.

    Numeric columns: 1 − the Kolmogorov–Smirnov statistic of the two samples (clipped into the
    public bounds); categorical columns: 1 − the total-variation distance of the category
    frequencies. 1 is a perfect match. Implemented here (no SDMetrics dependency); checked against
    SDMetrics 0.32's KSComplement / TVComplement (equal to 1e-10 on the benchmark tables,
    ``results/sdmetrics_check.md``).

    Returns
    -------
    dict of str -> float
    """
    from scipy.stats import ks_2samp

    num_r, cod_r = schema.encode(real, "real")
    num_s, cod_s = schema.encode(synthetic, "synthetic")
    out = {}
    for c in schema.bounds:
        out[c] = 1.0 - float(ks_2samp(num_r[c], num_s[c]).statistic)
    for c, cats in schema.categories.items():
        p = np.bincount(cod_r[c], minlength=cats.size) / cod_r[c].size
        q = np.bincount(cod_s[c], minlength=cats.size) / cod_s[c].size
        out[c] = 1.0 - 0.5 * float(np.abs(p - q).sum())
    return out


def column_pair_trends(real, synthetic, schema, *, bins: int = 10) -> dict:
    """Per-pair similarity of the joint trends, as SDMetrics' ColumnPairTrends defines it.

    Two numeric columns: 1 − |ρ_real − ρ_syn| / 2 (Pearson correlation); a pair with a
    categorical column: 1 − the total-variation distance of the 2-way contingency tables
    (numeric columns on ``bins`` equal-width public bins). 1 is a perfect match.

    Every pair is scored. SDMetrics' own per-pair metrics (CorrelationSimilarity,
    ContingencySimilarity on the same public bins) give the same values to 1e-15; its
    ``QualityReport`` (0.32) bins a numeric column over the data's range instead, and averages
    only the pairs whose real association is strong (|ρ| > 0.5, Cramér's V > 0.3), which weighs
    the pairs with structure: ``results/sdmetrics_check.md`` reports both.

    Returns
    -------
    dict of (str, str) -> float
    """
    num_r, _ = schema.encode(real, "real")
    num_s, _ = schema.encode(synthetic, "synthetic")
    br, bs = _binned(real, schema, bins), _binned(synthetic, schema, bins)
    cols = schema.columns
    out = {}

    def rho(a, b):
        if a.std() == 0 or b.std() == 0:
            return 0.0
        return float(np.corrcoef(a, b)[0, 1])

    for i, a in enumerate(cols):
        for b in cols[i + 1:]:
            if a in schema.bounds and b in schema.bounds:
                out[(a, b)] = 1.0 - abs(rho(num_r[a], num_r[b]) - rho(num_s[a], num_s[b])) / 2.0
            else:
                (ra, ka), (rb, kb) = br[a], br[b]
                (sa, _), (sb, _) = bs[a], bs[b]
                p = np.bincount(ra * kb + rb, minlength=ka * kb) / ra.size
                q = np.bincount(sa * kb + sb, minlength=ka * kb) / sa.size
                out[(a, b)] = 1.0 - 0.5 * float(np.abs(p - q).sum())
    return out
