"""The defect hunts' shared probe runner (``experiments/_defect_probes.py``)."""

import json
import sys
from pathlib import Path

import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

import _defect_probes as dp  # noqa: E402

SRC = EXPERIMENTS.parent / "src"


@pytest.mark.parametrize("style", ["json", "text"])
def test_a_probe_returns_its_last_line(style):
    out = dp.run_probe("print('first')\nprint(json.dumps({'x': 1}))", SRC, 60,
                       header="import json\n", style=style)
    assert json.loads(out) == {"x": 1}


def test_a_crash_and_a_timeout_are_reported_in_each_style():
    crash = "raise ValueError('boom')"
    assert dp.run_probe(crash, SRC, 60) == json.dumps("crash: ValueError: boom")
    assert dp.run_probe(crash, SRC, 60, style="text") == "exit 1: ['ValueError: boom']"
    slow = "import time\ntime.sleep(30)"
    assert dp.run_probe(slow, SRC, 0.5) == '"timeout"'
    assert dp.run_probe(slow, SRC, 0.5, style="text") == "timeout"
    with pytest.raises(ValueError, match="style"):
        dp.run_probe("pass", SRC, 1, style="xml")


def test_the_probe_sees_the_library_it_is_given(tmp_path):
    (tmp_path / "fake").mkdir()
    (tmp_path / "fake" / "matrixdp.py").write_text("WHERE = 'fake'\n")
    out = dp.run_probe("import matrixdp, json\nprint(json.dumps(getattr(matrixdp, 'WHERE', 'real')))",
                       tmp_path / "fake", 60)
    assert json.loads(out) == "fake"


def test_the_base_tree_is_the_commit_s_src(tmp_path):
    src = dp.base_tree("HEAD", tmp_path)
    assert src == tmp_path / "src"
    assert (src / "matrixdp" / "__init__.py").is_file()
    assert not (tmp_path / "experiments").exists()


def test_markdown_rows_escape_the_bar():
    assert dp.markdown_row(["a|b", 1]) == "| a\\|b | 1 |"
    assert dp.markdown_row(["a|b"], "/") == "| a/b |"
