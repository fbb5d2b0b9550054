"""Japanese raw text, one sentence a line, cut into sentences of morphemes: the tokenize stage
of Japanese (the pipeline's reader of text, parser/pipeline/bunsetsu_stages.py).

Each line is segmented and tagged by MeCab (parser/tokenize/mecab.py; UniDic unless the
dictionary of another tag scheme is asked for) and becomes a ``BunsetsuSentence`` without
bunsetsu, as if MeCab's output had been read as CaboCha (its lines are the morpheme lines and
``EOS``), so that the chunker makes its bunsetsu and the parser its heads, and it is written
back as CaboCha or KNP. A blank line is an empty sentence
(a bare ``EOS``, as MeCab writes it), so the output keeps one sentence per input line. Messages
name the input line.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import BinaryIO, TextIO

from polyparse.parser.formats.bunsetsu_sentence import (
    BunsetsuFormatError,
    BunsetsuSentence,
    input_source,
)
from polyparse.parser.formats.cabocha import read_cabocha_block
from polyparse.parser.formats.text_lines import line_chunks
from polyparse.parser.tokenize.mecab import MeCabTagger

__all__ = ["read_raw_japanese"]


def read_raw_japanese(
    path: str | os.PathLike | TextIO | BinaryIO | None,
    encoding: str = "utf-8",
    name: str | None = None,
    tagger: MeCabTagger | None = None,
    first_line: int = 1,
    errors: str = "strict",
) -> Iterator[BunsetsuSentence]:
    """Yield a sentence of morphemes for each line of the input (a path, "-" or None for
    standard input, or an open stream), tagged by tagger (default: MeCab with UniDic);
    first_line numbers its first line; errors: what a byte that is not valid in the encoding
    does (parser/formats/text_lines.py)."""
    tagger = tagger or MeCabTagger()
    path, stream, display = input_source(path, name)
    lineno = first_line - 1
    for chunk in line_chunks(path, stream, encoding, display, BunsetsuFormatError,
                             first_line, errors):
        for text in chunk:
            lineno += 1
            if "\t" in text:
                raise BunsetsuFormatError(
                    f"{display}:{lineno}: a tab in raw text (CaboCha and KNP separate their "
                    "fields with tabs and spaces; replace it with a space)")
            lines = tagger.morpheme_lines(text)
            lines.append("EOS")
            yield read_cabocha_block(lines, lineno, display, tagger.tagset)
