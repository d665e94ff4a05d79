"""``matrixdp audit --synth``: the membership check from the command line."""

import numpy as np
import pandas as pd

from matrixdp.cli import main


import pytest


@pytest.mark.parametrize("generator", ["copula", "tree-copula"])
def test_audit_synth_prints_bounds_beside_the_formal_epsilon(generator, tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({"age": rng.integers(18, 90, n), "score": rng.random(n),
                          "colour": rng.choice(["red", "green", "blue"], n),
                          "label": rng.integers(0, 2, n)})
    data = tmp_path / "t.csv"
    frame.to_csv(data, index=False)
    bounds = tmp_path / "b.toml"
    bounds.write_text('target = "label"\n[columns]\nage = { lo = 18, hi = 90 }\n'
                      'score = { lo = 0, hi = 1 }\ncolour = { categories = ["red", "green", "blue"] }\n'
                      'label = { categories = [0, 1] }\n')
    code = main(["audit", "--synth", generator, "--data", str(data), "--bounds", str(bounds),
                 "--epsilon", "1", "--runs", "2", "--canaries", "50", "--seed", "0"])
    out = capsys.readouterr().out
    assert code == 0
    assert "formal guarantee (1, 1e-09)-DP" in out
    assert "dcr: epsilon >=" in out and "shadow: epsilon >=" in out
    assert "not evidence of privacy" in out
