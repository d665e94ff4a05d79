"""Inside ``with`` blocks, every budget keeper of a release records it exactly once.

Task KB (session 24). An explicit keeper (``accountant=`` / ``ledger=``) used to REPLACE the
keepers of the enclosing ``with`` blocks: inside ``with ledger:`` a fit given its own
``Accountant`` left the dataset's ledger empty (45 of 45 catalogue cases, hunt DH2, which made it
warn). Now an explicit keeper ADDS to the blocks' keepers (``_budget.keepers_for``,
docs/accounting.md §5b): the explicit keeper(s) and every block keeper not among them are charged,
each once (two handles of one ledger file are one keeper), all checked before any is charged.

The generic test runs every case of the catalogue (``tests/_estimator_cases.py``) in every
scenario below and requires each keeper named by the scenario to record exactly the case's
entries, summing to the (ε, δ) the fitted object claims: once, not zero times (main failed the
explicit-keeper-inside-a-block scenarios: 242 of its 503 tests; 253 of 489 rows of
``results/keeper_blocks.md``), not twice
(a deliberately double-charging fake estimator fails the same check).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _estimator_cases import CASES  # noqa: E402

from matrixdp import LaplaceMechanism  # noqa: E402
from matrixdp._budget import KeeperGroup, charge, keepers_for  # noqa: E402
from matrixdp.accounting import Accountant, Ledger  # noqa: E402
from matrixdp.errors import BudgetExceededError  # noqa: E402
from matrixdp.mechanisms.base import PrivacyGuarantee  # noqa: E402

#: scenario -> (the blocks opened, outermost first; the explicit keeper or None; where it is
#: given: "init" (``accountant=``) or "fit"). L, M: ledgers; A, B: accountants; L2: a second
#: handle of L's file.
SCENARIOS = {
    "ledger block": (("L",), None, "init"),
    "accountant block": (("A",), None, "init"),
    "ledger block + own accountant": (("L",), "B", "init"),
    "accountant block + own ledger": (("A",), "M", "init"),
    "block's own keeper": (("A",), "A", "init"),
    "nested, none": (("L", "A"), None, "init"),
    "nested, explicit = outer": (("L", "A"), "L", "init"),
    "nested, explicit = inner": (("L", "A"), "A", "init"),
    "nested, explicit third": (("L", "A"), "B", "init"),
    "same file, second handle": (("L",), "L2", "init"),
    "ledger block + own accountant in fit": (("L",), "B", "fit"),
}
BIG = dict(epsilon=1e4, delta=0.5)


def make_keepers(tmp_path, relation) -> dict:
    L = Ledger.create(tmp_path / "L.db", dataset="d", relation=relation, **BIG)
    M = Ledger.create(tmp_path / "M.db", dataset="d", relation=relation, **BIG)
    return {"L": L, "M": M, "L2": Ledger.open(tmp_path / "L.db", dataset="d"),
            "A": Accountant(relation=relation, **BIG), "B": Accountant(relation=relation, **BIG)}


def recorded(keeper) -> tuple[int, float, float]:
    """(entries, summed ε, summed δ) a keeper holds (a ledger: read from its file)."""
    if isinstance(keeper, Ledger):
        rows = keeper.history()
        return len(rows), sum(r["epsilon"] for r in rows), sum(r["delta"] for r in rows)
    return (len(keeper.spends), sum(g.epsilon for _, g in keeper.spends),
            sum(g.delta for _, g in keeper.spends))


def assert_recorded_once(keepers, claim, entries: int) -> None:
    """Each keeper holds ``entries`` entries whose ε and δ sum to ``claim``'s (relative 1e-9):
    the whole guarantee, once."""
    for name, keeper in keepers.items():
        n, eps, dlt = recorded(keeper)
        assert n == entries, f"{name}: {n} entries, expected {entries}"
        assert eps == pytest.approx(claim.epsilon, rel=1e-9), f"{name}: epsilon {eps}"
        assert dlt == pytest.approx(claim.delta, rel=1e-9, abs=1e-15), f"{name}: delta {dlt}"


def claimed(model):
    """The guarantee a fitted object states (DPDirectionsMVG.fit charges its directions step)."""
    return model.privacy_ if hasattr(model, "privacy_") else model.directions_.privacy


def fit_in_blocks(fit, keepers, scenario):
    """Run ``fit(explicit_keeper_or_None)`` inside the scenario's blocks; the keepers it names."""
    blocks, explicit, _ = SCENARIOS[scenario]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.ExitStack() as stack:
            for name in blocks:
                stack.enter_context(keepers[name])
            model = fit(None if explicit is None else keepers[explicit])
    named = set(blocks) | ({explicit} if explicit else set())
    return model, {n: keepers[n] for n in sorted(named)}


