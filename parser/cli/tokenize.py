"""`polyparse tokenize train|tokenize|evaluate`: sentences and tokens of raw text (a segmenter
learned from a treebank of any language), the model that finds them, and their scores against a
treebank."""
from __future__ import annotations

import argparse
import json
import shlex
import sys

from polyparse.features.errors import InputError
from polyparse.features.input_files import check_input_paths
from polyparse.features.output_files import check_output_apart, check_output_path
from polyparse.parser.cli.common import (
    add_train_command,
    parse_streams,
    progress_log,
    read_hashed,
    streamed,
    subcommands,
    text_encoding,
)
from polyparse.parser.formats.text_lines import TEXT_FORMATS


def register(group: argparse.ArgumentParser) -> None:
    """The `tokenize` group's subcommands, added to its parser."""
    commands, parent = subcommands(group, ("train", "tokenize", "evaluate"))

    train = add_train_command(
        commands, parent, "learn a tokenizer model from a UD treebank",
        "Learns a segmenter of any language from a CoNLL-U treebank with # text lines, "
        "# newpar and SpaceAfter=No: classifiers over the character boundaries of the "
        "treebank's text (token and sentence ends) and its multiword tokens' table and rules, "
        "with no rule of one language.",
        train_help="training treebank (CoNLL-U)",
        dev_help="development treebank: its raw text is tokenized and scored after training")
    train.add_argument("--learned", action="store_true",
                       help="does nothing: every tokenizer model is a learned segmenter (the flag "
                            "that chose it once, accepted so that older command lines run)")
    train.set_defaults(run=run_train)

    tokenize = commands.add_parser(
        "tokenize", parents=[parent], help="sentences and tokens of text, as CoNLL-U",
        description="Writes CoNLL-U blocks (# sent_id, # text, # newpar, range lines for "
                    "multiword tokens, SpaceAfter=No) that give back the input text exactly.")
    tokenize.add_argument("input", nargs="?", default="-", help="text file, or - for stdin")
    tokenize.add_argument("--model", help="tokenizer model, or a pipeline file (its tokenizer; "
                                          "default: the bundled English pipeline's)")
    tokenize.add_argument("-o", "--output", help="output file (default stdout)")
    add_text_options(tokenize)
    tokenize.set_defaults(run=run_tokenize, uses_numpy=False)

    evaluate = commands.add_parser(
        "evaluate", parents=[parent], help="Tokens, Sentences and Words scores of a tokenization",
        description="Scores the tokens, sentences and words of a CoNLL-U file against a gold "
                    "one as conll18_ud_eval.py does (precision, recall, F1).")
    evaluate.add_argument("gold", help="gold CoNLL-U file")
    evaluate.add_argument("system", help="system CoNLL-U file, or - for stdin")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")
    evaluate.add_argument("--encoding", default="utf-8", type=text_encoding,
                          help="of both files (default utf-8)")
    evaluate.set_defaults(run=run_evaluate, uses_numpy=False)


def add_text_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--format", default="raw", choices=TEXT_FORMATS,
                         help="raw: plain text, paragraphs separated by blank lines (default); "
                              "tokens: one sentence a line, tokens separated by spaces; lines: "
                              "one sentence a line, tokenized (text already split into "
                              "sentences)")
    command.add_argument("--encoding", default="utf-8", type=text_encoding,
                         help="of the input and output (default utf-8)")


def run_train(args: argparse.Namespace) -> int:
    """A segmenter of any language (parser/segmentation), its dev scores (from the dev
    treebank's raw text) kept in its header."""
    log = progress_log(args)
    check_output_path(args.model, "model")
    check_input_paths([args.train, args.dev])
    check_output_apart(args.model, [args.train, args.dev], "model")
    from polyparse.parser.formats.conll import read_conll
    from polyparse.parser.segmentation.training import train_segmenter

    sentences, train_sha256 = read_hashed(args.train, lambda stream, name: list(read_conll(
        None, require_deprel=False, stream=stream, name=name)))
    try:
        model = train_segmenter(sentences, args.dev, log=log)
    except ValueError as error:
        raise InputError(f"tokenize train: {args.train}: {error}") from None
    model.header.update({"training_command": shlex.join(["polyparse"] + sys.argv[1:]),
                         "train_sha256": train_sha256})
    scores = model.header.get("dev_scores")
    if scores:
        log("dev: " + "  ".join(f"{key} {value:.2f}" for key, value in scores.items()))
    model.save(args.model)
    log(f"model written to {args.model}")
    return 0


def run_tokenize(args: argparse.Namespace) -> int:
    check_output_path(args.output)
    check_input_paths([args.input, args.model])
    check_output_apart(args.output, [args.input, args.model])
    from polyparse.parser.pipeline.pipeline import Pipeline
    from polyparse.parser.pipeline.word_stages import SentenceWriter, TextReader
    from polyparse.parser.tokenize.model import load_tokenizer

    reader = TextReader(load_tokenizer(args.model), args.format, args.encoding)
    return parse_streams(args, None, streamed(Pipeline(reader, [], SentenceWriter())),
                         desc="tokenizing")


def run_evaluate(args: argparse.Namespace) -> int:
    from polyparse.parser.dependency.evaluate import evaluate
    from polyparse.parser.formats.conll import read_conll

    check_input_paths([args.gold, args.system])
    gold = read_conll(args.gold, encoding=args.encoding, require_deprel=False)
    system = read_conll(args.system, encoding=args.encoding, require_deprel=False)
    scores = evaluate(gold, system, gold_name=args.gold,
                      system_name="<stdin>" if args.system == "-" else args.system)
    result = {}
    for name in ("Tokens", "Sentences", "Words"):
        result[name] = getattr(scores, name)
        result[f"{name}_precision"] = scores.precision[name]
        result[f"{name}_recall"] = scores.recall[name]
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print("  ".join(f"{name} P {result[name + '_precision']:.2f} R "
                        f"{result[name + '_recall']:.2f} F1 {result[name]:.2f}"
                        for name in ("Tokens", "Sentences", "Words")))
    return 0
