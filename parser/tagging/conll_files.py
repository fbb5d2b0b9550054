"""The tagger over CoNLL-U / CoNLL-X sentences and streams: tags written into the UPOS, XPOS,
LEMMA and FEATS columns of the words' lines (FEATS blanked, "_", by a tagger that predicts no
features: the input's would be scored as its own), every other byte of a sentence kept as it
came in."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, BinaryIO, TextIO

from polyparse.parser.formats.conll import FEATS, LEMMA, UPOS, XPOS, Sentence, read_conll
from polyparse.parser.formats.streaming import write_batches

if TYPE_CHECKING:
    # Only for annotations: `dep parse` of tagged input imports no tagger (nor NumPy through it).
    from polyparse.parser.tagging.tagger import TaggedColumns, Tagger

MISSING = "_"

# Sentences tagged at once from a file (a pipe is cut sooner, when it has no more waiting).
TAG_BATCH = 2000


def with_tags(sentence: Sentence, tags: TaggedColumns, only_missing: bool = False,
              keep_feats: bool = False) -> Sentence:
    """A copy of sentence whose words carry the tags (UPOS, XPOS, LEMMA and, when the tagger
    predicts them, FEATS columns and fields); keep_feats: the sentence's FEATS are kept, else a
    tagger without features leaves them "_"; only_missing: a column that already holds a value
    ("_" is none) keeps it, FEATS included."""
    lines = list(sentence.lines)
    upos, xpos, lemma = list(sentence.upos), list(sentence.xpos), list(sentence.lemma)
    feats = list(sentence.feats) if sentence.feats else [MISSING] * len(sentence)
    blank_feats = tags.feats is None and not (keep_feats or only_missing)
    new_columns = [(UPOS, upos, tags.upos), (XPOS, xpos, tags.xpos), (LEMMA, lemma, tags.lemma)]
    if tags.feats is not None and not keep_feats:
        new_columns.append((FEATS, feats, tags.feats))
    for i, index in enumerate(sentence.word_lines):
        columns = lines[index].split("\t")
        for column, values, new in new_columns:
            if not only_missing or values[i] == MISSING:
                values[i] = columns[column] = new[i]
        if blank_feats:
            feats[i] = columns[FEATS] = MISSING
        lines[index] = "\t".join(columns)
    return Sentence(lines, sentence.word_lines, sentence.form, lemma, upos, xpos,
                    sentence.head, sentence.deprel, sentence.start_line, feats)


def lacks_tags(sentence: Sentence, columns: Sequence[str] = ("upos",)) -> bool:
    """Whether a word of the sentence has no tag ("_") in one of the columns ("upos",
    "xpos")."""
    return any(MISSING in getattr(sentence, column) for column in columns)


def tag_missing(tagger: Tagger, sentences: Sequence[Sentence],
                columns: Sequence[str] = ("upos",)) -> list[Sentence]:
    """The sentences, those with a word without a tag in one of the columns tagged
    (lacks_tags): their words' missing UPOS, XPOS, lemmas and features filled in, the columns
    they hold kept; the others as they are. This is what `dep parse` does to untagged input
    (columns: those its parser reads), and what a tokenizer's sentences go through."""
    untagged = [i for i, sentence in enumerate(sentences) if lacks_tags(sentence, columns)]
    out = list(sentences)
    if untagged:
        tags = tagger.tag([sentences[i] for i in untagged])
        for i, columns in zip(untagged, tags):
            out[i] = with_tags(sentences[i], columns, only_missing=True)
    return out


def write_sentence(sentence: Sentence, out: TextIO) -> None:
    """The sentence's lines and the blank line after it."""
    out.write("\n".join(sentence.lines))
    out.write("\n\n")


def tag_conll_stream(tagger: Tagger, stream: BinaryIO, more_ready: Callable[[], bool],
                     out: TextIO, *, fmt: str = "conllu", encoding: str = "utf-8",
                     name: str = "<stdin>",
                     progress: Callable[[int], object] | None = None) -> None:
    """Tag every sentence of stream and write it to out with its new UPOS, XPOS, LEMMA and
    FEATS columns (with_tags); progress(n) is told of each batch of n sentences."""
    sentences = read_conll(None, fmt=fmt, encoding=encoding, stream=stream, name=name,
                           allow_empty=True)

    def write_batch(batch: list[Sentence], target: TextIO) -> None:
        for sentence, columns in zip(batch, tagger.tag(batch)):
            write_sentence(with_tags(sentence, columns), target)

    def after_batch(batch: list[Sentence]) -> None:
        if progress is not None:
            progress(len(batch))

    write_batches(sentences, TAG_BATCH, more_ready, out, write_batch, after_batch)


