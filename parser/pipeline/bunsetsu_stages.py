"""The stages, readers and writers of Japanese pipelines: text -> morphemes (MeCab, the tokenize
stage of Japanese), morphemes -> bunsetsu and their heads (the bunsetsu parser, which chunks
the sentences that have no bunsetsu), and the KNP / CaboCha / MeCab readers and writers."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO, TextIO

from polyparse.features.errors import InputError
from polyparse.parser.formats.bunsetsu import format_bunsetsu, read_bunsetsu
from polyparse.parser.formats.bunsetsu_sentence import BunsetsuSentence, without_bunsetsu
from polyparse.parser.pipeline.stage import BUNSETSU, MORPHEMES, TEXT, TREES, Reader, Stage, Writer

if TYPE_CHECKING:
    from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser


class BunsetsuReader(Reader):
    """Sentences of KNP or CaboCha (with their bunsetsu, where they have them) or of MeCab's
    output (morphemes only)."""

    name = "bunsetsu reader"
    provides = frozenset({MORPHEMES, BUNSETSU})

    def __init__(self, fmt: str = "knp", encoding: str = "utf-8",
                 errors: str = "strict") -> None:
        self.fmt = fmt
        self.encoding = encoding
        self.errors = errors

    def read(self, stream: BinaryIO | TextIO, name: str, first_line: int = 1
             ) -> Iterator[BunsetsuSentence]:
        return read_bunsetsu(stream, self.fmt, validate=False, encoding=self.encoding,
                             name=name, allow_empty=True, first_line=first_line,
                             errors=self.errors)


class JapaneseTextReader(Reader):
    """Raw Japanese text, one sentence a line, cut into morphemes by MeCab with the
    dictionary of a tag scheme (parser/tokenize/japanese_text.py)."""

    name = "MeCab"
    provides = frozenset({TEXT, MORPHEMES})

    def __init__(self, tagset: str, encoding: str = "utf-8", errors: str = "strict") -> None:
        self.tagset = tagset
        self.encoding = encoding
        self.errors = errors

    def read(self, stream: BinaryIO | TextIO, name: str, first_line: int = 1
             ) -> Iterator[BunsetsuSentence]:
        from polyparse.parser.tokenize.japanese_text import read_raw_japanese
        from polyparse.parser.tokenize.mecab import MeCabTagger

        return read_raw_japanese(stream, encoding=self.encoding, name=name,
                                 first_line=first_line, errors=self.errors,
                                 tagger=MeCabTagger(self.tagset))


@dataclass
class ParsedBunsetsu:
    """A sentence with the bunsetsu it is written with (new_chunks: the chunker's starts,
    None when it keeps its own bunsetsu lines) and their heads."""

    sentence: BunsetsuSentence
    heads: list[int]
    new_chunks: list[int] | None


class ParseBunsetsu(Stage):
    """Gives each sentence the heads of its bunsetsu (the bunsetsu parser), chunking first
    the sentences without bunsetsu lines (all of them with rechunk)."""

    name = "bunsetsu parser"
    requires = frozenset({MORPHEMES})
    provides = frozenset({BUNSETSU, TREES})

    def __init__(self, model: BunsetsuParser, model_name: str, rechunk: bool = False) -> None:
        self.model = model
        self.model_name = model_name
        self.rechunk = rechunk
        self.source = "the input"

    def begin(self, source: str) -> None:
        self.source = source

    def __call__(self, batch: list[BunsetsuSentence]) -> list[ParsedBunsetsu]:
        if not self.model.can_chunk and any(not s.chunk_lines for s in batch):
            raise InputError(f"ja parse: {self.source}: sentences without bunsetsu lines need "
                             f"a chunker, which {self.model_name} lacks")
        parsed = []
        for sentence, (starts, heads) in zip(batch, self.model.parse(
                batch, chunk=True if self.rechunk else None)):
            if self.rechunk and sentence.chunk_lines:
                sentence = without_bunsetsu(sentence)
            parsed.append(ParsedBunsetsu(sentence, heads,
                                         starts if not sentence.chunk_lines else None))
        return parsed


class BunsetsuWriter(Writer):
    """Each parsed sentence's block in KNP or CaboCha (parser/formats/bunsetsu.py's
    format_bunsetsu)."""

    requires = frozenset({BUNSETSU, TREES})

    def __init__(self, fmt: str, replace: bool = False) -> None:
        self.fmt = fmt
        # Input read with bytes replaced by U+FFFD: in an encoding without it (EUC-JP,
        # Shift_JIS), written as "?".
        self.replace = replace

    def write(self, batch: list[ParsedBunsetsu], out: TextIO) -> None:
        if self.replace and hasattr(out, "reconfigure"):
            out.reconfigure(errors="replace")
            self.replace = False
        out.write("".join(format_bunsetsu(p.sentence, p.heads, None, p.new_chunks, self.fmt)
                          for p in batch))
