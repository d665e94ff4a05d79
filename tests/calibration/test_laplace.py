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
