"""Kernel / voted / averaged tree perceptron: plain store against DAG store against a direct
Freund & Schapire implementation."""
from __future__ import annotations

import zlib

import numpy as np
import pytest

from polyparse.classifiers.tree_kernels.combination import polynomial_gram, svmlight_tk_sum
from polyparse.classifiers.tree_kernels.kernels import normalized_tree_kernel
from polyparse.classifiers.tree_kernels.tree_perceptron import TreePerceptron
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight_tk import read_svmlight_tk
from polyparse.features.trees import TreeForest

from .test_kernels import random_tree

KINDS = ("sst", "st", "pt", "et")


def _random_data(seed: int, n: int) -> tuple[TreeForest, np.ndarray]:
    """Random trees labelled by whether they contain a "B" node, with 10% label noise."""
    rng = np.random.default_rng(seed)
    trees = [random_tree(rng) for _ in range(n)]
    y = np.array([1 if any(s.label() == "B" for s in t.subtrees()) else -1 for t in trees])
    flip = rng.random(n) < 0.1
    y[flip] = -y[flip]
    return TreeForest(trees), y


def _first(forest: TreeForest, n: int) -> TreeForest:
    return TreeForest([forest.to_nltk(t) for t in range(n)], forest.labels, forest.productions)


def _tree_grams(forest: TreeForest, queries: TreeForest,
                kind: str) -> tuple[np.ndarray, np.ndarray]:
    """K_n(train i, train m) and K_n(query j, train m), one normalised kernel at a time."""
    def gram(a: TreeForest) -> np.ndarray:
        return np.array([[normalized_tree_kernel(a, i, forest, m, kind)
                          for m in range(len(forest))] for i in range(len(a))])
    return gram(forest), gram(queries)


def _brute_force(train_gram: np.ndarray, y: np.ndarray, query_gram: np.ndarray,
                 epochs: int) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
    """Freund & Schapire's voted perceptron as written: the list of (v_k, c_k), each v_k a list
    of (instance, label), every v_k . x evaluated from scratch from the kernel matrices."""
    def dot(v: list[tuple[int, int]], gram: np.ndarray, j: int) -> float:
        return sum(label * gram[j, m] for m, label in v)

    perceptrons: list[tuple[list[tuple[int, int]], int]] = [([], 0)]
    mistakes = []
    for _ in range(epochs):
        for t in range(len(y)):
            v, c = perceptrons[-1]
            if y[t] * dot(v, train_gram, t) <= 0.0:
                perceptrons.append((v + [(t, int(y[t]))], 1))
                mistakes.append(t)
            else:
                perceptrons[-1] = (v, c + 1)
    n = len(query_gram)
    voted, averaged, last = np.zeros(n), np.zeros(n), np.zeros(n)
    for j in range(n):
        for v, c in perceptrons:
            s = dot(v, query_gram, j)
            voted[j] += c * np.sign(s)
            averaged[j] += c * s
        last[j] = dot(perceptrons[-1][0], query_gram, j)
    return mistakes, voted, averaged, last


@pytest.mark.parametrize("kind", KINDS)
def test_plain_and_dag_make_the_same_mistakes_random(kind: str) -> None:
    forest, y = _random_data(zlib.crc32(kind.encode()), 300)
    plain = TreePerceptron(kind, 0.4, 0.4, epochs=2, store="plain").fit(forest, y)
    dag = TreePerceptron(kind, 0.4, 0.4, epochs=2, store="dag").fit(forest, y)
    assert plain.n_mistakes > 10
    assert np.array_equal(plain.mistake_steps, dag.mistake_steps)
    assert np.array_equal(plain.mistake_rows, dag.mistake_rows)
    bound = 1e-9 * np.maximum(1.0, np.arange(1, plain.train_scores.size + 1))
    assert np.all(np.abs(plain.train_scores - dag.train_scores) <= bound)
    queries, _ = _random_data(zlib.crc32(kind.encode()) + 1, 100)
    queries = TreeForest([queries.to_nltk(t) for t in range(len(queries))], forest.labels,
                         forest.productions)
    for average in (True, False):
        plain.average = dag.average = average
        a, b = plain.decision_function(queries), dag.decision_function(queries)
        assert np.all(np.abs(a - b) <= 1e-9 * max(1.0, float(np.abs(a).max())))
        assert np.array_equal(plain.predict(queries), dag.predict(queries))
    assert dag.n_dag_nodes < dag.n_tree_nodes == plain.n_tree_nodes


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("epochs", (1, 3))
def test_voted_and_averaged_against_brute_force(kind: str, epochs: int) -> None:
    seed = zlib.crc32(repr((kind, epochs)).encode())
    forest, y = _random_data(seed, 40)
    queries = TreeForest([random_tree(np.random.default_rng(seed + 1)) for _ in range(15)],
                         forest.labels, forest.productions)
    train_gram, query_gram = _tree_grams(forest, queries, kind)
    mistakes, voted, averaged, last = _brute_force(train_gram, y, query_gram, epochs)
    for store in ("plain", "dag"):
        model = TreePerceptron(kind, 0.4, 0.4, epochs=epochs, store=store).fit(forest, y)
        assert model.mistake_rows.tolist() == mistakes
        assert model.survival_counts().sum() == epochs * len(forest)
        assert np.allclose(model.voted_decision_function(queries), voted, rtol=0, atol=1e-9)
        assert np.allclose(model.decision_function(queries), averaged, rtol=1e-9, atol=1e-9)
        model.average = False
        assert np.allclose(model.decision_function(queries), last, rtol=1e-9, atol=1e-9)


