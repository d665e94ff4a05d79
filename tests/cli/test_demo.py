import re

from matrixdp.cli import main


def test_demo_runs_and_reports_guarantees(capsys):
    assert main(["demo", "--seed", "1", "--records", "2000"]) == 0
    out = capsys.readouterr().out
    assert "guarantee" in out and "-DP" in out
    assert re.search(r"epsilon=1, delta=1e-06", out)


def test_demo_bad_epsilon_is_one_line_error(capsys):
    assert main(["demo", "--epsilon", "-1"]) == 1
    err = capsys.readouterr().err
    assert "epsilon" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_demo_has_every_capability_and_counts_the_budget(capsys):
    assert main(["demo", "--seed", "4"]) == 0  # default 5000 records: RON-Gauss needs the data
    out = capsys.readouterr().out
    for marker in ("[4] Synthetic data, RON-Gauss", "[5] Whole-table release", "[6] Evidence"):
        assert marker in out
    assert "[local; calibration=analytic; exact]" in out
    assert ": consistent" in out and "REFUTED" not in out
    synthetic = float(re.search(r"trained on synthetic ([0-9.]+)", out).group(1))
    assert synthetic > 0.55  # well above chance (0.5) on a learnable label
    assert re.search(r"over 7 releases: epsilon=7", out)


def test_demo_spends_through_a_ledger_and_prints_its_total(tmp_path, capsys):
    from matrixdp.accounting import Ledger

    ledger = tmp_path / "demo.db"
    assert main(["budget", "init", str(ledger), "--epsilon", "20", "--delta", "1e-4"]) == 0
    assert main(["demo", "--seed", "4", "--ledger", str(ledger)]) == 0
    out = capsys.readouterr().out
    assert f"charged to ledger {ledger}" in out
    led = Ledger.open(ledger)
    hist = led.history()
    assert len(hist) == 7 and {h["status"] for h in hist} == {"released"}
    assert "whole table (local DP)" in [h["label"] for h in hist]
    tight = float(re.search(r"Tightest valid composition .*: epsilon=([0-9.]+)", out).group(1))
    assert tight == float(f"{led.spent(delta=5e-6).epsilon:.4g}") and tight < 7
    # a ledger without room refuses the next release before its noise (one-line error)
    small = tmp_path / "small.db"
    assert main(["budget", "init", str(small), "--epsilon", "1.5", "--delta", "1e-5"]) == 0
    assert main(["demo", "--seed", "4", "--ledger", str(small)]) == 1
    err = capsys.readouterr().err
    assert "budget" in err and "Traceback" not in err


def test_bad_options_are_rejected_before_any_output(capsys):
    for argv, option in ((["--records", "0"], "--records"), (["--records", "-5"], "--records"),
                         (["--epsilon", "0"], "--epsilon"), (["--epsilon", "nan"], "--epsilon"),
                         (["--epsilon", "inf"], "--epsilon"), (["--delta", "1"], "--delta")):
        assert main(["demo", *argv]) == 1
        out, err = capsys.readouterr()
        assert out == ""  # nothing printed before the error
        assert err.startswith(f"matrixdp demo: error: {option}:") and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1
