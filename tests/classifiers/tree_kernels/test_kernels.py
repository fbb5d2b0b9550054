"""The Cython tree kernels against explicit fragment enumeration and the recursive Delta."""
from __future__ import annotations

import math

import nltk
import numpy as np
import pytest

from polyparse.classifiers.tree_kernels.kernels import (
    gram_matrix,
    kernel_expansion,
    normalized_tree_kernel,
    self_kernels,
    tree_kernel,
)
from polyparse.features.interning import StringInterner
from polyparse.features.svmlight_tk import read_svmlight_tk
from polyparse.features.trees import TreeForest

from .reference import enumerated_kernel, recursive_kernel

KINDS = ("sst", "st", "pt", "et")


def random_tree(rng: np.random.Generator, labels: str = "ABC", words: str = "xy") -> nltk.Tree:
    """A tree of 1-12 nodes: bracketed nodes over `labels`, word leaves over `words`."""
    root = nltk.Tree(str(rng.choice(list(labels))), [])
    inner = [root]
    for _ in range(int(rng.integers(0, 12))):
        parent = inner[int(rng.integers(len(inner)))]
        if rng.random() < 0.35:
            parent.append(str(rng.choice(list(words))))
        else:
            node = nltk.Tree(str(rng.choice(list(labels))), [])
            parent.append(node)
            inner.append(node)
    return root


def random_pairs(n: int, seed: int) -> list[tuple[nltk.Tree, nltk.Tree]]:
    rng = np.random.default_rng(seed)
    return [(random_tree(rng), random_tree(rng)) for _ in range(n)]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("lam,mu", [(1.0, 1.0), (0.4, 0.4), (0.7, 0.3)])
def test_kernel_equals_fragment_enumeration(kind: str, lam: float, mu: float) -> None:
    pairs = random_pairs(150, seed=hash((kind, lam, mu)) % 2**32)
    forest = TreeForest([t for pair in pairs for t in pair])
    for p, (t1, t2) in enumerate(pairs):
        expected = enumerated_kernel(t1, t2, kind, lam, mu)
        got = tree_kernel(forest, 2 * p, forest, 2 * p + 1, kind, lam, mu)
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), (kind, t1, t2)


@pytest.mark.parametrize("kind", KINDS)
def test_symmetric_positive_and_normalised(kind: str) -> None:
    pairs = random_pairs(60, seed=7)
    forest = TreeForest([t for pair in pairs for t in pair])
    gram = gram_matrix(forest, forest, kind, 0.4, 0.4, normalize=False)
    assert np.allclose(gram, gram.T, rtol=1e-12)
    # SST/ST count productions: a lone node "(A)" has none, so K(a, a) = 0 there only.
    has_fragment = forest.production[forest.tree_ptr[:-1]] != 0 if kind in ("sst", "st") else True
    assert np.all((np.diag(gram) > 0) == has_fragment)
    normalised = gram_matrix(forest, forest, kind, 0.4, 0.4)
    assert np.all(normalised >= 0) and np.all(normalised <= 1 + 1e-12)
    assert np.allclose(np.diag(normalised), np.where(has_fragment, 1.0, 0.0))
    assert np.linalg.eigvalsh(normalised).min() > -1e-9
    assert normalized_tree_kernel(forest, 0, forest, 1, kind) == pytest.approx(normalised[0, 1])
    assert np.allclose(self_kernels(forest, kind), np.diag(gram))


def test_forests_with_shared_interners_compare() -> None:
    labels, productions = StringInterner(), StringInterner()
    a = TreeForest.from_brackets(["(NP (DT a) (NN dog))"], labels, productions)
    b = TreeForest.from_brackets(["(S (NP (DT a) (NN cat)))", ""], labels, productions)
    assert tree_kernel(a, 0, b, 0, "sst", 1.0) == 3.0
    assert tree_kernel(a, 0, b, 1, "sst") == 0.0
    assert normalized_tree_kernel(a, 0, b, 1, "pt") == 0.0


def test_kernel_expansion_is_a_weighted_row_of_the_gram_matrix() -> None:
    pairs = random_pairs(20, seed=3)
    forest = TreeForest([t for pair in pairs for t in pair])
    coefficients = np.random.default_rng(0).normal(size=len(forest))
    for normalize in (True, False):
        gram = gram_matrix(forest, forest, "sst", 0.4, 0.4, normalize=normalize)
        got = kernel_expansion(forest, forest, coefficients, "sst", normalize=normalize)
        assert np.allclose(got, gram @ coefficients, rtol=1e-12)


def test_bad_arguments() -> None:
    forest = TreeForest.from_brackets(["(A x)"])
    with pytest.raises(ValueError, match="unknown tree kernel"):
        tree_kernel(forest, 0, forest, 0, "xx")
    with pytest.raises(IndexError):
        tree_kernel(forest, 1, forest, 0)
    with pytest.raises(ValueError, match="lambda"):
        tree_kernel(forest, 0, forest, 0, "sst", 0.0)


@pytest.mark.parametrize("kind", ("sst", "st", "pt"))
def test_dataset_trees_against_recursive_delta(srl_boundary, kind: str) -> None:
    data = read_svmlight_tk(srl_boundary / "train.5k.tk")
    n = 200
    trees = [data.forest.to_nltk(t) for t in range(n)]
    rng = np.random.default_rng(11)
    pairs = [(i, i) for i in range(0, n, 7)] + [tuple(p) for p in rng.integers(0, n, (150, 2))]
    for i, j in pairs:
        expected = recursive_kernel(trees[i], trees[j], kind, 0.4, 0.4)
        got = tree_kernel(data.forest, i, data.forest, j, kind, 0.4, 0.4)
        assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12), (kind, i, j)