def _random_vectors(rng: np.random.Generator, n: int) -> BinaryMatrix:
    return BinaryMatrix.from_rows([np.unique(rng.integers(0, 12, size=int(rng.integers(0, 5))))
                                   for _ in range(n)], n_features=12)


@pytest.mark.parametrize("epochs", (1, 2))
def test_tree_plus_vector_kernel_against_brute_force(epochs: int) -> None:
    forest, y = _random_data(77 + epochs, 40)
    rng = np.random.default_rng(epochs)
    vectors = _random_vectors(rng, 40)
    queries = TreeForest([random_tree(rng) for _ in range(15)], forest.labels,
                         forest.productions)
    query_vectors = _random_vectors(rng, 15)
    tree_train, tree_query = _tree_grams(forest, queries, "sst")
    train_gram = svmlight_tk_sum(tree_train, polynomial_gram(vectors, vectors, 2), 0.5)
    query_gram = svmlight_tk_sum(tree_query, polynomial_gram(query_vectors, vectors, 2), 0.5)
    mistakes, voted, averaged, last = _brute_force(train_gram, y, query_gram, epochs)
    for store in ("plain", "dag"):
        model = TreePerceptron("sst", 0.4, 0.4, epochs=epochs, store=store, degree=2,
                               tree_constant=0.5).fit(forest, y, vectors)
        assert model.mistake_rows.tolist() == mistakes
        assert np.allclose(model.voted_decision_function(queries, query_vectors), voted,
                           atol=1e-9)
        assert np.allclose(model.decision_function(queries, query_vectors), averaged,
                           rtol=1e-9, atol=1e-9)
        model.average = False
        assert np.allclose(model.decision_function(queries, query_vectors), last, rtol=1e-9,
                           atol=1e-9)
        with pytest.raises(ValueError):
            model.decision_function(queries)


def test_bad_arguments() -> None:
    forest, y = _random_data(3, 10)
    with pytest.raises(ValueError):
        TreePerceptron(store="list")
    with pytest.raises(ValueError):
        TreePerceptron(store="dag", degree=3)
    with pytest.raises(ValueError):
        TreePerceptron().fit(forest, y[:5])
    with pytest.raises(ValueError):
        TreePerceptron().fit(forest, np.zeros(10))
    with pytest.raises(RuntimeError):
        TreePerceptron().predict(forest)


def test_plain_and_dag_make_the_same_mistakes_dataset(srl_boundary) -> None:
    data = read_svmlight_tk(srl_boundary / "train.5k.tk")
    forest, y = _first(data.forest, 2000), data.labels[:2000]
    plain = TreePerceptron("sst", 0.4, 0.4, store="plain").fit(forest, y)
    dag = TreePerceptron("sst", 0.4, 0.4, store="dag").fit(forest, y)
    assert np.array_equal(plain.mistake_rows, dag.mistake_rows)
    bound = 1e-9 * np.maximum(1.0, np.arange(1, plain.train_scores.size + 1))
    assert np.all(np.abs(plain.train_scores - dag.train_scores) <= bound)
    assert np.array_equal(plain.predict(forest), dag.predict(forest))
    a, b = plain.decision_function(forest), dag.decision_function(forest)
    assert np.all(np.abs(a - b) <= 1e-9 * float(np.abs(a).max()))
    assert dag.n_dag_nodes < dag.n_tree_nodes


