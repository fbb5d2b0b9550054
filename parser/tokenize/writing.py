"""What `polyparse tokenize tokenize` does between opening its input and its output: CoNLL-U
blocks written as the input's paragraphs arrive (parser/formats/streaming.py)."""
from __future__ import annotations

from collections.abc import Callable
from typing import BinaryIO, TextIO

from parser.formats.conll import Sentence
from parser.formats.streaming import write_batches
from parser.tokenize.model import TokenizerModel
from parser.tokenize.reading import read_raw

__all__ = ["tokenize_stream"]

# Sentences written at once from a file (a pipe is cut sooner, when it has no more waiting).
WRITE_BATCH = 2000


def tokenize_stream(tokenizer: TokenizerModel, stream: BinaryIO,
                    more_ready: Callable[[], bool], out: TextIO, *, fmt: str = "raw",
                    encoding: str = "utf-8", name: str = "<stdin>",
                    progress: Callable[[int], object] | None = None) -> None:
    """Write the CoNLL-U blocks of every sentence of stream to out."""
    sentences = read_raw(None, fmt=fmt, encoding=encoding, stream=stream, name=name,
                         tokenizer=tokenizer)

    def write_batch(batch: list[Sentence], target: TextIO) -> None:
        target.write("".join("\n".join(sentence.lines) + "\n\n" for sentence in batch))

    def after_batch(batch: list[Sentence]) -> None:
        if progress is not None:
            progress(len(batch))

    write_batches(sentences, WRITE_BATCH, more_ready, out, write_batch, after_batch)
