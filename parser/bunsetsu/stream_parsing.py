"""The bunsetsu parser over KNP / CaboCha streams: what `polyparse ja parse` does between opening
its input and its output.

UTF-8 KNP that is not rechunked takes the fast path (KnpStreamParser): the scanner of
parser/formats/knp_scan.pyx reads the bytes, the decoder parses them, and only the bunsetsu
heads of the input bytes are rewritten. Everything else is read into BunsetsuSentence objects
and written back by parser/formats/ (parser/formats/streaming.py: batches as the input arrives,
each written at once).
"""
from __future__ import annotations

import codecs
import io
import os
from collections.abc import Callable
from typing import IO, Any, BinaryIO

from features.errors import InputError
from features.output_files import is_regular_stream
from parser.bunsetsu.bunsetsu_files import parsed_blocks
from parser.bunsetsu.bunsetsu_parser import POS_COLUMN, BunsetsuParser
from parser.formats.bunsetsu import OUTPUT_FORMAT, read_bunsetsu
from parser.formats.bunsetsu_sentence import BunsetsuSentence
from parser.formats.streaming import write_batches
from parser.formats.tag_coverage import TagCoverage

# Sentences parsed at once by the Python path (a pipe is cut sooner).
PARSE_BATCH = 2000

# The KNP fast path parses a batch once this many bytes are waiting (or once no more input is
# ready). Its input and output buffers are kept from batch to batch (and grow for a longer
# sentence), so that a long input reuses the same pages instead of faulting fresh ones.
BATCH_BYTES = 4 << 20
# A batch of the fast path is parsed in up to MAX_THREADS threads, each given at least
# THREAD_SENTENCES sentences.
MAX_THREADS = 8
THREAD_SENTENCES = 500


def knp_fast_path(fmt: str, encoding: str, rechunk: bool, output_format: str | None = None
                  ) -> bool:
    """Whether a parse reads its input by the KNP fast path (and writes bytes): KNP in UTF-8,
    not rechunked, written as KNP."""
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False
    return fmt == "knp" and output_format in (None, "knp") and not rechunk and utf8


def parse_bunsetsu_stream(parser: BunsetsuParser, stream: BinaryIO,
                          more_ready: Callable[[], bool], out: IO, *, fmt: str = "knp",
                          encoding: str = "utf-8", rechunk: bool = False,
                          output_format: str | None = None,
                          name: str = "<stdin>", model_name: str = "the model",
                          coverage: TagCoverage | None = None,
                          progress: Callable[[int], object] | None = None) -> None:
    """Parse every sentence of stream and write it to out with its new bunsetsu heads (and
    bunsetsu lines where it had none, or all of them with rechunk). out takes bytes when
    knp_fast_path(fmt, encoding, rechunk, output_format), else text; output_format: "knp" or
    "cabocha" (default: OUTPUT_FORMAT[fmt]). coverage counts the parts of speech of the input;
    progress(n) is told of each batch of n sentences."""
    coverage = coverage if coverage is not None else parser.tag_coverage()
    progress = progress or (lambda n: None)
    output_format = output_format or OUTPUT_FORMAT[fmt]
    if knp_fast_path(fmt, encoding, rechunk, output_format):
        reader = KnpStreamParser(parser, name, model_name, coverage, encoding)
        flush = not is_regular_stream(out)

        def write(data: bytes) -> None:
            out.write(data)
            if flush:
                out.flush()

        try:
            reader.run(stream, more_ready, write, progress)
        finally:
            reader.close()
        return
    sentences = read_bunsetsu(stream, fmt, validate=False, encoding=encoding, name=name,
                              allow_empty=True)

    def write_batch(batch: list[BunsetsuSentence], target: IO) -> None:
        if any(not s.chunk_lines for s in batch) and not parser.can_chunk:
            raise InputError(f"ja parse: {name}: sentences without bunsetsu lines need a "
                             f"chunker, which {model_name} lacks")
        target.write("".join(parsed_blocks(parser, batch, output_format, rechunk)))

    def after_batch(batch: list[BunsetsuSentence]) -> None:
        coverage.add(batch)
        progress(len(batch))

    write_batches(sentences, PARSE_BATCH, more_ready, out, write_batch, after_batch)


