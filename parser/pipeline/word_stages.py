"""The stages, readers and writers of word-level pipelines (CoNLL-U / CoNLL-X, any UD
language): text -> tokens (the tokenizer), tokens -> tags (the tagger), tags -> trees (a
dependency parser), and the CoNLL readers and writers around them."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from polyparse.parser.formats.conll import Sentence, read_conll, write_conll
from polyparse.parser.pipeline.pipeline import Pipeline
from polyparse.parser.pipeline.stage import TAGS, TOKENS, TREES, Reader, Stage, Watch, Writer

if TYPE_CHECKING:
    # Annotations only: a parse of tagged CoNLL-U imports no tagger, no tokenizer.
    from polyparse.parser.dependency.dependency_model import DependencyModel
    from polyparse.parser.tagging.tagger import Tagger
    from polyparse.parser.tokenize.segmenter import TextTokenizer


class ConllReader(Reader):
    """Sentences of a CoNLL-U (or CoNLL-X) stream: tokens and words, and the tags (and trees)
    the file holds."""

    name = "CoNLL reader"
    provides = frozenset({TOKENS, TAGS})

    def __init__(self, fmt: str = "conllu", encoding: str = "utf-8") -> None:
        self.fmt = fmt
        self.encoding = encoding

    def read(self, stream: BinaryIO, name: str, first_line: int = 1) -> Iterator[Sentence]:
        return read_conll(None, fmt=self.fmt, encoding=self.encoding, stream=stream, name=name,
                          allow_empty=True, first_line=first_line)


class TextReader(Reader):
    """Sentences of text, cut into sentences, tokens and words by a tokenizer (fmt "raw":
    paragraphs separated by blank lines; "tokens": one sentence a line, tokens separated by
    spaces), as CoNLL-U sentences without tags."""

    name = "tokenizer"
    provides = frozenset({TOKENS})

    def __init__(self, tokenizer: TextTokenizer, fmt: str = "raw",
                 encoding: str = "utf-8") -> None:
        self.tokenizer = tokenizer
        self.fmt = fmt
        self.encoding = encoding

    def read(self, stream: BinaryIO | TextIO, name: str, first_line: int = 1
             ) -> Iterator[Sentence]:
        from polyparse.parser.tokenize.reading import read_raw

        return read_raw(None, fmt=self.fmt, encoding=self.encoding, stream=stream, name=name,
                        tokenizer=self.tokenizer)


class FillMissingTags(Stage):
    """Tags the sentences that have a word without UPOS ("_"), or without XPOS when the parser
    reads XPOS and the tagger predicts it, filling in the columns they lack
    (parser/tagging/conll_files.py's tag_missing); the tagger is loaded when a batch first
    needs it (never, for tagged input)."""

    name = "tagger"
    requires = frozenset({TOKENS})
    provides = frozenset({TAGS})

    def __init__(self, load: Callable[[], Tagger], tagger_name: str,
                 read_xpos: bool = False) -> None:
        self.load = load
        self.tagger: Tagger | None = None
        self.tagger_name = tagger_name
        self.columns: tuple[str, ...] = ("upos", "xpos") if read_xpos else ("upos",)
        self.tagged = 0

    def __call__(self, batch: list[Sentence]) -> list[Sentence]:
        from polyparse.parser.tagging.conll_files import lacks_tags, tag_missing

        lacking = sum(1 for sentence in batch if lacks_tags(sentence, self.columns))
        if lacking and self.tagger is None:
            self.tagger = self.load()
            if "XPOS" not in self.tagger.columns and "xpos" in self.columns:
                self.columns = ("upos",)
                lacking = sum(1 for sentence in batch if lacks_tags(sentence, self.columns))
        if not lacking:
            return batch
        self.tagged += lacking
        return tag_missing(self.tagger, batch, self.columns)

    def done(self) -> str | None:
        tagged = self.tagged
        if not tagged:
            return None
        plural = "" if tagged == 1 else "s"
        missing = " or ".join(column.upper() for column in self.columns)
        return f"tagged {tagged} sentence{plural} without {missing} with {self.tagger_name}"


class TagEvery(Stage):
    """Tags every sentence, writing the columns the tagger predicts and blanking those it
    does not (`tag tag`)."""

    name = "tagger"
    requires = frozenset({TOKENS})
    provides = frozenset({TAGS})

    def __init__(self, tagger: Tagger) -> None:
        self.tagger = tagger

    def __call__(self, batch: list[Sentence]) -> list[Sentence]:
        from polyparse.parser.tagging.conll_files import with_tags

        return [with_tags(sentence, columns)
                for sentence, columns in zip(batch, self.tagger.tag(batch))]


class ParseTrees(Stage):
    """Gives each sentence the heads and labels of a dependency parser (either kind).

    sentence_ends (raw text, whose sentences a segmenter guessed): a parser that learned from
    runs of sentences (parser/dependency/sentence_runs.py) may find sentence ends inside a
    segment; the segment is then written as several sentences, numbered on from the first
    segment's `# sent_id`, so that this stage may give back more sentences than it was given."""

    name = "parser"
    requires = frozenset({TOKENS, TAGS})
    provides = frozenset({TREES})

    def __init__(self, model: DependencyModel, sentence_ends: bool = False) -> None:
        self.model = model
        self.sentence_ends = sentence_ends and model.finds_sentence_ends
        self.next_id: int | None = None
        self.segments = self.cut = 0

    def begin(self, source: str) -> None:
        self.next_id = None

    def __call__(self, batch: list[Sentence]) -> list[Sentence]:
        trees = self.model.parse(batch, sentence_ends=self.sentence_ends)
        parsed = [replace(sentence, head=list(heads), deprel=list(deprels))
                  for sentence, (heads, deprels) in zip(batch, trees)]
        return self._cut(parsed) if self.sentence_ends else parsed

    def _cut(self, batch: list[Sentence]) -> list[Sentence]:
        """Each segment cut at the sentence ends its tree shows (sentence_runs.sentence_starts);
        a piece left with several roots is parsed again as one sentence."""
        from polyparse.parser.dependency.sentence_runs import sentence_starts
        from polyparse.parser.tokenize.block_cuts import cut_block, sent_id, token_starts

        if self.next_id is None and batch:
            first = sent_id(batch[0]) or ""
            self.next_id = int(first) if first.isdigit() else 1
        out: list[Sentence] = []
        for sentence in batch:
            starts = sentence_starts(sentence.head, token_starts(sentence))
            assert self.next_id is not None
            ids = [str(self.next_id + k) for k in range(len(starts))]
            self.next_id += len(starts)
            if len(starts) > 1:
                self.segments += 1
                self.cut += len(starts)
            out += cut_block(sentence, starts, ids)
        several = [i for i, sentence in enumerate(out) if sentence.head.count(0) > 1]
        if several:
            again = self.model.parse([out[i] for i in several])
            for i, (heads, deprels) in zip(several, again):
                out[i] = replace(out[i], head=list(heads), deprel=list(deprels))
        return out

    def done(self) -> str | None:
        if not self.segments:
            return None
        plural = "" if self.segments == 1 else "s"
        return (f"the parser found sentence ends in {self.segments} segment{plural}, cut into "
                f"{self.cut} sentences")


class SentenceWriter(Writer):
    """Each sentence's lines as they stand and the blank line after it (tokens and tags)."""

    requires = frozenset({TOKENS})

    def write(self, batch: list[Sentence], out: TextIO) -> None:
        out.write("".join("\n".join(sentence.lines) + "\n\n" for sentence in batch))


class TreeWriter(Writer):
    """Each sentence with its new HEAD and DEPREL (parser/formats/conll.py's write_conll:
    keep_deps keeps the input's DEPS, and CoNLL-U's empty nodes with it)."""

    requires = frozenset({TOKENS, TREES})

    def __init__(self, fmt: str = "conllu", keep_deps: bool = False) -> None:
        self.fmt = fmt
        self.keep_deps = keep_deps

    def write(self, batch: list[Sentence], out: TextIO) -> None:
        for sentence in batch:
            write_conll(sentence, sentence.head, sentence.deprel, out, keep_deps=self.keep_deps,
                        fmt=self.fmt)


def parse_pipeline(model: DependencyModel, reader: Reader | None = None,
                   writer: Writer | None = None,
                   tagger: tuple[Callable[[], Tagger], str] | None = None,
                   coverage: Any = None, sentence_ends: bool = False) -> Pipeline:
    """The stages of a dependency parse between reader and writer (None: sentences are given
    and returned): tagger (how to load it, its name), when given, tags the words without UPOS;
    coverage (a TagCoverage), when given, counts the tags the parser is given; model parses
    (sentence_ends: the sentences are raw text's segments, which the parser may cut further)."""
    stages: list[Stage] = []
    if tagger is not None:
        stages.append(FillMissingTags(*tagger, read_xpos="xpos" in model.columns_read()))
    if coverage is not None:
        stages.append(Watch(coverage.add))
    stages.append(ParseTrees(model, sentence_ends))
    return Pipeline(reader, stages, writer, frozenset({TOKENS, TAGS}))
