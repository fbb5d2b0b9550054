"""Files parsed in shards into an output folder, from Python: what `--output-dir` does on the
command line, for many input files at once, on this process, a local process pool or the
caller's own Dask client."""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Iterator
from typing import Any

from polyparse.features.input_files import check_input_paths, is_regular_file
from polyparse.parser.formats.record_boundaries import cut_rule_of
from polyparse.parser.scale_out.parts_directory import (
    PartsDirectory,
    check_parts_folder,
    input_identity,
    model_identity,
)
from polyparse.parser.scale_out.runners import runner_for
from polyparse.parser.scale_out.sharded_run import run_to_parts
from polyparse.parser.scale_out.shards import SHARD_BYTES, Shard, cut_shards


def shards_of_files(paths: Iterable[str], fmt: str, shard_bytes: int) -> Iterator[Shard]:
    """The shards of every file in turn, numbered on from one file to the next."""
    index = 0
    for path in paths:
        with open(path, "rb") as stream:
            for shard in cut_shards(stream, cut_rule_of(fmt), shard_bytes, path):
                yield dataclasses.replace(shard, index=index)
                index += 1


def parse_files_into(paths: Iterable[str | os.PathLike], output_dir: str | os.PathLike,
                     model: Any, fmt: str | None = None, client: Any = None,
                     workers: int | None = None, shard_bytes: int = SHARD_BYTES,
                     resume: bool = False) -> list[dict[str, Any]]:
    """Parse the files with an opened parser (model: what parser/pipeline opens, which names
    the task of a shard and its input formats) into output_dir (see
    parser/scale_out/parts_directory.py): on the Dask client's cluster, in `workers` local
    processes, or in this process; fmt: the input format (default: the parser's first);
    the manifest's lines of the parts."""
    paths = [os.fspath(path) for path in paths]
    if client is not None and workers is not None:
        raise ValueError("give a Dask client or a number of workers, not both")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if not paths:
        raise ValueError("no input files")
    fmt = fmt or model.INPUT_FORMATS[0]
    if fmt not in model.INPUT_FORMATS:
        raise ValueError(f"this parser reads {', '.join(model.INPUT_FORMATS)}, not {fmt!r}")
    check_input_paths(paths)
    check_parts_folder(os.fspath(output_dir), resume)
    identity = {"command": f"parse_files {fmt}",
                "input": [input_identity(path, path, is_regular_file(path)) for path in paths],
                "model": model_identity(model, None),
                "settings": {"format": fmt}, "shard_bytes": shard_bytes}
    parts = PartsDirectory(output_dir, identity, resume)
    runner = runner_for(model.shard_task(fmt), model, workers=workers, client=client)
    run_to_parts(shards_of_files(paths, fmt, shard_bytes), runner, parts, lambda result: None)
    return [parts.entries[index] for index in sorted(parts.entries)]
