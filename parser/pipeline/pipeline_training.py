"""A whole pipeline learned from one treebank (`polyparse pipeline train`,
polyparse.train_pipeline), stored as one pipeline file (classifiers/pipeline_file.py):

1. the tokenizer: sentences, tokens and multiword tokens learned from the treebank's own text
   (parser/segmentation: `tokenize train`);
2. the tagger: UPOS, XPOS, FEATS and lemmas (parser/tagging: `tag train`);
3. the parser (parser/dependency: `dep train`'s settings), trained on the tags it will meet:
   the training file's UPOS, XPOS, FEATS and lemmas are replaced by jackknifed ones
   (parser/tagging/jackknife.py: each fold tagged by a tagger trained on the others), and the
   dev file's, which chooses a beam parser's epoch, by the tagger's.

Each layer reads the treebank alone; nothing here knows a language.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from typing import Any

from polyparse.features.errors import InputError
from polyparse.parser.dependency.beam_config import BeamConfig
from polyparse.parser.dependency.config import ParserConfig
from polyparse.parser.formats.conll import Sentence
from polyparse.parser.formats.tag_coverage import MISSING
from polyparse.parser.tagging.config import TaggerConfig

# Folds of the jackknifed tags the parser is trained on (as corpora_scripts/jackknife_tags.py).
DEFAULT_FOLDS = 5
MAX_FOLDS = 100
# The parser a pipeline trains unless told otherwise: greedy, a linear classifier over the
# morph templates (FEATS values and suffixes). On UD Hungarian-Szeged from raw text it parses
# with LAS 64.49 in a 7 MB pipeline; poly2-linear over the same templates reaches 65.68 in
# 122 MB and parses 20 times slower (docs/methods.md).
DEFAULT_CLASSIFIER = "linear"
DEFAULT_FEATURE_SET = "morph"
# Its features of fewer training states are dropped: LAS 64.49 / 64.61 / 64.68 with 1 / 2 / 3
# on UD Hungarian-Szeged (EWT: 79.82 / 79.73 with 1 / 3), the parser's arrays 28 % smaller.
# A beam parser's too (the states of the gold sequences, sentence runs included): test LAS
# from raw text of the eight ud22 treebanks' beam pipelines with 1 / 3 / 5, mean 70.28 /
# 70.10 / 70.13 (af_afribooms 80.47 / 79.97 / 79.86, el_gdt 85.07 / 84.89 / 84.96,
# fr_sequoia 83.81 / 84.08 / 84.20, got_proiel 68.93 / 68.24 / 68.47, hu_szeged 69.13 /
# 69.73 / 69.11, ko_gsd 72.81 / 73.11 / 72.80, tr_imst 57.47 / 56.95 / 57.38, vi_vtb 44.58 /
# 43.86 / 44.29), the pipelines 32-41 % smaller with 3 (ko_gsd 36.1 -> 22.0 MB, tr_imst
# 20.6 -> 12.2 MB, before layout 4 of the model files).
DEFAULT_MIN_FEATURE_COUNT = 3
# A beam parser of a pipeline learns from each sentence alone and in runs of 1 to 3 (parser/
# dependency/sentence_runs.py); with dev, it cuts raw text's segments if dev's raw text says
# so (choose_sentence_ends). Test LAS from raw text of the eight ud22 treebanks' beam
# pipelines without (at f9679e4) / with runs: mean 69.52 / 69.81; got_proiel 65.20 / 68.36 (no
# sentence punctuation), el_gdt 84.08 / 84.72, hu_szeged 68.67 / 68.72, fr_sequoia 83.65 /
# 83.45, af_afribooms 79.82 / 79.40, ko_gsd 72.51 / 72.14, tr_imst 57.68 / 57.44, vi_vtb
# 44.55 / 44.24.
DEFAULT_SENTENCE_RUNS = 3


# A greedy pipeline's tagger drops its linear weights smaller in magnitude (tag train's
# default, which a beam pipeline keeps: 0.01). Dev scores of 0.01 / 0.03, UPOS, UFeats, Lemmas:
# ko_gsd 93.69 / 93.79, 99.69 / 99.72, 83.43 / 83.47; hu_szeged 94.49 / 94.52, 89.75 / 89.90,
# 93.10 / 93.16; tr_imst 92.93 / 93.00, 87.88 / 87.78, 91.92 / 91.84; en_ewt 95.17 / 95.14,
# 95.67 / 95.67, 97.18 / 97.15; the tagger 40 % smaller (ko_gsd's pipeline 20.8 -> 15.4 MB).
# The greedy parser on those tags from raw text: LAS over the eight ud22 treebanks +0.05 on
# average; the beam parser, trained on them, lost 0.28 (hu_szeged 68.67 / 68.15 / 67.73 with
# 0.01 / 0.02 / 0.03), so a beam pipeline's tagger keeps 0.01.
GREEDY_TAGGER_MIN_WEIGHT = 0.03


def pipeline_tagger_config(parser: ParserConfig | BeamConfig | None = None, **settings: Any
                           ) -> TaggerConfig:
    """The configuration of a pipeline's tagger: TaggerConfig's, with GREEDY_TAGGER_MIN_WEIGHT
    for a greedy parser's pipeline (parser: its configuration; None: the greedy default);
    settings None are not given."""
    given = {name: value for name, value in settings.items() if value is not None}
    if not isinstance(parser, BeamConfig):
        given.setdefault("min_weight", GREEDY_TAGGER_MIN_WEIGHT)
    return TaggerConfig(**given)


def pipeline_parser_config(classifier: str | None = None, **settings: Any
                           ) -> ParserConfig | BeamConfig:
    """The configuration of a pipeline's parser (training_config's, with the pipeline's
    defaults: classifier None is DEFAULT_CLASSIFIER, DEFAULT_MIN_FEATURE_COUNT, a greedy
    parser's templates DEFAULT_FEATURE_SET, a beam parser's DEFAULT_SENTENCE_RUNS); settings
    None are not given."""
    from polyparse.parser.dependency.choices import STRUCTURED
    from polyparse.parser.dependency.training_config import training_config

    classifier = classifier or DEFAULT_CLASSIFIER
    defaults = [("min_feature_count", DEFAULT_MIN_FEATURE_COUNT),
                ("sentence_runs", DEFAULT_SENTENCE_RUNS) if classifier == STRUCTURED else
                ("feature_set", DEFAULT_FEATURE_SET)]
    for name, default in defaults:
        if settings.get(name) is None:
            settings[name] = default
    return training_config(classifier, **settings)


@dataclass
class PipelineConfig:
    """parser: the parser's configuration (parser/dependency/training_config.py); tagger: the
    tagger's; folds: the jackknife's folds (0: the parser learns from the gold tags); compress:
    the tagger's and parser's arrays stored zlib-compressed; refit: once dev has scored the
    layers and made its choices (a beam parser's epoch, the parser's cuts), every layer
    learns again from train and dev together (refit_config)."""

    parser: ParserConfig | BeamConfig = field(default_factory=ParserConfig)
    tagger: TaggerConfig = field(default_factory=pipeline_tagger_config)
    folds: int = DEFAULT_FOLDS
    compress: bool = True
    refit: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.folds, int) or isinstance(self.folds, bool) or not (
                self.folds == 0 or 2 <= self.folds <= MAX_FOLDS):
            raise ValueError(f"folds must be 0 (gold tags) or 2 to {MAX_FOLDS}, not "
                             f"{self.folds!r}")


def check_refit(refit: bool, dev_given: bool) -> None:
    """ValueError for a refit without dev (checked before any data is read)."""
    if refit and not dev_given:
        raise ValueError("refit learns again from train and dev: give dev")


def pipeline_config(classifier: str | None = None, *, dev_given: bool,
                    folds: int | None = None, feats: str | None = None,
                    word_splits: bool | None = None, compress: bool = True,
                    refit: bool = False, **parser_settings: Any) -> PipelineConfig:
    """The configuration `pipeline train` and polyparse.train_pipeline learn with: the
    parser's (pipeline_parser_config of classifier and parser_settings, their seed that of
    every layer), the tagger's (pipeline_tagger_config: feats, word_splits), folds (None:
    DEFAULT_FOLDS); ValueError for a setting that cannot be used, or a refit without dev,
    before any data is read. Settings None are not given."""
    parser = pipeline_parser_config(classifier, **parser_settings)
    tagger = pipeline_tagger_config(parser, feats=feats, word_splits=word_splits,
                                    seed=parser_settings.get("seed"))
    config = PipelineConfig(parser=parser, tagger=tagger,
                            folds=DEFAULT_FOLDS if folds is None else folds,
                            compress=compress, refit=refit)
    check_refit(refit, dev_given)
    return config


@dataclass
class TrainedPipeline:
    """A pipeline file's bytes and the dev scores of its layers (empty without dev)."""

    data: bytearray
    dev_scores: dict[str, dict[str, Any]]


