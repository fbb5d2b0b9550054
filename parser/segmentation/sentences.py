"""What the segmenter gives: sentences of tokens with the exact whitespace around them and the
words of each token.

A token keeps its exact characters, whitespace inside it included (a model learned from a
treebank whose tokens hold spaces may join `Hà` and `Nội` across a line break); its `form`, what
CoNLL-U's FORM holds, reads each run of whitespace inside it as one space. Joining every
sentence's `before`, tokens and `spaces` gives back the text (detokenize).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from polyparse.parser.tokenize.segmenter import TokenizedSentence, detokenize

__all__ = ["SegmentedSentence", "detokenize", "form_of"]

_INNER_GAPS = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")


def form_of(token: str) -> str:
    """A token's FORM: each run of whitespace and control characters inside it one space."""
    return _INNER_GAPS.sub(" ", token)


@dataclass(slots=True)
class SegmentedSentence(TokenizedSentence):
    """A TokenizedSentence whose tokens keep their exact characters (whitespace inside them
    too; only the first sentence of a text has whitespace before it)."""

    @property
    def forms(self) -> list[str]:
        """The tokens as CoNLL-U's FORM holds them (form_of)."""
        return [form_of(token) if _INNER_GAPS.search(token) else token
                for token in self.tokens]

    def tokenized(self) -> TokenizedSentence:
        """This sentence as parser/tokenize/conllu_blocks.py writes CoNLL-U blocks (forms in
        place of tokens)."""
        forms = self.forms
        words = [[form_of(word) for word in words] if form is not token else words
                 for form, token, words in zip(forms, self.tokens, self.words)]
        return TokenizedSentence(forms, list(self.spaces), words, self.new_paragraph,
                                 self.before)

    @property
    def text(self) -> str:
        """The sentence's text on one line (CoNLL-U's `# text`)."""
        return self.tokenized().text
