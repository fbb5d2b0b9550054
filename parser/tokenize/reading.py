"""Sentences of raw text and of pre-tokenized text, as the CoNLL-U Sentence objects that the
parser (and the tagger) take: the handoff point between tokenization and the rest of the
pipeline is read_raw.

- ``raw``: plain text, paragraphs separated by blank lines. The input is cut after each blank
  line that ends a paragraph, so that a paragraph typed into a pipe is tokenized as soon as its
  blank line arrives; line ends are read as ``\\n`` (a ``\\r\\n`` file's text comes back with
  ``\\n``).
- ``tokens``: one sentence a line, tokens separated by whitespace; a blank line starts a new
  paragraph. Tokens are kept as given; multiword tokens are still divided into words
  (``don't`` -> ``do`` ``n't``).
- ``lines``: one sentence a line, its tokens found by the tokenizer (text already split into
  sentences, as UDPipe's presegmented input): a line is never cut into sentences nor joined to
  the next; a blank line starts a new paragraph.

All read the text in Unicode normalization form C, which UD asks of CoNLL-U (a file in NFD
comes out composed), and all take control characters (NUL, BEL, ...) for whitespace: they
separate tokens and are kept, escaped, in SpacesAfter (parser/tokenize/segmenter.py).
"""
from __future__ import annotations

import codecs
import os
import re
import unicodedata
import warnings
from collections.abc import Iterable, Iterator
from typing import BinaryIO, TextIO

from polyparse.features.errors import InputError, InputWarning
from polyparse.parser.formats.conll import Sentence
from polyparse.parser.formats.text_lines import TEXT_FORMATS, display_name, text_lines
from polyparse.parser.tokenize.conllu_blocks import sentence_of
from polyparse.parser.tokenize.model import load_tokenizer
from polyparse.parser.tokenize.segmenter import (
    GAP,
    TextSegmenter,
    TextTokenizer,
    TokenizedSentence,
    split_gaps,
)

__all__ = ["TEXT_FORMATS", "TextFormatError", "read_raw", "tokenized_sentences"]

# A line of nothing but what separates tokens (whitespace, control characters) is blank: it
# ends a paragraph.
_only_gaps = re.compile(GAP).fullmatch


class TextFormatError(InputError, ValueError):
    """Input text that cannot be read; the message is one line, ``path:LINE: problem``."""


def tokenized_sentences(
    path: str | os.PathLike | None = None, *, fmt: str = "raw", encoding: str = "utf-8",
    stream: TextIO | BinaryIO | None = None, name: str | None = None,
    tokenizer: TextTokenizer | None = None,
) -> Iterator[tuple[TokenizedSentence, int]]:
    """(sentence, line number of its first token) for each sentence of the input."""
    if fmt not in TEXT_FORMATS:
        raise ValueError(f"unknown text format {fmt!r}, expected one of "
                         f"{', '.join(TEXT_FORMATS)}")
    display = display_name(path, stream, name)
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise TextFormatError(f"{display}:1: unknown text encoding {encoding!r}") from None
    model = tokenizer or load_tokenizer()
    segmenter = model.text_segmenter()
    lines = _composed(text_lines(path, stream, encoding, display, TextFormatError))
    if fmt == "tokens":
        sentences = _token_lines(lines, segmenter)
    elif fmt == "lines":
        sentences = _sentence_lines(lines, segmenter)
    else:
        sentences = _raw_paragraphs(lines, segmenter)
    known = model.known_characters
    return sentences if known is None else _characters_watched(sentences, known, display)


def _characters_watched(sentences: Iterator[tuple[TokenizedSentence, int]],
                        known: frozenset[str], display: str
                        ) -> Iterator[tuple[TokenizedSentence, int]]:
    """The sentences as they come; once they are all read, one warning line when most of the
    characters of their tokens never occurred in the tokenizer's training text (a model of
    one language given another's): it still cuts them, with little of its accuracy."""
    dropped = dict.fromkeys(map(ord, known))
    total = unseen = 0
    for sentence, line in sentences:
        for token in sentence.tokens:
            total += len(token)
            unseen += len(token.translate(dropped))
        yield sentence, line
    if unseen * 2 > total:
        warnings.warn(InputWarning(
            f"{display}: {unseen} of the text's {total} characters never occurred in the "
            "tokenizer's training text (a model of another language or script?): its sentences "
            "and tokens are cut with little of its accuracy"), stacklevel=2)


