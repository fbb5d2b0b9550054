"""Reading and writing OntoNotes / PropBank ``*.gold_conll`` files (semantic roles in bracket
columns), keeping every byte that is not an argument column.

Format (Pradhan et al. 2012, "CoNLL-2012 shared task: modeling multilingual unrestricted
coreference in OntoNotes"; the argument columns are those of Carreras & Màrquez 2005,
"Introduction to the CoNLL-2005 shared task: semantic role labeling"). One row per word,
fields separated by whitespace, a blank line after every sentence; lines starting with ``#``
(``#begin document (ID); part 000``, ``#end document``) may frame the documents. Two layouts of
the fixed columns:

- ``PROPBANK_RELEASE`` (the propbank-release conversion, ``map_all_to_conll.py``; 8 columns):
  document id, sentence number, word number, word, POS, parse bit, predicate lemma (the frame
  file), roleset (``join.01``);
- ``CONLL_2012`` (11 columns and a last coreference column): document id, part number, word
  number, word, POS, parse bit, predicate lemma, frameset id (``01``), word sense, speaker,
  named entities.

Then one argument column per predicate of the sentence, in the order of the predicates. A
predicate is a row whose roleset (frameset id) column is not ``-``. A cell of an argument column
is ``*``, ``(LABEL*`` (a span opens), ``*)`` (the open span closes) or ``(LABEL*)`` (a one-word
span); spans of one column neither nest nor cross. The predicate's own words are the span
``(V*``; when it has several words ("lighten up") the predicate token is the one whose roleset is
filled. The parse bit is the row's part of the bracketed tree, ``*`` standing for
``(POS word)``.

Writing changes the argument columns only: the columns are rebuilt from spans and aligned as
the propbank-release conversion aligns them (per column, two spaces, the opening brackets
right-aligned and the closing ones left-aligned on the ``*``), so that the gold spans give the
file back byte for byte. Lines are written with ``\\n``; a byte order mark is dropped.

Every problem with the input is a ``GoldConllError`` whose message is one line,
``path:LINE: problem``.
"""
from __future__ import annotations

import codecs
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO, TextIO

from polyparse.features.errors import InputError
from polyparse.parser.formats.text_lines import display_name, text_lines

__all__ = [
    "CONLL_2012", "LAYOUTS", "PROPBANK_RELEASE", "VERB_LABELS", "ArgumentSpan",
    "ConllPredicate", "ConllSrlSentence", "GoldConllError", "GoldConllLayout", "argument_cells",
    "bracket_tree", "gold_conll_documents", "read_gold_conll", "sentence_lines",
    "write_gold_conll",
]

DOCUMENT, PART, WORD_NUMBER, WORD, POS, PARSE_BIT, LEMMA, ROLESET = range(8)
NO_VALUE = "-"
VERB_LABELS = frozenset({"V", "C-V"})
BEGIN_DOCUMENT = "#begin document"
END_DOCUMENT = "#end document"
TREE_ESCAPES = {"(": "-LRB-", ")": "-RRB-"}

PARSE_BIT_FORM = re.compile(r"((?:\([^()*\s]+)*)\*(\)*)")
PARSE_OPEN = re.compile(r"\(([^()*\s]+)")
ARGUMENT_CELL = re.compile(r"(?:\(([^()*\s]+))?\*(\))?")
LABEL = re.compile(r"[^()*\s]+")


class GoldConllError(InputError, ValueError):
    """Malformed gold_conll input; the message is one line, ``path:LINE: problem``."""


@dataclass(frozen=True, slots=True)
class GoldConllLayout:
    """The fixed columns before the argument columns, and whether a coreference column ends
    each row."""

    name: str
    fixed_columns: int
    coreference_column: bool

    @property
    def minimum_columns(self) -> int:
        return self.fixed_columns + int(self.coreference_column)


PROPBANK_RELEASE = GoldConllLayout("propbank-release", 8, False)
CONLL_2012 = GoldConllLayout("conll-2012", 11, True)
LAYOUTS = {layout.name: layout for layout in (PROPBANK_RELEASE, CONLL_2012)}


