"""What a Japanese input is, told from its first lines: KNP, CaboCha (MeCab's output among it)
or raw text, and the dictionary whose parts of speech its first sentences carry.

The first lines are read from the input's own stream, and ``InputKind.stream`` gives them
again before the rest of it (features/input_files.py's SniffedInput), so that a pipe or a FIFO
is read once, from its first byte, by the reader that follows. The format is told by the first
line that only one format writes:

- KNP: a bunsetsu line ``* 2D ...`` (head and type, no id), a basic-phrase line ``+ 2D ...``,
  or a JUMAN morpheme line (at least 11 fields separated by spaces, the 5th, 7th, 9th and 11th
  of them numbers);
- CaboCha: a bunsetsu line ``* 0 2D ...`` (id, then head and type), or a morpheme line
  ``surface<TAB>features`` (CaboCha's and MeCab's; MeCab's output is CaboCha without bunsetsu
  lines, and the CaboCha reader reads both);
- raw text, where a command reads it: any other line.

Blank lines, ``EOS`` and comment lines (``#``) tell nothing. The dictionary, when asked for, is
that of most morphemes of the whole sentences read (``BunsetsuSentence.tagset``, as the
format's reader tells it). Reading stops once the format is told (and a sentence tells its
dictionary, when asked for), or when no more input is waiting (a pipe that feeds one sentence
and waits for its parse is not kept waiting), or after SNIFF_BYTES.
"""
from __future__ import annotations

import codecs
import io
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO

from polyparse.features.input_files import SniffedInput
from polyparse.parser.formats.bunsetsu_sentence import BunsetsuFormatError
from polyparse.parser.formats.text_lines import split_lines

__all__ = ["FORMAT_NAMES", "SNIFF_BYTES", "InputKind", "format_hint", "line_format",
           "sniff_input"]

# At most this many bytes are read before the reader starts.
SNIFF_BYTES = 1 << 18
# The first read (a sentence or two: the format is mostly told by the first line), then each
# read twice the one before.
FIRST_READ_BYTES = 1 << 12
FORMAT_NAMES = {"knp": "KNP", "cabocha": "CaboCha", "mecab": "MeCab's output",
                "raw": "raw text"}

_KNP_BUNSETSU = re.compile(r"[*+] -?[0-9]+[DPAI](?: .*)?")
_CABOCHA_BUNSETSU = re.compile(r"\* [0-9]+ -?[0-9]+[A-Z]+(?: .*)?")
# Fields 5, 7, 9 and 11 (from 1) of a JUMAN morpheme line: the ids of its tags.
_KNP_ID_FIELDS = (4, 6, 8, 10)


def line_format(line: str, raw: bool = False) -> str | None:
    """The format that one line of input shows (module notes), None when it tells nothing;
    raw: whether any other line is raw text (else it tells nothing either)."""
    if not line.strip() or line == "EOS":
        return None
    if "\t" in line:
        surface, _, features = line.partition("\t")
        if surface and ("," in features or "\t" in features):
            return "cabocha"
    if line[0] == "#":
        return None
    if _CABOCHA_BUNSETSU.fullmatch(line):
        return "cabocha"
    if _KNP_BUNSETSU.fullmatch(line):
        return "knp"
    fields = line.replace("\\ ", "_").split(" ")
    if len(fields) >= 11 and all(fields[i].isdigit() and fields[i].isascii()
                                 for i in _KNP_ID_FIELDS):
        return "knp"
    return "raw" if raw else None


@dataclass
class InputKind:
    """An input with what its first lines tell: stream, which reads it from its first byte;
    format ("knp", "cabocha", "raw"; None when no line told); tagset, the dictionary of most
    morphemes of its first sentences ("" when none told); and where the format was told
    (line number and text, for messages)."""

    stream: BinaryIO
    format: str | None
    tagset: str
    line_number: int = 0
    line: str = ""

    def hint(self, given: str) -> str:
        """What to add to an error reading the input as given: the format it looks like,
        when that is another ("" when not)."""
        looks = self.format
        if looks is None or looks == given or (looks == "cabocha" and given == "mecab"):
            return ""
        return (f" (the input looks like {FORMAT_NAMES[looks]}, line {self.line_number}: "
                f"{self.line[:40]!r}; give --input-format {looks}, or leave it out)")


