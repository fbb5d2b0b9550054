"""The KNP fast path's stream loop (parser.bunsetsu.stream_parsing.KnpStreamParser): batches cut
anywhere, sentences longer than the buffer, input arriving in small pieces and slow blocks in
between give the output of one batch, written from its reused buffer."""
from __future__ import annotations

import io
import threading
import warnings

import pytest

from polyparse.features.errors import InputError
from polyparse.features.worker_threads import worker_pool
from polyparse.parser.bunsetsu import stream_parsing
from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
from polyparse.parser.bunsetsu.config import BunsetsuConfig
from polyparse.parser.formats.knp import read_knp
from tests.child_processes import HANG_GUARD_SECONDS
from tests.parser.formats.test_knp import SMALL

SLOW_BLOCK = "* -1D\n\\ \\ \\ 特殊 1 空白 6 * 0 * 0\nEOS\n"


@pytest.fixture(scope="module")
def parser() -> BunsetsuParser:
    parser = BunsetsuParser(BunsetsuConfig(classifier="linear", chunker=False))
    parser.train(list(read_knp(io.StringIO(SMALL * 5), validate=False)))
    return parser


class Trickle(io.RawIOBase):
    """A stream that gives at most `step` bytes a read, as a pipe does."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.position, self.step = data, 0, step

    def readable(self) -> bool:
        return True

    def readinto(self, target) -> int:
        n = min(self.step, len(target), len(self.data) - self.position)
        target[:n] = self.data[self.position:self.position + n]
        self.position += n
        return n


def parse(parser: BunsetsuParser, stream, ready: bool = True) -> tuple[bytes, list[int]]:
    written: list[bytes] = []
    counts: list[int] = []
    reader = stream_parsing.KnpStreamParser(parser, "in.knp", "the model",
                                            parser.tag_coverage(), "utf-8")
    reader.run(stream, lambda: ready, lambda data: written.append(bytes(data)), counts.append)
    reader.close()
    return b"".join(written), counts


def test_any_batch_size_gives_the_same_output(parser: BunsetsuParser,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # Batches from one byte (every sentence longer than the buffer) to the whole input.
    text = (SMALL * 3 + SLOW_BLOCK + SMALL).encode()
    expected, counts = parse(parser, io.BytesIO(text))
    n_sentences = text.count(b"EOS\n")
    assert sum(counts) == n_sentences and expected.count(b"EOS\n") == n_sentences
    for batch_bytes in (1, 7, 64, 200, len(text) - 1, len(text) + 1):
        monkeypatch.setattr(stream_parsing, "BATCH_BYTES", batch_bytes)
        for stream in (io.BytesIO(text), Trickle(text, 5), io.BufferedReader(Trickle(text, 33))):
            for ready in (True, False):
                output, counts = parse(parser, stream if ready else io.BytesIO(text), ready)
                assert output == expected, (batch_bytes, stream, ready)
                assert sum(counts) == n_sentences


def test_text_after_the_last_sentence(parser: BunsetsuParser,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream_parsing, "BATCH_BYTES", 16)
    output, _ = parse(parser, io.BytesIO(SMALL.encode() + b"\n\n"))
    assert output == parse(parser, io.BytesIO(SMALL.encode()))[0]


def test_closing_does_not_wait_for_a_part_still_parsed(parser: BunsetsuParser) -> None:
    """A signal unwinds through close(): a part of the batch that a worker thread
    still parses, a long sentence there, must not hold the run back."""
    reader = stream_parsing.KnpStreamParser(parser, "in.knp", "the model",
                                            parser.tag_coverage(), "utf-8")
    release = threading.Event()
    reader.pool = worker_pool(1)
    part = reader.pool.submit(release.wait)
    closing = threading.Thread(target=reader.close)
    closing.start()
    closing.join(HANG_GUARD_SECONDS)
    try:
        assert not closing.is_alive(), "close() waited for the worker thread"
        assert not part.done()
    finally:
        release.set()


def parse_in_parts(parser: BunsetsuParser, text: bytes, threads: int,
                   errors: str = "strict") -> tuple[bytes, list[int], dict, str | None,
                                                     list[str]]:
    """The output, counts per batch, coverage, error message and warnings of the fast path
    with `threads` threads (each batch cut into that many parts when they reach PART_BYTES)."""
    written: list[bytes] = []
    counts: list[int] = []
    coverage = parser.tag_coverage()
    reader = stream_parsing.KnpStreamParser(parser, "in.knp", "the model", coverage, "utf-8",
                                            errors)
    reader.threads = threads
    message = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            reader.run(io.BytesIO(text), lambda: True,
                       lambda data: written.append(bytes(data)), counts.append)
        except InputError as error:
            message = str(error)
        finally:
            reader.close()
    return (b"".join(written), counts, coverage.counts(), message,
            [str(warning.message) for warning in caught])


BAD_BYTE_BLOCK = b"* -1D\n+ -1D\n\xff\xfe \xe3\x81\xaf \xe3\x81\xaf \xe5\x8a\xa9\xe8\xa9\x9e 9 " \
    b"\xe5\x89\xaf\xe5\x8a\xa9\xe8\xa9\x9e 2 * 0 * 0\nEOS\n"
UNREADABLE_BLOCK = b"* -1D\n+ -1D\n\xe3\x81\xaf \xe3\x81\xaf\nEOS\n"


@pytest.mark.parametrize("part_bytes", [1, 90, 400, 1 << 20])
def test_parts_of_a_batch_give_the_output_of_one(parser: BunsetsuParser, part_bytes: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch cut into parts at sentence ends, scanned and parsed in threads at once: the
    bytes, counts, coverage and error (its line, the sentences before it written) of the
    batch read in one part, with slow blocks, bytes that are not UTF-8 (strict and replaced)
    and a block that cannot be read in any part, and text left after the last sentence."""
    small = SMALL.encode()
    texts = [small * 9 + SLOW_BLOCK.encode() + small * 4,
             small * 5 + BAD_BYTE_BLOCK + small * 6,
             small * 2 + BAD_BYTE_BLOCK + small * 9 + BAD_BYTE_BLOCK + small,
             small * 7 + UNREADABLE_BLOCK + small * 3,
             small * 11 + b"* -1D\n"]
    for text in texts:
        for errors in ("strict", "replace"):
            expected = parse_in_parts(parser, text, 1, errors)
            assert expected[0].count(b"EOS\n") >= 2
            assert len(expected[4]) == (errors == "replace" and BAD_BYTE_BLOCK in text)
            monkeypatch.setattr(stream_parsing, "PART_BYTES", part_bytes)
            for threads in (2, 3, 8):
                assert parse_in_parts(parser, text, threads, errors) == expected, \
                    (text[:20], errors, threads)
            monkeypatch.setattr(stream_parsing, "PART_BYTES", 256 << 10)


