"""Tokenized sentences as CoNLL-U blocks: `# sent_id`, `# text`, `# newdoc` / `# newpar`,
multiword-token range lines, and the whitespace after each token in MISC, with ``_`` in the
columns a tagger and a parser fill.

The whitespace after a token follows UDPipe's convention and UD's MISC documentation: nothing
for a single space, ``SpaceAfter=No`` for none, else ``SpacesAfter=`` with the whitespace
escaped (``\\s`` space, ``\\t`` tab, ``\\n`` line break, ``\\r``, ``\\p`` for ``|``,
``\\\\``), and every other whitespace or control character as ``\\u`` and four hex digits
(``\\u00A0`` for a no-break space: MISC may not hold them raw); whitespace before the first
token of a text is ``SpacesBefore=``. The blocks therefore give back the text exactly
(text_of_blocks).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from polyparse.parser.formats.conll import FORM, MISC, Sentence, token_lines
from polyparse.parser.tokenize.segmenter import TokenizedSentence

__all__ = ["conllu_lines", "sentence_of", "set_word_columns", "text_of_blocks",
           "token_spaces", "unescape_spaces"]

_ESCAPES = {" ": "\\s", "\t": "\\t", "\n": "\\n", "\r": "\\r", "|": "\\p", "\\": "\\\\"}
_UNESCAPES = {value: key for key, value in _ESCAPES.items()}
_ESCAPED = re.compile(r"\\[stnrp\\]|\\u[0-9A-Fa-f]{4}")


def _escape_char(char: str) -> str:
    escaped = _ESCAPES.get(char)
    if escaped is not None:
        return escaped
    if char.isspace() or not char.isprintable():
        return f"\\u{ord(char):04X}"
    return char


def _escape(spaces: str) -> str:
    return "".join(map(_escape_char, spaces))


def _unescape(match: re.Match) -> str:
    text = match.group()
    return chr(int(text[2:], 16)) if text[1] == "u" else _UNESCAPES[text]


def unescape_spaces(value: str) -> str:
    """The whitespace a SpacesAfter / SpacesBefore value stands for."""
    return _ESCAPED.sub(_unescape, value)


def _misc(space: str, before: str = "") -> str:
    parts = []
    if before:
        parts.append("SpacesBefore=" + _escape(before))
    if space == "":
        parts.append("SpaceAfter=No")
    elif space != " ":
        parts.append("SpacesAfter=" + _escape(space))
    return "|".join(parts) if parts else "_"


# The empty columns of a word line between FORM and MISC.
_BLANK = "\t_\t_\t_\t_\t_\t_\t_\t"
# Whitespace -> the end of a word line after FORM (grows as new whitespace is seen).
_TAILS = {" ": _BLANK + "_", "": _BLANK + "SpaceAfter=No"}
_MAX_TAILS = 10_000


def _tail(space: str) -> str:
    tail = _TAILS.get(space)
    if tail is None:
        tail = _BLANK + _misc(space)
        if len(_TAILS) < _MAX_TAILS:
            _TAILS[space] = tail
    return tail


def conllu_lines(sentence: TokenizedSentence, sent_id: str, new_document: bool = False
                 ) -> tuple[list[str], list[int], list[str]]:
    """(lines of the block without its blank line, index of each word's line, word forms)."""
    lines = []
    if new_document:
        lines.append("# newdoc")
    if sentence.new_paragraph or new_document:
        lines.append("# newpar")
    lines.append(f"# sent_id = {sent_id}")
    lines.append(f"# text = {sentence.text}")
    tokens = sentence.tokens
    word_lists = sentence.words
    tails = [_TAILS.get(space) or _tail(space) for space in sentence.spaces]
    if sentence.before:
        tails[0] = _BLANK + _misc(sentence.spaces[0], sentence.before)
    if all(len(words) == 1 for words in word_lists):
        first = len(lines)
        lines += [f"{i}\t{token}{tail}" for i, (token, tail) in enumerate(zip(tokens, tails), 1)]
        return lines, list(range(first, len(lines))), list(tokens)
    word_lines: list[int] = []
    forms: list[str] = []
    for token, tail, words in zip(tokens, tails, word_lists):
        first = len(forms) + 1
        if len(words) == 1:
            word_lines.append(len(lines))
            forms.append(token)
            lines.append(f"{first}\t{token}{tail}")
            continue
        lines.append(f"{first}-{first + len(words) - 1}\t{token}{tail}")
        for word in words:
            word_lines.append(len(lines))
            forms.append(word)
            lines.append(f"{len(forms)}\t{word}{_BLANK}_")
    return lines, word_lines, forms


def sentence_of(sentence: TokenizedSentence, sent_id: str, start_line: int = 1,
                new_document: bool = False) -> Sentence:
    """The CoNLL-U Sentence of a tokenized sentence (words untagged, without heads)."""
    lines, word_lines, forms = conllu_lines(sentence, sent_id, new_document)
    n = len(forms)
    blank = ["_"] * n
    return Sentence(lines, word_lines, forms, list(blank), list(blank), list(blank), [-1] * n,
                    list(blank), start_line, list(blank))


# CoNLL-U columns a tagger fills, by name.
_TAG_COLUMNS = {"lemma": 2, "upos": 3, "xpos": 4, "feats": 5}


def set_word_columns(sentence: Sentence, **columns: Sequence[str]) -> None:
    """Write a tagger's columns (lemma, upos, xpos, feats: one value a word) into a sentence,
    its lists and its lines alike, so that write_conll writes them."""
    for name, values in columns.items():
        index = _TAG_COLUMNS.get(name)
        if index is None:
            raise ValueError(f"unknown column {name!r}, expected one of {', '.join(_TAG_COLUMNS)}")
        if len(values) != len(sentence.word_lines):
            raise ValueError(f"{len(values)} {name} values for {len(sentence.word_lines)} words")
        for value in values:
            if not value or any(char in value for char in "\t\n\r"):
                raise ValueError(f"the {name} {value!r} is empty or holds a tab or line break")
        getattr(sentence, name)[:] = list(values)
        for line_index, value in zip(sentence.word_lines, values):
            fields = sentence.lines[line_index].split("\t")
            fields[index] = value
            sentence.lines[line_index] = "\t".join(fields)


def token_spaces(lines: Iterable[str]) -> list[tuple[str, str, str]]:
    """The tokens of a CoNLL-U block's lines (range lines for multiword tokens), each with the
    whitespace before it (SpacesBefore, else "") and after it, as its MISC names them."""
    tokens = []
    for columns, _ in token_lines(lines):
        before, space = "", " "
        for item in columns[MISC].split("|"):
            key, _, value = item.partition("=")
            if key == "SpacesBefore":
                before = unescape_spaces(value)
            elif key == "SpaceAfter" and value == "No":
                space = ""
            elif key == "SpacesAfter":
                space = unescape_spaces(value)
        tokens.append((columns[FORM], before, space))
    return tokens


def text_of_blocks(blocks: Iterable[list[str]]) -> str:
    """The text CoNLL-U blocks (each a list of lines) came from: tokens (range lines for
    multiword tokens) with the whitespace their MISC names (the inverse of conllu_lines)."""
    return "".join(before + form + space for lines in blocks
                   for form, before, space in token_spaces(lines))
