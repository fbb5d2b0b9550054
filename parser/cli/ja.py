"""`polyparse ja train|parse|evaluate`: the Japanese bunsetsu dependency parser on KNP and
CaboCha files. The arguments and their defaults come from parser/bunsetsu/config.py; each run
function imports the parser when it runs."""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any, BinaryIO

from polyparse.features.errors import InputError
from polyparse.features.input_files import check_input_paths, input_name
from polyparse.features.output_files import check_output_apart, check_output_path
from polyparse.parser.bunsetsu.config import (
    ALGORITHMS,
    CLASSIFIER_DEFAULTS,
    EVALUATORS,
    NO_CONVERSION,
    TRAINING_THREADS,
    BunsetsuConfig,
    chunker_options,
    classifier_options,
)
from polyparse.parser.bunsetsu.tagset_coverage import TAGSET_NAMES
from polyparse.parser.cli.common import (
    add_backend_settings,
    backend_values,
    log,
    option_error,
    parse_streams,
    progress_bar,
    progress_log,
    shows_progress,
    streamed,
    subcommands,
    text_encoding,
    warn,
)
from polyparse.parser.cli.evaluation_report import (
    add_report_options,
    bunsetsu_summary,
    run_bunsetsu_report,
    wants_report,
)
from polyparse.parser.cli.scale_out import (
    add_scale_out_options,
    check_scale_out,
    parse_in_shards,
    wants_scale_out,
)
from polyparse.parser.cli.show import register_show
from polyparse.parser.formats.bunsetsu import BUNSETSU_FORMATS, INPUT_FORMATS, read_bunsetsu
from polyparse.parser.formats.bunsetsu_sniff import FORMAT_NAMES
from polyparse.parser.formats.knp_documents import document_paths
from polyparse.parser.formats.text_lines import ENCODING_ERRORS
from polyparse.parser.models.bundled import (
    TEXT_TAGSET,
    bundled_japanese_name,
)


def register(ja: argparse.ArgumentParser) -> None:
    """The `ja` group's subcommands, added to its parser."""
    commands, parent = subcommands(ja, ("train", "parse", "evaluate", "show"))

    train = commands.add_parser("train", parents=[parent], help="train a parser model")
    train.add_argument("--train", nargs="+", metavar="FILE", help="training files")
    train.add_argument("--ids", help="document id list (with --corpus) instead of --train")
    train.add_argument("--corpus", help="the KNP folder the ids name (e.g. kwdlc/knp)")
    train.add_argument("--dev", help="development file, scored after training")
    train.add_argument("--model", required=True, help="model file to write")
    train.add_argument("--algorithm", default=BunsetsuConfig.algorithm, choices=ALGORITHMS,
                       help="default: %(default)s")
    train.add_argument("--classifier", default=BunsetsuConfig.classifier,
                       choices=tuple(CLASSIFIER_DEFAULTS), help="default: %(default)s")
    add_backend_settings(train, CLASSIFIER_DEFAULTS)
    train.add_argument("--evaluator", default=BunsetsuConfig.evaluator,
                       choices=EVALUATORS + (NO_CONVERSION,),
                       help=f"what a kernel model is stored as (default %(default)s; "
                            f"{NO_CONVERSION} keeps the kernel model)")
    train.add_argument("--no-chunker", dest="chunker", action="store_false",
                       help="do not train the bunsetsu chunker")
    train.add_argument("--chunker-C", type=float, dest="chunker_C",
                       help="the chunker's regularisation (default: pa-slicing 1, else -C)")
    train.add_argument("--chunker-iterations", type=int,
                       help="the chunker's passes (default: pa-slicing 10, else --iterations)")
    train.add_argument("--strict", action="store_true",
                       help="stop at a malformed training sentence instead of skipping it")
    train.add_argument("--seed", type=int, default=BunsetsuConfig.seed,
                       help="default: %(default)s")
    train.add_argument("--threads", type=int, default=TRAINING_THREADS,
                       help="classifiers trained at once (the model does not depend on it; "
                            "default %(default)s)")
    add_io_options(train)
    train.set_defaults(run=run_train, options=train)

    parse = commands.add_parser("parse", parents=[parent], help="parse a file or stdin")
    parse.add_argument("input", nargs="?", default="-",
                       help="KNP, CaboCha or MeCab file, or raw text; - for stdin")
    parse.add_argument("--model", help="parser model file, or a bundled model's name: ja_wac "
                                        "(JUMAN's parts of speech), ja_unidic (UniDic's) or "
                                        "ja_ipadic (IPAdic's); default: the bundled model of "
                                        "the input's parts of speech (ja_unidic for raw text)")
    parse.add_argument("-o", "--output", help="output file (default stdout)")
    parse.add_argument("--rechunk", action="store_true",
                       help="chunk every sentence, even those with bunsetsu lines")
    add_io_options(parse, INPUT_FORMATS,
                   "knp, cabocha; mecab: MeCab's output; raw: one sentence a line, segmented by "
                   "MeCab with the dictionary of the model's tags (UniDic: pip install "
                   "'polyparse[mecab]')")
    parse.add_argument("--output-format", choices=BUNSETSU_FORMATS,
                       help="default: the input's (cabocha for mecab and raw)")
    add_scale_out_options(parse)
    parse.set_defaults(run=run_parse)

    evaluate = commands.add_parser("evaluate", parents=[parent],
                                   help="dependency and sentence accuracy (and chunk F1)")
    evaluate.add_argument("gold", help="gold file")
    evaluate.add_argument("system", help="system output, or - for stdin")
    add_report_options(evaluate)
    evaluate.add_argument("--chunked", action="store_true",
                          help="report chunk F1 even when every bunsetsu matches")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")
    evaluate.add_argument("--by-characters", action="store_true",
                          help="compare bunsetsu by their characters (a parse of raw text, "
                               "whose morphemes are not the gold file's): chunk and dependency "
                               "precision, recall and F1")
    evaluate.add_argument("--gold-format", choices=BUNSETSU_FORMATS,
                          help="the gold file's format (default: --input-format, else what "
                               "its first lines show)")
    add_io_options(evaluate)
    evaluate.set_defaults(run=run_evaluate, uses_numpy=False)
    register_show(commands, parent, "ja", BUNSETSU_FORMATS)


