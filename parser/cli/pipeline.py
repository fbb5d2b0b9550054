"""`polyparse pipeline train`: a tokenizer, a tagger and a parser learned from one treebank of
any language (parser/pipeline/pipeline_training.py), in one model file that `dep parse --model
OUT --format raw` reads raw text with."""
from __future__ import annotations

import argparse
import shlex
import sys

from polyparse.features.errors import InputError
from polyparse.features.output_files import check_output_path, write_bytes
from polyparse.parser.cli.common import (
    add_train_command,
    check_training_files,
    given_settings,
    option_error,
    progress_log,
    read_hashed,
    shows_progress,
    subcommands,
    warn,
)
from polyparse.parser.cli.dep import add_parser_training_options
from polyparse.parser.cli.scale_out import add_training_options, check_workers, training_executor
from polyparse.parser.dependency.config import ParserConfig
from polyparse.parser.pipeline.pipeline_training import (
    DEFAULT_CLASSIFIER,
    DEFAULT_FEATURE_SET,
    DEFAULT_FOLDS,
    DEFAULT_MIN_FEATURE_COUNT,
    DEFAULT_SENTENCE_RUNS,
    MAX_FOLDS,
)
from polyparse.parser.tagging.config import FEATS_MODES, TaggerConfig


def register(group: argparse.ArgumentParser) -> None:
    """The `pipeline` group's subcommand, added to its parser."""
    commands, parent = subcommands(group, ("train",))
    train = add_train_command(
        commands, parent, "learn a tokenizer, a tagger and a parser from one treebank",
        description="Learn from one CoNLL-U treebank, of any language, its sentences, tokens "
                    "and multiword tokens (from its `# text` lines and SpaceAfter=No), its "
                    "UPOS, XPOS, FEATS and lemmas, and its trees (the parser trained on "
                    "jackknifed tags); all three layers go into one model file, which `dep "
                    "parse --model OUT --format raw` and polyparse.load_parser(OUT) use on "
                    "raw text. The parser options are `dep train`'s.",
        dev_help="development treebank: scores each layer; chooses a beam parser's epoch")
    add_parser_training_options(train, DEFAULT_CLASSIFIER, DEFAULT_FEATURE_SET,
                                DEFAULT_MIN_FEATURE_COUNT, DEFAULT_MIN_FEATURE_COUNT,
                                DEFAULT_SENTENCE_RUNS)
    train.add_argument("--folds", type=int, default=DEFAULT_FOLDS,
                       help=f"the parser learns from tags of taggers that never saw the "
                            f"sentence: the treebank cut into this many folds, 2 to {MAX_FOLDS}, "
                            "or 0: from the gold tags (default %(default)s)")
    train.add_argument("--feats", choices=FEATS_MODES, default=TaggerConfig.feats,
                       help="how the tagger predicts FEATS (default %(default)s)")
    train.add_argument("--word-splits", action=argparse.BooleanOptionalAction,
                       default=TaggerConfig.word_splits,
                       help="the tagger also reads each word's splits into known words, for "
                            "unknown words (default: %(default)s)")
    train.add_argument("--compress", action=argparse.BooleanOptionalAction, default=True,
                       help="store the tagger's and parser's arrays zlib-compressed (default: "
                            "on; smaller file, slower load)")
    train.add_argument("--seed", type=int, default=ParserConfig.seed,
                       help="of every layer's training (default: %(default)s)")
    train.add_argument("--refit", action="store_true",
                       help="with --dev: once dev has scored the layers and chosen the beam "
                            "parser's epoch and cuts, learn every layer again from train and "
                            "dev together (the scores kept are dev's, of the first fit)")
    add_training_options(train)
    train.set_defaults(run=run_train, options=train)


def run_train(args: argparse.Namespace) -> int:
    from polyparse.parser.dependency.training_config import TRAINING_SETTINGS
    from polyparse.parser.pipeline.pipeline_training import pipeline_config

    log = progress_log(args)
    check_output_path(args.model, "model")
    try:
        config = pipeline_config(args.classifier, dev_given=args.dev is not None,
                                 folds=args.folds, feats=args.feats,
                                 word_splits=args.word_splits, compress=args.compress,
                                 refit=args.refit, **given_settings(args, TRAINING_SETTINGS))
    except ValueError as error:
        raise InputError(f"pipeline train: {option_error(args, error)}") from None
    check_workers(args, "pipeline train")
    check_training_files(args)
    from polyparse.parser.formats.conll import read_conll
    from polyparse.parser.pipeline.pipeline_training import train_pipeline_file

    train, train_sha256 = read_hashed(args.train, lambda stream, name: list(read_conll(
        None, require_tree=True, stream=stream, name=name)))
    dev = list(read_conll(args.dev, require_tree=True)) if args.dev else None
    header = {"training_command": shlex.join(["polyparse"] + sys.argv[1:]),
              "train_sha256": train_sha256}
    try:
        with training_executor(args) as executor:
            trained = train_pipeline_file(
                train, dev, config, header, log=log, progress=shows_progress(args),
                warn=warn, executor=executor, sources=(args.train, args.dev or ""))
    except ValueError as error:
        raise InputError(f"pipeline train: {args.train}: {error}") from None
    write_bytes(args.model, trained.data)
    log(f"model written to {args.model}")
    return 0
