"""The explicit polynomial mapping of real-valued rows, and its decision function.

Chang, Hsieh, Chang, Ringgaard & Lin 2010, "Training and testing low-degree polynomial data
mappings via linear SVM", JMLR 11, equation (8), for real x (no x_i^2 = x_i to fold):

    (gamma x.y + coef0)^2 => phi(x) = [coef0, sqrt(2 gamma coef0) x_i, gamma x_i^2,
                                       sqrt(2) gamma x_i x_j (i < j)]
    (gamma x.y + coef0)   => phi(x) = [sqrt(coef0), sqrt(gamma) x_i]

The monomials of a row are its linear terms x_f, its squares x_f^2 and its pairs x_a x_b,
keyed as the condensed index keys them ((a << 32) | b, a <= b: a single when a == b). A model
keeps effective weights v = s w (s: the coordinate's scale): the single slot holds
v_linear + v_square, what a binary row (x_f = x_f^2 = 1) adds, so its compiled binary scorer
stays exact, and `square` holds v_square, so a real row adds (single - square) x_f +
square x_f^2 + pair x_a x_b.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from polyparse.features.key_index import KeyIndex
from polyparse.features.real_matrix import RealMatrix

LINEAR, SQUARE, PAIR = 0, 1, 2


@dataclass
class Monomials:
    """Every monomial of every row: its row, kind (LINEAR, SQUARE, PAIR), key and value."""

    row: np.ndarray
    kind: np.ndarray
    key: np.ndarray
    value: np.ndarray


def monomials(X: RealMatrix, degree: int) -> Monomials:
    """The monomials of X's rows up to degree (1 or 2), row by row."""
    ids = X.indices.astype(np.uint64)
    lengths = np.diff(X.indptr)
    row_of = np.repeat(np.arange(len(X), dtype=np.int64), lengths)
    single = (ids << np.uint64(32)) | ids
    parts = [(row_of, np.full(ids.size, LINEAR, np.int8), single, X.values)]
    if degree == 2:
        parts.append((row_of, np.full(ids.size, SQUARE, np.int8), single, X.values * X.values))
        # Each entry pairs with the entries after it in its row.
        offset = np.arange(ids.size, dtype=np.int64) - np.repeat(X.indptr[:-1], lengths)
        after = lengths[row_of] - offset - 1
        first = np.repeat(np.arange(ids.size, dtype=np.int64), after)
        start = np.cumsum(after) - after
        second = first + 1 + np.arange(first.size, dtype=np.int64) - np.repeat(start, after)
        parts.append((row_of[first], np.full(first.size, PAIR, np.int8),
                      (ids[first] << np.uint64(32)) | ids[second],
                      X.values[first] * X.values[second]))
    row, kind, key, value = (np.concatenate(arrays) for arrays in zip(*parts))
    order = np.argsort(row, kind="stable")
    return Monomials(row[order], kind[order], key[order], value[order])


def monomial_scales(degree: int, gamma: float, coef0: float) -> tuple[float, np.ndarray]:
    """The scale of phi's constant coordinate, and of its LINEAR, SQUARE and PAIR ones."""
    if degree == 1:
        return float(np.sqrt(coef0)), np.array([np.sqrt(gamma), 0.0, 0.0])
    return coef0, np.array([np.sqrt(2 * gamma * coef0), gamma, np.sqrt(2) * gamma])


def real_decision_function(X: RealMatrix, degree: int, index: KeyIndex, weights: np.ndarray,
                           square: np.ndarray | None, intercept: np.ndarray) -> np.ndarray:
    """intercept + sum of the effective weights times X's monomials (module notes): index
    numbers the model's dimensions by key, weights (D, K) holds their single/pair slots,
    square (D, K) the squares' part of the single slots (None: degree 1)."""
    terms = monomials(X, degree)
    dims = index.lookup(terms.key)
    found = dims >= 0
    dim = dims[found]
    kind, value, row = terms.kind[found], terms.value[found], terms.row[found]
    weights = weights.astype(np.float64)
    out = np.tile(intercept.astype(np.float64), (len(X), 1))
    for k in range(weights.shape[1]):
        coefficient = weights[dim, k].copy()
        if square is not None:
            part = square[dim, k].astype(np.float64)
            coefficient = np.where(kind == LINEAR, coefficient - part,
                                   np.where(kind == SQUARE, part, coefficient))
        else:
            coefficient[kind == SQUARE] = 0.0
        out[:, k] += np.bincount(row, weights=coefficient * value, minlength=len(X))
    return out
