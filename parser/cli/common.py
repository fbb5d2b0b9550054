"""What every command group of the `polyparse` command line shares: the `--debug` flag, the
lines written to stderr, input read in batches as it arrives, and file digests."""
from __future__ import annotations

import argparse
import hashlib
import select
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO, TypeVar

from features.output_files import is_regular_stream

Item = TypeVar("Item")


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


def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def ready_batches(sentences: Iterable[Item], size: int,
                  more_ready: Callable[[], bool]) -> Iterator[list[Item]]:
    """Batches of at most size sentences; a batch is also cut when more_ready() says that no
    more input is waiting, so that a pipeline feeding one sentence at a time gets each one
    back at once, while a file is read in full batches."""
    batch: list[Item] = []
    for sentence in sentences:
        batch.append(sentence)
        if len(batch) == size or not more_ready():
            yield batch
            batch = []
    if batch:
        yield batch


@contextmanager
def input_stream(path: str) -> Iterator[tuple[BinaryIO, Callable[[], bool]]]:
    """The input's binary stream (path "-": standard input) and a test telling whether more
    input is waiting: always for a regular file, by select() for a pipe or a terminal."""
    if path == "-":
        stream = sys.stdin.buffer
        yield stream, _more_ready(stream)
        return
    with open(path, "rb") as stream:
        yield stream, _more_ready(stream)


def _more_ready(stream: BinaryIO) -> Callable[[], bool]:
    if is_regular_stream(stream):
        return lambda: True
    descriptor = stream.fileno()
    return lambda: bool(select.select([descriptor], [], [], 0)[0])
