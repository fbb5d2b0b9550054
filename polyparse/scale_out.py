"""Parsing many files in shards, on local processes or a Dask cluster (docs/scale.md): the
adapter from polyparse's parsers to parser/scale_out/parse_files.py."""
from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from polyparse.dependency import Parser, load_parser
from polyparse.japanese import JapaneseParser
from polyparse.parser.scale_out.parse_files import parse_files_into
from polyparse.parser.scale_out.shards import SHARD_BYTES

Path = str | os.PathLike


def parse_files(paths: Iterable[Path], output_dir: Path, client: Any = None,
                workers: int | None = None, parser: Parser | JapaneseParser | None = None,
                format: str | None = None, shard_size: int = SHARD_BYTES,
                resume: bool = False) -> list[dict[str, Any]]:
    """Parse the files (CoNLL-U, or KNP / CaboCha for a JapaneseParser; `format` as the
    commands name it) into output_dir as `dep parse --output-dir` does: one part file per
    shard of about shard_size bytes, `_manifest.jsonl` and `_SUCCESS`; the parts, in order,
    are the parse of the files one after another. client: a dask.distributed Client whose
    workers parse (the parser goes to each once); workers: that many local processes; neither:
    this process. resume: complete a folder an earlier call wrote. Returns the manifest's
    line of each part. InputError (one line: file and line) for bad input; the other parts are
    still written."""
    parser = parser if parser is not None else load_parser()
    if not isinstance(parser, (Parser, JapaneseParser)):
        raise TypeError(f"parser must be a polyparse Parser or JapaneseParser, not "
                        f"{type(parser).__name__}")
    return parse_files_into(paths, output_dir, parser, format, client=client,
                            workers=workers, shard_bytes=shard_size, resume=resume)
