"""Inputs cut into shards: every cut is where the format's reader starts a record, the shards
give back the input byte for byte, a shard read alone gives the records (with their line
numbers) that reading the whole input gives, and the cuts do not depend on how the bytes
arrive."""
from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyparse.parser.formats.bunsetsu import read_bunsetsu
from polyparse.parser.formats.conll import read_conll
from polyparse.parser.formats.gold_conll import read_gold_conll
from polyparse.parser.formats.record_boundaries import cut_rule_of
from polyparse.parser.formats.tag_coverage import TagColumn, TagCoverage
from polyparse.parser.models.bundled import bundled_example
from polyparse.parser.scale_out.shards import (
    NotOnWorker,
    by_reference,
    cut_shards,
    read_checked,
    read_reference,
)

DATA = Path(__file__).parents[2] / "data"
KNP_EXAMPLE = Path(bundled_example()).with_name("example.knp")


def conll_sample() -> bytes:
    """The bundled example three times over, with extra blank lines and a comment-only gap."""
    text = bundled_example().read_bytes()
    return text + b"\n\n" + text.replace(b"\n\n", b"\n \t\n\n", 1) + text


def knp_sample() -> bytes:
    """Two documents of two sentences each (S-IDs doc-a-1, doc-a-2, doc-b-1, doc-b-2)."""
    block = KNP_EXAMPLE.read_bytes()
    return b"".join(block.replace(b"S-ID:example-1", f"S-ID:{doc}-{n}".encode())
                    for doc in ("doc-a", "doc-b") for n in (1, 2))


def shards_of(data: bytes, fmt: str, size: int, chunk: int | None = None) -> list:
    stream = io.BytesIO(data) if chunk is None else _Trickle(data, chunk)
    return list(cut_shards(stream, cut_rule_of(fmt), size, "input"))


class _Trickle(io.RawIOBase):
    """A stream that gives at most `chunk` bytes a read, as a pipe may."""

    def __init__(self, data: bytes, chunk: int) -> None:
        self.data, self.chunk, self.position = data, chunk, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        piece = self.data[self.position:self.position + self.chunk]
        self.position += len(piece)
        return piece


def _conll_records(data: bytes, first_line: int = 1) -> list[tuple[int, list[str]]]:
    return [(s.start_line, s.lines) for s in read_conll(None, stream=io.BytesIO(data),
                                                         name="input", allow_empty=True,
                                                         first_line=first_line)]


@settings(max_examples=40, deadline=None)
@given(size=st.integers(1, 3000), chunk=st.integers(1, 5000))
def test_conll_shards_hold_whole_sentences_with_their_lines(size: int, chunk: int) -> None:
    data = conll_sample()
    shards = shards_of(data, "conllu", size, chunk)
    assert b"".join(shard.data for shard in shards) == data
    assert [shard.start for shard in shards[1:]] == [shard.end for shard in shards[:-1]]
    pieces = [record for shard in shards
              for record in _conll_records(shard.data, shard.first_line)]
    assert pieces == _conll_records(data)
    assert shards == shards_of(data, "conllu", size)


@pytest.mark.parametrize("size", [1, 200, 10_000])
def test_knp_shards_keep_documents_together(size: int) -> None:
    data = knp_sample()
    shards = shards_of(data, "knp", size)
    assert b"".join(shard.data for shard in shards) == data
    documents = [sorted({s.sid.rpartition("-")[0] for s in read_bunsetsu(
        io.BytesIO(shard.data), "knp", first_line=shard.first_line)}) for shard in shards]
    assert all(len(ids) == 1 for ids in documents) or size > len(data) // 2
    if size == 1:
        assert [ids[0] for ids in documents] == ["doc-a", "doc-b"]


@pytest.mark.parametrize("name", ["documents.gold_conll", "good.gold_conll"])
@pytest.mark.parametrize("size", [1, 300])
def test_gold_conll_shards_read_as_the_whole_file(name: str, size: int) -> None:
    data = (DATA / "gold_conll" / name).read_bytes()
    shards = shards_of(data, "gold_conll", size)
    assert b"".join(shard.data for shard in shards) == data
    whole = list(read_gold_conll(None, stream=io.BytesIO(data), name="input"))
    parts = [sentence for shard in shards
             for sentence in read_gold_conll(None, stream=io.BytesIO(shard.data), name="input",
                                             first_line=shard.first_line)]
    assert parts == whole
    if name == "documents.gold_conll" and size == 1:
        assert len(shards) > 1


def test_a_pipe_with_nothing_waiting_is_cut_at_its_last_sentence() -> None:
    data = conll_sample()
    first_end = data.index(b"\n\n") + 2
    stream = io.BytesIO(data)
    shards = cut_shards(stream, cut_rule_of("conllu"), 1 << 20, "input", lambda: False)
    assert next(shards).end == len(data)
    trickle = _Trickle(data, first_end + 5)
    shard = next(cut_shards(trickle, cut_rule_of("conllu"), 1 << 20, "input", lambda: False))
    assert shard.data == data[:first_end]


def test_a_long_record_makes_a_longer_shard() -> None:
    data = b"".join(f"{i}\tw\tw\tX\tX\t_\t0\troot\t_\t_\n".encode() for i in range(1, 2))
    data = data * 1 + b"\n" + b"1\tw\tw\tX\tX\t_\t0\troot\t_\t_\n" * 1 + b"\n"
    shards = shards_of(data, "conllu", 5)
    assert [shard.data.count(b"\troot\t") for shard in shards] == [1, 1]


def test_coverage_counts_add_up_over_shards() -> None:
    column = TagColumn("UPOS", "upos", frozenset({"NOUN"}))
    sentences = list(read_conll(bundled_example()))
    whole = TagCoverage([column])
    whole.add(sentences)
    summed = TagCoverage([column])
    for half in (sentences[:1], sentences[1:]):
        part = TagCoverage([column])
        part.add(half)
        summed.add_counted(part.counts())
    assert summed.counts() == whole.counts() and whole.tokens > 0
    assert summed.warning("x") == whole.warning("x")


def test_a_shard_by_reference_reads_back_its_bytes_or_says_what_it_could_not(
        tmp_path: Path) -> None:
    path = tmp_path / "input.conllu"
    text = bundled_example().read_bytes()
    path.write_bytes(text)
    shards = list(cut_shards(io.BytesIO(text), cut_rule_of("conllu"), 200, str(path)))
    assert len(shards) > 1
    for shard in shards:
        sent = by_reference(shard, str(path))
        assert sent.data == b"" and sent.path == str(path)
        assert read_reference(sent) == shard
    assert read_checked("model", str(path), hashlib.sha256(text).hexdigest()) == text
    sent = by_reference(shards[1], str(path))
    path.write_bytes(text.replace(b"\t", b" ", 1))
    assert read_reference(sent).data == shards[1].data  # the first shard's bytes changed
    path.write_bytes(text[:shards[1].start] + text[shards[1].start:].replace(b"\t", b" ", 1))
    with pytest.raises(NotOnWorker, match=r"^the input is not readable on this worker as on "
                                          r"the driver: .*: bytes \d+-\d+: not the bytes the "
                                          r"driver read \(sha256\)$"):
        read_reference(sent)
    path.unlink()
    with pytest.raises(NotOnWorker, match="No such file or directory") as raised:
        read_checked("model", str(path), "0" * 64)
    assert raised.value.what == "model"

