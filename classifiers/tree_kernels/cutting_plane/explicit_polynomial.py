"""The vector part of the cutting-plane kernel as explicit weights (degree 1 or 2).

The normalised polynomial P_n(x, z) = (s x.z + r)^d / sqrt(P(x, x) P(z, z)) on binary vectors
maps exactly to a finite space (Chang et al. 2010, section 3; poly2_table.pyx has the algebra):
    (s x.z + r)^2 = r^2 + (2 r s + s^2) sum_f x_f z_f + 2 s^2 sum_{f<g} x_f x_g z_f z_g,
and (s x.z + r) = r + s sum_f x_f z_f for d = 1. Each vector is the set of its keys (the
constant, its ids, its id pairs), every key interned once as a slot with its constant c (r^d,
2 r s + s^2 or s, 2 s^2). A cut's vector part is the slot weights
    T_j[k] = c_k sum_{m in cut j} coef_m / sqrt(P(v_m, v_m)) [k in v_m],
so that the margin part of x is sum_{k in x} W[k] / sqrt(P(x, x)) with W = sum_j alpha_j T_j,
and g_i . g_j (vector part) = sum_k T_i[k] T_j[k] / c_k. The three cutting-plane algorithms
share this part; they differ in the tree part.
"""
from __future__ import annotations

import numpy as np

from polyparse.features.binary_matrix import BinaryMatrix


class ExplicitPolynomial:
    """The slots of every row of vectors for P_n of degree 1 or 2 (see the module notes)."""

    def __init__(self, vectors: BinaryMatrix, degree: int = 2, s: float = 1.0,
                 r: float = 1.0) -> None:
        if degree not in (1, 2):
            raise ValueError(f"the explicit polynomial holds degree 1 or 2, not {degree}")
        lengths = vectors.row_lengths().astype(np.int64)
        norms = (s * lengths + r) ** degree
        norms[norms == 0] = 1.0
        self.inv_norm = 1.0 / np.sqrt(norms)
        keys, self.ptr = _row_keys(vectors, degree)
        distinct, slots = np.unique(keys, return_inverse=True)
        self.slots = slots.reshape(-1).astype(np.int64)
        single = s if degree == 1 else 2 * r * s + s * s
        self.constant = np.where(distinct < 0, r ** degree,
                                 np.where(distinct < (1 << 32), single, 2 * s * s))
        self.n_slots = int(distinct.size)

    def cut_weights(self, rows: np.ndarray, coef: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """T_j as (slots ascending, weights) for the cut sum_m coef[m] phi(v_rows[m])."""
        lengths = self.ptr[rows + 1] - self.ptr[rows]
        positions = np.repeat(self.ptr[rows], lengths) + (
            np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths))
        slots = self.slots[positions]
        values = np.repeat(coef * self.inv_norm[rows], lengths)
        distinct, inverse = np.unique(slots, return_inverse=True)
        summed = np.bincount(inverse.reshape(-1), weights=values, minlength=distinct.size)
        return distinct, summed * self.constant[distinct]

    def per_unit(self, slots: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """T_j[k] / c_k for a cut's (slots, weights), 0 where c_k = 0 (r = 0's constant): the
        other side of g_i . g_j = sum_k T_i[k] T_j[k] / c_k."""
        constant = self.constant[slots]
        out = np.zeros(weights.size)
        np.divide(weights, constant, out=out, where=constant != 0.0)
        return out

    def scores(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """sum_{k in v_x} weights[k] / sqrt(P(x, x)) for x in rows (weights over all slots)."""
        lengths = self.ptr[rows + 1] - self.ptr[rows]
        positions = np.repeat(self.ptr[rows], lengths) + (
            np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths))
        owner = np.repeat(np.arange(rows.size), lengths)
        sums = np.bincount(owner, weights=weights[self.slots[positions]], minlength=rows.size)
        return sums * self.inv_norm[rows]


def _row_keys(vectors: BinaryMatrix, degree: int) -> tuple[np.ndarray, np.ndarray]:
    # Keys of each row, rows in order: -1 (the constant), each id f, and for degree 2 each pair
    # f < g as (f + 1) << 32 | g; rows of one length are expanded together.
    lengths = vectors.row_lengths().astype(np.int64)
    counts = 1 + lengths + (lengths * (lengths - 1) // 2 if degree == 2 else 0)
    ptr = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    keys = np.empty(int(ptr[-1]), dtype=np.int64)
    keys[ptr[:-1]] = -1
    indptr = vectors.indptr.astype(np.int64)
    indices = vectors.indices.astype(np.int64)
    for length in np.unique(lengths).tolist():
        if length == 0:
            continue
        rows = np.flatnonzero(lengths == length)
        ids = indices[indptr[rows][:, None] + np.arange(length)]
        parts = [ids]
        if degree == 2 and length > 1:
            first, second = np.triu_indices(length, 1)
            parts.append(((ids[:, first] + 1) << 32) | ids[:, second])
        row_keys = np.concatenate(parts, axis=1)
        keys[ptr[rows][:, None] + 1 + np.arange(row_keys.shape[1])] = row_keys
    return keys, ptr
