"""``docs/curator.md`` runs as written: every ``$ matrixdp ...`` line, in order, on a small CSV
(and the README shows the same three commands)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from matrixdp.cli import SUBCOMMANDS, main

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "curator.md"
#: The synthetic-table part of the walkthrough (tests/cli/test_curator_synth_walkthrough.py).
SYNTH_HEADING = "## Publishing a synthetic table"


def release_part() -> str:
    """The walkthrough up to the synthetic-table section: the releases."""
    return DOC.read_text().split(SYNTH_HEADING)[0]


def commands(text: str) -> list[list[str]]:
    out = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if line.startswith("$ matrixdp "):
                out.append(shlex.split(line[2:])[1:])
    return out


def toml_block(text: str) -> str:
    blocks = re.findall(r"```toml\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    return blocks[0]


def patients(n: int = 2000) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    age = rng.uniform(18, 90, n).round(1)
    bmi = np.clip(22 + 0.1 * (age - 50) + rng.normal(0, 4, n), 15, 45).round(1)
    bp = np.clip(90 + 0.5 * age + 0.8 * bmi + rng.normal(0, 10, n), 80, 200).round(0)
    return pd.DataFrame({"age": age, "bmi": bmi, "systolic_bp": bp})


def test_walkthrough_runs(tmp_path, monkeypatch, capsys):
    text = release_part()
    steps = commands(text)
    assert [s[0] for s in steps] == ["budget", "release", "release", "release", "release", "budget"]
    if "budget" not in SUBCOMMANDS:
        pytest.skip("`matrixdp budget` (the accounting CLI) is not in this build yet")
    monkeypatch.chdir(tmp_path)
    patients().to_csv("patients.csv", index=False)
    for argv in steps:
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0, (argv, err)
        if "--template" in argv:
            template = Path("bounds.toml").read_text()
            assert "age = { lo = nan, hi = nan }" in template
            Path("bounds.toml").write_text(toml_block(text))  # the curator fills the ranges in
    plots = {"covariance": ["value", "error"], "pca": ["components", "explained"],
             "linreg": ["coef"]}
    for name in ("covariance", "pca", "linreg"):
        doc = json.loads(Path(f"{name}.json").read_text())
        assert doc["query"] == name and doc["guarantee"]["relation"] == "replace-one"
        assert set(doc["error_bars"]) and doc["projection"]["applied"] is True
        for part in [f"{name}.html"] + [f"{name}_{p}.png" for p in plots[name]]:
            assert Path(part).is_file(), part
    assert json.loads(Path("linreg.json").read_text())["target"] == "systolic_bp"
    assert [h["status"] for h in doc["ledger"]["history"]] == ["released"] * 3
    assert "patients.db" in out or "epsilon" in out  # `budget show` printed the ledger


def test_readme_shows_the_three_commands():
    readme = (ROOT / "README.md").read_text()
    doc_lines = [" ".join(shlex.quote(a) for a in ["matrixdp", *argv]) for argv in commands(
        release_part())]
    readme_lines = [" ".join(shlex.quote(a) for a in ["matrixdp", *argv])
                    for argv in commands(readme)]
    assert len(readme_lines) == 3
    assert readme_lines == [doc_lines[0], doc_lines[1], doc_lines[2]]
