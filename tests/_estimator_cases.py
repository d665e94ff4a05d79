"""Every shipped estimator and generator with a recipe to fit it, for the generic contract tests
(``tests/test_budget_contract.py``, ``tests/test_neighbour_invariance.py``).

:func:`shipped_estimators` enumerates the public classes with a ``fit`` method of
:mod:`matrixdp.models` and :mod:`matrixdp.synth`; the tests fail when one has no case here, so a
new class cannot be forgotten.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import matrixdp.models
import matrixdp.synth
from matrixdp.models.experimental import RegressionOptions, CovarianceOptions, PCAOptions

N, D = 120, 3
ALL = ("replace-one", "add-remove")


def shipped_estimators() -> set[str]:
    out = set()
    for module in (matrixdp.models, matrixdp.synth):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and callable(getattr(obj, "fit", None)):
                out.add(obj.__name__)
    return out


@dataclass
class Case:
    """``make(relation, **keeper)`` builds the estimator; ``data(relation)`` gives (D, D′);
    ``fit(estimator, data)`` fits it. ``released`` names the fitted attributes that are noisy
    releases or their post-processing: they may differ between D and D′ (their type, dtype and
    shape may not); every other fitted attribute must be identical. ``keeper`` says how the
    estimator takes an explicit budget keeper: "init" (the ``accountant=`` parameter), "fit"
    (``fit(..., accountant=)``) or both. ``charges``: the entries one fit makes (2 where DP bounds
    are bought first, charged as their own entry; docs/bounds.md)."""

    make: Callable
    data: Callable
    fit: Callable
    relations: tuple = ALL
    released: frozenset = frozenset()
    keeper: tuple = ("init",)
    sample: Callable | None = None
    extra: dict = field(default_factory=dict)
    charges: int = 1


def _numeric(relation, seed=0, labels=None):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (N, D))
    if labels == "real":
        y = np.clip(X @ np.array([0.5, -0.3, 0.2]) + 0.1 * rng.standard_normal(N), -1, 1)
    elif labels == "class":
        y = (X[:, 0] > 0).astype(np.int64)
    else:
        y = None
    if relation == "add-remove":
        X2, y2 = X[:-1], (None if y is None else y[:-1])
    else:  # replace the last record by another one in the public box
        X2 = X.copy()
        X2[-1] = [-0.9, 0.8, -0.7]
        y2 = None if y is None else y.copy()
        if y2 is not None:
            y2[-1] = 1 - y2[-1] if labels == "class" else -y2[-1]
    return (X, y), (X2, y2)


def _fit_x(est, data, **kw):
    return est.fit(data[0], **kw)


def _fit_xy(est, data, **kw):
    return est.fit(data[0], data[1], **kw)


def _frame(relation):
    """A mixed table whose integer-valued column has an integer dtype in D; D′ adds (or
    replaces) one record with a non-integer value there, which flips the column's dtype."""
    import pandas as pd

    rng = np.random.default_rng(1)
    age = rng.integers(18, 90, N)
    frame = pd.DataFrame({"age": age.astype(np.int64),
                          "income": rng.uniform(0, 100, N),
                          "colour": rng.choice(["red", "green", "blue"], N)})
    y = rng.integers(0, 2, N)
    extra = pd.DataFrame({"age": [30.5], "income": [50.0], "colour": ["red"]})
    if relation == "add-remove":
        frame2 = pd.concat([frame, extra], ignore_index=True)
        y2 = np.append(y, 1)
    else:
        frame2 = pd.concat([frame.iloc[:-1], extra], ignore_index=True)
        y2 = np.append(y[:-1], 1)
    return (frame, y), (frame2, y2)


def _copula(relation, **keeper):
    from matrixdp.synth import DPCopula, TableSchema

    # the schema names no integer column: every numeric column is continuous, whatever dtypes
    schema = TableSchema(bounds={"age": (18, 90), "income": (0, 100)},
                         categories={"colour": ["red", "green", "blue"]})
    return DPCopula(schema=schema, epsilon=1.0, delta=1e-6, classes=[0, 1], n_bins=8,
                    random_state=0, **keeper)


def _tree_copula(relation, atoms=None, **kw):
    from matrixdp.synth import DPTreeCopula, TableSchema

    schema = TableSchema(bounds={"age": (18, 90), "income": (0, 100)},
                         categories={"colour": ["red", "green", "blue"]}, atoms=atoms or {})
    kw.setdefault("n_bins", 8)
    return DPTreeCopula(schema=schema, epsilon=1.0, delta=1e-6, classes=[0, 1],
                        random_state=0, **kw)


