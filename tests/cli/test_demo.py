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
