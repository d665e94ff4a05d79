"""The estimators' research knobs behind ``experimental=`` (task XP; docs/experimental.md).

The options objects validate each field; the deprecated keywords map into them with a
FutureWarning and the same fit, bit for bit; mixing the two spellings raises; scikit-learn's
parameter machinery (get/set_params, clone, pickling, repr) carries the options; the library's
own default fits and the experiments' keyword path emit no FutureWarning.
"""

from __future__ import annotations

import dataclasses
import inspect
import pickle
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone

from matrixdp.errors import InvalidParameterError
from matrixdp.models import (DPPCA, CovarianceOptions, DPCovariance, DPLinearRegression, DPRidge,
                             PCAOptions, RegressionOptions)
from matrixdp.models.experimental import DEPRECATED, REMOVED_IN

OPTIONS = {DPLinearRegression: RegressionOptions, DPRidge: RegressionOptions,
           DPCovariance: CovarianceOptions, DPPCA: PCAOptions}

#: One non-default value per field (a value the docs or experiments name).
SET = {RegressionOptions: {"level_share": 0.1, "select": "risk", "level_prior": "box",
                           "boost_rounds": 0, "boost_clip": "grow", "slope_shrink": "sure",
                           "label_range": "auto", "level_shrinkage": "minimax"},
       CovarianceOptions: {"coinpress_beta": "auto", "adaptive_ranking": "mean",
                           "correlation_rule": "guard", "adaptive_refine": True,
                           "projected_floor": "continuous", "adaptive_moments_triangle": False,
                           "adaptive_correlation_triangle": True, "triangle_floor": True,
                           "adaptive_triangle_prediction": True},
       PCAOptions: {"coinpress_beta": "late", "adaptive_first": "pca", "adaptive_resolve_z": 3.0,
                    "adaptive_resolve_share": 0.5, "adaptive_bias": "records",
                    "adaptive_step_margin": "noise-level", "adaptive_tail_bias": "gap-shrink",
                    "adaptive_moments_triangle": True, "adaptive_first_share": 0.125,
                    "adaptive_step_reuse": True, "adaptive_split_look": True}}
#: Invalid values, each refused by the field's name.
BAD = {RegressionOptions: {"level_share": 1.0, "select": "cp", "level_prior": -1.0,
                           "boost_rounds": -1, "boost_clip": 0.0, "slope_shrink": "stein",
                           "label_range": "dp", "level_shrinkage": "bogus"},
       CovarianceOptions: {"coinpress_beta": 1.5, "adaptive_ranking": "mode",
                           "correlation_rule": "none", "adaptive_refine": "twice",
                           "projected_floor": "linear", "adaptive_moments_triangle": "yes",
                           "adaptive_correlation_triangle": "yes", "triangle_floor": 1,
                           "adaptive_triangle_prediction": "yes"},
       PCAOptions: {"coinpress_beta": 0.0, "adaptive_first": "both", "adaptive_resolve_z": -1.0,
                    "adaptive_resolve_share": 2.0, "adaptive_bias": "mean",
                    "adaptive_step_margin": "wide", "adaptive_tail_bias": "everywhere",
                    "adaptive_moments_triangle": "yes", "adaptive_first_share": 1.0,
                    "adaptive_step_reuse": "yes", "adaptive_split_look": "yes"}}
#: Fields added after the keywords were deprecated (session 22 on): options only, no keyword.
NEW_FIELDS = {CovarianceOptions: {"projected_floor", "adaptive_moments_triangle",
                                  "adaptive_correlation_triangle", "triangle_floor",
                                  "adaptive_triangle_prediction"},
              RegressionOptions: {"level_shrinkage"},
              PCAOptions: {"adaptive_step_margin", "adaptive_tail_bias", "adaptive_moments_triangle",
                           "adaptive_first_share", "adaptive_step_reuse",
                           "adaptive_split_look"}}


def _data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 3))
    y = np.clip(X @ np.array([0.5, -0.3, 0.2]) + 0.2 * rng.standard_normal(n), -1, 1)
    return X, y


