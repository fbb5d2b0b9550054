"""The bunsetsu parser over the bytes of KNP / CaboCha streams (KnpStreamParser), the fused
reader, parse and writer that parser/pipeline/bunsetsu_service.py runs for UTF-8 KNP and
CaboCha that are not rechunked (nor written in the other format): the scanner of
parser/formats/knp_scan.pyx or cabocha_scan.pyx reads the bytes, the decoder parses them, and
only the bunsetsu heads of the input bytes are rewritten. Everything else goes through the
pipeline's stages as BunsetsuSentence objects.
"""
from __future__ import annotations

import codecs
import io
import os
import warnings
from collections.abc import Callable
from typing import Any, BinaryIO

from polyparse.features.errors import InputError, InputWarning
from polyparse.features.interning import UNKNOWN
from polyparse.parser.bunsetsu.bunsetsu_files import parsed_blocks
from polyparse.parser.bunsetsu.bunsetsu_parser import POS_COLUMN
from polyparse.parser.bunsetsu.tagset_coverage import TagsetCoverage
from polyparse.parser.formats.bunsetsu import read_bunsetsu
from polyparse.parser.formats.bunsetsu_sentence import BunsetsuSentence
from polyparse.parser.formats.tag_schemes import SCHEME_MARKS, SCHEMES_IN_ORDER

# Sentences parsed at once by the Python path (a pipe is cut sooner).
PARSE_BATCH = 2000

# The KNP fast path parses a batch once this many bytes are waiting (or once no more input is
# ready). Its input and output buffers are kept from batch to batch (and grow for a longer
# sentence), so that a long input reuses the same pages instead of faulting fresh ones.
BATCH_BYTES = 4 << 20
# A batch of the fast path is parsed in up to MAX_THREADS threads, each given at least
# THREAD_BUNSETSU bunsetsu (the decoder's work grows with them: a batch of long sentences, as
# UD Japanese GSD's, holds fewer sentences and as much work).
MAX_THREADS = 8
THREAD_BUNSETSU = 3000
# A batch is cut at sentence ends into one part per thread, each of at least PART_BYTES, which
# the threads scan and parse at once (the main thread then writes them in order); a smaller
# batch is scanned in one piece.
PART_BYTES = 256 << 10
# The line that ends a block, looked for to cut a batch into parts.
BLOCK_END = b"\nEOS\n"
# Work done in threads at once is timed (the CPU time of its pieces against the wall time of
# the whole): below MIN_SPEEDUP, the CPUs were busy with other work and the threads only cost
# their hand-offs, so the next SERIAL_BATCHES batches run in this thread alone before threads
# are tried again.
MIN_SPEEDUP = 1.25
SERIAL_BATCHES = 4
# The formats the fast path reads.
FAST_FORMATS = ("knp", "cabocha")


def knp_fast_path(fmt: str, encoding: str, rechunk: bool, output_format: str | None = None
                  ) -> bool:
    """Whether a parse reads its input by the fast path of KnpStreamParser (and writes bytes):
    KNP or CaboCha in UTF-8, not rechunked, written in its own format."""
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False
    return fmt in FAST_FORMATS and output_format in (None, fmt) and not rechunk and utf8


