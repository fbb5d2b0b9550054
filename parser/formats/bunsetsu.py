"""One entry point for the Japanese bunsetsu formats: KNP and CaboCha, chosen by name.

Both formats give ``BunsetsuSentence`` objects and write them back with only the bunsetsu heads
changed; see ``parser.formats.knp`` and ``parser.formats.cabocha`` for the formats themselves.
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import BinaryIO, TextIO

from parser.formats.bunsetsu_sentence import BunsetsuSentence
from parser.formats.cabocha import format_cabocha, read_cabocha
from parser.formats.knp import format_knp, read_knp

__all__ = ["BUNSETSU_FORMATS", "format_bunsetsu", "read_bunsetsu"]

BUNSETSU_FORMATS = ("knp", "cabocha")


def read_bunsetsu(
    path: str | os.PathLike | TextIO | BinaryIO | None,
    fmt: str = "knp",
    validate: bool = True,
    encoding: str = "utf-8",
    name: str | None = None,
    allow_empty: bool = False,
) -> Iterator[BunsetsuSentence]:
    """The sentences of a KNP (``fmt="knp"``) or CaboCha (``fmt="cabocha"``) file (an empty
    one is an error unless allow_empty)."""
    reader = read_knp if fmt == "knp" else read_cabocha if fmt == "cabocha" else None
    if reader is None:
        raise ValueError(f"unknown format {fmt!r}, expected one of {', '.join(BUNSETSU_FORMATS)}")
    return reader(path, validate=validate, encoding=encoding, name=name, allow_empty=allow_empty)


def format_bunsetsu(
    sentence: BunsetsuSentence,
    heads: Sequence[int],
    dep_types: Sequence[str] | None = None,
    chunk_starts: Sequence[int] | None = None,
    fmt: str = "knp",
) -> str:
    """The sentence's block with new heads, in its format (see format_knp / format_cabocha)."""
    if fmt == "knp":
        return format_knp(sentence, heads, dep_types, chunk_starts)
    if fmt == "cabocha":
        return format_cabocha(sentence, heads, dep_types, chunk_starts)
    raise ValueError(f"unknown format {fmt!r}, expected one of {', '.join(BUNSETSU_FORMATS)}")
