import subprocess
import sys

import pytest

from matrixdp import __version__
from matrixdp.cli import SUBCOMMANDS, main


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and __version__ in capsys.readouterr().out


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_subcommand_has_help(name, capsys):
    with pytest.raises(SystemExit) as info:
        main([name, "--help"])
    assert info.value.code == 0 and "usage" in capsys.readouterr().out


def test_console_script_entry_point():
    out = subprocess.run([sys.executable, "-m", "matrixdp", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and __version__ in out.stdout


def _help(argv, capsys):
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    return capsys.readouterr().out


@pytest.mark.parametrize("name", [None, *SUBCOMMANDS])
def test_help_has_no_markup_and_no_unshipped_references(name, capsys):
    text = _help([] if name is None else [name], capsys)
    for marker in ("``", ":math:", ":class:", ":func:", ":meth:", "spec section", "spec §", "specs/"):
        assert marker not in text, (name, marker)


def test_listings_are_aligned(capsys):
    for argv in (["reproduce", "list"], ["audit", "--list"]):
        assert main(argv) == 0
        lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
        names = [line.split()[0] for line in lines]
        # the description starts in the same column on every line, after at least two spaces
        starts = {len(line) - len(line[len(n):].lstrip()) for line, n in zip(lines, names)}
        assert len(starts) == 1, argv
        assert all(line[len(n):len(n) + 2] == "  " for line, n in zip(lines, names)), argv


def test_one_quiet_flag_everywhere(capsys):
    for name in ("audit", "reproduce", "synth"):
        assert "--quiet" in _help([name], capsys), name


def test_synth_notes_name_no_unshipped_spec(tmp_path, capsys):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.uniform(size=(300, 4)), columns=list("abcd"))
    frame["y"] = np.where(frame["a"] > 0.5, 1, 0)
    frame.to_csv(tmp_path / "d.csv", index=False)
    assert main(["synth", str(tmp_path / "d.csv"), "--epsilon", "2", "--dim", "2", "--task",
                 "classification", "--target", "y", "--classes", "0,1", "--out",
                 str(tmp_path / "o.csv"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "guarantee" in out and "spec section" not in out and "spec §" not in out


def test_an_internal_error_is_one_line_unless_debugging(monkeypatch, capsys):
    import matrixdp.cli.demo as demo

    def broken(args):
        raise KeyError("oops")

    monkeypatch.setattr(demo, "run", broken)  # main() builds its parser afresh: it binds this
    assert main(["demo"]) == 1
    err = capsys.readouterr().err
    assert "internal error: KeyError" in err and "MATRIXDP_DEBUG=1" in err
    assert len(err.strip().splitlines()) == 1
    monkeypatch.setenv("MATRIXDP_DEBUG", "1")
    with pytest.raises(KeyError):
        main(["demo"])
