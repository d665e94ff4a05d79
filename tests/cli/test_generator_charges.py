"""``matrixdp synth`` (copula, tree-copula) and ``release`` charge a ledger only for a table they accept.

Hunt DH2 (session 23): ``cli._generator.fit_table_generator`` charged the command's guarantee
around the whole ``fit``, so a table the generator then refused (a missing value, an undeclared
category, a label outside the public classes) left an "aborted (counted)" entry: budget spent
on a release that never happened. On main, the 12 refusal cases below (2 models x 2 readers x 3
inputs) each left 1 entry. The charge now happens where the generator charges its own fit
(``_ChargeInPlace``), after its checks of every record and before any noise.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from matrixdp.accounting import Accountant, Ledger
from matrixdp.cli import main

N = 60


def _tables(tmp_path):
    rng = np.random.default_rng(3)
    good = pd.DataFrame({"a": rng.uniform(0, 10, N).round(4), "b": rng.uniform(0, 5, N).round(4),
                         "c": rng.choice(["x", "y"], N), "label": rng.integers(0, 2, N)})
    bad = {"missing value": good.assign(a=good["a"].where(np.arange(N) != N - 1)),
           "undeclared category": good.assign(c=np.where(np.arange(N) == N - 1, "w", good["c"])),
           "label outside the classes": good.assign(
               label=np.where(np.arange(N) == N - 1, 5, good["label"]))}
    bounds = tmp_path / "b.toml"
    bounds.write_text('target = "label"\n[columns]\na = { lo = 0, hi = 10 }\n'
                      'b = { lo = 0, hi = 5 }\nc = { categories = ["x", "y"] }\n'
                      'label = { categories = [0, 1] }\n')
    return good, bad, bounds


def _entries(path) -> int:
    ledger = Ledger.open(path, readonly=True)
    try:
        return len(ledger.history())
    finally:
        ledger.close()


def _synth(tmp_path, data, bounds, ledger, model, extra=(), out="syn.csv"):
    return main(["synth", str(data), "--model", model, "--bounds", str(bounds), "--epsilon", "0.5",
                 "--out", str(tmp_path / out), "--ledger", str(ledger), "--dataset", "t.csv",
                 "--seed", "0", "--quiet", *extra])


@pytest.mark.parametrize("reader", ["memory", "dask"])
@pytest.mark.parametrize("model", ["copula", "tree-copula"])
@pytest.mark.parametrize("what", ["missing value", "undeclared category",
                                  "label outside the classes"])
def test_a_refused_table_leaves_no_ledger_entry(what, model, reader, tmp_path, capsys):
    _, bad, bounds = _tables(tmp_path)
    folder = tmp_path / "in"
    folder.mkdir()
    bad[what].to_csv(folder / "t.csv", index=False)
    ledger = tmp_path / "t.db"
    Ledger.create(ledger, dataset="t.csv", epsilon=5.0, delta=1e-5).close()
    extra = ("--dask",) if reader == "dask" else ()
    assert _synth(tmp_path, folder / "t.csv", bounds, ledger, model, extra) != 0
    assert "error" in capsys.readouterr().err
    assert _entries(ledger) == 0
    assert not (tmp_path / "syn.csv").exists()


@pytest.mark.parametrize("model", ["copula", "tree-copula"])
def test_an_accepted_table_is_charged_once_with_the_ledgers_guarantee(model, tmp_path, capsys):
    good, _, bounds = _tables(tmp_path)
    good.to_csv(tmp_path / "t.csv", index=False)
    ledger = tmp_path / "t.db"
    Ledger.create(ledger, dataset="t.csv", epsilon=5.0, delta=1e-5).close()
    assert _synth(tmp_path, tmp_path / "t.csv", bounds, ledger, model) == 0
    opened = Ledger.open(ledger, readonly=True)
    history = opened.history()
    opened.close()
    assert len(history) == 1
    assert history[0]["epsilon"] == pytest.approx(0.5)  # the requested ε, under replace-one
    assert history[0]["status"] == "released"
    assert (tmp_path / "syn.csv").exists()


def test_the_fit_inside_a_budget_block_charges_the_block_once(tmp_path):
    from matrixdp.cli._generator import fit_table_generator, read_generator_bounds

    good, bad, bounds = _tables(tmp_path)
    schema = read_generator_bounds(bounds)
    with Accountant(epsilon=5.0, delta=1e-5) as acc:
        fit_table_generator("copula", schema, good, epsilon=0.5, delta=1e-9,
                            relation="replace-one", seed=0)
        assert len(acc.spends) == 1
        assert acc.spends[0][1].neighbouring == "replace-one"
        with pytest.raises(Exception):  # noqa: PT011 - the generator's refusal
            fit_table_generator("copula", schema, bad["missing value"], epsilon=0.5, delta=1e-9,
                                relation="replace-one", seed=0)
    assert len(acc.spends) == 1


@pytest.mark.parametrize("command", [("synth", "--model", "copula"),
                                     ("synth", "--model", "tree-copula"),
                                     ("release", "--query", "mean")])
@pytest.mark.parametrize("what", ["missing value", "undeclared category"])
def test_dp_ranges_are_not_bought_for_a_table_the_command_refuses(what, command, tmp_path,
                                                                   capsys):
    """A ``dp = true`` column's ranges are charged as their own entry before the release; on
    main a table the release then refused (a missing value or an undeclared category in another
    column) kept that entry (and synth also its fit's): 6 of 6 cases here. ``resolve_dp_columns``
    now checks the other columns first, as the release does."""
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({"a": rng.uniform(0, 10, n).round(4), "b": rng.uniform(0, 5, n).round(4),
                          "c": rng.choice(["x", "y"], n)})
    if what == "missing value":
        frame.loc[n - 1, "a"] = np.nan
    else:
        frame.loc[n - 1, "c"] = "w"
    frame.to_csv(tmp_path / "t.csv", index=False)
    bounds = tmp_path / "b.toml"
    bounds.write_text('[columns]\na = { lo = 0, hi = 10 }\nb = { dp = true }\n'
                      'c = { categories = ["x", "y"] }\n')
    ledger = tmp_path / "t.db"
    Ledger.create(ledger, dataset="t.csv", epsilon=5.0, delta=1e-5).close()
    code = main([command[0], str(tmp_path / "t.csv"), *command[1:], "--bounds", str(bounds),
                 "--epsilon", "1", "--ledger", str(ledger), "--dataset", "t.csv",
                 "--out", str(tmp_path / "out.csv"), "--quiet"])
    assert code != 0
    assert "error" in capsys.readouterr().err
    assert _entries(ledger) == 0
    assert not (tmp_path / "out.csv").exists()
