"""What the command lines of the corpora scripts (corpora_scripts/) share: a --debug option,
and polyparse's handling of bad input, closed pipes and signals around the work
(parser/cli/main.py's run_guarded)."""
from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from polyparse.parser.cli.main import run_guarded


def script_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The argument parser of the script `prog`, with --debug (tracebacks on errors)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    return parser


def run_script(parser: argparse.ArgumentParser, argv: Sequence[str] | None,
               work: Callable[[argparse.Namespace], None]) -> int:
    """work(the parsed argv) under run_guarded, messages named after the parser's prog; the
    exit code."""
    args = parser.parse_args(argv)
    return run_guarded(parser.prog, lambda: work(args), debug=args.debug)
