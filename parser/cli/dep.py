"""`polyparse dep train|parse|evaluate|convert`: the dependency parser on CoNLL-U / CoNLL-X
files. The arguments and their defaults come from the library's light modules; each run
function imports the parser when it runs."""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from polyparse.classifiers.evaluators.choices import (
    CONVERSIONS,
    DEFAULT_EVAL_MODE,
    EVAL_MODES,
    parse_rare_threshold,
)
from polyparse.features.errors import InputError
from polyparse.features.input_files import check_input_paths
from polyparse.features.output_files import check_output_apart, check_output_path
from polyparse.parser.cli.common import (
    add_backend_settings,
    add_model_writing_options,
    add_train_command,
    check_training_files,
    given_settings,
    option_error,
    parse_streams,
    progress_log,
    read_hashed,
    shows_progress,
    streamed,
    subcommands,
    text_encoding,
    warn,
)
from polyparse.parser.cli.evaluation_report import (
    add_report_options,
    run_dependency_report,
    wants_report,
)
from polyparse.parser.cli.scale_out import (
    add_scale_out_options,
    add_training_options,
    check_scale_out,
    check_workers,
    parse_in_shards,
    training_executor,
    wants_scale_out,
)
from polyparse.parser.cli.show import register_show
from polyparse.parser.dependency.beam_config import BeamConfig, beam_width
from polyparse.parser.dependency.choices import (
    FEATURE_SETS,
    MAX_BEAM,
    SPLIT_COLUMNS,
    STRUCTURED,
    TAG_COLUMNS,
    UPDATES,
)
from polyparse.parser.dependency.config import CLASSIFIER_DEFAULTS, ParserConfig
from polyparse.parser.dependency.evaluate import METRICS, PUNCT_POLICIES
from polyparse.parser.formats.conll import FORMATS, Sentence, read_conll
from polyparse.parser.formats.text_lines import TEXT_FORMATS


def register(dep: argparse.ArgumentParser) -> None:
    """The `dep` group's subcommands, added to its parser."""
    commands, parent = subcommands(dep, ("train", "parse", "evaluate", "convert", "show"))

    train = add_train_command(commands, parent, "train a parser model")
    add_parser_training_options(train)
    add_model_writing_options(train, ParserConfig.seed)
    add_io_options(train)
    add_training_options(train)
    train.set_defaults(run=run_train, options=train)

    parse = commands.add_parser("parse", parents=[parent], help="parse a file or stdin")
    parse.add_argument("input", nargs="?", default="-", help="CoNLL file, or - for stdin")
    parse.add_argument("--model", help="parser model file, or en_ewt: the bundled English model "
                                       "(the default)")
    parse.add_argument("-o", "--output", help="output file (default stdout)")
    parse.add_argument("--tagger", metavar="M",
                       help="tagger model that tags sentences whose words have no UPOS (\"_\") "
                            "before they are parsed, writing their UPOS, XPOS, FEATS and LEMMA "
                            "(default: the pipeline's tagger with the bundled pipeline or a "
                            "pipeline --model, none with another --model)")
    parse.add_argument("--keep-deps", action="store_true",
                       help="keep the input's DEPS column (CoNLL-X: PHEAD, PDEPREL); by default "
                            "it is written as _, since it no longer matches the new tree")
    parse.add_argument("--eval-mode", choices=EVAL_MODES,
                       help="how kernel models are evaluated; all give the same trees "
                            f"(default {DEFAULT_EVAL_MODE}; a converted model its own, and a pki "
                            "model builds any other from its index)")
    parse.add_argument("--rare-threshold", type=parse_rare_threshold,
                       help="split evaluation: features held by fewer support vectors (a count, "
                            "or a fraction of them) are rare (default auto)")
    parse.add_argument("--beam", type=beam_option,
                       help=f"a {STRUCTURED} model: the beam width, 1 to {MAX_BEAM} (default: "
                            "the model's own)")
    parse.add_argument("--tokenizer",
                       help="--format raw|tokens|lines: tokenizer model (default: the --model "
                            "pipeline's, else the bundled English pipeline's)")
    add_io_options(parse, INPUT_FORMATS)
    add_scale_out_options(parse)
    parse.set_defaults(run=run_parse, options=parse)

    keys = "; ".join(f"{key}: {meaning}" for key, meaning in METRICS.items())
    evaluate = commands.add_parser(
        "evaluate", parents=[parent], help="UAS, LAS, CLAS, MLAS, BLEX of a parse",
        description="Scores a system file against a gold file as the CoNLL 2018 shared task "
                    "does (conll18_ud_eval.py): words are aligned through the text, so the "
                    "tokenizations may differ; scores are F1 percentages. JSON keys: " + keys)
    evaluate.add_argument("gold", help="gold file")
    evaluate.add_argument("system", help="system output, or - for stdin")
    add_report_options(evaluate)
    evaluate.add_argument("--punct", default="none", choices=PUNCT_POLICIES,
                          help="words left out of the scores: none (default), upos (UPOS "
                               "PUNCT), unicode (every character punctuation, eval.pl), ptb "
                               "(PTB punctuation XPOS)")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")
    evaluate.add_argument("--lenient", action="store_true",
                          help="also score CoNLL-U files conll18_ud_eval.py refuses: several "
                               "roots in a sentence, no empty line at the end")
    add_io_options(evaluate)
    evaluate.set_defaults(run=run_evaluate, uses_numpy=False)

    convert = commands.add_parser(
        "convert", parents=[parent],
        help="store a kernel parser model's classifiers as their exact evaluators",
        description="Keeps every kernel classifier (kernel-svm, pa-slicing) of a parser model "
                    "as the arrays of one exact evaluator, so that parsing loads them instead "
                    "of building them (the trees stay the same).")
    convert.add_argument("--model", required=True, help="parser model file")
    convert.add_argument("--to", required=True, choices=tuple(CONVERSIONS),
                         help="evaluator to store: split, pki or pke")
    convert.add_argument("--output", required=True, help="model file to write")
    convert.add_argument("--rare-threshold", type=parse_rare_threshold,
                         help="--to split: features held by fewer support vectors are rare "
                              "(default auto)")
    convert.add_argument("--compress", action="store_true",
                         help="store the arrays zlib-compressed (smaller file, slower load)")
    convert.set_defaults(run=run_convert)
    register_show(commands, parent, "dep", FORMATS)


