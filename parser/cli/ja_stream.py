"""How `polyparse ja parse` reads and writes fast: the KNP fast path (KnpStreamParser, over
parser/formats/knp_scan.pyx), and the count of parts of speech the model never saw
(LexiconCoverage)."""
from __future__ import annotations

import io
import os
from collections.abc import Callable
from typing import Any, BinaryIO

from features.errors import InputError
from parser.bunsetsu.bunsetsu_files import parsed_blocks
from parser.formats.bunsetsu_sentence import BunsetsuSentence

# The KNP fast path reads the input this many bytes at a time, and parses a batch once this
# many bytes are waiting (or once no more input is ready).
READ_BYTES = 1 << 20
BATCH_BYTES = 4 << 20
# A batch of the fast path is parsed in up to MAX_THREADS threads, each given at least
# THREAD_SENTENCES sentences.
MAX_THREADS = 8
THREAD_SENTENCES = 500


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