class KnpStreamParser:
    """`ja parse` of KNP or CaboCha input (fmt) in UTF-8 by the fast path (the scanner of
    parser/formats/knp_scan.pyx or cabocha_scan.pyx).

    The input is read into one buffer; once BATCH_BYTES are waiting or no more input is
    ready, every complete sentence (up to the last ``EOS`` line) is scanned, parsed and
    written, so that a pipeline feeding one sentence at a time gets each one back at once.
    Blocks the scanner does not take (and the blocks from the first one that is not valid
    UTF-8 on, and bytes left without ``EOS`` at the end) go to the format's Python reader with
    their line numbers, so that the output and every error message are those of the Python
    reader; a block that cannot be read stops the run after every block before it is written.
    """

    def __init__(self, parser: Any, name: str, model: str, coverage: TagsetCoverage,
                 encoding: str, errors: str = "strict", fmt: str = "knp") -> None:
        import numpy as np

        from polyparse.parser.formats.knp_scan import KnpLexicon

        self.parser = parser
        self.name = name
        self.model = model
        self.coverage = coverage
        self.encoding = encoding
        self.errors = errors
        self.fmt = fmt
        self.replaced_told = False
        # The scanner's lexicon is the model's with the parts of speech that mark a dictionary
        # (parser/formats/tag_schemes.py) added after it where the model lacks them, so that
        # each sentence's dictionary is told as read_knp tells it; the added ids are unknown to
        # the model and become UNKNOWN before parsing (scheme_counts).
        strings = parser.lexicon.strings
        self.n_known = len(strings)
        self.added_marks = sorted(set().union(*SCHEME_MARKS.values()) - set(strings))
        self.lexicon = KnpLexicon(strings + self.added_marks)
        self.scheme_rank = np.zeros(self.n_known + len(self.added_marks), dtype=np.int8)
        ids = {**parser.lexicon.ids,
               **{mark: self.n_known + k for k, mark in enumerate(self.added_marks)}}
        for rank, scheme in enumerate(reversed(SCHEMES_IN_ORDER), 1):
            for mark in SCHEME_MARKS[scheme]:
                self.scheme_rank[ids[mark]] = rank
        self.n_blocks = 0
        self.output = bytearray()
        self.threads = max(1, min(MAX_THREADS, len(os.sched_getaffinity(0))))
        # Batches still to run in one thread (in_threads measured no speed-up).
        self.serial_batches = 0
        self.pool: Any = None
        # The decision is built once, before any thread asks for it.
        parser._decision("dependency")

    def run(self, stream: BinaryIO, more_ready: Callable[[], bool],
            write: Callable[[bytes | memoryview], Any],
            progress: Callable[[int], object], first_line: int = 1) -> None:
        """Parse everything stream gives, writing each batch as soon as it is parsed;
        first_line numbers the stream's first line (a shard of a file)."""
        readinto = getattr(stream, "readinto1", None) or stream.readinto
        buffer = bytearray(BATCH_BYTES)
        filled = 0
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
        buffer, valid until the next batch. A block that cannot be read raises its error
        once every block before it is written."""
        import numpy as np

        threads = self.threads
        if self.serial_batches:
            threads = 1
            self.serial_batches -= 1
        spans = self.part_spans(data, threads)
        if len(spans) > 1:
            done = self.batch_in_parts(data, spans, first_line, write)
            if done is not None:
                return done
        scan = self.scan(data)
        if not scan.n_blocks:
            return 0, 0, 0
        end, n_lines, n_blocks = scan.end, scan.n_lines, scan.n_blocks
        # The blocks from the first one holding a byte that is not UTF-8 on are read by the
        # Python path (which names the byte's line, or reads it as U+FFFD with
        # errors="replace"); the blocks before it are scanned again on their own.
        rest = None
        if not scan.valid_utf8:
            bad = int(np.searchsorted(scan.block_end, _first_bad_byte(data[:end]), "right"))
            rest = int(scan.block_start[bad]), end, first_line + int(scan.block_line[bad])
            scan = self.scan(data[:rest[0]])
        unknown_pos1 = self.scheme_counts(scan)
        heads = self.parse_scanned(scan, threads) if scan.n_fast else None
        self.write_scanned(data, scan, heads, first_line, write, rest)
        self.coverage.add_counts(int(scan.morpheme_ptr[-1]), {POS_COLUMN: unknown_pos1})
        self.n_blocks += n_blocks
        return end, n_lines, n_blocks

    def part_spans(self, data: memoryview, threads: int | None = None
                   ) -> list[tuple[int, int]]:
        """The byte spans that cut data into parts at block ends, one per thread (threads,
        None: self.threads), each of at least PART_BYTES (the whole of data when it is too
        small, or has no block end where one is looked for)."""
        size = len(data)
        n_parts = min(threads or self.threads, size // PART_BYTES)
        starts = [0]
        for k in range(1, n_parts):
            cut = _block_end_from(data, max(size * k // n_parts, starts[-1]) - 1)
            if cut < 0 or cut >= size:
                break
            starts.append(cut)
        return list(zip(starts, starts[1:] + [size]))

    def batch_in_parts(self, data: memoryview, spans: list[tuple[int, int]], first_line: int,
                       write: Callable[[bytes | memoryview], Any]
                       ) -> tuple[int, int, int] | None:
        """batch() of data cut into parts (spans, each but the last ending with a block): the
        parts scanned at once in the threads, then parsed at once, then written in order by
        this thread, as batch() writes the whole. None, with nothing done, when a part holds
        bytes that are not UTF-8 (batch() then takes data as a whole, which finds the first
        of them)."""
        parts = [data[start:stop] for start, stop in spans]
        scans = self.in_threads(self.scan, parts)
        if not all(scan.valid_utf8 for scan in scans) or \
                any(scan.end != len(part) for scan, part in zip(scans[:-1], parts[:-1])):
            return None
        # Every part's dictionaries are counted before any is written, as a whole batch's are.
        unknowns = [self.scheme_counts(scan) for scan in scans]
        heads = self.in_threads(
            lambda scan: self.parse_scanned(scan, threads=1) if scan.n_fast else None, scans)
        n_lines = 0
        for part, scan, part_heads in zip(parts, scans, heads):
            if scan.n_blocks:
                self.write_scanned(part, scan, part_heads, first_line + n_lines, write)
                n_lines += scan.n_lines
        # The morphemes are counted once every part is written, as a whole batch's are.
        for scan, unknown_pos1 in zip(scans, unknowns):
            self.coverage.add_counts(int(scan.morpheme_ptr[-1]), {POS_COLUMN: unknown_pos1})
        n_blocks = sum(scan.n_blocks for scan in scans)
        self.n_blocks += n_blocks
        return spans[-1][0] + scans[-1].end, n_lines, n_blocks

    def write_scanned(self, data: memoryview, scan: Any, heads: Any, first_line: int,
                      write: Callable[[bytes | memoryview], Any],
                      rest: tuple[int, int, int] | None = None) -> None:
        """Write the blocks of a scan of data (heads: the parse of its fast blocks; the slow
        ones read, parsed and written by the Python path), then rest (start, end, first line:
        bytes of data after the scan's blocks, read by the Python path); the error of the
        first block that cannot be read is raised once every block before it is written."""
        import numpy as np

        fast = scan.block_fast
        runs = np.concatenate(([0], np.flatnonzero(np.diff(fast)) + 1, [scan.n_blocks]))
        # Each run of fast blocks is rewritten straight into the output buffer; the blocks
        # between them come from the Python path.
        pieces: list[tuple[int, int] | bytes] = []
        error: InputError | None = None
        for b0, b1 in zip(runs[:-1].tolist(), runs[1:].tolist()):
            if b0 == b1:
                continue
            if fast[b0]:
                pieces.append((b0, b1))
                continue
            text, error = self.python_blocks(
                bytes(data[scan.block_start[b0]:scan.block_end[b1 - 1]]),
                first_line + int(scan.block_line[b0]))
            pieces.append(text)
            if error is not None:
                break
        if error is None and rest is not None:
            text, error = self.python_blocks(bytes(data[rest[0]:rest[1]]), rest[2])
            pieces.append(text)
        self.write_pieces(scan, heads, pieces, write)
        if error is not None:
            raise error

    def in_threads(self, work: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        """work(item) of each item, the first in this thread and the others in the pool's
        threads at the same time; the results in order. When the pieces' CPU time is less than
        MIN_SPEEDUP times the wall time they took together, the next SERIAL_BATCHES batches
        are done in one thread."""
        import time

        if len(items) == 1:
            return [work(items[0])]
        if self.pool is None:
            from polyparse.features.worker_threads import worker_pool

            self.pool = worker_pool(self.threads - 1)
        cpu = [0.0] * len(items)

        def timed(k: int) -> Any:
            started = time.thread_time()
            try:
                return work(items[k])
            finally:
                cpu[k] = time.thread_time() - started

        started = time.perf_counter()
        others = [self.pool.submit(timed, k) for k in range(1, len(items))]
        results = [timed(0)] + [future.result() for future in others]
        if sum(cpu) < MIN_SPEEDUP * (time.perf_counter() - started):
            self.serial_batches = SERIAL_BATCHES
        return results

    def write_pieces(self, scan: Any, heads: Any, pieces: list[tuple[int, int] | bytes],
                     write: Callable[[bytes | memoryview], Any]) -> None:
        """Write the pieces of a batch in order: runs (first, end) of fast blocks rewritten
        with heads, and the Python path's bytes."""
        size = sum(scan.rewritten_size(heads, *piece) if isinstance(piece, tuple)
                   else len(piece) for piece in pieces)
        if len(self.output) < size:
            self.output = bytearray(size + size // 4)
        offset = 0
        for piece in pieces:
            if isinstance(piece, tuple):
                offset = scan.rewrite_into(heads, piece[0], piece[1], self.output, offset)
            else:
                self.output[offset:offset + len(piece)] = piece
                offset += len(piece)
        if size:
            write(memoryview(self.output)[:size])

    def scan(self, data: memoryview) -> Any:
        """The scanner's KnpScan of data (knp_scan.scan_knp or cabocha_scan.scan_cabocha)."""
        if self.fmt == "cabocha":
            from polyparse.parser.formats.cabocha import UNIDIC_ONLY_POS
            from polyparse.parser.formats.cabocha_scan import scan_cabocha

            return scan_cabocha(self.lexicon, data, sorted(UNIDIC_ONLY_POS))
        from polyparse.parser.formats.knp_scan import scan_knp

        return scan_knp(self.lexicon, data)

    def scheme_counts(self, scan: Any) -> dict[str, int]:
        """Count the morphemes of the scan's fast blocks by the dictionary of their sentence
        in the coverage (tag_schemes.scheme_of_pos1: the first of SCHEMES_IN_ORDER that one of
        the sentence's parts of speech marks), and turn the ids of the marks the model lacks
        into UNKNOWN, as the model's own lexicon reads them; the parts of speech the model
        lacks, with their counts (the scanner's unknown_pos1 and those marks)."""
        import numpy as np

        unknown = dict(scan.unknown_pos1())
        if not scan.n_fast:
            return unknown
        pos1 = scan.pos1
        ptr = scan.morpheme_ptr
        if len(scan.block_tagset):
            # CaboCha: the scanner tells each sentence's dictionary by its features' layout,
            # as read_cabocha does.
            from polyparse.parser.formats.cabocha_scan import TAGSETS

            morphemes = np.bincount(scan.block_tagset, weights=np.diff(ptr),
                                    minlength=len(TAGSETS))
            self.coverage.add_tagsets({tagset: int(n) for tagset, n in
                                       zip(TAGSETS, morphemes.tolist()) if tagset})
        else:
            ranks = np.maximum.reduceat(self.scheme_rank[pos1], ptr[:-1])
            morphemes = np.bincount(ranks, weights=np.diff(ptr),
                                    minlength=len(SCHEMES_IN_ORDER) + 1)
            self.coverage.add_tagsets({scheme: int(morphemes[rank]) for rank, scheme in
                                       enumerate(reversed(SCHEMES_IN_ORDER), 1)})
        if self.added_marks:
            added = np.bincount(pos1[pos1 >= self.n_known] - self.n_known,
                                minlength=len(self.added_marks))
            for mark, n in zip(self.added_marks, added.tolist()):
                if n:
                    unknown[mark] = unknown.get(mark, 0) + n
            for column in (scan.surface, pos1, scan.pos2, scan.conj_form):
                column[column >= self.n_known] = UNKNOWN
        return unknown

    def parse_scanned(self, scan: Any, threads: int | None = None) -> Any:
        """The heads of the fast blocks of a scan; a large batch is cut into one part per
        core (threads: at most so many, None: self.threads), parsed in threads (the decoder
        releases the GIL and the scorers are safe to share; each sentence is parsed on its own,
        so the heads do not depend on the cut)."""
        import numpy as np

        from polyparse.parser.bunsetsu.bunsetsu_decoder import Corpus

        n = scan.n_fast
        mp, cp = scan.morpheme_ptr, scan.chunk_ptr
        parts = min(threads or self.threads, max(1, int(cp[-1]) // THREAD_BUNSETSU))
        # Cut between sentences so that each part holds about as many bunsetsu.
        cuts = [0, *sorted({int(np.searchsorted(cp, cp[-1] * k // parts))
                            for k in range(1, parts)} - {0, n}), n]
        parts = len(cuts) - 1
        corpora = []
        for lo, hi in zip(cuts[:-1], cuts[1:]):
            m0, m1, c0, c1 = mp[lo], mp[hi], cp[lo], cp[hi]
            corpora.append(Corpus(scan.surface[m0:m1], scan.pos1[m0:m1], scan.pos2[m0:m1],
                                  scan.conj_form[m0:m1], mp[lo:hi + 1] - m0,
                                  cp[lo:hi + 1] - c0, scan.chunk_bounds[c0 + lo:c1 + hi]))
        if parts == 1:
            return self.parser.parse_corpus(corpora[0])
        return np.concatenate(self.in_threads(self.parser.parse_corpus, corpora))

    def close(self) -> None:
        """Let the worker threads go without waiting: a run ended by a signal unwinds through
        here while a worker may still be parsing a long sentence of its part (only the main
        thread checks for signals), and the process then ends at once (parser/cli/main.end_now).
        After a batch completed, no part is left."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None

    def python_blocks(self, data: bytes, first_line: int) -> tuple[bytes, InputError | None]:
        """The output of blocks read, parsed and written by the Python path, and the error
        of the first one that cannot be read (None when all can): the output then holds
        every sentence before it."""
        sentences: list[BunsetsuSentence] = []
        error: InputError | None = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", InputWarning)
            try:
                for sentence in read_bunsetsu(io.BytesIO(data), self.fmt, validate=False,
                                              encoding=self.encoding, name=self.name,
                                              first_line=first_line, errors=self.errors):
                    sentences.append(sentence)
            except InputError as found:
                error = found
        # Bytes read as U+FFFD are told once a run, as the Python path tells them once a file.
        if caught and not self.replaced_told:
            self.replaced_told = True
            warnings.warn(caught[0].message, InputWarning, stacklevel=2)
        if any(not s.chunk_lines for s in sentences) and not self.parser.can_chunk:
            raise InputError(f"ja parse: {self.name}: sentences without bunsetsu lines need a "
                             f"chunker, which {self.model} lacks")
        self.coverage.add(sentences)
        text = "".join(parsed_blocks(self.parser, sentences, self.fmt, False)).encode(
            self.encoding)
        return text, error

    def last_bytes(self, data: bytes, first_line: int, write: Callable[[bytes], Any]) -> None:
        """What follows the last EOS line: nothing to do when blank (after a sentence), else
        the Python reader's sentence or its error (no EOS, an empty input)."""
        try:
            if not str(data, "utf-8").strip():
                return
        except UnicodeDecodeError:
            pass
        output, error = self.python_blocks(data, first_line)
        self.n_blocks += 1
        if output:
            write(output)
        if error is not None:
            raise error


def _block_end_from(data: memoryview, start: int) -> int:
    """The offset just after the first BLOCK_END of data at or after start (which begins
    with the newline before EOS), -1 when there is none."""
    # Looked for in windows copied out of data, from 4 KiB (a few sentences) doubling.
    window = 1 << 12
    start = max(start, 0)
    while start < len(data):
        found = bytes(data[start:start + window + len(BLOCK_END) - 1]).find(BLOCK_END)
        if found >= 0:
            return start + found + len(BLOCK_END)
        start += window
        window *= 2
    return -1


def _first_bad_byte(data: memoryview) -> int:
    """The offset of the first byte of data that is not valid UTF-8 (len(data) when none)."""
    try:
        codecs.decode(data, "utf-8")
    except UnicodeDecodeError as error:
        return error.start
    return len(data)
