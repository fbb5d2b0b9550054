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

The layout of the features is told by their number and by the dictionary (tag set) of the
sentence, which is that of its first morpheme whose line tells (``BunsetsuSentence.tagset``):

- 17 fields or more, UniDic (MeCab-UniDic's short units, and the long-unit columns that corpora
  such as UD Japanese GSD's CaboCha files add after them): pos1, pos2-pos3 (pos2 alone when
  pos3 is ``*``), cType, cForm, lemma and lForm are kept as pos1, pos2, conj_type, conj_form,
  base and reading (an empty field as ``*``); in a UniDic sentence, 6 fields are
  MeCab-UniDic's unknown word (pos1..pos4, cType, cForm);
- 9 fields, IPAdic: pos1, pos2, pos3, pos4, conj_type, conj_form, base, reading,
  pronunciation (pos3 and pos4 are not kept); 7 fields in an IPAdic sentence, or with no base
  form and no semantic field (``*``), are IPAdic's unknown word (the reading is ``*``); a
  sentence in this layout with a part of speech only UniDic has (補助記号, 形状詞, 代名詞,
  空白: UniDic's analyses written in IPAdic's fields, as ginzame does) is UniDic's, its pos2
  and pos3 read as one;
- 6 fields, JUMAN layout (KNP data converted as J.DepP does): pos1, pos2, conj_type,
  conj_form, base, reading; 7 fields whose last one is given are MeCab's JUMAN dictionary
  (jumandic), the same six and its semantic information.

Any other number is an error. MeCab's own output with UniDic (unidic-lite's and UniDic's dicrc,
what ``mecab -d unidic-lite`` and ``fugashi.Tagger().parse`` print) has tab-separated fields
instead, ``surface<TAB>pron<TAB>lForm<TAB>lemma<TAB>pos1-pos2-pos3-pos4<TAB>cType<TAB>cForm``
and unidic-lite's aType: it is read as UniDic (the parts of speech that are ``*`` are left out
of its pos field), and its lines are written back as they came.
Input without bunsetsu lines (MeCab output) is valid:
``format_cabocha`` then inserts CaboCha's ``* ID HEADD HEAD/FUNC SCORE`` lines; a block without
morphemes (a bare ``EOS``, as MeCab writes for a blank line) is an empty sentence. Every problem
is a ``BunsetsuFormatError`` whose message is one line, ``path:LINE: problem``.
"""
from __future__ import annotations

import csv
import os
import re
from collections.abc import Iterator, Sequence
from typing import BinaryIO, TextIO

from polyparse.parser.formats.bunsetsu_convert import NO_SCORE, cabocha_chunk_line, csv_field
from polyparse.parser.formats.bunsetsu_sentence import (
    BlockLayout,
    BunsetsuFormatError,
    BunsetsuSentence,
    formatted_block,
    read_sentences,
)

__all__ = ["format_cabocha", "knp_to_cabocha", "read_cabocha", "read_cabocha_block",
           "read_mecab"]

JUMAN_FIELDS = 6
IPADIC_FIELDS = 9
IPADIC_UNKNOWN_FIELDS = 7
# UniDic (MeCab-UniDic's short-unit fields: pos1..pos4, cType, cForm, lForm, lemma, orth, ...;
# 17 or more, as UniDic versions and corpora add more).
UNIDIC_MIN_FIELDS = 17
UNIDIC_UNKNOWN_FIELDS = 6
JUMANDIC_FIELDS = 7
# MeCab-UniDic's own output format: surface, pron, lForm, lemma, pos, cType, cForm, and aType
# in unidic-lite's.
UNIDIC_TAB_FIELDS = (7, 8)
# Positions of (pos1, pos2, conj_type, conj_form, base, reading) by tag set and number of
# fields; None: the field is missing (written as *); a pair: two fields joined by "-" (UniDic's
# pos2 and pos3, as 普通名詞-副詞可能: the distinctions JUMAN makes in its pos2, such as its
# 時相名詞, UniDic makes in pos3), the second left out when it is *.
_JUMAN = (0, 1, 2, 3, 4, 5)
_LAYOUTS = {
    ("juman", JUMAN_FIELDS): _JUMAN,
    ("juman", JUMANDIC_FIELDS): _JUMAN,
    ("ipadic", IPADIC_FIELDS): (0, 1, 4, 5, 6, 7),
    ("ipadic", IPADIC_UNKNOWN_FIELDS): (0, 1, 4, 5, 6, None),
    ("unidic", UNIDIC_MIN_FIELDS): (0, (1, 2), 4, 5, 7, 6),
    ("unidic", UNIDIC_UNKNOWN_FIELDS): (0, (1, 2), 4, 5, None, None),
    # UniDic's names in IPAdic's nine fields (ginzame and other tools that write UniDic's
    # analyses in MeCab-IPAdic's layout), and their unknown words.
    ("unidic", IPADIC_FIELDS): (0, (1, 2), 4, 5, 6, 7),
    ("unidic", IPADIC_UNKNOWN_FIELDS): (0, (1, 2), 4, 5, 6, None),
}
# Parts of speech (pos1) that only UniDic has: a sentence in IPAdic's layout with one of them
# is UniDic's.
UNIDIC_ONLY_POS = frozenset(("補助記号", "形状詞", "代名詞", "空白"))
# The tag set a number of fields means when nothing else tells.
_OWN_TAGSET = {JUMAN_FIELDS: "juman", IPADIC_UNKNOWN_FIELDS: "ipadic", IPADIC_FIELDS: "ipadic",
               UNIDIC_MIN_FIELDS: "unidic"}
# Any dependency label after the head, letters: D (CaboCha), P, A, I (KNP), and the F, B, Z, DX
# ... that other tools and corpora write.
_HEAD_FIELD = re.compile(r"(-?[0-9]+)([A-Z]+)")


def read_cabocha(
    path: str | os.PathLike | TextIO | BinaryIO | None,
    validate: bool = True,
    encoding: str = "utf-8",
    name: str | None = None,
    allow_empty: bool = False,
    first_line: int = 1,
    errors: str = "strict",
) -> Iterator[BunsetsuSentence]:
    """Yield the sentences of a CaboCha file; the arguments are those of ``read_knp``."""
    return read_sentences(path, name, encoding, validate, read_cabocha_block, first_line,
                          allow_empty=allow_empty, errors=errors)


def read_mecab(
    path: str | os.PathLike | TextIO | BinaryIO | None,
    encoding: str = "utf-8",
    name: str | None = None,
    allow_empty: bool = False,
    first_line: int = 1,
    errors: str = "strict",
) -> Iterator[BunsetsuSentence]:
    """Yield the sentences of MeCab's output (morpheme lines and EOS, no bunsetsu lines)."""
    return read_sentences(path, name, encoding, False, _mecab_block, first_line,
                          allow_empty=allow_empty, errors=errors)