def add_io_options(command: argparse.ArgumentParser,
                   formats: tuple[str, ...] = BUNSETSU_FORMATS, help: str | None = None) -> None:
    command.add_argument("--input-format", "--format", dest="format", choices=formats,
                         help=f"{help or 'knp or cabocha'} (default: what the input's first "
                              "lines show, knp when they tell nothing)")
    command.add_argument("--encoding", default="utf-8", type=text_encoding,
                         help="of the input and output files and of stdout (default utf-8)")
    command.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS,
                         help="a byte that is not valid in the encoding: strict stops at it "
                              "(naming its line, after writing every sentence before it), "
                              "replace reads it as U+FFFD (default %(default)s)")


def run_train(args: argparse.Namespace) -> int:
    from polyparse.parser.bunsetsu.bunsetsu_files import parsed_scores, training_sentences
    from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser

    log = progress_log(args)
    check_output_path(args.model, "model")
    if bool(args.ids) != bool(args.corpus):
        raise InputError("ja train: --ids and --corpus go together")
    if bool(args.train) == bool(args.ids):
        raise InputError("ja train: give either --train FILE... or --ids with --corpus")
    if args.threads < 1:
        raise InputError("ja train: --threads must be at least 1")
    if args.ids and args.format not in (None, "knp"):
        raise InputError("ja train: --ids reads KNP documents; --input-format must be knp")
    try:
        params = classifier_options(args.classifier, **backend_values(
            args, args.classifier, CLASSIFIER_DEFAULTS))
        if not args.chunker and (args.chunker_C is not None
                                 or args.chunker_iterations is not None):
            raise ValueError("--chunker-C and --chunker-iterations need the chunker "
                             "(not --no-chunker)")
        config = BunsetsuConfig(algorithm=args.algorithm, classifier=args.classifier,
                                classifier_params=params, evaluator=args.evaluator,
                                chunker=args.chunker, seed=args.seed,
                                chunker_params=chunker_options(args.classifier, params,
                                                               args.chunker_C,
                                                               args.chunker_iterations))
        parser = BunsetsuParser(config)
    except ValueError as error:
        raise InputError(f"ja train: {option_error(args, error)}") from None
    check_input_paths([*(args.train or []), args.ids, args.dev])
    check_output_apart(args.model, [*(args.train or []), args.ids, args.dev], "model")
    paths = document_paths(Path(args.ids), Path(args.corpus)) if args.ids else args.train
    digests: list[str] = []
    sentences, skipped = training_sentences(
        paths, args.format, args.encoding, args.strict,
        lambda sentence, problem: warn(f"skipped {sentence.sid or 'sentence'}: {problem}"),
        digests if args.train else None, errors=args.encoding_errors)
    if skipped:
        warn(f"skipped {skipped} malformed training sentence{'s' * (skipped != 1)} "
             f"of {skipped + len(sentences)}")
    dev = list(read_bunsetsu(args.dev, args.format, encoding=args.encoding,
                             errors=args.encoding_errors)) if args.dev else None
    if not sentences:
        raise InputError("ja train: no well-formed training sentences")
    log(f"training on {len(sentences)} sentences")
    progress = progress_bar(args, total=parser.n_classifiers(), unit=" classifiers",
                            desc="training")
    try:
        parser.train(sentences, log=log, threads=args.threads, progress=progress.update)
    finally:
        progress.close()
    header = {"training_command": shlex.join(["polyparse"] + sys.argv[1:])}
    if args.train:
        header["train_sha256"] = digests
    if dev is not None:
        scores = parsed_scores(dev, parser.parse(dev, chunk=False))
        header["dev_scores"] = scores
        log(f"dev: dependency accuracy {scores['dependency_accuracy']:.2f}, sentence "
            f"accuracy {scores['sentence_accuracy']:.2f}")
    parser.save(args.model, extra_header=header)
    log(f"model written to {args.model}")
    return 0


