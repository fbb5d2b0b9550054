"""Raw text -> sentences of tokens and words, every character accounted for.

The text's characters (parser/segmentation/characters.py) become units (text_units.pyx); in each
region between hard breaks (paragraphs; lines, for text already split into sentences) the
token decisions and then the sentence decisions run greedily left to right
(boundary_decoder.pyx); each token is cut into its words (multiword.py). Whitespace before the
text's first token is the first sentence's `before`; every other run of whitespace follows a
token. A text without any character but whitespace has no sentences.

A long text is segmented in pieces cut after a paragraph break (PIECE_CHARS characters or
more each), which gives the same sentences as one piece: no decision looks across a paragraph
break.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np

from polyparse.parser.segmentation.boundary_decoder import (
    LinearWeights,
    decode_sentences,
    decode_tokens,
)
from polyparse.parser.segmentation.boundary_templates import TokenTable
from polyparse.parser.segmentation.characters import character_arrays
from polyparse.parser.segmentation.multiword import MultiwordSplitter
from polyparse.parser.segmentation.sentences import SegmentedSentence, form_of
from polyparse.parser.segmentation.text_units import KINDS, TextUnits
from polyparse.parser.tokenize.segmenter import TokenizedSentence

__all__ = ["PIECE_CHARS", "Segmenter"]

PIECE_CHARS = 1 << 20
_GAP_RUN = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")
# Where a paragraph break starts: two line feeds with only whitespace between, or U+2029.
_PARAGRAPH_BREAK = re.compile(r"\n(?:(?!\n)[\s\x00-\x1f\x7f-\x9f])*\n|\u2029")
_PARAGRAPH = KINDS["paragraph"]


class Segmenter:
    """The three classifiers (inner, gap: None when every gap separates tokens, sentence) and
    the multiword splitter of a model."""

    def __init__(self, inner: LinearWeights, gap: LinearWeights | None,
                 sentence: LinearWeights, splitter: MultiwordSplitter) -> None:
        self.inner = inner
        self.gap = gap
        self.sentence = sentence
        self.splitter = splitter

    def sentences(self, text: str, new_paragraph: bool = True) -> list[TokenizedSentence]:
        """The sentences of text as raw-text reading writes them (parser/tokenize/reading.py):
        each token as its FORM (whitespace inside it one space); the first starts a paragraph
        when new_paragraph."""
        found = [sentence.tokenized() for sentence in self.segment(text)]
        if found and not new_paragraph:
            found[0].new_paragraph = False
        return found

    def tokens_sentence(self, tokens: list[str], new_paragraph: bool,
                        spaces: list[str] | None = None, before: str = "") -> TokenizedSentence:
        """One sentence of given tokens, each cut into its words by the model's multiword
        splitter: the whitespace after each (default: single spaces, the line break after the
        last) and before the first."""
        if spaces is None:
            spaces = [" "] * len(tokens)
            spaces[-1] = "\n"
        return TokenizedSentence(list(tokens), spaces, self._words(list(tokens)), new_paragraph,
                                 before)

    def line_sentence(self, text: str, new_paragraph: bool) -> TokenizedSentence | None:
        """The one sentence of a line of text already split into sentences (its line break
        included), as sentences() writes it; None for a line without a token."""
        found = [sentence.tokenized() for sentence in self.segment(text, presegmented=True)]
        if not found:
            return None
        sentence = found[0]
        for more in found[1:]:
            sentence.tokens += more.tokens
            sentence.spaces += more.spaces
            sentence.words += more.words
        sentence.new_paragraph = new_paragraph
        return sentence

    def segment(self, text: str, presegmented: bool = False) -> list[SegmentedSentence]:
        """The sentences of text; presegmented: each line is one sentence (a blank line starts
        a paragraph)."""
        found: list[SegmentedSentence] = []
        for start, end in _pieces(text):
            found += self._piece(text[start:end], presegmented, leading=start == 0)
        return found

    def _piece(self, text: str, presegmented: bool, leading: bool) -> list[SegmentedSentence]:
        if not text:
            return []
        units = TextUnits(*character_arrays(text), presegmented)
        regions = units.regions()
        if not len(regions):
            return []
        first, last, offsets = decode_tokens(units, regions, self.inner, self.gap)
        if presegmented:
            ends = np.zeros(first.size, dtype=np.uint8)
            ends[offsets[1:] - 1] = 1
        else:
            ends = decode_sentences(units, TokenTable(units, first, last), offsets,
                                    self.sentence)
        region_starts = regions[:, 0]
        new_paragraph = np.ones(len(regions), dtype=bool)
        new_paragraph[1:] = units.kind[region_starts[1:] - 1] == _PARAGRAPH
        paragraph_tokens = set(offsets[:-1][new_paragraph].tolist())
        token_starts = units.start[first]
        token_ends = units.start[last + 1]
        # Tokens holding a gap are longer in characters than in units.
        spanning = set(np.flatnonzero(token_ends - token_starts != last - first + 1).tolist())
        token_starts = token_starts.tolist()
        token_ends = token_ends.tolist()
        following = token_starts[1:] + [len(text)]
        tokens = [text[a:b] for a, b in zip(token_starts, token_ends)]
        spaces = [text[b:c] for b, c in zip(token_ends, following)]
        forms = tokens
        if spanning:
            forms = [form_of(token) if k in spanning else token for k, token in enumerate(tokens)]
        sentences = []
        start = 0
        for end in np.flatnonzero(ends).tolist():
            stop = end + 1
            sentences.append(SegmentedSentence(tokens[start:stop], spaces[start:stop],
                                               self._words(forms[start:stop]),
                                               start in paragraph_tokens))
            start = stop
        if leading:
            sentences[0].before = text[:token_starts[0]]
        return sentences

    def _words(self, forms: list[str]) -> list[list[str]]:
        """The words of a sentence's tokens (of their forms, for tokens that hold a gap)."""
        if self.splitter.empty:
            return [[form] for form in forms]
        return self.splitter.sentence_words(forms)


def _pieces(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of the pieces of text: cut after the gap of the first paragraph break at
    least PIECE_CHARS characters into a piece."""
    start = 0
    while len(text) - start > PIECE_CHARS:
        found = _PARAGRAPH_BREAK.search(text, start + PIECE_CHARS)
        if found is None:
            break
        gap = _GAP_RUN.match(text, found.start())
        assert gap is not None
        end = gap.end()
        if end >= len(text):
            break
        yield start, end
        start = end
    yield start, len(text)