def _mecab_block(block: list[str], start_line: int, display: str) -> BunsetsuSentence:
    sentence = read_cabocha_block(block, start_line, display)
    if sentence.chunk_lines:
        raise BunsetsuFormatError(
            f"{display}:{start_line + sentence.chunk_lines[0]}: a bunsetsu line in MeCab "
            "output; this is CaboCha's (--format cabocha)")
    return sentence


def read_cabocha_block(block: list[str], start_line: int, display: str,
                       default_tagset: str = "") -> BunsetsuSentence:
    """The sentence of one block of lines (its last one EOS) starting at start_line of display;
    default_tagset: the dictionary of a sentence whose morphemes do not tell (MeCab's output
    for raw text is UniDic's, unknown words and all)."""
    sid = ""
    surface: list[str] = []
    features: list[list[str]] = []
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
        if len(parts) == 3 and "," not in parts[1]:
            fields = _unidic_tab_fields(line)
            if fields is None:
                raise BunsetsuFormatError(
                    f"{display}:{start_line + index}: {line.count(chr(9)) + 1} tab-separated "
                    "fields: neither 'surface<TAB>comma-separated features' (MeCab's and "
                    "CaboCha's) nor MeCab-UniDic's 7 or 8 (surface, pron, lForm, lemma, pos, "
                    "cType, cForm[, aType]); MeCab's -Ochasen output is not read"
                )
            surface.append(parts[0])
            features.append(fields)
            morpheme_lines.append(index)
            continue
        quote = parts[1].find('"')
        # A quoted field (UniDic's aConType, "動詞%F2@0,名詞%F1") after the first 17 is not
        # among the fields read: the line is split as it is; any other quote goes to csv.
        fields = parts[1].split(",") if quote < 0 else \
            parts[1].split(",", UNIDIC_MIN_FIELDS) \
            if parts[1].count(",", 0, quote) >= UNIDIC_MIN_FIELDS else [parts[1]]
        if (quote >= 0 and len(fields) == 1) or not _known_count(len(fields)):
            fields = next(csv.reader([parts[1]])) if parts[1] else []
            if not _known_count(len(fields)):
                raise BunsetsuFormatError(
                    f"{display}:{start_line + index}: {len(fields) or 'no'} features, "
                    "expected 6 (JUMAN: pos1,pos2,conj_type,conj_form,base,reading; "
                    "UniDic for an unknown word), 7 (JUMAN's MeCab dictionary; IPAdic for an "
                    "unknown word), 9 (IPAdic) or 17 or more (UniDic)"
                )
        surface.append(parts[0])
        features.append(fields)
        morpheme_lines.append(index)
    tagset = _block_tagset(features) or default_tagset
    columns: list[list[str]] = [[] for _ in range(6)]
    layouts: dict[int, tuple[int | tuple[int, int] | None, ...]] = {}
    for fields in features:
        layout = layouts.get(len(fields))
        if layout is None:
            layout = layouts[len(fields)] = _layout(tagset, len(fields))
        for column, field in zip(columns, layout):
            if type(field) is int:
                column.append(fields[field] or "*")
            elif field is None:
                column.append("*")
            else:
                first, second = fields[field[0]], fields[field[1]]
                column.append(f"{first}-{second}" if second and second != "*" else first or "*")
    pos1, pos2, conj_type, conj_form, base, reading = columns
    return found.sentence(sid, block, surface, reading, base, pos1, pos2, conj_type, conj_form,
                          tagset or (_OWN_TAGSET[min(len(features[0]), UNIDIC_MIN_FIELDS)]
                                     if features else ""))


