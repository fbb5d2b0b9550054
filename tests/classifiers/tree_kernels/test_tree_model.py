"""TreeKernelModel: DAG decisions against the plain kernel sum and the kernel matrices, the
model file (round trip, byte-identical files, one-line errors)."""
from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.model_file import ModelFileError
from polyparse.classifiers.tree_kernels.combination import polynomial_gram
from polyparse.classifiers.tree_kernels.kernels import normalized_tree_kernel
from polyparse.classifiers.tree_kernels.tree_model import TreeKernelModel, TreeKernelSpec
from polyparse.classifiers.tree_kernels.tree_perceptron import TreePerceptron
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight_tk import read_svmlight_tk
from polyparse.features.trees import TreeForest

from .test_kernels import random_tree
from .test_poly2_table import random_vectors

KINDS = ("sst", "st", "pt", "et")


def _data(seed: int, n_model: int = 30, n_query: int = 20):
    rng = np.random.default_rng(seed)
    forest = TreeForest([random_tree(rng) for _ in range(n_model)])
    queries = TreeForest([random_tree(rng) for _ in range(n_query)], forest.labels,
                         forest.productions)
    return rng, forest, queries, random_vectors(rng, n_model), random_vectors(rng, n_query)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("degree", (None, 1, 2))
def test_dag_equals_plain_and_the_kernel_matrices(kind: str, degree: int | None) -> None:
    rng, forest, queries, vectors, query_vectors = _data(zlib.crc32(f"{kind}{degree}".encode()))
    rows = rng.integers(0, len(forest), size=40)
    weights = rng.normal(size=40)
    spec = TreeKernelSpec(kind, 0.4, 0.3, degree, 1.0, 1.0, 0.7)
    model = TreeKernelModel.from_weighted_trees(spec, forest, rows, weights, vectors, bias=0.25)
    assert model.n_trees == np.unique(rows).size
    dag = model.decision_function(queries, query_vectors)
    plain = model.decision_function(queries, query_vectors, method="plain")
    tree = np.array([[normalized_tree_kernel(queries, j, forest, int(t), kind, 0.4, 0.3)
                      for t in rows] for j in range(len(queries))])
    terms = tree if degree is None else 0.7 * tree + polynomial_gram(
        query_vectors, _rows(vectors, rows), degree)
    expected = 0.25 + terms @ weights
    scale = np.maximum(np.abs(terms) @ np.abs(weights), 1.0)
    assert np.all(np.abs(dag - expected) <= 1e-9 * scale)
    assert np.all(np.abs(plain - expected) <= 1e-9 * scale)
    assert model.n_dag_nodes < model.n_tree_nodes


def _rows(vectors: BinaryMatrix, rows: np.ndarray) -> BinaryMatrix:
    return BinaryMatrix.from_rows([vectors.row(int(t)) for t in rows], vectors.n_features)


def test_repeated_rows_are_merged_and_zero_sums_dropped() -> None:
    _, forest, queries, vectors, query_vectors = _data(11)
    spec = TreeKernelSpec(degree=2)
    model = TreeKernelModel.from_weighted_trees(spec, forest, [4, 2, 4, 7, 7], [1.0, 2.0, 0.5,
                                                1.0, -1.0], vectors)
    assert model.weights.tolist() == [1.5, 2.0]
    same = TreeKernelModel.from_weighted_trees(spec, forest, [4, 2], [1.5, 2.0], vectors)
    assert np.array_equal(model.decision_function(queries, query_vectors),
                          same.decision_function(queries, query_vectors))


def test_round_trip_gives_identical_decisions(tmp_path: Path) -> None:
    _, forest, queries, vectors, query_vectors = _data(12)
    spec = TreeKernelSpec("sst", 0.4, 0.4, 2, 1.0, 1.0, 0.5)
    model = TreeKernelModel.from_weighted_trees(spec, forest, np.arange(30),
                                                np.linspace(-1, 1, 30), vectors, bias=-0.1)
    path = tmp_path / "model.bin"
    model.save(path, {"command": "test"})
    again = TreeKernelModel.load(path)
    assert again.spec == spec and again.bias == -0.1
    assert (again.n_trees, again.n_tree_nodes, again.n_dag_nodes) == (
        model.n_trees, model.n_tree_nodes, model.n_dag_nodes)
    assert again.labels.strings == forest.labels.strings
    assert again.productions.strings == forest.productions.strings
    moved = TreeForest([queries.to_nltk(t) for t in range(len(queries))], again.labels,
                       again.productions)
    for method in ("dag", "plain"):
        assert np.array_equal(again.decision_function(moved, query_vectors, method),
                              model.decision_function(queries, query_vectors, method))
    other = tmp_path / "again.bin"
    again.save(other, {"command": "test"})
    assert other.read_bytes() == path.read_bytes()


def test_same_data_and_settings_give_byte_identical_files(srl_boundary: Path,
                                                          tmp_path: Path) -> None:
    files = []
    for k in range(2):
        data = read_svmlight_tk(srl_boundary / "train.5k.tk")
        perceptron = TreePerceptron(degree=2, epochs=2).fit(data.forest, data.labels,
                                                            data.vectors)
        files.append(tmp_path / f"model{k}.bin")
        perceptron.model().save(files[-1], {"train": "train.5k.tk"})
    assert files[0].read_bytes() == files[1].read_bytes()
    model = TreeKernelModel.load(files[0])
    test = read_svmlight_tk(srl_boundary / "test.10k.tk", model.labels, model.productions)
    reference = read_svmlight_tk(srl_boundary / "test.10k.tk", data.forest.labels,
                                 data.forest.productions)
    assert np.array_equal(model.decision_function(test.forest, test.vectors),
                          perceptron.decision_function(reference.forest, reference.vectors))


def test_bad_files_and_arguments(tmp_path: Path) -> None:
    _, forest, queries, vectors, query_vectors = _data(13)
    model = TreeKernelModel.from_weighted_trees(TreeKernelSpec(degree=2), forest, [0, 1],
                                                [1.0, -1.0], vectors)
    path = tmp_path / "model.bin"
    model.save(path)
    data = path.read_bytes()
    (tmp_path / "short.bin").write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError) as error:
        TreeKernelModel.load(tmp_path / "short.bin")
    assert "short.bin" in str(error.value) and "\n" not in str(error.value)
    with pytest.raises(ValueError):
        model.decision_function(queries)
    with pytest.raises(ValueError):
        model.decision_function(TreeForest([]), None)
    with pytest.raises(ValueError):
        model.decision_function(queries, query_vectors, method="fast")
    with pytest.raises(ValueError):
        TreeKernelSpec(kind="xt")
    cubic = TreeKernelModel.from_weighted_trees(TreeKernelSpec(degree=3), forest, [0],
                                                [1.0], vectors)
    with pytest.raises(ValueError):
        cubic.decision_function(queries, query_vectors)
    assert cubic.decision_function(queries, query_vectors, "plain").shape == (len(queries),)
