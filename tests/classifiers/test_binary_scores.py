"""Positive-class scores against counts made by hand."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.classifiers.binary_scores import positive_class_scores, precision_recall_f1


def test_counts_by_hand() -> None:
    gold = np.array([1, 1, 1, 0, 0, 0, 0], dtype=bool)
    predicted = np.array([1, 1, 0, 1, 0, 0, 0], dtype=bool)
    scores = positive_class_scores(gold, predicted)
    assert (scores["tp"], scores["fp"], scores["fn"], scores["correct"]) == (2, 1, 1, 5)
    assert scores["accuracy"] == pytest.approx(500 / 7)
    assert scores["precision"] == pytest.approx(200 / 3)
    assert scores["recall"] == pytest.approx(200 / 3)
    assert scores["F1"] == pytest.approx(200 / 3)


def test_empty_denominators_give_zero() -> None:
    assert precision_recall_f1(0, 0, 0) == {"precision": 0.0, "recall": 0.0, "F1": 0.0}
    assert precision_recall_f1(0, 3, 0)["precision"] == 0.0


def test_shapes_must_agree() -> None:
    with pytest.raises(ValueError):
        positive_class_scores(np.ones(3, dtype=bool), np.ones(4, dtype=bool))
