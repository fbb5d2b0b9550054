"""The dependency parser over CoNLL-U / CoNLL-X streams: what `polyparse dep parse` does between
opening its input and its output (parser/formats/streaming.py: batches as the input arrives,
each written at once)."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import BinaryIO, TextIO

from parser.dependency.dependency_parser import DependencyParser
from parser.formats.conll import Sentence, read_conll, write_conll
from parser.formats.streaming import write_batches
from parser.formats.tag_coverage import TagCoverage

# Sentences parsed at once from a file (a pipe is cut sooner, when it has no more waiting).
PARSE_BATCH = 2000


def parse_conll_stream(parser: DependencyParser, stream: BinaryIO,
                       more_ready: Callable[[], bool], out: TextIO, *, fmt: str = "conllu",
                       encoding: str = "utf-8", name: str = "<stdin>", keep_deps: bool = False,
                       coverage: TagCoverage | None = None,
                       progress: Callable[[int], object] | None = None,
                       read_text: Callable[[BinaryIO, str], Iterable[Sentence]] | None = None,
                       first_line: int = 1,
                       prepare: Callable[[list[Sentence]], list[Sentence]] | None = None
                       ) -> None:
    """Parse every sentence of stream and write it to out with its new HEAD and DEPREL
    (parser/formats/conll.py's write_conll; keep_deps keeps the old DEPS column); coverage
    counts the tags of the input, progress(n) is told of each batch of n sentences; first_line
    numbers the stream's first line in messages (a shard of a file: parser/scale_out);
    read_text(stream, name), when given, reads the sentences instead of fmt (text tokenized by
    parser/tokenize/reading.py's read_raw), which are written as CoNLL-U; prepare turns each
    batch into the sentences parsed and written (the tagger filling in missing tags,
    parser/tagging/conll_files.py's MissingTagFiller)."""
    sentences: Iterable[Sentence]
    if read_text is not None:
        sentences = read_text(stream, name)
        fmt = "conllu"
    else:
        sentences = read_conll(None, fmt=fmt, encoding=encoding, stream=stream, name=name,
                               allow_empty=True, first_line=first_line)

    def write_batch(batch: list[Sentence], target: TextIO) -> None:
        if prepare is not None:
            batch[:] = prepare(batch)
        for sentence, (heads, deprels) in zip(batch, parser.parse(batch)):
            write_conll(sentence, heads, deprels, target, keep_deps=keep_deps, fmt=fmt)

    def after_batch(batch: list[Sentence]) -> None:
        if coverage is not None:
            coverage.add(batch)
        if progress is not None:
            progress(len(batch))

    write_batches(sentences, PARSE_BATCH, more_ready, out, write_batch, after_batch)
