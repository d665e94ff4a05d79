import subprocess
import sys

import pytest

from matrixdp import __version__
from matrixdp.cli import SUBCOMMANDS, build_parser, main


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