@pytest.mark.parametrize("name, scenario", [
    (name, scenario) for name in sorted(CASES) for scenario in sorted(SCENARIOS)
    if SCENARIOS[scenario][2] in CASES[name].keeper])
def test_every_keeper_records_the_fit_once(name, scenario, tmp_path):
    case = CASES[name]
    where = SCENARIOS[scenario][2]
    relation = case.relations[0]
    keepers = make_keepers(tmp_path, relation)
    D, _ = case.data(relation)

    def fit(keeper):
        kw = {} if keeper is None else {"accountant": keeper}
        est = case.make(relation, **(kw if where == "init" else {}))
        return case.fit(est, D, **(kw if where == "fit" else {}))

    model, named = fit_in_blocks(fit, keepers, scenario)
    assert_recorded_once(named, claimed(model), case.charges)
    for k in ("L", "M", "L2"):
        keepers[k].close()


# ------------------------------------------------------------ the check catches a double charge
class _DoubleCharger:
    """A fake estimator that charges its guarantee twice through the seam (once for the fit,
    once more for its 'release'): what the generic check must catch."""

    def __init__(self, accountant=None):
        self.accountant = accountant

    def fit(self, X):
        g = PrivacyGuarantee(epsilon=0.5, delta=1e-7, neighbouring="replace-one")
        with charge(g, accountant=self.accountant, label="fake fit"):
            pass
        with charge(g, accountant=self.accountant, label="fake release again"):
            pass
        self.privacy_ = g
        return self


class _ExplicitOnly(_DoubleCharger):
    """A fake estimator that charges its explicit keeper directly (the rule of main: the blocks'
    keepers are left out)."""

    def fit(self, X):
        g = PrivacyGuarantee(epsilon=0.5, delta=1e-7, neighbouring="replace-one")
        keeper = self.accountant
        with (keeper.charge(g, label="fake") if keeper is not None
              else charge(g, label="fake")):
            pass
        self.privacy_ = g
        return self


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_the_check_catches_a_double_charge(scenario, tmp_path):
    keepers = make_keepers(tmp_path, "replace-one")
    model, named = fit_in_blocks(lambda k: _DoubleCharger(k).fit(None), keepers, scenario)
    with pytest.raises(AssertionError, match="2 entries, expected 1"):
        assert_recorded_once(named, claimed(model), 1)


@pytest.mark.parametrize("scenario", ["ledger block + own accountant", "nested, explicit third",
                                      "accountant block + own ledger"])
def test_the_check_catches_a_block_left_uncharged(scenario, tmp_path):
    keepers = make_keepers(tmp_path, "replace-one")
    model, named = fit_in_blocks(lambda k: _ExplicitOnly(k).fit(None), keepers, scenario)
    with pytest.raises(AssertionError, match="0 entries, expected 1"):
        assert_recorded_once(named, claimed(model), 1)


# ------------------------------------------------------------ objects that charge in parts
def test_directions_mvg_fit_and_release_each_charge_every_keeper_once(tmp_path):
    """DPDirectionsMVG charges its directions step in ``fit`` and its noise step in ``release``:
    with an explicit keeper inside a ledger block, both keepers hold the two entries, which sum
    to the mechanism's total (ε, δ)."""
    case = CASES["DPDirectionsMVG"]
    keepers = make_keepers(tmp_path, "replace-one")
    D, _ = case.data("replace-one")
    with keepers["L"]:
        est = case.make("replace-one", accountant=keepers["B"])
        est.fit(D[0])
        est.release(D[0], rng=0)   # the identity query: the records themselves
    total = est.directions_.privacy + est.mechanism_.noise_privacy
    assert total.epsilon == pytest.approx(1.0)   # the split adds up to the estimator's budget
    assert_recorded_once({"L": keepers["L"], "B": keepers["B"]}, total, 2)


@pytest.mark.parametrize("name", ["DPCovariance[moments]", "DPMean", "DPLinearRegression",
                                  "DPPCA[moments]"])
