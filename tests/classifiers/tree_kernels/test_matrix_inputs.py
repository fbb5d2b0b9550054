"""The tree learners' vector part takes NumPy arrays and scipy sparse matrices wherever it takes
a BinaryMatrix (fit, decision_function, predict, voted scores; every learner of
train_tree_model; the TreeKernelModel), read by features.binary_matrix.as_binary_matrix: the
same model and the same values as with the BinaryMatrix, values other than 0 and 1 refused in
one line naming row, column and value."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from polyparse.classifiers.tree_kernels.settings import LEARNERS, TreeKernelSpec
from polyparse.classifiers.tree_kernels.tree_learners import train_tree_model
from polyparse.classifiers.tree_kernels.tree_perceptron import TreePerceptron
from polyparse.classifiers.tree_kernels.tree_svm import TreeSVM
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.trees import TreeForest

from .test_kernels import random_tree

N_FEATURES = 9


def data(seed: int, n: int) -> tuple[TreeForest, np.ndarray, BinaryMatrix]:
    """Random trees, labels from a "B" node or vector feature 0, one random vector each."""
    rng = np.random.default_rng(seed)
    trees = [random_tree(rng) for _ in range(n)]
    dense = rng.random((n, N_FEATURES)) < 0.35
    y = np.array([1 if any(s.label() == "B" for s in t.subtrees()) or row[0] else -1
                  for t, row in zip(trees, dense)])
    vectors = BinaryMatrix.from_rows([np.flatnonzero(row) for row in dense], N_FEATURES)
    return TreeForest(trees), y, vectors


def forms(vectors: BinaryMatrix) -> tuple[dict[str, object], tuple[sp.csr_matrix, sp.csr_matrix]]:
    """The vectors as NumPy arrays and scipy matrices; and a CSR matrix holding explicit zeros
    where some of the ones were, beside the same matrix without them."""
    dense = vectors.to_dense()
    zeros = sp.csr_matrix(dense.astype(np.float64))
    zeros.data[::3] = 0.0  # explicit zeros where some ones were
    kept = zeros.copy()
    kept.eliminate_zeros()
    return {"dense": dense, "bool": dense.astype(bool), "csr": sp.csr_matrix(dense),
            "coo": sp.coo_array(dense)}, (zeros, kept)


@pytest.fixture(scope="module")
def problem() -> tuple[TreeForest, np.ndarray, BinaryMatrix]:
    return data(3, 40)


@pytest.mark.parametrize("learner", LEARNERS)
def test_every_learner_takes_every_form(learner: str, problem) -> None:
    forest, y, vectors = problem
    spec = TreeKernelSpec(degree=2)
    options = {"epochs": 2} if learner != "cpa" else {"iterations": 20, "sample": 20}
    reference, _ = train_tree_model(learner, spec, forest, y, vectors, **options)
    expected = reference.decision_function(forest, vectors)
    matrices, _ = forms(vectors)
    for name, matrix in matrices.items():
        model, _ = train_tree_model(learner, spec, forest, y, matrix, **options)
        assert np.array_equal(model.decision_function(forest, vectors), expected), name
        assert np.array_equal(reference.decision_function(forest, matrix), expected), name
        assert np.array_equal(reference.decision_function(forest, matrix, "plain"),
                              reference.decision_function(forest, vectors, "plain")), name


def test_explicit_zeros_are_absent_features(problem) -> None:
    forest, y, vectors = problem
    _, (zeros, kept) = forms(vectors)
    kept_rows = BinaryMatrix(kept.indptr, kept.indices, N_FEATURES)
    perceptron = TreePerceptron(degree=2, epochs=2).fit(forest, y, zeros)
    again = TreePerceptron(degree=2, epochs=2).fit(forest, y, kept_rows)
    assert np.array_equal(perceptron.mistake_rows, again.mistake_rows)
    assert np.array_equal(perceptron.decision_function(forest, zeros),
                          again.decision_function(forest, kept_rows))
    assert np.array_equal(perceptron.voted_decision_function(forest, zeros),
                          again.voted_decision_function(forest, kept_rows))
    svm = TreeSVM(TreeKernelSpec(degree=2), C=1.0)
    svm.fit(forest, y, zeros)
    assert np.array_equal(svm.predict(forest, zeros), svm.predict(forest, kept_rows))


@pytest.mark.parametrize("learner", LEARNERS)
def test_other_values_are_refused(learner: str, problem) -> None:
    forest, y, vectors = problem
    odd = vectors.to_dense().astype(np.float64)
    odd[3, 4] = -7.5
    options = {"epochs": 1} if learner != "cpa" else {"iterations": 5, "sample": 10}
    with pytest.raises(ValueError, match=r"^vectors: row 3, column 4 holds -7.5; a binary "
                                         r"feature is 1 \(present\) or 0 \(absent\)$"):
        train_tree_model(learner, TreeKernelSpec(degree=2), forest, y, sp.csr_matrix(odd),
                         **options)
    model, _ = train_tree_model(learner, TreeKernelSpec(degree=2), forest, y, vectors,
                                **options)
    with pytest.raises(ValueError, match="^vectors: row 3, column 4 holds -7.5"):
        model.decision_function(forest, odd)


def test_the_perceptron_and_svm_faces_refuse_them(problem) -> None:
    forest, y, vectors = problem
    twice = sp.coo_matrix((np.ones(2), ([0, 0], [1, 1])), shape=(len(y), N_FEATURES))
    perceptron = TreePerceptron(degree=2, epochs=1).fit(forest, y, vectors)
    for call in (perceptron.decision_function, perceptron.predict,
                 perceptron.voted_decision_function, perceptron.predict_voted):
        with pytest.raises(ValueError, match="^vectors: row 0, column 1 is stored twice"):
            call(forest, twice)
    with pytest.raises(ValueError, match="^vectors: row 0, column 1 is stored twice"):
        TreeSVM(TreeKernelSpec(degree=2), C=1.0).fit(forest, y, twice)
