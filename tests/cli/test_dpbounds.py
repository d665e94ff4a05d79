"""``dp = true`` columns on the command line (:mod:`matrixdp.cli._dpbounds`): the whole command's
(ε, δ) is checked against the ledger before the DP ranges' entry is charged.

Task PA (session 18): ``matrixdp release`` and ``matrixdp synth`` (copula, tree-copula) with a
``dp = true`` column charged the ranges' 10% of ``--epsilon`` and then had the release refused by
the ledger, leaving that share spent for nothing (a ledger of ε = 0.5, ``--epsilon 1``: 0.1 spent,
nothing released). The estimators were fixed for the same order in e5dccbf
(``models/_base.check_whole_fit``); the command line buys its ranges itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from matrixdp.accounting import Ledger
from matrixdp.cli import main


def _table(tmp_path):
    rng = np.random.default_rng(0)
    n = 3000
    data = tmp_path / "d.csv"
    pd.DataFrame({"a": rng.uniform(0.0, 10.0, n), "b": rng.uniform(0.0, 1.0, n),
                  "label": rng.integers(0, 2, n)}).to_csv(data, index=False)
    bounds = tmp_path / "b.toml"
    bounds.write_text("[columns]\na = { dp = true, lo = 0, hi = 1000 }\nb = { lo = 0, hi = 1 }\n")
    return data, bounds


def _ledger(tmp_path, epsilon, relation="replace-one"):
    path = tmp_path / "d.ledger"
    Ledger.create(path, dataset="d", epsilon=epsilon, delta=1e-5, relation=relation).close()
    return path


def _spent(path):
    ledger = Ledger.open(path)
    try:
        return [(e["label"], e["epsilon"]) for e in ledger.history()]
    finally:
        ledger.close()


def _release(tmp_path, data, bounds, ledger):
    return main(["release", str(data), "--query", "mean", "--bounds", str(bounds), "--epsilon",
                 "1", "--ledger", str(ledger), "--out", str(tmp_path / "o.json"), "--quiet"])


def _synth(tmp_path, data, bounds, ledger, model):
    return main(["synth", str(data), "--model", model, "--bounds", str(bounds), "--epsilon", "1",
                 "--ledger", str(ledger), "--out", str(tmp_path / "s.csv"), "--quiet"])


def test_release_refused_whole_spends_nothing_on_its_dp_ranges(tmp_path, capsys):
    data, bounds = _table(tmp_path)
    ledger = _ledger(tmp_path, 0.5)  # room for the ranges' 0.1, not for the release's 0.9
    assert _release(tmp_path, data, bounds, ledger) != 0
    assert "over the budget" in capsys.readouterr().err
    assert _spent(ledger) == []


def test_release_with_room_for_both_spends_ranges_then_release(tmp_path):
    data, bounds = _table(tmp_path)
    ledger = _ledger(tmp_path, 2.0)
    assert _release(tmp_path, data, bounds, ledger) == 0
    spent = _spent(ledger)
    assert [round(e, 12) for _, e in spent] == [0.1, 0.9]
    assert spent[0][0].endswith(": bounds")


@pytest.mark.parametrize("model", ["copula", "tree-copula"])
def test_synth_refused_whole_spends_nothing_on_its_dp_ranges(tmp_path, capsys, model):
    data, bounds = _table(tmp_path)
    ledger = _ledger(tmp_path, 0.5, relation="add-remove")
    assert _synth(tmp_path, data, bounds, ledger, model) != 0
    assert "over the budget" in capsys.readouterr().err
    assert _spent(ledger) == []


@pytest.mark.parametrize("model", ["copula", "tree-copula"])
def test_synth_with_room_for_both_spends_ranges_then_fit(tmp_path, model):
    data, bounds = _table(tmp_path)
    ledger = _ledger(tmp_path, 2.0, relation="add-remove")
    assert _synth(tmp_path, data, bounds, ledger, model) == 0
    assert [round(e, 12) for _, e in _spent(ledger)] == [0.1, 0.9]
