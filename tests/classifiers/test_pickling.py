"""Every classifier backend pickles through its model bytes: an unpickled classifier gives
exactly the decision values of the original, to_bytes() is what save() writes, and a changed
payload fails with one line."""
from __future__ import annotations

import copy
import hashlib
import pickle
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.backends import (
    Classifier,
    convert_classifier,
    load_classifier,
    new_classifier,
)
from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.classifiers.model_bytes import load_from_bytes
from polyparse.classifiers.model_file import ModelFileError
from polyparse.features.binary_matrix import BinaryMatrix
from tests.pickled_payload import changed_pickle


def binary_rows(n: int, n_features: int, n_classes: int, seed: int
                ) -> tuple[BinaryMatrix, np.ndarray]:
    """Rows of 2..7 random feature ids, labels from a noisy sum of hidden feature weights."""
    rng = np.random.default_rng(seed)
    rows = [np.sort(rng.choice(n_features, size=rng.integers(2, 8), replace=False))
            for _ in range(n)]
    hidden = rng.normal(size=(n_features, n_classes))
    scores = np.stack([hidden[row].sum(0) for row in rows])
    scores += rng.normal(scale=0.5, size=scores.shape)
    return BinaryMatrix.from_rows(rows, n_features=n_features), np.argmax(scores, axis=1) * 2 - 1


TRAIN = binary_rows(120, 40, 3, seed=1)
TEST = binary_rows(50, 40, 3, seed=2)[0]
TWO_CLASSES = binary_rows(80, 40, 2, seed=3)


def trained(name: str, **settings: object) -> Callable[[], Classifier]:
    return lambda: new_classifier(name, **settings).fit(*TRAIN)


def converted(name: str, to: str, data: tuple[BinaryMatrix, np.ndarray] = TRAIN
              ) -> Callable[[], Classifier]:
    return lambda: convert_classifier(new_classifier(name).fit(*data), to)


CLASSIFIERS = {
    "poly2-linear": trained("poly2-linear"),
    "poly2-linear float64": trained("poly2-linear", dtype="float64", C=0.5),
    "linear": trained("linear"),
    "kernel-svm": trained("kernel-svm", degree=3, gamma=0.5),
    "kernel-svm two classes": lambda: new_classifier("kernel-svm").fit(*TWO_CLASSES),
    "kernel-svm one class": lambda: new_classifier("kernel-svm").fit(
        TRAIN[0], np.zeros(len(TRAIN[0]))),
    "pa-slicing": trained("pa-slicing", iterations=3, seed=5),
    "pa-slicing degree 3": trained("pa-slicing", degree=3, iterations=2, strategy="kernel"),
    "split-svm": converted("kernel-svm", "split"),
    "pki": converted("kernel-svm", "pki"),
    "pke": converted("kernel-svm", "pke"),
    "split-svm two classes": converted("kernel-svm", "split", TWO_CLASSES),
    "pa-slicing split-svm": converted("pa-slicing", "split"),
    "pa-slicing pki": converted("pa-slicing", "pki"),
    "pa-slicing pke": converted("pa-slicing", "pke"),
}


@pytest.fixture(scope="module", params=list(CLASSIFIERS))
def classifier(request: pytest.FixtureRequest) -> Classifier:
    return CLASSIFIERS[request.param]()


@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_unpickled_classifier_gives_identical_decisions(classifier: Classifier,
                                                        protocol: int) -> None:
    again = pickle.loads(pickle.dumps(classifier, protocol=protocol))
    assert type(again) is type(classifier) and again is not classifier
    assert again.backend == classifier.backend
    expected = classifier.decision_function(TEST)
    assert np.array_equal(again.decision_function(TEST), expected)
    assert np.array_equal(again.predict(TEST), classifier.predict(TEST))
    assert again.to_bytes() == classifier.to_bytes()


def test_pickle_holds_the_model_bytes_and_their_sha256(classifier: Classifier) -> None:
    data = classifier.to_bytes()
    restore, (cls, pickled, digest, settings) = classifier.__reduce__()
    assert restore is load_from_bytes and cls is type(classifier)
    assert pickled == data and digest == hashlib.sha256(data).hexdigest() and settings == {}


def test_to_bytes_is_the_file_save_writes(classifier: Classifier, tmp_path: Path) -> None:
    path = tmp_path / "model.clf"
    classifier.save(path, metadata={"command": "test"})
    assert path.read_bytes() == classifier.to_bytes(metadata={"command": "test"})
    classifier.save(path)
    assert path.read_bytes() == classifier.to_bytes()
    loaded, _ = load_classifier(path)
    assert loaded.to_bytes() == path.read_bytes()
    loaded.save(path)
    assert loaded.to_bytes() == path.read_bytes()
    assert np.array_equal(pickle.loads(pickle.dumps(loaded)).decision_function(TEST),
                          classifier.decision_function(TEST))


def test_from_bytes_and_deepcopy(classifier: Classifier) -> None:
    data = classifier.to_bytes()
    for again in (type(classifier).from_bytes(data), type(classifier).from_bytes(bytearray(data)),
                  type(classifier).from_bytes(memoryview(data)), copy.deepcopy(classifier)):
        assert np.array_equal(again.decision_function(TEST), classifier.decision_function(TEST))


def test_libsvm_model_pickles_as_a_polyparse_model(tmp_path: Path) -> None:
    clf = new_classifier("kernel-svm").fit(*TRAIN)
    path = tmp_path / "model.libsvm"
    clf.save_libsvm(path)
    loaded = KernelSVM.load_libsvm(path)
    again = pickle.loads(pickle.dumps(loaded))
    assert np.array_equal(again.decision_function(TEST), loaded.decision_function(TEST))
    assert again.to_bytes() == loaded.to_bytes()


def test_changed_payload_fails_with_one_line() -> None:
    clf = new_classifier("poly2-linear").fit(*TRAIN)
    data = clf.to_bytes()
    pickled = pickle.dumps(clf)
    for at in (0, len(data) // 2, len(data) - 1):
        with pytest.raises(ModelFileError, match=r"^pickled Poly2LinearSVM: the model bytes do "
                                                 r"not match their sha256") as error:
            pickle.loads(changed_pickle(pickled, data, at))
        assert "\n" not in str(error.value)
    digest = hashlib.sha256(data).hexdigest().encode()
    with pytest.raises(ModelFileError, match="do not match their sha256"):
        pickle.loads(pickled.replace(digest, digest[::-1]))


def test_bytes_that_match_their_sha256_are_still_checked() -> None:
    clf = new_classifier("linear").fit(*TRAIN)
    data = bytearray(clf.to_bytes())
    data[len(data) // 2] ^= 0x01
    with pytest.raises(ModelFileError, match=r"^pickled LinearSVM: truncated or corrupt model "
                                             r"file \(checksum mismatch\)$"):
        load_from_bytes(type(clf), data, hashlib.sha256(data).hexdigest(), {})
    with pytest.raises(ModelFileError, match="not a class that loads from model bytes"):
        load_from_bytes(dict, data, hashlib.sha256(data).hexdigest(), {})  # type: ignore[arg-type]


def test_compiled_scorers_refuse_to_pickle_with_one_sentence(classifier: Classifier) -> None:
    with pytest.raises(TypeError, match=r"^a compiled \w+ does not pickle; pickle the "
                                        r"classifier it belongs to"):
        pickle.dumps(classifier.scorer)


def test_unfitted_classifier_says_so() -> None:
    with pytest.raises(RuntimeError, match="not fitted"):
        pickle.dumps(new_classifier("kernel-svm"))
