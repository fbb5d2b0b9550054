"""The words of a token: multiword tokens as UD English writes them (``don't`` -> ``do``
``n't``, ``cannot`` -> ``can`` ``not``, ``gonna`` -> ``gon`` ``na``, ``Bush's`` -> ``Bush``
``'s``).

A table learned from the treebank's multiword tokens (parser/tokenize/training.py) gives, for a
lower-cased token, the lengths of its words when they spell the token (the usual case; the
token's own characters are then cut, so ``DON'T`` -> ``DO`` ``N'T``) or the words themselves
(``lengths`` None). Tokens the table does not know are cut by the clitic rule of the Penn
Treebank tokenizer: a final ``n't`` or ``'s 're 've 'll 'd 'm`` (either apostrophe) after a
letter is a word of its own, and so is the apostrophe of a plural's possessive
(``soldiers'``). The table also holds tokens that the rule would cut but the
treebank keeps as one word (``Sha'lan``): their single length.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = ["MultiwordRules"]

_CLITIC = re.compile(r"(?i)(.*[^\W\d_])(n['’]t|['’](?:s|re|ve|ll|d|m))|(.*s)(['’])")


class MultiwordRules:
    """token -> its words; see the module notes."""

    def __init__(self, lengths: Mapping[str, Sequence[int]],
                 spelled: Mapping[str, Sequence[str]]) -> None:
        self.lengths = {token: tuple(value) for token, value in lengths.items()}
        self.spelled = {token: list(value) for token, value in spelled.items()}

    def words(self, token: str) -> list[str]:
        """The words of token (one word: [token])."""
        lower = token.lower()
        lengths = self.lengths.get(lower)
        if lengths is None:
            spelled = self.spelled.get(token)
            if spelled is None:
                spelled = self.spelled.get(lower)
            if spelled is not None:
                return list(spelled)
            match = _CLITIC.fullmatch(token)
            if match is None:
                return [token]
            return [word for word in match.groups() if word]
        if len(lengths) == 1:
            return [token]
        words = []
        start = 0
        for length in lengths:
            words.append(token[start:start + length])
            start += length
        return words

    def rule_words(self, token: str) -> list[str]:
        """The words the clitic rule alone gives."""
        match = _CLITIC.fullmatch(token)
        return [token] if match is None else [word for word in match.groups() if word]