def train_pipeline_file(train: Sequence[Sentence], dev: Sequence[Sentence] | None,
                        config: PipelineConfig, header: dict[str, Any] | None = None,
                        log: Callable[[str], None] = lambda message: None,
                        progress: bool = False,
                        warn: Callable[[str], None] = lambda message: None,
                        executor: Executor | None = None,
                        sources: tuple[str, str] = ("<train>", "<dev>")) -> TrainedPipeline:
    """The pipeline learned from gold sentences (every word with UPOS and a tree); dev, when
    given, scores each layer (the tokenizer on its raw text, the tagger on its words, the
    parser on its words with the tagger's tags) and chooses a beam parser's epoch and whether
    the parser cuts raw text (with config.refit, every layer then learns again from train and
    dev together). header: JSON-ready entries of the pipeline file (training command,
    checksum of the file).
    InputError naming the file (sources: the names of train and dev) and line of a word
    without UPOS; ValueError when the treebank cannot train a layer. warn is told, in a line
    naming the file, of dev labels training never saw and of a treebank too small for the
    folds (the parser then learns from the gold tags)."""
    from polyparse.classifiers.pipeline_file import pipeline_bytes

    check_refit(config.refit, dev is not None)
    train = list(train)
    require_upos(train, sources[0])
    if dev is not None:
        dev = list(dev)
        require_upos(dev, sources[1])
    if len(train) < config.folds:
        warn(f"{sources[0]}: {len(train)} sentences cannot fill the {config.folds} folds of "
             "the parser's jackknifed tags: the parser learns from the gold tags")
        config = replace(config, folds=0)
    layers, scores = _trained_layers(train, dev, config, log, progress, warn, executor, sources)
    if config.refit and dev is not None:
        parser = layers[2]
        log(f"refit: every layer again from the {len(train) + len(dev)} sentences of train "
            "and dev")
        refitted, _ = _trained_layers(train + dev, None, refit_config(config, parser), log,
                                      progress, warn, executor, sources)
        if "sentence_ends" in parser.info:
            refitted[2].info["sentence_ends"] = parser.info["sentence_ends"]
        layers = refitted
    segmenter, tagger, parser = layers
    data = {"tokenizer": segmenter.to_bytes(),
            "tagger": tagger.to_bytes(compress=config.compress),
            "parser": parser.to_bytes(compress=config.compress)}
    full_header = {**(header or {}), "folds": config.folds}
    if config.refit:
        full_header["refit"] = "train and dev"
    if scores:
        full_header["dev_scores"] = scores
    return TrainedPipeline(pipeline_bytes(data, full_header), scores)


