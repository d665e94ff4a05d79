"""The MVG user guide's code runs and its stated claims hold."""

import contextlib
import io
import re
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "mvg.md"


def test_user_guide_examples_run_and_claims_hold():
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
    assert len(blocks) == 3
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        for block in blocks:
            exec(compile(block, str(GUIDE), "exec"), namespace)
    ns = namespace
    assert abs(ns["directional"].privacy_profile(1.0) / 1e-6 - 1) < 1e-6
    assert ns["directional"].variances[1] < ns["iid"].variances[0] / 2.5
    assert ns["release"].privacy.exact
    assert ns["paper"].noise_summary().scale > 10 * ns["exact"].noise_summary().scale
    assert ns["paper"].privacy_profile(1.0) < 1e-6