def test_dask_fits_charge_every_keeper_once(name, tmp_path):
    da = pytest.importorskip("dask.array")
    case = CASES[name]
    relation = case.relations[0]
    keepers = make_keepers(tmp_path, relation)
    (X, y), _ = case.data(relation)
    Xd = da.from_array(X, chunks=(40, X.shape[1]))
    args = (Xd,) if y is None else (Xd, da.from_array(y, chunks=40))

    def fit(keeper):
        return case.make(relation, accountant=keeper).fit(*args)

    model, named = fit_in_blocks(fit, keepers, "nested, explicit third")
    assert_recorded_once(named, claimed(model), case.charges)


# ------------------------------------------------------------ refusals charge nobody
@pytest.mark.parametrize("tiny", ["block", "explicit"])
def test_a_refusal_by_any_keeper_leaves_every_keeper_uncharged(tiny, tmp_path):
    led = Ledger.create(tmp_path / "l.db", dataset="d", **BIG)
    small = Accountant(epsilon=0.1, delta=1e-6)
    block, explicit = (small, led) if tiny == "block" else (led, small)
    mech = LaplaceMechanism(epsilon=0.5, sensitivity=1.0)
    with block:
        with pytest.raises(BudgetExceededError):
            mech.release(0.0, rng=0, accountant=explicit)
    assert small.spends == () and led.history() == []
    led.close()


def test_keepers_for_names_each_keeper_once_explicit_first(tmp_path):
    a, b = Accountant(), Accountant()
    led = Ledger.create(tmp_path / "l.db", dataset="d", **BIG)
    again = Ledger.open(tmp_path / "l.db", dataset="d")
    assert keepers_for() == ()
    with a:
        assert keepers_for() == (a,)
        assert keepers_for(b) == (b, a)
        assert keepers_for(a) == (a,)
        with led:
            assert keepers_for(b, again) == (b, again, a)   # again and led: one file
            assert keepers_for(led) == (led, a)
            # a group carried by a copy (carry_block_keeper) is charged as its members, once
            assert keepers_for(KeeperGroup((b, led, a))) == (b, led, a)
    led.close(), again.close()


# ------------------------------------------------------------ the CLI's keepers
def test_the_clis_charge_in_place_keeper_charges_each_keeper_once():
    """``matrixdp synth``'s keeper (``cli._generator._ChargeInPlace``) charges through the seam
    itself (``forwards_to_blocks``): the block once, its own ledger once."""
    from matrixdp.cli._generator import _ChargeInPlace

    g = PrivacyGuarantee(epsilon=0.5, delta=1e-9, neighbouring="add-remove")
    block, own = Accountant(relation="add-remove"), Accountant(relation="add-remove")
    with block:
        with charge(g, accountant=_ChargeInPlace(g, None, "synth")):
            pass
        with charge(g, accountant=_ChargeInPlace(g, own, "synth")):
            pass
    assert len(block.spends) == 2 and len(own.spends) == 1


def _cli_tables(tmp_path):
    import pandas as pd

    rng = np.random.default_rng(3)
    n = 60
    pd.DataFrame({"a": rng.uniform(0, 10, n).round(4), "b": rng.uniform(0, 5, n).round(4),
                  "c": rng.choice(["x", "y"], n), "label": rng.integers(0, 2, n)}
                 ).to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "b.toml").write_text(
        'target = "label"\n[columns]\na = { lo = 0, hi = 10 }\nb = { lo = 0, hi = 5 }\n'
        'c = { categories = ["x", "y"] }\nlabel = { categories = [0, 1] }\n')
    pd.DataFrame({"a": rng.uniform(0, 10, 500), "b": rng.uniform(0, 5, 500)}
                 ).to_csv(tmp_path / "p.csv", index=False)
    (tmp_path / "p.toml").write_text("[columns]\na = { lo = 0, hi = 10 }\n"
                                     "b = { lo = 0, hi = 5 }\n")


def _cli_argv(command, tmp_path, ledger):
    if command == "release":
        argv = ["release", tmp_path / "p.csv", "--query", "mean", "--bounds", tmp_path / "p.toml",
                "--out", tmp_path / "r.json", "--dataset", "p.csv"]
    else:
        argv = ["synth", tmp_path / "t.csv", "--model", command.split()[1], "--bounds",
                tmp_path / "b.toml", "--out", tmp_path / "s.csv", "--dataset", "t.csv", "--quiet"]
    return [str(a) for a in argv + ["--epsilon", "0.5", "--delta", "1e-6", "--seed", "0",
                                    "--ledger", ledger]]


