"""Dependency parsing as both faces ask for it: the command line (`dep parse`) and the Python
API (`polyparse.load_parser`) open a parser here, with its tagger and tokenizer, and parse
through the pipeline built here. Neither face decides which model, tagger or tokenizer a
parse uses, nor which runtime settings a model takes: this module and the model do.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from polyparse.classifiers.model_bytes import Buffer, ModelBytes
from polyparse.classifiers.pipeline_file import pipeline_layers
from polyparse.features.errors import InputError
from polyparse.features.input_files import input_name
from polyparse.features.output_files import check_command_paths
from polyparse.parser.formats.conll import FORMATS
from polyparse.parser.formats.text_lines import GUESSED_SENTENCE_ENDS, TEXT_FORMATS
from polyparse.parser.pipeline.pipeline import Pipeline
from polyparse.parser.pipeline.stage import MissingLayer, Reader, Writer
from polyparse.parser.pipeline.word_stages import (
    ConllReader,
    TextReader,
    TreeWriter,
    parse_pipeline,
)

if TYPE_CHECKING:
    from polyparse.parser.dependency.dependency_model import DependencyModel
    from polyparse.parser.tagging.tagger import Tagger
    from polyparse.parser.tokenize.segmenter import TextTokenizer

Path = str | os.PathLike


@dataclass
class ParserFiles:
    """The files of a parse: the model, the tagger that tags words without UPOS (None: no
    tagging) and the tokenizer of text (None: the bundled English pipeline's, when text is
    given); bundled_tagger: the tagger is the bundled one, the bundled pipeline's, which came
    with its parser."""

    model: str
    tagger: str | None = None
    tokenizer: str | None = None
    bundled_tagger: bool = False


def parser_files(model: Path | None = None, tagger: Path | None = None,
                 tokenizer: Path | None = None) -> ParserFiles:
    """Which files a parse uses: model None, or the name of a bundled model ("en_ewt") that is
    no file here, is the bundled English pipeline, whose tagger and tokenizer come with its
    parser unless others are given; any other model has the tagger given (or none, or a
    pipeline file's own: open_parser). InputError when this installation has no bundled
    model."""
    from polyparse.parser.models.bundled import bundled_english_name, bundled_model, bundled_tagger

    if model is not None and not bundled_english_name(os.fspath(model)):
        return ParserFiles(os.fspath(model), _path(tagger), _path(tokenizer))
    found = bundled_model()
    if found is None:
        raise InputError("no model given and this installation has no bundled model")
    if tagger is not None:
        return ParserFiles(str(found), _path(tagger), _path(tokenizer))
    return ParserFiles(str(found), _path(bundled_tagger()), _path(tokenizer),
                       bundled_tagger=True)


def _path(path: Path | None) -> str | None:
    return None if path is None else os.fspath(path)


# How a pickled parser names the bundled tagger (its path differs between installations).
BUNDLED_TAGGER = "<bundled>"


class OpenedParser(ModelBytes):
    """A parser ready to parse: its model (configured), the files it came from, a tagger
    given (loaded when opened, so that a bad file is reported before any input is read) and
    the tokenizer once text needed it. It pickles as its model's bytes, its runtime settings
    and the paths of its tagger (the bundled one by name) and tokenizer, so that a process
    pool or a Dask worker runs the same stages."""

    # The formats a parse reads from files (the first: the default), as parser/formats/conll.py
    # reads them.
    INPUT_FORMATS = FORMATS

    def __init__(self, model: DependencyModel, files: ParserFiles,
                 layers: dict[str, memoryview] | None = None) -> None:
        self.model = model
        self.files = files
        # The model file's other layers, when it is a pipeline file (its tagger and tokenizer
        # are then read from these bytes, not from the file again).
        self.layers = layers or {}
        self.given_tagger: Tagger | None = None
        self.tokenizer: TextTokenizer | None = None

    def pickle_bytes(self) -> bytes:
        return self.model.pickle_bytes()

    def to_bytes(self) -> bytes:
        return self.model.to_bytes()

    @classmethod
    def from_bytes(cls, data: Buffer, source: str = "model bytes") -> OpenedParser:
        """The parser of a model file's bytes: a dependency model file, or a pipeline file
        (its parser layer: the bundled model's file sent to a worker by reference)."""
        from polyparse.classifiers.pipeline_file import layer_data
        from polyparse.parser.dependency.models import dependency_model_from_bytes

        return cls(dependency_model_from_bytes(layer_data(data, source, "parser"), source),
                   files=ParserFiles(source))

    def runtime_settings(self) -> dict[str, Any]:
        """The model's own (evaluation mode or beam width), the tagger's path (the bundled one
        by name: a worker finds its own installation's) and the tokenizer's (the bundled
        pipeline's as None, the default: a worker reads its own installation's)."""
        tagger = BUNDLED_TAGGER if self.files.bundled_tagger else self.files.tagger
        tokenizer = self.files.tokenizer
        if self.files.bundled_tagger and tokenizer == self.files.model:
            tokenizer = None
        return {**self.model.runtime_settings(), "tagger": tagger, "tokenizer": tokenizer}

    def apply_runtime_settings(self, settings: dict[str, Any]) -> None:
        settings = dict(settings)
        tagger = settings.pop("tagger", None)
        bundled = tagger == BUNDLED_TAGGER
        if bundled:
            from polyparse.parser.models.bundled import bundled_tagger

            tagger = _path(bundled_tagger())
        self.files = ParserFiles(self.files.model, tagger, settings.pop("tokenizer", None),
                                 bundled_tagger=bundled)
        self.given_tagger = self.tokenizer = None
        self.layers = {}
        self.model.apply_runtime_settings(settings)

    def load_tagger(self) -> Tagger:
        """The tagger (the bundled one is loaded here, when a sentence first lacks tags)."""
        if self.given_tagger is None:
            from polyparse.parser.tagging.tagger import Tagger

            self.given_tagger = (
                Tagger.load_data(self.layers["tagger"], input_name(self.files.tagger))
                if self._own_layer(self.files.tagger, "tagger")
                else Tagger.load(self.files.tagger))
        return self.given_tagger

    def text_tokenizer(self) -> TextTokenizer:
        """The tokenizer of text (loaded once)."""
        if self.tokenizer is None:
            from polyparse.parser.tokenize.model import load_tokenizer, tokenizer_of_data

            self.tokenizer = (
                tokenizer_of_data(self.layers["tokenizer"], input_name(self.files.tokenizer))
                if self._own_layer(self.files.tokenizer, "tokenizer")
                else load_tokenizer(self.files.tokenizer))
        return self.tokenizer

    def _own_layer(self, path: str | None, layer: str) -> bool:
        """Whether the file of a layer is the model's own pipeline file, already read."""
        return path == self.files.model and layer in self.layers

    def shard_task(self, fmt: str = "conllu", encoding: str = "utf-8",
                   keep_deps: bool = False) -> Any:
        """What a scale-out worker does with a shard of a file in fmt (parser/scale_out)."""
        from polyparse.parser.scale_out.shard_tasks import DependencyShardTask

        return DependencyShardTask(fmt, encoding, keep_deps)

    def file_pipeline(self, fmt: str = "conllu", encoding: str = "utf-8",
                      keep_deps: bool = False, coverage: Any = None) -> Pipeline:
        """The parse of an input in fmt (conllu, conllx; raw, tokens or lines: text, tokenized
        first) written as CoNLL (text as CoNLL-U; keep_deps keeps the input's DEPS)."""
        if fmt not in TEXT_FORMATS:
            return self.pipeline(ConllReader(fmt, encoding), TreeWriter(fmt, keep_deps), coverage)
        if self.files.tagger is None:
            raise MissingLayer(f"{fmt} text gives words without the tags this parser reads: "
                               "give a tagger model with it")
        reader = TextReader(self.text_tokenizer(), fmt, encoding)
        return self.pipeline(reader, TreeWriter("conllu", keep_deps), coverage, fmt)

    def pipeline(self, reader: Reader | None = None, writer: Writer | None = None,
                 coverage: Any = None, text_format: str | None = None) -> Pipeline:
        """The stages of a parse (the tagger for words without UPOS, when there is one; the
        parser) between reader and writer (None: sentences are given and returned); coverage
        (a TagCoverage) counts the tags the parser is given; text_format: the sentences are
        text of that format (TEXT_FORMATS), cut by the tokenizer."""
        tagger = (self.load_tagger, self.files.tagger) if self.files.tagger is not None else None
        return parse_pipeline(self.model, reader, writer, tagger, coverage,
                              sentence_ends=text_format in GUESSED_SENTENCE_ENDS)


def open_parser(files: ParserFiles, load_given_tagger: bool = True, reads: Path | None = None,
                writes: Path | None = None, **runtime: Any) -> OpenedParser:
    """The parser of files, configured with the runtime settings (eval_mode, rare_threshold;
    beam): SettingNotTaken for one the model cannot use, ValueError for a value it cannot take,
    InputError when a file cannot be used. reads and writes: the input and output of the run
    to come (None: not a file of this run, or standard output), checked with the parser's files
    before any of them is read. A tagger that is not the bundled one is loaded now
    (load_given_tagger), so that a bad file is reported before any input is read."""
    from polyparse.classifiers.model_file import model_file_data
    from polyparse.parser.dependency.models import dependency_model_of_data

    check_command_paths([reads, files.model, files.tokenizer, files.tagger], writes)
    data, source = model_file_data(files.model), input_name(files.model)
    layers = pipeline_layers(data, source)
    model = dependency_model_of_data(layers.get("parser", data), source)
    model.configure(**runtime)
    opened = OpenedParser(model, with_pipeline_layers(files, layers), layers)
    if load_given_tagger and files.tagger is not None and not files.bundled_tagger:
        opened.load_tagger()
    return opened


def with_pipeline_layers(files: ParserFiles, layers: dict[str, memoryview]) -> ParserFiles:
    """The files of a parse whose model file is a pipeline (layers: its layers, {} when it is
    none): its tagger and tokenizer are those of the pipeline unless others were given."""
    if not layers:
        return files
    return replace(files,
                   tagger=files.tagger if files.tagger is not None or "tagger" not in layers
                   else files.model,
                   tokenizer=files.tokenizer if files.tokenizer is not None
                   or "tokenizer" not in layers else files.model)