# dep parse also reads text: raw (paragraphs separated by blank lines) or tokens (one sentence
# a line), tokenized by parser/tokenize.
INPUT_FORMATS = (*FORMATS, *TEXT_FORMATS)



def add_parser_training_options(train: argparse.ArgumentParser,
                                classifier: str = ParserConfig.classifier,
                                feature_set: str = ParserConfig.feature_set,
                                min_feature_count: int = ParserConfig.min_feature_count,
                                beam_min_feature_count: int = BeamConfig.min_feature_count,
                                sentence_runs: int = BeamConfig.sentence_runs) -> None:
    """The options that choose and configure the parser to train (`dep train`'s, which
    `pipeline train` shares with its own defaults of classifier, templates, feature count and
    sentence runs, which the help tells): the classifier, the greedy parser's templates and
    splits, the beam parser's settings, the backend's settings."""
    train.add_argument("--classifier", default=classifier,
                       choices=(*CLASSIFIER_DEFAULTS, STRUCTURED),
                       help=f"default: %(default)s; {STRUCTURED}: beam search with a globally "
                            "trained perceptron (Zhang & Nivre 2011)")
    train.add_argument("--features", dest="feature_set", choices=FEATURE_SETS,
                       help=f"greedy parsers' templates (default: {feature_set}; morph also "
                            "reads FEATS values and suffixes)")
    train.add_argument("--split-column", choices=SPLIT_COLUMNS,
                       help=f"greedy parsers' split (default: {ParserConfig.split_column})")
    train.add_argument("--tag-column", default=ParserConfig.tag_column, choices=TAG_COLUMNS,
                       help="tag column read by the feature templates (default: %(default)s)")
    train.add_argument("--split-threshold", type=int,
                       help="greedy parsers: splits with fewer training states are pooled "
                            f"(default {ParserConfig.split_threshold})")
    beam_defaults = {"sentence_runs": sentence_runs}
    for option, reading, what in BEAM_TRAINING_OPTIONS:
        name = option[2:].replace("-", "_")
        default = beam_defaults.get(name, getattr(BeamConfig, name))
        train.add_argument(option, **reading, help=f"{STRUCTURED}: {what} (default {default})")
    add_backend_settings(train, CLASSIFIER_DEFAULTS)
    train.add_argument("--min-word-count", type=int, default=ParserConfig.min_word_count,
                       help="rarer word forms are read as unknown in training (default "
                            "%(default)s)")
    train.add_argument("--min-feature-count", type=int,
                       help="features of fewer training states are dropped (greedy parsers: "
                            f"the oracle's states, default {min_feature_count}; {STRUCTURED}: "
                            f"the gold sequences' states, default {beam_min_feature_count})")
    train.add_argument("--threads", type=int,
                       help=f"greedy parsers: splits trained in parallel (default: "
                            f"{ParserConfig.threads})")


