"""The sentence of the Japanese bunsetsu formats (KNP and CaboCha) and its dependency checks.

A ``BunsetsuSentence`` holds one block of a KNP or CaboCha file: its raw lines (so that writing
it back changes only the heads of bunsetsu lines), the morphemes as one list per field, and the
bunsetsu (chunks) with their heads. Bunsetsu are numbered from 0 in their order in the sentence,
as the heads of both formats are; -1 is the root.

Japanese bunsetsu dependencies are head-final (Kurohashi & Nagao 1994; Kudo & Matsumoto 2002):
every bunsetsu but the last depends on a bunsetsu to its right, and the last one is the root.
``malformed`` names the first violation of that rule (or a bunsetsu without morphemes) as one
line, ``source:LINE: problem``, LINE being the line of the offending bunsetsu; ``validate``
raises it as a ``BunsetsuFormatError``. Training skips a malformed sentence with its message as
a warning; parsing and evaluation refuse it.
"""
from __future__ import annotations

import codecs
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from operator import lt
from typing import BinaryIO, TextIO

from polyparse.features.errors import InputError
from polyparse.parser.formats.text_lines import display_name, line_chunks

__all__ = ["DEP_TYPES", "BlockLayout", "BunsetsuFormatError", "BunsetsuSentence", "checked_tree",
           "eos_blocks", "input_source", "malformed", "read_sentences", "validate",
           "with_chunk_lines"]

# Dependency types of KNP: D (ordinary), P (parallel), A (apposition), I (partial parallel).
DEP_TYPES = "DPAI"


class BunsetsuFormatError(InputError, ValueError):
    """Malformed KNP or CaboCha input; the message is one line, ``path:LINE: problem``."""


@dataclass(slots=True)
class BunsetsuSentence:
    """One sentence block; morpheme ``i`` is ``lines[morpheme_lines[i]]``, bunsetsu ``j`` starts
    at morpheme ``chunk_starts[j]`` and its ``*`` line is ``lines[chunk_lines[j]]``."""

    sid: str
    lines: list[str]
    surface: list[str]
    reading: list[str]
    base: list[str]
    pos1: list[str]
    pos2: list[str]
    conj_type: list[str]
    conj_form: list[str]
    morpheme_lines: list[int]
    chunk_starts: list[int]
    chunk_lines: list[int]
    heads: list[int]
    dep_types: list[str]
    start_line: int
    source: str
    # The dictionary whose parts of speech the morphemes carry: "juman", "ipadic", "unidic"
    # ("" when a sentence has no morpheme that tells).
    tagset: str = ""

    def __len__(self) -> int:
        """Number of morphemes."""
        return len(self.surface)

    def line_number(self, index: int) -> int:
        """1-based line number in the file of ``lines[index]``."""
        return self.start_line + index


@dataclass(slots=True)
class BlockLayout:
    """What a line-by-line reader finds in the block starting at ``start_line`` of ``source``:
    its morpheme lines, and its bunsetsu lines with their heads and types."""

    start_line: int
    source: str
    morpheme_lines: list[int] = field(default_factory=list)
    chunk_starts: list[int] = field(default_factory=list)
    chunk_lines: list[int] = field(default_factory=list)
    heads: list[int] = field(default_factory=list)
    dep_types: list[str] = field(default_factory=list)

    def add_bunsetsu(self, index: int, head: int, dep_type: str, spelling: str) -> None:
        """Line ``index`` is a bunsetsu line (``spelling`` is the format's, for messages);
        its bunsetsu starts at the next morpheme."""
        if self.morpheme_lines and not self.chunk_lines:
            raise BunsetsuFormatError(
                f"{self.source}:{self.start_line + self.morpheme_lines[0]}: morpheme line "
                f"before the first bunsetsu line ('{spelling}')"
            )
        self.chunk_lines.append(index)
        self.chunk_starts.append(len(self.morpheme_lines))
        self.heads.append(head)
        self.dep_types.append(dep_type)

    def sentence(
        self, sid: str, lines: list[str], surface: list[str], reading: list[str],
        base: list[str], pos1: list[str], pos2: list[str], conj_type: list[str],
        conj_form: list[str], tagset: str = "",
    ) -> BunsetsuSentence:
        """The sentence of the block, given its morpheme columns; a block without morphemes
        is an empty sentence (a blank line given to MeCab or CaboCha gives a bare ``EOS``),
        unless it has bunsetsu lines."""
        if not self.morpheme_lines and self.chunk_lines:
            raise BunsetsuFormatError(f"{self.source}:{self.start_line}: sentence has "
                                      "bunsetsu lines but no morphemes")
        return BunsetsuSentence(
            sid, lines, surface, reading, base, pos1, pos2, conj_type, conj_form,
            self.morpheme_lines, self.chunk_starts, self.chunk_lines, self.heads,
            self.dep_types, self.start_line, self.source, tagset,
        )


