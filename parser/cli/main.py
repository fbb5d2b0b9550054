"""The `polyparse` command line: one entry point with subcommand groups (docs/cli.md; where it
stands among the rooms: docs/design.md).

Start-up is a feature: this module imports the standard library only. The groups are known by
name (GROUPS); the one named on the command line is imported and registers its subcommands, and
the run function of the chosen subcommand imports the library it needs. `polyparse --version`
and `polyparse --help` import no group at all.

What every command shares is settled here: bad input ends in one line on stderr and exit code
2 (`--debug` shows the traceback); SIGINT, SIGTERM and SIGHUP end a run quietly with 128 plus
the signal's number, after the outputs being written have removed their temporary files; a
closed pipe on standard output (`polyparse dep parse big.conllu | head`) ends it quietly with
141, as it ends the Unix tools.
"""
from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from polyparse.features.errors import InputError, InputWarning
from polyparse.parser.cli.quit_signals import Terminated, quit_signals_blocked, quit_signals_raise

BROKEN_PIPE_EXIT = 128 + signal.SIGPIPE
# The command groups: the module that registers and runs each, and its line in --help.
GROUPS = {
    "dep": ("polyparse.parser.cli.dep", "arc-eager dependency parsing of CoNLL-U / CoNLL-X"),
    "pipeline": ("polyparse.parser.cli.pipeline",
                 "learn tokenizer, tagger and parser of any UD language from one treebank"),
    "tokenize": ("polyparse.parser.cli.tokenize",
                 "sentences and tokens of text, learned from a treebank of any language"),
    "tag": ("polyparse.parser.cli.tag",
            "POS tagging (UPOS, XPOS, FEATS, lemmas) of CoNLL-U / CoNLL-X"),
    "ja": ("polyparse.parser.cli.ja", "Japanese bunsetsu dependency parsing of KNP / CaboCha"),
    "srl": ("polyparse.parser.cli.srl", "SRL argument-boundary detection on gold_conll files"),
    "clf": ("polyparse.parser.cli.clf", "train, apply and inspect classifiers on svmlight files"),
}


class VersionAction(argparse.Action):
    """--version: print the installed version and exit (looked up only when asked for, since
    importlib.metadata takes longer to import than a small parse takes to run)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the installed version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("polyparse")
        except PackageNotFoundError:
            found = "unknown"
        print(f"polyparse {found}")
        parser.exit()


def chosen_group(argv: Sequence[str]) -> str | None:
    """The group the command line names: its first word that is not an option (the top-level
    options take no values), when it is a group's name."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in GROUPS else None
    return None


def build_parser(argv: Sequence[str] = (), every_group: bool = False) -> argparse.ArgumentParser:
    """The argument parser; only the group argv names (every group with every_group, as the
    docs and their tests need) is imported and registers its commands, the others are listed by
    name and help line."""
    parser = argparse.ArgumentParser(
        prog="polyparse",
        description="Fast, exact conjunctive-feature classifiers inside NLP parsers.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--version", action=VersionAction)
    groups = parser.add_subparsers(dest="group", metavar="{" + ",".join(GROUPS) + "}",
                                   required=True)
    chosen = chosen_group(argv)
    for name, (module, help_line) in GROUPS.items():
        if every_group or name == chosen:
            importlib.import_module(module).register(groups.add_parser(name, help=help_line))
        else:
            groups.add_parser(name, help=help_line)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if getattr(args, "uses_numpy", True):
        with quit_signals_blocked():
            import numpy  # noqa: F401
    return run_guarded("polyparse", lambda: args.run(args), debug)


@contextmanager
def input_warnings_as_lines(name: str) -> Iterator[None]:
    """While inside, an InputWarning the library issues is printed as the command's own warning
    line, `name: warning: ...`; other warnings as Python prints them."""
    with warnings.catch_warnings():
        python_way = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 file: object = None, line: str | None = None) -> None:
            if issubclass(category, InputWarning):
                print(f"{name}: warning: {message}", file=sys.stderr)
            else:
                python_way(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        warnings.simplefilter("always", InputWarning)
        yield


def run_guarded(name: str, run: Callable[[], int | None], debug: bool = False) -> int:
    """run(), as every command of polyparse and every corpora script runs: its bad input
    turned into one line `name: problem` and exit code 2, a closed pipe into 141, SIGINT,
    SIGTERM and SIGHUP into 128 plus the signal's number."""
    try:
        with quit_signals_raise(), input_warnings_as_lines(name):
            return int(run() or 0)
    except InputError as error:
        if debug:
            raise
        print(f"{name}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # Nothing more can reach the reader; later flushes go to /dev/null, quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE_EXIT
    except OSError as error:
        if debug:
            raise
        where = f"{error.filename}: " if error.filename else ""
        print(f"{name}: {where}{error.strerror or error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return end_now(128 + signal.SIGINT)
    except Terminated as stop:
        return end_now(128 + stop.signum)


def end_now(code: int) -> int:
    """code, after which the process ends; when worker threads are still training, the
    process ends here at once, so that they do not hold the exit back (the outputs have
    already removed their temporary files while the signal unwound)."""
    if threading.active_count() > 1:
        sys.stderr.flush()
        try:
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):
            pass
        os._exit(code)
    return code


if __name__ == "__main__":
    sys.exit(main())
