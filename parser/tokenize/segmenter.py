"""What raw-text reading (parser/tokenize/reading.py) and the segmenter learned from a treebank
(parser/segmentation/) share: the sentences they give (TokenizedSentence), what a tokenizer
model and its segmenter offer reading (TextTokenizer, TextSegmenter: Protocols, so that
parser/tokenize names them without importing parser/segmentation, which imports this module),
and what separates tokens (GAP: whitespace and control characters, NUL, BEL and the rest of
Unicode's Cc, which UD forms may not hold).

A sentence keeps the exact whitespace after each of its tokens and, for the first sentence of
a text, the whitespace before it, so that joining tokens and whitespace gives back the text
(detokenize).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

__all__ = ["GAP", "LEARNED_SEGMENTER_FORMAT", "TextSegmenter", "TextTokenizer",
           "TokenizedSentence", "detokenize", "split_gaps"]

# What separates tokens: whitespace and control characters (Unicode category Cc).
GAP = r"[\s\x00-\x1f\x7f-\x9f]+"
# Characters read as a space in `# text` (CoNLL-U's `# text` is one line without control
# characters): tabs, what ends a line for str.splitlines, and the other control characters.
_AS_SPACE = "".join(map(chr, range(0x20))) + "".join(map(chr, range(0x7f, 0xa0))) + "\u2028\u2029"
_ONE_LINE = str.maketrans(_AS_SPACE, " " * len(_AS_SPACE))
_SPLIT = re.compile(f"({GAP})").split


@dataclass(slots=True)
class TokenizedSentence:
    """Tokens of one sentence, the whitespace after each, the words of each, whether the
    sentence starts a paragraph, and the whitespace before its first token."""

    tokens: list[str]
    spaces: list[str]
    words: list[list[str]]
    new_paragraph: bool
    before: str = ""

    @property
    def text(self) -> str:
        """The sentence's text: its tokens and the whitespace between them, each line break
        (of str.splitlines), tab or other control character read as a space (CoNLL-U's
        `# text` is one line)."""
        spaces = self.spaces
        if spaces.count(" ") - (spaces[-1] == " ") == len(spaces) - 1:
            return " ".join(self.tokens)
        parts = [token + space for token, space in zip(self.tokens, spaces)]
        parts[-1] = self.tokens[-1]
        return "".join(parts).translate(_ONE_LINE)


def split_gaps(text: str) -> list[str]:
    """text cut into chunk, gap, chunk, ... (GAP: whitespace and control characters); the
    first is "" when text starts with a gap, the last "" when it ends with one."""
    return _SPLIT(text)


class TextSegmenter(Protocol):
    """What parser/tokenize/reading.py cuts text with: a segmenter learned from a treebank
    (parser/segmentation/segmenter.py's Segmenter)."""

    def sentences(self, text: str, new_paragraph: bool = True) -> Iterable[TokenizedSentence]:
        """The sentences of a text; the first starts a paragraph when new_paragraph."""
        ...

    def tokens_sentence(self, tokens: list[str], new_paragraph: bool,
                        spaces: list[str] | None = None, before: str = "") -> TokenizedSentence:
        """One sentence of given tokens (and the whitespace after each), cut into words."""
        ...

    def line_sentence(self, text: str, new_paragraph: bool) -> TokenizedSentence | None:
        """The one sentence of a line of text already split into sentences (None: no token)."""
        ...


# The model-file format of a segmenter learned from a treebank (parser/segmentation/model.py
# writes it, parser/tokenize/model.py's load_tokenizer reads it).
LEARNED_SEGMENTER_FORMAT = "polyparse-segmenter"


class TextTokenizer(Protocol):
    """A tokenizer model: a segmenter learned from a treebank (parser/segmentation/model.py's
    SegmenterModel)."""

    def text_segmenter(self) -> TextSegmenter:
        """What cuts its text."""
        ...

    @property
    def known_characters(self) -> frozenset[str] | None:
        """The characters it learned from (None: not recorded), for raw-text reading's
        warning when most of a text's are new to it."""
        ...


def detokenize(sentences: Iterable[TokenizedSentence]) -> str:
    """The text that the sentences came from."""
    parts = []
    for sentence in sentences:
        parts.append(sentence.before)
        for token, space in zip(sentence.tokens, sentence.spaces):
            parts.append(token)
            parts.append(space)
    return "".join(parts)
