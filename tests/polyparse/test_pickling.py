"""What `import polyparse` hands a user pickles through its model bytes: the bundled parsers,
trained parsers, classifiers, tree classifiers and boundary detectors give byte-identical
output after pickling, also in the worker processes of a real process pool."""
from __future__ import annotations

import multiprocessing
import os
import pickle
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import polyparse
from polyparse.parser.formats.cabocha import knp_to_cabocha
from polyparse.parser.formats.knp import read_knp
from tests.parser.bunsetsu.samples import synthetic_sentences
from tests.parser.cli.test_ja import without_bunsetsu_lines, write_knp
from tests.parser.dependency.synthetic import write_treebank
from tests.pickled_payload import assert_changed_payload_fails
from tests.polyparse.test_trees import write_four_examples

GOOD = Path(__file__).resolve().parents[1] / "data" / "gold_conll" / "good.gold_conll"


def parse_in_worker(parser: polyparse.Parser | polyparse.JapaneseParser,
                    text: str) -> tuple[str, int]:
    """The parse of text and the id of the process that parsed it."""
    return parser.parse(text), os.getpid()


@pytest.fixture(scope="module")
def english() -> polyparse.Parser:
    return polyparse.load_parser()


@pytest.fixture(scope="module")
def japanese() -> polyparse.JapaneseParser:
    return polyparse.load_japanese_parser()


def test_bundled_parsers_pickle_as_their_files(english: polyparse.Parser,
                                               japanese: polyparse.JapaneseParser) -> None:
    assert english.to_bytes() == bundled_layer("parser")
    assert japanese.to_bytes() == polyparse.bundled_japanese_model().read_bytes()
    text = polyparse.bundled_example().read_text(encoding="utf-8")
    again = pickle.loads(pickle.dumps(english))
    assert type(again) is polyparse.Parser
    assert again.parse(text) == english.parse(text)
    assert again.to_bytes() == english.to_bytes()
    assert again.model.file_extras() == english.model.file_extras()
    knp = polyparse.bundled_japanese_example().read_text(encoding="utf-8")
    ja_again = pickle.loads(pickle.dumps(japanese))
    assert type(ja_again) is polyparse.JapaneseParser
    assert ja_again.parse(knp) == japanese.parse(knp)
    assert ja_again.parse(knp, rechunk=True) == japanese.parse(knp, rechunk=True)
    assert ja_again.to_bytes() == japanese.to_bytes()


def bundled_layer(name: str) -> bytes:
    """The bytes of one layer of the bundled English pipeline (its parser's or tagger's file)."""
    from polyparse.classifiers.pipeline_file import pipeline_layers

    path = polyparse.bundled_model()
    return bytes(pipeline_layers(path.read_bytes(), str(path))[name])


def test_a_loaded_parser_pickles_as_its_model_files_bytes(english: polyparse.Parser) -> None:
    """The bundled parser pickled as its arrays inflated: it carries its layer of the pipeline
    file (its own model file's bytes), checked by their sha256 on arrival, and so does the
    tagger."""
    from polyparse.parser.tagging.tagger import Tagger

    model_file = bundled_layer("parser")
    assert english.pickle_bytes() == model_file
    payload = pickle.dumps(english)
    assert len(model_file) < len(payload) < len(model_file) + 10_000
    again = pickle.loads(payload)
    assert len(pickle.dumps(again)) == len(payload)
    assert_changed_payload_fails(english, "Parser")
    tagger = Tagger.load(english.tagger_path)
    assert tagger.pickle_bytes() == bundled_layer("tagger")


def test_a_converted_parser_pickles_what_it_became(tmp_path: Path) -> None:
    """Once changed (converted, or trained), a model's pickle is its own bytes, not those of
    the file it was loaded from."""
    train = write_treebank(tmp_path / "train.conllu", 120, seed=3)
    parser, _ = polyparse.train_parser(train, classifier="pa-slicing", iterations=2,
                                       split_threshold=100)
    parser.save(tmp_path / "kernel.model")
    loaded = polyparse.load_parser(tmp_path / "kernel.model")
    assert loaded.pickle_bytes() == (tmp_path / "kernel.model").read_bytes()
    loaded.model.convert("split")
    again = pickle.loads(pickle.dumps(loaded))
    assert again.model.info["converted"]["evaluator"] == "split"


