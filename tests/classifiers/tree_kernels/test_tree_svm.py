"""TreeSVM (libsvm's SMO on tree-kernel columns) against libsvm with a precomputed kernel."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.classifiers.tree_kernels.combination import polynomial_gram, svmlight_tk_sum
from polyparse.classifiers.tree_kernels.kernels import gram_matrix
from polyparse.classifiers.tree_kernels.tree_model import TreeKernelSpec
from polyparse.classifiers.tree_kernels.tree_svm import TreeSVM
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight_tk import read_svmlight_tk
from polyparse.features.trees import TreeForest

from .test_kernels import random_tree

svmutil = pytest.importorskip("libsvm.svmutil")


def _gram(forest: TreeForest, vectors: BinaryMatrix | None, rows_a: np.ndarray,
          rows_b: np.ndarray, spec: TreeKernelSpec, normalize: bool = True) -> np.ndarray:
    """The kernel by gram_matrix and combination.py, independent of the column code."""
    tree = gram_matrix(forest, forest, spec.kind, spec.lam, spec.mu, normalize, rows_a, rows_b)
    if spec.degree is None:
        return tree
    poly = polynomial_gram(_take(vectors, rows_a), _take(vectors, rows_b), spec.degree, spec.s,
                           spec.r, normalize)
    return svmlight_tk_sum(tree, poly, spec.tree_constant)


def _libsvm(gram: np.ndarray, y: np.ndarray, C: float, j: float, eps: float):
    """libsvm's C-SVC on a precomputed kernel: (coef per row, b, objective in double)."""
    n = y.size
    x = [[i + 1] + gram[i].tolist() for i in range(n)]
    problem = svmutil.svm_problem(y.tolist(), x, isKernel=True)
    parameter = svmutil.svm_parameter(f"-s 0 -t 4 -c {C!r} -e {eps!r} -w1 {j!r} -q")
    model = svmutil.svm_train(problem, parameter)
    assert model.get_labels()[0] == 1
    coef = np.zeros(n)
    sv = np.asarray(model.get_sv_indices()) - 1
    coef[sv] = [c[0] for c in model.get_sv_coef()]
    objective = 0.5 * coef @ gram @ coef - np.abs(coef).sum()
    return coef, -model.rho[0], objective


def _dense_coef(result, n: int) -> np.ndarray:
    coef = np.zeros(n)
    coef[result.support] = result.dual_coef
    return coef


@pytest.fixture(scope="module")
def subset(srl_boundary):
    """400 instances of train.5k (shuffled, so that classes interleave) and 150 others."""
    data = read_svmlight_tk(srl_boundary / "train.5k.tk")
    rng = np.random.default_rng(4)
    positives = np.flatnonzero(data.labels > 0)
    negatives = np.flatnonzero(data.labels < 0)
    rows = rng.permutation(np.concatenate([positives[:90], negatives[:310]]))
    queries = np.arange(4000, 4150)
    return data, rows, queries


@pytest.mark.parametrize("vector,j", [(True, 1.0), (True, 5.0), (False, 1.0)])
def test_smo_reaches_libsvm_solution_dataset(subset, vector, j) -> None:
    data, rows, queries = subset
    spec = TreeKernelSpec(degree=2 if vector else None)
    svm = TreeSVM(spec, j=j)
    result = svm.fit(data.forest, data.labels[rows], _take(data.vectors, rows) if vector
                     else None, rows)
    gram = _gram(data.forest, data.vectors, rows, rows, spec)
    assert result.C == pytest.approx(1.0 / np.sqrt(np.diag(gram)).mean() ** 2, rel=1e-12)
    assert result.C == pytest.approx(0.5 if vector else 1.0, rel=1e-12)
    assert result.C_rule == "svm-light"
    coef, bias, objective = _libsvm(gram, data.labels[rows], result.C, j, 1e-3)
    assert np.abs(_dense_coef(result, rows.size) - coef).max() <= 1e-6
    assert result.bias == pytest.approx(bias, abs=1e-6)
    assert result.objective == pytest.approx(objective, rel=1e-6)
    assert result.converged
    values = svm.decision_function(data.forest, _take(data.vectors, queries), queries)
    expected = _gram(data.forest, data.vectors, queries, rows, spec) @ coef + bias
    assert np.abs(values - expected).max() <= 1e-6
    objectives = svm.objectives()
    assert objectives["dual"] == pytest.approx(-objective, rel=1e-6)
    assert 0.0 <= objectives["gap"] <= 1e-2 * objectives["primal"]