def without_bunsetsu(sentence: BunsetsuSentence) -> BunsetsuSentence:
    """The sentence as its morphemes alone: its bunsetsu lines, and KNP's basic-phrase (`+`)
    lines, dropped, so that a chunker's bunsetsu can take their place (`ja parse --rechunk`)."""
    morphemes = set(sentence.morpheme_lines)
    dropped = set(sentence.chunk_lines)
    dropped.update(i for i, line in enumerate(sentence.lines)
                   if i not in morphemes and (line == "+" or line.startswith("+ ")))
    kept = [i for i in range(len(sentence.lines)) if i not in dropped]
    position = {old: new for new, old in enumerate(kept)}
    return replace(sentence, lines=[sentence.lines[i] for i in kept],
                   morpheme_lines=[position[i] for i in sentence.morpheme_lines],
                   chunk_starts=[], chunk_lines=[], heads=[], dep_types=[])


def malformed(sentence: BunsetsuSentence) -> str | None:
    """``source:LINE: problem`` for the first bunsetsu that breaks the head-final tree, or None.

    Checked in the order of the bunsetsu: a head outside the sentence, a bunsetsu that is its
    own head, a head to the left, a root (-1) that is not the last bunsetsu, and a bunsetsu with
    no morphemes. A sentence without bunsetsu lines (morphemes only) has nothing to check.
    """
    heads = sentence.heads
    n = len(heads)
    if n == 0:
        return None
    starts = sentence.chunk_starts
    # Fast acceptance: each head right of its bunsetsu and inside, the last one the root, and
    # every bunsetsu at least one morpheme long.
    if (
        heads[-1] == -1
        and all(map(lt, range(n - 1), heads))
        and (n == 1 or max(heads) < n)
        and all(map(lt, starts, starts[1:]))
        and starts[-1] < len(sentence.surface)
    ):
        return None
    for index, head in enumerate(heads):
        problem = _head_problem(index, head, heads)
        if problem is None:
            end = starts[index + 1] if index + 1 < n else len(sentence.surface)
            if starts[index] >= end:
                problem = f"bunsetsu {index} has no morphemes"
        if problem is not None:
            line = sentence.start_line + sentence.chunk_lines[index]
            return f"{sentence.source}:{line}: {problem}"
    return None


def _head_problem(index: int, head: int, heads: list[int]) -> str | None:
    n = len(heads)
    if head >= n or head < -1:
        return f"head {head} of bunsetsu {index} is outside the sentence ({n} bunsetsu)"
    if head == index:
        return f"bunsetsu {index} is its own head"
    if 0 <= head < index:
        return (f"head {head} of bunsetsu {index} is to its left "
                "(heads are to the right: Japanese is head-final)")
    if head == -1 and index != n - 1:
        roots = [str(other) for other, other_head in enumerate(heads) if other_head == -1]
        if len(roots) > 1:
            return (f"several roots: bunsetsu {', '.join(roots)} have head -1 "
                    "(only the last bunsetsu is the root)")
        return f"bunsetsu {index} has head -1, but only the last bunsetsu ({n - 1}) is the root"
    return None


def validate(sentence: BunsetsuSentence) -> None:
    """Raise a BunsetsuFormatError with ``malformed``'s message when there is one."""
    problem = malformed(sentence)
    if problem is not None:
        raise BunsetsuFormatError(problem)


