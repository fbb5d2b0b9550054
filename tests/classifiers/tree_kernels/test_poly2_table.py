"""Poly2Table (explicit normalised polynomial weights) against the polynomial Gram matrix."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.classifiers.tree_kernels.combination import polynomial_gram
from polyparse.classifiers.tree_kernels.poly2_table import Poly2Table
from polyparse.features.binary_matrix import BinaryMatrix


def random_vectors(rng: np.random.Generator, n: int, width: int = 15) -> BinaryMatrix:
    return BinaryMatrix.from_rows(
        [np.unique(rng.integers(0, width, size=int(rng.integers(0, 7)))) for _ in range(n)],
        n_features=width + 5)


@pytest.mark.parametrize("degree,s,r", [(2, 1.0, 1.0), (2, 0.5, 0.3), (1, 1.0, 1.0),
                                        (2, 1.0, 0.0), (1, 2.0, 0.0)])
def test_table_equals_the_weighted_kernel_sum(degree: int, s: float, r: float) -> None:
    rng = np.random.default_rng(degree * 100 + int(10 * s) + int(10 * r))
    model, queries = random_vectors(rng, 40), random_vectors(rng, 30, 20)
    weights = rng.normal(size=40)
    table = Poly2Table(degree, s, r)
    for i, weight in enumerate(weights.tolist()):
        table.add(model.row(i), weight)
    gram = polynomial_gram(queries, model, degree, s, r)
    expected = gram @ weights
    scale = np.abs(gram) @ np.abs(weights)
    got = table.scores(queries)
    assert np.all(np.abs(got - expected) <= 1e-12 * np.maximum(scale, 1.0))
    assert np.array_equal(got, [table.score(queries.row(j)) for j in range(len(queries))])
    assert table.n_vectors == 40


def test_round_trip_through_arrays() -> None:
    rng = np.random.default_rng(5)
    model, queries = random_vectors(rng, 25), random_vectors(rng, 20)
    table = Poly2Table(2, 1.0, 1.0)
    for i in range(len(model)):
        table.add(model.row(i), float(rng.normal()))
    arrays = table.to_arrays()
    assert np.all(np.diff(arrays["pair_keys"]) > 0)
    again = Poly2Table.from_arrays(2, 1.0, 1.0, table.n_vectors, **arrays)
    assert np.array_equal(again.scores(queries), table.scores(queries))
    assert again.n_pairs == table.n_pairs
    for name, value in again.to_arrays().items():
        assert np.array_equal(value, arrays[name])


def test_empty_table_and_bad_degree() -> None:
    table = Poly2Table(2, 1.0, 1.0)
    assert table.score(np.array([1, 2], dtype=np.int32)) == 0.0
    assert table.score(np.zeros(0, dtype=np.int32)) == 0.0
    with pytest.raises(ValueError):
        Poly2Table(3, 1.0, 1.0)


def test_ids_up_to_the_largest_int32_score_as_their_small_renumbering() -> None:
    """Weights are kept by id in hash maps: ids near 2**31 - 1 (feature hashing) give the scores
    of the same vectors with the ids renumbered small, and arrays of the distinct ids only."""
    rng = np.random.default_rng(8)
    ids = np.concatenate([np.arange(10), 2_000_000_000 + 3 * np.arange(9), [2**31 - 1]])
    model, queries = random_vectors(rng, 40, 20), random_vectors(rng, 30, 20)
    weights = rng.normal(size=40)
    small, huge = Poly2Table(2, 1.0, 1.0), Poly2Table(2, 1.0, 1.0)
    for i, weight in enumerate(weights.tolist()):
        small.add(model.row(i), weight)
        huge.add(ids[model.row(i)], weight)

    def renumbered(vectors: BinaryMatrix) -> BinaryMatrix:
        return BinaryMatrix(vectors.indptr, ids[vectors.indices], 2**31)

    assert np.array_equal(huge.scores(renumbered(queries)), small.scores(queries))
    assert huge.max_id == ids[model.indices.max()] and huge.n_pairs == small.n_pairs
    arrays = huge.to_arrays()
    assert np.array_equal(arrays["single_ids"], ids[small.to_arrays()["single_ids"]])
    assert arrays["single_ids"].size <= 20 and arrays["single"].nbytes <= 160