def _sample_frame(model):
    out = model.sample(40, random_state=0)
    return out[0] if isinstance(out, tuple) else out


def _directions(relation, **keeper):
    from matrixdp.models import DPDirectionsMVG
    from matrixdp.queries import IdentityQuery

    q = IdentityQuery(bounds=(-1, 1), n_features=D, n_samples=N)
    return DPDirectionsMVG(shape=(N, D), epsilon=1.0, delta=1e-6, sensitivity=q,
                           random_state=0, **keeper)


def _ron_gauss(relation, task="unsupervised", **keeper):
    from matrixdp.synth import RONGauss

    extra = {"classification": dict(classes=[0, 1]),
             "regression": dict(label_bound=1.0)}.get(task, {})
    return RONGauss(dim=2, epsilon=1.0, neighbouring=relation, task=task, random_state=0,
                    **extra, **keeper)


#: what the tree copula releases at its defaults (the cases below add their options' releases)
_TREE = frozenset({"class_counts_", "class_priors_", "marginals_", "correlation_",
                   "correlation_raw_", "scores_raw_", "edge_counts_", "edge_tables_", "tree_"})


def _ron_sample(model):
    import pandas as pd

    out = model.sample(40, rng=0)
    X = out[0] if isinstance(out, tuple) else out
    frame = pd.DataFrame(X)
    if isinstance(out, tuple):
        frame["y"] = out[1]
    return frame


_B = dict(epsilon=1.0, delta=1e-6, random_state=0)
_BX = dict(bounds=(-1, 1), **_B)
_BXY = dict(bounds_X=(-1, 1), bounds_y=(-1, 1), **_B)
#: what the boosted default's decision (docs/regression.md §4e) releases besides the fit: the
#: branch and the residual scale it read, and what the branch changes (rounds or none, the clip,
#: the fallback's averaged release's public variances) — all functions of the joint release
# boost_bias_gate_: what §4k's gate read (the default "auto" since task RW), a function of the
# joint release
_DECISION = frozenset({"boost_branch_", "boost_residual_scale_", "boost_rounds_", "boost_clip_",
                       "boost_clips_", "boost_bias_gate_",
                       "entry_variance_", "expected_loss_", "noise_summary_"})


def _m(cls_name, **kw):
    def make(relation, **keeper):
        cls = getattr(matrixdp.models, cls_name)
        return cls(neighbouring=relation, **kw, **keeper)
    return make


#: What an adaptive DPPCA fit releases (its last release's kind is chosen from DP releases, so
#: which one was used, and the predictions it was chosen by, are released too).
_ADAPTIVE_PCA_RELEASED = frozenset({"components_", "explained_variance_",
                                    "explained_variance_ratio_", "mean_", "allocation_",
                                    "adaptive_choice_", "adaptive_predicted_"})


def _adaptive_pca(*, method=None, **options) -> Case:
    """A replace-one case of ``DPPCA(n_components=2)``'s adaptive release with
    ``experimental=PCAOptions(**options)`` (``method=None``: the default's ``"auto"``, which
    resolves to the adaptive release)."""
    kw = {} if method is None else {"method": method}
    return Case(_m("DPPCA", n_components=2, **kw, experimental=PCAOptions(**options), **_BX),
                _numeric, _fit_x, relations=("replace-one",), released=_ADAPTIVE_PCA_RELEASED)


