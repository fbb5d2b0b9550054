"""The dependency parser as a Python user meets it: load or train, parse, evaluate, save.

`Parser` adapts what users hold (CoNLL-U text, conllu TokenLists, tagged words) to the library's
parsers (parser/dependency/: the greedy DependencyParser and the beam-search BeamParser) and
back; files are read and checked by
parser/formats/conll.py, so bad input raises the same one-line InputError as the command line.
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import conllu

from classifiers.model_bytes import Buffer, ModelBytes
from features.errors import InputError, InputWarning
from features.input_files import check_input_path
from parser.dependency.beam_config import BeamConfig
from parser.dependency.config import CLASSIFIER_DEFAULTS, ParserConfig, classifier_options
from parser.dependency.evaluate import evaluate as attachment_scores
from parser.dependency.models import (
    BeamParser,
    DependencyModel,
    DependencyParser,
    dependency_model_from_bytes,
    load_dependency_model,
)
from parser.formats.conll import ConllFormatError, Sentence, read_conll
from parser.formats.tokens import (
    TaggedWord,
    sentences_from_tagged,
    sentences_from_text,
    sentences_from_tokenlists,
    to_text,
    to_tokenlists,
)
from parser.models.bundled import bundled_english_name, bundled_model

Path = str | os.PathLike
# The classifier name of the beam-search parser, and the settings it takes.
STRUCTURED = "structured-perceptron"
BEAM_SETTINGS = ("beam", "update", "epochs", "patience")
# How a pickled parser names the bundled tagger (its path differs between installations).
BUNDLED_TAGGER = "<bundled>"
ParserInput = str | conllu.TokenList | Iterable[conllu.TokenList] | Iterable[Sequence[TaggedWord]]


class Parser(ModelBytes):
    """A trained arc-eager dependency parser.

    parse() takes CoNLL-U text (returns CoNLL-U text), one conllu.TokenList (returns a
    TokenList), or an iterable of TokenLists or of tagged sentences, each a sequence of
    forms, (form, upos) or (form, upos, xpos) tuples (returns a list of TokenLists; a sentence
    that is a tuple of two or three strings reads as one tagged word: TypeError); only HEAD
    and DEPREL are set, everything else is kept. The TokenLists (and their list) show as
    pictures of their trees in Jupyter (parser/views/notebook.py). It pickles as its model
    file's bytes and its evaluation mode (or beam width), so process pools and Dask workers
    get the same parser.
    """

    def __init__(self, model: DependencyModel, tagger: Path | None = None) -> None:
        if not isinstance(model, (DependencyParser, BeamParser)):
            raise TypeError("model must be a DependencyParser or a BeamParser, not "
                            f"{type(model).__name__}")
        self.model = model
        # The tagger model that tags sentences whose words have no UPOS before they are
        # parsed (loaded when first needed), or None.
        self.tagger_path = None if tagger is None else os.fspath(tagger)
        self._tagger: Any = None

    @property
    def config(self) -> ParserConfig | BeamConfig:
        """What the parser was trained with (templates, tag columns, splits and classifier;
        or, for a beam-search parser, its beam, update and epochs)."""
        return self.model.config

    def parse(self, sentences: ParserInput) -> str | conllu.TokenList | list[conllu.TokenList]:
        """The sentences with HEAD and DEPREL set (see the class); an InputWarning when most
        words lack the tags the model reads or have tags it never saw (plain forms, say), as
        the command line warns."""
        if isinstance(sentences, str):
            parsed, trees = self._parse(_conllu_sentences(sentences))
            return to_text(parsed, trees)
        if sentences is None or isinstance(sentences, (bytes, bytearray, memoryview, dict,
                                                       int, float)):
            raise TypeError("parse takes CoNLL-U text (str), a conllu.TokenList, or an iterable "
                            "of TokenLists or of tagged sentences, not "
                            f"{type(sentences).__name__}")
        if isinstance(sentences, conllu.TokenList):
            return self.parse([sentences])[0]
        from parser.views.notebook import pictured

        items = list(sentences)
        if not items:
            return pictured([])
        if all(isinstance(item, conllu.TokenList) for item in items):
            parsed = sentences_from_tokenlists(items)
        else:
            parsed = sentences_from_tagged(items)
        parsed, trees = self._parse(parsed)
        return pictured(to_tokenlists(parsed, trees))

    def __call__(self, text: str, fmt: str = "raw",
                 tokenizer: str | os.PathLike | None = None) -> list[conllu.TokenList]:
        """The sentences of plain text (fmt "raw": paragraphs separated by blank lines;
        "tokens": one sentence a line, tokens separated by spaces), tokenized by the bundled
        English tokenizer (or the tokenizer model file given), tagged by the parser's tagger
        (the bundled parser's: the bundled tagger; a parser without one warns that the words
        are untagged) and parsed, as TokenLists."""
        import io

        from parser.tokenize.reading import read_raw
        from parser.views.notebook import pictured
        from polyparse.tokenization import loaded_tokenizer

        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        sentences = list(read_raw(stream=io.StringIO(text), fmt=fmt, name="<text>",
                                  tokenizer=loaded_tokenizer(tokenizer)))
        if not sentences:
            return pictured([])
        sentences, trees = self._parse(sentences)
        return pictured(to_tokenlists(sentences, trees))

    def _parse(self, sentences: list[Sentence]
               ) -> tuple[list[Sentence], list[tuple[list[int], list[str]]]]:
        """The sentences (those without UPOS tagged, when the parser has a tagger) and their
        trees."""
        if self.tagger_path is not None:
            from parser.tagging.conll_files import lacks_tags, tag_missing

            if any(lacks_tags(sentence) for sentence in sentences):
                if self._tagger is None:
                    from parser.tagging.tagger import Tagger

                    self._tagger = Tagger.load(self.tagger_path)
                sentences = tag_missing(self._tagger, sentences)
        if self.model.trained:
            coverage = self.model.tag_coverage()
            coverage.add(sentences)
            message = coverage.warning("the input")
            if message:
                warnings.warn(message, InputWarning, stacklevel=3)
        return sentences, self.model.parse(sentences)

    def save(self, path: Path, compress: bool | None = None) -> None:
        """Write the model file (compress: zlib-compressed arrays, smaller and slower to load;
        None: as the file the parser was loaded from)."""
        self.model.save(os.fspath(path), compress=compress)

    def pickle_bytes(self) -> bytes:
        """The model bytes a pickle carries (uncompressed)."""
        return self.model.pickle_bytes()

    def to_bytes(self, compress: bool | None = None) -> bytes:
        """The bytes of the model file save() writes."""
        return self.model.to_bytes(compress=compress)

    @classmethod
    def from_bytes(cls, data: Buffer, source: str = "model bytes") -> Parser:
        """The parser of a model file's bytes; InputError when they cannot be used."""
        return cls(dependency_model_from_bytes(data, source))

    def runtime_settings(self) -> dict[str, Any]:
        """The evaluation mode and rare threshold (a beam-search parser: its beam width) and
        the tagger's path, which a pickle carries beside the bytes."""
        settings = self.model.runtime_settings()
        if self.tagger_path is not None:
            from parser.models.bundled import bundled_tagger

            # The bundled tagger by name, so that a worker finds its own installation's.
            bundled = bundled_tagger()
            is_bundled = bundled is not None and os.path.realpath(bundled) == os.path.realpath(
                self.tagger_path)
            settings["tagger"] = BUNDLED_TAGGER if is_bundled else self.tagger_path
        return settings

    def apply_runtime_settings(self, settings: dict[str, Any]) -> None:
        """Restore what runtime_settings() gave (on unpickling)."""
        settings = dict(settings)
        tagger = settings.pop("tagger", None)
        if tagger == BUNDLED_TAGGER:
            from parser.models.bundled import bundled_tagger

            found = bundled_tagger()
            tagger = None if found is None else str(found)
        self.tagger_path = tagger
        self._tagger = None
        self.model.apply_runtime_settings(settings)


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
                beam: int | None = None, tagger: Path | None = None) -> Parser:
    """A parser from a model file, or the bundled English model when path is None or
    "en_ewt" (its name, as load_japanese_parser names the bundled Japanese ones).

    tagger: a tagger model file (polyparse tag train) that tags the sentences whose words have
    no UPOS before they are parsed; the bundled parser has the bundled English tagger unless
    another is given, a parser of a model file none.

    eval_mode and rare_threshold choose how kernel models are evaluated (naive, pki, pke or
    split; every mode gives the same trees); by default a converted model (the bundled one)
    uses the evaluator it stores, building nothing, and any other kernel model split. beam:
    the beam width of a beam-search model (default: the model's own). InputError when the
    file cannot be used, ValueError when the model cannot take the settings.
    """
    if path is not None and bundled_english_name(os.fspath(path)):
        path = None
    if path is None:
        path = bundled_model()
        if path is None:
            raise InputError("this installation has no bundled model; give a model file")
        if tagger is None:
            from parser.models.bundled import bundled_tagger

            tagger = bundled_tagger()
    check_input_path(path)
    if tagger is not None:
        check_input_path(tagger)
    model = load_dependency_model(os.fspath(path))
    if isinstance(model, BeamParser):
        if eval_mode is not None or rare_threshold is not None:
            raise ValueError("a beam-search model takes no eval_mode or rare_threshold")
        model.set_beam(beam)
    else:
        if beam is not None:
            raise ValueError("beam applies to beam-search (structured-perceptron) models")
        model.choose_evaluation(eval_mode, rare_threshold)
    return Parser(model, tagger)