def _fit(cls, seed=3, **kw):
    X, y = _data()
    if cls in (DPLinearRegression, DPRidge):
        return cls(epsilon=2.0, bounds_X=(-1, 1), bounds_y=(-1, 1), random_state=seed,
                   **kw).fit(X, y)
    extra = {"n_components": 2} if cls is DPPCA else {}
    return cls(epsilon=2.0, bounds=(-1, 1), random_state=seed, **extra, **kw).fit(X)


def _fitted(est) -> dict:
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}


def _assert_same_fit(a, b):
    fa, fb = _fitted(a), _fitted(b)
    assert fa.keys() == fb.keys()
    for k in fa:
        if isinstance(fa[k], np.ndarray):
            assert fa[k].dtype == fb[k].dtype and fa[k].tobytes() == fb[k].tobytes(), k
        else:
            assert repr(fa[k]) == repr(fb[k]), k


@pytest.mark.parametrize("options", list(SET))
def test_every_field_is_a_deprecated_keyword_of_its_estimators(options):
    """The options' fields are exactly the estimators' deprecated keywords (sentinel default),
    except the fields added after the deprecation (``NEW_FIELDS``: no keyword), and
    ``experimental`` defaults to None."""
    names = {f.name for f in dataclasses.fields(options)}
    assert names == set(SET[options]) == set(BAD[options])
    for cls, opt in OPTIONS.items():
        if opt is not options:
            continue
        params = inspect.signature(cls).parameters
        assert params["experimental"].default is None
        deprecated = {k for k, p in params.items() if p.default is DEPRECATED}
        assert deprecated == names - NEW_FIELDS.get(options, set()), cls.__name__
        assert not NEW_FIELDS.get(options, set()) & set(params), cls.__name__


@pytest.mark.parametrize("options", list(SET))
def test_options_validate_each_field_by_name(options):
    options()  # the defaults are valid
    options(**SET[options])  # so is a value of each field
    for name, value in BAD[options].items():
        with pytest.raises(InvalidParameterError, match=name):
            options(**{name: value})


@pytest.mark.parametrize("options", list(SET))
def test_options_are_frozen_hashable_compare_by_value_and_repr_the_changed_fields(options):
    a, b = options(**SET[options]), options(**SET[options])
    assert a == b and hash(a) == hash(b) and a != options()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(a, next(iter(SET[options])), None)
    assert repr(options()) == f"{options.__name__}()"
    name, value = next(iter(SET[options].items()))
    assert repr(options(**{name: value})) == f"{options.__name__}({name}={value!r})"
    assert eval(repr(a), {options.__name__: options}) == a
    assert pickle.loads(pickle.dumps(a)) == a


@pytest.mark.parametrize("cls", list(OPTIONS))
def test_the_default_options_are_the_shipped_fit(cls):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        a = _fit(cls)
        b = _fit(cls, experimental=OPTIONS[cls]())
    _assert_same_fit(a, b)


#: (estimator, knob, value): a knob per estimator whose value changes the fit on _data.
CHANGED = [(DPLinearRegression, "boost_rounds", 0), (DPRidge, "select", "risk"),
           (DPLinearRegression, "level_prior", "gauss"),
           (DPCovariance, "coinpress_beta", "auto"), (DPPCA, "adaptive_bias", "model"),
           (DPPCA, "coinpress_beta", 0.05)]


@pytest.mark.parametrize("cls,name,value", CHANGED)
def test_a_deprecated_keyword_warns_naming_the_new_spelling_and_fits_the_same(cls, name, value):
    opt = OPTIONS[cls]
    new = _fit(cls, experimental=opt(**{name: value}))
    with pytest.warns(FutureWarning) as caught:
        old = _fit(cls, **{name: value})
    assert len(caught) == 1
    message = str(caught[0].message)
    assert f"experimental={opt.__name__}({name}={value!r})" in message
    assert f"removed in {REMOVED_IN}" in message and cls.__name__ in message
    assert caught[0].filename == __file__  # attributed to the caller of fit
    _assert_same_fit(old, new)


def test_the_knob_changes_the_fit_so_the_comparison_is_not_vacuous():
    a = _fit(DPLinearRegression)
    b = _fit(DPLinearRegression, experimental=RegressionOptions(boost_rounds=0))
    assert not np.array_equal(a.coef_, b.coef_)
    p = _fit(DPPCA, experimental=PCAOptions(coinpress_beta=0.05))
    q = _fit(DPPCA)
    assert not np.array_equal(p.components_, q.components_) or \
        p.adaptive_choice_ == q.adaptive_choice_ == "moments"


