"""`polyparse dep train|parse|evaluate`: the dependency parser on CoNLL-U / CoNLL-X files."""
from __future__ import annotations

import argparse
import json
import shlex
import sys

from classifiers.evaluators.evaluator_model import BACKENDS as CONVERSIONS
from classifiers.evaluators.modes import DEFAULT_EVAL_MODE, EVAL_MODES
from classifiers.evaluators.split_svm import parse_rare_threshold
from features.errors import InputError
from features.output_files import check_output_path, is_regular_stream, output_stream
from parser.cli.common import (
    debug_parent,
    file_sha256,
    input_stream,
    log,
    progress_bar,
    ready_batches,
    warn,
)
from parser.dependency.config import ParserConfig, classifier_options
from parser.dependency.evaluate import METRICS, PUNCT_POLICIES, evaluate
from parser.dependency.tag_coverage import TagCoverage
from parser.formats.conll import FORMATS, Sentence, read_conll, write_conll

PARSE_BATCH = 2000


def register(groups: argparse._SubParsersAction) -> None:
    dep = groups.add_parser("dep", help="arc-eager dependency parsing of CoNLL-U / CoNLL-X")
    commands = dep.add_subparsers(dest="command", metavar="{train,parse,evaluate,convert}",
                                  required=True)
    parent = debug_parent()

    train = commands.add_parser("train", parents=[parent], help="train a parser model")
    train.add_argument("--train", required=True, help="training treebank")
    train.add_argument("--dev", help="development treebank, scored after training")
    train.add_argument("--model", required=True, help="model file to write")
    train.add_argument("--classifier", default="poly2-linear",
                       choices=["poly2-linear", "linear", "kernel-svm", "pa-slicing"])
    train.add_argument("--features", default="chang2010", choices=["chang2010", "rich"])
    train.add_argument("--split-column", default="xpos", choices=["xpos", "upos", "none"])
    train.add_argument("--tag-column", default="xpos", choices=["xpos", "upos"],
                       help="tag column read by the feature templates")
    train.add_argument("--split-threshold", type=int, default=1000,
                       help="splits with fewer training states are pooled (default 1000)")
    train.add_argument("-C", type=float,
                       help="SVM cost C (default 0.1 for the linear backends, 1 for kernel-svm "
                            "and pa-slicing)")
    train.add_argument("--degree", type=int,
                       help="kernel-svm, pa-slicing: degree d of the polynomial kernel "
                            "(default 2)")
    train.add_argument("--gamma", type=float, help="kernel-svm: gamma (default 0.2)")
    train.add_argument("--coef0", type=float, help="kernel-svm: coef0 (default 0.4)")
    train.add_argument("--eps", type=float,
                       help="kernel-svm: SMO stopping tolerance (default 0.1; the kernel-svm "
                            "defaults are MaltParser's libsvm settings -g 0.2 -r 0.4 -c 1 -e 0.1)")
    train.add_argument("--cache-mb", type=float,
                       help="kernel-svm: kernel cache per binary problem in MB (default 100)")
    train.add_argument("--iterations", type=int,
                       help="pa-slicing: passes over the training states (default 20)")
    train.add_argument("--strategy", choices=["kernel", "expand", "split", "slice"],
                       help="pa-slicing: margin strategy; all give the same model (default slice)")
    train.add_argument("--variant", choices=["pa1", "pa", "pa2", "perceptron"],
                       help="pa-slicing: the online update (default pa1: PA-I)")
    train.add_argument("--no-average", dest="average", action="store_false", default=None,
                       help="pa-slicing: keep the last parameters instead of their average")
    train.add_argument("--min-pair-count", type=int,
                       help="poly2-linear: feature pairs seen in fewer training states are "
                            "dropped (default 1)")
    train.add_argument("--min-word-count", type=int, default=1,
                       help="rarer word forms are read as unknown in training (default 1)")
    train.add_argument("--compress", action="store_true",
                       help="store the model's arrays zlib-compressed (smaller file, slower load)")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--threads", type=int, default=2, help="splits trained in parallel")
    add_io_options(train)
    train.set_defaults(run=run_train)

    parse = commands.add_parser("parse", parents=[parent], help="parse a file or stdin")
    parse.add_argument("input", nargs="?", default="-", help="CoNLL file, or - for stdin")
    parse.add_argument("--model", help="parser model file (default: the bundled English model)")
    parse.add_argument("-o", "--output", help="output file (default stdout)")
    parse.add_argument("--keep-deps", action="store_true",
                       help="keep the input's DEPS column (CoNLL-X: PHEAD, PDEPREL); by default "
                            "it is written as _, since it no longer matches the new tree")
    parse.add_argument("--eval-mode", choices=EVAL_MODES,
                       help="how kernel models are evaluated; all give the same trees "
                            f"(default {DEFAULT_EVAL_MODE}; a converted model its own, and a pki "
                            "model, like the bundled one, builds any other from its index)")
    parse.add_argument("--rare-threshold", type=parse_rare_threshold,
                       help="split evaluation: features held by fewer support vectors (a count, "
                            "or a fraction of them) are rare (default auto)")
    add_io_options(parse)
    parse.set_defaults(run=run_parse)

    keys = "; ".join(f"{key}: {meaning}" for key, meaning in METRICS.items())
    evaluate = commands.add_parser(
        "evaluate", parents=[parent], help="UAS, LAS, CLAS, MLAS, BLEX of a parse",
        description="Scores a system file against a gold file as the CoNLL 2018 shared task "
                    "does (conll18_ud_eval.py): words are aligned through the text, so the "
                    "tokenizations may differ; scores are F1 percentages. JSON keys: " + keys)
    evaluate.add_argument("gold", help="gold file")
    evaluate.add_argument("system", help="system output, or - for stdin")
    evaluate.add_argument("--punct", default="none", choices=PUNCT_POLICIES,
                          help="words left out of the scores: none (default), upos (UPOS "
                               "PUNCT), unicode (every character punctuation, eval.pl), ptb "
                               "(PTB punctuation XPOS)")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")
    add_io_options(evaluate)
    evaluate.set_defaults(run=run_evaluate)

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