def read_blocks(
    blocks: Iterator[tuple[list[str], int]],
    read_block: Callable[[list[str], int, str], BunsetsuSentence],
    display: str,
    check: bool,
) -> Iterator[BunsetsuSentence]:
    """The sentence ``read_block(lines, start_line, display)`` makes of every block of
    ``eos_blocks``; with ``check``, a sentence with heads must pass ``validate``."""
    for block, start_line in blocks:
        sentence = read_block(block, start_line, display)
        if check and sentence.heads:
            validate(sentence)
        yield sentence


def read_sentences(
    path: str | os.PathLike | TextIO | BinaryIO | None,
    name: str | None,
    encoding: str,
    check: bool,
    read_block: Callable[[list[str], int, str], BunsetsuSentence],
    first_line: int = 1,
    allow_empty: bool = False,
    errors: str = "strict",
) -> Iterator[BunsetsuSentence]:
    """The sentences of a KNP or CaboCha input (the arguments of ``read_knp``): each
    ``EOS`` block of it made a sentence by ``read_block``, as ``read_blocks`` does."""
    path, stream, display = input_source(path, name)
    blocks = eos_blocks(path, stream, encoding, display, first_line, allow_empty, errors)
    return read_blocks(blocks, read_block, display, check)


def input_source(
    path: str | os.PathLike | TextIO | BinaryIO | None, name: str | None
) -> tuple[str | os.PathLike | None, TextIO | BinaryIO | None, str]:
    """(path, stream, display name) of a reader's first argument: a path, "-" or None for
    standard input, or an open text or binary stream."""
    if path is not None and hasattr(path, "read"):
        return None, path, display_name(None, path, name)
    return path, None, display_name(path, None, name)


def eos_blocks(
    path: str | os.PathLike | None, stream: TextIO | BinaryIO | None, encoding: str,
    display: str, first_line: int = 1, allow_empty: bool = False, errors: str = "strict",
) -> Iterator[tuple[list[str], int]]:
    """Yield (lines, line number of the first one) of each block ending with an ``EOS`` line.

    Blank lines before a block are dropped (blank lines inside one are kept). A file with no
    block (unless allow_empty: a parse of an empty input writes nothing), or whose last block
    has no ``EOS``, is an error. ``first_line`` is the number of
    the input's first line (above 1 when it is a later part of a file); errors: what a byte
    that is not valid in the encoding does (parser/formats/text_lines.py).
    """
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise BunsetsuFormatError(f"{display}:1: unknown text encoding {encoding!r}") from None
    pending: list[str] = []
    pending_start = first_line
    lines_before = first_line - 1
    n_blocks = 0
    for chunk in line_chunks(path, stream, encoding, display, BunsetsuFormatError,
                             first_line, errors):
        position = 0
        find = chunk.index
        while True:
            try:
                end = find("EOS", position)
            except ValueError:
                break
            if pending:
                block = pending + chunk[position : end + 1]
                start = pending_start
                pending = []
            else:
                block = chunk[position : end + 1]
                start = lines_before + position + 1
            if not block[0] or block[0].isspace():
                skip = _blank_prefix(block)
                block = block[skip:]
                start += skip
            yield block, start
            n_blocks += 1
            position = end + 1
        if position < len(chunk):
            if not pending:
                pending_start = lines_before + position + 1
            pending.extend(chunk[position:])
        lines_before += len(chunk)
    skip = _blank_prefix(pending)
    if skip < len(pending):
        last = lines_before - _blank_suffix(pending)
        raise BunsetsuFormatError(
            f"{display}:{last}: end of file without EOS "
            f"(the sentence starting at line {pending_start + skip} is not closed)"
        )
    if n_blocks == 0 and not allow_empty:
        raise BunsetsuFormatError(f"{display}:{first_line}: empty file, no sentences")


def _blank_prefix(lines: list[str]) -> int:
    count = 0
    while count < len(lines) and (not lines[count] or lines[count].isspace()):
        count += 1
    return count


def _blank_suffix(lines: list[str]) -> int:
    count = 0
    while count < len(lines) and (not lines[-1 - count] or lines[-1 - count].isspace()):
        count += 1
    return count


