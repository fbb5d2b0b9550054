"""Inputs cut into shards of whole records, and what a worker gives back for one.

A shard is a byte range of one input, cut where parser/formats/record_boundaries.py says its
format's records may be cut: the first cut at least `shard_bytes` after the shard's start (a
record is never split, so a long one makes a longer shard). The cuts depend on the bytes and
`shard_bytes` only, so the same input always gives the same shards (what `--resume` relies
on). A pipe is cut sooner, at the last cut of what has arrived, when no more input is waiting,
so that a pipeline feeding a sentence at a time gets it back at once.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from parser.formats.record_boundaries import CutRule

# Shards of about this many bytes by default: a fraction of a second of parsing each, so that
# a task costs the scheduler far less than it costs a worker, and enough shards to keep workers
# busy on a file of a few megabytes.
SHARD_BYTES = 1 << 20
READ_BYTES = 1 << 20


@dataclass(frozen=True)
class Shard:
    """Bytes [start, end) of the input `source` (as messages name it); its first line is line
    first_line of the input."""

    index: int
    source: str
    start: int
    end: int
    first_line: int
    data: bytes = field(repr=False)


@dataclass
class ShardResult:
    """What a worker gives back for a shard: its output bytes and number of records, the
    counts of its tag coverage (parser/formats/tag_coverage.py), the command's own totals
    (`tallies`, summed over shards), and its input error's one-line message (its output is
    then empty); seconds: the worker's time on it."""

    index: int
    output: bytes = b""
    records: int = 0
    coverage: dict[str, Any] = field(default_factory=dict)
    tallies: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0


def cut_shards(stream: BinaryIO, rule: CutRule, shard_bytes: int = SHARD_BYTES,
               source: str = "<stdin>", more_ready: Callable[[], bool] = lambda: True
               ) -> Iterator[Shard]:
    """The shards of stream, in order; more_ready() tells whether more input is waiting (a
    regular file: always)."""
    read = getattr(stream, "read1", stream.read)
    data = b""
    offset = index = 0
    line = 1
    ended = False
    while True:
        cut = rule(data, shard_bytes, ended) if len(data) >= shard_bytes else None
        if cut is None and ended:
            cut = len(data)
        if cut is None and data and not more_ready():
            cut = _last_cut(data, rule)
        if cut:
            piece, data = data[:cut], data[cut:]
            yield Shard(index, source, offset, offset + cut, line, piece)
            index += 1
            offset += cut
            line += piece.count(b"\n")
            continue
        if ended:
            return
        chunk = read(max(READ_BYTES, shard_bytes))
        if chunk:
            data += chunk
        else:
            ended = True


def _last_cut(data: bytes, rule: CutRule) -> int | None:
    """The last cut in data (a pipe that has no more input waiting is cut there)."""
    last = None
    position = 1
    while True:
        cut = rule(data, position, False)
        if cut is None:
            return last
        last = cut
        position = cut + 1
