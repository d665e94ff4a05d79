"""experiments/pca_bias_one_record_check.py (task PB): the committed report re-renders byte for byte
from the committed trials, and the pre-declared floor of criterion (C) counts what it says."""

from __future__ import annotations

import csv
import importlib
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "experiments"))

chk = importlib.import_module("pca_bias_one_record_check")


def test_committed_check_rerenders_identically(tmp_path):
    name = chk.NAME
    shutil.copy(ROOT / "results" / f"{name}_trials.csv", tmp_path)
    _, verdict = chk.render(tmp_path / f"{name}_trials.csv")
    assert verdict == "PASSED"
    for ext in (".md", ".csv"):
        assert (tmp_path / f"{name}{ext}").read_bytes() == \
            (ROOT / "results" / f"{name}{ext}").read_bytes()


def _write(path, cells):
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=chk.FIELDS)
        w.writeheader()
        for c, (d, cand, cp) in enumerate(cells):
            for row, v in (("default", d), ("candidate", cand), ("coinpress", cp)):
                for i in range(10):
                    w.writerow({"table": f"t{c}", "k": 2, "epsilon": 1.0, "row": row,
                                "trial": i, "seed": i, "deficit": repr(v * (1 + 0.01 * i)),
                                "choice": "moments"})


def test_the_floor_counts_only_cells_where_every_row_is_below_it(tmp_path):
    """Cell 1: every row below 1e-6, the candidate 2x the default: within for both rows only by
    the floor (without it the candidate misses). Cell 2: the same ratios above the floor: the
    candidate misses with or without it. The verdict line and both (C) counts say so."""
    path = tmp_path / f"{chk.NAME}_trials.csv"
    _write(path, [(1e-9, 2e-9, 5e-9), (1e-3, 2e-3, 5e-3)])
    md, verdict = chk.render(path)
    text = md.read_text()
    assert "candidate **1**, default **2** of 2" in text
    assert "candidate 0, default 2" in text
    assert "1 such cells" in text
    assert verdict == "FAILED"
