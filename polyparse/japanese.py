"""The Japanese bunsetsu parser as a Python user meets it: train, load, parse KNP or CaboCha
text, evaluate.

`JapaneseParser` wraps parser/bunsetsu/'s BunsetsuParser; text and files are read and written by
parser/formats/ and parser/bunsetsu/bunsetsu_files.py, as `polyparse ja` reads and writes them,
so bad input raises the same one-line InputError, and a parse changes nothing but the bunsetsu
heads (and adds bunsetsu lines to sentences that had none).
"""
from __future__ import annotations

import io
import os
import warnings
from collections.abc import Iterable
from pathlib import Path as FilePath
from typing import Any

from polyparse.features.errors import InputWarning
from polyparse.parser.bunsetsu.bunsetsu_files import (
    file_scores,
    parsed_scores,
    training_sentences,
)
from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
from polyparse.parser.bunsetsu.config import (
    TRAINING_THREADS,
    BunsetsuConfig,
    chunker_options,
    classifier_options,
)
from polyparse.parser.formats.bunsetsu import (
    BUNSETSU_FORMATS,
    INPUT_FORMATS,
    OUTPUT_FORMAT,
    read_bunsetsu,
)
from polyparse.parser.formats.bunsetsu_sentence import BunsetsuSentence
from polyparse.parser.formats.knp_documents import document_paths
from polyparse.parser.pipeline.bunsetsu_service import OpenedJapaneseParser, japanese_model_file

Path = str | os.PathLike


class JapaneseParser(OpenedJapaneseParser):
    """A trained bunsetsu dependency parser (and chunker), opened by the library as `ja parse`
    opens it (parser/pipeline/bunsetsu_service.py); pickles as its model file's bytes, so
    process pools and Dask workers get the same parser."""

    def __init__(self, model: BunsetsuParser, model_name: str = "the model") -> None:
        if not isinstance(model, BunsetsuParser):
            raise TypeError(f"model must be a BunsetsuParser, not {type(model).__name__}")
        super().__init__(model, model_name)

    def parse(self, text: str, format: str | None = "knp", rechunk: bool = False,
              output_format: str | None = None) -> str:
        """KNP or CaboCha text with every bunsetsu head decided; sentences without bunsetsu
        lines (morphemes only) are chunked first, all of them with rechunk. format "mecab"
        reads MeCab's output and "raw" plain text, one sentence a line (segmented by MeCab
        with the dictionary of the model's tags; UniDic: the polyparse[mecab] extra); the
        output is CaboCha for them, or output_format; format None: KNP or CaboCha, as the
        text's first lines show."""
        if format is not None and format not in INPUT_FORMATS:
            raise ValueError(f"format must be one of {', '.join(INPUT_FORMATS)} or None, not "
                             f"{format!r}")
        if output_format is not None and output_format not in BUNSETSU_FORMATS:
            raise ValueError(f"output_format must be one of {', '.join(BUNSETSU_FORMATS)}, "
                             f"not {output_format!r}")
        sentences = list(self.reader(format, errors="strict").read(io.StringIO(text), "<text>")
                         if format is not None else
                         read_bunsetsu(io.StringIO(text), None, validate=False, name="<text>",
                                       allow_empty=True))
        check_tagset(self.model, sentences)
        written = output_format or OUTPUT_FORMAT[format or _read_as(sentences)]
        return self.parsed_text(sentences, written, rechunk)

    def parse_sentences(self, sentences: Iterable[BunsetsuSentence],
                        rechunk: bool = False) -> list[tuple[list[int], list[int]]]:
        """(chunk_starts, heads) of each sentence read by parser.formats."""
        return self.model.parse(list(sentences), chunk=True if rechunk else None)

    def save(self, path: Path) -> None:
        """Write the model file (its arrays compressed)."""
        self.model.save(os.fspath(path))


