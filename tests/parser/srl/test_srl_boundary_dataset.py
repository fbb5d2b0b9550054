"""The instances built from the corpus equal datasets/srl_boundary line for line, byte for
byte: test.tk and dev.tk through the dataset's features.vocab, and train.tk with the vocabulary
built on it (the README's md5 prefixes; train's 413,485 instances take about 10 s)."""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from polyparse.parser.formats.gold_conll import ConllSrlSentence, read_gold_conll
from polyparse.parser.srl.feature_vocab import FirstSeenVocab
from polyparse.parser.srl.instances import sentence_instances, tk_lines
from polyparse.parser.srl.statistics import BoundaryStatistics

CORPUS_FILE = Path("propbank_wsj_sample") / "wsj_0001-0199.words.gold_conll"
# datasets/srl_boundary/README.md: "Split by document" and the md5 prefixes of the files.
SPLITS = {"train": (1, 139), "dev": (140, 169), "test": (170, 199)}
MD5 = {"train.tk": "9d247411", "dev.tk": "199774ed", "test.tk": "e0394332"}
DOCUMENT_NUMBER = re.compile(r"wsj_(\d{4})$")


@pytest.fixture(scope="module")
def corpus(corpora: Path) -> list[ConllSrlSentence]:
    path = corpora / CORPUS_FILE
    if not path.is_file():
        pytest.skip(f"{path} not found")
    return list(read_gold_conll(path))


def split(corpus: list[ConllSrlSentence], name: str) -> Iterator[ConllSrlSentence]:
    first, last = SPLITS[name]
    for sentence in corpus:
        match = DOCUMENT_NUMBER.search(sentence.document_id)
        if match and first <= int(match.group(1)) <= last:
            yield sentence


def md5(lines: list[str]) -> str:
    return hashlib.md5("".join(lines).encode("utf-8")).hexdigest()


def assert_same_lines(built: list[str], path: Path) -> None:
    expected = path.read_text(encoding="utf-8").splitlines(keepends=True)
    differing = next((k for k, (a, b) in enumerate(zip(built, expected)) if a != b), None)
    assert differing is None, (f"{path.name}:{differing + 1}: built {built[differing]!r}, "
                               f"expected {expected[differing]!r}")
    assert len(built) == len(expected)


@pytest.mark.parametrize("name", ["test", "dev"])
def test_test_and_dev_equal_the_dataset_line_for_line(corpus: list[ConllSrlSentence],
                                                      srl_boundary: Path, name: str) -> None:
    vocab = FirstSeenVocab.read(srl_boundary / "features.vocab")
    groups = list(sentence_instances(split(corpus, name)))
    built = list(tk_lines(groups, vocab))
    assert_same_lines(built, srl_boundary / f"{name}.tk")
    assert md5(built).startswith(MD5[f"{name}.tk"])
    counts = json.loads((srl_boundary / "counts.json").read_text(encoding="utf-8"))
    statistics = BoundaryStatistics().add(groups)
    expected = counts["files"][name]
    assert (statistics.instances, statistics.positives, statistics.negatives) == \
        (expected["instances"], expected["pos"], expected["neg"])
    assert statistics.as_dict()["avg_tree_nodes"] == expected["avg_tree_nodes"]
    assert statistics.as_dict()["avg_tree_words"] == expected["avg_tree_words"]
    assert statistics.max_tree_nodes == expected["max_tree_nodes"]
    assert statistics.predicates == counts["stats"][f"{name}_predicates"]
    assert statistics.argument_spans == counts["stats"][f"{name}_args"]
    assert statistics.matched_spans == counts["stats"][f"{name}_args_match_node"]


def test_train_and_its_vocabulary_equal_the_dataset(corpus: list[ConllSrlSentence],
                                                    srl_boundary: Path) -> None:
    vocab = FirstSeenVocab()
    built = list(tk_lines(sentence_instances(split(corpus, "train")), vocab))
    assert len(vocab) == 195_986
    vocab_lines = [f"{number}\t{feature}\n" for number, feature in
                   enumerate(vocab.features(), 1)]
    assert "".join(vocab_lines).encode("utf-8") == \
        (srl_boundary / "features.vocab").read_bytes()
    assert len(built) == 413_485
    assert md5(built).startswith(MD5["train.tk"])
    if (srl_boundary / "train.tk").is_file():
        assert_same_lines(built, srl_boundary / "train.tk")
