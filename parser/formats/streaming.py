"""Input read as it arrives, output written as it is made: a parse of a file or a pipe (the
input opened by features/input_files.py's input_stream, with its more_ready test).

A file is read in full batches; a pipe or a terminal is cut into a batch whenever no more input
is waiting, so that a pipeline feeding one sentence at a time gets each one back at once. Each
batch's output is written (and, unless the output is a regular file, flushed) before the next
batch is read: a sentence parsed is a sentence written, and so is every sentence before one that
cannot be read (the error follows them).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import IO, TypeVar

from polyparse.features.errors import InputError
from polyparse.features.input_files import is_regular_stream

Item = TypeVar("Item")


def ready_batches(sentences: Iterable[Item], size: int,
                  more_ready: Callable[[], bool]) -> Iterator[list[Item]]:
    """Batches of at most size sentences; a batch is also cut when more_ready() says that no
    more input is waiting. When reading a sentence fails (bad input), the sentences read
    before it are a last batch, and the error comes when the next batch is asked for: every
    sentence before a bad one is written."""
    batch: list[Item] = []
    try:
        for sentence in sentences:
            batch.append(sentence)
            if len(batch) == size or not more_ready():
                yield batch
                batch = []
    except InputError:
        if batch:
            yield batch
        raise
    if batch:
        yield batch


def write_batches(sentences: Iterable[Item], size: int, more_ready: Callable[[], bool],
                  out: IO, write_batch: Callable[[list[Item], IO], None],
                  after_batch: Callable[[list[Item]], None]) -> None:
    """write_batch(batch, out) for each ready batch, then after_batch(batch); out is flushed
    after each batch unless it is a regular file."""
    flush = not is_regular_stream(out)
    for batch in ready_batches(sentences, size, more_ready):
        write_batch(batch, out)
        after_batch(batch)
        if flush:
            out.flush()
