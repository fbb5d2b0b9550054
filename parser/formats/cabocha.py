"""Reading and writing CaboCha's lattice format (bunsetsu dependencies over MeCab morphemes).

The format is the output of CaboCha (Kudo & Matsumoto 2002, "Japanese Dependency Analysis
using Cascaded Chunking", CoNLL 2002) with ``-f1``, also read and written by J.DepP. A sentence
is a block of lines ending with ``EOS``:

- bunsetsu lines ``* ID HEADD HEAD/FUNC SCORE``, e.g. ``* 0 2D 0/1 0.000000``; ID counts the
  bunsetsu from 0, HEADD is the index of the head bunsetsu (-1 for the root) followed by the
  dependency label, letters (CaboCha writes D; P, A and I of KNP, and the F, B, Z, DX of other
  tools and corpora are read and kept); the last two fields may be missing (``* 0 2D``) and are
  kept as they are;
- morpheme lines ``surface<TAB>features[<TAB>named entity]``, the features being MeCab's
  comma-separated fields (a field holding a comma or a double quote is quoted as in CSV);
- comment lines starting with ``#`` and holding no tab (not CaboCha's own, but written by
  ``knp_to_cabocha`` to keep the sentence id ``# S-ID:...``), and CaboCha's metadata lines
  ``#! DOC<TAB>0``; all are kept, in order (a morpheme whose surface is ``#`` or ``*`` is a
  morpheme).

The layout of the features is told by their number, line by line:

- 6 fields, JUMAN layout (KNP data converted as J.DepP does): pos1, pos2, conj_type,
  conj_form, base, reading;
- 9 fields, IPAdic: pos1, pos2, pos3, pos4, conj_type, conj_form, base, reading,
  pronunciation (pos3 and pos4 are not kept);
- 7 fields, IPAdic for an unknown word (no reading or pronunciation): the reading is ``*``;
- 17 fields or more, UniDic (MeCab-UniDic's short units, and the long-unit columns that corpora
  such as UD Japanese GSD's CaboCha files add after them): pos1, pos2, cType, cForm, lemma and
  lForm are kept as pos1, pos2, conj_type, conj_form, base and reading (an empty field as ``*``).

Any other number is an error. Input without bunsetsu lines (MeCab output) is valid, and
``format_cabocha`` then inserts ``* ID HEADD`` lines. Every problem is a ``BunsetsuFormatError``
whose message is one line, ``path:LINE: problem``.
"""
from __future__ import annotations

import csv
import os
import re
from collections.abc import Iterator, Sequence
from typing import BinaryIO, TextIO

from parser.formats.bunsetsu_sentence import (
    BlockLayout,
    BunsetsuFormatError,
    BunsetsuSentence,
    formatted_block,
    read_sentences,
)

__all__ = ["format_cabocha", "knp_to_cabocha", "read_cabocha"]

JUMAN_FIELDS = 6
IPADIC_FIELDS = 9
IPADIC_UNKNOWN_FIELDS = 7
# Positions of (pos1, pos2, conj_type, conj_form, base, reading) in each layout.
_LAYOUTS = {
    JUMAN_FIELDS: (0, 1, 2, 3, 4, 5),
    IPADIC_FIELDS: (0, 1, 4, 5, 6, 7),
    IPADIC_UNKNOWN_FIELDS: (0, 1, 4, 5, 6, None),
}
# UniDic (MeCab-UniDic's short-unit fields: pos1..pos4, cType, cForm, lForm, lemma, orth, ...;
# 17 or more, as UniDic versions and corpora add more): pos1, pos2, cType, cForm, lemma, lForm.
UNIDIC_MIN_FIELDS = 17
_UNIDIC_LAYOUT = (0, 1, 4, 5, 7, 6)
# Any dependency label after the head, letters: D (CaboCha), P, A, I (KNP), and the F, B, Z, DX
# ... that other tools and corpora write.
_HEAD_FIELD = re.compile(r"(-?[0-9]+)([A-Z]+)")


def read_cabocha(
    path: str | os.PathLike | TextIO | BinaryIO | None,
    validate: bool = True,
    encoding: str = "utf-8",
    name: str | None = None,
    allow_empty: bool = False,
) -> Iterator[BunsetsuSentence]:
    """Yield the sentences of a CaboCha file; the arguments are those of ``read_knp``."""
    return read_sentences(path, name, encoding, validate, _read_block,
                          allow_empty=allow_empty)