@pytest.mark.parametrize("command", ["release", "synth copula", "synth tree-copula"])
@pytest.mark.parametrize("block", ["accountant", "same ledger file"])
def test_the_command_line_in_process_charges_each_keeper_once(command, block, tmp_path, capsys):
    from matrixdp.cli import main

    _cli_tables(tmp_path)
    relation = "replace-one" if command == "release" else "add-remove"
    dataset = "p.csv" if command == "release" else "t.csv"
    path = tmp_path / "l.db"
    Ledger.create(path, dataset=dataset, dataset_name=dataset, relation=relation, **BIG).close()
    keeper = (Accountant(relation=relation, **BIG) if block == "accountant"
              else Ledger.open(path, dataset=dataset))
    with keeper:
        assert main(_cli_argv(command, tmp_path, path)) == 0, capsys.readouterr().err
    claim = PrivacyGuarantee(epsilon=0.5, delta=1e-6, neighbouring=relation)
    ledger = Ledger.open(path, readonly=True)
    named = {"ledger": ledger} if block != "accountant" else {"ledger": ledger, "block": keeper}
    assert_recorded_once(named, claim, 1)
    ledger.close()
    if isinstance(keeper, Ledger):
        keeper.close()


# ------------------------------------------------------------ threads (contextvars)
def test_a_block_of_another_thread_does_not_charge_a_thread_with_its_own_block():
    main_block, own, explicit = Accountant(), Accountant(), Accountant()
    ready, done = threading.Event(), threading.Event()

    def worker():
        ready.wait(10)
        with own:
            LaplaceMechanism(epsilon=0.25, sensitivity=1.0).release(0.0, rng=0)
            LaplaceMechanism(epsilon=0.25, sensitivity=1.0).release(0.0, rng=0,
                                                                    accountant=explicit)
        done.set()

    t = threading.Thread(target=worker)
    t.start()
    with main_block:
        ready.set()
        done.wait(10)
    t.join(10)
    assert main_block.spends == ()          # its block is not the worker's context
    assert len(own.spends) == 2 and len(explicit.spends) == 1


def test_a_thread_started_inside_a_block_charges_it_with_or_without_an_explicit_keeper():
    """A thread that entered no block of its own is charged to every block open in the process
    (``_budget.default_keepers``, session 19: never under-count); an explicit keeper there now
    adds to them as it does in the block's own thread."""
    from concurrent.futures import ThreadPoolExecutor

    block, explicit = Accountant(), Accountant()
    mech = LaplaceMechanism(epsilon=0.25, sensitivity=1.0)
    with block:
        with ThreadPoolExecutor(1) as ex:
            ex.submit(mech.release, 0.0, rng=0).result()
            ex.submit(lambda: mech.release(0.0, rng=0, accountant=explicit)).result()
    assert len(block.spends) == 2 and len(explicit.spends) == 1
    assert block.total().epsilon == pytest.approx(0.5)


@pytest.mark.parametrize("command", [("release", "--query", "mean"),
                                     ("synth", "--model", "copula")])
def test_a_block_too_small_for_the_command_refuses_before_its_dp_ranges(command, tmp_path,
                                                                         capsys):
    """A ``dp = true`` column's ranges are charged first (a tenth of ε), then the release. A
    block whose budget holds the ranges but not the command refuses it before the ranges' entry
    (``cli._dpbounds`` checks the whole with ``_budget.check``: the ledger AND the blocks); only
    checking the ledger, the block and the ledger each kept the ranges' entry for nothing."""
    import pandas as pd

    from matrixdp.cli import main

    rng = np.random.default_rng(0)
    n = 400
    pd.DataFrame({"a": rng.uniform(0, 10, n).round(4), "b": rng.uniform(0, 5, n).round(4)}
                 ).to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "b.toml").write_text('[columns]\na = { lo = 0, hi = 10 }\nb = { dp = true }\n')
    relation = "replace-one" if command[0] == "release" else "add-remove"
    path = tmp_path / "t.db"
    Ledger.create(path, dataset="t.csv", relation=relation, **BIG).close()
    block = Accountant(epsilon=0.3, delta=1e-5, relation=relation)   # ranges 0.1 fit, 1.0 not
    with block:
        code = main([command[0], str(tmp_path / "t.csv"), *command[1:], "--bounds",
                     str(tmp_path / "b.toml"), "--epsilon", "1", "--ledger", str(path),
                     "--dataset", "t.csv", "--out", str(tmp_path / "out.csv"), "--quiet"])
    assert code != 0 and "budget" in capsys.readouterr().err.lower()
    ledger = Ledger.open(path, readonly=True)
    assert ledger.history() == [] and block.spends == ()
    ledger.close()
    assert not (tmp_path / "out.csv").exists()