def checked_tree(
    sentence: BunsetsuSentence,
    heads: Sequence[int],
    dep_types: Sequence[str] | None,
    chunk_starts: Sequence[int] | None,
) -> tuple[list[int], list[str] | None]:
    """Check the arguments of a format function; heads and types as lists."""
    heads = list(heads)
    if sentence.chunk_lines:
        if chunk_starts is not None and list(chunk_starts) != sentence.chunk_starts:
            raise ValueError(f"sentence at {sentence.source}:{sentence.start_line} has its own "
                             "bunsetsu; chunk_starts must be None or equal to them")
        n = len(sentence.chunk_lines)
    else:
        if chunk_starts is None:
            raise ValueError(f"sentence at {sentence.source}:{sentence.start_line} has no "
                             "bunsetsu lines; give chunk_starts")
        starts = list(chunk_starts)
        n = len(starts)
        if (n == 0 and len(sentence.surface)) or (n and (
            starts[0] != 0 or starts[-1] >= len(sentence.surface)
            or any(a >= b for a, b in pairwise(starts))
        )):
            raise ValueError(f"chunk_starts {starts} are not increasing from 0 within the "
                             f"{len(sentence.surface)} morphemes")
    if len(heads) != n:
        raise ValueError(f"sentence at {sentence.source}:{sentence.start_line} has {n} "
                         f"bunsetsu, got {len(heads)} heads")
    if dep_types is not None:
        dep_types = list(dep_types)
        if len(dep_types) != n:
            raise ValueError(f"sentence at {sentence.source}:{sentence.start_line} has {n} "
                             f"bunsetsu, got {len(dep_types)} dependency types")
    return heads, dep_types


def with_chunk_lines(
    sentence: BunsetsuSentence,
    heads: list[int],
    dep_types: list[str] | None,
    chunk_starts: Sequence[int],
    template: str | Callable[[int, int, str], str],
) -> list[str]:
    """The lines of the sentence with a bunsetsu line before each bunsetsu's first morpheme;
    ``template`` gets the bunsetsu index, the head and the type (a format string, or a
    function of the three)."""
    lines = sentence.lines
    out: list[str] = []
    position = 0
    for number, start in enumerate(chunk_starts):
        index = sentence.morpheme_lines[start]
        out.extend(lines[position:index])
        dep_type = "D" if dep_types is None else dep_types[number]
        out.append(template.format(heads[number], dep_type, index=number)
                   if isinstance(template, str) else template(number, heads[number], dep_type))
        position = index
    out.extend(lines[position:])
    return out


def formatted_block(
    sentence: BunsetsuSentence,
    heads: Sequence[int],
    dep_types: Sequence[str] | None,
    chunk_starts: Sequence[int] | None,
    chunk_template: str | Callable[[int, int, str], str],
    with_head: Callable[[str, str, bool], str],
) -> str:
    """The block of a sentence with new bunsetsu heads, EOS and its newline included (the
    contract of format_knp and format_cabocha): with_head(line, "HEADTYPE", same_head)
    rewrites one bunsetsu line of the format (same_head: only its type changed); a type is
    dep_types[i] when given, else the old one for an unchanged head and D for a changed one;
    a sentence without bunsetsu lines gets one chunk_template line (see with_chunk_lines)
    before each of the morphemes chunk_starts. Blank lines inside the block, which the
    readers pass over, are not written."""
    heads, dep_types = checked_tree(sentence, heads, dep_types, chunk_starts)
    if not sentence.chunk_lines:
        return _joined(with_chunk_lines(sentence, heads, dep_types, chunk_starts,
                                        chunk_template))
    old_heads = sentence.heads
    old_types = sentence.dep_types
    if dep_types is None and heads == old_heads:
        return _joined(sentence.lines)
    lines = sentence.lines.copy()
    for number, index in enumerate(sentence.chunk_lines):
        head = heads[number]
        same_head = head == old_heads[number]
        dep_type = (old_types[number] if same_head else "D") if dep_types is None \
            else dep_types[number]
        if same_head and dep_type == old_types[number]:
            continue
        lines[index] = with_head(lines[index], f"{head}{dep_type}", same_head)
    return _joined(lines)


def _joined(lines: list[str]) -> str:
    """The lines, each with its newline, blank ones (empty or white space) left out."""
    text = "\n".join(lines) + "\n"
    if "\n\n" in text or text[0] == "\n" or any(line.isspace() for line in lines):
        text = "".join(f"{line}\n" for line in lines if line and not line.isspace())
    return text
