"""The stage contract: what one step of a pipeline needs and provides.

Raw text becomes trees through declared stages, the same for every language (as stanza's
processors declare `requires` and `provides`): a reader turns an input stream into records
(sentences) with the layers its format holds, each stage adds layers to a batch of records,
and a writer writes them. A pipeline (pipeline.py) checks, once, that every stage finds the
layers it needs before it runs anything.

The layers:

- TEXT: characters, not yet cut (raw text; one sentence a line for presegmented text);
- TOKENS: sentences of tokens and their words (multiword tokens split into words);
- TAGS: each word's UPOS, XPOS, FEATS and lemma (whichever the model predicts);
- MORPHEMES: Japanese morphemes with their parts of speech (MeCab's, KNP's, CaboCha's);
- BUNSETSU: Japanese bunsetsu (chunks of morphemes);
- TREES: heads and labels (of words, or of bunsetsu).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, ClassVar, TextIO

TEXT = "text"
TOKENS = "tokens"
TAGS = "tags"
MORPHEMES = "morphemes"
BUNSETSU = "bunsetsu"
TREES = "trees"
LAYERS = (TEXT, TOKENS, TAGS, MORPHEMES, BUNSETSU, TREES)


class Stage:
    """One step: takes a batch of records that hold every layer of `requires` and gives them
    back (the same number, in order, unless the stage cuts records: a parser that finds
    sentence ends inside raw text's segments) holding the layers of `provides` too. `done`
    says what the stage did, for a command's closing log line (None: nothing to say)."""

    name: ClassVar[str] = "stage"
    requires: ClassVar[frozenset[str]] = frozenset()
    provides: ClassVar[frozenset[str]] = frozenset()

    def begin(self, source: str) -> None:
        """Told the name of the input before its records come (for messages)."""

    def __call__(self, batch: list[Any]) -> list[Any]:
        raise NotImplementedError

    def done(self) -> str | None:
        return None


class Watch(Stage):
    """A stage that only looks: tells a batch to `see` (a coverage count, say) and passes it
    on unchanged."""

    name = "watch"

    def __init__(self, see: Callable[[list[Any]], object]) -> None:
        self.see = see

    def __call__(self, batch: list[Any]) -> list[Any]:
        self.see(batch)
        return batch


class Reader:
    """The start of a pipeline: the records of an input stream (binary), read as they arrive,
    with the layers of `provides`; first_line numbers the stream's first line in messages (a
    shard of a file)."""

    name: ClassVar[str] = "reader"
    provides: ClassVar[frozenset[str]] = frozenset()

    def read(self, stream: BinaryIO, name: str, first_line: int = 1) -> Iterator[Any]:
        raise NotImplementedError


class Writer:
    """The end of a pipeline: writes a batch of records, needing the layers of `requires`."""

    requires: ClassVar[frozenset[str]] = frozenset()
    binary: ClassVar[bool] = False

    def write(self, batch: list[Any], out: TextIO) -> None:
        raise NotImplementedError


class MissingLayer(ValueError):
    """A stage placed where the layers it needs are not there yet."""
