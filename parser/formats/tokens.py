"""Sentences from the Python objects users hold, and parsed sentences back into them.

Three inputs are taken: CoNLL-U text (a ``str``), ``conllu.TokenList`` objects (the ``conllu``
package's sentences), and tagged word sequences, one per sentence, whose items are a form or a
tuple ``(form, upos)`` / ``(form, upos, xpos)``. Each becomes CoNLL-U text read by
``read_conll``, so every input is checked by the same rules as a file, with the same one-line
messages; a TokenList keeps its comments, multiword tokens and empty nodes. Parsed sentences go
back as CoNLL-U text (``write_conll``) or as new TokenLists with HEAD and DEPREL filled in.
"""
from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from typing import Any

import conllu

from polyparse.parser.formats.conll import ConllFormatError, Sentence, read_conll, write_conll

# The ten fields of a CoNLL-U word line, in order.
CONLLU_FIELDS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps",
                 "misc")
# A word of a tagged sentence: a form, (form, upos) or (form, upos, xpos).
TaggedWord = str | tuple[str, ...]


def sentences_from_text(text: str, name: str = "<text>", **checks: bool) -> list[Sentence]:
    """The sentences of CoNLL-U text; checks are read_conll's (require_tree, single_root,
    require_deprel)."""
    return list(read_conll(None, stream=io.StringIO(text), name=name, **checks))


def sentences_from_tokenlists(tokenlists: Iterable[conllu.TokenList],
                              **checks: bool) -> list[Sentence]:
    """Sentences of conllu TokenLists (comments, multiword tokens and empty nodes kept; a
    TokenList read with fewer fields, `conllu.parse(text, fields=...)`, has the others "_");
    checks as in sentences_from_text."""
    blocks = []
    for number, tokens in enumerate(tokenlists, 1):
        if not isinstance(tokens, conllu.TokenList):
            raise TypeError(f"sentence {number} is a {type(tokens).__name__}, not a "
                            "conllu.TokenList")
        if any(tuple(token) != CONLLU_FIELDS for token in tokens):
            tokens = conllu.TokenList([{field: token.get(field) for field in CONLLU_FIELDS}
                                       for token in tokens], metadata=tokens.metadata)
        blocks.append(tokens.serialize())
    return sentences_from_text("".join(blocks), "<TokenList>", **checks)


def sentences_from_tagged(sentences: Iterable[Sequence[TaggedWord]]) -> list[Sentence]:
    """Sentences of tagged words: each word a form, (form, upos) or (form, upos, xpos);
    a missing tag is "_"."""
    lines = []
    for number, words in enumerate(sentences, 1):
        if isinstance(words, str):
            raise TypeError(f"sentence {number} is a str; give a sequence of words, e.g. "
                            "[('The', 'DET', 'DT'), ('dog', 'NOUN', 'NN')]")
        if isinstance(words, tuple) and 2 <= len(words) <= 3 \
                and all(isinstance(word, str) for word in words):
            # A list of tagged words given as the sentences: [('The', 'DET'), ...] would parse
            # each (form, tag) pair as a sentence of two untagged words.
            raise TypeError(f"sentence {number} is the tuple {words!r}, which reads as one "
                            "tagged word; give a list of sentences, each a list of words: "
                            "[[('The', 'DET'), ('dog', 'NOUN')]]")
        if len(words) == 0:
            raise ValueError(f"sentence {number} has no words")
        for position, word in enumerate(words, 1):
            columns = _tagged_columns(word, number, position)
            lines.append("\t".join([str(position), columns[0], "_", columns[1], columns[2],
                                    "_", "_", "_", "_", "_"]))
        lines.append("")
    return sentences_from_text("\n".join(lines) + "\n", "<tagged words>")


def _tagged_columns(word: Any, number: int, position: int) -> list[str]:
    parts = [word] if isinstance(word, str) else list(word) if isinstance(word, tuple) else None
    if parts is None or not 1 <= len(parts) <= 3 or not all(isinstance(p, str) for p in parts):
        raise TypeError(f"sentence {number}, word {position}: {word!r} is not a form or a "
                        "tuple (form, upos[, xpos]) of strings")
    parts += ["_"] * (3 - len(parts))
    for part, what in zip(parts, ("form", "upos", "xpos")):
        if part == "" or any(c in part for c in "\t\n\r"):
            raise ValueError(f"sentence {number}, word {position}: the {what} {part!r} is empty "
                             "or holds a tab or a line break")
    return parts


def to_text(sentences: Sequence[Sentence],
            trees: Sequence[tuple[Sequence[int], Sequence[str]]]) -> str:
    """CoNLL-U text of the sentences with the given heads and labels."""
    out = io.StringIO()
    for sentence, (heads, deprels) in zip(sentences, trees):
        write_conll(sentence, heads, deprels, out)
    return out.getvalue()


def to_tokenlists(sentences: Sequence[Sentence],
                  trees: Sequence[tuple[Sequence[int], Sequence[str]]]) -> list[conllu.TokenList]:
    """New TokenLists of the sentences with the given heads and labels."""
    return conllu.parse(to_text(sentences, trees))


__all__ = ["ConllFormatError", "TaggedWord", "sentences_from_tagged", "sentences_from_text",
           "sentences_from_tokenlists", "to_text", "to_tokenlists"]
