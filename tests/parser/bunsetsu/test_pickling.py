"""BunsetsuParser pickles through its model bytes: the unpickled parser chunks and parses
exactly as the original, to_bytes() is the file save() writes, and the bundled model's bytes
are its file's."""
from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
from polyparse.parser.bunsetsu.config import BunsetsuConfig, classifier_options
from polyparse.parser.models.bundled import bundled_japanese_model
from tests.parser.bunsetsu.samples import Sentence, synthetic_sentences
from tests.pickled_payload import assert_changed_payload_fails

SMALL = {"pa-slicing": {"iterations": 3}, "poly2-linear": {},
         "kernel-svm": {"eps": 0.5, "cache_mb": 20.0}}
SETTINGS = {
    "pa-slicing split": ("pa-slicing", {"evaluator": "split"}),
    "pa-slicing kernel model, cascaded": ("pa-slicing", {"evaluator": "none",
                                                         "algorithm": "cascaded"}),
    "kernel-svm pke": ("kernel-svm", {"evaluator": "pke"}),
    "poly2-linear without chunker": ("poly2-linear", {"chunker": False}),
}


@pytest.fixture(scope="module")
def sentences() -> tuple[list[Sentence], list[Sentence]]:
    return synthetic_sentences(seed=30, n=120), synthetic_sentences(seed=31, n=40)


@pytest.fixture(scope="module", params=list(SETTINGS))
def trained(request: pytest.FixtureRequest,
            sentences: tuple[list[Sentence], list[Sentence]]) -> BunsetsuParser:
    classifier, settings = SETTINGS[request.param]
    parser = BunsetsuParser(BunsetsuConfig(
        classifier=classifier, seed=3,
        classifier_params=classifier_options(classifier, **SMALL[classifier]), **settings))
    parser.train(sentences[0], threads=1)
    return parser


def test_unpickled_parser_chunks_and_parses_the_same(
        trained: BunsetsuParser, sentences: tuple[list[Sentence], list[Sentence]]) -> None:
    test = sentences[1]
    again = pickle.loads(pickle.dumps(trained))
    assert again.config == trained.config
    assert again.parse(test, chunk=False) == trained.parse(test, chunk=False)
    if trained.can_chunk:
        assert again.parse(test, chunk=True) == trained.parse(test, chunk=True)
    assert again.to_bytes() == trained.to_bytes()


def test_to_bytes_is_the_file_save_writes(trained: BunsetsuParser, tmp_path: Path) -> None:
    path = tmp_path / "ja.model"
    extras = {"training_command": "polyparse ja train ...", "dev_scores": {"correct": 3}}
    trained.save(str(path), extra_header=extras)
    assert path.read_bytes() == trained.to_bytes(extra_header=extras)
    loaded = BunsetsuParser.load(str(path))
    assert loaded.file_extras() == extras and loaded.to_bytes() == path.read_bytes()
    assert pickle.loads(pickle.dumps(loaded)).to_bytes() == path.read_bytes()


def test_bundled_model_bytes_are_its_file() -> None:
    path = bundled_japanese_model()
    if path is None:
        pytest.skip("no bundled Japanese model")
    parser = BunsetsuParser.load(str(path))
    assert parser.to_bytes() == Path(path).read_bytes()


def test_changed_payload_fails_with_one_line(trained: BunsetsuParser) -> None:
    assert_changed_payload_fails(trained, "BunsetsuParser")


def test_a_loaded_parser_trained_again_pickles_as_what_it_learned(
        sentences: tuple[list[Sentence], list[Sentence]], tmp_path: Path) -> None:
    """A parser loaded from a (compressed) file and then trained is no longer that file: its
    pickle carries the new model, not the loaded file's bytes."""
    first = BunsetsuParser(BunsetsuConfig(classifier="poly2-linear", seed=3))
    first.train(sentences[0][:60], threads=1)
    first.save(str(tmp_path / "first.model"))
    loaded = BunsetsuParser.load(tmp_path / "first.model")
    loaded.train(sentences[0], threads=1)
    assert loaded.pickle_bytes() != (tmp_path / "first.model").read_bytes()
    again = pickle.loads(pickle.dumps(loaded))
    assert again.parse(sentences[1], chunk=False) == loaded.parse(sentences[1], chunk=False)
    assert again.to_bytes() == loaded.to_bytes()
