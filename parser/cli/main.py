"""The `polyparse` command line: one entry point with subcommand groups (DESIGN.md, "The command line")."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from features.errors import InputError
from parser.cli import clf, dep


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="polyparse",
        description="Fast, exact conjunctive-feature classifiers inside NLP parsers.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    groups = parser.add_subparsers(dest="group", metavar="{dep,clf}", required=True)
    dep.register(groups)
    clf.register(groups)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except InputError as error:
        if debug:
            raise
        print(f"polyparse: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        if debug:
            raise
        where = f"{error.filename}: " if error.filename else ""
        print(f"polyparse: {where}{error.strerror or error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
