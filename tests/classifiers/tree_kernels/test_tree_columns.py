"""Tree-kernel columns (one DAG of the targets for SST/ST, pair kernels for PT/ET, plus the
polynomial on vectors) against gram_matrix and combination.py."""
from __future__ import annotations

import zlib

import numpy as np
import pytest

from polyparse.classifiers.tree_kernels.combination import polynomial_gram, svmlight_tk_sum
from polyparse.classifiers.tree_kernels.kernels import gram_matrix
from polyparse.classifiers.tree_kernels.tree_columns import TreeKernelColumns
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight_tk import read_svmlight_tk
from polyparse.features.trees import TreeForest

from .test_kernels import random_tree

KINDS = ("sst", "st", "pt", "et")


def _random_instances(seed: int, n: int) -> tuple[TreeForest, BinaryMatrix]:
    """Random trees (with repeated subtrees, bracketed leaves and one empty tree) and random
    binary vectors (one empty)."""
    rng = np.random.default_rng(seed)
    base = [random_tree(rng) for _ in range(n // 2)]
    trees = list(base) + [base[int(rng.integers(len(base)))].copy(deep=True)
                          for _ in range(n - len(base) - 1)] + [None]
    rows = [np.flatnonzero(rng.random(12) < 0.3) for _ in range(n)]
    rows[1] = np.zeros(0, dtype=np.int64)
    return TreeForest(trees), BinaryMatrix.from_rows(rows, 12)


def _expected(forest: TreeForest, vectors: BinaryMatrix | None, queries: np.ndarray,
              targets: np.ndarray, kind: str, lam: float, mu: float, normalize: bool,
              tree_constant: float = 1.0) -> np.ndarray:
    tree = gram_matrix(forest, forest, kind, lam, mu, normalize, queries, targets)
    if vectors is None:
        return tree
    rows_q = BinaryMatrix.from_rows([vectors.row(i) for i in queries], vectors.n_features)
    rows_t = BinaryMatrix.from_rows([vectors.row(i) for i in targets], vectors.n_features)
    poly = polynomial_gram(rows_q, rows_t, 2, 1.0, 1.0, normalize)
    return svmlight_tk_sum(tree, poly, tree_constant)


def _assert_close(got: np.ndarray, expected: np.ndarray) -> None:
    assert np.all(np.abs(got - expected) <= 1e-9 * np.abs(expected) + 1e-12)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("normalize", (True, False))
@pytest.mark.parametrize("with_vector", (True, False))
@pytest.mark.parametrize("lam,mu", [(1.0, 1.0), (0.4, 0.4), (0.7, 0.3)])
def test_columns_equal_gram_matrix_random(kind, normalize, with_vector, lam, mu) -> None:
    seed = zlib.crc32(repr((kind, normalize, with_vector, lam, mu)).encode())
    forest, vectors = _random_instances(seed, 60)
    targets = np.arange(len(forest))[::-1].copy()
    columns = TreeKernelColumns(forest, targets, _take(vectors, targets) if with_vector else None,
                                kind, lam, mu, normalize, 2, 1.0, 1.0, 1.5)
    got = np.array([columns.target_kernels(r) for r in range(targets.size)])
    expected = _expected(forest, vectors if with_vector else None, targets, targets, kind, lam,
                         mu, normalize, 1.5)
    _assert_close(got, expected)
    _assert_close(columns.diagonal, np.diag(expected))


@pytest.mark.parametrize("kind", KINDS)
def test_expansion_of_another_forest_random(kind) -> None:
    forest, vectors = _random_instances(zlib.crc32(kind.encode()), 50)
    queries = TreeForest([forest.to_nltk(t) for t in range(20)] + [random_tree(
        np.random.default_rng(7)) for _ in range(10)], forest.labels, forest.productions)
    query_vectors = BinaryMatrix.from_rows([vectors.row(i % 20) for i in range(30)], 12)
    coefficients = np.random.default_rng(3).normal(size=30)
    columns = TreeKernelColumns(forest, None, vectors, kind, 0.4, 0.4)
    got = columns.expansion(queries, np.arange(30), coefficients, query_vectors)
    both = TreeForest([queries.to_nltk(t) for t in range(30)]
                      + [forest.to_nltk(t) for t in range(len(forest))],
                      forest.labels, forest.productions)
    stacked = BinaryMatrix.from_rows([query_vectors.row(i) for i in range(30)]
                                     + [vectors.row(i) for i in range(len(vectors))], 12)
    gram = _expected(both, stacked, np.arange(30), np.arange(30, 30 + len(forest)), kind, 0.4,
                     0.4, True)
    magnitudes = np.abs(coefficients) @ gram
    assert np.all(np.abs(got - coefficients @ gram) <= 1e-9 * magnitudes + 1e-12)


@pytest.mark.parametrize("kind", ("sst", "st"))
@pytest.mark.parametrize("normalize", (True, False))
def test_columns_equal_gram_matrix_dataset(srl_boundary, kind, normalize) -> None:
    data = read_svmlight_tk(srl_boundary / "train.5k.tk")
    targets = np.arange(0, 5000, 7)
    queries = np.arange(3, 5000, 101)
    columns = TreeKernelColumns(data.forest, targets, _take(data.vectors, targets), kind, 0.4,
                                0.4, normalize)
    assert columns.n_dag_nodes < data.forest.n_nodes
    position = {int(t): p for p, t in enumerate(targets)}
    expected = _expected(data.forest, data.vectors, queries, targets, kind, 0.4, 0.4, normalize)
    for q, row in zip(queries, expected):
        if int(q) in position:
            _assert_close(columns.target_kernels(position[int(q)]), row)
    coefficients = np.random.default_rng(11).normal(size=queries.size)
    got = columns.expansion(data.forest, queries, coefficients, _take(data.vectors, queries))
    magnitudes = np.abs(coefficients) @ expected
    assert np.all(np.abs(got - coefficients @ expected) <= 1e-9 * magnitudes + 1e-12)


@pytest.mark.parametrize("kind,with_vector", [("sst", True), ("st", False), ("pt", True)])
def test_threads_give_identical_columns(srl_boundary, kind, with_vector) -> None:
    data = read_svmlight_tk(srl_boundary / "train.5k.tk")
    vectors = data.vectors if with_vector else None
    one = TreeKernelColumns(data.forest, None, vectors, kind, 0.4, 0.4, threads=1)
    two = TreeKernelColumns(data.forest, None, vectors, kind, 0.4, 0.4, threads=2)
    for row in (0, 17, 2500, 4999) if kind != "pt" else (3, 4000):
        assert np.array_equal(one.target_kernels(row), two.target_kernels(row))
    coefficients = np.random.default_rng(2).normal(size=40)
    queries = np.arange(100, 140)
    query_vectors = _take(data.vectors, queries) if with_vector else None
    assert np.array_equal(one.expansion(data.forest, queries, coefficients, query_vectors),
                          two.expansion(data.forest, queries, coefficients, query_vectors))


def test_columns_reject_mismatched_inputs() -> None:
    forest, vectors = _random_instances(1, 10)
    with pytest.raises(ValueError, match="vectors for"):
        TreeKernelColumns(forest, None, _take(vectors, np.arange(5)))
    with pytest.raises(IndexError):
        TreeKernelColumns(forest, np.array([0, 10]))
    with pytest.raises(ValueError, match="unknown tree kernel"):
        TreeKernelColumns(forest, kind="xx")
    with pytest.raises(ValueError, match="threads"):
        TreeKernelColumns(forest, threads=0)
    columns = TreeKernelColumns(forest, None, vectors)
    other = TreeForest([random_tree(np.random.default_rng(2))])
    with pytest.raises(ValueError, match="interners"):
        columns.expansion(other, np.array([0]), np.array([1.0]), _take(vectors, np.array([0])))


def _take(matrix: BinaryMatrix, rows: np.ndarray) -> BinaryMatrix:
    return BinaryMatrix.from_rows([matrix.row(int(i)) for i in rows], matrix.n_features)
