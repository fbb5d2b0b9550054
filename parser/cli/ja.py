"""`polyparse ja train|parse|evaluate`: the Japanese bunsetsu dependency parser on KNP and
CaboCha files."""
from __future__ import annotations

import argparse
import codecs
import io
import json
import os
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from features.errors import InputError
from features.output_files import check_output_path, is_regular_stream, output_stream
from parser.bunsetsu.bunsetsu_decoder import ALGORITHMS
from parser.cli.common import (
    debug_parent,
    file_sha256,
    input_stream,
    log,
    progress_bar,
    ready_batches,
    warn,
)
from parser.formats.bunsetsu import BUNSETSU_FORMATS, format_bunsetsu, read_bunsetsu
from parser.formats.bunsetsu_sentence import BunsetsuSentence, malformed

PARSE_BATCH = 2000
# The KNP fast path reads the input this many bytes at a time, and parses a batch once this
# many bytes are waiting (or once no more input is ready).
READ_BYTES = 1 << 20
BATCH_BYTES = 4 << 20
# A batch of the fast path is parsed in up to MAX_THREADS threads, each given at least
# THREAD_SENTENCES sentences.
MAX_THREADS = 8
THREAD_SENTENCES = 500
CLASSIFIERS = ("pa-slicing", "poly2-linear", "linear", "kernel-svm")
EVALUATORS = ("split", "pki", "pke", "none")


def register(groups: argparse._SubParsersAction) -> None:
    ja = groups.add_parser("ja", help="Japanese bunsetsu dependency parsing of KNP / CaboCha")
    commands = ja.add_subparsers(dest="command", metavar="{train,parse,evaluate}",
                                 required=True)
    parent = debug_parent()

    train = commands.add_parser("train", parents=[parent], help="train a parser model")
    train.add_argument("--train", nargs="+", metavar="FILE", help="training files")
    train.add_argument("--ids", help="document id list (with --corpus) instead of --train")
    train.add_argument("--corpus", help="the KNP folder the ids name (e.g. kwdlc/knp)")
    train.add_argument("--dev", help="development file, scored after training")
    train.add_argument("--model", required=True, help="model file to write")
    train.add_argument("--algorithm", default="shift-reduce", choices=ALGORITHMS)
    train.add_argument("--classifier", default="pa-slicing", choices=CLASSIFIERS)
    train.add_argument("--degree", type=int, help="kernel degree (default 2)")
    train.add_argument("-C", type=float, help="regularisation (pa-slicing default 0.0002)")
    train.add_argument("--iterations", type=int, help="pa-slicing passes (default 40)")
    train.add_argument("--evaluator", default="split", choices=EVALUATORS,
                       help="what a kernel model is stored as (default split; none keeps "
                            "the kernel model)")
    train.add_argument("--no-chunker", dest="chunker", action="store_false",
                       help="do not train the bunsetsu chunker")
    train.add_argument("--strict", action="store_true",
                       help="stop at a malformed training sentence instead of skipping it")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--threads", type=int, default=2,
                       help="classifiers trained at once (the model does not depend on it)")
    add_io_options(train)
    train.set_defaults(run=run_train)

    parse = commands.add_parser("parse", parents=[parent], help="parse a file or stdin")
    parse.add_argument("input", nargs="?", default="-", help="KNP/CaboCha file, or - for stdin")
    parse.add_argument("--model", required=True, help="parser model file")
    parse.add_argument("-o", "--output", help="output file (default stdout)")
    parse.add_argument("--rechunk", action="store_true",
                       help="chunk every sentence, even those with bunsetsu lines")
    add_io_options(parse)
    parse.set_defaults(run=run_parse)

    evaluate = commands.add_parser("evaluate", parents=[parent],
                                   help="dependency and sentence accuracy (and chunk F1)")
    evaluate.add_argument("gold", help="gold file")
    evaluate.add_argument("system", help="system output, or - for stdin")
    evaluate.add_argument("--chunked", action="store_true",
                          help="report chunk F1 even when every bunsetsu matches")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")
    add_io_options(evaluate)
    evaluate.set_defaults(run=run_evaluate)