@dataclass(frozen=True, slots=True)
class ArgumentSpan:
    """A labelled span of words, ``first`` to ``last`` inclusive (0-based word indexes)."""

    label: str
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class ConllPredicate:
    """A predicate: its word, lemma and roleset, its argument column (0-based among the
    argument columns) and every span of that column in order, the ``V`` span included."""

    token: int
    lemma: str
    roleset: str
    column: int
    spans: tuple[ArgumentSpan, ...]

    @property
    def arguments(self) -> tuple[ArgumentSpan, ...]:
        """The argument spans: every label but ``V`` and ``C-V``."""
        return tuple(span for span in self.spans if span.label not in VERB_LABELS)

    @property
    def verb_spans(self) -> tuple[ArgumentSpan, ...]:
        """The ``V`` and ``C-V`` spans, which writing keeps."""
        return tuple(span for span in self.spans if span.label in VERB_LABELS)


@dataclass(slots=True)
class ConllSrlSentence:
    """One sentence: its words and annotations, and the raw lines to write it back.

    ``lines`` are the rows (word ``i`` is on line ``first_line + i`` of the file);
    ``lines_before`` the blank and ``#`` lines between the previous sentence's ``lines_after``
    and the first row (a ``#begin document`` line and what follows it); ``lines_after`` the
    blank and ``#`` lines after the last row up to the next ``#begin document`` or sentence.
    ``sentence_index`` counts the sentences of the document from 0; ``part`` is the second
    column as written (the sentence number in the propbank-release layout).
    """

    document_id: str
    part: str
    sentence_index: int
    words: tuple[str, ...]
    pos_tags: tuple[str, ...]
    parse_bits: tuple[str, ...]
    predicates: tuple[ConllPredicate, ...]
    lines: tuple[str, ...]
    lines_before: tuple[str, ...]
    lines_after: tuple[str, ...]
    first_line: int
    layout: GoldConllLayout

    def __len__(self) -> int:
        return len(self.words)

    @property
    def tree(self) -> str:
        """The parse tree as one bracket string, ``(TOP (S (NP (NNP Pierre) ...)))``."""
        return bracket_tree(self.words, self.pos_tags, self.parse_bits)

    def line_number(self, token: int) -> int:
        """The line of word ``token`` in the file."""
        return self.first_line + token

    @property
    def argument_count(self) -> int:
        """Argument spans of all predicates (labels other than ``V`` and ``C-V``)."""
        return sum(len(predicate.arguments) for predicate in self.predicates)


def bracket_tree(words: Sequence[str], pos_tags: Sequence[str], parse_bits: Sequence[str]) -> str:
    """The tree of the parse bits, ``*`` replaced by ``(POS word)``; brackets in words and tags
    are written ``-LRB-`` and ``-RRB-``."""
    pieces: list[str] = []
    for word, tag, bit in zip(words, pos_tags, parse_bits):
        star = bit.index("*")
        opens = PARSE_OPEN.findall(bit, 0, star)
        leaf = f"({TREE_ESCAPES.get(tag, tag)} {TREE_ESCAPES.get(word, word)})"
        pieces.append("".join(f"({label} " for label in opens) + leaf + bit[star + 1:])
    return " ".join(pieces)


def argument_cells(n_words: int, spans: Iterable[ArgumentSpan]) -> list[str]:
    """One bracket column (unpadded cells) of ``n_words`` rows holding ``spans``; ValueError
    when a span is outside the sentence, has a bad label or overlaps another."""
    opens = [""] * n_words
    closes = [""] * n_words
    covered = [False] * n_words
    for span in spans:
        if not LABEL.fullmatch(span.label):
            raise ValueError(f"argument label {span.label!r} is empty or holds (, ), * or a space")
        if not 0 <= span.first <= span.last < n_words:
            raise ValueError(f"argument span {span} is outside the sentence ({n_words} words)")
        if any(covered[span.first:span.last + 1]):
            raise ValueError(f"argument span {span} overlaps another span of its column")
        covered[span.first:span.last + 1] = [True] * (span.last - span.first + 1)
        opens[span.first] = f"({span.label}"
        closes[span.last] = ")"
    return [f"{opening}*{closing}" for opening, closing in zip(opens, closes)]


