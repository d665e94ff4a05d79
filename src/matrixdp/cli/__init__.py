"""The ``matrixdp`` command line.

Each subcommand lives in its own module under :mod:`matrixdp.cli` and exposes
``add_parser(subparsers)``, which registers the subcommand and sets ``func`` to
a callable ``func(args) -> int``. Add a module's name to ``SUBCOMMANDS`` to
register it.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys

from .._version import __version__
from ..errors import MatrixDPError

#: Subcommand modules, in the order ``--help`` lists them.
SUBCOMMANDS = ["demo", "audit", "reproduce", "synth", "budget", "release"]


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``matrixdp CMD: error: ... (see --help)``.

    argparse prints the whole usage (a dozen lines for ``synth``) before a bad option value;
    a curator needs only the option, what was wrong and where the help is. Subparsers made by
    ``add_subparsers`` inherit this class, so every subcommand behaves alike. Exit status 2
    (argparse's, for a command line that could not be parsed).
    """

    def error(self, message):  # noqa: D401 - argparse's hook
        text = " ".join(str(message).split())
        self.exit(2, f"{self.prog}: error: {text} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="matrixdp",
        description="Differential privacy for matrix-valued data: private releases, "
                    "synthetic data, audits and paper reproductions.")
    parser.add_argument("--version", action="version", version=f"matrixdp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f".{name}", __name__).add_parser(sub)
    _plain_help(parser)
    return parser


_ROLE = re.compile(r":[a-z]+:`~?(?:[\w.]*\.)?([^`]+)`")


def plain(text):
    """Help text without reStructuredText markup (``x`` and :role:`a.b` become x and b)."""
    if not text:
        return text
    return _ROLE.sub(r"\1", text).replace("``", "")


def _plain_help(parser: argparse.ArgumentParser) -> None:
    """Strip markup from a parser's description, epilog and option help, recursively."""
    parser.description = plain(parser.description)
    parser.epilog = plain(parser.epilog)
    for action in parser._actions:
        if action.help not in (None, argparse.SUPPRESS):
            action.help = plain(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = plain(choice.help)
            for sub in action.choices.values():
                _plain_help(sub)


def main(argv=None) -> int:
    """Entry point of the ``matrixdp`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from . import _paths, budget

    budget.OPENED.clear()
    _paths.COMPLETED.clear()
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        # Ctrl-C: one line saying what was charged and what was (not) written; exit 130.
        print(f"matrixdp {args.command}: interrupted: {budget.interrupted_message()}; "
              f"{_paths.interrupted_outputs(args.command)}", file=sys.stderr)
        return 130
    except (MatrixDPError, ValueError, OSError) as exc:
        # User errors get one line, never a traceback.
        print(f"matrixdp {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug: still one line, the traceback on request
        if os.environ.get("MATRIXDP_DEBUG"):
            raise
        print(f"matrixdp {args.command}: internal error: {type(exc).__name__}: {exc} (a bug in "
              "matrixdp: please report it; MATRIXDP_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
