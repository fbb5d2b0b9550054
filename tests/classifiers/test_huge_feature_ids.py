"""Feature ids up to 2**31 - 1, as feature hashing writes them: every backend and every exact
evaluator gives on ids near 2,000,000,000 the very values it gives on the same data with the ids
renumbered small (in the same order), the evaluators equal the NumPy kernel sum, model files
round-trip, and no table grows with the largest id."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.backends import (
    classifier_from_arrays,
    convert_classifier,
    new_classifier,
)
from polyparse.classifiers.evaluators.choices import EVALUATORS
from polyparse.classifiers.evaluators.modes import EVAL_MODES, build_evaluator
from polyparse.classifiers.model_file import read_model_file, write_model_file
from polyparse.classifiers.online.kernel_slicing import SlicingData
from polyparse.features.binary_matrix import BinaryMatrix
from tests.classifiers.evaluators.test_kernel_expansion import assert_close, dense_reference

HUGE = 2_000_000_000
LARGEST_ID = 2**31 - 1
# Tables of this many bytes or more would be sized by the ids, not by the few features.
SMALL_TABLE_BYTES = 1 << 22


def universe() -> tuple[np.ndarray, np.ndarray]:
    """(ids, known): ascending ids, small ones and ones near 2e9 up to the largest legal id, and
    which of them the training rows use (the others reach only the test rows)."""
    small = np.arange(0, 60)
    huge = np.concatenate([HUGE + 7919 * np.arange(60), [HUGE + 100_000_003, LARGEST_ID]])
    ids = np.concatenate([small, huge]).astype(np.int64)
    known = np.ones(ids.size, dtype=bool)
    known[[3, 41, 59, 60, 75, ids.size - 2]] = False
    return ids, known


def problem(seed: int, n_rows: int, n_classes: int, known: np.ndarray
            ) -> tuple[list[np.ndarray], np.ndarray, list[np.ndarray]]:
    """Training rows and labels, and test rows, as positions in universe(): a few frequent
    features and many rare ones, labels from a rule with conjunctions."""
    rng = np.random.default_rng(seed)
    n = known.size
    p = 1.0 / np.arange(1, n + 1) ** 0.8
    order = rng.permutation(n)

    def rows(count: int, allowed: np.ndarray) -> list[np.ndarray]:
        weights = np.where(allowed[order], p, 0.0)
        weights /= weights.sum()
        return [np.sort(order[rng.choice(n, size=rng.integers(3, 12), replace=False,
                                         p=weights)]) for _ in range(count)]

    train = rows(n_rows, known)
    hidden = rng.normal(size=(n, n_classes))
    scores = np.stack([hidden[row].sum(0) + hidden[row[0]] * hidden[row[-1]] for row in train])
    labels = np.argmax(scores + rng.normal(scale=0.3, size=scores.shape), axis=1)
    test = rows(n_rows // 2, np.ones(n, dtype=bool))
    return train, labels * 2 - 1 if n_classes == 2 else labels + 1, test


def matrices(rows: list[np.ndarray], ids: np.ndarray) -> tuple[BinaryMatrix, BinaryMatrix]:
    """The rows with the universe's ids, and with the ids renumbered 0, 1, ... in their order."""
    return (BinaryMatrix.from_rows([ids[row] for row in rows]),
            BinaryMatrix.from_rows(rows, n_features=ids.size))


@pytest.fixture(scope="module")
def data() -> dict[int, tuple[BinaryMatrix, BinaryMatrix, np.ndarray, BinaryMatrix, BinaryMatrix]]:
    """For 2 and 12 classes: huge and small training rows, labels, huge and small test rows."""
    ids, known = universe()
    out = {}
    for n_classes, n_rows in ((2, 400), (12, 480)):
        train, labels, test = problem(n_classes, n_rows, n_classes, known)
        out[n_classes] = (*matrices(train, ids), labels, *matrices(test, ids))
    return out


def round_trip(clf, path: Path):
    """The classifier written to a model file and read back."""
    header, arrays = clf.to_arrays()
    write_model_file(path, {"format": "polyparse-test", **header}, arrays)
    read_header, read_arrays = read_model_file(path)
    return classifier_from_arrays(read_header, read_arrays, source=str(path))


def test_the_test_data_reaches_the_largest_ids(data) -> None:
    X_huge, X_small, _, T_huge, _ = data[2]
    assert X_huge.indices.max() == LARGEST_ID and X_small.indices.max() < 200
    assert T_huge.indices.max() == LARGEST_ID
    held = set(X_huge.indices.tolist())
    assert any(f not in held and f > HUGE for f in T_huge.indices.tolist())
    assert any(f not in held and f < 100 for f in T_huge.indices.tolist())


