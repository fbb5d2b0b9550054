"""The driver of a run in shards: it reads the input and cuts it into shards, keeps a few of them
submitted to a runner ahead of the one it waits for, and takes the results back in input
order: written to one output stream as each comes (byte for byte a one-process run's output),
or as the parts of an output folder (parser/scale_out/parts_directory.py).

Errors are reported as a one-process run reports them: the first bad shard in input order gives
its message (the input file and line, as the shard task numbered it). Writing to a stream stops
there, after every shard before it is written; an output folder keeps going, so that every
other part is written and listed, and gets no `_SUCCESS`. SIGINT, SIGTERM and a closed pipe stop
the runner's workers (their shards are dropped) and, for a folder, write its manifest of the
parts done.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from polyparse.features.errors import InputError
from polyparse.features.input_files import is_regular_stream
from polyparse.parser.scale_out.parts_directory import PartsDirectory
from polyparse.parser.scale_out.runners import ShardRunner, shards_in_flight
from polyparse.parser.scale_out.shards import Shard, ShardResult


def ordered_results(shards: Iterable[Shard], runner: ShardRunner,
                    more_ready: Callable[[], bool] = lambda: True
                    ) -> Iterator[tuple[Shard, ShardResult]]:
    """(shard, result) in input order, with up to shards_in_flight(runner) submitted at any
    time. A shard is read only when none is in flight or more_ready() says input is waiting,
    so that a pipe's sentences come back while it is held open."""
    window = shards_in_flight(runner)
    pending: deque[tuple[Shard, Any]] = deque()
    upcoming = iter(shards)
    ended = False
    while True:
        while not ended and len(pending) < window and (not pending or more_ready()):
            shard = next(upcoming, None)
            if shard is None:
                ended = True
            else:
                pending.append((shard, runner.submit(shard)))
        if not pending:
            return
        shard, handle = pending.popleft()
        yield shard, runner.result(handle)


def add_tallies(totals: dict[str, Any], tallies: dict[str, Any]) -> None:
    """Sum a shard's tallies into totals (numbers added, lists joined)."""
    for key, value in tallies.items():
        totals[key] = totals[key] + value if key in totals else value


def run_to_stream(shards: Iterable[Shard], runner: ShardRunner, out: IO[bytes],
                  on_result: Callable[[ShardResult], None],
                  more_ready: Callable[[], bool] = lambda: True) -> dict[str, Any]:
    """Every shard's output written to out in input order (flushed after each unless out is a
    regular file); on_result(result) is told of each; the tallies summed over shards. The first
    shard's input error stops the run (InputError). more_ready: see ordered_results."""
    totals: dict[str, Any] = {}
    flush = not is_regular_stream(out)
    try:
        for _, result in ordered_results(shards, runner, more_ready):
            if result.error is not None:
                raise InputError(result.error)
            out.write(result.output)
            if flush:
                out.flush()
            add_tallies(totals, result.tallies)
            on_result(result)
    except BaseException:
        runner.close(abort=True)
        raise
    runner.close()
    return totals


def run_to_parts(shards: Iterable[Shard], runner: ShardRunner, parts: PartsDirectory,
                 on_result: Callable[[ShardResult | None], None]) -> dict[str, Any]:
    """Every shard the folder still needs written as its part; on_result is told of each shard
    (None for a part kept from an earlier run); the tallies summed over all parts. After the
    last, `_SUCCESS` when no shard had an error, else InputError with the first one's message."""
    totals: dict[str, Any] = {}
    for entry in parts.kept.values():
        add_tallies(totals, entry.get("tallies", {}))
    first_error: str | None = None
    complete = False

    def needed(all_shards: Iterable[Shard]) -> Iterator[Shard]:
        for shard in all_shards:
            if parts.needs(shard):
                yield shard
            else:
                on_result(None)

    try:
        for shard, result in ordered_results(needed(shards), runner):
            if result.error is not None:
                first_error = first_error or result.error
            else:
                parts.write(shard, result)
                add_tallies(totals, result.tallies)
            on_result(result)
        complete = first_error is None
    except BaseException:
        runner.close(abort=True)
        raise
    finally:
        parts.finish(complete)
    runner.close()
    if first_error is not None:
        raise InputError(first_error)
    return totals
