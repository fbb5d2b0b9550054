"""The DAG model against the plain kernel expansion over its model trees."""
from __future__ import annotations

import zlib

import nltk
import numpy as np
import pytest

from polyparse.classifiers.tree_kernels.dag import TreeDag, dag_score, dag_scores
from polyparse.classifiers.tree_kernels.kernels import kernel_expansion
from polyparse.features.svmlight_tk import read_svmlight_tk
from polyparse.features.trees import TreeForest

from .test_kernels import random_tree

KINDS = ("sst", "st", "pt", "et")


def _random_model(seed: int) -> tuple[TreeForest, np.ndarray, np.ndarray]:
    """A forest whose first 40 trees are the model (repeats, shared subtrees, zero alphas) and
    whose last 30 are queries (some equal to model trees)."""
    rng = np.random.default_rng(seed)
    base = [random_tree(rng) for _ in range(25)]
    model = list(base)
    for _ in range(10):
        model.append(base[int(rng.integers(len(base)))].copy(deep=True))
    for _ in range(5):
        a, b = base[int(rng.integers(25))], base[int(rng.integers(25))]
        model.append(nltk.Tree("A", [a.copy(deep=True), "x", b.copy(deep=True)]))
    queries = [random_tree(rng) for _ in range(25)] + [model[i].copy(deep=True) for i in range(5)]
    forest = TreeForest(model + queries)
    coefficients = rng.normal(size=len(model))
    coefficients[rng.choice(len(model), 6, replace=False)] = 0.0
    return forest, coefficients, np.arange(len(model), len(model) + len(queries))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("normalize", (True, False))
@pytest.mark.parametrize("lam,mu", [(1.0, 1.0), (0.4, 0.4), (0.7, 0.3)])
def test_dag_score_equals_kernel_expansion_random(kind, normalize, lam, mu) -> None:
    forest, coefficients, queries = _random_model(zlib.crc32(repr((kind, normalize, lam, mu)).encode()))
    n_model = coefficients.size
    full = np.zeros(len(forest))
    full[:n_model] = coefficients
    model_forest = TreeForest([forest.to_nltk(t) for t in range(n_model)],
                              forest.labels, forest.productions)
    dag = TreeDag.from_forest(model_forest, coefficients, kind, lam, mu, normalize)
    expected = kernel_expansion(forest, forest, full, kind, lam, mu, normalize, rows_x=queries)
    got = dag_scores(dag, forest, queries)
    # every K >= 0, so the expansion with |alpha| is the sum of |alpha_m K(x, T_m)|
    magnitudes = kernel_expansion(forest, forest, np.abs(full), kind, lam, mu, normalize,
                                  rows_x=queries)
    assert np.all(np.abs(got - expected) <= 1e-9 * magnitudes + 1e-12)
    assert dag_score(dag, forest, int(queries[3])) == pytest.approx(got[3], rel=1e-12, abs=0)
    assert dag.n_nodes < model_forest.n_nodes


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("normalize", (True, False))
def test_dag_score_equals_kernel_expansion_dataset(srl_boundary, kind, normalize) -> None:
    data = read_svmlight_tk(srl_boundary / "train.5k.tk")
    n_model, n_query = 500, 200
    rng = np.random.default_rng(5)
    coefficients = rng.normal(size=n_model)
    full = np.zeros(len(data.forest))
    full[:n_model] = coefficients
    dag = TreeDag.from_forest(_first(data.forest, n_model), coefficients, kind, 0.4, 0.4,
                              normalize)
    queries = np.arange(n_model, n_model + n_query)
    expected = kernel_expansion(data.forest, data.forest, full, kind, 0.4, 0.4, normalize,
                                rows_x=queries)
    got = dag_scores(dag, data.forest, queries)
    absolute = np.abs(full)
    magnitudes = kernel_expansion(data.forest, data.forest, absolute, kind, 0.4, 0.4, normalize,
                                  rows_x=queries)
    assert np.all(np.abs(got - expected) <= 1e-9 * magnitudes + 1e-12)


def _first(forest: TreeForest, n: int) -> TreeForest:
    return TreeForest([forest.to_nltk(t) for t in range(n)], forest.labels, forest.productions)