def _read_as(sentences: list[BunsetsuSentence]) -> str:
    """The format sentences were read in: KNP's morpheme lines have no tab."""
    return "cabocha" if sentences and sentences[0].morpheme_lines and "\t" in \
        sentences[0].lines[sentences[0].morpheme_lines[0]] else "knp"


def knp_documents(ids: Path, corpus: Path) -> list[FilePath]:
    """The KNP files of a document id list, in its order (KWDLC's and the Wikipedia Annotated
    Corpus's layouts under their knp/ folder); InputError naming the id file's line of the
    first id without a document."""
    return document_paths(FilePath(ids), FilePath(corpus))


def check_tagset(model: BunsetsuParser, sentences: list[BunsetsuSentence]) -> None:
    """An InputWarning (the line `ja parse` prints) when the sentences are tagged with another
    dictionary than the model's training data, or with tags it never saw."""
    coverage = model.tag_coverage()
    coverage.add(sentences)
    warning = coverage.warning("<text>")
    if warning:
        warnings.warn(warning, InputWarning, stacklevel=3)


def load_japanese_parser(path: Path | None = None) -> JapaneseParser:
    """A parser from a `polyparse ja train` model file, or a bundled one: path None or
    "ja_wac" (trained on the Wikipedia Annotated Corpus, JUMAN's parts of speech), "ja_unidic"
    (KWDLC and WAC re-analysed with UniDic: for MeCab-UniDic output and raw text) or
    "ja_ipadic" (the same with IPAdic, MeCab's and CaboCha's usual dictionary); InputError
    when it cannot be used."""
    found, _ = japanese_model_file(path)
    return JapaneseParser(BunsetsuParser.load(found), found)


def train_japanese_parser(train: Path | Iterable[Path], dev: Path | None = None, *,
                          algorithm: str = BunsetsuConfig.algorithm,
                          classifier: str = BunsetsuConfig.classifier,
                          evaluator: str = BunsetsuConfig.evaluator,
                          chunker: bool = BunsetsuConfig.chunker, strict: bool = False,
                          seed: int = BunsetsuConfig.seed, threads: int = TRAINING_THREADS,
                          format: str = "knp", encoding: str = "utf-8",
                          chunker_C: float | None = None, chunker_iterations: int | None = None,
                          **classifier_settings: Any
                          ) -> tuple[JapaneseParser, dict[str, Any] | None, list[str]]:
    """A parser trained on KNP/CaboCha files, its scores on dev (None without dev), and the
    problems (`file:line: what`) of the malformed training sentences it skipped (InputError
    for the first one with strict). classifier_settings (C, degree, iterations, ...) go over
    the backend's defaults (chunker_C and chunker_iterations: the chunker's, as `ja train
    --chunker-C`); ValueError for a bad setting, before any data is read."""
    params = classifier_options(classifier, **classifier_settings)
    config = BunsetsuConfig(algorithm=algorithm, classifier=classifier, classifier_params=params,
                            evaluator=evaluator, chunker=chunker, seed=seed,
                            chunker_params=chunker_options(classifier, params, chunker_C,
                                                           chunker_iterations))
    model = BunsetsuParser(config)
    paths = [train] if isinstance(train, (str, os.PathLike)) else list(train)
    problems: list[str] = []
    sentences, _ = training_sentences(paths, format, encoding, strict,
                                      lambda sentence, problem: problems.append(problem))
    dev_gold = None if dev is None else list(read_bunsetsu(os.fspath(dev), format,
                                                           encoding=encoding))
    model.train(sentences, threads=threads)
    scores = None
    if dev_gold is not None:
        scores = parsed_scores(dev_gold, model.parse(dev_gold, chunk=False))
    return JapaneseParser(model), scores, problems


def evaluate_japanese(gold: Path, system: Path, format: str = "knp",
                      encoding: str = "utf-8") -> dict[str, Any]:
    """Dependency and sentence accuracy (and chunk F1 when the bunsetsu differ) of a system
    file against a gold one."""
    return file_scores(gold, system, format, encoding)
