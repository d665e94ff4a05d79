"""``import matrixdp`` then ``matrixdp.<subpackage>`` works without importing it by hand."""

import subprocess
import sys

import pytest

SUBPACKAGES = ["datasets", "baselines", "audit", "synth", "mechanisms", "calibration"]


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_subpackage_is_reachable_as_an_attribute(name):
    # a fresh interpreter: no earlier test has imported the subpackage already
    code = (f"import matrixdp, sys; m = matrixdp.{name}; "
            f"assert m.__name__ == 'matrixdp.{name}'; print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_unknown_attribute_is_an_attribute_error():
    import matrixdp

    with pytest.raises(AttributeError, match="no_such_thing"):
        matrixdp.no_such_thing  # noqa: B018