def add_io_options(command: argparse.ArgumentParser, formats: tuple[str, ...] = FORMATS) -> None:
    command.add_argument("--format", default="conllu", choices=formats,
                         help="raw: plain text, paragraphs separated by blank lines; tokens: "
                              "one sentence a line, tokens separated by spaces; lines: one "
                              "sentence a line, tokenized (all written as CoNLL-U)"
                              if len(formats) > len(FORMATS) else None)
    command.add_argument("--encoding", default="utf-8", type=text_encoding,
                         help="of the input and output files and of stdout (default utf-8)")


def read_all(path: str | None, args: argparse.Namespace, require_tree: bool,
             stream: BinaryIO | None = None, name: str | None = None) -> list[Sentence]:
    """All sentences of path (or of stream, named name); UD (CoNLL-U) trees must be
    single-rooted, CoNLL-X ones may have several roots and unlabelled arcs ("_", as in the
    CoNLL 2007 Spanish data)."""
    conllu = args.format == "conllu"
    return list(read_conll(path, fmt=args.format, encoding=args.encoding,
                           require_tree=require_tree, single_root=conllu, require_deprel=conllu,
                           stream=stream, name=name))


def beam_option(text: str) -> int:
    """A --beam value: a whole number 1 to MAX_BEAM (checked as the option is read)."""
    try:
        beam = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    try:
        return beam_width(beam)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


# The beam-search parser's settings that `dep train` takes (None unless given: training_config
# refuses them for a greedy parser): the option (a field of BeamConfig), how argparse reads it
# and what it does.
BEAM_TRAINING_OPTIONS: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("--beam", {"type": beam_option},
     f"hypotheses kept at each step, 1 to {MAX_BEAM}"),
    ("--update", {"choices": UPDATES}, "the perceptron's update"),
    ("--epochs", {"type": int},
     "the most passes over the training sentences; with --dev the best epoch is kept"),
    ("--patience", {"type": int},
     "with --dev, epochs without a better dev UAS before training stops"),
    ("--sentence-runs", {"type": int},
     "learn from runs of 1 to N consecutive sentences (one root each), so that the parser "
     "finds sentence ends inside raw text's segments"),
)


def run_train(args: argparse.Namespace) -> int:
    from polyparse.parser.dependency.training_config import TRAINING_SETTINGS, training_config

    log = progress_log(args)
    check_output_path(args.model, "model")
    try:
        config = training_config(args.classifier, **given_settings(args, TRAINING_SETTINGS))
    except ValueError as error:
        raise InputError(f"dep train: {option_error(args, error)}") from None
    check_workers(args, "dep train")
    check_training_files(args)
    train, train_sha256 = read_hashed(args.train, lambda stream, name: read_all(
        None, args, require_tree=True, stream=stream, name=name))
    dev = read_all(args.dev, args, require_tree=True) if args.dev else None
    from polyparse.parser.dependency.training import train_dependency_model

    with training_executor(args) as executor:
        parser, scores = train_dependency_model(
            train, config, dev, log=log, progress=shows_progress(args),
            warn=lambda message: warn(f"{args.dev}: {message}"), executor=executor)
    header = {"training_command": shlex.join(["polyparse"] + sys.argv[1:]),
              "train_sha256": train_sha256}
    if scores is not None:
        header["dev_scores"] = scores.as_dict()
    parser.save(args.model, extra_header=header, compress=bool(args.compress))
    log(f"model written to {args.model}")
    return 0


