"""Tokens of one whitespace-free chunk of text, by rules and a lexicon learned from a treebank.

The method is that of rule tokenizers with learned exceptions (spaCy's prefix / suffix / infix
scheme, the Penn Treebank tokenizer's punctuation rules): the chunk's opening punctuation is
peeled off token by token from the left, its closing punctuation from the right, and the core
that remains is cut at hyphens and slashes between letters. The lexicon (learned from the
treebank's tokens, parser/tokenize/training.py) stops the rules where the treebank does:

- ``exceptions``: chunks the rules cut wrongly in the treebank, with the treebank's tokens;
- ``whole``: strings that are one token in the treebank though they hold punctuation
  (``U.S.``, ``e-mail``, ``:)``, ``...``, ``Mr.``), checked before every cut;
- ``hyphen_prefixes``: first parts of hyphenated words the treebank keeps whole (``non``,
  ``pre``, ``co``).

URLs, e-mail addresses, file names and numbers with inner separators (``713-853-3989``,
``11/28/2000``, ``5:30``, ``1,200``) stay whole, and so do initials (``J.``, ``a.m.``).
Multiword tokens (``don't``) are tokens here; their words come from parser/tokenize/words.py.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from itertools import groupby

__all__ = ["ChunkRules"]

# Characters that may end a chunk's core: word characters and these.
_CORE_END = re.compile(r"[\w%$&@#+*=/\\]$")
_URL = re.compile(
    r"(?:[a-z][a-z0-9+.-]*://|www\d?\.|mailto:)\S+"
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|(?:[\w-]+\.)+(?:com|org|net|edu|gov|mil|int|info|biz|co|uk|de|fr|ca|au|jp|us|io|ly"
    r"|html?|php|aspx?|jsp|cgi|pdf|docx?|xlsx?|pptx?|txt|zip|gif|jpe?g|png|url|mpe?g|mp3|wav"
    r"|exe|rtf|csv|xml)(?![\w-])(?:/\S*)?"
    r"|[a-z]{2,}(?:\.[a-z][\w-]+){2,}",
    re.IGNORECASE)
_NUMBER = re.compile(r"[+-]?\d+(?:[.,:/-]\d+)+|\d+(?:[.,]\d+)?")
# Ordinals, decades and codes stay whole (5th, 1990s, 83N); other units are cut (375 mm).
_NUMBER_LETTERS = re.compile(r"\d+(?:st|nd|rd|th|s|[A-Z])")
_NUMBER_UNIT = re.compile(r"(\d+(?:[.,]\d+)?)([^\W\d_]+)")
# Two numbers joined by a hyphen are a range (13 - 17) unless they look like a phone number.
_NUMBER_RANGE = re.compile(r"(\d+)-(\d+)")
_PHONE = re.compile(r"\d{1,3}-\d{4}")
# Hashtags, user names and abbreviations like b/c, w/o stay whole.
_HANDLE = re.compile(r"[#@]\w+|[^\W\d_]/[^\W_]")
_INITIALS = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]?")
_WORD_HYPHENS = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")
_WORD_SLASH = re.compile(r"[^\W\d_]{2,}(?:/[^\W\d_]{2,})+")
# Pieces of a core that holds inner punctuation the rules above left alone.
_PIECES = re.compile(r"[\w'’&@]+|[^\w\s'’]")
_URL_TRAILING = ".,;:!?)]}\"'”’>"
# Longer chunks (a line of base64, a minified file) are cut in linear time: their opening and
# closing punctuation as runs, the rest one token; the rules' searches could take quadratic time.
MAX_RULE_CHUNK = 500
# Pieces joined at most when looking for whole tokens inside a core (i.e., U.S.A., a.m.).
_MAX_JOINED_PIECES = 12


class ChunkRules:
    """chunk -> tokens; see the module notes."""

    def __init__(self, whole: Collection[str], exceptions: Mapping[str, list[str]],
                 hyphen_prefixes: Collection[str]) -> None:
        self.whole = frozenset(whole)
        self.exceptions = dict(exceptions)
        self.hyphen_prefixes = frozenset(hyphen_prefixes)

    def split(self, chunk: str) -> list[str]:
        """The tokens of a chunk (no whitespace in it); they concatenate to the chunk."""
        found = self.exceptions.get(chunk)
        if found is not None:
            return list(found)
        if chunk.isalpha():
            return [chunk]
        if len(chunk) > MAX_RULE_CHUNK:
            return _long_chunk(chunk)
        return self.split_by_rules(chunk)

    def split_by_rules(self, chunk: str) -> list[str]:
        """The tokens the rules give, the exceptions of whole chunks aside."""
        whole = self.whole
        prefix: list[str] = []
        suffix: list[str] = []
        text = chunk
        while text and text not in whole:
            url = _URL.match(text)
            if url is not None:
                end = url.end()
                while end > 1 and text[end - 1] in _URL_TRAILING:
                    end -= 1
                suffix[:0] = self.split_by_rules(text[end:]) if end < len(text) else []
                text = text[:end]
                break
            first = text[0]
            if first in "#@" and _HANDLE.fullmatch(text):
                break
            if not (first.isalnum() or first == "_") and len(text) > 1 and not _is_clitic(text):
                if not any(char.isalnum() for char in text):
                    return prefix + self._closing(text) + suffix
                run = self._leading_run(text)
                prefix.append(run)
                text = text[len(run):]
                continue
            last = text[-1]
            if last in "'’" and text[-2:-1] in ("s", "S") and text[:-1].isalpha():
                break
            if not _CORE_END.search(last) and len(text) > 1:
                if last == "." and _INITIALS.fullmatch(text):
                    break
                run = self._trailing_run(text)
                if run == text:
                    break
                suffix.insert(0, run)
                text = text[: len(text) - len(run)]
                continue
            break
        if not text:
            return prefix + suffix
        return prefix + self._core(text) + suffix

    def _leading_run(self, text: str) -> str:
        """The first token of a text that starts with punctuation: the longest stretch of its
        punctuation that is a whole token (not ending inside a run of one character), else the
        run of its first character (``...``, ``((``)."""
        end = 1
        while end < len(text) and not text[end].isalnum():
            end += 1
        for stop in range(end, 1, -1):
            if (stop == end or text[stop] != text[stop - 1]) and text[:stop] in self.whole:
                return text[:stop]
        stop = 1
        while stop < len(text) and text[stop] == text[0]:
            stop += 1
        return text[:stop]

    def _trailing_run(self, text: str) -> str:
        """The last token of a text that ends with punctuation (see _leading_run): a whole
        token, else the run of its last character (an ellipsis, ``!!!``)."""
        start = len(text) - 1
        while start > 0 and not text[start - 1].isalnum():
            start -= 1
        for begin in range(start, len(text) - 1):
            if (begin == start or text[begin - 1] != text[begin]) and text[begin:] in self.whole:
                return text[begin:]
        begin = len(text) - 1
        while begin > 0 and text[begin - 1] == text[-1]:
            begin -= 1
        return text[begin:]

    def _closing(self, text: str) -> list[str]:
        """Tokens of a text of punctuation only: runs and whole tokens, left to right."""
        tokens: list[str] = []
        while text:
            run = self._leading_run(text)
            tokens.append(run)
            text = text[len(run):]
        return tokens

    def _core(self, text: str) -> list[str]:
        """Tokens of a chunk's core (no opening or closing punctuation left)."""
        unit = _NUMBER_UNIT.fullmatch(text)
        if unit is not None and not _NUMBER_LETTERS.fullmatch(text) and text not in self.whole:
            return [unit.group(1), unit.group(2)]
        if text in self.whole or text.isalnum():
            return [text]
        range_match = _NUMBER_RANGE.fullmatch(text)
        if range_match is not None and not _PHONE.fullmatch(text):
            return [range_match.group(1), "-", range_match.group(2)]
        if (_URL.fullmatch(text) or _NUMBER.fullmatch(text) or _INITIALS.fullmatch(text)
                or _NUMBER_LETTERS.fullmatch(text) or _HANDLE.fullmatch(text)):
            return [text]
        inner = _URL.search(text)
        if inner is not None and ("@" in inner.group() or "://" in inner.group()):
            start, end = inner.span()
            before = self.split_by_rules(text[:start]) if start else []
            after = self.split_by_rules(text[end:]) if end < len(text) else []
            return before + [inner.group()] + after
        if _WORD_HYPHENS.fullmatch(text):
            return self._hyphenated(text)
        if _WORD_SLASH.fullmatch(text):
            return _cut(text, "/")
        if all(char.isalnum() or char in "'’&@_" for char in text):
            return [text]
        pieces = _PIECES.findall(text)
        if "".join(pieces) != text:
            return [text]
        return self._joined_whole(pieces)

    def _hyphenated(self, text: str) -> list[str]:
        parts = text.split("-")
        tokens = [parts[0]]
        for part in parts[1:]:
            if tokens[-1].lower() in self.hyphen_prefixes and "-" not in tokens[-1]:
                tokens[-1] += "-" + part
            else:
                tokens += ["-", part]
        return tokens

    def _joined_whole(self, pieces: list[str]) -> list[str]:
        """Pieces with the longest runs that are whole tokens joined, left to right."""
        tokens: list[str] = []
        i = 0
        while i < len(pieces):
            for j in range(min(len(pieces), i + _MAX_JOINED_PIECES), i + 1, -1):
                joined = "".join(pieces[i:j])
                if joined in self.whole:
                    tokens.append(joined)
                    i = j
                    break
            else:
                tokens.append(pieces[i])
                i += 1
        return tokens


def _long_chunk(chunk: str) -> list[str]:
    """Tokens of a long chunk: runs of its opening and closing punctuation, and the rest."""
    start = 0
    while start < len(chunk) and not chunk[start].isalnum():
        start += 1
    end = len(chunk)
    while end > start and not chunk[end - 1].isalnum():
        end -= 1
    core = [chunk[start:end]] if end > start else []
    return ["".join(run) for _, run in groupby(chunk[:start])] + core + [
        "".join(run) for _, run in groupby(chunk[end:])]


def _is_clitic(text: str) -> bool:
    """'s, 're, 'll ... (and n't) at the start of a chunk are words, not an opening quote."""
    return text[0] in "'’" and text[1:].lower() in ("s", "re", "ve", "ll", "d", "m", "em")


def _cut(text: str, separator: str) -> list[str]:
    parts = text.split(separator)
    tokens = [parts[0]]
    for part in parts[1:]:
        tokens += [separator, part]
    return tokens