def read_gold_conll(
    path: str | os.PathLike | None,
    layout: GoldConllLayout = PROPBANK_RELEASE,
    stream: TextIO | BinaryIO | None = None,
    name: str | None = None,
    encoding: str = "utf-8",
    first_line: int = 1,
) -> Iterator[ConllSrlSentence]:
    """Yield the sentences of a gold_conll file, validating them on the way.

    ``path="-"`` reads standard input; ``stream`` reads an open text or binary stream;
    ``name`` is the file name used in messages; ``first_line`` numbers the input's first line
    (a later part of a file). The input is read lazily.
    """
    display = display_name(path, stream, name)
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise GoldConllError(f"{display}:1: unknown text encoding {encoding!r}") from None
    lines = text_lines(path, stream, encoding, display, GoldConllError, first_line)
    return _Reader(display, layout).sentences(lines, first_line)


def sentence_lines(
    sentence: ConllSrlSentence, arguments: Sequence[Sequence[ArgumentSpan]] | None = None
) -> list[str]:
    """The lines of ``sentence`` (``lines_before``, rows, ``lines_after``), the argument spans
    of predicate ``k`` replaced by ``arguments[k]`` (None: the gold ones).

    The ``V`` and ``C-V`` spans of each predicate stay; a given span may have any label but
    those two (a generic ``ARG`` will do) and must not overlap another span of its column,
    ``V`` spans included (ValueError otherwise).
    """
    if arguments is None:
        return [*sentence.lines_before, *sentence.lines, *sentence.lines_after]
    if len(arguments) != len(sentence.predicates):
        raise ValueError(f"{_where(sentence)}: {len(sentence.predicates)} predicates, "
                         f"got arguments for {len(arguments)}")
    n_words = len(sentence)
    gold_columns = []
    new_columns = []
    for predicate, spans in zip(sentence.predicates, arguments):
        for span in spans:
            if span.label in VERB_LABELS:
                raise ValueError(f"{_where(sentence)}: a given argument is labelled "
                                 f"{span.label}; the predicate's own spans are kept")
        try:
            new_columns.append(argument_cells(n_words, [*predicate.verb_spans, *spans]))
        except ValueError as error:
            raise ValueError(f"{_where(sentence)}, predicate {predicate.roleset} "
                             f"(word {predicate.token}): {error}") from None
        gold_columns.append(argument_cells(n_words, predicate.spans))
    if new_columns == gold_columns:
        rows = list(sentence.lines)
    else:
        rows = _rows_with_columns(sentence, new_columns)
    return [*sentence.lines_before, *rows, *sentence.lines_after]


def write_gold_conll(
    sentence: ConllSrlSentence, out: TextIO,
    arguments: Sequence[Sequence[ArgumentSpan]] | None = None,
) -> None:
    """Write the lines of ``sentence`` (see ``sentence_lines``), each ended by ``\\n``."""
    out.write("".join(f"{line}\n" for line in sentence_lines(sentence, arguments)))


def gold_conll_documents(
    sentences: Iterable[ConllSrlSentence],
) -> Iterator[list[ConllSrlSentence]]:
    """The sentences grouped by document: a document ends where the document id changes or
    a ``#begin document`` line comes."""
    document: list[ConllSrlSentence] = []
    for sentence in sentences:
        if document and (sentence.document_id != document[-1].document_id
                         or any(line.startswith(BEGIN_DOCUMENT)
                                for line in sentence.lines_before)):
            yield document
            document = []
        document.append(sentence)
    if document:
        yield document


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _where(sentence: ConllSrlSentence) -> str:
    return (f"sentence {sentence.sentence_index} of {sentence.document_id} "
            f"(line {sentence.first_line})")