def refit_config(config: PipelineConfig, parser: Any) -> PipelineConfig:
    """What the refit on train and dev learns with: config, a beam parser's epochs the best
    epoch dev chose (nothing is left to stop it)."""
    chosen = config.parser
    if isinstance(chosen, BeamConfig):
        chosen = replace(chosen, epochs=int(parser.info["best_epoch"]))
    return replace(config, parser=chosen, refit=False)


def _trained_layers(train: list[Sentence], dev: list[Sentence] | None, config: PipelineConfig,
                    log: Callable[[str], None], progress: bool,
                    warn: Callable[[str], None], executor: Executor | None,
                    sources: tuple[str, str]
                    ) -> tuple[tuple[Any, Any, Any], dict[str, dict[str, Any]]]:
    """The segmenter, tagger and parser learned from train, and dev's scores of each."""
    from polyparse.parser.dependency.training import train_dependency_model
    from polyparse.parser.segmentation.training import train_segmenter
    from polyparse.parser.tagging.tagger import Tagger
    from polyparse.parser.tagging.training import scores_of_tags, tagged_sentences

    scores: dict[str, dict[str, Any]] = {}

    def layer_log(layer: str) -> Callable[[str], None]:
        return lambda message: log(f"{layer}: {message}")

    log(f"tokenizer: learning sentences and tokens from {len(train)} sentences")
    segmenter = train_segmenter(train, dev, log=layer_log("tokenizer"))
    if segmenter.header.get("dev_scores"):
        scores["tokenizer"] = segmenter.header["dev_scores"]
    log("tagger: learning UPOS, XPOS, FEATS and lemmas")
    tagger = Tagger(config.tagger)
    tagger.train(train, log=layer_log("tagger"))
    # The dev sentences with the tagger's tags: scored, then the parser's dev.
    parser_dev = None if dev is None else tagged_sentences(tagger, dev)
    if dev is not None and parser_dev is not None:
        scores["tagger"] = scores_of_tags(dev, parser_dev)
        layer_log("tagger")(_score_line(scores["tagger"]))
    log(f"parser: learning trees from {'jackknifed' if config.folds else 'gold'} tags")
    parser_train = parser_sentences(train, config, layer_log("parser"), progress)
    parser, parser_scores = train_dependency_model(
        parser_train, config.parser, parser_dev, log=layer_log("parser"),
        progress="parser" if progress else False,
        warn=lambda message: warn(f"{sources[1]}: {message}"), executor=executor)
    if parser_scores is not None:
        scores["parser"] = parser_scores.as_dict()
    if dev is not None and parser.finds_sentence_ends:
        scores["raw text"] = choose_sentence_ends(segmenter, tagger, parser, dev,
                                                  layer_log("parser"))
    return (segmenter, tagger, parser), scores