def _unidic_tab_fields(line: str) -> list[str] | None:
    """The UniDic features of a line of MeCab-UniDic's own output format (unidic-lite's and
    UniDic's dicrc: ``%m\\t%f[9]\\t%f[6]\\t%f[7]\\t%F-[0,1,2,3]\\t%f[4]\\t%f[5]``, and
    ``\\t%f[23]`` in unidic-lite; what ``mecab -d unidic-lite`` and ``fugashi.Tagger().parse``
    print), placed where MeCab-UniDic's comma-separated features have them (pos1..pos4, cType,
    cForm, lForm, lemma, orth, pron; the others ``*``), or None for any other line. The parts
    of speech come joined by ``-``, those that are ``*`` left out."""
    fields = line.split("\t")
    if len(fields) not in UNIDIC_TAB_FIELDS or not fields[4] or "," in fields[4] or \
            "," in fields[1]:
        return None
    surface, pron, l_form, lemma, pos, c_type, c_form = fields[:7]
    parts = pos.split("-", 3)
    parts += ["*"] * (4 - len(parts))
    return [*parts, c_type or "*", c_form or "*", l_form, lemma, surface, pron] + \
        ["*"] * (UNIDIC_MIN_FIELDS - 10)


def _known_count(n_fields: int) -> bool:
    return n_fields >= UNIDIC_MIN_FIELDS or n_fields in (6, 7, 9)


def _line_tagset(fields: list[str]) -> str:
    """The tag set of one morpheme's features, or "" when the line cannot tell: 17 fields or
    more are UniDic, 9 IPAdic; 7 are JUMAN's MeCab dictionary when the last one (its semantic
    information) is given, 6 the JUMAN layout when the base form is given; an unknown word's
    7 (IPAdic) or 6 (UniDic) fields leave both empty (*)."""
    n = len(fields)
    if n >= UNIDIC_MIN_FIELDS:
        return "unidic"
    if n == IPADIC_FIELDS:
        return "ipadic"
    if n == JUMANDIC_FIELDS and fields[6] != "*":
        return "juman"
    if n == JUMAN_FIELDS and fields[4] != "*":
        return "juman"
    return ""


def _block_tagset(features: list[list[str]]) -> str:
    """The tag set of a sentence: that of its first morpheme that tells (see _line_tagset),
    UniDic's when an IPAdic-layout sentence has a part of speech only UniDic has."""
    for fields in features:
        tagset = _line_tagset(fields)
        if tagset:
            if tagset == "ipadic" and any(f[0] in UNIDIC_ONLY_POS for f in features):
                return "unidic"
            return tagset
    return ""


def _layout(tagset: str, n_fields: int) -> tuple[int | tuple[int, int] | None, ...]:
    """The positions of (pos1, pos2, conj_type, conj_form, base, reading) among the n_fields
    features of a morpheme of a sentence in tagset ("" when no morpheme tells); a count that
    tagset never writes is read as the tag set it alone means."""
    n = min(n_fields, UNIDIC_MIN_FIELDS)
    return _LAYOUTS.get((tagset, n)) or _LAYOUTS[(_OWN_TAGSET[n], n)]


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
    one), and the SCORE of a changed head, which was the old head's, is written as
    ``0.000000`` (polyparse's decoders keep no score); a sentence read without bunsetsu lines
    gets CaboCha's ``* ID HEADD HEAD/FUNC SCORE`` lines inserted before the morphemes
    ``chunk_starts`` (parser/formats/bunsetsu_convert.py).
    """
    starts = chunk_starts if chunk_starts is not None else sentence.chunk_starts

    def chunk_line(number: int, head: int, dep_type: str) -> str:
        return cabocha_chunk_line(sentence, starts, number, head, dep_type)

    return formatted_block(sentence, heads, dep_types, chunk_starts, chunk_line, _with_head)


def _with_head(line: str, head_type: str, same_head: bool) -> str:
    """A CaboCha bunsetsu line `* ID HEADD HEAD/FUNC SCORE` with another HEADD; the score is
    that of the old head (CaboCha's margin, or a gold file's): with a new head it is
    polyparse's, which keeps none (NO_SCORE)."""
    parts = line.split(" ")
    parts[2] = head_type
    if not same_head and len(parts) > 4:
        parts[4] = NO_SCORE
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
        lines.append(f"{surface}\t{','.join(map(csv_field, features))}")
    lines.append("EOS\n")
    return "\n".join(lines)
