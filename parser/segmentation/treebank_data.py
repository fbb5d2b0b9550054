"""A treebank as the segmenter learns from it: one text with the treebank's tokens, sentences and
words marked in it.

The text is made from the tokens as a CoNLL-U file records them (parser/tokenize/
treebank_text.py: a multiword token is one token), so that it holds exactly the tokens'
characters. Within a sentence, the whitespace between two tokens is the sentence's `# text`'s
where the tokens spell that text (whitespace aside), else a space unless SpaceAfter=No (a file
without `# text` lines); sentences are joined by a space, or by nothing when most sentences
followed by another of their paragraph end with SpaceAfter=No (treebanks of languages written
without spaces, whose raw text conllu_to_text.pl writes without them); paragraphs (`# newpar`,
`# newdoc`) are separated by a blank line. Tokens may hold spaces (Vietnamese `Hà Nội`).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from polyparse.parser.tokenize.treebank_text import Treebank, TreebankSentence, treebank_sentences

__all__ = ["TreebankText", "treebank_text"]

PARAGRAPH_BREAK = "\n\n"


@dataclass(slots=True)
class TreebankText:
    """The text, each token's character span (start, end), whether each token ends a sentence,
    each token's form and words, and how sentences were joined."""

    text: str
    starts: np.ndarray
    ends: np.ndarray
    sentence_ends: np.ndarray
    tokens: list[str]
    words: list[list[str]]
    sentence_gap: str

    def sentences(self) -> list[list[tuple[str, list[str]]]]:
        """The (token, words) pairs of each sentence."""
        found: list[list[tuple[str, list[str]]]] = [[]]
        for token, words, end in zip(self.tokens, self.words, self.sentence_ends.tolist()):
            found[-1].append((token, words))
            if end:
                found.append([])
        return found[:-1]

    @property
    def has_spaces_in_tokens(self) -> bool:
        """Whether some token holds whitespace."""
        return any(any(char.isspace() for char in token) for token in self.tokens)


def treebank_text(treebank: Treebank | Iterable[TreebankSentence]) -> TreebankText:
    """The TreebankText of a CoNLL-U file (a path, its sentences read by parser/formats/conll.py,
    or TreebankSentence objects); sentences without tokens are left out."""
    if isinstance(treebank, Sequence) and treebank and isinstance(treebank[0],
                                                                   TreebankSentence):
        sentences = [s for s in treebank if s.tokens]  # type: ignore[union-attr]
    else:
        sentences = [s for s in treebank_sentences(treebank) if s.tokens]  # type: ignore[arg-type]
    # Sentences followed by another of their paragraph, and those of them without a space.
    followed = [sentence for sentence, after in zip(sentences, sentences[1:])
                if not after.new_paragraph]
    closed = sum(1 for sentence in followed if not sentence.space_after[-1])
    sentence_gap = "" if 2 * closed > len(followed) else " "
    parts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    sentence_ends: list[int] = []
    tokens: list[str] = []
    words: list[list[str]] = []
    position = 0
    for k, sentence in enumerate(sentences):
        if k:
            gap = PARAGRAPH_BREAK if sentence.new_paragraph else sentence_gap
            parts.append(gap)
            position += len(gap)
        last = len(sentence.tokens) - 1
        for i, (token, space) in enumerate(zip(sentence.tokens, _spaces(sentence))):
            parts.append(token)
            starts.append(position)
            position += len(token)
            ends.append(position)
            sentence_ends.append(int(i == last))
            if i < last:
                parts.append(space)
                position += len(space)
        tokens += sentence.tokens
        words += sentence.words
    return TreebankText("".join(parts), np.asarray(starts, dtype=np.int64),
                        np.asarray(ends, dtype=np.int64),
                        np.asarray(sentence_ends, dtype=np.uint8), tokens, words, sentence_gap)


def _spaces(sentence: TreebankSentence) -> list[str]:
    """The whitespace after each token: the `# text`'s when the tokens spell it, else a space
    unless SpaceAfter=No."""
    text = sentence.text
    found = []
    position = len(text) - len(text.lstrip())
    for token in sentence.tokens:
        if not text.startswith(token, position):
            return [" " if space else "" for space in sentence.space_after]
        position += len(token)
        after = position
        while position < len(text) and text[position].isspace():
            position += 1
        found.append(text[after:position])
    if position < len(text):
        return [" " if space else "" for space in sentence.space_after]
    return found
