"""Input and output paths of the command line: messages name the option; outputs are atomic."""

from __future__ import annotations

import os

import pytest

from matrixdp.cli._paths import atomic_output, check_input_file, check_output_path
from matrixdp.errors import InvalidParameterError


def test_input_checks(tmp_path):
    (tmp_path / "a.csv").write_text("x\n1\n")
    assert check_input_file(tmp_path / "a.csv") == tmp_path / "a.csv"
    with pytest.raises(InvalidParameterError, match="INPUT: .* is a directory"):
        check_input_file(tmp_path)
    with pytest.raises(InvalidParameterError, match="DATA: file not found"):
        check_input_file(tmp_path / "b.csv", "DATA")


def test_output_may_not_be_an_input_even_through_a_link(tmp_path):
    source = tmp_path / "a.csv"
    source.write_text("x\n1\n")
    os.symlink(source, tmp_path / "link.csv")
    with pytest.raises(InvalidParameterError, match="--out: .* is the input file"):
        check_output_path(tmp_path / "link.csv", force=True, inputs=[source])


def test_output_checks(tmp_path):
    with pytest.raises(InvalidParameterError, match="--report: the folder"):
        check_output_path(tmp_path / "no" / "r.html", option="--report")
    (tmp_path / "o.json").write_text("{}")
    with pytest.raises(InvalidParameterError, match="already exists; pass --force"):
        check_output_path(tmp_path / "o.json")
    assert check_output_path(tmp_path / "o.json", force=True) == tmp_path / "o.json"


def test_atomic_output_leaves_nothing_on_error(tmp_path):
    target = tmp_path / "o.csv"
    with pytest.raises(RuntimeError):
        with atomic_output(target) as fh:
            fh.write("half")
            raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []
    with atomic_output(target) as fh:
        fh.write("whole")
    assert target.read_text() == "whole" and list(tmp_path.iterdir()) == [target]