def _rows_with_columns(sentence: ConllSrlSentence, columns: list[list[str]]) -> list[str]:
    """The rows with their argument columns replaced by ``columns`` (cells per column)."""
    layout = sentence.layout
    n_arguments = len(columns)
    prefix = re.compile(r"(?:\s*\S+){%d}" % layout.fixed_columns)
    fields = re.compile(r"(?:\s*\S+){%d}" % (layout.fixed_columns + n_arguments))
    open_widths = []
    close_widths = []
    for cells in columns:
        open_widths.append(max(cell.index("*") for cell in cells))
        close_widths.append(max(len(cell) - cell.index("*") - 1 for cell in cells))
    rows = []
    for row, line in enumerate(sentence.lines):
        head = prefix.match(line).end()
        tail = fields.match(line).end() if layout.coreference_column else len(line)
        region = []
        for cells, open_width, close_width in zip(columns, open_widths, close_widths):
            cell = cells[row]
            star = cell.index("*")
            region.append("  " + cell[:star].rjust(open_width) + "*"
                          + cell[star + 1:].ljust(close_width))
        rows.append(line[:head] + "".join(region) + line[tail:])
    return rows


class _Reader:
    """Cuts lines into sentences, attaches the lines between them, builds and checks each."""

    def __init__(self, display: str, layout: GoldConllLayout) -> None:
        self.display = display
        self.layout = layout
        self.document_id: str | None = None
        self.sentence_index = 0

    def fail(self, line: int, problem: str) -> GoldConllError:
        return GoldConllError(f"{self.display}:{line}: {problem}")

    def sentences(self, lines: Iterable[str], first_line: int = 1
                  ) -> Iterator[ConllSrlSentence]:
        block: list[str] = []
        start = 0
        between: list[str] = []
        before: list[str] = []
        pending: tuple[list[str], int, list[str]] | None = None
        open_document = 0
        lineno = first_line - 1
        for line in lines:
            lineno += 1
            if line and not line.isspace() and not line.startswith("#"):
                if not block:
                    start = lineno
                    cut = next((i for i, text in enumerate(between)
                                if text.startswith(BEGIN_DOCUMENT)), len(between))
                    if pending is not None:
                        yield self.sentence(*pending, between[:cut])
                    before = between[cut:]
                    between = []
                    pending = None
                block.append(line)
                continue
            if block:
                pending = (block, start, before)
                block = []
            if line.startswith(BEGIN_DOCUMENT):
                if open_document:
                    raise self.fail(lineno, f"{BEGIN_DOCUMENT} inside the document begun on "
                                            f"line {open_document}")
                open_document = lineno
            elif line.startswith(END_DOCUMENT):
                if not open_document:
                    raise self.fail(lineno, f"{END_DOCUMENT} without a {BEGIN_DOCUMENT}")
                open_document = 0
            between.append(line)
        if block:
            pending = (block, start, before)
        if open_document:
            raise self.fail(open_document, f"the document begun here has no {END_DOCUMENT}")
        if pending is not None:
            yield self.sentence(*pending, between)

    def sentence(self, rows: list[str], start: int, before: list[str],
                 after: list[str]) -> ConllSrlSentence:
        layout = self.layout
        table = [row.split() for row in rows]
        n_columns = len(table[0])
        if n_columns < layout.minimum_columns:
            raise self.fail(start, f"{_count(n_columns, 'column')}, a row has at least "
                                   f"{layout.minimum_columns} in the {layout.name} layout")
        document_id = table[0][DOCUMENT]
        for index, fields in enumerate(table):
            if len(fields) != n_columns:
                raise self.fail(start + index, f"{_count(len(fields), 'column')}, expected "
                                               f"{n_columns} as on the sentence's first row "
                                               f"(line {start})")
            if fields[DOCUMENT] != document_id:
                raise self.fail(start + index, f"document id {fields[DOCUMENT]} in a sentence "
                                               f"of {document_id} (line {start})")
            if fields[WORD_NUMBER] != str(index):
                raise self.fail(start + index, f"word number {fields[WORD_NUMBER]}, expected "
                                               f"{index}")
        self.check_parse_bits(table, start)
        predicate_rows = [index for index, fields in enumerate(table)
                          if fields[ROLESET] != NO_VALUE]
        n_arguments = n_columns - layout.minimum_columns
        if n_arguments != len(predicate_rows):
            raise self.fail(start, f"{_count(n_arguments, 'argument column')} but "
                                   f"{_count(len(predicate_rows), 'predicate')} (rows with a "
                                   f"roleset in column {ROLESET + 1})")
        predicates = []
        for column, predicate_row in enumerate(predicate_rows):
            spans = self.column_spans(table, start, column)
            self.check_verb_span(spans, predicate_rows, start, column)
            fields = table[predicate_row]
            predicates.append(ConllPredicate(predicate_row, fields[LEMMA], fields[ROLESET],
                                             column, spans))
        if document_id != self.document_id:
            self.document_id = document_id
            self.sentence_index = 0
        else:
            self.sentence_index += 1
        if any(line.startswith(BEGIN_DOCUMENT) for line in before):
            self.sentence_index = 0
        return ConllSrlSentence(
            document_id=document_id, part=table[0][PART], sentence_index=self.sentence_index,
            words=tuple(fields[WORD] for fields in table),
            pos_tags=tuple(fields[POS] for fields in table),
            parse_bits=tuple(fields[PARSE_BIT] for fields in table),
            predicates=tuple(predicates), lines=tuple(rows), lines_before=tuple(before),
            lines_after=tuple(after), first_line=start, layout=layout)

    def check_parse_bits(self, table: list[list[str]], start: int) -> None:
        depth = 0
        last = len(table) - 1
        for index, fields in enumerate(table):
            bit = fields[PARSE_BIT]
            match = PARSE_BIT_FORM.fullmatch(bit)
            if match is None:
                raise self.fail(start + index, f"parse bit {bit!r} is not of the form "
                                               f"(LABEL...*)...")
            opens = match.group(1).count("(")
            closes = len(match.group(2))
            if depth + opens == 0:
                raise self.fail(start + index, f"parse bit {bit!r} leaves the word outside the "
                                               f"parse tree")
            depth += opens - closes
            if depth < 0:
                raise self.fail(start + index, f"parse bit {bit!r} closes "
                                               f"{_count(-depth, 'bracket')} more than are open")
            if depth == 0 and index < last:
                raise self.fail(start + index, f"parse bit {bit!r} closes the parse tree "
                                               f"before the sentence ends")
        if depth:
            raise self.fail(start + last, f"the parse bits leave {_count(depth, 'bracket')} open "
                                          f"at the end of the sentence")

    def column_spans(self, table: list[list[str]], start: int,
                     column: int) -> tuple[ArgumentSpan, ...]:
        field = self.layout.fixed_columns + column
        spans = []
        open_label: str | None = None
        open_row = 0
        for index, fields in enumerate(table):
            cell = fields[field]
            match = ARGUMENT_CELL.fullmatch(cell)
            if match is None:
                raise self.fail(start + index, f"argument column {column + 1}: {cell!r} is not "
                                               f"*, (LABEL*, *) or (LABEL*)")
            label, closing = match.groups()
            if label is not None:
                if open_label is not None:
                    raise self.fail(start + index, f"argument column {column + 1}: ({label} "
                                                   f"opens inside ({open_label} of line "
                                                   f"{start + open_row} (spans do not nest or "
                                                   f"cross)")
                open_label = label
                open_row = index
            if closing is not None:
                if open_label is None:
                    raise self.fail(start + index, f"argument column {column + 1}: {cell!r} "
                                                   f"closes no open span")
                spans.append(ArgumentSpan(open_label, open_row, index))
                open_label = None
        if open_label is not None:
            raise self.fail(start + open_row, f"argument column {column + 1}: ({open_label} is "
                                              f"not closed by the end of the sentence (line "
                                              f"{start + len(table) - 1})")
        return tuple(spans)

    def check_verb_span(self, spans: tuple[ArgumentSpan, ...], predicate_rows: list[int],
                        start: int, column: int) -> None:
        verbs = [span for span in spans if span.label == "V"]
        if not verbs:
            raise self.fail(start, f"argument column {column + 1} has no (V* span")
        if len(verbs) > 1:
            raise self.fail(start + verbs[1].first, f"argument column {column + 1}: a second "
                                                    f"(V* span (the first is on line "
                                                    f"{start + verbs[0].first})")
        verb = verbs[0]
        inside = [row for row in predicate_rows if verb.first <= row <= verb.last]
        expected = predicate_rows[column]
        if inside != [expected]:
            raise self.fail(start + verb.first,
                            f"argument column {column + 1}: its (V* span (lines "
                            f"{start + verb.first}-{start + verb.last}) does not hold exactly "
                            f"its predicate, the roleset of line {start + expected}")
