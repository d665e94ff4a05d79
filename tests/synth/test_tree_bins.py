"""DPTreeCopula's public grids: the bins rules, integer edge cells, geometric edges.
(Moved from test_tree_copula.py with the module split; same assertions.)"""

import numpy as np

from matrixdp.synth import tree_bins as tb


def test_auto_bins_rule():
    # average records per bin and class >= 2 sigma: the largest such of 32, 16, 8
    assert tb.auto_bins(64_000, 2, 100.0) == 32   # 1000 per bin >= 200
    assert tb.auto_bins(6_400, 2, 100.0) == 16    # 100 at 32 bins, 200 at 16
    assert tb.auto_bins(6_399, 2, 100.0) == 8
    assert tb.auto_bins(100, 2, 100.0) == 8 and tb.auto_bins(-50, 2, 100.0) == 8


def test_class_bins_rule():
    # per class: the largest of 32, 16, 8 with n_c / bins >= CLASS_BINS_RATIO * sigma (ratio 1)
    assert tb.CLASS_BINS_RATIO == 1.0
    np.testing.assert_array_equal(tb.class_bins([3200, 1600, 1599, 800, 100, -5], 100.0),
                                  [32, 16, 8, 8, 8, 8])
    np.testing.assert_array_equal(tb.class_bins([3200, 3199], 50.0, ratio=2.0), [32, 16])
    assert tb.class_bins([10.0], 0.0, ratio=0.0).tolist() == [32]


def test_integer_edge_bins_rule():
    assert tb.integer_edge_bins((1, 16), True, 8, 32) == 16     # Adult's education-num: 15 < 16
    assert tb.integer_edge_bins((0, 10), True, 8, 32) == 16
    assert tb.integer_edge_bins((0, 8), True, 8, 32) == 16      # 9 values: 8 cells merge two
    assert tb.integer_edge_bins((0, 7), True, 8, 32) == 8       # 8 values: 8 cells resolve them
    assert tb.integer_edge_bins((0, 16), True, 8, 32) == 8      # 17 values: 16 cells cannot
    assert tb.integer_edge_bins((0, 10), False, 8, 32) == 8     # not an integer column
    assert tb.integer_edge_bins((0, 10), True, 8, 8) == 8       # the fine grid has 8 bins only
    assert tb.integer_edge_bins((0, 5), True, 4, 32) == 8       # scales with pair_bins
