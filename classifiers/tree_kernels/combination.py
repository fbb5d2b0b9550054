"""Tree kernels combined with a polynomial kernel on the instance's binary feature vector.

SVM-light-TK 1.5 (`svm_learn -t 5 -C + -S 1 -d D`, tree_kernel.c `advanced_kernels`, defaults
-T 1, -N 3, -s 1, -r 1; -F 1 selects the SST kernel, -F 0 ST, -F 3 PT, not a normalisation):
    K(a, b) = P(x_a, x_b) / sqrt(P(x_a, x_a) P(x_b, x_b)) + T * TK(a, b) / sqrt(TK(a, a) TK(b, b)),
    P(x, z) = (s x.z + r)^D,
each part normalised because -N 3 normalises trees and vectors (an empty tree or vector gives
0, a zero self-kernel is replaced by 1).

Convex combination of the mapping-kernels experiments (normalised parts, 0 <= gamma <= 1):
    K(a, b) = gamma * TK_n(a, b) + (1 - gamma) * P_n(x_a, x_b).
"""
from __future__ import annotations

import numpy as np

from polyparse.features.binary_matrix import BinaryMatrixLike, as_binary_matrix


def dot_products(X: BinaryMatrixLike, Z: BinaryMatrixLike) -> np.ndarray:
    """x.z for every row x of X and z of Z (binary rows: the number of shared ids; each a
    BinaryMatrix or what features.binary_matrix.as_binary_matrix takes)."""
    X, Z = as_binary_matrix(X, "X"), as_binary_matrix(Z, "Z")
    rows_x = [set(X.row(i).tolist()) for i in range(len(X))]
    rows_z = [Z.row(j) for j in range(len(Z))]
    out = np.zeros((len(X), len(Z)), dtype=np.float64)
    for i, x in enumerate(rows_x):
        for j, z in enumerate(rows_z):
            out[i, j] = sum(1 for f in z.tolist() if f in x)
    return out


def polynomial_gram(
    X: BinaryMatrixLike, Z: BinaryMatrixLike, degree: int = 2, s: float = 1.0, r: float = 1.0,
    normalize: bool = True,
) -> np.ndarray:
    """(s x.z + r)^degree, divided by sqrt(P(x, x) P(z, z)) when normalize (SVM-light-TK -N 2/3)."""
    X, Z = as_binary_matrix(X, "X"), as_binary_matrix(Z, "Z")
    gram = (s * dot_products(X, Z) + r) ** degree
    if not normalize:
        return gram
    norm_x = (s * X.row_lengths().astype(np.float64) + r) ** degree
    norm_z = (s * Z.row_lengths().astype(np.float64) + r) ** degree
    norm_x[norm_x == 0] = 1.0
    norm_z[norm_z == 0] = 1.0
    return gram / np.sqrt(np.outer(norm_x, norm_z))


def svmlight_tk_sum(
    tree_gram: np.ndarray, vector_gram: np.ndarray, tree_constant: float = 1.0
) -> np.ndarray:
    """SVM-light-TK's `-C +`: vector kernel + T * tree kernel (both already normalised)."""
    return np.asarray(vector_gram) + tree_constant * np.asarray(tree_gram)


def convex_combination(tree_gram: np.ndarray, vector_gram: np.ndarray, gamma: float) -> np.ndarray:
    """gamma * tree kernel + (1 - gamma) * vector kernel, gamma in [0, 1]."""
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must lie in [0, 1], not {gamma}")
    return gamma * np.asarray(tree_gram) + (1.0 - gamma) * np.asarray(vector_gram)