@pytest.mark.parametrize("kind", ("sst", "st", "pt", "et"))
def test_smo_reaches_libsvm_solution_random(kind) -> None:
    rng = np.random.default_rng(len(kind))
    trees = [random_tree(rng) for _ in range(120)]
    y = np.array([1 if any(s.label() == "B" for s in t.subtrees()) else -1 for t in trees])
    y[rng.random(y.size) < 0.1] *= -1
    forest = TreeForest(trees)
    vectors = BinaryMatrix.from_rows([np.flatnonzero(rng.random(8) < 0.4) for _ in trees], 8)
    spec = TreeKernelSpec(kind=kind, lam=0.6, mu=0.5, degree=2, tree_constant=2.0)
    svm = TreeSVM(spec, C=0.8, j=2.0)
    result = svm.fit(forest, y, vectors)
    gram = _gram(forest, vectors, np.arange(120), np.arange(120), spec)
    coef, bias, objective = _libsvm(gram, y, 0.8, 2.0, 1e-3)
    assert np.abs(_dense_coef(result, y.size) - coef).max() <= 1e-6
    assert result.bias == pytest.approx(bias, abs=1e-6)
    assert result.objective == pytest.approx(objective, rel=1e-6)
    assert result.Cp == 1.6 and result.Cn == 0.8 and result.C_rule == "given"


def test_default_C_is_svm_light_rule() -> None:
    forest = TreeForest([random_tree(np.random.default_rng(s)) for s in range(6)] + [None])
    vectors = BinaryMatrix.from_rows([[0, 1], [1], [2], [0], [1, 2], [0, 2], [1]], 3)
    y = np.array([1, -1, 1, -1, 1, -1, -1])
    normalised = TreeSVM(TreeKernelSpec(degree=2, tree_constant=3.0)).fit(forest, y, vectors)
    # six instances of norm sqrt(1 + 3), the empty tree's of norm 1
    assert normalised.C == pytest.approx(1.0 / ((6 * 2.0 + 1.0) / 7) ** 2, rel=1e-12)
    raw = TreeSVM(normalize=False).fit(forest, y, vectors)
    gram = _gram(forest, vectors, np.arange(7), np.arange(7), TreeKernelSpec(degree=2), False)
    norms = np.sqrt(np.diag(gram) - 1.0)
    assert raw.C == pytest.approx(1.0 / norms.mean() ** 2, rel=1e-12)


def test_result_and_bad_input() -> None:
    rng = np.random.default_rng(9)
    forest = TreeForest([random_tree(rng) for _ in range(30)])
    y = np.where(np.arange(30) % 3 == 0, 1, -1)
    svm = TreeSVM(TreeKernelSpec(), C=1.0)
    with pytest.raises(RuntimeError, match="not fitted"):
        svm.decision_function(forest)
    result = svm.fit(forest, y)
    spec, model_forest, rows, weights, vectors, bias = svm.model_arguments()
    assert spec == TreeKernelSpec()
    assert model_forest is forest and vectors is None and bias == result.bias
    assert np.array_equal(rows, result.support_trees) and np.array_equal(weights, result.dual_coef)
    assert np.all(np.diff(result.support) > 0)
    assert np.all(np.abs(result.dual_coef) <= result.C + 1e-12)
    assert np.sum(result.dual_coef) == pytest.approx(0.0, abs=1e-9)
    assert np.array_equal(svm.predict(forest), np.where(svm.decision_function(forest) > 0, 1, -1))
    with pytest.raises(ValueError, match="labels must be"):
        svm.fit(forest, np.where(y > 0, 1, 0))
    with pytest.raises(ValueError, match="vector part"):
        TreeSVM().fit(forest, y)
    with pytest.raises(ValueError, match="cost factor"):
        TreeSVM(j=0.0)
    with pytest.raises(ValueError, match="threads"):
        TreeSVM(threads=0)


def test_threads_give_the_same_model(srl_boundary) -> None:
    data = read_svmlight_tk(srl_boundary / "train.5k.tk")
    trees = data.instance_ptr[:-1]
    one = TreeSVM(threads=1).fit(data.forest, data.labels, data.vectors, trees)
    two = TreeSVM(threads=2).fit(data.forest, data.labels, data.vectors, trees)
    assert np.array_equal(one.support, two.support)
    assert np.array_equal(one.dual_coef, two.dual_coef)
    assert one.bias == two.bias and one.iterations == two.iterations


def test_model_arguments_place_vectors_at_their_trees() -> None:
    rng = np.random.default_rng(12)
    forest = TreeForest([random_tree(rng) for _ in range(40)])
    rows = np.arange(39, -1, -2)
    y = np.where(np.arange(20) % 4 == 0, 1, -1)
    vectors = BinaryMatrix.from_rows([[k % 5, 5 + k % 3] for k in range(20)], 8)
    svm = TreeSVM(C=2.0)
    result = svm.fit(forest, y, vectors, rows)
    spec, model_forest, trees, weights, tree_vectors, bias = svm.model_arguments()
    assert spec.degree == 2 and model_forest is forest and len(tree_vectors) == 40
    assert np.array_equal(trees, rows[result.support])
    for instance, tree in zip(result.support, trees):
        assert np.array_equal(tree_vectors.row(int(tree)), vectors.row(int(instance)))
    raw = TreeSVM(C=2.0, normalize=False)
    raw.fit(forest, y, vectors, rows)
    with pytest.raises(ValueError, match="normalised"):
        raw.model_arguments()


def _take(matrix: BinaryMatrix, rows: np.ndarray) -> BinaryMatrix:
    return BinaryMatrix.from_rows([matrix.row(int(i)) for i in rows], matrix.n_features)
