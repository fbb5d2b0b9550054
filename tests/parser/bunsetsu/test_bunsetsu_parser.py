"""BunsetsuParser end to end: training with each backend, model files (round trip and
byte-identical for one seed), the exact evaluators, and chunking sentences given without
bunsetsu; on synthetic sentences always, on a KWDLC sample when POLYPARSE_CORPORA is set."""
from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
from polyparse.parser.bunsetsu.config import BunsetsuConfig, classifier_options
from tests.parser.bunsetsu.samples import (
    Sentence,
    kwdlc_or_skip,
    synthetic_sentences,
)

SMALL = {"pa-slicing": {"iterations": 3}, "linear": {}, "poly2-linear": {},
         "kernel-svm": {"eps": 0.5, "cache_mb": 20.0}}


def config(classifier: str = "pa-slicing", **settings: object) -> BunsetsuConfig:
    return BunsetsuConfig(classifier=classifier,
                          classifier_params=classifier_options(classifier, **SMALL[classifier]),
                          **settings)


Parsed = list[tuple[list[int], list[int]]]


def heads_of(parsed: Parsed) -> list[list[int]]:
    return [heads for _, heads in parsed]


@pytest.fixture(scope="module")
def synthetic() -> tuple[list[Sentence], list[Sentence]]:
    return synthetic_sentences(seed=20, n=150), synthetic_sentences(seed=21, n=60)


@pytest.fixture(scope="module")
def kwdlc() -> tuple[list[Sentence], list[Sentence]]:
    return kwdlc_or_skip("train", 300), kwdlc_or_skip("test", 150)


@pytest.fixture(scope="module", params=["synthetic", "kwdlc"])
def data(request: pytest.FixtureRequest) -> tuple[list[Sentence], list[Sentence]]:
    return request.getfixturevalue(request.param)


@pytest.mark.parametrize("algorithm", ["shift-reduce", "cascaded"])
def test_round_trip_and_byte_identical_models(data: tuple[list[Sentence], list[Sentence]],
                                              algorithm: str, tmp_path: Path) -> None:
    train, test = data
    paths = []
    for run in range(2):
        parser = BunsetsuParser(config(algorithm=algorithm, seed=4))
        parser.train(train)
        paths.append(tmp_path / f"model{run}.bin")
        parser.save(str(paths[-1]))
    assert paths[0].read_bytes() == paths[1].read_bytes()
    loaded = BunsetsuParser.load(str(paths[0]))
    assert loaded.config == parser.config
    assert loaded.parse(test) == parser.parse(test)
    assert loaded.parse(test, chunk=True) == parser.parse(test, chunk=True)
    gold = [s.heads for s in test]
    parsed = heads_of(parser.parse(test))
    right = sum(h == g for p, q in zip(parsed, gold) for h, g in zip(p[:-1], q[:-1]))
    assert right / sum(len(q) - 1 for q in gold) > 0.5


@pytest.mark.parametrize("classifier", list(SMALL))
def test_each_backend_trains_and_parses(classifier: str,
                                        synthetic: tuple[list[Sentence], list[Sentence]],
                                        tmp_path: Path) -> None:
    train, test = synthetic
    parser = BunsetsuParser(config(classifier, seed=1))
    parser.train(train)
    parsed = parser.parse(test)
    assert [starts for starts, _ in parsed] == [s.chunk_starts for s in test]
    for (_, heads), s in zip(parsed, test):
        assert len(heads) == len(s.heads) and heads[-1] == -1
        assert all(c < h < len(heads) for c, h in enumerate(heads[:-1]))
    parser.save(str(tmp_path / "model.bin"))
    assert BunsetsuParser.load(str(tmp_path / "model.bin")).parse(test) == parsed


@pytest.mark.parametrize("algorithm", ["shift-reduce", "cascaded"])
def test_evaluators_give_identical_heads(data: tuple[list[Sentence], list[Sentence]],
                                         algorithm: str, tmp_path: Path) -> None:
    train, test = data
    results = {}
    for evaluator in ("none", "split", "pki", "pke"):
        parser = BunsetsuParser(config(algorithm=algorithm, evaluator=evaluator, seed=3))
        parser.train(train)
        path = tmp_path / f"{evaluator}.bin"
        parser.save(str(path))
        results[evaluator] = BunsetsuParser.load(str(path)).parse(test, chunk=True)
        assert results[evaluator] == parser.parse(test, chunk=True)
    assert results["split"] == results["none"]
    assert results["pki"] == results["none"]
    assert results["pke"] == results["none"]


