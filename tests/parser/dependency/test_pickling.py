"""DependencyParser pickles through its model bytes and its evaluation mode: the unpickled
parser gives the same trees, to_bytes() is the file save() writes, and a loaded parser keeps
its file's extras (training command, dev scores)."""
from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

import pytest

from polyparse.classifiers.model_bytes import load_from_bytes
from polyparse.classifiers.model_file import ModelFileError, encode_model
from polyparse.features.errors import InputError
from polyparse.parser.dependency.config import ParserConfig, classifier_options
from polyparse.parser.dependency.dependency_parser import DependencyParser
from polyparse.parser.formats.conll import Sentence, read_conll
from tests.parser.dependency.synthetic import write_treebank
from tests.pickled_payload import assert_changed_payload_fails

SMALL = {"poly2-linear": {}, "linear": {"C": 0.5},
         "kernel-svm": {"eps": 0.5, "cache_mb": 20.0},
         "pa-slicing": {"iterations": 3}}


@pytest.fixture(scope="module")
def treebanks(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Sentence],
                                                                 list[Sentence]]:
    folder = tmp_path_factory.mktemp("treebanks")
    train = write_treebank(folder / "train.conllu", 150, seed=11)
    test = write_treebank(folder / "test.conllu", 30, seed=12)
    return (list(read_conll(train, require_tree=True)), list(read_conll(test)))


@pytest.fixture(scope="module", params=list(SMALL))
def trained(request: pytest.FixtureRequest,
            treebanks: tuple[list[Sentence], list[Sentence]]) -> DependencyParser:
    classifier = request.param
    parser = DependencyParser(ParserConfig(
        split_threshold=200, classifier=classifier, seed=2, threads=1,
        classifier_params=classifier_options(classifier, **SMALL[classifier])))
    parser.train(treebanks[0])
    return parser


def test_unpickled_parser_gives_the_same_trees(trained: DependencyParser,
                                               treebanks: tuple[list[Sentence],
                                                                list[Sentence]]) -> None:
    test = treebanks[1]
    again = pickle.loads(pickle.dumps(trained))
    assert again.parse(test) == trained.parse(test)
    assert again.to_bytes() == trained.to_bytes()
    assert (again.eval_mode, again.rare_threshold) == (trained.eval_mode, trained.rare_threshold)


@pytest.mark.parametrize("eval_mode", ["naive", "pki", "pke"])
def test_evaluation_mode_travels_with_the_pickle(trained: DependencyParser,
                                                 treebanks: tuple[list[Sentence],
                                                                  list[Sentence]],
                                                 eval_mode: str) -> None:
    test = treebanks[1]
    expected = trained.parse(test)
    trained.set_evaluation(eval_mode, 3)
    try:
        again = pickle.loads(pickle.dumps(trained))
        assert (again.eval_mode, again.rare_threshold) == (eval_mode, 3)
        assert again.parse(test) == trained.parse(test) == expected
    finally:
        trained.set_evaluation("split", "auto")


def test_converted_parser_pickles(treebanks: tuple[list[Sentence], list[Sentence]]) -> None:
    parser = DependencyParser(ParserConfig(
        split_threshold=200, classifier="kernel-svm", threads=1,
        classifier_params=classifier_options("kernel-svm", **SMALL["kernel-svm"])))
    parser.train(treebanks[0])
    expected = parser.parse(treebanks[1])
    assert parser.convert("pki") > 0
    again = pickle.loads(pickle.dumps(parser))
    assert again.info["converted"]["evaluator"] == "pki"
    assert again.parse(treebanks[1]) == parser.parse(treebanks[1]) == expected


def test_to_bytes_is_the_file_save_writes_and_keeps_the_files_extras(
        trained: DependencyParser, tmp_path: Path) -> None:
    path = tmp_path / "dep.model"
    extras = {"training_command": "polyparse dep train ...", "dev_scores": {"LAS": 50.0}}
    trained.save(str(path), extra_header=extras)
    assert path.read_bytes() == trained.to_bytes(extra_header=extras)
    trained.save(str(path), compress=True)
    assert path.read_bytes() == trained.to_bytes(compress=True)
    trained.save(str(path), extra_header=extras)
    loaded = DependencyParser.load(str(path))
    assert loaded.file_extras() == extras
    assert loaded.to_bytes() == path.read_bytes()
    again = pickle.loads(pickle.dumps(loaded))
    assert again.file_extras() == extras and again.to_bytes() == path.read_bytes()
    loaded.save(str(path))
    assert DependencyParser.load(str(path)).file_extras() == extras
    assert loaded.to_bytes(extra_header={}) == trained.to_bytes()


def test_changed_or_broken_bytes_and_an_untrained_parser_fail_with_one_line(
        trained: DependencyParser) -> None:
    error = assert_changed_payload_fails(trained, "DependencyParser", at=100)
    assert isinstance(error, InputError)
    other = bytes(encode_model({"format": "polyparse-ja"}, {}))
    with pytest.raises(ModelFileError, match=r"^pickled DependencyParser: is a polyparse-ja "
                                             r"model, expected polyparse-dep$"):
        load_from_bytes(DependencyParser, other, hashlib.sha256(other).hexdigest(), {})
    incomplete = bytes(encode_model({"format": "polyparse-dep", "config": {}}, {}))
    with pytest.raises(ModelFileError, match=r"^model bytes: inconsistent model header "
                                             r"\('words'\)$"):
        DependencyParser.from_bytes(incomplete)
    with pytest.raises(RuntimeError, match="the parser is not trained"):
        pickle.dumps(DependencyParser())
