"""DPTreeCopula's edge tables: the priors of ``edge_prior`` and the fit to the DP margins.
(Moved from test_tree_copula.py with the module split; same assertions.)"""

import numpy as np

from matrixdp.synth import edge_tables as et


def test_row_prior_pulls_rare_rows_and_keeps_populated_ones():
    # parent row 0: 1000 records, child always 0; row 1: 10 records, child always 1 (noise-like)
    raw = np.array([[1000.0, 0.0, 0.0], [0.0, 10.0, 0.0]])
    pa = raw.sum(axis=1) / raw.sum()
    pb = raw.sum(axis=0) / raw.sum()
    prior = 20.0  # pseudo-counts per cell
    row = et.fit_table(raw, raw.sum(), pa, pb, prior, per_row=True)
    joint = et.fit_table(raw, raw.sum(), pa, pb, prior, per_row=False)
    cond = lambda T: T / T.sum(axis=1, keepdims=True)  # noqa: E731
    # both fit the margins
    for T in (row, joint):
        np.testing.assert_allclose(T.sum(axis=1), pa, atol=1e-6)
        np.testing.assert_allclose(T.sum(axis=0), pb, atol=1e-6)
    # the populated row keeps its conditional under the row prior (60 pseudo-counts vs 1000)...
    assert cond(row)[0, 0] > 0.95
    # ...the joint prior spreads 20 * 6 pseudo-counts by pa: row 0 gets ~119 of them, row 1 ~1
    assert cond(joint)[1, 1] > cond(row)[1, 1]  # the rare row is pulled less by "joint"
    assert cond(row)[1, 1] < 0.6                # and toward the marginal by "row"
