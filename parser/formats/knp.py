"""Reading and writing KNP files: JUMAN morphemes grouped into bunsetsu with their dependencies.

The format is the output of the KNP parser (Kurohashi & Nagao 1994, "A Syntactic Analysis
Method of Long Japanese Sentences Based on the Detection of Conjunctive Structures",
Computational Linguistics 20(4)), used by the Kyoto University Text Corpus, KWDLC and the
Wikipedia Annotated Corpus. A sentence is a block of lines ending with ``EOS``:

- comment lines ``# S-ID:w201106-0000060560-1 ...`` (the sentence id is the word after
  ``S-ID:``);
- bunsetsu lines ``* HEAD TYPE <features>``, e.g. ``* 2D <...>`` or ``* -1D``: HEAD is the
  index (from 0) of the bunsetsu this one depends on, -1 for the root; TYPE is D (ordinary),
  P (parallel), A (apposition) or I (partial parallel); the morphemes up to the next bunsetsu
  line belong to it;
- basic-phrase lines ``+ HEAD TYPE <features>`` (tag units inside bunsetsu): read past and
  written back unchanged, so they keep the heads they came with;
- JUMAN morpheme lines ``surface reading base pos1 pos1-id pos2 pos2-id conj-type
  conj-type-id conj-form conj-form-id [semantics and <features>]``, separated by single spaces;
- homograph lines ``@ <morpheme line>`` (alternative analyses of the previous morpheme),
  kept and ignored.

Input without any bunsetsu line (JUMAN output, morphemes only) is valid: its sentences have no
bunsetsu and ``format_knp`` inserts the bunsetsu lines of a chunking.

KNP itself writes JUMAN's parts of speech; KNP that polyparse writes from CaboCha, MeCab's
output or raw text keeps theirs (UniDic's, IPAdic's). A sentence's dictionary (``tagset``) is
told by the names of its parts of speech (parser/formats/tag_schemes.py).

Lines are split with ``str.split(" ")`` and checked a sentence at a time; only a sentence that
fails those checks is read again line by line, which accepts the rarer spellings (a half-width
space written ``\\ `` by JUMAN, morphemes whose surface is ``*``, ``+``, ``#`` or ``@``) and
names the first bad line. Fields are kept as written (JUMAN's escapes are not undone). Every
problem is a ``BunsetsuFormatError`` whose message is one line, ``path:LINE: problem``.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from itertools import chain, compress, count
from operator import not_
from typing import BinaryIO, TextIO

from polyparse.parser.formats.bunsetsu_sentence import (
    DEP_TYPES,
    BlockLayout,
    BunsetsuFormatError,
    BunsetsuSentence,
    formatted_block,
    read_sentences,
)
from polyparse.parser.formats.tag_schemes import scheme_of_pos1

__all__ = ["format_knp", "read_knp"]

N_MORPHEME_FIELDS = 11
SURFACE, READING, BASE, POS1, POS1_ID, POS2, POS2_ID = range(7)
CONJ_TYPE, CONJ_TYPE_ID, CONJ_FORM, CONJ_FORM_ID = range(7, 11)

# The HEAD TYPE fields of all bunsetsu lines of a sentence, joined by spaces.
_HEAD_FIELDS = re.compile(r"(?:-?[0-9]+[DPAI] )*-?[0-9]+[DPAI]")
_BUNSETSU_LINE = re.compile(r"\* (-?[0-9]+)([DPAI])(?: |$)")
_HEAD_START = frozenset("-0123456789")
# A morpheme line whose surface, reading or base is JUMAN's "\ " (a half-width space) or
# starts with a space; plain lines are split on spaces before this is tried.
_TOKEN = r"((?:\\ |[^ ])+| [^ ]*)"
_ESCAPED_MORPHEME = re.compile(
    rf"{_TOKEN} {_TOKEN} {_TOKEN} ([^ ]+) ([0-9]+) ([^ ]+) ([0-9]+) ([^ ]+) ([0-9]+) ([^ ]+) "
    r"([0-9]+)(?: (.*))?"
)
_ID_FIELDS = (POS1_ID, POS2_ID, CONJ_TYPE_ID, CONJ_FORM_ID)


def read_knp(
    path: str | os.PathLike | TextIO | BinaryIO | None,
    validate: bool = True,
    encoding: str = "utf-8",
    name: str | None = None,
    first_line: int = 1,
    allow_empty: bool = False,
    errors: str = "strict",
) -> Iterator[BunsetsuSentence]:
    """Yield the sentences of a KNP file.

    ``path`` is a file path, ``"-"`` or None for standard input, or an open text or binary
    stream; ``name`` is the file name used in messages. With ``validate`` every sentence must
    be a head-final tree (see ``bunsetsu_sentence.malformed``); without it only the syntax is
    checked, so that training can skip malformed sentences. The input is read lazily.
    ``first_line`` numbers the input's first line in messages and sentences, for an input
    that is a later part of a file (its byte order mark, if any, is then kept as text).
    An input without sentences is an error unless allow_empty (a parse writes nothing).
    ``errors``: "strict" (a byte that is not valid in the encoding is an error naming its line)
    or "replace" (it is read as U+FFFD).
    """
    return read_sentences(path, name, encoding, validate, _read_block, first_line,
                          allow_empty, errors)


def _read_block(block: list[str], start_line: int, display: str) -> BunsetsuSentence:
    """The sentence of one block: the fast reader when the block is well formed, the careful
    one (which names the problem) otherwise."""
    try:
        sentence = _read_plain(block, start_line, display)
    except IndexError:
        sentence = None
    if sentence is None:
        sentence = _read_careful(block, start_line, display)
    return sentence


def _read_plain(block: list[str], start_line: int, display: str) -> BunsetsuSentence | None:
    """The sentence of a block in the common spelling, or None when anything is unusual.

    Lines are told apart by their first character; only the few bunsetsu, basic-phrase and
    comment lines are looked at one by one, the morpheme lines are split in one comprehension
    and turned into columns by ``zip``.
    """
    body = block[:-1]
    is_tag = [line[0] in "*+#@" for line in body]
    morpheme_lines = list(compress(count(), map(not_, is_tag)))
    if not morpheme_lines:
        return None
    sid = ""
    chunk_starts: list[int] = []
    chunk_lines: list[int] = []
    head_fields: list[str] = []
    head_start = _HEAD_START
    for position, index in enumerate(compress(count(), is_tag)):
        line = body[index]
        first = line[0]
        if first == "+":
            if line[2] not in head_start:
                return None
        elif first == "*":
            chunk_lines.append(index)
            chunk_starts.append(index - position)
            head_fields.append(line[2:].split(" ", 1)[0])
        elif first == "@" or chunk_lines or index > morpheme_lines[0] or \
                _morpheme_fields(line) is not None:
            return None
        elif not sid and line.startswith("# S-ID:"):
            sid = line[7:].split(" ", 1)[0]
    rows = [body[index].split(" ", N_MORPHEME_FIELDS) for index in morpheme_lines]
    columns = list(zip(*rows))
    if len(columns) < N_MORPHEME_FIELDS or "" in chain.from_iterable(columns[:BASE + 1]):
        return None
    ids = "".join(chain.from_iterable(columns[field] for field in _ID_FIELDS))
    if not (ids.isdigit() and ids.isascii()):
        return None
    heads: list[int] = []
    dep_types: list[str] = []
    if chunk_lines:
        if chunk_starts[0] != 0 or not _HEAD_FIELDS.fullmatch(" ".join(head_fields)):
            return None
        heads = [int(field[:-1]) for field in head_fields]
        dep_types = [field[-1] for field in head_fields]
    return BunsetsuSentence(
        sid, block, list(columns[SURFACE]), list(columns[READING]), list(columns[BASE]),
        list(columns[POS1]), list(columns[POS2]), list(columns[CONJ_TYPE]),
        list(columns[CONJ_FORM]), morpheme_lines, chunk_starts, chunk_lines, heads, dep_types,
        start_line, display, scheme_of_pos1(columns[POS1]),
    )


def _morpheme_fields(line: str) -> list[str] | None:
    """The fields of a morpheme line (11, or 12 with the rest of the line), else None."""
    fields = line.split(" ", N_MORPHEME_FIELDS)
    if (
        len(fields) >= N_MORPHEME_FIELDS
        and all(fields[:N_MORPHEME_FIELDS])
        and all(fields[field].isdigit() and fields[field].isascii() for field in _ID_FIELDS)
    ):
        return fields
    match = _ESCAPED_MORPHEME.fullmatch(line)
    if match is None:
        return None
    return [field for field in match.groups() if field is not None]


def _read_careful(block: list[str], start_line: int, display: str) -> BunsetsuSentence:
    """The sentence of a block read line by line; raises at the first bad line."""
    sid = ""
    columns: list[list[str]] = [[] for _ in range(N_MORPHEME_FIELDS)]
    found = BlockLayout(start_line, display)
    for index, line in enumerate(block[:-1]):
        where = f"{display}:{start_line + index}"
        if not line or line.isspace():
            continue
        first = line[0]
        if first == "+" and len(line) > 2 and line[2] in _HEAD_START:
            continue
        if first == "*":
            match = _BUNSETSU_LINE.match(line)
            if match is not None:
                found.add_bunsetsu(index, int(match.group(1)), match.group(2), "* HEAD TYPE")
                continue
        fields = _morpheme_fields(line)
        if fields is not None:
            for column, field in zip(columns, fields):
                column.append(field)
            found.morpheme_lines.append(index)
            continue
        if first == "#":
            if not sid and line.startswith("# S-ID:"):
                sid = line[7:].split(" ", 1)[0]
            continue
        if line.startswith("@ ") and _morpheme_fields(line[2:]) is not None:
            continue
        if first == "*":
            raise BunsetsuFormatError(f"{where}: {_bunsetsu_line_problem(line)}")
        if first == "+":
            raise BunsetsuFormatError(
                f"{where}: basic-phrase line without a head (expected '+ HEAD TYPE', e.g. '+ 2D')"
            )
        if line == "EOS":
            raise BunsetsuFormatError(f"{where}: EOS inside a sentence")
        raise BunsetsuFormatError(f"{where}: {_morpheme_line_problem(line)}")
    return found.sentence(
        sid, block, columns[SURFACE], columns[READING], columns[BASE], columns[POS1],
        columns[POS2], columns[CONJ_TYPE], columns[CONJ_FORM], scheme_of_pos1(columns[POS1]),
    )


def _bunsetsu_line_problem(line: str) -> str:
    parts = line.split(" ", 2)
    field = parts[1] if len(parts) > 1 else ""
    head = field[:-1] if field[-1:] in DEP_TYPES else field
    if not head:
        return f"bunsetsu line without a head: {line[:20]!r} (expected '* HEAD TYPE', e.g. '* 2D')"
    if not re.fullmatch(r"-?[0-9]+", head):
        return f"head {head!r} of the bunsetsu line is not an integer"
    return (f"bunsetsu line without a dependency type: {field!r} "
            "(expected D, P, A or I after the head, e.g. '* 2D')")


def _morpheme_line_problem(line: str) -> str:
    fields = line.split(" ")
    if len(fields) < N_MORPHEME_FIELDS:
        return (f"morpheme line has {len(fields)} fields, expected at least 11 (surface reading "
                "base pos1 pos1-id pos2 pos2-id conj-type conj-type-id conj-form conj-form-id)")
    return ("morpheme line: the ids of pos1, pos2, conj-type and conj-form "
            "(fields 5, 7, 9 and 11) are not all integers")


def format_knp(
    sentence: BunsetsuSentence,
    heads: Sequence[int],
    dep_types: Sequence[str] | None = None,
    chunk_starts: Sequence[int] | None = None,
) -> str:
    """The block of ``sentence`` with new bunsetsu heads, ``EOS`` and its newline included.

    Only the HEAD TYPE field of each ``*`` line changes; a type is ``dep_types[i]`` when given,
    else the sentence's own for an unchanged head and D for a changed one. Every other byte is
    written as read, ``+`` lines included (they keep their old heads). A sentence read without
    bunsetsu lines needs ``chunk_starts`` (the first morpheme of each bunsetsu): a ``* HEAD
    TYPE`` line and one basic-phrase line ``+ HEAD TYPE`` (the bunsetsu as one basic phrase, as
    parser/formats/bunsetsu_convert.py writes KNP; readers such as rhoknp need them) are
    inserted before each of those morphemes.
    """
    return formatted_block(sentence, heads, dep_types, chunk_starts, "* {0}{1}\n+ {0}{1}",
                           _with_head)


def _with_head(line: str, head_type: str, same_head: bool) -> str:
    """A KNP bunsetsu line `* HEADTYPE ...` with another HEADTYPE (its features are the
    bunsetsu's and are kept)."""
    rest = line[2:].split(" ", 1)
    return f"* {head_type} {rest[1]}" if len(rest) > 1 else f"* {head_type}"
