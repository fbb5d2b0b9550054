"""The dependency parser as a Python user meets it: load or train, parse, evaluate, save.

`Parser` adapts what users hold (CoNLL-U text, conllu TokenLists, tagged words) to the parser
the library opens (parser/pipeline/dependency_service.py, as the command line opens it) and
back; which model, tagger and tokenizer a parse uses, which settings a model takes and how a
parser to train is configured are decided there and in parser/dependency/, never here. Files
are read and checked by parser/formats/conll.py, so bad input raises the same one-line
InputError as the command line.
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import conllu

from polyparse.features.errors import InputWarning
from polyparse.features.input_files import check_input_path, same_file
from polyparse.parser.dependency.beam_config import BeamConfig
from polyparse.parser.dependency.config import ParserConfig
from polyparse.parser.dependency.dependency_model import DependencyModel
from polyparse.parser.dependency.evaluate import evaluate as attachment_scores
from polyparse.parser.dependency.training_config import training_config
from polyparse.parser.formats.conll import ConllFormatError, Sentence, read_conll
from polyparse.parser.formats.tokens import (
    TaggedWord,
    sentences_from_tagged,
    sentences_from_text,
    sentences_from_tokenlists,
    to_text,
    to_tokenlists,
)
from polyparse.parser.pipeline.dependency_service import (
    OpenedParser,
    ParserFiles,
    open_parser,
    parser_files,
)

Path = str | os.PathLike
ParserInput = str | conllu.TokenList | Iterable[conllu.TokenList] | Iterable[Sequence[TaggedWord]]


class Parser(OpenedParser):
    """A trained arc-eager dependency parser, opened with its tagger and tokenizer
    (parser/pipeline/dependency_service.py, which the command line opens too).

    parse() takes CoNLL-U text (returns CoNLL-U text), one conllu.TokenList (returns a
    TokenList), or an iterable of TokenLists or of tagged sentences, each a sequence of
    forms, (form, upos) or (form, upos, xpos) tuples (returns a list of TokenLists; a sentence
    that is a tuple of two or three strings reads as one tagged word: TypeError); only HEAD
    and DEPREL are set, everything else is kept. The TokenLists (and their list) show as
    pictures of their trees in Jupyter (parser/views/notebook.py). It pickles as its model
    file's bytes and its runtime settings (evaluation mode or beam width, tagger, tokenizer),
    so process pools and Dask workers get the same parser.
    """

    def __init__(self, model: DependencyModel, tagger: Path | None = None,
                 files: ParserFiles | None = None,
                 layers: dict[str, memoryview] | None = None) -> None:
        if not isinstance(model, DependencyModel):
            raise TypeError(f"model must be a DependencyModel, not {type(model).__name__}")
        super().__init__(model, files or ParserFiles("<model>", None if tagger is None
                                                     else os.fspath(tagger)), layers)

    @property
    def config(self) -> ParserConfig | BeamConfig:
        """What the parser was trained with (templates, tag columns, splits and classifier;
        or, for a beam-search parser, its beam, update and epochs)."""
        return self.model.config

    @property
    def tagger_path(self) -> str | None:
        """The tagger that tags sentences whose words have no UPOS, or None."""
        return self.files.tagger

    def parse(self, sentences: ParserInput) -> str | conllu.TokenList | list[conllu.TokenList]:
        """The sentences with HEAD and DEPREL set (see the class); an InputWarning when most
        words lack the tags the model reads or have tags it never saw (plain forms, say), as
        the command line warns."""
        if isinstance(sentences, str):
            parsed = self._parse(_conllu_sentences(sentences))
            return to_text(parsed, _trees(parsed))
        if sentences is None or isinstance(sentences, (bytes, bytearray, memoryview, dict,
                                                       int, float)):
            raise TypeError("parse takes CoNLL-U text (str), a conllu.TokenList, or an iterable "
                            "of TokenLists or of tagged sentences, not "
                            f"{type(sentences).__name__}")
        if isinstance(sentences, conllu.TokenList):
            return self.parse([sentences])[0]
        from polyparse.parser.views.notebook import pictured

        items = list(sentences)
        if not items:
            return pictured([])
        if all(isinstance(item, conllu.TokenList) for item in items):
            parsed = sentences_from_tokenlists(items)
        else:
            parsed = sentences_from_tagged(items)
        parsed = self._parse(parsed)
        return pictured(to_tokenlists(parsed, _trees(parsed)))

    def __call__(self, text: str, fmt: str = "raw",
                 tokenizer: str | os.PathLike | None = None) -> list[conllu.TokenList]:
        """The sentences of plain text (fmt "raw": paragraphs separated by blank lines;
        "tokens": one sentence a line, tokens separated by spaces), tokenized by the parser's
        tokenizer (the tokenizer model file given; by default the pipeline's own, else the
        bundled English pipeline's), tagged by the parser's tagger (a pipeline's own; a parser
        without one warns that the words are untagged) and parsed, as TokenLists."""
        import io

        from polyparse.parser.pipeline.word_stages import TextReader
        from polyparse.parser.views.notebook import pictured
        from polyparse.tokenization import loaded_tokenizer

        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        chosen = (loaded_tokenizer(tokenizer) if tokenizer is not None
                  else self.text_tokenizer() if self.files.tokenizer is not None
                  else loaded_tokenizer(None))
        sentences = list(TextReader(chosen, fmt).read(io.StringIO(text), "<text>"))
        if not sentences:
            return pictured([])
        parsed = self._parse(sentences, fmt)
        return pictured(to_tokenlists(parsed, _trees(parsed)))

    def _parse(self, sentences: list[Sentence], text_format: str | None = None
               ) -> list[Sentence]:
        """The sentences through the stages (those without UPOS tagged, when the parser has a
        tagger; all parsed), with an InputWarning as the command line's warning line;
        text_format: they are text of that format, cut by the tokenizer."""
        if not self.model.trained:
            return self.pipeline(text_format=text_format).run(sentences)
        coverage = self.model.tag_coverage()
        parsed = self.pipeline(coverage=coverage, text_format=text_format).run(sentences)
        message = coverage.warning("the input")
        if message:
            warnings.warn(message, InputWarning, stacklevel=3)
        return parsed

    def save(self, path: Path, compress: bool | None = None) -> None:
        """Write the model file (compress: zlib-compressed arrays, smaller and slower to load;
        None: as the file the parser was loaded from)."""
        self.model.save(os.fspath(path), compress=compress)

    def to_bytes(self, compress: bool | None = None) -> bytes:
        """The bytes of the model file save() writes."""
        return self.model.to_bytes(compress=compress)


def _trees(sentences: list[Sentence]) -> list[tuple[list[int], list[str]]]:
    return [(sentence.head, sentence.deprel) for sentence in sentences]


def _conllu_sentences(text: str) -> list[Sentence]:
    """The sentences of CoNLL-U text; plain text (no tab in its first word line) is refused
    with the way to parse it, parser(text)."""
    try:
        return sentences_from_text(text, allow_empty=True)
    except ConllFormatError as error:
        first = next((line for line in text.splitlines()
                      if line.strip() and not line.startswith("#")), "")
        if "\t" in first:
            raise
        raise ConllFormatError(f"{error}: parse() takes CoNLL-U; plain text goes through "
                               "parser(text), which splits it into sentences and tokens, tags "
                               "and parses it") from None


def load_parser(path: Path | None = None, eval_mode: str | None = None,
                rare_threshold: int | float | str | None = None,
                beam: int | None = None, tagger: Path | None = None,
                tokenizer: Path | None = None) -> Parser:
    """A parser from a model file, or the bundled English pipeline when path is None or
    "en_ewt" (its name, as load_japanese_parser names the bundled Japanese ones).

    tagger: a tagger model file (polyparse tag train) that tags the sentences whose words have
    no UPOS before they are parsed; a pipeline file (the bundled one, or one of `polyparse
    pipeline train`) has its own tagger unless another is given, a parser of a model file
    none. tokenizer: the tokenizer model file that parser(text) uses (default: the pipeline's
    own, else the bundled English pipeline's).

    eval_mode and rare_threshold choose how kernel models are evaluated (naive, pki, pke or
    split; every mode gives the same trees); by default a converted model uses the evaluator
    it stores, building nothing, and any other kernel model split (pki where split cannot
    expand the degree). beam: the beam width of a beam-search model
    (default: the model's own). InputError when the file cannot be used, ValueError when the
    model cannot take the settings.
    """
    files = parser_files(path, tagger, tokenizer)
    opened = open_parser(files, eval_mode=eval_mode, rare_threshold=rare_threshold, beam=beam)
    return Parser(opened.model, files=opened.files, layers=opened.layers)


def train_parser(train: Path | Iterable[conllu.TokenList],
                 dev: Path | Iterable[conllu.TokenList] | None = None, *,
                 classifier: str = ParserConfig.classifier,
                 features: str | None = None, tag_column: str | None = None,
                 split_column: str | None = None, split_threshold: int | None = None,
                 min_word_count: int | None = None, seed: int | None = None,
                 threads: int | None = None, format: str = "conllu",
                 encoding: str = "utf-8",
                 **classifier_settings: Any) -> tuple[Parser, dict[str, Any] | None]:
    """A parser trained on a treebank file (or TokenLists with gold trees), and its scores on
    dev (a dict as evaluate() gives; None without dev).

    classifier_settings are the backend's (C, degree, gamma, coef0, eps, cache_mb, iterations,
    strategy, variant, average, min_pair_count), over the parser's defaults; with classifier
    "structured-perceptron" (the beam-search parser, which takes no features, splits or
    threads) they are its settings (beam, update, epochs, patience, sentence_runs). The other
    settings left out (None) take the parser's defaults. ValueError for a setting the parser
    does not take or an invalid value, before any data is read.
    """
    from polyparse.parser.dependency.training import train_dependency_model

    config = training_config(classifier, feature_set=features, tag_column=tag_column,
                             split_column=split_column, split_threshold=split_threshold,
                             min_word_count=min_word_count, seed=seed, threads=threads,
                             **classifier_settings)
    if (isinstance(train, (str, os.PathLike)) and isinstance(dev, (str, os.PathLike))
            and same_file(train, dev)):
        _warn(f"dev {os.fspath(dev)} is the training file: its scores are not those of unseen "
              "text")
    gold = _gold_sentences(train, format, encoding)
    dev_gold = None if dev is None else _gold_sentences(dev, format, encoding)
    model, scores = train_dependency_model(gold, config, dev_gold, warn=_warn)
    return Parser(model), None if scores is None else scores.as_dict()


def train_pipeline(train: Path | Iterable[conllu.TokenList], model: Path,
                   dev: Path | Iterable[conllu.TokenList] | None = None, *,
                   classifier: str | None = None, folds: int | None = None,
                   feats: str | None = None, word_splits: bool | None = None,
                   compress: bool = True, seed: int | None = None, refit: bool = False,
                   **parser_settings: Any) -> Parser:
    """Learn a tokenizer, a tagger (UPOS, XPOS, FEATS, lemmas) and a parser from one CoNLL-U
    treebank of any language (a file, or TokenLists with gold trees and, for the tokenizer,
    `# text` lines or SpaceAfter=No), write them as one pipeline file at model (as `polyparse
    pipeline train` does) and return its parser, which parses raw text: parser(text).

    classifier and parser_settings choose the parser as in train_parser, over the pipeline's
    defaults (a greedy parser with the `linear` backend and the `morph` templates, which read
    FEATS values and suffixes; classifier "structured-perceptron" for the beam-search parser);
    folds: the parser learns
    from the tags of taggers that never saw the sentence, the treebank cut into this many
    folds (default 5; 0: the gold tags); feats: how the tagger predicts FEATS (per-feature,
    joint or none); word_splits: whether the tagger reads words' splits into known words
    (default true); compress: the arrays zlib-compressed; seed: of every layer. dev, when
    given, scores each layer (kept in the file's header) and chooses a beam parser's epoch and
    whether its parser cuts raw text; refit: then every layer learns again from train and dev
    together (dev required). ValueError for a setting that cannot be used, before any data is
    read; InputError for a treebank that cannot train a layer.
    """
    from polyparse.features.errors import InputError
    from polyparse.features.output_files import write_bytes
    from polyparse.parser.pipeline.pipeline_training import pipeline_config, train_pipeline_file

    config = pipeline_config(classifier, dev_given=dev is not None, folds=folds, feats=feats,
                             word_splits=word_splits, compress=compress, refit=refit,
                             seed=seed, **parser_settings)
    gold = _gold_sentences(train, "conllu", "utf-8")
    dev_gold = None if dev is None else _gold_sentences(dev, "conllu", "utf-8")
    try:
        trained = train_pipeline_file(gold, dev_gold, config, warn=_warn_here,
                                      sources=(_source_name(train), _source_name(dev)))
    except ValueError as error:
        raise InputError(f"{_source_name(train)}: {error}") from None
    write_bytes(model, trained.data)
    return load_parser(model)


def _warn_here(message: str) -> None:
    """An InputWarning from train_pipeline's caller."""
    warnings.warn(message, InputWarning, stacklevel=4)


def _source_name(source: Any) -> str:
    return os.fspath(source) if isinstance(source, (str, os.PathLike)) else "<sentences>"


def evaluate(gold: Path | conllu.TokenList | Iterable[conllu.TokenList],
             system: Path | conllu.TokenList | Iterable[conllu.TokenList],
             punct: str = "none", format: str = "conllu",
             encoding: str = "utf-8") -> dict[str, Any]:
    """UAS, LAS and the other attachment scores (CoNLL 2018 rules; punct: none, upos,
    unicode or ptb) of system trees against gold ones: files, CoNLL-U text, TokenLists or one
    TokenList each (a sentence, as parse takes and gives)."""
    scores = attachment_scores(_gold_sentences(gold, format, encoding, single_root=False),
                               _gold_sentences(system, format, encoding, single_root=False),
                               punct=punct)
    return scores.as_dict()


def _warn(message: str) -> None:
    """An InputWarning from the caller of the public function (warnings.simplefilter can hide
    it by category)."""
    warnings.warn(message, InputWarning, stacklevel=3)


def _gold_sentences(source: Path | conllu.TokenList | Iterable[conllu.TokenList], fmt: str,
                    encoding: str, single_root: bool = True) -> list[Sentence]:
    """Trees (checked: every word has a head, the heads form a tree) of a file, of CoNLL-U
    text (a str holding a line break or a tab), of TokenLists or of one TokenList."""
    checks = {"require_tree": True, "single_root": single_root and fmt == "conllu",
              "require_deprel": fmt == "conllu"}
    if isinstance(source, str) and ("\n" in source or "\t" in source):
        return sentences_from_text(source, **checks)
    if isinstance(source, (str, os.PathLike)):
        check_input_path(source)
        return list(read_conll(source, fmt=fmt, encoding=encoding, **checks))
    if isinstance(source, conllu.TokenList):
        source = [source]
    return sentences_from_tokenlists(source, require_tree=True, single_root=single_root)