def run_parse(args: argparse.Namespace) -> int:
    from polyparse.features.input_files import input_stream
    from polyparse.parser.formats.bunsetsu_sniff import format_hint, sniff_input
    from polyparse.parser.pipeline.bunsetsu_service import japanese_model_file, open_japanese_parser
    from polyparse.parser.tokenize.mecab import require_mecab

    check_output_path(args.output)
    check_scale_out(args, "ja parse", args.encoding)
    check_rechunk(args.format, args.rechunk)
    named = bundled_japanese_name(args.model) if args.model else None
    model_file = args.model if args.model and not named else None
    check_input_paths([args.input, model_file])
    check_output_apart(args.output, [args.input, model_file])
    if args.format == "raw" and not args.model:
        require_mecab(TEXT_TAGSET)
    with input_stream(args.input) as (source, more_ready):
        # The input's first lines tell its format and tags (read once: the parse reads them
        # again from sniffed.stream), and so the bundled model that reads them.
        sniffed = sniff_input(source, args.encoding, raw=True, more_ready=more_ready,
                              tagset=True)
        fmt = args.format or sniffed.format or "knp"
        name = input_name(args.input)
        check_rechunk(fmt, args.rechunk)
        # (CaboCha's tabs stop raw text at its first morpheme line, with format_hint's words.)
        if args.format == "raw" and sniffed.format == "knp":
            warn(f"{name}: --format raw reads every line as a sentence of text, but this looks "
                 f"like {FORMAT_NAMES[sniffed.format]} (line {sniffed.line_number}: "
                 f"{sniffed.line[:40]!r})")
        path, chosen = japanese_model_file(args.model, fmt, sniffed.tagset)
        if chosen and not named and shows_progress(args):
            log(f"{name}: {TAGSET_NAMES.get(sniffed.tagset, 'JUMAN')}'s parts of speech: "
                f"the bundled model {chosen}")
        opened = open_japanese_parser(path)
        if fmt == "raw":
            require_mecab(opened.text_tagset)
        if args.rechunk and not opened.model.can_chunk:
            raise InputError(f"ja parse: {path} has no bunsetsu chunker (trained with "
                             "--no-chunker); --rechunk needs one")
        coverage = opened.model.tag_coverage()
        with format_hint(sniffed, fmt):
            if wants_scale_out(args):
                return shard_parse(args, opened, coverage, fmt, sniffed.stream)
            pipeline = opened.pipeline(fmt, args.encoding, args.encoding_errors, args.rechunk,
                                       args.output_format, coverage)
            return parse_streams(args, coverage, streamed(pipeline),
                                 binary=getattr(pipeline, "binary", False),
                                 stream=sniffed.stream)


def check_rechunk(fmt: str | None, rechunk: bool) -> None:
    """--rechunk needs bunsetsu lines, which MeCab's output and raw text do not have."""
    if fmt in ("mecab", "raw") and rechunk:
        raise InputError(f"ja parse: --rechunk reads bunsetsu lines; {FORMAT_NAMES[fmt]} "
                         "has none (its sentences are always chunked)")


def shard_parse(args: argparse.Namespace, opened: Any, coverage: Any, fmt: str,
                stream: BinaryIO) -> int:
    """`ja parse` with --workers, --scheduler or --output-dir (parser/scale_out), of the input
    already opened (stream, which reads it from its first byte) in the format fmt."""
    task = opened.shard_task(fmt, args.encoding, args.rechunk, args.output_format,
                             args.encoding_errors)
    settings = {"format": fmt, "encoding": args.encoding, "rechunk": args.rechunk,
                "output_format": args.output_format}
    return parse_in_shards(args, "ja parse", task, opened, opened.model_name, fmt, settings,
                           coverage, stream)


def run_evaluate(args: argparse.Namespace) -> int:
    from polyparse.parser.bunsetsu.bunsetsu_files import file_scores

    if wants_report(args, "ja evaluate"):
        return run_bunsetsu_report(args)
    check_input_paths([args.gold, args.system])
    scores = file_scores(args.gold, args.system, args.format, args.encoding, args.chunked,
                         gold_format=args.gold_format, by_characters=args.by_characters,
                         errors=args.encoding_errors)
    print(json.dumps(scores, sort_keys=True) if args.json else bunsetsu_summary(scores))
    return 0
