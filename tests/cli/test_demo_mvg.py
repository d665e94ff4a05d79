"""The demo's MVG section: both releases, their errors and guarantees, counted in the total."""

import re

from matrixdp.cli import main


def test_demo_mvg_section(capsys):
    assert main(["demo", "--seed", "2", "--records", "1000"]) == 0
    out = capsys.readouterr().out
    section = out[out.index("[3]"):out.index("[4]")]
    assert "i.i.d. Gaussian" in section and "MVG, binary" in section and "MSE-optimal" in section
    assert section.count("-DP [replace-one") == 3
    assert "calibration=exact" in section
    assert re.search(r"over 7 releases: epsilon=7", out)  # 1 + 1 + 3 (MVG section) + 1 + 1
    # the binary allocation's expected error on the age+bp block is far below the Gaussian's
    lines = section.splitlines()
    gauss = float(next(x for x in lines if x.strip().startswith("i.i.d. Gaussian")).split()[-1])
    binary = float(next(x for x in lines if x.strip().startswith("MVG, binary")).split()[-1])
    assert binary < gauss / 4