def choose_sentence_ends(segmenter: Any, tagger: Any, parser: Any, dev: list[Sentence],
                         log: Callable[[str], None]) -> dict[str, Any]:
    """Whether a parser that learned from runs of sentences (parser/dependency/
    sentence_runs.py) cuts raw text's segments where it finds sentence ends: the dev file's
    raw text, segmented and tagged once, is parsed both ways, and the cuts stay when they
    raise the LAS and do not lower Sentences F1 (kept in parser.info["sentence_ends"]). The
    two parses' scores, for the file's header."""
    import io

    from polyparse.parser.dependency.evaluate import evaluate
    from polyparse.parser.pipeline.word_stages import FillMissingTags, ParseTrees, TextReader
    from polyparse.parser.tokenize.treebank_text import raw_text

    segments = list(TextReader(segmenter, "raw").read(io.StringIO(raw_text(dev)), "<dev>"))
    tagged = FillMissingTags(lambda: tagger, "tagger",
                             read_xpos="xpos" in parser.columns_read())(segments)
    runs: dict[str, dict[str, float]] = {}
    for name, cut in (("whole segments", False), ("cut by the parser", True)):
        scores = evaluate(dev, ParseTrees(parser, sentence_ends=cut)(tagged))
        runs[name] = {"Sentences": round(scores.Sentences, 2), "LAS": round(scores.LAS, 2)}
    whole, cut = runs["whole segments"], runs["cut by the parser"]
    keep = cut["LAS"] > whole["LAS"] and cut["Sentences"] >= whole["Sentences"]
    parser.info["sentence_ends"] = keep
    log(f"dev raw text: Sentences {whole['Sentences']:.2f}, LAS {whole['LAS']:.2f}; cut by "
        f"the parser: {cut['Sentences']:.2f}, {cut['LAS']:.2f}: the parser "
        + ("cuts" if keep else "does not cut"))
    return {**runs, "parser cuts": keep}


def require_upos(sentences: list[Sentence], source: str) -> None:
    """InputError naming source and the line of the first word without UPOS ("_"): the tagger
    and the parser learn from tagged words."""
    for sentence in sentences:
        if MISSING in sentence.upos:
            line = sentence.line_number(sentence.upos.index(MISSING) + 1)
            raise InputError(f"{source}:{line}: UPOS is missing (\"_\"); the tagger and the "
                             "parser learn from tagged words")


def parser_sentences(train: list[Sentence], config: PipelineConfig,
                     log: Callable[[str], None], progress: bool) -> list[Sentence]:
    """The parser's training sentences: with jackknifed tags (UPOS, XPOS, FEATS and lemmas of
    taggers that never saw them), or as given when config.folds is 0."""
    if not config.folds:
        return train
    from polyparse.features.progress import progress_bar
    from polyparse.parser.tagging.jackknife import jackknifed

    bar = progress_bar(total=config.folds, unit=" folds", desc="parser's tags (jackknife)",
                       disable=None if progress else True)

    def fold_done(message: str) -> None:
        bar.update()
        log(message)

    try:
        return jackknifed(train, config.folds, config.tagger, log=fold_done, keep_feats=False)
    finally:
        bar.close()


def _score_line(scores: dict[str, Any]) -> str:
    return "dev " + "  ".join(f"{key} {value:.2f}" for key, value in scores.items()
                              if isinstance(value, float))
