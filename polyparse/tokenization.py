"""Sentences and tokens of plain text as conllu TokenLists (parser/tokenize)."""
from __future__ import annotations

import io
import os

import conllu

from polyparse.parser.tokenize.model import load_tokenizer
from polyparse.parser.tokenize.reading import read_raw
from polyparse.parser.tokenize.segmenter import TextTokenizer

__all__ = ["load_tokenizer", "tokenize"]

_LOADED: dict[str, TextTokenizer] = {}


def tokenize(text: str, model: str | os.PathLike | TextTokenizer | None = None,
             fmt: str = "raw") -> list[conllu.TokenList]:
    """The sentences of text (fmt "raw": paragraphs separated by blank lines; "tokens": one
    sentence a line, tokens separated by spaces) as TokenLists with `sent_id`, `text`,
    multiword tokens and SpaceAfter=No; model: a tokenizer model file (a segmenter learned from
    a treebank of any language) or a loaded one, or a pipeline file (its tokenizer; default:
    the bundled English pipeline's, loaded once)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    blocks = ["\n".join(sentence.lines) + "\n\n"
              for sentence in read_raw(stream=io.StringIO(text), fmt=fmt, name="<text>",
                                       tokenizer=loaded_tokenizer(model))]
    return conllu.parse("".join(blocks))


def loaded_tokenizer(model: str | os.PathLike | TextTokenizer | None = None) -> TextTokenizer:
    """A tokenizer model: the one given, or the file's (default: the bundled English one),
    loaded once per process."""
    if hasattr(model, "text_segmenter"):
        return model
    key = "" if model is None else os.fspath(model)
    if key not in _LOADED:
        _LOADED[key] = load_tokenizer(model)
    return _LOADED[key]
