"""Fixtures shared by the synth tests."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def computed_shapes(monkeypatch):
    """The shape of every value ``dask.compute`` returns during the test, in order (a list the
    test may clear): what reaches the driver in an out-of-core fit."""
    dask = pytest.importorskip("dask")
    computed = []
    real_compute = dask.compute

    def spy(*args, **kwargs):
        out = real_compute(*args, **kwargs)
        computed.extend(np.shape(v) for v in out)
        return out

    monkeypatch.setattr(dask, "compute", spy)
    return computed
