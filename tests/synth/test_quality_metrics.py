"""SDMetrics-style column shapes and column-pair trends (matrixdp.synth.evaluate)."""

import numpy as np
import pandas as pd
import pytest

from matrixdp.synth import TableSchema
from matrixdp.synth.evaluate import column_pair_trends, column_shapes

SCHEMA = TableSchema(bounds={"x": (0.0, 1.0), "w": (0.0, 1.0)}, categories={"c": ["a", "b"]})


def frame(n, rho, p, seed):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, 2)) @ np.linalg.cholesky([[1, rho], [rho, 1]]).T
    u = 0.5 + 0.15 * z
    return pd.DataFrame({"x": np.clip(u[:, 0], 0, 1), "w": np.clip(u[:, 1], 0, 1),
                         "c": np.where(rng.random(n) < p, "a", "b")})


def test_identical_tables_score_one():
    f = frame(500, 0.5, 0.3, 0)
    assert all(v == pytest.approx(1.0) for v in column_shapes(f, f, SCHEMA).values())
    assert all(v == pytest.approx(1.0) for v in column_pair_trends(f, f, SCHEMA).values())


def test_scores_match_their_definitions():
    real, syn = frame(20000, 0.8, 0.3, 1), frame(20000, 0.0, 0.6, 2)
    shapes = column_shapes(real, syn, SCHEMA)
    assert shapes["c"] == pytest.approx(1 - 0.3, abs=0.02)   # 1 - TV = 1 - |0.3 - 0.6|
    assert shapes["x"] > 0.97                                # same marginal: KS near 0
    trends = column_pair_trends(real, syn, SCHEMA)
    assert trends[("x", "w")] == pytest.approx(1 - 0.8 / 2, abs=0.02)  # 1 - |0.8 - 0| / 2
    assert trends[("x", "c")] < 0.75
