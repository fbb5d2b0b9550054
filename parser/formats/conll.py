"""Reading and writing CoNLL-U and CoNLL-X dependency files.

A sentence keeps every raw line of its block, so that writing it back changes nothing but
HEAD and DEPREL of its words: comments, multiword-token range lines (``3-4``) and empty nodes
(``8.1``) come out byte for byte as they came in.

Formats:

- CoNLL-U (https://universaldependencies.org/format.html): ID FORM LEMMA UPOS XPOS FEATS HEAD
  DEPREL DEPS MISC; word ids are integers, range ids ``a-b`` and empty-node ids ``a.b`` are
  passed through.
- CoNLL-X (Buchholz & Marsi 2006): ID FORM LEMMA CPOSTAG POSTAG FEATS HEAD DEPREL PHEAD
  PDEPREL; ids are integers only, CPOSTAG is read as ``upos`` and POSTAG as ``xpos``.

Column positions and the id syntax are those of the ``conllu`` package; the lines themselves
are split with ``str.split("\\t")``, which is several times faster than a full token parser.
A multiword range must stand before its first word, cover words that follow it and not overlap
another; an empty node ``a.b`` follows word ``a`` (or its ``a.(b-1)``), as UD's validator asks.
Lines are read in Unicode normalization form C, which UD requires (a file in NFD, say, comes
out composed).
Every problem is reported as a ``ConllFormatError`` whose message is one line,
``path:LINE: problem``.
"""
from __future__ import annotations

import codecs
import os
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO, TextIO

from conllu.parser import DEFAULT_FIELDS, ID_DOT_ID, ID_RANGE

from polyparse.features.errors import InputError
from polyparse.parser.formats.text_lines import display_name, text_lines

__all__ = ["FORMATS", "ConllFormatError", "Sentence", "find_cycle", "read_conll", "token_lines",
           "write_conll"]

FORMATS = ("conllu", "conllx")
N_COLUMNS = len(DEFAULT_FIELDS)
ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC = range(N_COLUMNS)
assert DEFAULT_FIELDS[HEAD] == "head" and DEFAULT_FIELDS[DEPREL] == "deprel"


class ConllFormatError(InputError, ValueError):
    """Malformed CoNLL input; the message is one line, ``path:LINE: problem``."""


@dataclass(slots=True)
class Sentence:
    """One sentence block; word ``i`` (1-based id) is ``lines[word_lines[i - 1]]``."""

    lines: list[str]
    word_lines: list[int]
    form: list[str]
    lemma: list[str]
    upos: list[str]
    xpos: list[str]
    head: list[int]
    deprel: list[str]
    start_line: int
    feats: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.word_lines)

    def line_number(self, word: int) -> int:
        """1-based line number in the file of word ``word`` (1-based id)."""
        return self.start_line + self.word_lines[word - 1]

    @property
    def end_line(self) -> int:
        """1-based line number of the block's last line."""
        return self.start_line + len(self.lines) - 1


