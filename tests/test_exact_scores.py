"""Every DP estimator's ``score`` warns that it is an exact, uncharged statistic (hunt DH2).

The fit is a charged DP release; ``score(X, y)`` is an exact function of the records passed, and
scikit-learn's model selection calls it on held-out folds of the private table
(``cross_val_score``'s default scoring, ``GridSearchCV``'s ranking, ``best_score_``). On main
before hunt DH2 the 16 catalogue cases with a ``score`` (every DP regressor) returned the exact
R² inside ``with Accountant(...)`` with no charge and no warning. Now one mixin
(``models._base.ExactScoreMixin``) gives every such ``score`` a :class:`PrivacyLeakWarning`;
the catalogue test below fails for any shipped class whose ``score`` bypasses it.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _estimator_cases import CASES  # noqa: E402

from matrixdp.accounting import Accountant  # noqa: E402
from matrixdp.errors import PrivacyLeakWarning  # noqa: E402
from matrixdp.models._base import EXACT_SCORE_WARNING  # noqa: E402

SCORED = sorted(n for n, c in CASES.items() if hasattr(c.make(c.relations[0]), "score"))


def test_the_scored_cases_are_the_regressors():
    # a guard on the catalogue walk itself: it finds the estimators that have a score
    assert len(SCORED) >= 16 and all("Regression" in n or "Ridge" in n for n in SCORED)


@pytest.mark.parametrize("name", SCORED)
def test_score_warns_that_it_is_exact_and_charges_nothing(name):
    case = CASES[name]
    relation = case.relations[0]
    (X, y), _ = case.data(relation)
    with Accountant(relation=relation) as acc:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = case.fit(case.make(relation), (X, y))
        spent = len(acc.spends)
        with pytest.warns(PrivacyLeakWarning, match="not differentially private") as caught:
            score = model.score(X, y)
    assert len(acc.spends) == spent  # nothing charged: the warning is the only signal
    assert np.isfinite(score)
    # the message is the fixed text: it holds no value computed from the data
    assert [str(w.message) for w in caught if w.category is PrivacyLeakWarning] == [
        EXACT_SCORE_WARNING]


def test_cross_validation_with_the_default_scoring_warns():
    from sklearn.model_selection import KFold, cross_val_score

    case = CASES["DPLinearRegression"]
    (X, y), _ = case.data("replace-one")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cross_val_score(case.make("replace-one"), X, y, cv=KFold(2))
    assert sum(w.category is PrivacyLeakWarning and "GridSearchCV" in str(w.message)
               for w in caught) == 2  # one per fold's score


def test_every_shipped_class_with_a_score_goes_through_the_mixin():
    """A new estimator inheriting scikit-learn's ``score`` directly (RegressorMixin,
    ClassifierMixin) is caught here, before any case is written for it."""
    import inspect

    import matrixdp.models
    import matrixdp.synth
    from matrixdp.models._base import ExactScoreMixin

    scored = []
    for module in (matrixdp.models, matrixdp.synth):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and callable(getattr(obj, "fit", None)) and hasattr(obj, "score"):
                scored.append(obj)
                owner = next(k for k in obj.__mro__ if "score" in vars(k))
                assert issubclass(owner, ExactScoreMixin), (obj.__name__, owner.__name__)
    assert len(scored) >= 4  # DPLinearRegression, DPRidge, AdaSSPRegression, BoostedAdaSSPRegression