class KnpStreamParser:
    """`ja parse` of KNP input in UTF-8 by the fast path (parser/formats/knp_scan.pyx).

    The input is read into one buffer; once BATCH_BYTES are waiting or no more input is
    ready, every complete sentence (up to the last ``EOS`` line) is scanned, parsed and
    written, so that a pipeline feeding one sentence at a time gets each one back at once.
    Blocks the scanner does not take (and a batch that is not valid UTF-8, and bytes left
    without ``EOS`` at the end) go to parser.formats.knp.read_knp with their line numbers, so
    that the output and every error message are those of the Python reader.
    """

    def __init__(self, parser: Any, name: str, model: str, coverage: TagCoverage,
                 encoding: str) -> None:
        from parser.formats.knp_scan import KnpLexicon

        self.parser = parser
        self.name = name
        self.model = model
        self.coverage = coverage
        self.encoding = encoding
        self.lexicon = KnpLexicon(parser.lexicon.strings)
        self.n_blocks = 0
        self.output = bytearray()
        self.threads = max(1, min(MAX_THREADS, len(os.sched_getaffinity(0))))
        self.pool: Any = None
        # The decision is built once, before any thread asks for it.
        parser._decision("dependency")

    def run(self, stream: BinaryIO, more_ready: Callable[[], bool],
            write: Callable[[bytes | memoryview], Any],
            progress: Callable[[int], object]) -> None:
        readinto = getattr(stream, "readinto1", None) or stream.readinto
        buffer = bytearray(BATCH_BYTES)
        filled = 0
        first_line = 1
        while True:
            if filled == len(buffer):
                buffer.extend(bytes(len(buffer)))
            got = readinto(memoryview(buffer)[filled:])
            filled += got or 0
            if got and filled < BATCH_BYTES and more_ready():
                continue
            if filled:
                used, n_lines, n_blocks = self.batch(memoryview(buffer)[:filled], first_line,
                                                     write)
                buffer[:filled - used] = buffer[used:filled]
                filled -= used
                first_line += n_lines
                progress(n_blocks)
            if not got:
                break
        if filled or not self.n_blocks:
            self.last_bytes(bytes(buffer[:filled]), first_line, write)

    def batch(self, data: memoryview, first_line: int,
              write: Callable[[bytes | memoryview], Any]) -> tuple[int, int, int]:
        """Parse and write the complete blocks of data (its first line is first_line); the
        bytes and lines they take, and their number. What is written is a view of the output
        buffer, valid until the next batch."""
        import numpy as np

        from parser.formats.knp_scan import scan_knp

        scan = scan_knp(self.lexicon, data)
        if not scan.n_blocks:
            return 0, 0, 0
        if not scan.valid_utf8:
            write(self.python_blocks(bytes(data[:scan.end]), first_line))
            return scan.end, scan.n_lines, scan.n_blocks
        fast = scan.block_fast
        runs = np.concatenate(([0], np.flatnonzero(np.diff(fast)) + 1, [scan.n_blocks]))
        heads = self.parse_scanned(scan) if scan.n_fast else None
        # Each run of fast blocks is rewritten straight into the output buffer; the blocks
        # between them come from the Python path.
        pieces: list[tuple[int, int] | bytes] = []
        size = 0
        for b0, b1 in zip(runs[:-1].tolist(), runs[1:].tolist()):
            if fast[b0]:
                pieces.append((b0, b1))
                size += scan.rewritten_size(heads, b0, b1)
            else:
                start, end = scan.block_start[b0], scan.block_end[b1 - 1]
                text = self.python_blocks(bytes(data[start:end]),
                                          first_line + int(scan.block_line[b0]))
                pieces.append(text)
                size += len(text)
        if len(self.output) < size:
            self.output = bytearray(size + size // 4)
        offset = 0
        for piece in pieces:
            if isinstance(piece, tuple):
                offset = scan.rewrite_into(heads, piece[0], piece[1], self.output, offset)
            else:
                self.output[offset:offset + len(piece)] = piece
                offset += len(piece)
        self.coverage.add_counts(int(scan.morpheme_ptr[-1]), {POS_COLUMN: scan.unknown_pos1()})
        write(memoryview(self.output)[:size])
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
            from features.worker_threads import worker_pool

            self.pool = worker_pool(self.threads - 1)
        others = [self.pool.submit(self.parser.parse_corpus, c) for c in corpora[1:]]
        first = self.parser.parse_corpus(corpora[0])
        return np.concatenate([first] + [future.result() for future in others])

    def close(self) -> None:
        """Let the worker threads go without waiting: a run ended by a signal unwinds through
        here while a worker may still be parsing a long sentence of its part (only the main
        thread checks for signals), and the process then ends at once (parser/cli/main.end_now).
        After a batch completed, no part is left."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
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
        try:
            if not str(data, "utf-8").strip():
                return
        except UnicodeDecodeError:
            pass
        output = self.python_blocks(data, first_line)
        self.n_blocks += 1
        write(output)