CASES: dict[str, Case] = {
    # the default (method="auto", issue 24 round 3e): adaptive under replace-one, moments under
    # add-remove (auto_method); each relation its own case, with what that method releases
    "DPCovariance": Case(_m("DPCovariance", **_BX), _numeric, _fit_x,
                         relations=("replace-one",),
                         released=frozenset({"covariance_", "location_", "allocation_",
                                             "adaptive_choice_", "adaptive_predicted_"})),
    "DPCovariance[default, add-remove]": Case(
        _m("DPCovariance", **_BX), _numeric, _fit_x, relations=("add-remove",),
        released=frozenset({"covariance_", "location_", "moments_"})),
    "DPCovariance[moments]": Case(_m("DPCovariance", method="moments", **_BX), _numeric, _fit_x,
                                  released=frozenset({"covariance_", "location_", "moments_"})),
    # the default (method="auto", task PX): adaptive under replace-one, moments under
    # add-remove (pca_auto_method); each relation its own case, with what that method releases
    "DPPCA": Case(_m("DPPCA", n_components=2, **_BX), _numeric, _fit_x,
                  relations=("replace-one",),
                  released=frozenset({"components_", "explained_variance_",
                                      "explained_variance_ratio_", "mean_", "allocation_",
                                      "adaptive_choice_", "adaptive_predicted_"})),
    "DPPCA[default, add-remove]": Case(
        _m("DPPCA", n_components=2, **_BX), _numeric, _fit_x, relations=("add-remove",),
        released=frozenset({"components_", "explained_variance_", "explained_variance_ratio_",
                            "mean_", "moments_"})),
    "DPPCA[moments]": Case(_m("DPPCA", n_components=2, method="moments", **_BX), _numeric,
                           _fit_x,
                           released=frozenset({"components_", "explained_variance_",
                                               "explained_variance_ratio_", "mean_",
                                               "moments_"})),
    # method="adaptive" (issue 24): the kind of its last release is chosen from DP releases,
    # so which one was used is itself released
    "DPCovariance[adaptive]": Case(
        _m("DPCovariance", method="adaptive", **_BX), _numeric, _fit_x,
        relations=("replace-one",),
        released=frozenset({"covariance_", "location_", "allocation_", "adaptive_choice_",
                            "adaptive_predicted_"})),
    "DPPCA[adaptive]": Case(
        _m("DPPCA", n_components=2, method="adaptive", **_BX), _numeric, _fit_x,
        relations=("replace-one",),
        released=frozenset({"components_", "explained_variance_", "explained_variance_ratio_",
                            "mean_", "allocation_", "adaptive_choice_", "adaptive_predicted_"})),
    # round 3e: the first look allocated for PCA (adaptive_first="pca")
    "DPPCA[adaptive, first pca]": _adaptive_pca(method="adaptive", adaptive_first="pca"),
    # session 23 (task PK2): the noise-level margin on the step (adaptive_step_margin)
    "DPPCA[adaptive, step margin]": _adaptive_pca(method="adaptive",
                                                  adaptive_step_margin="noise-level"),
    # session 24 (task TP): the moments branch's last release as the dominating triangle
    # (adaptive_moments_triangle; the default's method="auto" resolving to adaptive)
    "DPPCA[adaptive moments triangle]": _adaptive_pca(adaptive_moments_triangle=True),
    # session 25 (task PA): a smaller first look (adaptive_first_share)
    "DPPCA[adaptive first share]": _adaptive_pca(adaptive_first_share=0.125),
    # session 25 (task PC): the first look reused by the whitened step (adaptive_step_reuse;
    # the default's method="auto" resolving to adaptive)
    "DPPCA[adaptive step reuse]": _adaptive_pca(adaptive_step_reuse=True),
    # session 25 (task PS): the split first look (adaptive_split_look)
    "DPPCA[adaptive split look]": _adaptive_pca(adaptive_split_look=True),
    "DPMean": Case(_m("DPMean", **_BX), _numeric, _fit_x, released=frozenset({"mean_"})),
    "DPStandardScaler": Case(_m("DPStandardScaler", **_BX), _numeric, _fit_x,
                             released=frozenset({"mean_", "var_", "scale_"})),
    "DPLinearRegression": Case(_m("DPLinearRegression", **_BXY),
                               lambda r: _numeric(r, labels="real"), _fit_xy,
                               # moments_: the release; ridge_ and the delta-method error bars
                               # coef_std_/intercept_std_/intercept_bias_bound_: functions of it (post-processing);
                               # the default's decision (§4e): its branch and the residual
                               # scale it read are functions of the joint release
                               released=frozenset({"coef_", "intercept_", "moments_", "ridge_",
                                                   "coef_std_", "intercept_std_", "intercept_bias_bound_"}) | _DECISION),
    # the risk-estimated ridge on the fitted coefficients (docs/regression.md §3d, opt-in): its
    # λ is a function of the release (post-processing), so a released value
    "DPLinearRegression[sure]": Case(
        _m("DPLinearRegression", experimental=RegressionOptions(slope_shrink="sure"), **_BXY),
        lambda r: _numeric(r, labels="real"), _fit_xy,
        released=frozenset({"coef_", "intercept_", "moments_", "ridge_", "coef_std_",
                            "intercept_std_", "intercept_bias_bound_", "sure_ridge_"}) | _DECISION),
    # the label's DP range inside a loose public box (docs/regression.md §8b, opt-in, task RL):
    # n = 120 >= 1161/ε at ε = 20, so under replace-one the range is estimated (its own charge,
    # before the fit's); the range and whether it came out flat are DP outputs, so released
    # values, and so is what the noise allocation computed from that range (the candidates); under
    # add-remove the box is kept and nothing is spent
    "DPLinearRegression[label range]": Case(
        _m("DPLinearRegression", experimental=RegressionOptions(label_range="auto"), bounds_X=(-1,
                                                                                               1), bounds_y=(-100, 100),
           epsilon=20.0, **{k: v for k, v in _B.items() if k != "epsilon"}),
        lambda r: _numeric(r, labels="real"), _fit_xy,
        released=frozenset({"coef_", "intercept_", "moments_", "ridge_", "coef_std_",
                            "intercept_std_", "intercept_bias_bound_", "bounds_", "label_range_", "noise_candidates_",
                            "noise_", "allocation_"}) | _DECISION,
        charges=2),
    # the regression opt-ins of issue 24 (docs/regression.md §3b-3c): a dedicated DP mean of
    # the target in the same charge, the risk selection and the level prior (post-processing)
    "DPLinearRegression[level]": Case(
        _m("DPLinearRegression", experimental=RegressionOptions(level_share="auto", select="risk",
                                                                level_prior="gauss"), **_BXY),
        lambda r: _numeric(r, labels="real"), _fit_xy,
        released=frozenset({"coef_", "intercept_", "moments_", "ridge_", "coef_std_",
                            "intercept_std_", "intercept_bias_bound_", "target_mean_", "selected_", "risk_estimates_"})),
    "DPRidge[level]": Case(
        _m("DPRidge", experimental=RegressionOptions(level_share=0.5, level_prior="box"), **_BXY),
        lambda r: _numeric(r, labels="real"), _fit_xy,
        released=frozenset({"coef_", "intercept_", "moments_", "ridge_", "coef_std_",
                            "intercept_std_", "intercept_bias_bound_", "target_mean_", "level_weight_"})),
    # boosting on the joint release (docs/regression.md §4c): the joint release and the rounds'
    # releases of the clipped residual correlations, composed and charged once
    "DPLinearRegression[boosted]": Case(
        _m("DPLinearRegression", experimental=RegressionOptions(boost_rounds=3),
           **_BXY), lambda r: _numeric(r, labels="real"),
        _fit_xy, released=frozenset({"coef_", "intercept_", "moments_", "ridge_", "coef_std_",
                                     "intercept_std_", "intercept_bias_bound_"})),
    # the growing residual clip (docs/regression.md §4d): each round's τ is a function of the
    # public inputs and the earlier releases, so boost_clip_/boost_clips_ are released values
    "DPLinearRegression[boosted, grow clip]": Case(
        _m("DPLinearRegression", experimental=RegressionOptions(boost_rounds=2, boost_clip="grow"),
           **_BXY),
        lambda r: _numeric(r, labels="real"), _fit_xy,
        released=frozenset({"coef_", "intercept_", "moments_", "ridge_", "coef_std_",
                            "intercept_std_", "intercept_bias_bound_", "boost_clip_", "boost_clips_"})),
    # the default's fallback (docs/regression.md §4e; "adaptive" is the old name of "auto"): a
    # clip no residual stays under sends the decision to the second joint release; the branch
    # and the released residual scale it read are functions of the joint release
    # (post-processing), so they are released values
    "DPLinearRegression[adaptive boost, fallback]": Case(
        _m("DPLinearRegression", experimental=RegressionOptions(boost_rounds="adaptive",
                                                                boost_clip=1e-3), **_BXY),
        lambda r: _numeric(r, labels="real"), _fit_xy,
        released=frozenset({"coef_", "intercept_", "moments_", "ridge_", "coef_std_",
                            "intercept_std_", "intercept_bias_bound_"}) | _DECISION),
    # the count of rounds chosen from the joint release (docs/regression.md §4f, opt-in): the
    # predicted losses it compared are post-processing of that release, so released values
    "DPLinearRegression[predict]": Case(
        _m("DPLinearRegression", experimental=RegressionOptions(boost_rounds="predict"), **_BXY),
        lambda r: _numeric(r, labels="real"), _fit_xy,
        released=frozenset({"coef_", "intercept_", "moments_", "ridge_", "coef_std_",
                            "intercept_std_", "intercept_bias_bound_", "boost_predicted_loss_"}) | _DECISION),
    # least-squares rounds in place of the fallback's second release (§4g, opt-in); a label
    # box narrower than the labels and a large ε make the released residuals large against τ₀:
    # the ls-rounds branch on every dataset of the pair, under both relations
    "DPLinearRegression[ls-fallback]": Case(
        _m("DPLinearRegression", experimental=RegressionOptions(boost_rounds="ls-fallback"),
           bounds_X=(-1, 1),
           bounds_y=(-0.2, 0.2), epsilon=50.0,
           **{k: v for k, v in _B.items() if k != "epsilon"}),
        lambda r: _numeric(r, labels="real"), _fit_xy,
        released=frozenset({"coef_", "intercept_", "moments_", "ridge_", "coef_std_",
                            "intercept_std_", "intercept_bias_bound_"}) | _DECISION),
    # the same, gated by the released R² (§4h, opt-in): the R² the gate read is a function of
    # the joint release, so a released value; here the gate opens (R̂² lower ≈ 0.75) on every
    # dataset of the pair, under both relations
    "DPLinearRegression[ls-signal]": Case(
        _m("DPLinearRegression", experimental=RegressionOptions(boost_rounds="ls-signal"),
           bounds_X=(-1, 1),
           bounds_y=(-0.2, 0.2), epsilon=50.0,
           **{k: v for k, v in _B.items() if k != "epsilon"}),
        lambda r: _numeric(r, labels="real"), _fit_xy,
        released=frozenset({"coef_", "intercept_", "moments_", "ridge_", "coef_std_",
                            "intercept_std_", "intercept_bias_bound_", "boost_signal_"}) | _DECISION),
    # §4k's bias gate (the default "auto" since task RW; explicit here): the same narrow label
    # box and large ε send §4e to its fallback, where the gate reads the release
    "DPLinearRegression[bias-gated]": Case(
        _m("DPLinearRegression", experimental=RegressionOptions(boost_rounds="bias-gated"),
           bounds_X=(-1, 1),
           bounds_y=(-0.2, 0.2), epsilon=50.0,
           **{k: v for k, v in _B.items() if k != "epsilon"}),
        lambda r: _numeric(r, labels="real"), _fit_xy,
        released=frozenset({"coef_", "intercept_", "moments_", "ridge_", "coef_std_",
                            "intercept_std_", "intercept_bias_bound_"}) | _DECISION),
    # §4m's lift gate (opt-in, task RB): the same setting as the bias gate's, where the new
    # reading is made whenever §4k's gate stays shut
    "DPLinearRegression[lift-gated]": Case(
        _m("DPLinearRegression", experimental=RegressionOptions(boost_rounds="lift-gated"),
           bounds_X=(-1, 1),
           bounds_y=(-0.2, 0.2), epsilon=50.0,
           **{k: v for k, v in _B.items() if k != "epsilon"}),
        lambda r: _numeric(r, labels="real"), _fit_xy,
        released=frozenset({"coef_", "intercept_", "moments_", "ridge_", "coef_std_",
                            "intercept_std_", "intercept_bias_bound_"}) | _DECISION),
    "DPRidge[boosted]": Case(
        _m("DPRidge", experimental=RegressionOptions(boost_rounds=2),
           **_BXY), lambda r: _numeric(r, labels="real"), _fit_xy,
        released=frozenset({"coef_", "intercept_", "moments_", "ridge_", "coef_std_",
                            "intercept_std_", "intercept_bias_bound_"})),
    "DPCovariance[coinpress radius]": Case(
        _m("DPCovariance", method="coinpress",
           experimental=CovarianceOptions(coinpress_beta="auto"), epsilon=50.0,
           **{k: v for k, v in _BX.items() if k != "epsilon"}), _numeric, _fit_x,
        relations=("replace-one",), released=frozenset({"covariance_", "location_"})),
    "DPCovariance[coinpress late radius]": Case(
        _m("DPCovariance", method="coinpress",
           experimental=CovarianceOptions(coinpress_beta="late"), epsilon=50.0,
           **{k: v for k, v in _BX.items() if k != "epsilon"}), _numeric, _fit_x,
        relations=("replace-one",), released=frozenset({"covariance_", "location_"})),
    "DPRidge": Case(_m("DPRidge", **_BXY), lambda r: _numeric(r, labels="real"), _fit_xy,
                    released=frozenset({"coef_", "intercept_", "moments_", "ridge_",
                                        "coef_std_", "intercept_std_", "intercept_bias_bound_"}) | _DECISION),
    "AdaSSPRegression": Case(_m("AdaSSPRegression", **_BXY), lambda r: _numeric(r, labels="real"),
                             _fit_xy,
                             # ridge_: AdaSSP's lambda, from its released lambda_min
                             released=frozenset({"coef_", "intercept_", "ridge_"})),
    "BoostedAdaSSPRegression": Case(_m("BoostedAdaSSPRegression", n_rounds=5, **_BXY),
                                    lambda r: _numeric(r, labels="real"), _fit_xy,
                                    released=frozenset({"coef_", "intercept_", "ridge_"})),
    "DPDirectionsMVG": Case(_directions, _numeric, _fit_x, relations=("replace-one",),
                            released=frozenset({"directions_", "mechanism_"}), keeper=("init", "fit")),
    "RONGauss": Case(_ron_gauss, _numeric, _fit_x, keeper=("init", "fit"), sample=_ron_sample,
                     released=frozenset({"mean_", "covariance_", "covariance_raw_",
                                         "n_records_",
                                         # add/remove: the Laplace scale on the sums divided
                                         # by the released DP count (docstring)
                                         "mean_scale_", "cov_scale_"})),
    "RONGauss/classification": Case(
        lambda r, **k: _ron_gauss(r, "classification", **k), lambda r: _numeric(r, labels="class"),
        _fit_xy, keeper=("init", "fit"), sample=_ron_sample,
        released=frozenset({"mean_", "covariance_", "covariance_raw_", "class_means_",
                            "class_counts_", "class_weights_", "mean_scale_", "cov_scale_"})),
    "RONGauss/regression": Case(
        lambda r, **k: _ron_gauss(r, "regression", **k), lambda r: _numeric(r, labels="real"),
        _fit_xy, keeper=("init", "fit"), sample=_ron_sample,
        released=frozenset({"mean_", "covariance_", "covariance_raw_", "n_records_",
                            "label_mean_", "mean_scale_", "cov_scale_"})),
    "DPCopula": Case(_copula, _frame, _fit_xy, relations=("add-remove",), keeper=("init", "fit"),
                     released=frozenset({"class_counts_", "class_priors_", "marginals_",
                                         "marginal_counts_", "correlation_", "correlation_raw_",
                                         "orders_"}),
                     sample=_sample_frame),
    "DPTreeCopula": Case(_tree_copula, _frame, _fit_xy, relations=("add-remove",),
                         keeper=("init", "fit"),
                         released=frozenset({"class_counts_", "class_priors_", "marginals_",
                                             "correlation_", "correlation_raw_", "scores_raw_",
                                             "edge_counts_", "edge_tables_",
                                             # the tree is chosen from the released scores
                                             "tree_"}),
                         sample=_sample_frame),
    # a second parent per tree column (docs/tree_copula.md, opt-in): chosen from the released
    # scores and class sizes, so the network is a released value like the tree
    "DPTreeCopula[two parents]": Case(
        lambda relation, **keeper: _tree_copula(relation, max_parents=2, **keeper), _frame,
        _fit_xy, relations=("add-remove",), keeper=("init", "fit"),
        released=frozenset({"class_counts_", "class_priors_", "marginals_", "correlation_",
                            "correlation_raw_", "scores_raw_", "edge_counts_", "edge_tables_",
                            "tree_", "second_parents_"}),
        sample=_sample_frame),
    # public atoms (docs/tree_copula.md, "Public atoms"): one more cell per atom on every grid,
    # a layout from public values only (D' adds/replaces a record equal to an atom: 50.0)
    "DPTreeCopula[atoms]": Case(
        lambda relation, **keeper: _tree_copula(relation, atoms={"income": [0.0, 50.0],
                                                                 "age": [18.0]}, **keeper),
        _frame, _fit_xy, relations=("add-remove",), keeper=("init", "fit"),
        released=frozenset({"class_counts_", "class_priors_", "marginals_", "correlation_",
                            "correlation_raw_", "scores_raw_", "edge_counts_", "edge_tables_",
                            "tree_"}),
        sample=_sample_frame),
    # ---- task PA (session 18): options of sessions 17-18 the cases above did not reach; each
    # passed every generic test when added (a probe over ~60 option variants found no defect)
    # kind="correlation" (the default method: adaptive under replace-one, moments under
    # add-remove): what either path releases
    "DPCovariance[correlation]": Case(
        _m("DPCovariance", kind="correlation", **_BX), _numeric, _fit_x,
        released=frozenset({"covariance_", "location_", "moments_", "allocation_",
                            "adaptive_choice_", "adaptive_predicted_"})),
    # the whitened branch refined in two CoinPress steps (task HC, opt-in)
    "DPCovariance[adaptive refine]": Case(
        _m("DPCovariance", method="adaptive", experimental=CovarianceOptions(adaptive_refine=True),
           **_BX), _numeric, _fit_x,
        relations=("replace-one",),
        released=frozenset({"covariance_", "location_", "allocation_", "adaptive_choice_",
                            "adaptive_predicted_"})),
    # the moments branch's last release as the full draw (the release before task CV, session 24)
    "DPCovariance[adaptive moments full draw]": Case(
        _m("DPCovariance", experimental=CovarianceOptions(adaptive_moments_triangle=False),
           **_BX), _numeric, _fit_x,
        relations=("replace-one",),
        released=frozenset({"covariance_", "location_", "allocation_", "adaptive_choice_",
                            "adaptive_predicted_"})),
    # the correlation default's moments branch as a dominating triangle (task TC, opt-in)
    "DPCovariance[correlation triangle]": Case(
        _m("DPCovariance", kind="correlation",
           experimental=CovarianceOptions(adaptive_correlation_triangle=True), **_BX),
        _numeric, _fit_x,
        released=frozenset({"covariance_", "location_", "moments_", "allocation_",
                            "adaptive_choice_", "adaptive_predicted_"})),
    "DPPCA[unit-box]": Case(
        _m("DPPCA", n_components=2, noise="unit-box", **_BX), _numeric, _fit_x,
        released=frozenset({"components_", "explained_variance_", "explained_variance_ratio_",
                            "mean_", "moments_"})),
    # DP bounds (docs/bounds.md): the ranges are their own entry, then the release
    "DPMean[dp bounds]": Case(
        _m("DPMean", **{**_BX, "bounds": "dp"}), _numeric, _fit_x,
        released=frozenset({"mean_", "bounds_"}), charges=2),
    # n_bins="per-class": the DP class sizes choose each class's bins, so they are released
    "DPTreeCopula[per-class bins]": Case(
        lambda relation, **keeper: _tree_copula(relation, n_bins="per-class", **keeper), _frame,
        _fit_xy, relations=("add-remove",), keeper=("init", "fit"),
        released=_TREE | {"class_sizes_raw_", "class_bins_"}, sample=_sample_frame),
    # the b-ary tree over the one-way histograms (opt-in)
    "DPTreeCopula[histogram tree]": Case(
        lambda relation, **keeper: _tree_copula(relation, histogram_tree=4,
                                                histogram_tree_columns="all", **keeper),
        _frame, _fit_xy, relations=("add-remove",), keeper=("init", "fit"),
        released=_TREE | {"histogram_tree_counts_"}, sample=_sample_frame),
    # smoothed marginals and a tested sparse span (post-processing of the histograms)
    "DPTreeCopula[smoothed, sparse]": Case(
        lambda relation, **keeper: _tree_copula(relation, marginals="smoothed", sparse="tested",
                                                **keeper),
        _frame, _fit_xy, relations=("add-remove",), keeper=("init", "fit"), released=_TREE,
        sample=_sample_frame),
    # the labels' DP mean (Laplace, composed into privacy_; replace-one only)
    "RONGauss/regression[dp label mean]": Case(
        lambda r, **k: _ron_gauss(r, "regression", label_mean="dp", **k),
        lambda r: _numeric(r, labels="real"), _fit_xy, relations=("replace-one",),
        keeper=("init", "fit"), sample=_ron_sample,
        released=frozenset({"mean_", "covariance_", "covariance_raw_", "n_records_",
                            "label_mean_", "mean_scale_", "cov_scale_"})),
}
