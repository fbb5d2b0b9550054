"""One entry point for the Japanese bunsetsu formats: KNP and CaboCha, chosen by name.

Both formats give ``BunsetsuSentence`` objects and write them back with only the bunsetsu heads
changed; see ``parser.formats.knp`` and ``parser.formats.cabocha`` for the formats themselves.
"""
from __future__ import annotations

import io
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import BinaryIO, TextIO

from polyparse.features.input_files import open_input
from polyparse.parser.formats.bunsetsu_convert import cabocha_block_of, knp_block_of
from polyparse.parser.formats.bunsetsu_sentence import BunsetsuSentence, input_source
from polyparse.parser.formats.cabocha import format_cabocha, read_cabocha, read_mecab
from polyparse.parser.formats.knp import format_knp, read_knp

__all__ = ["BUNSETSU_FORMATS", "INPUT_FORMATS", "format_bunsetsu", "read_bunsetsu"]

# The formats that hold bunsetsu (read and written).
BUNSETSU_FORMATS = ("knp", "cabocha")
# What a parse reads besides: MeCab's output (morphemes, no bunsetsu) and raw text (one
# sentence a line, segmented by MeCab: parser/tokenize/japanese_text.py).
INPUT_FORMATS = BUNSETSU_FORMATS + ("mecab", "raw")
# The format a parse of each input format writes unless told.
OUTPUT_FORMAT = {"knp": "knp", "cabocha": "cabocha", "mecab": "cabocha", "raw": "cabocha"}


def read_bunsetsu(
    path: str | os.PathLike | TextIO | BinaryIO | None,
    fmt: str | None = "knp",
    validate: bool = True,
    encoding: str = "utf-8",
    name: str | None = None,
    allow_empty: bool = False,
    first_line: int = 1,
    errors: str = "strict",
) -> Iterator[BunsetsuSentence]:
    """The sentences of a KNP (``fmt="knp"``) or CaboCha (``fmt="cabocha"``) file (an empty
    one is an error unless allow_empty), or of MeCab's output (``"mecab"``), which has no
    bunsetsu (raw text is no format: MeCab segments it, parser/tokenize/japanese_text.py);
    fmt None: KNP or CaboCha, as the
    input's first lines tell (parser/formats/bunsetsu_sniff.py; KNP when none does), the input
    read once. first_line numbers the input's first line (a later part of a file); errors:
    "strict" or "replace", what a byte that is not valid in the encoding does
    (parser/formats/text_lines.py)."""
    if fmt is None or (fmt in ("knp", "cabocha", "mecab") and first_line == 1
                       and not hasattr(path, "read")):
        return _sniffed_sentences(path, fmt, validate, encoding, name, allow_empty, errors)
    if fmt == "mecab":
        return read_mecab(path, encoding=encoding, name=name, allow_empty=allow_empty,
                          first_line=first_line, errors=errors)
    reader = read_knp if fmt == "knp" else read_cabocha if fmt == "cabocha" else None
    if reader is None:
        raise ValueError(f"unknown format {fmt!r}, expected one of {', '.join(INPUT_FORMATS)}")
    return reader(path, validate=validate, encoding=encoding, name=name, allow_empty=allow_empty,
                  first_line=first_line, errors=errors)


def _sniffed_sentences(
    path: str | os.PathLike | TextIO | BinaryIO | None, fmt: str | None, validate: bool,
    encoding: str, name: str | None, allow_empty: bool, errors: str,
) -> Iterator[BunsetsuSentence]:
    """read_bunsetsu of the input opened once, in fmt or, for None, the format its first lines
    tell (KNP or CaboCha); an error reading it in a format given has the format it looks
    like added (bunsetsu_sniff.format_hint)."""
    from polyparse.parser.formats.bunsetsu_sniff import format_hint, sniff_input

    path, stream, display = input_source(path, name)
    with _binary_input(path, stream, encoding) as (binary, binary_encoding):
        sniffed = sniff_input(binary, binary_encoding)
        given = fmt or sniffed.format or "knp"
        with format_hint(sniffed, given):
            yield from read_bunsetsu(sniffed.stream, given, validate, binary_encoding, display,
                                     allow_empty, 1, errors)


@contextmanager
def _binary_input(path: str | os.PathLike | None, stream: TextIO | BinaryIO | None,
                  encoding: str) -> Iterator[tuple[BinaryIO, str]]:
    """The input as a binary stream, opened once, and the encoding of its bytes: a path's file,
    standard input for "-" or None, a binary stream itself, a text stream's buffer, or the
    text of a text stream without one (as UTF-8)."""
    if stream is None:
        with open_input("-" if path is None else path) as binary:
            yield binary, encoding
        return
    if isinstance(stream, io.TextIOBase) or hasattr(stream, "encoding"):
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            yield io.BytesIO(stream.read().encode("utf-8", "surrogatepass")), "utf-8"
            return
        stream = buffer
    yield stream, encoding


def format_bunsetsu(
    sentence: BunsetsuSentence,
    heads: Sequence[int],
    dep_types: Sequence[str] | None = None,
    chunk_starts: Sequence[int] | None = None,
    fmt: str = "knp",
) -> str:
    """The sentence's block with new heads in fmt: its own lines with the heads changed when
    fmt is the format it was read in (see format_knp / format_cabocha; MeCab and raw text are
    read as CaboCha), else rebuilt in fmt (parser/formats/bunsetsu_convert.py)."""
    if fmt not in BUNSETSU_FORMATS:
        raise ValueError(f"unknown format {fmt!r}, expected one of {', '.join(BUNSETSU_FORMATS)}")
    read_as = "knp" if sentence.lines and _is_knp(sentence) else "cabocha"
    if fmt == read_as:
        return (format_knp if fmt == "knp" else format_cabocha)(sentence, heads, dep_types,
                                                                chunk_starts)
    starts = chunk_starts if chunk_starts is not None else sentence.chunk_starts
    if dep_types is None and chunk_starts is None:
        dep_types = [t if h == old else "D" for t, h, old in
                     zip(sentence.dep_types, heads, sentence.heads)]
    return (knp_block_of if fmt == "knp" else cabocha_block_of)(sentence, starts, heads,
                                                                dep_types)


def _is_knp(sentence: BunsetsuSentence) -> bool:
    """Whether the sentence was read from KNP: its morpheme lines have no tab (CaboCha's and
    MeCab's do)."""
    return not sentence.morpheme_lines or "\t" not in sentence.lines[sentence.morpheme_lines[0]]
