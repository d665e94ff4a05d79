"""``matrixdp audit``: the catalogue table (fast CI setting), one mechanism, errors."""

from matrixdp.cli import main


def test_audit_all_fast(capsys, monkeypatch):
    monkeypatch.setenv("MATRIXDP_PROGRESS", "always")  # pytest's stderr is not a terminal
    assert main(["audit", "--all", "--fast", "--seed", "1"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    rows = {line.split()[0]: line for line in lines[2:] if line and not line.startswith(("20000", "REFUTED"))
            and len(line.split()) >= 6}
    assert rows["r1smg"].rstrip().endswith("REFUTED") and "[unsafe]" in rows["r1smg"]
    # Every unsafe opt-in is refuted; every other shipped mechanism is consistent.
    unsafe = [name for name, line in rows.items() if "[unsafe]" in line]
    others = [name for name in rows if name not in unsafe]
    assert {"laplace", "gaussian", "gaussian-classic"} <= set(others)
    for name in others:
        assert rows[name].rstrip().endswith("consistent"), rows[name]
    for name in unsafe:
        assert rows[name].rstrip().endswith("REFUTED"), rows[name]
    summary = next(line for line in lines if line.startswith("REFUTED (claimed"))
    assert sorted(summary.split(": ", 1)[1].split(", ")) == sorted(unsafe)
    assert "auditing: 100%" in captured.err          # progress bar on stderr
    # The baselines are audited too: Wishart's pure-epsilon claim refuted, the others consistent,
    # and the footer names the row audited with fewer draws.
    assert "[unsafe]" in rows["wishart"] and rows["wishart"].rstrip().endswith("REFUTED")
    assert {"mod-sulq", "analyze-gauss", "dp-covariance-eigen", "blocki-jl", "ppca",
            "ppca-k"} <= set(others)
    assert "(ppca-k: 2000)" in out_footer(lines)


def out_footer(lines):
    return next(line for line in lines if line.startswith("20000 draws"))


def test_audit_one_mechanism_with_options(capsys):
    assert main(["audit", "r1smg", "--epsilon", "1", "--dim", "100", "--samples", "4000",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("r1smg"))
    assert line.split()[2] == "1" and line.rstrip().endswith("REFUTED")
    assert main(["audit", "gaussian", "--fast", "--quiet"]) == 0
    assert "consistent" in capsys.readouterr().out


def test_audit_list_and_errors(capsys):
    assert main(["audit", "--list"]) == 0
    assert "r1smg" in capsys.readouterr().out
    for argv in (["audit"], ["audit", "nope"], ["audit", "laplace", "--delta", "0.1"],
                 ["audit", "--all", "gaussian"], ["audit", "gaussian", "--samples", "5"]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def one_line_error(capsys, argv, *fragments):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for fragment in fragments:
        assert fragment in err, err


def test_zero_samples_and_zero_dim_are_rejected(capsys):
    one_line_error(capsys, ["audit", "gaussian", "--samples", "0"], "--samples", ">= 20")
    one_line_error(capsys, ["audit", "gaussian", "--dim", "0", "--fast"], "--dim: must be >= 1")
    one_line_error(capsys, ["audit", "gaussian", "--confidence", "1.5", "--fast"], "--confidence")


def test_fail_on_refuted_turns_an_unsafe_refutation_into_a_failure(capsys):
    argv = ["audit", "r1smg", "--epsilon", "1", "--dim", "100", "--samples", "4000", "--quiet"]
    assert main(argv) == 0          # an explicit unsafe opt-in refuted: expected
    assert "REFUTED" in capsys.readouterr().out
    assert main(argv + ["--fail-on-refuted"]) == 3
    assert main(["audit", "gaussian", "--fast", "--quiet", "--fail-on-refuted"]) == 0


def test_audit_estimators_table_and_errors(capsys):
    # a tiny run (20 fits, no power): the table, its rows and the footer; power is tested in
    # tests/audit/test_estimators.py
    assert main(["audit", "--estimators", "--fast", "--samples", "20", "--quiet"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["estimator", "relation", "eps"]
    names = [line.split()[0] for line in lines[2:] if line.strip() and not line[0].isdigit()]
    assert "DPLinearRegression" in names and "DPTreeCopula" in names and "PLANTED" in names
    assert "20 counted fits (+20 pilot fits) per dataset" in out
    assert "never a proof" in out
    assert main(["audit", "--estimators", "--samples", "5"]) == 1
    assert "--samples" in capsys.readouterr().err
    assert main(["audit", "--estimators", "--all"]) == 1
