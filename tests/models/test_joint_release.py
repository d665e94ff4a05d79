"""What is read off the joint release (``models/joint_release.py``): the level's posterior under a
public prior (``docs/regression.md`` §3c)."""

from __future__ import annotations

import numpy as np
import pytest


def test_level_prior_weight_and_posterior_extremes():
    """v → 0 leaves the released level; v → ∞ gives the box centre; the weight is in [0, 1]."""
    from matrixdp.models.joint_release import level_posterior, level_prior_weight

    h = 5.0
    assert level_prior_weight(0.0, h) == 1.0
    assert level_prior_weight(1e-12, h) == pytest.approx(1.0, abs=1e-12)
    assert level_prior_weight(1e12, h) < 1e-10 and level_prior_weight(np.inf, h) == 0.0
    assert level_prior_weight(h * h / 3, h) == pytest.approx(0.5)  # v equal to the prior variance
    for prior in ("box", 1.0 / 3.0):
        level, w = level_posterior(2.0, 1e-10, h, prior)
        assert level == pytest.approx(2.0, abs=1e-6) and w == pytest.approx(1.0, abs=1e-6)
        level, w = level_posterior(2.0, 1e10, h, prior)
        assert abs(level) < 1e-3 and 0.0 <= w < 1e-3
        level, w = level_posterior(-40.0, 4.0, h, prior)  # far outside: clamped into the box
        assert -h <= level <= h and 0.0 <= w <= 1.0
    # the Gaussian prior's posterior is the linear weight, clamped
    level, w = level_posterior(3.0, h * h / 3, h, 1.0 / 3.0)
    assert w == pytest.approx(0.5) and level == pytest.approx(1.5)
