"""The text of a UD treebank as the tokenizer learns from it and as the CoNLL 2018 shared task
gave it to systems.

A CoNLL-U file holds, for each sentence, its `# text`, its tokens (a multiword token `3-4` is one
token; other words are tokens of their own) with `SpaceAfter=No` in MISC, and its words. The
tokenizer learns from the tokens and the spaces between them; the evaluation from raw text
(``raw_text``) feeds it what `conllu_to_text.pl` of the UD tools made of the test file: the
`# text` lines of a paragraph joined by single spaces, a blank line before each `# newpar` or
`# newdoc`, lines wrapped at word boundaries after 80 characters.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from polyparse.parser.formats.conll import FORM, MISC, Sentence, read_conll, token_lines

__all__ = ["TreebankSentence", "raw_text", "treebank_sentences"]

# conllu_to_text.pl breaks lines at the last space before this many characters.
LINE_WIDTH = 80


@dataclass(slots=True)
class TreebankSentence:
    """One sentence: its text, tokens (forms), whether a space follows each token, the words
    of each token (one word, or the words of a multiword token) and its paragraph break."""

    text: str
    tokens: list[str] = field(default_factory=list)
    space_after: list[bool] = field(default_factory=list)
    words: list[list[str]] = field(default_factory=list)
    new_paragraph: bool = False


Treebank = str | os.PathLike | Iterable[Sentence]


def treebank_sentences(treebank: Treebank) -> Iterator[TreebankSentence]:
    """The sentences of a CoNLL-U file (a path, or its sentences already read) with their
    tokens (empty nodes left out)."""
    sentences = (read_conll(treebank, require_deprel=False)
                 if isinstance(treebank, (str, os.PathLike)) else treebank)
    for sentence in sentences:
        text = ""
        new_paragraph = False
        for line in sentence.lines:
            if line.startswith("# text ="):
                text = line[len("# text ="):].strip()
            elif line.startswith(("# newpar", "# newdoc")):
                new_paragraph = True
        result = TreebankSentence(text, new_paragraph=new_paragraph)
        for columns, words in token_lines(sentence.lines):
            result.tokens.append(columns[FORM])
            result.space_after.append("SpaceAfter=No" not in columns[MISC].split("|"))
            result.words.append(words)
        yield result


def raw_text(treebank: Treebank) -> str:
    """The raw text of a CoNLL-U file (a path, or its sentences already read) as
    conllu_to_text.pl writes it (see the module notes)."""
    lines: list[str] = []
    buffer = ""
    first = True
    for sentence in treebank_sentences(treebank):
        if sentence.new_paragraph and not first:
            if buffer:
                lines.append(buffer)
                buffer = ""
            lines.append("")
        first = False
        buffer = f"{buffer} {sentence.text}" if buffer else sentence.text
        while len(buffer) >= LINE_WIDTH:
            cut = buffer.rfind(" ", 0, LINE_WIDTH + 1)
            if cut <= 0:
                cut = buffer.find(" ", LINE_WIDTH)
                if cut < 0:
                    break
            lines.append(buffer[:cut])
            buffer = buffer[cut + 1:]
    if buffer:
        lines.append(buffer)
    return "\n".join(lines) + "\n"