def test_with_chunks_rebuilds_the_encoded_chunks(
        data: tuple[list[Sentence], list[Sentence]]) -> None:
    sentences = data[1] + [Sentence()]  # an empty sentence too
    parser = BunsetsuParser(config("linear"))
    chunked = parser.encode(sentences, grow=True)
    bare = parser.encode(sentences, chunks=False)
    flags = np.concatenate([np.isin(np.arange(len(s.surface)), s.chunk_starts)
                            for s in sentences]).astype(np.int8)
    rebuilt = BunsetsuParser._with_chunks(bare, flags)
    for name in ("surface", "pos1", "pos2", "conj_form", "morpheme_ptr", "chunk_ptr",
                 "chunk_bounds"):
        assert np.array_equal(getattr(rebuilt, name), getattr(chunked, name)), name


def test_parse_chunks_sentences_without_bunsetsu(
        data: tuple[list[Sentence], list[Sentence]]) -> None:
    train, test = data
    parser = BunsetsuParser(config("linear", seed=5))
    parser.train(train)
    stripped = [s.without_chunks() for s in test]
    rechunked = parser.parse(test, chunk=True)
    assert parser.parse(stripped) == rechunked
    assert parser.parse(stripped, chunk=True) == rechunked
    assert parser.parse(test, chunk=False) == parser.parse(test)
    # The chunker's flags, then the parser on the corpus they chunk.
    flags = parser.chunk_corpus(parser.encode(stripped, chunks=False))
    bounds = np.cumsum([0] + [len(s.surface) for s in test])
    assert [starts for starts, _ in rechunked] == [
        np.flatnonzero(flags[lo:hi]).tolist() for lo, hi in pairwise(bounds)]
    corpus = BunsetsuParser._with_chunks(parser.encode(stripped, chunks=False), flags)
    assert [h for _, heads in rechunked for h in heads] == parser.parse_corpus(corpus).tolist()
    gold = np.concatenate([np.isin(np.arange(len(s.surface)), s.chunk_starts) for s in test])
    assert np.mean(flags == gold) > 0.9
    # Without bunsetsu and chunk=False: nothing to parse.
    assert parser.parse(stripped, chunk=False) == [([], []) for _ in stripped]


def test_loaded_chunker_is_built_when_first_used(synthetic: tuple[list[Sentence], list[Sentence]],
                                                 tmp_path: Path) -> None:
    """load() leaves the chunker's arrays compressed: parsing sentences with bunsetsu never
    builds it, chunking does, and either way the results are those of a parser read whole;
    a chunker that does not decompress fails then, naming the file."""
    import json
    import struct
    import zlib

    from polyparse.classifiers.model_file import ALIGNMENT, MAGIC, ModelFileError

    train, test = synthetic
    parser = BunsetsuParser(config(seed=4))
    parser.train(train)
    path = tmp_path / "model.bin"
    parser.save(str(path))
    whole = BunsetsuParser.from_bytes(path.read_bytes())
    loaded = BunsetsuParser.load(str(path))
    assert list(loaded._pending) == ["chunk"] and loaded.can_chunk and loaded.trained
    assert loaded.parse(test, chunk=False) == whole.parse(test, chunk=False)
    assert list(loaded._pending) == ["chunk"]
    bare = [s.without_chunks() for s in test]
    assert loaded.parse(bare) == whole.parse(bare)
    assert loaded._pending == {}
    assert sorted(loaded.classifiers) == sorted(loaded.vocabs) == ["chunk", "dependency"]
    assert loaded.to_bytes() == path.read_bytes()
    assert BunsetsuParser.load(str(path)).to_bytes() == path.read_bytes()
    # A chunker whose first compressed array is broken (its checksum made right again).
    data = bytearray(path.read_bytes())
    header_end = len(MAGIC) + 8 + struct.unpack("<Q", data[len(MAGIC):len(MAGIC) + 8])[0]
    table = json.loads(bytes(data[len(MAGIC) + 8:header_end]))
    start = -(-header_end // ALIGNMENT) * ALIGNMENT
    entry = next(e for e in table["arrays"] if e["name"].startswith("chunk/"))
    data[start + entry["offset"] + 4] ^= 0xFF
    data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))
    broken = tmp_path / "broken.bin"
    broken.write_bytes(bytes(data))
    loaded = BunsetsuParser.load(str(broken))
    assert loaded.parse(test, chunk=False) == whole.parse(test, chunk=False)
    with pytest.raises(ModelFileError, match="broken.bin: "):
        loaded.parse(bare)