def read_conll(
    path: str | os.PathLike | None,
    fmt: str = "conllu",
    encoding: str = "utf-8",
    require_tree: bool = False,
    single_root: bool = True,
    stream: TextIO | BinaryIO | None = None,
    name: str | None = None,
    require_deprel: bool = True,
    require_final_blank: bool = False,
    allow_empty: bool = False,
    first_line: int = 1,
) -> Iterator[Sentence]:
    """Yield the sentences of a CoNLL-U or CoNLL-X file, validating them on the way.

    ``path="-"`` reads standard input; ``stream`` reads an open text or binary stream (a text
    stream that has a binary ``buffer``, like ``sys.stdin``, is read through that buffer so
    that ``encoding`` applies). ``name`` is the file name used in messages.

    With ``require_tree`` (training data, gold files) every word needs a HEAD, the heads must
    form a tree under the artificial root 0, and with ``single_root`` exactly one word is
    attached to 0; ``require_deprel`` (the default) also asks for a DEPREL on every word.
    ``require_final_blank`` refuses a last sentence without its empty line (CoNLL-U ends every
    sentence with one, and conll18_ud_eval.py refuses such a file). A file without sentences
    is an error unless ``allow_empty`` (a parse of an empty input writes nothing).
    ``first_line`` is the line number of the input's first line in messages and sentences
    (above 1 for a later part of a file, parser/scale_out).
    The format and the encoding are checked at the call; the input is read lazily.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}, expected one of {', '.join(FORMATS)}")
    display = display_name(path, stream, name)
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise ConllFormatError(f"{display}:1: unknown text encoding {encoding!r}") from None
    checker = _TreeChecker(display, require_tree, single_root, require_deprel)
    return _read_sentences(path, stream, encoding, display, fmt == "conllu", checker,
                           require_final_blank, allow_empty, first_line)


def _read_sentences(
    path: str | os.PathLike | None,
    stream: TextIO | BinaryIO | None,
    encoding: str,
    display: str,
    allow_special_ids: bool,
    checker: _TreeChecker,
    require_final_blank: bool = False,
    allow_empty: bool = False,
    first_line: int = 1,
) -> Iterator[Sentence]:
    """Cut the input into blank-line separated blocks and parse each one."""
    n_sentences = 0
    block: list[str] = []
    start_line = 0
    lineno = first_line - 1
    for line in text_lines(path, stream, encoding, display, ConllFormatError, first_line):
        lineno += 1
        if not line.isascii() and not unicodedata.is_normalized("NFC", line):
            line = unicodedata.normalize("NFC", line)
        if not line or line.isspace():
            if block:
                yield _build_sentence(block, start_line, display, allow_special_ids, checker)
                n_sentences += 1
                block = []
            continue
        if not block:
            start_line = lineno
        block.append(line)
    if block:
        yield _build_sentence(block, start_line, display, allow_special_ids, checker)
        n_sentences += 1
        if require_final_blank:
            raise ConllFormatError(f"{display}:{lineno}: the file does not end with an empty "
                                   "line (its last sentence has none after it)")
    if n_sentences == 0 and not allow_empty:
        raise ConllFormatError(f"{display}:{first_line}: empty file, no sentences")


def write_conll(
    sentence: Sentence, heads: Sequence[int], deprels: Sequence[str], out: TextIO,
    keep_deps: bool = False, fmt: str = "conllu",
) -> None:
    """Write ``sentence`` with new HEAD and DEPREL columns, then one blank line.

    The columns that describe the old tree beside HEAD and DEPREL (CoNLL-U: DEPS; CoNLL-X:
    PHEAD and PDEPREL) are written as ``_`` unless keep_deps; so are CoNLL-U's empty nodes
    (``8.1``) left out then, since they are nodes of that enhanced graph only, and a graph
    without its DEPS leaves them attached to nothing. Every other byte of the block
    (comments, range lines, the other columns of word lines) is written as it was read. A head
    of -1 is written as ``_``.
    """
    n = len(sentence.word_lines)
    if len(heads) != n or len(deprels) != n:
        raise ValueError(
            f"sentence at line {sentence.start_line} has {n} words, "
            f"got {len(heads)} heads and {len(deprels)} labels"
        )
    stale = () if keep_deps else (DEPS,) if fmt == "conllu" else (DEPS, MISC)
    lines = list(sentence.lines)
    for index, head, deprel in zip(sentence.word_lines, heads, deprels):
        columns = lines[index].split("\t")
        columns[HEAD] = "_" if head < 0 else str(head)
        columns[DEPREL] = deprel
        for column in stale:
            columns[column] = "_"
        lines[index] = "\t".join(columns)
    if fmt == "conllu" and not keep_deps and len(lines) > n:
        lines = [line for line in lines if not _is_empty_node(line)]
    lines.append("\n")
    out.write("\n".join(lines))


def token_lines(lines: Iterable[str]) -> Iterator[tuple[list[str], list[str]]]:
    """The tokens of a CoNLL-U block's lines, in order: the columns of each token's line (a
    range line for a multiword token, else its word's line) and the forms of its words.
    Comments and empty nodes are passed over."""
    token: list[str] | None = None
    forms: list[str] = []
    last_word = 0
    for line in lines:
        if line.startswith("#"):
            continue
        columns = line.split("\t")
        word_id = columns[ID]
        if "." in word_id:
            continue
        if "-" not in word_id and int(word_id) <= last_word:
            forms.append(columns[FORM])
            continue
        if token is not None:
            yield token, forms
        token = columns
        if "-" in word_id:
            last_word = int(word_id.split("-")[1])
            forms = []
        else:
            forms = [columns[FORM]]
    if token is not None:
        yield token, forms


def _is_empty_node(line: str) -> bool:
    """Whether a line of a block is an empty node (ID ``a.b``)."""
    return line[0] != "#" and "." in line.split("\t", 1)[0]


def _build_sentence(
    block: list[str], start_line: int, display: str, allow_special_ids: bool, checker: _TreeChecker
) -> Sentence:
    """Parse the word lines of one block (CoNLL-U / CoNLL-X column conventions)."""
    word_lines: list[int] = []
    form: list[str] = []
    lemma: list[str] = []
    upos: list[str] = []
    xpos: list[str] = []
    head: list[int] = []
    deprel: list[str] = []
    feats: list[str] = []
    ids = _SpecialIds(display)
    for index, line in enumerate(block):
        if line[0] == "#":
            continue
        columns = line.split("\t")
        if len(columns) != N_COLUMNS:
            raise ConllFormatError(
                f"{display}:{start_line + index}: "
                f"expected {N_COLUMNS} tab-separated columns, found {len(columns)}"
            )
        word_id = columns[ID]
        if not (word_id.isdigit() and word_id.isascii()):
            _check_special_id(word_id, allow_special_ids, display, start_line + index)
            ids.check(word_id, len(word_lines), start_line + index)
            continue
        if int(word_id) != len(word_lines) + 1:
            raise ConllFormatError(
                f"{display}:{start_line + index}: "
                f"word id {word_id} out of order, expected {len(word_lines) + 1}"
            )
        word_lines.append(index)
        form.append(columns[FORM])
        lemma.append(columns[LEMMA])
        upos.append(columns[UPOS])
        xpos.append(columns[XPOS])
        feats.append(columns[FEATS])
        head_text = columns[HEAD]
        if head_text.isdigit() and head_text.isascii():
            head.append(int(head_text))
        elif head_text == "_":
            head.append(-1)
        else:
            raise _bad_head(head_text, block, display, start_line + index)
        deprel.append(columns[DEPREL])
    if not word_lines:
        raise ConllFormatError(f"{display}:{start_line}: sentence has no words")
    ids.check_end(len(word_lines))
    sentence = Sentence(block, word_lines, form, lemma, upos, xpos, head, deprel, start_line,
                        feats)
    checker.check(sentence)
    return sentence


def _check_special_id(word_id: str, allow_special_ids: bool, display: str, lineno: int) -> None:
    if allow_special_ids and (ID_RANGE.fullmatch(word_id) or ID_DOT_ID.fullmatch(word_id)):
        return
    raise ConllFormatError(f"{display}:{lineno}: ID {word_id!r} is not an integer")


class _SpecialIds:
    """Checks the range lines (``3-4``) and empty nodes (``8.1``) of one block as UD's
    validator does: a range stands right before its first word, ends at or after it, covers
    only words of the sentence and overlaps no other range; empty node ``a.b`` follows word
    ``a`` (``0.b``: before the first word) and ``a.(b-1)``, and no range line stands between
    it and word ``a``."""

    def __init__(self, display: str) -> None:
        self.display = display
        self.range_first = self.range_end = 0
        self.range_line = 0
        self.range_id = ""
        self.empty_word = -1
        self.empty_count = 0

    def fail(self, lineno: int, problem: str) -> None:
        raise ConllFormatError(f"{self.display}:{lineno}: {problem}")

    def check(self, word_id: str, words_before: int, lineno: int) -> None:
        """A special id seen after words_before words."""
        if "-" in word_id:
            first, last = (int(part) for part in word_id.split("-"))
            if first != words_before + 1:
                self.fail(lineno, f"multiword range {word_id} does not stand before its first "
                                  f"word: the next word is {words_before + 1}")
            if last < first:
                self.fail(lineno, f"multiword range {word_id} ends before it starts")
            if first <= self.range_end:
                self.fail(lineno, f"multiword range {word_id} overlaps {self.range_id}")
            self.range_first, self.range_end = first, last
            self.range_line, self.range_id = lineno, word_id
            return
        word, _, number = word_id.partition(".")
        if self.empty_word != words_before:
            self.empty_word, self.empty_count = words_before, 0
        expected = f"{words_before}.{self.empty_count + 1}"
        if int(word) != words_before or int(number) != self.empty_count + 1:
            self.fail(lineno, f"empty node {word_id} is out of place: after word "
                              f"{words_before} the next empty node is {expected}")
        if words_before < self.range_first:
            self.fail(lineno, f"empty node {word_id} stands between multiword range "
                              f"{self.range_id} and its first word")
        self.empty_count += 1

    def check_end(self, n_words: int) -> None:
        """At the end of the block (n_words words): the last range must end within it."""
        if self.range_end > n_words:
            plural = "" if n_words == 1 else "s"
            self.fail(self.range_line, f"multiword range {self.range_id} covers words that do "
                                       f"not exist: the sentence has {n_words} word{plural}")


def _bad_head(text: str, block: list[str], display: str, lineno: int) -> ConllFormatError:
    """The error for a HEAD that is neither a natural number nor "_"."""
    if text.startswith("-") and text[1:].isdigit() and text[1:].isascii():
        n = sum(1 for line in block if line[0] != "#" and line.split("\t", 1)[0].isdigit())
        return ConllFormatError(
            f"{display}:{lineno}: HEAD {text} is outside the sentence ({n} words)"
        )
    return ConllFormatError(f"{display}:{lineno}: HEAD {text!r} is not an integer")


class _TreeChecker:
    """Checks heads of a sentence: in range always; a (single-rooted) tree on request."""

    def __init__(
        self, display: str, require_tree: bool, single_root: bool, require_deprel: bool
    ) -> None:
        self.display = display
        self.require_tree = require_tree
        self.single_root = single_root
        self.require_deprel = require_deprel

    def fail(self, sentence: Sentence, word: int, problem: str) -> None:
        line = sentence.line_number(word) if word > 0 else sentence.start_line
        raise ConllFormatError(f"{self.display}:{line}: {problem}")

    def check(self, sentence: Sentence) -> None:
        n = len(sentence.head)
        if max(sentence.head) > n:
            word = next(word for word, head in enumerate(sentence.head, 1) if head > n)
            head = sentence.head[word - 1]
            self.fail(sentence, word, f"HEAD {head} is outside the sentence ({n} words)")
        if not self.require_tree:
            return
        self.check_given(sentence)
        self.check_roots(sentence)
        self.check_acyclic(sentence)

    def check_given(self, sentence: Sentence) -> None:
        for word, head in enumerate(sentence.head, 1):
            if head < 0:
                self.fail(sentence, word, 'HEAD is missing ("_")')
        if self.require_deprel:
            for word, label in enumerate(sentence.deprel, 1):
                if label == "_":
                    self.fail(sentence, word, 'DEPREL is missing ("_")')

    def check_roots(self, sentence: Sentence) -> None:
        roots = [word for word, head in enumerate(sentence.head, 1) if head == 0]
        if not roots:
            self.fail(sentence, 0, "no root: no word of the sentence is attached to 0")
        if self.single_root and len(roots) > 1:
            words = _enumeration(roots)
            self.fail(sentence, roots[1], f"several roots: words {words} are attached to 0")

    def check_acyclic(self, sentence: Sentence) -> None:
        cycle = find_cycle(sentence.head)
        if cycle:
            if len(cycle) == 1:
                self.fail(sentence, cycle[0], f"word {cycle[0]} is its own head")
            path = " -> ".join(str(word) for word in cycle + cycle[:1])
            problem = f"cycle in HEAD: {path} (each word's head is the next one)"
            self.fail(sentence, cycle[0], problem)


def find_cycle(heads: Sequence[int]) -> list[int]:
    """Words of one cycle of ``heads`` (word i's head is heads[i-1]), smallest first, or []."""
    n = len(heads)
    state = [0] * (n + 1)
    for start in range(1, n + 1):
        path: list[int] = []
        word = start
        while 0 < word <= n and state[word] == 0:
            state[word] = 1
            path.append(word)
            word = heads[word - 1]
        if 0 < word <= n and state[word] == 1:
            cycle = path[path.index(word) :]
            smallest = cycle.index(min(cycle))
            return cycle[smallest:] + cycle[:smallest]
        for visited in path:
            state[visited] = 2
    return []


def _enumeration(words: Iterable[int]) -> str:
    words = [str(word) for word in words]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
