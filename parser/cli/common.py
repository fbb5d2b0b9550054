"""What every command group of the `polyparse` command line shares: the `--debug` flag and the
lines written to stderr."""
from __future__ import annotations

import argparse
import sys


def debug_parent() -> argparse.ArgumentParser:
    """A parent parser giving every subcommand the `--debug` flag."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    return parent


def log(message: str) -> None:
    """One progress line on stderr."""
    print(f"polyparse: {message}", file=sys.stderr, flush=True)


def warn(message: str) -> None:
    """One warning line on stderr: the run goes on, but its result may not be what was meant."""
    log(f"warning: {message}")