@pytest.mark.parametrize("kind", KINDS)
def test_incremental_equals_batch(kind) -> None:
    forest, coefficients, queries = _random_model(17)
    n_model = coefficients.size
    batch = TreeDag.from_forest(_first(forest, n_model), coefficients, kind, 0.4, 0.4, True)
    same_order = TreeDag(kind, 0.4, 0.4, True)
    for t in range(n_model):
        same_order.add_tree(forest, t, float(coefficients[t]))
    for name in ("label", "production", "child_ptr", "children", "subtree_size"):
        assert np.array_equal(getattr(same_order, name), getattr(batch, name)), name
    assert np.allclose(same_order.weight, batch.weight, rtol=1e-12, atol=0)
    shuffled = TreeDag(kind, 0.4, 0.4, True)
    for t in np.random.default_rng(1).permutation(n_model).tolist():
        shuffled.add_tree(forest, t, float(coefficients[t]))
        shuffled.add_tree(forest, t, 0.0)
    assert shuffled.n_nodes == batch.n_nodes
    # zero alphas add nothing, nor (normalised) trees with K(T, T) = 0: a lone "(A)" under SST
    lone = forest.production[forest.tree_ptr[:n_model]] == 0 if kind in ("sst", "st") else False
    assert shuffled.n_trees == batch.n_trees == np.count_nonzero((coefficients != 0) & ~lone)
    expected = dag_scores(batch, forest, queries)
    assert np.allclose(dag_scores(shuffled, forest, queries), expected, rtol=1e-12, atol=1e-14)


def test_weights_count_subtree_occurrences() -> None:
    forest = TreeForest.from_brackets(
        ["(S (NP (DT a) (NN dog)) (VP (V saw) (NP (DT a) (NN dog))))", "(NP (DT a) (NN dog))",
         "(NP (DT a) (NN cat))"])
    dag = TreeDag.from_forest(forest, [2.0, -1.0, 0.0], "sst", 0.4, 0.4, normalize=False)
    # distinct: a, dog, DT a, NN dog, NP, saw, V saw, VP, S (the zero-alpha tree adds nothing)
    assert dag.n_nodes == 9 and dag.n_trees == 2 and dag.n_tree_nodes == 19
    strings = forest.labels.strings
    np_node = [d for d in range(dag.n_nodes) if strings[dag.label[d]] == "NP"]
    assert len(np_node) == 1 and dag.weight[np_node[0]] == 2.0 * 2 - 1.0
    assert dag.subtree_size[np_node[0]] == 5
    leaf = [d for d in range(dag.n_nodes) if strings[dag.label[d]] == "a"]
    assert dag.production[leaf[0]] == 0 and dag.weight[leaf[0]] == 3.0
    children = dag.children[dag.child_ptr[np_node[0]]:dag.child_ptr[np_node[0] + 1]]
    assert np.all(children < np_node[0])
    cancelled = TreeDag.from_forest(forest, [0.0, 1.0, 0.0], "sst", normalize=False)
    cancelled.add_tree(forest, 1, -1.0)
    assert np.all(cancelled.weight == 0.0) and dag_score(cancelled, forest, 1) == 0.0
    assert dag_score(TreeDag("pt"), forest, 0) == 0.0


def test_bad_arguments() -> None:
    forest = TreeForest.from_brackets(["(A (B x))"])
    dag = TreeDag.from_forest(forest, [1.0], "st", 0.5, 0.4, True)
    with pytest.raises(ValueError, match="built for kind"):
        dag_score(dag, forest, 0, kind="sst")
    with pytest.raises(ValueError, match="built for normalize"):
        dag_score(dag, forest, 0, normalize=False)
    assert dag_score(dag, forest, 0, "st", 0.5, 0.4, True) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="interners"):
        dag_score(dag, TreeForest.from_brackets(["(A (B x))"]), 0)
    with pytest.raises(IndexError):
        dag_score(dag, forest, 1)
    with pytest.raises(ValueError, match="coefficients"):
        TreeDag.from_forest(forest, [1.0, 2.0])
    with pytest.raises(ValueError, match="unknown tree kernel"):
        TreeDag("xx")


def test_node_ratio_on_dataset(srl_boundary) -> None:
    data = read_svmlight_tk(srl_boundary / "train.5k.tk")
    dag = TreeDag.from_forest(data.forest, np.ones(len(data.forest)), "sst", normalize=False)
    ratio = dag.n_nodes / data.forest.n_nodes
    print(f"train.5k.tk: {dag.n_nodes} DAG nodes for {data.forest.n_nodes} tree nodes "
          f"(ratio {ratio:.4f})")
    assert dag.n_tree_nodes == data.forest.n_nodes
    assert ratio < 0.6
