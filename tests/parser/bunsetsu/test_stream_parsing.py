"""The KNP fast path's stream loop (parser.bunsetsu.stream_parsing.KnpStreamParser): batches cut
anywhere, sentences longer than the buffer, input arriving in small pieces and slow blocks in
between give the output of one batch, written from its reused buffer."""
from __future__ import annotations

import io
import threading

import pytest

from features.worker_threads import worker_pool
from parser.bunsetsu import stream_parsing
from parser.bunsetsu.bunsetsu_parser import BunsetsuParser
from parser.bunsetsu.config import BunsetsuConfig
from parser.formats.knp import read_knp
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
    """A signal unwinds through close() (issue 22, B8): a part of the batch that a worker thread
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
