"""The median ranking's moments branch predicted with the triangle it draws (task AB, session 25;
``AdaptiveOptions(triangle_prediction=True)``, ``CovarianceOptions(adaptive_triangle_prediction=
True)``; ``docs/coinpress.md`` § "The moments branch predicted as it is drawn (task AB)").

Asserted: :func:`triangle_moments_prediction` returns the dominating triangle's entry variances
and the loss computed from them where a triangle dominates, the plan's own (and the loss passed
in) where none does; with the option, the median choice is given exactly those (spied), the
guarantee and every release are the default's, a fit whose choice is unchanged is byte-identical,
and on a small table the choice does change in some fits (so the option is not a no-op); the
option needs the drawn triangle and is validated by name.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from matrixdp.calibration.gaussian import gaussian_epsilon
from matrixdp.errors import InvalidParameterError
from matrixdp.models import CovarianceOptions, DPCovariance
from matrixdp.models._moments import (augmented_task, combined_variance, dominating_triangle_of,
                                      plan_second_moment)
from matrixdp.models.adaptive import AdaptiveOptions
from matrixdp.models.adaptive.losses import moments_loss, triangle_moments_prediction

ON = CovarianceOptions(adaptive_triangle_prediction=True)


def _table(n=400, seed=5):
    """Three Gaussian features and a clipped Pareto one in a public box (the counts are released
    in most fits at ε = 2)."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.standard_normal(n) * 2, rng.standard_normal(n),
                         rng.standard_normal(n) * 0.5, np.minimum(rng.pareto(3.0, n), 20)])
    lo, hi = np.array([-8.0, -4.0, -2.0, 0.0]), np.array([8.0, 4.0, 2.0, 20.0])
    return np.clip(X, lo, hi), lo, hi


def _fit(X, lo, hi, s, experimental=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return DPCovariance(epsilon=2.0, delta=1e-6, bounds=(lo, hi), random_state=s,
                            experimental=experimental).fit(X)


def test_the_prediction_is_the_triangles_where_one_dominates_else_the_plans():
    lo, hi = -np.ones(3), np.ones(3)
    task, _, t = augmented_task(lo, hi, 500, "covariance")
    plan = plan_second_moment(task, epsilon=1.0, delta=1e-6)[0]
    V1 = plan.entry_variance * 3.0
    m, w = np.array([0.1, -0.2, 0.3]), np.ones(3)
    p_plan = moments_loss(combined_variance(V1, plan.entry_variance), m, w, t)
    V2, p = triangle_moments_prediction(task, 1e-6, plan, V1, m, w, t, None, p_plan)
    tri = dominating_triangle_of(task, gaussian_epsilon(1e-6, 1.0, float(plan.privacy.mu)),
                                 1e-6, plan)
    assert tri is not None
    np.testing.assert_array_equal(V2, tri.entry_variance)
    assert p == moments_loss(combined_variance(V1, tri.entry_variance), m, w, t)
    assert p < p_plan  # the triangle's diagonal is quieter, nothing else is noisier
    # no triangle dominates the i.i.d. full draw of a one-signed Gram box: the plan's own
    gram = augmented_task(np.zeros(3), np.ones(3), 500, "gram")[0]
    iid = plan_second_moment(gram, epsilon=1.0, delta=1e-6, noise="iid")[0]
    V2, p = triangle_moments_prediction(gram, 1e-6, iid, V1, m, w, t, None, 123.0)
    assert V2 is iid.entry_variance and p == 123.0


def test_only_the_choice_changes_and_it_does_change(monkeypatch):
    import matrixdp.models.adaptive.release as rel

    X, lo, hi = _table()
    seen = []
    real = rel.median_choice

    def spy(V1, V2, m, weights, t, v_first, pred_mom, *rest):
        seen.append((V2, pred_mom))
        return real(V1, V2, m, weights, t, v_first, pred_mom, *rest)

    flips = same = 0
    for s in range(30):
        a = _fit(X, lo, hi, s)
        seen.clear()
        monkeypatch.setattr(rel, "median_choice", spy)
        b = _fit(X, lo, hi, s, ON)
        monkeypatch.setattr(rel, "median_choice", real)
        assert a.privacy_ == b.privacy_
        pa, pb = a.adaptive_predicted_, b.adaptive_predicted_
        assert pa.keys() == pb.keys()
        # the first look and the counts (same bins, same draws) are the default's
        for key in ("moments", "clipping_loss", "clipping_loss_sd", "statistic"):
            assert pa[key] == pb[key], key
        if pa["statistic"] == "counts":
            (V2, pred), = seen
            assert b.allocation_ in ("coinpress",) or b.allocation_.endswith("triangle")
            assert pb["moments_median"] < pa["moments_median"]  # the triangle's, lower
            assert pred < pa["moments"]
            assert np.all(np.isfinite(V2))
        if a.adaptive_choice_ == b.adaptive_choice_:
            assert np.array_equal(a.covariance_, b.covariance_)  # byte for byte
            same += 1
        else:
            flips += 1
    assert flips >= 1 and same >= 15


def test_off_is_the_default_release_byte_for_byte():
    X, lo, hi = _table()
    for s in range(3):
        a = _fit(X, lo, hi, s)
        b = _fit(X, lo, hi, s, CovarianceOptions(adaptive_triangle_prediction=False))
        assert np.array_equal(a.covariance_, b.covariance_)
        assert a.adaptive_predicted_ == pytest.approx(b.adaptive_predicted_, nan_ok=True)


def test_validated_by_name_and_needs_the_drawn_triangle():
    with pytest.raises(InvalidParameterError, match="adaptive_triangle_prediction"):
        CovarianceOptions(adaptive_triangle_prediction="on")
    with pytest.raises(InvalidParameterError, match="triangle_prediction"):
        AdaptiveOptions(triangle_prediction=1)
    with pytest.raises(InvalidParameterError, match="triangle_prediction"):
        AdaptiveOptions(triangle_prediction=True)  # moments_triangle=False draws no triangle
    AdaptiveOptions(moments_triangle=True, triangle_prediction=True)
