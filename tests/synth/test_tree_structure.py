"""DPTreeCopula's tree: the public rule of ``max_parents=2`` in closed form.
(Moved from test_tree_copula.py with the module split; same assertions.)"""

import math

from matrixdp.synth import tree_structure as ts


def test_second_parent_rule_closed_form():
    noise = math.sqrt(2 / math.pi) * 10.0
    # (A): 2 * 3 * 4 = 24 cells of noise sd 10 are estimable iff noise * 24 <= 0.5 * n_hat
    n_edge = 2 * noise * 24 / ts.SECOND_PARENT_NOISE_SHARE * 0.5
    big = 1e9  # a score far above the noise
    assert ts.second_parent_allowed(big, 2, 3, 4, 10.0, n_edge * 1.001)
    assert not ts.second_parent_allowed(big, 2, 3, 4, 10.0, n_edge * 0.999)
    # (B): the score must beat the extra cells' noise, noise * 2 * 4 * (3 - 1)
    cut = noise * 2 * 4 * 2
    assert ts.second_parent_allowed(cut * 1.001, 2, 3, 4, 10.0, 1e9)
    assert not ts.second_parent_allowed(cut * 0.999, 2, 3, 4, 10.0, 1e9)
    assert math.isclose(ts.second_parent_gain(cut + 5.0, 2, 3, 4, 10.0), 5.0)
    assert ts.second_parent_cells(8, True) == [8, 4, 2]
    assert ts.second_parent_cells(16, True) == [16, 8, 4, 2]
    assert ts.second_parent_cells(6, False) == [6]
