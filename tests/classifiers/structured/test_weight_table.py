"""The structured perceptron's weight table against plain-Python references: current weights
and scores after random updates, averaged weights as the mean of the weights after each
example, and the fixed table's scores (short rows in their slots, long rows beyond them)."""
from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from polyparse.classifiers.structured.weight_table import AveragedWeights, PerceptronWeights


def reference_scores(weights: dict[tuple[int, int], float], keys: list[int],
                     n_classes: int) -> np.ndarray:
    scores = np.zeros(n_classes)
    for key in keys:
        for cls in range(n_classes):
            scores[cls] += weights.get((key, cls), 0)
    return scores


@pytest.mark.parametrize("seed", range(3))
def test_updates_scores_and_average_match_the_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_classes = 7
    table = PerceptronWeights(n_classes)
    current: dict[tuple[int, int], int] = defaultdict(int)
    summed: dict[tuple[int, int], int] = defaultdict(int)   # sum of weights after each example
    n_examples = 40
    for _ in range(n_examples):
        for _ in range(int(rng.integers(0, 4))):
            keys = rng.integers(0, 30, int(rng.integers(1, 6))).astype(np.uint64)
            cls, delta = int(rng.integers(0, n_classes)), int(rng.choice([-1, 1, 2]))
            table.add(keys, cls, delta)
            for key in keys.tolist():
                current[key, cls] += delta
        query = rng.integers(0, 35, 8).tolist()
        np.testing.assert_array_equal(table.scores(np.array(query, dtype=np.uint64)),
                                      reference_scores(current, query, n_classes))
        table.next_example()
        for pair, weight in current.items():
            summed[pair] += weight
    for (key, cls), weight in current.items():
        assert table.weight(key, cls) == weight
    averaged = table.averaged()
    expected = {pair: total / n_examples for pair, total in summed.items() if total != 0}
    got = {}
    for row, key in enumerate(averaged.keys.tolist()):
        for e in range(averaged.row_ptr[row], averaged.row_ptr[row + 1]):
            got[key, int(averaged.classes[e])] = float(averaged.values[e])
    assert got.keys() == expected.keys()
    for pair, value in expected.items():
        assert got[pair] == pytest.approx(value, rel=1e-6)


def test_the_average_before_any_example_is_the_current_weights() -> None:
    table = PerceptronWeights(3)
    table.add(np.array([5, 5, 9], dtype=np.uint64), 1, 1)
    averaged = table.averaged()
    np.testing.assert_array_equal(averaged.scores(np.array([5, 9], dtype=np.uint64)),
                                  [0.0, 3.0, 0.0])


def random_fixed_table(rng: np.random.Generator, n_rows: int, n_classes: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    keys = rng.choice(np.arange(1, 10 * n_rows, dtype=np.uint64), n_rows, replace=False)
    # Rows of every length: all in the slot, some beyond it, and dense rows (64 entries or
    # more, every class).
    lengths = rng.choice([1, 2, 3, 4, 7, 64, n_classes], n_rows)
    classes = np.concatenate([np.sort(rng.choice(n_classes, k, replace=False)) for k in lengths])
    values = rng.normal(size=len(classes)).astype(np.float32)
    row_ptr = np.concatenate([[0], np.cumsum(lengths)])
    return keys, row_ptr, classes.astype(np.int32), values


@pytest.mark.parametrize("seed", range(3))
def test_fixed_table_scores_match_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_classes = 80
    keys, row_ptr, classes, values = random_fixed_table(rng, 500, n_classes)
    table = AveragedWeights(keys, row_ptr, classes, values, n_classes)
    dense = np.zeros((len(keys), n_classes))
    for r in range(len(keys)):
        dense[r, classes[row_ptr[r]:row_ptr[r + 1]]] = values[row_ptr[r]:row_ptr[r + 1]]
    row_of = {int(k): r for r, k in enumerate(keys)}
    for _ in range(50):
        # Present and absent keys, repeats, and more keys than one batch of lookups.
        query = np.concatenate([rng.choice(keys, int(rng.integers(0, 200))),
                                rng.integers(10 * 500, 20 * 500, 5).astype(np.uint64)])
        expected = np.zeros(n_classes)
        for key in query.tolist():
            if key in row_of:
                expected += dense[row_of[key]]
        np.testing.assert_allclose(table.scores(query), expected, rtol=1e-12, atol=1e-9)


def test_fixed_table_refuses_what_does_not_fit() -> None:
    keys = np.array([1, 2], dtype=np.uint64)
    with pytest.raises(ValueError, match="do not fit"):
        AveragedWeights(keys, np.array([0, 1]), np.array([0]), np.array([1.0]), 3)
    with pytest.raises(ValueError, match="class outside"):
        AveragedWeights(keys, np.array([0, 1, 2]), np.array([0, 3]), np.array([1.0, 2.0]), 3)
    with pytest.raises(ValueError, match="duplicate key"):
        AveragedWeights(np.array([4, 4], dtype=np.uint64), np.array([0, 1, 2]),
                        np.array([0, 1]), np.array([1.0, 2.0]), 3)
    with pytest.raises(ValueError, match="at least one class"):
        PerceptronWeights(0)


def test_a_restricted_table_weighs_only_its_keys() -> None:
    table = PerceptronWeights(3)
    table.restrict(np.array([5, 9], dtype=np.uint64))
    table.add(np.array([5, 7, 9, 9], dtype=np.uint64), 1, 2)
    table.add(np.array([7], dtype=np.uint64), 0, 1)
    keys, classes, weights = table.current()
    assert sorted(zip(keys.tolist(), classes.tolist(), weights.tolist())) == [(5, 1, 2), (9, 1, 4)]
    assert table.scores(np.array([7], dtype=np.uint64)).tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="before the first update"):
        table.restrict(np.array([7], dtype=np.uint64))
