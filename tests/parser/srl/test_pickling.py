"""BoundaryModel pickles through its model bytes: the unpickled detector predicts the same
gold_conll lines and decision values, and to_bytes() is the file save() writes."""
from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.model_file import ModelFileError
from polyparse.classifiers.tree_kernels.tree_model import TreeKernelModel
from polyparse.parser.formats.gold_conll import ConllSrlSentence, read_gold_conll
from polyparse.parser.srl.boundary_model import BoundaryModel
from tests.pickled_payload import assert_changed_payload_fails

LEARNERS = {
    "voted-perceptron": {"learner": "voted-perceptron", "epochs": 2},
    "perceptron": {"learner": "perceptron", "epochs": 1},
    "kernel-svm": {"learner": "kernel-svm"},
    "cpa": {"learner": "cpa", "sample": 20, "iterations": 20, "seed": 2},
}


@pytest.fixture(scope="module")
def sentences(data_dir: Path) -> list[ConllSrlSentence]:
    return list(read_gold_conll(data_dir / "gold_conll" / "good.gold_conll"))


@pytest.fixture(scope="module", params=list(LEARNERS))
def detector(request: pytest.FixtureRequest, sentences: list[ConllSrlSentence]
             ) -> BoundaryModel:
    return BoundaryModel.train(sentences, **LEARNERS[request.param])


def test_unpickled_detector_predicts_the_same_lines(detector: BoundaryModel,
                                                    sentences: list[ConllSrlSentence]) -> None:
    again = pickle.loads(pickle.dumps(detector))
    assert type(again) is BoundaryModel and again.training == detector.training
    assert again.vocab.features() == detector.vocab.features() and again.vocab.frozen
    assert np.array_equal(again.decision_values(sentences), detector.decision_values(sentences))
    assert list(again.predict_lines(sentences)) == list(detector.predict_lines(sentences))
    assert again.to_bytes() == detector.to_bytes()


def test_to_bytes_is_the_file_save_writes(detector: BoundaryModel, tmp_path: Path) -> None:
    path = tmp_path / "srl.model"
    detector.save(path, {"command": "test"})
    assert path.read_bytes() == detector.to_bytes({"command": "test"})
    loaded = BoundaryModel.load(path)
    assert loaded.to_bytes() == path.read_bytes()
    assert pickle.loads(pickle.dumps(loaded)).to_bytes() == path.read_bytes()


def test_changed_payload_and_a_plain_tree_model_fail_with_one_line(
        detector: BoundaryModel) -> None:
    assert_changed_payload_fails(detector, "BoundaryModel", at=len(detector.pickle_bytes()) - 10)
    with pytest.raises(ModelFileError, match=r"^model bytes: a tree-kernel model without an SRL "
                                             r"feature vocabulary"):
        BoundaryModel.from_bytes(detector.model.to_bytes())
    assert isinstance(TreeKernelModel.from_bytes(detector.to_bytes()), TreeKernelModel)
