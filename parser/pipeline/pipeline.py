"""Pipeline: a reader, stages and a writer, checked once and run on streams or on lists.

Every command that turns input into output (`dep parse`, `tag tag`, `tokenize tokenize`, `ja
parse`), the Python API and the scale-out workers run their stages through this class: on a
stream, records are read in batches as the input arrives (parser/formats/streaming.py), each
batch goes through the stages and is written, and flushed unless the output is a regular file,
before the next is read; on a list (the Python API), the stages run on it at once.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any, BinaryIO

from polyparse.parser.formats.streaming import write_batches
from polyparse.parser.pipeline.stage import MissingLayer, Reader, Stage, Writer

# Records read, run and written at once from a file (a pipe is cut sooner, when it has no more
# input waiting).
BATCH = 2000


@dataclass
class Pipeline:
    """reader (None: records are given, with the layers of `given`), stages and writer (None:
    records are returned); ValueError (MissingLayer) when a stage or the writer would not find
    a layer it needs."""

    reader: Reader | None
    stages: Sequence[Stage]
    writer: Writer | None = None
    given: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.stages = list(self.stages)
        layers = set(self.reader.provides if self.reader is not None else self.given)
        for stage in self.stages:
            missing = stage.requires - layers
            if missing:
                raise MissingLayer(f"the {stage.name} stage needs {', '.join(sorted(missing))}, "
                                   f"which no stage before it provides")
            layers |= stage.provides
        if self.writer is not None and self.writer.requires - layers:
            missing = ", ".join(sorted(self.writer.requires - layers))
            raise MissingLayer(f"the writer needs {missing}")
        self.layers = frozenset(layers)

    def run(self, batch: Iterable[Any]) -> list[Any]:
        """The records through every stage."""
        records = list(batch)
        for stage in self.stages:
            records = stage(records)
        return records

    def write(self, records: list[Any], out: IO) -> None:
        """Records that went through the stages, written by the writer."""
        assert self.writer is not None
        self.writer.write(records, out)

    def stream(self, stream: BinaryIO, more_ready: Callable[[], bool], out: IO, name: str,
               first_line: int = 1, progress: Callable[[int], object] | None = None) -> None:
        """Read stream (named name in messages) with the reader, run each batch as it is ready
        and write it to out (flushed after each batch unless out is a regular file);
        progress(n) is told of each batch of n records."""
        assert self.reader is not None and self.writer is not None
        for stage in self.stages:
            stage.begin(name)
        records = self.reader.read(stream, name, first_line)
        write = self.writer.write

        def write_batch(batch: list[Any], target: IO) -> None:
            batch[:] = self.run(batch)
            write(batch, target)

        def after_batch(batch: list[Any]) -> None:
            if progress is not None:
                progress(len(batch))

        write_batches(records, BATCH, more_ready, out, write_batch, after_batch)

    def done(self) -> list[str]:
        """What the stages say they did (closing log lines)."""
        return [line for stage in self.stages if (line := stage.done()) is not None]