def add_io_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--format", default="conllu", choices=FORMATS)
    command.add_argument("--encoding", default="utf-8")


def read_all(path: str, args: argparse.Namespace, require_tree: bool) -> list[Sentence]:
    """All sentences; UD (CoNLL-U) trees must be single-rooted, CoNLL-X ones may have several
    roots and unlabelled arcs ("_", as in the CoNLL 2007 Spanish data)."""
    conllu = args.format == "conllu"
    return list(read_conll(path, fmt=args.format, encoding=args.encoding,
                           require_tree=require_tree, single_root=conllu, require_deprel=conllu))


def run_train(args: argparse.Namespace) -> int:
    from parser.dependency.training import train_parser

    check_output_path(args.model, "model")
    try:
        params = classifier_options(
            args.classifier, C=args.C, degree=args.degree, gamma=args.gamma, coef0=args.coef0,
            eps=args.eps, cache_mb=args.cache_mb, iterations=args.iterations,
            strategy=args.strategy, variant=args.variant, average=args.average,
            min_pair_count=args.min_pair_count)
        config = ParserConfig(feature_set=args.features, tag_column=args.tag_column,
                              split_column=args.split_column,
                              split_threshold=args.split_threshold,
                              min_word_count=args.min_word_count, classifier=args.classifier,
                              classifier_params=params, seed=args.seed, threads=args.threads)
    except ValueError as error:
        raise InputError(f"dep train: {error}") from None
    train = read_all(args.train, args, require_tree=True)
    dev = read_all(args.dev, args, require_tree=True) if args.dev else None
    parser, scores = train_parser(train, config, dev, log=log, progress=True)
    header = {"training_command": shlex.join(["polyparse"] + sys.argv[1:]),
              "train_sha256": file_sha256(args.train)}
    if scores is not None:
        header["dev_scores"] = scores.as_dict()
    parser.save(args.model, extra_header=header, compress=args.compress)
    log(f"model written to {args.model}")
    return 0