def _read_block(block: list[str], start_line: int, display: str) -> BunsetsuSentence:
    sid = ""
    surface: list[str] = []
    columns: list[list[str]] = [[] for _ in range(6)]
    found = BlockLayout(start_line, display)
    morpheme_lines = found.morpheme_lines
    for index, line in enumerate(block[:-1]):
        if line.startswith("* ") or line == "*":
            head, dep_type = _bunsetsu_line(line, len(found.chunk_lines), display,
                                            start_line + index)
            found.add_bunsetsu(index, head, dep_type, "* ID HEADD")
            continue
        if line.startswith("#! "):
            continue
        parts = line.split("\t", 2)
        if len(parts) < 2:
            if line.startswith("#"):
                if not sid and line.startswith("# S-ID:"):
                    sid = line[7:].split(" ", 1)[0]
                continue
            if not line or line.isspace():
                continue
            raise BunsetsuFormatError(
                f"{display}:{start_line + index}: morpheme line without a tab "
                "(expected 'surface<TAB>features')"
            )
        if not parts[0]:
            raise BunsetsuFormatError(f"{display}:{start_line + index}: empty surface")
        fields = parts[1].split(",")
        layout = _layout(len(fields))
        if layout is None or '"' in parts[1]:
            fields = next(csv.reader([parts[1]]))
            layout = _layout(len(fields))
            if layout is None or not parts[1]:
                raise BunsetsuFormatError(
                    f"{display}:{start_line + index}: {len(fields) if parts[1] else 'no'} "
                    "features, expected 6 (JUMAN: pos1,pos2,conj_type,conj_form,base,reading), "
                    "9 (IPAdic; 7 for an unknown word) or 17 or more (UniDic)"
                )
        surface.append(parts[0])
        for column, field in zip(columns, layout):
            column.append("*" if field is None or not fields[field] else fields[field])
        morpheme_lines.append(index)
    pos1, pos2, conj_type, conj_form, base, reading = columns
    return found.sentence(sid, block, surface, reading, base, pos1, pos2, conj_type, conj_form)


def _layout(n_fields: int) -> tuple[int | None, ...] | None:
    """The positions of (pos1, pos2, conj_type, conj_form, base, reading) among n_fields
    features, or None for a number no dictionary writes."""
    if n_fields >= UNIDIC_MIN_FIELDS:
        return _UNIDIC_LAYOUT
    return _LAYOUTS.get(n_fields)


def _bunsetsu_line(line: str, expected_id: int, display: str, lineno: int) -> tuple[int, str]:
    """(head, type) of a ``* ID HEADD ...`` line."""
    parts = line.split(" ")
    if len(parts) < 3 or not parts[1] or not parts[2]:
        raise BunsetsuFormatError(
            f"{display}:{lineno}: broken bunsetsu line {line[:30]!r} "
            "(expected '* ID HEADD [HEAD/FUNC SCORE]', e.g. '* 0 2D 0/1 0.000000')"
        )
    if not (parts[1].isdigit() and parts[1].isascii()):
        raise BunsetsuFormatError(f"{display}:{lineno}: bunsetsu id {parts[1]!r} is not an integer")
    if int(parts[1]) != expected_id:
        raise BunsetsuFormatError(
            f"{display}:{lineno}: bunsetsu id {parts[1]} out of order, expected {expected_id}"
        )
    match = _HEAD_FIELD.fullmatch(parts[2])
    if match is None:
        raise BunsetsuFormatError(
            f"{display}:{lineno}: bunsetsu head {parts[2]!r} is not an integer followed by "
            "a label letter (e.g. '2D', '-1D')"
        )
    return int(match.group(1)), match.group(2)


def format_cabocha(
    sentence: BunsetsuSentence,
    heads: Sequence[int],
    dep_types: Sequence[str] | None = None,
    chunk_starts: Sequence[int] | None = None,
) -> str:
    """The block of ``sentence`` with new bunsetsu heads, ``EOS`` and its newline included.

    The contract is ``format_knp``'s: only the HEADD field of each ``*`` line changes (a type
    is ``dep_types[i]`` when given, else the old one for an unchanged head and D for a changed
    one); a sentence read without bunsetsu lines gets ``* ID HEADD`` lines inserted before the
    morphemes ``chunk_starts``.
    """
    return formatted_block(sentence, heads, dep_types, chunk_starts, "* {index} {}{}",
                           _with_head)


def _with_head(line: str, head_type: str) -> str:
    """A CaboCha bunsetsu line `* ID HEADD ...` with another HEADD."""
    parts = line.split(" ")
    parts[2] = head_type
    return " ".join(parts)


def knp_to_cabocha(sentence: BunsetsuSentence) -> str:
    """CaboCha text of a sentence read from KNP: JUMAN feature layout, ``* ID HEADD`` lines with
    the KNP heads and types, ``# S-ID:`` when the sentence has an id."""
    lines = [f"# S-ID:{sentence.sid}"] if sentence.sid else []
    starts = set(sentence.chunk_starts)
    number = 0
    for index, surface in enumerate(sentence.surface):
        if index in starts:
            head = sentence.heads[number]
            lines.append(f"* {number} {head}{sentence.dep_types[number]}")
            number += 1
        features = (sentence.pos1[index], sentence.pos2[index], sentence.conj_type[index],
                    sentence.conj_form[index], sentence.base[index], sentence.reading[index])
        lines.append(f"{surface}\t{','.join(map(_csv_field, features))}")
    lines.append("EOS\n")
    return "\n".join(lines)


def _csv_field(field: str) -> str:
    if "," in field or '"' in field:
        return '"' + field.replace('"', '""') + '"'
    return field