def test_part_spans_end_with_blocks(parser: BunsetsuParser,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    text = SMALL.encode() * 6 + SLOW_BLOCK.encode()
    reader = stream_parsing.KnpStreamParser(parser, "in.knp", "the model",
                                            parser.tag_coverage(), "utf-8")
    reader.threads = 4
    monkeypatch.setattr(stream_parsing, "PART_BYTES", 50)
    spans = reader.part_spans(memoryview(text))
    assert len(spans) == 4 and spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert all(text[:stop].endswith(b"\nEOS\n") for _, stop in spans)
    monkeypatch.setattr(stream_parsing, "PART_BYTES", len(text))
    assert reader.part_spans(memoryview(text)) == [(0, len(text))]


def test_block_end_found_across_windows() -> None:
    """A batch is cut after the first EOS line from a point on, found however far it is and
    wherever it straddles the windows it is looked for in."""
    for offset in (0, 1, 4092, 4093, 4094, 4095, 4096, 12_285, 12_287, 30_000):
        data = memoryview(b"x" * offset + b"\nEOS\n" + b"y" * 9 + b"\nEOS\n")
        assert stream_parsing._block_end_from(data, 0) == offset + 5
        assert stream_parsing._block_end_from(data, offset + 1) == offset + 19
    assert stream_parsing._block_end_from(memoryview(b"x" * 9000), 0) == -1
    assert stream_parsing._block_end_from(memoryview(b"EOS\n"), 0) == -1


@pytest.mark.parametrize("min_speedup, expected", [(0.0, "PPPPPPPP"), (1e9, "PSSPSSPS")])
def test_threads_left_for_batches_while_they_do_not_pay(
        parser: BunsetsuParser, monkeypatch: pytest.MonkeyPatch, min_speedup: float,
        expected: str) -> None:
    """Threads that gave less than MIN_SPEEDUP (the CPUs busy with other work) leave the next
    SERIAL_BATCHES batches to one thread, then are tried again: which batches were cut in
    parts (P) or not (S), and the same output either way."""
    text = SMALL.encode() * 40
    one, _, _, _, _ = parse_in_parts(parser, text, 1)
    monkeypatch.setattr(stream_parsing, "MIN_SPEEDUP", min_speedup)
    monkeypatch.setattr(stream_parsing, "SERIAL_BATCHES", 2)
    monkeypatch.setattr(stream_parsing, "PART_BYTES", 100)
    monkeypatch.setattr(stream_parsing, "BATCH_BYTES", len(text) // 8 + 1)
    reader = stream_parsing.KnpStreamParser(parser, "in.knp", "the model",
                                            parser.tag_coverage(), "utf-8")
    reader.threads = 2
    seen: list[str] = []

    def batch(data, first_line, write):
        spans = reader.part_spans(data, 1 if reader.serial_batches else 2)
        seen.append("P" if len(spans) > 1 else "S")
        return original_batch(data, first_line, write)

    original_batch = reader.batch
    monkeypatch.setattr(reader, "batch", batch)
    written: list[bytes] = []
    try:
        reader.run(io.BytesIO(text), lambda: True, lambda data: written.append(bytes(data)),
                   lambda n: None)
    finally:
        reader.close()
    assert "".join(seen) == expected
    assert b"".join(written) == one
