"""Inputs cut into shards of whole records, and what a worker gives back for one.

A shard is a byte range of one input, cut where parser/formats/record_boundaries.py says its
format's records may be cut: the first cut at least `shard_bytes` after the shard's start (a
record is never split, so a long one makes a longer shard). The cuts depend on the bytes and
`shard_bytes` only, so the same input always gives the same shards (what `--resume` relies
on). A pipe is cut sooner, at the last cut of what has arrived, when no more input is waiting,
so that a pipeline feeding a sentence at a time gets it back at once.

A shard of a regular file can travel without its bytes, as a reference (by_reference): the
file's absolute path, the range and the bytes' sha256; its worker reads the range itself
(read_reference) and checks the sha256, so that a worker that cannot read the file as the
driver did (another machine, no shared filesystem, a file changed since) says so
(NotOnWorker) instead of parsing other bytes.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from polyparse.parser.formats.record_boundaries import CutRule

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
    # A shard sent by reference: the input's absolute path and the sha256 of bytes
    # [start, end); data is then empty.
    path: str | None = None
    sha256: str | None = None


class NotOnWorker(Exception):
    """What a task sent by reference could not find on its worker as the driver had it: `what`
    is "input" or "model" (raised on the worker, handed back to the driver as the task's
    value)."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(what, detail)
        self.what = what
        self.detail = detail

    def __str__(self) -> str:
        return f"the {self.what} is not readable on this worker as on the driver: {self.detail}"


def by_reference(shard: Shard, path: str) -> Shard:
    """The shard without its bytes: the absolute path of its input file and their sha256."""
    return dataclasses.replace(shard, data=b"", path=path, sha256=_sha256(shard.data))


def read_reference(shard: Shard) -> Shard:
    """The shard with its bytes: as it is, or read from the file it refers to (NotOnWorker
    when they cannot be read or are not the bytes the driver cut)."""
    if shard.path is None:
        return shard
    data = read_checked("input", shard.path, str(shard.sha256), shard.start, shard.end)
    return dataclasses.replace(shard, data=data, path=None, sha256=None)


def read_checked(what: str, path: str, sha256: str, start: int = 0,
                 end: int | None = None) -> bytes:
    """Bytes start to end (None: the file's end) of the file at path, on a worker; NotOnWorker
    (`what`: "input" or "model") when they cannot be read or their sha256 is not the one the
    driver found."""
    try:
        with open(path, "rb") as stream:
            stream.seek(start)
            data = stream.read() if end is None else stream.read(end - start)
    except OSError as error:
        raise NotOnWorker(what, f"{path}: {error.strerror or error}") from None
    if _sha256(data) != sha256:
        span = "" if end is None else f"bytes {start}-{end}: "
        raise NotOnWorker(what, f"{path}: {span}not the bytes the driver read (sha256)")
    return data


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


def _sha256(data: bytes) -> str:
    """The sha256 of shard bytes (hashlib imported here: every command with scale-out options
    imports this module for SHARD_BYTES, and most runs never shard by reference)."""
    import hashlib

    return hashlib.sha256(data).hexdigest()