def test_positive_class_f1_on_test(srl_boundary) -> None:
    train = read_svmlight_tk(srl_boundary / "train.5k.tk")
    test = read_svmlight_tk(srl_boundary / "test.10k.tk", train.forest.labels,
                            train.forest.productions)
    model = TreePerceptron("sst", 0.4, 0.4, store="dag").fit(train.forest, train.labels)
    queries, gold = _first(test.forest, 2000), test.labels[:2000]
    predicted = model.predict(queries)
    true_positive = np.count_nonzero((predicted == 1) & (gold == 1))
    precision = true_positive / max(1, np.count_nonzero(predicted == 1))
    recall = true_positive / max(1, np.count_nonzero(gold == 1))
    f1 = 2 * precision * recall / max(1e-12, precision + recall)
    print(f"train.5k -> test.10k[:2000] SST averaged: P={precision:.4f} R={recall:.4f} "
          f"F1={f1:.4f} mistakes={model.n_mistakes}")
    assert f1 > 0.0


def test_plain_and_dag_with_the_vector_part_make_the_same_mistakes_20k(srl_boundary) -> None:
    data = read_svmlight_tk(srl_boundary / "train.20k.tk")
    plain = TreePerceptron("sst", 0.4, 0.4, store="plain", degree=2).fit(
        data.forest, data.labels, data.vectors)
    dag = TreePerceptron("sst", 0.4, 0.4, store="dag", degree=2).fit(
        data.forest, data.labels, data.vectors)
    assert plain.n_mistakes > 500
    assert np.array_equal(plain.mistake_rows, dag.mistake_rows)
    bound = 1e-9 * np.maximum(1.0, np.arange(1, plain.train_scores.size + 1))
    assert np.all(np.abs(plain.train_scores - dag.train_scores) <= bound)
    queries = _first(data.forest, 300)
    vectors = BinaryMatrix(data.vectors.indptr[:301], data.vectors.indices, validate=False)
    a, b = plain.decision_function(queries, vectors), dag.decision_function(queries, vectors)
    assert np.all(np.abs(a - b) <= 1e-9 * float(np.abs(a).max()))
    assert dag.n_dag_nodes < dag.n_tree_nodes == plain.n_tree_nodes


@pytest.mark.parametrize("store", ("plain", "dag"))
def test_uneven_margins_and_positive_weight_against_a_direct_loop(store: str) -> None:
    forest, y = _random_data(91, 40)
    rng = np.random.default_rng(4)
    vectors = _random_vectors(rng, 40)
    tree_train, _ = _tree_grams(forest, forest, "sst")
    gram = svmlight_tk_sum(tree_train, polynomial_gram(vectors, vectors, 2), 0.5)
    updates, weights = [], []
    for _ in range(2):
        for t in range(40):
            score = sum(w * gram[t, m] for m, w in zip(updates, weights))
            if y[t] * score <= (0.3 if y[t] > 0 else 0.1):
                updates.append(t)
                weights.append(float(y[t]) * (2.0 if y[t] > 0 else 1.0))
    model = TreePerceptron("sst", epochs=2, store=store, degree=2, tree_constant=0.5,
                           margin_positive=0.3, margin_negative=0.1,
                           positive_weight=2.0).fit(forest, y, vectors)
    assert model.mistake_rows.tolist() == updates
    assert np.allclose(model.mistake_weights, weights)


@pytest.mark.parametrize("degree", (None, 1, 2))
def test_voted_dag_equals_the_per_mistake_kernels_on_the_dataset(srl_boundary,
                                                                 degree: int | None) -> None:
    train = read_svmlight_tk(srl_boundary / "train.5k.tk")
    test = read_svmlight_tk(srl_boundary / "test.10k.tk", train.forest.labels,
                            train.forest.productions)
    queries = _first(test.forest, 400)
    vectors = BinaryMatrix(test.vectors.indptr[:401], test.vectors.indices, validate=False)
    results = []
    for store in ("plain", "dag"):
        model = TreePerceptron("sst", 0.4, 0.4, epochs=2, store=store, degree=degree,
                               positive_weight=2.0).fit(train.forest, train.labels,
                                                        train.vectors)
        results.append(model.voted_decision_function(queries, vectors))
    assert np.array_equal(results[0], results[1])
    assert np.count_nonzero(results[0] > 0) > 10