def run_parse(args: argparse.Namespace) -> int:
    from parser.dependency.dependency_parser import DependencyParser

    check_output_path(args.output)
    model = args.model
    if model is None:
        from parser.models.bundled import bundled_model

        found = bundled_model()
        if found is None:
            raise InputError("dep parse: no --model given and this installation has no bundled "
                             "model")
        model = str(found)
    parser = DependencyParser.load(model)
    converted = parser.info.get("converted")
    eval_mode = args.eval_mode or (converted["evaluator"] if converted else DEFAULT_EVAL_MODE)
    if converted and eval_mode != converted["evaluator"] and converted["evaluator"] != "pki":
        raise InputError(f"dep parse: {model} holds classifiers converted to "
                         f"{converted['evaluator']}, which keep no support vectors to build "
                         f"{eval_mode} from (a pki model does)")
    if args.rare_threshold is not None and eval_mode != "split":
        raise InputError(f"dep parse: --rare-threshold applies to --eval-mode split, not "
                         f"{eval_mode}")
    parser.set_evaluation(eval_mode, "auto" if args.rare_threshold is None else args.rare_threshold)
    name = "<stdin>" if args.input == "-" else args.input
    coverage = TagCoverage(parser)
    progress = progress_bar(unit=" sent", desc="parsing")
    with input_stream(args.input) as (stream, more_ready), \
            output_stream(args.output, encoding=args.encoding) as out:
        sentences = read_conll(None, fmt=args.format, encoding=args.encoding, stream=stream,
                               name=name)
        flush = not is_regular_stream(out)
        for batch in ready_batches(sentences, PARSE_BATCH, more_ready):
            for sentence, (heads, deprels) in zip(batch, parser.parse(batch)):
                write_conll(sentence, heads, deprels, out, keep_deps=args.keep_deps,
                            fmt=args.format)
            coverage.add(batch)
            if flush:
                out.flush()
            progress.update(len(batch))
    progress.close()
    warning = coverage.warning(name)
    if warning:
        warn(warning)
    return 0


def run_evaluate(args: argparse.Namespace) -> int:
    if args.gold == "-":
        raise InputError("dep evaluate: the gold file must be a file; only the system output "
                         "may come from stdin (-)")
    conllu = args.format == "conllu"
    gold = read_conll(args.gold, fmt=args.format, encoding=args.encoding, require_tree=True,
                      single_root=False, require_deprel=conllu)
    system = read_conll(args.system, fmt=args.format, encoding=args.encoding,
                        require_tree=True, single_root=False, require_deprel=conllu)
    scores = evaluate(gold, system, punct=args.punct, gold_name=args.gold,
                      system_name="<stdin>" if args.system == "-" else args.system)
    if args.json:
        print(json.dumps(scores.as_dict(), sort_keys=True))
    else:
        print(scores.summary())
    return 0


def run_convert(args: argparse.Namespace) -> int:
    from parser.dependency.dependency_parser import DependencyParser

    if args.rare_threshold is not None and args.to != "split":
        raise InputError(f"dep convert: --rare-threshold applies to --to split, not {args.to}")
    check_output_path(args.output, "model")
    parser = DependencyParser.load(args.model)
    if parser.info.get("converted"):
        raise InputError(f"dep convert: {args.model} is already converted "
                         f"({parser.info['converted']['evaluator']}); convert the model it "
                         "came from")
    rare_threshold = "auto" if args.rare_threshold is None else args.rare_threshold
    try:
        count = parser.convert(args.to, rare_threshold)
    except ValueError as error:
        raise InputError(f"dep convert: {args.model}: {error}") from None
    if count == 0:
        raise InputError(f"dep convert: {args.model} has no kernel classifiers (its backend is "
                         f"{parser.config.classifier}); nothing to convert")
    parser.save(args.output, extra_header={
        key: parser.header[key] for key in ("training_command", "train_sha256", "dev_scores")
        if key in parser.header}, compress=args.compress)
    log(f"converted {count} classifiers to {args.to} -> {args.output}")
    return 0