def sniff_input(source: BinaryIO, encoding: str = "utf-8", raw: bool = False,
                more_ready: Callable[[], bool] = lambda: True, tagset: bool = False,
                limit: int = SNIFF_BYTES) -> InputKind:
    """Read the first lines of source (a binary stream) and tell its format and, with tagset,
    its dictionary (module notes; without, reading stops at the line that tells the format);
    raw: whether raw text is one of the formats. The result's stream reads source from the
    start (features.input_files.SniffedInput)."""
    if not tagset and hasattr(source, "peek"):
        found = _peeked_format(source, encoding, raw)
        if found is not None:
            return found
    name = getattr(source, "name", "<stream>")
    read = getattr(source, "read1", None) or source.read
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    head = bytearray()
    text = ""
    n_lines = 0
    found = InputKind(source, None, "")
    tagsets: dict[str, int] = {}
    block: list[str] = []
    blocks_read = reads = 0
    while True:
        chunk = read(FIRST_READ_BYTES << min(reads, 8))
        reads += 1
        head += chunk
        text += decoder.decode(chunk, final=not chunk)
        # Lines end as the readers end them (text_lines.split_lines: \r\n, \r or \n); a \r
        # at the end waits for the next read, which may begin with its \n.
        held = "\r" if chunk and text.endswith("\r") else ""
        *complete, text = split_lines(text[:-1] if held else text)
        text += held
        if not chunk and text:
            complete.append(text)
            text = ""
        told = False
        for line in complete:
            if not n_lines and line.startswith("\ufeff"):
                line = line[1:]
            n_lines += 1
            if found.format is None:
                shown = line_format(line, raw)
                if shown is not None:
                    found = InputKind(source, shown, "", n_lines, line)
            if tagset and found.format in ("knp", "cabocha"):
                block.append(line)
                if line == "EOS":
                    _count_tagsets(block, found.format, encoding, tagsets)
                    block = []
            blocks_read += line == "EOS"
            told = found.format == "raw" or (found.format is not None
                                              and (bool(tagsets) or not tagset))
            if told:
                break
        if not chunk or told or len(head) >= limit or (blocks_read and not more_ready()):
            break
    if tagsets:
        found.tagset = max(sorted(tagsets), key=tagsets.__getitem__)
    found.stream = SniffedInput(bytes(head), source, name).stream
    return found


def _peeked_format(source: BinaryIO, encoding: str, raw: bool) -> InputKind | None:
    """The format that the complete lines a buffered stream holds already tell, the stream
    left as it was (nothing read from it); None when they tell none."""
    text = codecs.decode(source.peek(FIRST_READ_BYTES), encoding, "replace")
    for number, line in enumerate(split_lines(text)[:-1], 1):
        shown = line_format(line.removeprefix("\ufeff") if number == 1 else line, raw)
        if shown is not None:
            return InputKind(source, shown, "", number, line)
    return None


def _count_tagsets(block: list[str], fmt: str, encoding: str,
                   tagsets: dict[str, int]) -> None:
    """Add the morphemes of the sentence of block (its lines, EOS last) to its dictionary's
    count; a block the reader refuses counts nothing (the reader says why later)."""
    from polyparse.parser.formats.cabocha import read_cabocha, read_mecab
    from polyparse.parser.formats.knp import read_knp

    read = {"knp": read_knp, "cabocha": read_cabocha, "mecab": read_mecab}[fmt]
    options = {} if fmt == "mecab" else {"validate": False}
    try:
        for sentence in read(io.StringIO("\n".join(block) + "\n"), encoding=encoding,
                             allow_empty=True, **options):
            if sentence.tagset and sentence.surface:
                tagsets[sentence.tagset] = tagsets.get(sentence.tagset, 0) + len(sentence.surface)
    except BunsetsuFormatError:
        return


@contextmanager
def format_hint(sniffed: InputKind | None, given: str) -> Iterator[None]:
    """Add sniffed.hint(given) to a BunsetsuFormatError raised inside."""
    hint = sniffed.hint(given) if sniffed is not None else ""
    try:
        yield
    except BunsetsuFormatError as error:
        if not hint:
            raise
        raise BunsetsuFormatError(f"{error}{hint}") from None
