"""The central test: PKI, PKE and split-svm equal the naive kernel sum on random models."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from polyparse.classifiers.evaluators.kernel_expansion import KernelExpansion
from polyparse.classifiers.evaluators.kernel_sum import KernelSumScorer
from polyparse.classifiers.evaluators.pke import PKEScorer
from polyparse.classifiers.evaluators.pki import PKIScorer
from polyparse.classifiers.evaluators.split_svm import SplitSVMScorer
from polyparse.classifiers.scorer import BinaryScorer
from polyparse.features.binary_matrix import BinaryMatrix
from tests.classifiers.evaluators.test_kernel_expansion import (
    assert_close,
    random_expansion,
    zipf_rows,
)


def evaluators(expansion) -> dict[str, BinaryScorer]:
    return {
        "naive": KernelSumScorer(expansion),
        "pki": PKIScorer(expansion),
        "pke": PKEScorer(expansion),
        "pke hashed": PKEScorer(expansion, max_dense_bytes=0),
        "pke mixed": PKEScorer(expansion, max_dense_bytes=1 << 14),
        "split 0.02 dense": SplitSVMScorer(expansion, 0.02),
        "split 5 hashed": SplitSVMScorer(expansion, 5, max_dense_bytes=0),
        "split 5 mixed": SplitSVMScorer(expansion, 5, max_dense_bytes=1 << 12),
        "split 30": SplitSVMScorer(expansion, 30),
        "split all rare": SplitSVMScorer(expansion, 1.0),
    }


@pytest.mark.parametrize("degree,n_outputs", [(2, 1), (2, 3), (3, 1), (3, 3)])
def test_evaluators_equal_the_naive_sum_on_10000_random_rows(degree: int, n_outputs: int) -> None:
    expansion, vocabulary = random_expansion(10 * degree + n_outputs, 400, n_outputs, degree)
    rng = np.random.default_rng(degree * 100 + n_outputs)
    # Rows over the model's vocabulary plus ids no support vector holds (some beyond all of them).
    unseen = np.array([0, 5, 470_001, 2_000_000], dtype=np.int64)
    X = zipf_rows(rng, 10_000, np.concatenate([vocabulary, unseen]), 40)
    reference = expansion.naive_decision_function(X)
    scorers = evaluators(expansion)
    for name in ("split 0.02 dense", "split 5 hashed", "split 5 mixed"):
        split = scorers[name]
        assert split.n_common_features > 0 and split.n_rare_features > 0, name
        n_dense = split.common.n_dense
        assert (n_dense == split.n_common_features) == name.endswith("dense"), name
        assert (n_dense == 0) == name.endswith("hashed"), name
    for name in ("pke hashed", "pke mixed"):
        store = scorers[name].store
        assert store.n_dense < store.n_ranked and (store.n_dense == 0) == name.endswith("hashed")
    for name, scorer in scorers.items():
        assert scorer.n_outputs == n_outputs, name
        assert_close(scorer.decision_function(X), reference)


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_evaluators_handle_degenerate_models(degree: int) -> None:
    empty_rows = BinaryMatrix.from_rows([[], [3], []], n_features=4)
    expansion = KernelExpansion(empty_rows, [[1.0, -2.0, 0.5]], [0.25], 0.5, 1.5, degree)
    X = BinaryMatrix.from_rows([[], [3], [0, 1, 2, 3]], n_features=4)
    reference = expansion.naive_decision_function(X)
    for scorer in evaluators(expansion).values():
        assert_close(scorer.decision_function(X), reference)
    zero = KernelExpansion(empty_rows, [[0.0, 0.0, 0.0]], [0.0], 1.0, 0.0, degree)
    for scorer in evaluators(zero).values():
        np.testing.assert_array_equal(scorer.decision_function(X), np.zeros((3, 1)))


def test_rows_longer_than_the_stack_buffers() -> None:
    expansion, vocabulary = random_expansion(5, 150, 2, 2, max_length=300,
                                             vocabulary_size=400)
    rng = np.random.default_rng(5)
    X = zipf_rows(rng, 20, vocabulary, 400)
    assert X.row_lengths().max() > 256
    reference = expansion.naive_decision_function(X)
    for scorer in evaluators(expansion).values():
        assert_close(scorer.decision_function(X), reference)


def decide_in_threads(scorer: BinaryScorer, X: BinaryMatrix, n_threads: int) -> list[np.ndarray]:
    """decision_function(X) from n_threads threads started together."""
    results: list[np.ndarray] = [np.empty(0)] * n_threads

    def work(i: int) -> None:
        results[i] = scorer.decision_function(X)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n_threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_evaluators_are_safe_from_many_threads_at_once() -> None:
    # More threads than scratch slots, so some calls use buffers of their own.
    expansion, vocabulary = random_expansion(11, 300, 2, 2)
    X = zipf_rows(np.random.default_rng(11), 2000, vocabulary, 30)
    reference = expansion.naive_decision_function(X)
    for scorer in evaluators(expansion).values():
        for result in decide_in_threads(scorer, X, 12):
            assert_close(result, reference)
