"""Tree + polynomial kernel combinations against their formulas."""
from __future__ import annotations

import math

import numpy as np
import pytest

from polyparse.classifiers.tree_kernels.combination import (
    convex_combination,
    polynomial_gram,
    svmlight_tk_sum,
)
from polyparse.classifiers.tree_kernels.kernels import gram_matrix, tree_kernel
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.trees import TreeForest

TREES = ["(NP (DT a) (NN dog))", "(NP (DT a) (NN cat))", "(S (NP (NN x)) (VP (VB y)))"]
ROWS = [[1, 2, 7], [2, 7], []]


def test_svmlight_tk_sum_is_normalised_poly_plus_t_times_normalised_tree() -> None:
    forest = TreeForest.from_brackets(TREES)
    X = BinaryMatrix.from_rows(ROWS)
    combined = svmlight_tk_sum(gram_matrix(forest, forest, "sst", 0.4),
                               polynomial_gram(X, X, degree=2), tree_constant=0.5)
    for a in range(3):
        for b in range(3):
            dot = len(set(ROWS[a]) & set(ROWS[b]))
            poly = (dot + 1) ** 2 / math.sqrt((len(ROWS[a]) + 1) ** 2 * (len(ROWS[b]) + 1) ** 2)
            tk = tree_kernel(forest, a, forest, b, "sst", 0.4) / math.sqrt(
                tree_kernel(forest, a, forest, a, "sst", 0.4)
                * tree_kernel(forest, b, forest, b, "sst", 0.4))
            assert combined[a, b] == pytest.approx(poly + 0.5 * tk, rel=1e-12)


def test_convex_combination() -> None:
    forest = TreeForest.from_brackets(TREES)
    X = BinaryMatrix.from_rows(ROWS)
    tk, poly = gram_matrix(forest, forest, "pt"), polynomial_gram(X, X, degree=3, s=2, r=0.5)
    assert np.allclose(convex_combination(tk, poly, 0.3), 0.3 * tk + 0.7 * poly)
    raw = polynomial_gram(X, X, degree=3, s=2, r=0.5, normalize=False)
    assert raw[0, 1] == pytest.approx((2 * 2 + 0.5) ** 3)
    with pytest.raises(ValueError):
        convex_combination(tk, poly, 1.5)
