import pytest

from matrixdp.calibration import laplace_scale
from matrixdp.errors import InvalidPrivacyParameterError


def test_scale_is_sensitivity_over_epsilon():
    assert laplace_scale(0.5, 2.0) == pytest.approx(4.0)


@pytest.mark.parametrize("eps,sens,name", [(0, 1, "epsilon"), (1, 0, "sensitivity"),
                                           (float("nan"), 1, "epsilon"), (1, -1, "sensitivity")])
def test_bad_arguments(eps, sens, name):
    with pytest.raises(InvalidPrivacyParameterError, match=name):
        laplace_scale(eps, sens)


@pytest.mark.parametrize("eps,sens,name", [
    (1e300, 1e-300, "sensitivity"),   # b = 1e-600 underflows to 0.0: no noise at all
    (1e300, 1e-30, "epsilon"),
    (1e-300, 1.0, "epsilon"),         # b = 1e300: 2 b^2 overflows
    (1.0, 1e300, "sensitivity"),
    (1e-300, 1e300, "sensitivity"),   # b = inf
])
def test_scale_that_under_or_overflows_is_refused(eps, sens, name):
    # hunt HY: laplace_scale returned 0.0 (a "pure eps-DP" release with no noise) or inf
    with pytest.raises(InvalidPrivacyParameterError, match=f"^{name}: .*(underflows|overflows)"):
        laplace_scale(eps, sens)


def test_scale_near_the_float_limits_is_kept():
    assert laplace_scale(1e300, 1.0) == pytest.approx(1e-300)
    assert laplace_scale(1e-150, 1.0) == pytest.approx(1e150)
