"""Raw text -> paragraphs -> tokens -> sentences, every character accounted for.

Paragraphs are separated by blank lines (a run of whitespace holding two line breaks); within a
paragraph a line break is a space. Control characters (NUL, BEL and the rest of Unicode's Cc,
which UD forms may not hold) separate tokens as whitespace does, and are kept with it. Each
whitespace-free chunk is cut into tokens by parser/tokenize/chunk_rules.py (results kept in a
bounded cache: text repeats its chunks), each token into words by parser/tokenize/words.py, and
each paragraph's tokens into sentences by parser/tokenize/sentence_split.py. A sentence keeps
the exact whitespace after each of its tokens and, for the first sentence of a text, the
whitespace before it, so that joining tokens and whitespace gives back the text (detokenize).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from polyparse.parser.tokenize.chunk_rules import ChunkRules
from polyparse.parser.tokenize.sentence_split import SentenceSplitter
from polyparse.parser.tokenize.words import MultiwordRules

__all__ = ["GAP", "Segmenter", "TokenizedSentence", "detokenize", "split_gaps"]

# What separates tokens: whitespace and control characters (Unicode category Cc).
GAP = r"[\s\x00-\x1f\x7f-\x9f]+"
# Characters read as a space in `# text` (CoNLL-U's `# text` is one line without control
# characters): tabs, what ends a line for str.splitlines, and the other control characters.
_AS_SPACE = "".join(map(chr, range(0x20))) + "".join(map(chr, range(0x7f, 0xa0))) + "\u2028\u2029"
_ONE_LINE = str.maketrans(_AS_SPACE, " " * len(_AS_SPACE))
_SPLIT = re.compile(f"({GAP})").split
# Chunks remembered with their tokens.
CACHE_SIZE = 200_000


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
    """What parser/tokenize/reading.py cuts text with: this module's Segmenter (the English
    rules of a tokenizer model) or a segmenter learned from any treebank
    (parser/segmentation/segmenter.py)."""

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


# The model-file format of a segmenter learned from any treebank (parser/segmentation/model.py
# writes it; parser/tokenize/model.py's load_tokenizer reads either kind, telling them apart by
# this name without importing the learned segmenter for an English model).
LEARNED_SEGMENTER_FORMAT = "polyparse-segmenter"


class TextTokenizer(Protocol):
    """A tokenizer model of either kind: the English rules' (parser/tokenize/model.py) or a
    segmenter learned from any treebank (parser/segmentation/model.py)."""

    def text_segmenter(self) -> TextSegmenter:
        """What cuts its text."""
        ...

    @property
    def known_characters(self) -> frozenset[str] | None:
        """The characters it learned from (None: no such limit), for raw-text reading's
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


def _chunks_and_gaps(text: str) -> tuple[str, list[str]] | None:
    """The whitespace before text's first chunk, and text from that chunk on cut into chunk,
    gap, chunk, gap, ... (the last gap "" when text ends with a chunk); None when text has no
    chunk."""
    parts = _SPLIT(text)
    before = ""
    if not parts[0]:
        if len(parts) == 1:
            return None
        before = parts[1]
        del parts[:2]
    if len(parts) % 2:
        parts.append("")
    return before, parts


def _remembered(cache: dict[str, list[str]], key: str,
                compute: Callable[[str], list[str]]) -> list[str]:
    """compute(key), kept in cache; a cache of CACHE_SIZE entries is emptied first."""
    value = cache.get(key)
    if value is None:
        value = compute(key)
        if len(cache) >= CACHE_SIZE:
            cache.clear()
        cache[key] = value
    return value


class Segmenter:
    """text -> TokenizedSentence objects (see the module notes)."""

    def __init__(self, chunks: ChunkRules, words: MultiwordRules,
                 sentences: SentenceSplitter) -> None:
        self.chunks = chunks
        self.words = words
        self.splitter = sentences
        self._cache: dict[str, list[str]] = {}
        self._word_cache: dict[str, list[str]] = {}

    def chunk_tokens(self, chunk: str) -> list[str]:
        """Tokens of a whitespace-free chunk."""
        return _remembered(self._cache, chunk, self.chunks.split)

    def token_words(self, token: str) -> list[str]:
        """Words of a token."""
        return _remembered(self._word_cache, token, self.words.words)

    def sentences(self, text: str, new_paragraph: bool = True) -> Iterator[TokenizedSentence]:
        """The sentences of text; the first starts a paragraph when new_paragraph."""
        cut = _chunks_and_gaps(text)
        if cut is None:
            return
        before, parts = cut
        tokens: list[str] = []
        spaces: list[str] = []
        for i in range(0, len(parts), 2):
            gap = parts[i + 1]
            self._add_chunk(parts[i], gap, tokens, spaces)
            if "\n" in gap and gap.count("\n") >= 2 and i + 2 < len(parts):
                yield from self._paragraph(tokens, spaces, before, new_paragraph)
                tokens, spaces, before, new_paragraph = [], [], "", True
        if tokens:
            yield from self._paragraph(tokens, spaces, before, new_paragraph)

    def line_sentence(self, text: str, new_paragraph: bool) -> TokenizedSentence | None:
        """The one sentence of a line of text already split into sentences (its line break
        included): its tokens and words, never cut into sentences; None for a line without a
        token."""
        cut = _chunks_and_gaps(text)
        if cut is None:
            return None
        before, parts = cut
        tokens: list[str] = []
        spaces: list[str] = []
        for i in range(0, len(parts), 2):
            self._add_chunk(parts[i], parts[i + 1], tokens, spaces)
        if not tokens:
            return None
        return TokenizedSentence(tokens, spaces, [self.token_words(t) for t in tokens],
                                 new_paragraph, before)

    def _add_chunk(self, chunk: str, gap: str, tokens: list[str], spaces: list[str]) -> None:
        """The tokens of a whitespace-free chunk onto tokens, the gap after it onto spaces."""
        chunk_tokens = self._cache.get(chunk)
        if chunk_tokens is None:
            chunk_tokens = self.chunk_tokens(chunk)
        if len(chunk_tokens) == 1:
            tokens.append(chunk)
        else:
            tokens.extend(chunk_tokens)
            spaces.extend([""] * (len(chunk_tokens) - 1))
        spaces.append(gap)

    def tokens_sentence(self, tokens: list[str], new_paragraph: bool,
                        spaces: list[str] | None = None, before: str = "") -> TokenizedSentence:
        """One sentence of given tokens, a line of their own: the whitespace after each
        (default: single spaces, the line break after the last) and before the first."""
        if spaces is None:
            spaces = [" "] * len(tokens)
            spaces[-1] = "\n"
        return TokenizedSentence(tokens, spaces, [self.token_words(t) for t in tokens],
                                 new_paragraph, before)

    def _paragraph(self, tokens: list[str], spaces: list[str], before: str,
                   new_paragraph: bool) -> Iterator[TokenizedSentence]:
        word_cache = self._word_cache
        words = [word_cache.get(token) or self.token_words(token) for token in tokens]
        start = 0
        for end in self.splitter.ends(tokens, spaces):
            stop = end + 1
            yield TokenizedSentence(tokens[start:stop], spaces[start:stop], words[start:stop],
                                    new_paragraph and start == 0, before if start == 0 else "")
            start = stop
