"""`polyparse tag train|tag|evaluate`: the POS tagger on CoNLL-U / CoNLL-X files (UPOS, XPOS,
FEATS and lemmas, parser/tagging/). The options and their defaults come from the light
parser/tagging/config.py; each run function imports the tagger when it runs."""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import BinaryIO

from polyparse.features.errors import InputError
from polyparse.features.input_files import check_input_paths, input_name
from polyparse.features.output_files import check_output_apart, check_output_path
from polyparse.parser.cli.common import (
    add_backend_settings,
    add_config_options,
    add_model_writing_options,
    add_train_command,
    backend_values,
    check_training_files,
    option_error,
    parse_streams,
    progress_log,
    read_hashed,
    streamed,
    subcommands,
    text_encoding,
)
from polyparse.parser.formats.conll import FORMATS, ConllFormatError, Sentence, read_conll
from polyparse.parser.tagging.config import (
    CLASSIFIER_DEFAULTS,
    FEATS_MODES,
    TEMPLATE_SETS,
    XPOS_MODES,
    TaggerConfig,
    classifier_options,
)

# The scores `tag evaluate` reports (parser/dependency/evaluate.py's, CoNLL 2018 rules).
TAG_METRICS = ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "Words", "Tokens", "Sentences")


# The tagger's training settings that `tag train` takes as --NAME options, and what each does.
TAGGER_SETTINGS = {
    "min_feature_count": "rarer features are dropped",
    "min_word_count": "rarer forms lose their word-identity features and stand for unknown "
                      "words in training",
    "dictionary_min_count": "forms seen this often only get the tags they had in training; 0: "
                            "no tag dictionary",
    "dictionary_min_share": "tag dictionary: tags that made a smaller part of a form's "
                            "occurrences are dropped as noise",
    "ambiguity_min_count": "rarer lowercase forms have no ambiguity class",
    "feats": "per-feature: one classifier per feature name (its values and absent); joint: one "
             "over whole FEATS strings; none: FEATS are not predicted",
    "xpos": "joint: the tagger's classes are (UPOS, XPOS) pairs; apart: UPOS, and XPOS is "
            "chosen among those of the word's UPOS; auto: apart when the training data has "
            "more than 200 pairs",
    "morph_C": "cost C of the FEATS, XPOS-apart and lemma classifiers",
    "morph_min_feature_count": "their rarer features are dropped",
    "min_weight": "weights of the linear classifiers smaller in magnitude are dropped from the "
                  "model; 0: none",
    "threads": "classifiers trained at once; the model does not depend on it",
}


def register(tag: argparse.ArgumentParser) -> None:
    """The `tag` group's subcommands, added to its parser."""
    commands, parent = subcommands(tag, ("train", "tag", "evaluate"))

    train = add_train_command(
        commands, parent, "train a tagger model",
        "Train a POS tagger on a tagged treebank of any language: one classifier over the "
        "joint (UPOS, XPOS) tags of its words, run greedily left to right, then classifiers "
        "chosen by the tag it gives a word for the word's FEATS (and XPOS, when there are too "
        "many tags to join) and for the edit script that makes its lemma (words of the "
        "training data take the lemma they had there).")
    train.add_argument("--classifier", default=TaggerConfig.classifier,
                       choices=tuple(CLASSIFIER_DEFAULTS), help="default: %(default)s")
    train.add_argument("--templates", default=TaggerConfig.template_set, choices=TEMPLATE_SETS,
                       help="left: left to right, ambiguity classes of the next words; "
                            "two-pass: a second classifier also reads the first one's tags "
                            "of the next words (default: %(default)s)")

    add_backend_settings(train, CLASSIFIER_DEFAULTS)
    add_config_options(train, TaggerConfig, TAGGER_SETTINGS,
                       {"feats": FEATS_MODES, "xpos": XPOS_MODES})
    train.add_argument("--word-splits", action=argparse.BooleanOptionalAction,
                       default=TaggerConfig.word_splits,
                       help="the templates also read the word's splits into known words (the "
                            "known words it ends and starts with), for unknown words "
                            "(default: %(default)s)")
    add_model_writing_options(train, TaggerConfig.seed)
    add_io_options(train)
    train.set_defaults(run=run_train, options=train)

    tag_command = commands.add_parser(
        "tag", parents=[parent], help="tag a file or stdin",
        description="Writes the columns the model predicts of every word (UPOS, XPOS, FEATS "
                    "and LEMMA; `tag train` says which); FEATS as _ when it predicts none, "
                    "since the input's would be scored as its own. Every other byte is kept.")
    tag_command.add_argument("input", nargs="?", default="-", help="CoNLL file, or - for stdin")
    tag_command.add_argument("--model", help="tagger model file (default: the bundled English "
                                             "tagger)")
    tag_command.add_argument("-o", "--output", help="output file (default stdout)")
    add_io_options(tag_command)
    tag_command.set_defaults(run=run_tag)

    evaluate = commands.add_parser(
        "evaluate", parents=[parent], help="UPOS, XPOS, UFeats, AllTags and Lemmas of a tagging",
        description="Scores a system file against a gold file as the CoNLL 2018 shared task "
                    "does (conll18_ud_eval.py): words aligned through the text, F1 percentages "
                    "(the accuracy when both files have the same words). JSON keys: "
                    + ", ".join(TAG_METRICS) + ", words, system_words.")
    evaluate.add_argument("gold", help="gold file")
    evaluate.add_argument("system", help="system output, or - for stdin")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")
    add_io_options(evaluate)
    evaluate.set_defaults(run=run_evaluate, uses_numpy=False)


def add_io_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--format", default="conllu", choices=FORMATS)
    command.add_argument("--encoding", default="utf-8", type=text_encoding,
                         help="of the input and output files and of stdout (default utf-8)")