@pytest.mark.parametrize("name,params", [
    ("linear", {}),
    ("poly2-linear", {}),
])
def test_linear_backends_do_not_depend_on_the_ids(data, name: str, params: dict,
                                                  tmp_path: Path) -> None:
    for n_classes in (2, 12):
        X_huge, X_small, y, T_huge, T_small = data[n_classes]
        huge = new_classifier(name, **params).fit(X_huge, y)
        small = new_classifier(name, **params).fit(X_small, y)
        values = huge.decision_function(T_huge)
        np.testing.assert_array_equal(values, small.decision_function(T_small))
        again = round_trip(huge, tmp_path / f"{name}.model")
        np.testing.assert_array_equal(again.decision_function(T_huge), values)


KERNEL_MODELS = [
    ("kernel-svm", {"degree": 2}, (2, 12)),
    ("kernel-svm", {"degree": 3}, (2,)),
    ("pa-slicing", {"degree": 2, "strategy": "kernel", "iterations": 5}, (2, 12)),
    ("pa-slicing", {"degree": 2, "strategy": "expand", "iterations": 5}, (2,)),
    ("pa-slicing", {"degree": 2, "strategy": "split", "n_common": 20, "iterations": 5}, (2,)),
    ("pa-slicing", {"degree": 3, "strategy": "slice", "n_common": 20, "iterations": 5}, (2,)),
]


@pytest.mark.parametrize("name,params,class_counts", KERNEL_MODELS)
def test_kernel_models_and_every_evaluator_do_not_depend_on_the_ids(
        data, name: str, params: dict, class_counts: tuple[int, ...], tmp_path: Path) -> None:
    for n_classes in class_counts:
        X_huge, X_small, y, T_huge, T_small = data[n_classes]
        huge = new_classifier(name, **params).fit(X_huge, y)
        small = new_classifier(name, **params).fit(X_small, y)
        np.testing.assert_array_equal(huge.expansion_.coefficients if name == "pa-slicing"
                                      else huge.expansion_.dual_coef,
                                      small.expansion_.coefficients if name == "pa-slicing"
                                      else small.expansion_.dual_coef)
        # The NumPy kernel sum, on the huge ids and written out densely on the small ones.
        expansion = huge.expansion_.as_kernel_expansion()
        reference = expansion.naive_decision_function(T_huge)
        assert_close(reference, dense_reference(small.expansion_.as_kernel_expansion(), T_small))
        for mode in EVAL_MODES:
            scorer = build_evaluator(huge.expansion_, mode)
            values = scorer.decision_function(T_huge)
            np.testing.assert_array_equal(
                values, build_evaluator(small.expansion_, mode).decision_function(T_small))
            assert_close(values, reference)
            if hasattr(scorer, "memory_bytes"):
                assert scorer.memory_bytes() < SMALL_TABLE_BYTES, mode
        loaded = round_trip(huge, tmp_path / f"{name}.model")
        np.testing.assert_array_equal(loaded.decision_function(T_huge),
                                      huge.decision_function(T_huge))
        for evaluator in EVALUATORS.values():
            converted = convert_classifier(huge, evaluator)
            values = converted.decision_function(T_huge)
            np.testing.assert_array_equal(
                values, convert_classifier(small, evaluator).decision_function(T_small))
            assert sum(converted.memory_bytes().values()) < SMALL_TABLE_BYTES
            path = tmp_path / f"{name}-{evaluator}.model"
            np.testing.assert_array_equal(round_trip(converted, path).decision_function(T_huge),
                                          values)
            _, arrays = read_model_file(path)
            assert max(array.nbytes for array in arrays.values()) < SMALL_TABLE_BYTES


def test_slicing_data_ranks_huge_ids_as_their_small_renumbering(data) -> None:
    X_huge, X_small, _, _, _ = data[12]
    huge, small = SlicingData(X_huge), SlicingData(X_small)
    ids, _ = universe()
    np.testing.assert_array_equal(huge.rank_ids, ids[small.rank_ids])
    for name in ("vector_indptr", "vector_ranks", "row_vector", "sorted_vectors",
                 "document_frequency"):
        np.testing.assert_array_equal(getattr(huge, name), getattr(small, name))
    indptr, indices = huge.vectors(np.arange(huge.n_vectors))
    small_indptr, small_indices = small.vectors(np.arange(small.n_vectors))
    np.testing.assert_array_equal(indptr, small_indptr)
    np.testing.assert_array_equal(indices, ids[small_indices])
