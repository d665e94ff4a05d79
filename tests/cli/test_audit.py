"""``matrixdp audit``: the catalogue table (fast CI setting), one mechanism, errors."""

from matrixdp.cli import main


def test_audit_all_fast(capsys):
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
    assert "auditing [" in captured.err          # progress bar on stderr
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
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("r1smg"))
    assert line.split()[2] == "1" and line.rstrip().endswith("REFUTED")
    assert main(["audit", "gaussian", "--fast", "--no-progress"]) == 0
    assert "consistent" in capsys.readouterr().out


def test_audit_list_and_errors(capsys):
    assert main(["audit", "--list"]) == 0
    assert "r1smg" in capsys.readouterr().out
    for argv in (["audit"], ["audit", "nope"], ["audit", "laplace", "--delta", "0.1"],
                 ["audit", "--all", "gaussian"], ["audit", "gaussian", "--samples", "5"]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