@pytest.mark.parametrize("cls", list(OPTIONS))
def test_both_spellings_raise(cls):
    opt = OPTIONS[cls]
    name, value = next(iter(SET[opt].items()))
    with pytest.raises(InvalidParameterError, match=name):
        _fit(cls, experimental=opt(), **{name: value})
    other, other_value = list(SET[opt].items())[1]
    with pytest.raises(InvalidParameterError, match="experimental"):  # another knob: raises too
        _fit(cls, experimental=opt(**{name: value}), **{other: other_value})


@pytest.mark.parametrize("cls", list(OPTIONS))
def test_experimental_must_be_its_estimators_options(cls):
    wrong = PCAOptions() if OPTIONS[cls] is not PCAOptions else RegressionOptions()
    for bad in (wrong, {"boost_rounds": 0}, "none"):
        with pytest.raises(InvalidParameterError, match="experimental"):
            _fit(cls, experimental=bad)


@pytest.mark.parametrize("cls", list(OPTIONS))
def test_params_clone_pickle_and_repr_carry_the_options(cls):
    opt = OPTIONS[cls](**dict([next(iter(SET[OPTIONS[cls]].items()))]))
    est = cls(experimental=opt)
    assert est.get_params()["experimental"] is opt
    assert clone(est).get_params()["experimental"] == opt
    assert f"experimental={opt!r}" in repr(est)
    assert "deprecated" not in repr(est) and "experimental" not in repr(cls())
    assert pickle.loads(pickle.dumps(est)).get_params()["experimental"] == opt
    est.set_params(experimental=None)
    assert est.experimental is None


def test_set_params_switches_the_knob_of_a_fitted_model():
    X, y = _data()
    m = DPLinearRegression(epsilon=2.0, bounds_X=(-1, 1), bounds_y=(-1, 1), random_state=3)
    assert m.fit(X, y).boost_branch_ != "single-release"
    m.set_params(experimental=RegressionOptions(boost_rounds=0))
    assert m.fit(X, y).boost_branch_ == "single-release"


def test_the_experiments_keyword_path_emits_no_future_warning():
    """``experiments/_utility_common.experimental_keywords`` (how every experiment script hands
    its flat knob dicts to the estimators) gives the new spelling: no FutureWarning, the same
    fit as the deprecated keyword."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
    try:
        import _utility_common as uc
    finally:
        sys.path.pop(0)
    for cls, name, value in CHANGED:
        kw = uc.experimental_keywords(cls, {name: value, "random_state": 3})
        assert kw["experimental"] == OPTIONS[cls](**{name: value}) and kw["random_state"] == 3
        with warnings.catch_warnings():
            warnings.simplefilter("error", FutureWarning)
            new = _fit(cls, **{k: v for k, v in kw.items() if k != "random_state"})
        _assert_same_fit(new, _fit(cls, experimental=OPTIONS[cls](**{name: value})))
    merged = uc.experimental_keywords(DPLinearRegression, {
        "experimental": RegressionOptions(select="risk"), "boost_rounds": 0})
    assert merged == {"experimental": RegressionOptions(select="risk", boost_rounds=0)}


def test_a_grid_search_over_the_options_refits_the_chosen_ones():
    """The options are ordinary parameter values: ``GridSearchCV`` clones, fits and refits them
    (each fit charged and drawn as any fit; a seeded grid for the test only)."""
    from sklearn.model_selection import GridSearchCV

    X, y = _data(800)
    grid = [None, RegressionOptions(boost_rounds=0)]
    search = GridSearchCV(DPLinearRegression(epsilon=5.0, bounds_X=(-1, 1), bounds_y=(-1, 1),
                                             random_state=2),
                          {"experimental": grid}, cv=2).fit(X, y)
    assert [p["experimental"] for p in search.cv_results_["params"]] == grid
    chosen = search.best_params_["experimental"]
    assert search.best_estimator_.experimental == chosen
    assert (search.best_estimator_.boost_branch_ == "single-release") == (chosen is not None)