@pytest.fixture(scope="module")
def pki_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small kernel parser kept as its PKI index, which builds every evaluation mode."""
    folder = tmp_path_factory.mktemp("pki")
    parser, _ = polyparse.train_parser(write_treebank(folder / "train.conllu", 120, seed=3),
                                       classifier="pa-slicing", iterations=2,
                                       split_threshold=100)
    parser.model.convert("pki")
    parser.save(folder / "pki.model")
    return folder / "pki.model"


# The synthetic model never saw the example's English tags, and says so: not this test's matter.
@pytest.mark.filterwarnings("ignore::features.errors.InputWarning")
@pytest.mark.parametrize("eval_mode", ["naive", "pki", "pke", "split"])
def test_evaluation_mode_of_load_parser_travels_with_the_pickle(eval_mode: str,
                                                                pki_model: Path) -> None:
    threshold = 5 if eval_mode == "split" else None
    parser = polyparse.load_parser(pki_model, eval_mode=eval_mode, rare_threshold=threshold)
    again = pickle.loads(pickle.dumps(parser))
    assert (again.model.eval_mode, again.model.rare_threshold) == (
        eval_mode, parser.model.rare_threshold)
    text = polyparse.bundled_example().read_text(encoding="utf-8")
    assert again.parse(text) == parser.parse(text)


def test_parsers_pickle_through_a_spawned_process_pool(english: polyparse.Parser,
                                                       japanese: polyparse.JapaneseParser
                                                       ) -> None:
    text = polyparse.bundled_example().read_text(encoding="utf-8")
    knp = polyparse.bundled_japanese_example().read_text(encoding="utf-8")
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        english_job = pool.submit(parse_in_worker, english, text)
        japanese_job = pool.submit(parse_in_worker, japanese, knp)
        english_parse, english_pid = english_job.result()
        japanese_parse, japanese_pid = japanese_job.result()
    assert os.getpid() not in (english_pid, japanese_pid)
    assert english_parse == english.parse(text)
    assert japanese_parse == japanese.parse(knp)


def test_trained_parsers_pickle_before_they_are_saved(tmp_path: Path) -> None:
    train = write_treebank(tmp_path / "train.conllu", 120, seed=5)
    test = write_treebank(tmp_path / "test.conllu", 20, seed=6).read_text(encoding="utf-8")
    parser, _ = polyparse.train_parser(train, split_threshold=100, classifier="pa-slicing",
                                       iterations=3, threads=1)
    again = pickle.loads(pickle.dumps(parser))
    assert again.parse(test) == parser.parse(test)
    parser.save(tmp_path / "dep.model")
    assert (tmp_path / "dep.model").read_bytes() == parser.to_bytes() == again.to_bytes()

    knp_train = write_knp(tmp_path / "train.knp", synthetic_sentences(7, 100), "train")
    knp = write_knp(tmp_path / "test.knp", synthetic_sentences(8, 20), "test").read_text(
        encoding="utf-8")
    ja, _, _ = polyparse.train_japanese_parser(knp_train, iterations=3, threads=1)
    ja_again = pickle.loads(pickle.dumps(ja))
    assert ja_again.parse(knp) == ja.parse(knp)
    assert ja_again.parse(without_bunsetsu_lines(knp)) == ja.parse(without_bunsetsu_lines(knp))
    cabocha = "".join(knp_to_cabocha(s) for s in read_knp(str(tmp_path / "test.knp")))
    assert ja_again.parse(cabocha, format="cabocha") == ja.parse(cabocha, format="cabocha")
    ja.save(tmp_path / "ja.model")
    assert (tmp_path / "ja.model").read_bytes() == ja.to_bytes() == ja_again.to_bytes()


def _public_objects(folder: Path) -> dict[str, Any]:
    """One object of each kind the polyparse functions return, trained on tiny data."""
    X, y = polyparse.BinaryMatrix.from_rows([[0, 1], [1, 2], [0, 3], [2, 3], [1, 3], [0, 2]],
                                            n_features=4), np.array([1, -1, 1, -1, -1, 1])
    objects: dict[str, Any] = {name: polyparse.train_classifier(X, y, name)
                               for name in polyparse.BACKENDS}
    for to in ("split", "pki", "pke"):
        objects[to] = polyparse.convert_classifier(objects["kernel-svm"], to)
    objects["kernel-svm"].save(folder / "clf.model")
    objects["load_classifier"] = polyparse.load_classifier(folder / "clf.model")
    data = polyparse.read_svmlight_tk(write_four_examples(folder))
    objects["tree classifier"] = polyparse.train_tree_classifier(data, "cpa", sample=4,
                                                                 iterations=10)
    objects["tree classifier"].save(folder / "tree.model")
    objects["load_tree_classifier"] = polyparse.load_tree_classifier(folder / "tree.model")
    objects["boundary detector"] = polyparse.train_boundary_detector(GOOD, "perceptron",
                                                                     epochs=1)
    objects["boundary detector"].save(folder / "srl.model")
    objects["load_boundary_detector"] = polyparse.load_boundary_detector(folder / "srl.model")
    return objects


def test_every_public_model_pickles_with_its_bytes(tmp_path: Path) -> None:
    for name, model in _public_objects(tmp_path).items():
        again = pickle.loads(pickle.dumps(model))
        assert type(again) is type(model), name
        assert again.to_bytes() == model.to_bytes(), name


def test_changed_pickle_is_one_input_error_line(english: polyparse.Parser) -> None:
    assert isinstance(assert_changed_payload_fails(english, "Parser"), polyparse.InputError)


def test_a_pickled_bundled_parser_keeps_its_tagger() -> None:
    import pickle

    import polyparse

    parser = pickle.loads(pickle.dumps(polyparse.load_parser()))
    assert parser.runtime_settings()["tagger"] == "<bundled>"
    sentence = parser.parse([["The", "dog", "barked", "."]])[0]
    assert [token["upos"] for token in sentence] == ["DET", "NOUN", "VERB", "PUNCT"]
