"""One input (a file, standard input, a pipe or a FIFO) run in shards, as every prediction
command's scale-out options ask (`--workers`, `--scheduler`, `--output-dir`, `--resume`,
`--shard-size`; docs/scale.md) and as `polyparse.parse_files` asks for many files: the run's
identity as an output folder records it, the runner, and the shards to a stream or to parts.
The command line only turns its options into a ShardOptions and draws the progress bar.
"""
from __future__ import annotations

import io
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

from polyparse.features.input_files import input_name, is_regular_file, opened_or_given
from polyparse.parser.scale_out.shards import SHARD_BYTES


@dataclass(frozen=True)
class ShardOptions:
    """How a run goes in shards: on `workers` local processes or the Dask cluster of
    `scheduler` (neither: this process), to one output or to the parts of `output_dir`
    (`resume`: complete that folder's run), cutting the input every `shard_bytes`."""

    workers: int | None = None
    scheduler: str | None = None
    output_dir: str | None = None
    resume: bool = False
    shard_bytes: int = SHARD_BYTES


def run_file_in_shards(path: str, task: Any, model: Any, model_path: str, input_format: str,
                       options: ShardOptions, command: str, settings: dict[str, Any],
                       on_result: Callable[[Any], None] = lambda result: None,
                       output: str | None = None, discard_output: bool = False,
                       stream: BinaryIO | None = None,
                       progress: Callable[[int | None], Any] | None = None) -> dict[str, Any]:
    """The input at path (or stream, already opened: its start was read to tell what it
    holds) parsed in shards by task on model, as options ask; the tallies of the shards, summed.
    on_result(result) is told of each shard's result. Without an output folder the output goes
    to output (None or "-": standard output), or nowhere with discard_output. progress(total
    shards or None) gives a bar with update(n) and close(); command and settings go into an
    output folder's manifest, so that --resume refuses another run's folder."""
    from polyparse.features.output_files import output_stream
    from polyparse.parser.formats.record_boundaries import cut_rule_of
    from polyparse.parser.scale_out.parts_directory import PartsDirectory, run_identity
    from polyparse.parser.scale_out.runners import runner_for
    from polyparse.parser.scale_out.sharded_run import run_to_parts, run_to_stream
    from polyparse.parser.scale_out.shards import cut_shards

    name, input_regular = input_name(path), is_regular_file(path)
    model_file = model_path if is_regular_file(model_path) else None
    parts = None
    if options.output_dir is not None:
        identity = run_identity(command, path, name, input_regular, model, model_file,
                                settings, options.shard_bytes)
        parts = PartsDirectory(options.output_dir, identity, options.resume)
    runner = runner_for(task, model, options.workers, options.scheduler, model_path=model_file)
    total = (max(1, math.ceil(os.path.getsize(path) / options.shard_bytes))
             if input_regular else None)
    bar: Any = None

    def done(result: Any) -> None:
        if bar is not None:
            bar.update(1)
        if result is not None:
            on_result(result)

    def start_bar() -> None:
        nonlocal bar
        bar = progress(total) if progress is not None else None

    try:
        with opened_or_given(path, stream) as (stream, more_ready):
            shards = cut_shards(stream, cut_rule_of(input_format), options.shard_bytes, name,
                                more_ready)
            if parts is not None:
                start_bar()
                return run_to_parts(shards, runner, parts, done)
            if discard_output:
                start_bar()
                return run_to_stream(shards, runner, io.BytesIO(), done)
            with output_stream(output, binary=True) as out:
                start_bar()
                return run_to_stream(shards, runner, out, done, more_ready)
    except BaseException:
        runner.close(abort=True)
        raise
    finally:
        if bar is not None:
            bar.close()
