"""DPTreeCopula's public grids: the bins rules, integer edge cells, geometric edges.
(Moved from test_tree_copula.py with the module split; same assertions.)"""

import numpy as np
import pytest

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


# ------------------------------------------------------------------ AtomGrid (public atoms)
def test_atom_grid_keeps_each_atom_its_own_cell_on_every_grid():
    from matrixdp.synth.tree_bins import AtomGrid

    # 8 bins of width 1.25 on [0, 10]; atoms 0 (first cell) and 10 (last cell) and 2.5 (an edge:
    # the lower edge of bin 2, so before it)
    g = AtomGrid(np.linspace(0, 10, 9), [10.0, 0.0, 2.5])
    assert g.size == 11 and g.n_atoms == 3
    atom = g.cells.is_atom()
    np.testing.assert_array_equal(np.flatnonzero(atom), [0, 3, 10])
    np.testing.assert_array_equal(g.cell_bin, [0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 7])
    # on 2 bins [0, 5), [5, 10] (+ 3 atoms): every atom keeps a cell of its own
    lut = g.lut(2)
    assert lut.max() == 4 and set(lut[atom]) == set(g.coarse_codes(np.flatnonzero(atom), 2))
    assert len(set(lut[atom])) == 3 and not set(lut[atom]) & set(lut[~atom])  # atoms alone
    assert sorted(np.bincount(lut[~atom])[np.bincount(lut[~atom]) > 0]) == [4, 4]
    # coarsening keeps the total and each atom's mass
    p = np.arange(1.0, 12.0)
    q = g.coarsen(p, 2)
    assert q.size == 5 and q.sum() == p.sum() and sorted(q[lut[atom]]) == sorted(p[atom])
    # without atoms the grid is the bins
    plain = AtomGrid(np.linspace(0, 10, 9), [])
    np.testing.assert_array_equal(plain.lut(4), np.arange(8) // 2)


def test_atom_grid_class_cells_spread_and_pool_keep_the_released_masses():
    from matrixdp.synth.tree_bins import AtomGrid

    g = AtomGrid(np.linspace(0, 32, 33), [0.0])
    lut, cells = g.class_lut([1, 4])
    np.testing.assert_array_equal(cells, [33, 9])
    assert lut.shape == (2, 33) and lut[1].max() == 8 and lut[1][0] == 0  # the atom: first cell
    np.testing.assert_array_equal(np.bincount(lut[1]), [1] + [4] * 8)
    p = np.r_[0.5, np.full(8, 0.5 / 8)]  # the class's own cells
    f = g.spread(p, lut[1])
    assert f[0] == 0.5 and np.allclose(f[1:], 0.5 / 32) and f.sum() == pytest.approx(1.0)
    P = np.vstack([np.r_[0.2, np.linspace(1, 2, 32) / np.linspace(1, 2, 32).sum() * 0.8], f])
    Q = g.pooled_within(P, [100.0, 50.0], lut)
    np.testing.assert_allclose(Q[0], P[0])  # a class on the fine grid is unchanged
    assert Q[1, 0] == 0.5  # the atom keeps its mass
    np.testing.assert_allclose(np.bincount(lut[1], weights=Q[1]), p)  # each merged cell too
    assert not np.allclose(Q[1, 1:5], Q[1, 1])  # spread by the pooled profile, not evenly