def run_parse(args: argparse.Namespace) -> int:
    from polyparse.parser.pipeline.dependency_service import open_parser, parser_files

    text_input = args.format not in FORMATS
    if args.tokenizer is not None and not text_input:
        raise InputError("dep parse: --tokenizer applies to --format raw or tokens")
    check_scale_out(args, "dep parse", args.encoding)
    if text_input and wants_scale_out(args):
        raise InputError(f"dep parse: --format {args.format} is read in one process (shards "
                         "are cut from CoNLL files): tokenize it first, or leave out "
                         "--workers, --scheduler and --output-dir")
    files = parser_files(args.model, args.tagger, args.tokenizer)
    try:
        opened = open_parser(files, reads=args.input, writes=args.output,
                             eval_mode=args.eval_mode, rare_threshold=args.rare_threshold,
                             beam=args.beam)
    except ValueError as error:
        raise InputError(f"dep parse: {files.model}: {option_error(args, error)}") from None
    coverage = opened.model.tag_coverage()
    if wants_scale_out(args):
        return shard_parse(args, opened, coverage)
    try:
        pipeline = opened.file_pipeline(args.format, args.encoding, args.keep_deps, coverage)
    except ValueError as error:
        raise InputError(f"dep parse: {error} (--tagger FILE; `polyparse tag train` makes "
                         "one)") from None
    parse = streamed(pipeline)
    code = parse_streams(args, coverage, parse)
    for line in pipeline.done():
        progress_log(args)(line)
    return code


def shard_parse(args: argparse.Namespace, opened: Any, coverage: Any) -> int:
    """`dep parse` with --workers, --scheduler or --output-dir (parser/scale_out)."""
    task = opened.shard_task(args.format, args.encoding, args.keep_deps)
    settings = {"format": args.format, "encoding": args.encoding, "keep_deps": args.keep_deps,
                "eval_mode": args.eval_mode, "rare_threshold": args.rare_threshold,
                "beam": args.beam}
    return parse_in_shards(args, "dep parse", task, opened, opened.files.model, args.format,
                           settings, coverage)


def run_evaluate(args: argparse.Namespace) -> int:
    from polyparse.parser.dependency.evaluate import evaluate

    if wants_report(args, "dep evaluate"):
        return run_dependency_report(args, scored_trees)
    check_input_paths([args.gold, args.system])
    scores = evaluate(scored_trees(args, args.gold), scored_trees(args, args.system),
                      punct=args.punct, gold_name=args.gold,
                      system_name="<stdin>" if args.system == "-" else args.system)
    if args.json:
        print(json.dumps(scores.as_dict(), sort_keys=True))
    else:
        print(scores.summary())
    return 0


def scored_trees(args: argparse.Namespace, path: str) -> Iterator[Sentence]:
    """The trees of a gold or system file of dep evaluate, as strict as conll18_ud_eval.py on
    CoNLL-U (one root a sentence, an empty line at the end) unless --lenient."""
    conllu = args.format == "conllu"
    strict = conllu and not args.lenient
    return read_conll(path, fmt=args.format, encoding=args.encoding, require_tree=True,
                      single_root=strict, require_deprel=conllu, require_final_blank=strict)


def run_convert(args: argparse.Namespace) -> int:
    from polyparse.parser.dependency.models import load_dependency_model

    if args.rare_threshold is not None and args.to != "split":
        raise InputError(f"dep convert: --rare-threshold applies to --to split, not {args.to}")
    log = progress_log(args)
    check_output_path(args.output, "model")
    check_input_paths([args.model])
    check_output_apart(args.output, [args.model], "converted model")
    parser = load_dependency_model(args.model)
    rare_threshold = "auto" if args.rare_threshold is None else args.rare_threshold
    try:
        count = parser.convert(args.to, rare_threshold)
    except ValueError as error:
        raise InputError(f"dep convert: {args.model}: {error}") from None
    parser.save(args.output, extra_header={
        key: parser.header[key] for key in ("training_command", "train_sha256", "dev_scores")
        if key in parser.header}, compress=args.compress)
    log(f"converted {count} classifiers to {args.to} -> {args.output}")
    return 0
