"""What fit takes as labels, on every backend: classes (integers, strings, booleans, real
numbers of integral value); NaN and infinite labels are refused as the svmlight reader refuses
them, and so are fractional real labels (regression targets: scikit-learn's "continuous",
which libsvm and liblinear would silently cut to integers), each in one line naming the
label's position."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.classifiers.backends import BACKENDS, new_classifier
from polyparse.classifiers.binary_classifier import class_label_problem
from polyparse.features.binary_matrix import BinaryMatrix

X = BinaryMatrix.from_rows([[0, 1], [1, 2], [0, 2], [2, 3], [0, 3], [1, 3]], 4)


@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("y, problem", [
    ([1.0, -1.0, np.nan, 1.0, -1.0, 1.0], r"^y\[2\]: label nan is not a finite number$"),
    ([1.0, -1.0, 1.0, np.inf, -1.0, 1.0], r"^y\[3\]: label inf is not a finite number$"),
    ([0.25, 1.5, 3.0, 2.75, 0.5, 4.0], r"^y\[0\]: label 0.25 is not a class: 4 of the 6 labels "
                                       r"are real numbers \(4 distinct\), regression targets"),
    (np.array([1, "a", 2.5, 1, "a", 1], dtype=object), r"^y\[2\]: label 2.5 is not a class"),
    (np.array([1, "a", np.nan, 1, 1, 1], dtype=object), r"^y\[2\]: label nan is not a finite"),
])
def test_labels_that_are_not_classes_are_refused(backend: str, y: object, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        new_classifier(backend).fit(X, y)


@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("y, classes", [
    ([1.0, -1.0, 1.0, -1.0, 1.0, 1.0], [1.0, -1.0]),
    ([2.0, 7.0, 2.0, 3.0, 7.0, 3.0], [2.0, 7.0, 3.0]),
    (["b", "a", "b", "a", "a", "b"], ["b", "a"]),
    ([True, False, True, False, True, True], [True, False]),
])
def test_classes_of_every_kind_are_taken(backend: str, y: list, classes: list) -> None:
    clf = new_classifier(backend).fit(X, y)
    assert clf.classes_.tolist() == classes
    assert set(clf.predict(X).tolist()) <= set(classes)


def test_labels_of_two_kinds_are_refused() -> None:
    with pytest.raises(ValueError, match=r"^y mixes labels that do not compare"):
        new_classifier("linear").fit(X, np.array([1, "a", 1, "a", 1, 2], dtype=object))


def test_the_first_problem_in_order() -> None:
    assert class_label_problem(np.array([1, 2, 3])) is None
    assert class_label_problem(np.array(["x", "y"])) is None
    assert class_label_problem(np.array([3.0, -2.0, 1e15])) is None
    position, text = class_label_problem(np.array([1.0, 2.0, 2.5, np.nan]))
    assert position == 3 and text == "label nan is not a finite number"
    position, text = class_label_problem(np.array([1.0, 2.0, 2.5, 3.5]))
    assert position == 2 and text.startswith("label 2.5 is not a class: 2 of the 4 labels")