def add_io_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--format", default="knp", choices=BUNSETSU_FORMATS)
    command.add_argument("--encoding", default="utf-8")


def document_paths(ids: str, corpus: str) -> list[Path]:
    """The KNP files of an id list: `corpus/<id minus 5 characters>/<id>.knp` (KWDLC) or
    `corpus/<id[:8]>/<id>.knp` (the Wikipedia Annotated Corpus)."""
    root = Path(corpus)
    if not root.is_dir():
        raise InputError(f"ja train: --corpus {corpus}: not a folder")
    paths = []
    with open(ids, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            doc = line.strip()
            if not doc:
                continue
            for folder in (doc[:-5], doc[:8]):
                path = root / folder / f"{doc}.knp"
                if path.is_file():
                    paths.append(path)
                    break
            else:
                raise InputError(f"{ids}:{number}: no document {doc} under {corpus}")
    return paths


def training_sentences(paths: list, args: argparse.Namespace) -> list[BunsetsuSentence]:
    """Every well-formed sentence; a malformed one is skipped with one warning naming it (an
    error with --strict)."""
    kept, skipped = [], 0
    for path in paths:
        for sentence in read_bunsetsu(str(path), args.format, validate=False,
                                      encoding=args.encoding):
            problem = malformed(sentence)
            if problem is None:
                kept.append(sentence)
            elif args.strict:
                raise InputError(problem)
            else:
                skipped += 1
                warn(f"skipped {sentence.sid or 'sentence'}: {problem}")
    if skipped:
        warn(f"skipped {skipped} malformed training sentence{'s' * (skipped != 1)} "
             f"of {skipped + len(kept)}")
    return kept


def run_train(args: argparse.Namespace) -> int:
    from parser.bunsetsu.bunsetsu_parser import (
        BunsetsuConfig,
        BunsetsuParser,
        classifier_options,
    )

    check_output_path(args.model, "model")
    if bool(args.ids) != bool(args.corpus):
        raise InputError("ja train: --ids and --corpus go together")
    if bool(args.train) == bool(args.ids):
        raise InputError("ja train: give either --train FILE... or --ids with --corpus")
    if args.threads < 1:
        raise InputError("ja train: --threads must be at least 1")
    if args.ids and args.format != "knp":
        raise InputError("ja train: --ids reads KNP documents; --format must be knp")
    try:
        params = classifier_options(args.classifier, C=args.C, degree=args.degree,
                                    iterations=args.iterations)
        config = BunsetsuConfig(algorithm=args.algorithm, classifier=args.classifier,
                                classifier_params=params, evaluator=args.evaluator,
                                chunker=args.chunker, seed=args.seed)
        parser = BunsetsuParser(config)
    except ValueError as error:
        raise InputError(f"ja train: {error}") from None
    paths = document_paths(args.ids, args.corpus) if args.ids else args.train
    sentences = training_sentences(paths, args)
    dev = list(read_bunsetsu(args.dev, args.format, encoding=args.encoding)) if args.dev \
        else None
    if not sentences:
        raise InputError("ja train: no well-formed training sentences")
    log(f"training on {len(sentences)} sentences")
    parser.train(sentences, log=log, threads=args.threads)
    header = {"training_command": shlex.join(["polyparse"] + sys.argv[1:])}
    if args.train:
        header["train_sha256"] = [file_sha256(str(path)) for path in args.train]
    if dev is not None:
        scores = dev_scores(parser, dev)
        header["dev_scores"] = scores
        log(f"dev: dependency accuracy {scores['dependency_accuracy']:.2f}, sentence "
            f"accuracy {scores['sentence_accuracy']:.2f}")
    parser.save(args.model, extra_header=header)
    log(f"model written to {args.model}")
    return 0


def dev_scores(parser, sentences: list[BunsetsuSentence]) -> dict:
    from parser.bunsetsu.evaluate import evaluate_bunsetsu

    parsed = parser.parse(sentences, chunk=False)
    gold = [(s.chunk_starts, s.heads, len(s.surface)) for s in sentences]
    system = [(starts, heads, len(s.surface)) for s, (starts, heads) in zip(sentences, parsed)]
    return evaluate_bunsetsu(gold, system)


class LexiconCoverage:
    """Counts the POS tags of the input that the model never saw in training (a CaboCha file
    with IPAdic tags given to a model trained on JUMAN's, say)."""

    def __init__(self, parser) -> None:
        self.known = parser.lexicon.ids
        self.seen: dict[str, int] = {}
        self.other_known = 0

    def add(self, batch: list[BunsetsuSentence]) -> None:
        for sentence in batch:
            for tag in sentence.pos1:
                self.seen[tag] = self.seen.get(tag, 0) + 1

    def add_counts(self, n_morphemes: int, unknown: dict[str, int]) -> None:
        """Count n_morphemes morphemes, of which unknown gives the tags the model lacks."""
        for tag, n in unknown.items():
            self.seen[tag] = self.seen.get(tag, 0) + n
        self.other_known += n_morphemes - sum(unknown.values())

    def warning(self, name: str) -> str | None:
        total = sum(self.seen.values()) + self.other_known
        unknown = {tag: n for tag, n in self.seen.items() if tag not in self.known}
        missed = sum(unknown.values())
        if not total or missed * 20 < total:
            return None
        examples = ", ".join(sorted(unknown, key=lambda tag: -unknown[tag])[:5])
        return (f"{name}: {missed} of {total} morphemes have a part of speech the model never "
                f"saw ({examples}); is the input tagged with the dictionary of the training "
                "data?")


def parsed_blocks(parser, batch: list[BunsetsuSentence], fmt: str,
                  rechunk: bool) -> Iterator[str]:
    results = parser.parse(batch, chunk=True if rechunk else None)
    for sentence, (starts, heads) in zip(batch, results):
        new_chunks = starts if (rechunk or not sentence.chunk_lines) else None
        yield format_bunsetsu(sentence, heads, None, new_chunks, fmt)


class KnpStreamParser:
    """`ja parse` of KNP input in UTF-8 by the fast path (parser/formats/knp_scan.pyx).

    The input is read in chunks of READ_BYTES; once BATCH_BYTES are waiting or no more input
    is ready, every complete sentence (up to the last ``EOS`` line) is scanned, parsed and
    written, so that a pipeline feeding one sentence at a time gets each one back at once.
    Blocks the scanner does not take (and a batch that is not valid UTF-8, and bytes left
    without ``EOS`` at the end) go to parser.formats.knp.read_knp with their line numbers, so
    that the output and every error message are those of the Python reader.
    """

    def __init__(self, parser: Any, name: str, model: str, coverage: LexiconCoverage,
                 encoding: str) -> None:
        from parser.formats.knp_scan import KnpLexicon

        self.parser = parser
        self.name = name
        self.model = model
        self.coverage = coverage
        self.encoding = encoding
        self.lexicon = KnpLexicon(parser.lexicon.strings)
        self.n_blocks = 0
        self.threads = max(1, min(MAX_THREADS, len(os.sched_getaffinity(0))))
        self.pool: Any = None
        # The decision is built once, before any thread asks for it.
        parser._decision("dependency")

    def run(self, stream: BinaryIO, more_ready: Callable[[], bool],
            write: Callable[[bytes], Any], progress: Any) -> None:
        read = getattr(stream, "read1", stream.read)
        pending = b""
        first_line = 1
        while True:
            chunk = read(READ_BYTES)
            if chunk:
                pending += chunk
                if len(pending) < BATCH_BYTES and more_ready():
                    continue
            if pending:
                used, n_lines, n_blocks = self.batch(pending, first_line, write)
                pending = pending[used:]
                first_line += n_lines
                progress.update(n_blocks)
            if not chunk:
                break
        if pending or not self.n_blocks:
            self.last_bytes(pending, first_line, write)

    def batch(self, data: bytes, first_line: int,
              write: Callable[[bytes], Any]) -> tuple[int, int, int]:
        """Parse and write the complete blocks of data (its first line is first_line); the
        bytes and lines they take, and their number."""
        import numpy as np

        from parser.formats.knp_scan import scan_knp

        scan = scan_knp(self.lexicon, data)
        if not scan.n_blocks:
            return 0, 0, 0
        if not scan.valid_utf8:
            write(self.python_blocks(data[:scan.end], first_line))
            return scan.end, scan.n_lines, scan.n_blocks
        parts = []
        fast = scan.block_fast
        runs = np.concatenate(([0], np.flatnonzero(np.diff(fast)) + 1, [scan.n_blocks]))
        heads = self.parse_scanned(scan) if scan.n_fast else None
        for b0, b1 in zip(runs[:-1].tolist(), runs[1:].tolist()):
            if fast[b0]:
                parts.append(scan.rewrite(heads, b0, b1))
            else:
                start, end = scan.block_start[b0], scan.block_end[b1 - 1]
                parts.append(self.python_blocks(data[start:end],
                                                first_line + int(scan.block_line[b0])))
        self.coverage.add_counts(int(scan.morpheme_ptr[-1]), scan.unknown_pos1())
        write(b"".join(parts))
        self.n_blocks += scan.n_blocks
        return scan.end, scan.n_lines, scan.n_blocks

    def parse_scanned(self, scan: Any) -> Any:
        """The heads of the fast blocks of a scan; a large batch is cut into one part per
        core, parsed in threads (the decoder releases the GIL and the scorers are safe to share;
        each sentence is parsed on its own, so the heads do not depend on the cut)."""
        import numpy as np

        from parser.bunsetsu.bunsetsu_decoder import Corpus

        n = scan.n_fast
        parts = min(self.threads, max(1, n // THREAD_SENTENCES))
        cuts = [n * k // parts for k in range(parts + 1)]
        corpora = []
        mp, cp = scan.morpheme_ptr, scan.chunk_ptr
        for lo, hi in zip(cuts[:-1], cuts[1:]):
            m0, m1, c0, c1 = mp[lo], mp[hi], cp[lo], cp[hi]
            corpora.append(Corpus(scan.surface[m0:m1], scan.pos1[m0:m1], scan.pos2[m0:m1],
                                  scan.conj_form[m0:m1], mp[lo:hi + 1] - m0,
                                  cp[lo:hi + 1] - c0, scan.chunk_bounds[c0 + lo:c1 + hi]))
        if parts == 1:
            return self.parser.parse_corpus(corpora[0])
        if self.pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self.pool = ThreadPoolExecutor(self.threads - 1)
        others = [self.pool.submit(self.parser.parse_corpus, c) for c in corpora[1:]]
        first = self.parser.parse_corpus(corpora[0])
        return np.concatenate([first] + [future.result() for future in others])

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None

    def python_blocks(self, data: bytes, first_line: int) -> bytes:
        """The output of blocks read, parsed and written by the Python path."""
        from parser.formats.knp import read_knp

        sentences = list(read_knp(io.BytesIO(data), validate=False, encoding=self.encoding,
                                  name=self.name, first_line=first_line))
        if any(not s.chunk_lines for s in sentences) and not self.parser.can_chunk:
            raise InputError(f"ja parse: {self.name}: sentences without bunsetsu lines need a "
                             f"chunker, which {self.model} lacks")
        self.coverage.add(sentences)
        return "".join(parsed_blocks(self.parser, sentences, "knp", False)).encode(
            self.encoding)

    def last_bytes(self, data: bytes, first_line: int, write: Callable[[bytes], Any]) -> None:
        """What follows the last EOS line: nothing to do when blank (after a sentence), else
        the Python reader's sentence or its error (no EOS, an empty input)."""
        if self.n_blocks:
            try:
                if not str(data, "utf-8").strip():
                    return
            except UnicodeDecodeError:
                pass
        output = self.python_blocks(data, first_line)
        self.n_blocks += 1
        write(output)


def fast_knp_input(args: argparse.Namespace) -> bool:
    """Whether `ja parse` reads its input by the KNP fast path: KNP in UTF-8, not rechunked."""
    try:
        utf8 = codecs.lookup(args.encoding).name == "utf-8"
    except LookupError:
        return False
    return args.format == "knp" and not args.rechunk and utf8


def run_parse(args: argparse.Namespace) -> int:
    from parser.bunsetsu.bunsetsu_parser import BunsetsuParser

    check_output_path(args.output)
    parser = BunsetsuParser.load(args.model)
    if args.rechunk and not parser.can_chunk:
        raise InputError(f"ja parse: {args.model} has no bunsetsu chunker (trained with "
                         "--no-chunker); --rechunk needs one")
    name = "<stdin>" if args.input == "-" else args.input
    coverage = LexiconCoverage(parser)
    progress = progress_bar(unit=" sent", desc="parsing")
    if fast_knp_input(args):
        reader = KnpStreamParser(parser, name, args.model, coverage, args.encoding)
        with input_stream(args.input) as (stream, more_ready), \
                output_stream(args.output, binary=True) as out:
            flush = not is_regular_stream(out)

            def write(data: bytes) -> None:
                out.write(data)
                if flush:
                    out.flush()

            try:
                reader.run(stream, more_ready, write, progress)
            finally:
                reader.close()
        progress.close()
        warning = coverage.warning(name)
        if warning:
            warn(warning)
        return 0
    with input_stream(args.input) as (stream, more_ready), \
            output_stream(args.output, encoding=args.encoding) as out:
        sentences = read_bunsetsu(stream, args.format, validate=False, encoding=args.encoding,
                                  name=name)
        flush = not is_regular_stream(out)
        for batch in ready_batches(sentences, PARSE_BATCH, more_ready):
            if any(not s.chunk_lines for s in batch) and not parser.can_chunk:
                raise InputError(f"ja parse: {name}: sentences without bunsetsu lines need a "
                                 f"chunker, which {args.model} lacks")
            out.write("".join(parsed_blocks(parser, batch, args.format, args.rechunk)))
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
    from parser.bunsetsu.evaluate import BunsetsuEvaluationError, evaluate_bunsetsu

    if args.gold == "-":
        raise InputError("ja evaluate: the gold file must be a file; only the system output "
                         "may come from stdin (-)")
    system_name = "<stdin>" if args.system == "-" else args.system
    gold = list(read_bunsetsu(args.gold, args.format, encoding=args.encoding))
    system = list(read_bunsetsu(None if args.system == "-" else args.system, args.format,
                                encoding=args.encoding, name=system_name))
    if len(gold) != len(system):
        raise InputError(f"ja evaluate: {args.gold} has {len(gold)} sentences, {system_name} "
                         f"{len(system)}")
    chunked = args.chunked or any(g.chunk_starts != s.chunk_starts for g, s in zip(gold, system))
    try:
        scores = evaluate_bunsetsu(
            [(s.chunk_starts, s.heads, len(s.surface)) for s in gold],
            [(s.chunk_starts, s.heads, len(s.surface)) for s in system], chunked=chunked)
    except BunsetsuEvaluationError as error:
        raise InputError(f"ja evaluate: {system_name}: {error}") from None
    if args.json:
        print(json.dumps(scores, sort_keys=True))
    else:
        lines = [f"dependency accuracy {scores['dependency_accuracy']:.2f}",
                 f"sentence accuracy   {scores['sentence_accuracy']:.2f}"]
        if "chunk_f1" in scores:
            lines.append(f"chunk F1            {scores['chunk_f1']:.2f}")
        print("\n".join(lines))
    return 0