def _composed(lines: Iterable[str]) -> Iterator[str]:
    """The lines in Unicode normalization form C."""
    for line in lines:
        if not line.isascii() and not unicodedata.is_normalized("NFC", line):
            line = unicodedata.normalize("NFC", line)
        yield line


def _token_lines(lines: Iterator[str], segmenter: TextSegmenter
                 ) -> Iterator[tuple[TokenizedSentence, int]]:
    """A sentence of each line that has tokens, with the whitespace around them (the line's
    end is a line break after the last token)."""
    new_paragraph = True
    for lineno, line in enumerate(lines, 1):
        # chunk, gap, chunk, gap, ..., "" (the line ends with a gap: its line break).
        parts = split_gaps(line + "\n")
        before = ""
        if not parts[0]:
            before = parts[1]
            del parts[:2]
        if len(parts) == 1:
            new_paragraph = True
            continue
        yield segmenter.tokens_sentence(parts[0:-1:2], new_paragraph, parts[1::2],
                                        before), lineno
        new_paragraph = False


def _sentence_lines(lines: Iterator[str], segmenter: TextSegmenter
                    ) -> Iterator[tuple[TokenizedSentence, int]]:
    """A sentence of each line that has a token (text already split into sentences, as
    UDPipe's presegmented input): its tokens and words found by the segmenter, the line never
    cut into sentences nor joined to the next; a blank line starts a new paragraph."""
    new_paragraph = True
    for lineno, line in enumerate(lines, 1):
        sentence = segmenter.line_sentence(line + "\n", new_paragraph)
        if sentence is None:
            new_paragraph = True
            continue
        yield sentence, lineno
        new_paragraph = False


def _raw_paragraphs(lines: Iterator[str], segmenter: TextSegmenter
                    ) -> Iterator[tuple[TokenizedSentence, int]]:
    """Cut the text after each blank line that follows a paragraph and segment each piece."""
    piece: list[str] = []
    has_text = False
    first_line = 1
    for lineno, line in enumerate(lines, 1):
        piece.append(line)
        blank = not line or _only_gaps(line) is not None
        if blank and has_text:
            yield from _numbered(segmenter, piece, first_line)
            piece = []
            has_text = False
            first_line = lineno + 1
        elif not blank:
            has_text = True
    if piece:
        yield from _numbered(segmenter, piece, first_line)


def _numbered(segmenter: TextSegmenter, piece: list[str], first_line: int
              ) -> Iterator[tuple[TokenizedSentence, int]]:
    """The sentences of a piece of lines (each ended by a line break), with their lines."""
    text = "\n".join(piece) + "\n"
    line = first_line
    for sentence in segmenter.sentences(text, new_paragraph=True):
        line += sentence.before.count("\n")
        yield sentence, line
        line += "".join(sentence.spaces).count("\n")


def read_raw(
    path: str | os.PathLike | None = None, *, fmt: str = "raw", encoding: str = "utf-8",
    stream: TextIO | BinaryIO | None = None, name: str | None = None,
    tokenizer: TextTokenizer | None = None, first_id: int = 1,
) -> Iterator[Sentence]:
    """The sentences of raw text (fmt "raw") or tokenized text (fmt "tokens") as CoNLL-U
    Sentence objects with `# sent_id` (numbered from first_id), `# text`, `# newdoc` on the
    first and `# newpar` on each paragraph's first, range lines for multiword tokens,
    SpaceAfter=No / SpacesAfter in MISC and "_" in LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL,
    DEPS (HEAD -1 in the Sentence). ``path="-"`` or None reads standard input, ``stream`` an
    open stream; tokenizer defaults to the bundled English model."""
    numbered = tokenized_sentences(path, fmt=fmt, encoding=encoding, stream=stream, name=name,
                                   tokenizer=tokenizer)
    for number, (sentence, line) in enumerate(numbered, first_id):
        yield sentence_of(sentence, str(number), line, new_document=number == first_id)
