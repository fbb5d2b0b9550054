"""What every command group of the `polyparse` command line shares: the `--debug` flag and the
lines written to stderr."""
from __future__ import annotations

import argparse
import sys
from typing import Any


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


class _NoProgress:
    """What a progress bar offers, doing nothing (stderr is not a terminal)."""

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(**options: Any) -> Any:
    """A tqdm progress bar on stderr when stderr is a terminal, else a silent stand-in (tqdm is
    then not even imported, which keeps short runs short)."""
    if not sys.stderr.isatty():
        return _NoProgress()
    from tqdm import tqdm

    return tqdm(file=sys.stderr, **options)
