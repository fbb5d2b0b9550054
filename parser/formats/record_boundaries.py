"""Where the records of an input may be cut apart: the byte offsets at which a shard of whole
records can start (parser/scale_out/shards.py cuts inputs there).

A rule is told the bytes read so far (`data`, whose offset 0 is the start of the current
shard), a position, and whether `data` runs to the end of the input; it gives the first cut at
or after the position, or None when there is none in `data` (or when it cannot tell without the
bytes that follow). Every cut is a place where the format's reader starts a new record and
carries nothing over from the records before it, so that a shard read on its own gives exactly
the sentences, the output and the messages that reading the whole input gives for it:

- `conll` (CoNLL-U, CoNLL-X): after a blank line (a sentence ends at a blank line);
- `eos` (CaboCha, MeCab): after an `EOS` line;
- `knp`: after an `EOS` line, unless the next sentence's `# S-ID:` names the same document as
  the last one before it (a KNP document stays in one shard);
- `lines` (raw Japanese text, svmlight): after any line;
- `gold_conll`: before a `#begin document` line, or, outside any `#begin document` ...
  `#end document` frame, before the first row of a sentence of another document than the row
  before its blank line (a document's sentences are numbered by the reader; the lines between
  two sentences go to the first, as the reader attaches them).

The bytes are ASCII-compatible text (parser/scale_out checks the encoding): a line end is the
byte 0x0a and never part of another character.
"""
from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["CUT_RULES", "CutRule", "cut_rule_of"]

CutRule = Callable[[bytes, int, bool], "int | None"]

# A blank line: nothing but ASCII white space (the readers skip it as a sentence separator).
_BLANK_LINE = re.compile(rb"\n[ \t\r\f\v]*\n")
_EOS_LINE = re.compile(rb"\nEOS\r?\n")
_LINE_END = re.compile(rb"\n")
_SENTENCE_ID = re.compile(rb"# S-ID:[ \t]*(\S+)")
_BEGIN_DOCUMENT = b"#begin document"
_END_DOCUMENT = b"#end document"
# gold_conll: a blank line and the line after it, which starts a sentence's first row.
_ROW_AFTER_BLANK = re.compile(rb"\n[ \t\r\f\v]*\n(?=[^\s#])")
_LINE_STARTING_BEGIN = re.compile(rb"\n(?=#begin document)")


def _first(pattern: re.Pattern[bytes], data: bytes, position: int) -> int | None:
    """The end of the first match of pattern that starts at or after position - 1 (its line
    end may be the byte just before position)."""
    found = pattern.search(data, max(position - 1, 0))
    return None if found is None else found.end()


def conll_cut(data: bytes, position: int, final: bool) -> int | None:
    return _first(_BLANK_LINE, data, position)


def eos_cut(data: bytes, position: int, final: bool) -> int | None:
    return _first(_EOS_LINE, data, position)


def line_cut(data: bytes, position: int, final: bool) -> int | None:
    return _first(_LINE_END, data, position)


def _document_of(line: bytes) -> bytes | None:
    """The document of a `# S-ID:` line (the sentence id without its last `-N`), else None."""
    found = _SENTENCE_ID.match(line)
    if found is None:
        return None
    return found.group(1).rpartition(b"-")[0] or found.group(1)


def knp_cut(data: bytes, position: int, final: bool) -> int | None:
    while True:
        cut = _first(_EOS_LINE, data, position)
        if cut is None:
            return None
        line_end = data.find(b"\n", cut)
        if line_end < 0 and not final:
            return None
        following = _document_of(data[cut:] if line_end < 0 else data[cut:line_end])
        previous_start = data.rfind(b"\n# S-ID:", 0, cut)
        previous = None if previous_start < 0 and not data.startswith(b"# S-ID:") else \
            _document_of(data[previous_start + 1:] if previous_start >= 0 else data)
        if following is None or previous is None or following != previous:
            return cut
        position = cut + 1


def _open_documents(data: bytes, start: int, end: int) -> int:
    """`#begin document` lines less `#end document` lines among the lines starting in
    [start, end) (start is 0 or a line start)."""
    lines = b"\n" + data[:end] if start == 0 else data[start - 1:end]
    return lines.count(b"\n" + _BEGIN_DOCUMENT) - lines.count(b"\n" + _END_DOCUMENT)


def _next_document_row(data: bytes, position: int) -> tuple[int, int] | None:
    """(start of the blank line's line end, start of the row after it) of the first row that
    follows a blank line and starts at or after position, when the row before that blank line
    is of another document (or is no row); None when there is none."""
    for found in _ROW_AFTER_BLANK.finditer(data, max(position - 1, 0)):
        previous = data[data.rfind(b"\n", 0, found.start()) + 1:found.start()]
        end = data.find(b"\n", found.end())
        row = data[found.end():end if end >= 0 else len(data)]
        if previous.startswith(b"#") or previous.split(None, 1)[:1] != row.split(None, 1)[:1]:
            return found.start(), found.end()
    return None


def gold_conll_cut(data: bytes, position: int, final: bool) -> int | None:
    counted = depth = 0
    while True:
        begin = _first(_LINE_STARTING_BEGIN, data, position)
        row = _next_document_row(data, position)
        if row is not None and data.find(b"\n", row[1]) < 0 and not final:
            row = None
        if begin is None and row is None:
            return None
        cut = min(found for found in (begin, row and row[1]) if found is not None)
        if cut == begin:
            return cut
        depth += _open_documents(data, counted, cut)
        counted = cut
        if depth <= 0:
            return cut
        position = cut + 1


CUT_RULES: dict[str, CutRule] = {
    "conll": conll_cut, "eos": eos_cut, "knp": knp_cut, "lines": line_cut,
    "gold_conll": gold_conll_cut,
}
# The rule of each input format the prediction commands read.
_RULE_OF_FORMAT = {"conllu": "conll", "conllx": "conll", "cabocha": "eos", "mecab": "eos",
                   "knp": "knp", "raw": "lines", "svmlight": "lines", "gold_conll": "gold_conll"}


def cut_rule_of(fmt: str) -> CutRule:
    """The cut rule of an input format (conllu, conllx, knp, cabocha, mecab, raw, svmlight,
    gold_conll)."""
    return CUT_RULES[_RULE_OF_FORMAT[fmt]]
