"""What a worker does with one shard, for each prediction command: the one-process stream
function of the command run on the shard's bytes, its first line numbered as in the whole input,
so that the output bytes and any message are those a one-process run gives for that part.

A task is a small frozen object (the command's settings, no model) called with the model and
the shard; it pickles, so that a process pool or a Dask worker receives it with each shard while
the model is sent to each worker once (parser/scale_out/runners.py).
"""
from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from features.errors import InputError
from parser.scale_out.shards import Shard, ShardResult

# The result a shard task fills in: its output stream, coverage and tallies.
Filler = Callable[[Any, Shard, io.BytesIO, ShardResult], None]


def run_task(fill: Filler, model: Any, shard: Shard) -> ShardResult:
    """fill(model, shard, output, result), timed; an input error is the result's message and
    leaves its output empty."""
    started = time.perf_counter()
    result = ShardResult(shard.index)
    output = io.BytesIO()
    try:
        fill(model, shard, output, result)
        result.output = output.getvalue()
    except InputError as error:
        result.error = str(error)
        result.records = 0
        result.coverage = {}
        result.tallies = {}
    result.seconds = time.perf_counter() - started
    return result


def _text_output(output: io.BytesIO, encoding: str) -> io.TextIOWrapper:
    """A text layer over output in encoding, writing line ends as given (as output_stream)."""
    return io.TextIOWrapper(output, encoding=encoding, newline="", write_through=True)


@dataclass(frozen=True)
class DependencyShardTask:
    """`dep parse` of a shard (parser/dependency/conll_files.py)."""

    fmt: str = "conllu"
    encoding: str = "utf-8"
    keep_deps: bool = False

    def __call__(self, parser: Any, shard: Shard) -> ShardResult:
        return run_task(self.fill, parser, shard)

    def fill(self, parser: Any, shard: Shard, output: io.BytesIO, result: ShardResult) -> None:
        from parser.dependency.conll_files import parse_conll_stream

        coverage = parser.tag_coverage()
        text = _text_output(output, self.encoding)

        def count(n: int) -> None:
            result.records += n

        parse_conll_stream(parser, io.BytesIO(shard.data), lambda: True, text, fmt=self.fmt,
                           encoding=self.encoding, name=shard.source, keep_deps=self.keep_deps,
                           coverage=coverage, progress=count, first_line=shard.first_line)
        text.detach()
        result.coverage = coverage.counts()


@dataclass(frozen=True)
class JapaneseShardTask:
    """`ja parse` of a shard: the KNP fast path (parser/bunsetsu/stream_parsing.py's
    KnpStreamParser, its batch and last bytes given the shard's first line) or the Python
    path (the sentences read with their line numbers, parsed and written as parse_bunsetsu_stream
    writes them)."""

    fmt: str = "knp"
    encoding: str = "utf-8"
    rechunk: bool = False
    output_format: str | None = None
    model_name: str = "the model"

    def __call__(self, parser: Any, shard: Shard) -> ShardResult:
        return run_task(self.fill, parser, shard)

    def fill(self, parser: Any, shard: Shard, output: io.BytesIO, result: ShardResult) -> None:
        from parser.bunsetsu.stream_parsing import knp_fast_path
        from parser.formats.bunsetsu import OUTPUT_FORMAT

        coverage = parser.tag_coverage()
        output_format = self.output_format or OUTPUT_FORMAT[self.fmt]
        if knp_fast_path(self.fmt, self.encoding, self.rechunk, output_format):
            result.records = self._fast_path(parser, shard, output, coverage)
        else:
            result.records = self._python_path(parser, shard, output, coverage, output_format)
        result.coverage = coverage.counts()

    def _fast_path(self, parser: Any, shard: Shard, output: io.BytesIO, coverage: Any) -> int:
        from parser.bunsetsu.stream_parsing import KnpStreamParser

        reader = KnpStreamParser(parser, shard.source, self.model_name, coverage, self.encoding)
        # One thread: the workers are the parallelism.
        reader.threads = 1
        try:
            used, n_lines, _ = reader.batch(memoryview(shard.data), shard.first_line,
                                            output.write)
            rest = shard.data[used:]
            if rest or not reader.n_blocks:
                reader.last_bytes(rest, shard.first_line + n_lines, output.write)
        finally:
            reader.close()
        return reader.n_blocks

    def _python_path(self, parser: Any, shard: Shard, output: io.BytesIO, coverage: Any,
                     output_format: str) -> int:
        from parser.bunsetsu.bunsetsu_files import parsed_blocks
        from parser.formats.bunsetsu import read_bunsetsu

        sentences = list(read_bunsetsu(io.BytesIO(shard.data), self.fmt, validate=False,
                                       encoding=self.encoding, name=shard.source,
                                       allow_empty=True, first_line=shard.first_line))
        if any(not s.chunk_lines for s in sentences) and not parser.can_chunk:
            raise InputError(f"ja parse: {shard.source}: sentences without bunsetsu lines need "
                             f"a chunker, which {self.model_name} lacks")
        coverage.add(sentences)
        text = "".join(parsed_blocks(parser, sentences, output_format, self.rechunk))
        output.write(text.encode(self.encoding))
        return len(sentences)