def read_tagged(path: str | None, args: argparse.Namespace, stream: BinaryIO | None = None,
                name: str | None = None) -> list[Sentence]:
    """All sentences of a training or dev file (or of stream, named name); every word must
    have a UPOS."""
    sentences = list(read_conll(path, fmt=args.format, encoding=args.encoding, stream=stream,
                                name=name))
    where = name or input_name(path or "-")
    for sentence in sentences:
        for word, upos in enumerate(sentence.upos, 1):
            if upos == "_":
                raise ConllFormatError(f"{where}:{sentence.line_number(word)}: UPOS is missing "
                                       '("_"); a tagger learns from tagged words')
    return sentences


def run_train(args: argparse.Namespace) -> int:
    log = progress_log(args)
    check_output_path(args.model, "model")
    try:
        params = classifier_options(args.classifier, **backend_values(
            args, args.classifier, CLASSIFIER_DEFAULTS))
        config = TaggerConfig(template_set=args.templates, classifier=args.classifier,
                              classifier_params=params, min_feature_count=args.min_feature_count,
                              min_word_count=args.min_word_count,
                              ambiguity_min_count=args.ambiguity_min_count,
                              dictionary_min_count=args.dictionary_min_count,
                              dictionary_min_share=args.dictionary_min_share,
                              feats=args.feats, xpos=args.xpos, morph_C=args.morph_C,
                              morph_min_feature_count=args.morph_min_feature_count,
                              min_weight=args.min_weight, word_splits=args.word_splits,
                              seed=args.seed,
                              threads=args.threads)
    except ValueError as error:
        raise InputError(f"tag train: {option_error(args, error)}") from None
    check_training_files(args)
    train, train_sha256 = read_hashed(args.train, lambda stream, name: read_tagged(
        None, args, stream, name))
    dev = read_tagged(args.dev, args) if args.dev else None
    from polyparse.parser.tagging.tagger import Tagger
    from polyparse.parser.tagging.training import tag_scores

    tagger = Tagger(config)
    tagger.train(train, log=log)
    blank = "" if "FEATS" in tagger.columns else "; `tag tag` writes FEATS as _"
    log(f"the model predicts {', '.join(tagger.columns)}{blank}")
    header = {"training_command": shlex.join(["polyparse"] + sys.argv[1:]),
              "train_sha256": train_sha256}
    if dev is not None:
        scores = tag_scores(tagger, dev)
        header["dev_scores"] = scores
        log(dev_line(scores, tagger.columns))
    tagger.save(args.model, extra_header=header, compress=bool(args.compress))
    log(f"model written to {args.model}")
    return 0


# The score of each column a tagger may predict.
COLUMN_METRICS = {"UPOS": "UPOS", "XPOS": "XPOS", "FEATS": "UFeats", "LEMMA": "Lemmas"}


def dev_line(scores: dict[str, float], columns: tuple[str, ...]) -> str:
    """Every dev score, in CoNLL 2018's order: those of the columns the tagger predicts (and
    AllTags with FEATS), then those of the columns it does not predict (what UFeats and
    AllTags count without predicted features)."""
    wanted = [metric for column, metric in COLUMN_METRICS.items() if column in columns]
    if "FEATS" in columns:
        wanted.append("AllTags")
    order = ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas")
    predicted = "  ".join(f"{key} {scores[key]:.2f}" for key in order if key in wanted)
    missing = [key for key in order if key not in wanted]
    if not missing:
        return f"dev: {predicted}"
    others = ", ".join(f"{key} {scores[key]:.2f}" for key in missing)
    why = "" if "FEATS" in columns else "; UFeats and AllTags count the words without gold features"
    return f"dev: {predicted}  (not predicted: {others}{why})"


def bundled_tagger_path(what: str) -> str:
    """The bundled English tagger's path; InputError when this installation has none."""
    from polyparse.parser.models.bundled import bundled_tagger

    found = bundled_tagger()
    if found is None:
        raise InputError(f"{what}: no tagger model given and this installation has no bundled "
                         "tagger")
    return str(found)


def run_tag(args: argparse.Namespace) -> int:
    from polyparse.parser.pipeline.pipeline import Pipeline
    from polyparse.parser.pipeline.word_stages import ConllReader, SentenceWriter, TagEvery
    from polyparse.parser.tagging.tagger import Tagger

    check_output_path(args.output)
    check_input_paths([args.input, args.model])
    model = args.model or bundled_tagger_path("tag tag")
    check_output_apart(args.output, [args.input, model])
    pipeline = Pipeline(ConllReader(args.format, args.encoding), [TagEvery(Tagger.load(model))],
                        SentenceWriter())
    return parse_streams(args, _NoCoverage(), streamed(pipeline), desc="tagging")


class _NoCoverage:
    """A tagger reads forms only: there are no tags to warn about."""

    def warning(self, source: str) -> None:
        return None


def run_evaluate(args: argparse.Namespace) -> int:
    from polyparse.parser.dependency.evaluate import evaluate

    check_input_paths([args.gold, args.system])
    gold = read_conll(args.gold, fmt=args.format, encoding=args.encoding)
    system = read_conll(args.system, fmt=args.format, encoding=args.encoding)
    scores = evaluate(gold, system, gold_name=args.gold,
                      system_name="<stdin>" if args.system == "-" else args.system).as_dict()
    found = {key: scores[key] for key in (*TAG_METRICS, "words", "system_words")}
    if args.json:
        print(json.dumps(found, sort_keys=True))
    else:
        print("  ".join(f"{key} {found[key]:.2f}" for key in TAG_METRICS[:5])
              + f"  ({found['words']} words)")
    return 0