def train_parser(train: Path | Iterable[conllu.TokenList],
                 dev: Path | Iterable[conllu.TokenList] | None = None, *,
                 classifier: str = ParserConfig.classifier,
                 features: str = ParserConfig.feature_set,
                 tag_column: str = ParserConfig.tag_column,
                 split_column: str = ParserConfig.split_column,
                 split_threshold: int = ParserConfig.split_threshold,
                 min_word_count: int = ParserConfig.min_word_count, seed: int = ParserConfig.seed,
                 threads: int = ParserConfig.threads, format: str = "conllu",
                 encoding: str = "utf-8",
                 **classifier_settings: Any) -> tuple[Parser, dict[str, Any] | None]:
    """A parser trained on a treebank file (or TokenLists with gold trees), and its scores on
    dev (a dict as evaluate() gives; None without dev).

    classifier_settings are the backend's (C, degree, gamma, coef0, eps, cache_mb, iterations,
    strategy, variant, average), over the parser's defaults; with classifier
    "structured-perceptron" (the beam-search parser, which takes no features, splits or
    threads) they are BeamConfig's (beam, update, epochs, patience). ValueError for a setting
    the parser does not take or an invalid value, before any data is read.
    """
    from parser.dependency.training import train_beam_parser
    from parser.dependency.training import train_parser as train_greedy

    if classifier not in (*CLASSIFIER_DEFAULTS, STRUCTURED):
        raise ValueError(f"unknown classifier {classifier!r} (available: "
                         f"{', '.join((*CLASSIFIER_DEFAULTS, STRUCTURED))})")
    config: ParserConfig | BeamConfig
    if classifier == STRUCTURED:
        unknown = sorted(set(classifier_settings) - set(BEAM_SETTINGS))
        if unknown:
            raise ValueError(f"{STRUCTURED} does not take {', '.join(unknown)} (its settings: "
                             f"{', '.join(BEAM_SETTINGS)})")
        config = BeamConfig(tag_column=tag_column, min_word_count=min_word_count, seed=seed,
                            **classifier_settings)
        train_on_sentences: Any = train_beam_parser
    else:
        config = ParserConfig(feature_set=features, tag_column=tag_column,
                              split_column=split_column, split_threshold=split_threshold,
                              min_word_count=min_word_count, classifier=classifier,
                              classifier_params=classifier_options(classifier,
                                                                   **classifier_settings),
                              seed=seed, threads=threads)
        train_on_sentences = train_greedy

    if (isinstance(train, (str, os.PathLike)) and isinstance(dev, (str, os.PathLike))
            and os.path.samefile(train, dev)):
        _warn(f"dev {os.fspath(dev)} is the training file: its scores are not those of unseen "
              "text")
    gold = _gold_sentences(train, format, encoding)
    dev_gold = None if dev is None else _gold_sentences(dev, format, encoding)
    model, scores = train_on_sentences(gold, config, dev_gold, warn=_warn)
    return Parser(model), None if scores is None else scores.as_dict()


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
