"""What every command group of the `polyparse` command line shares: the `--debug` flag."""
from __future__ import annotations

import argparse


def debug_parent() -> argparse.ArgumentParser:
    """A parent parser giving every subcommand the `--debug` flag."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    return parent
