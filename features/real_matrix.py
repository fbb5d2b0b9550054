"""RealMatrix: rows of sparse real-valued feature vectors in CSR form, for the backends whose
mathematics takes real values (kernel-svm's SMO and naive kernel sum, linear, poly2-linear, as
libsvm, liblinear and LIBLINEAR-POLY2 take them).

`indptr` (int64), `indices` (int32, sorted and unique per row) and `values` (float64, finite and
nonzero, one per index): a BinaryMatrix with a value per stored feature. `pattern` is the
BinaryMatrix of where the values are.

`as_feature_matrix` is how those backends take their input: data whose values are all 0 and 1
becomes a BinaryMatrix by `as_binary_matrix` (today's path, untouched, so binary data keeps its
fast code), anything else a RealMatrix (NaN and infinite values are refused in one line, as is
a cell a sparse matrix stores twice).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from polyparse.features.binary_matrix import (
    BinaryMatrix,
    as_binary_matrix,
    check_dtype,
    check_shape,
    sorted_cells,
)


class RealMatrix:
    """CSR matrix of real values: row i holds values[indptr[i]:indptr[i+1]] at the feature ids
    indices[indptr[i]:indptr[i+1]]."""

    __slots__ = ("pattern", "values")

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, values: np.ndarray,
                 n_features: int | None = None, validate: bool = True) -> None:
        self.pattern = BinaryMatrix(indptr, indices, n_features, validate=validate)
        self.values = np.ascontiguousarray(values, dtype=np.float64)
        if validate:
            if self.values.shape != self.pattern.indices.shape:
                raise ValueError("values must hold one number per stored feature")
            if not np.isfinite(self.values).all():
                raise ValueError("feature values must be finite")

    @property
    def indptr(self) -> np.ndarray:
        return self.pattern.indptr

    @property
    def indices(self) -> np.ndarray:
        return self.pattern.indices

    @property
    def n_features(self) -> int:
        return self.pattern.n_features

    def __len__(self) -> int:
        return len(self.pattern)

    @property
    def shape(self) -> tuple[int, int]:
        return self.pattern.shape

    @property
    def nnz(self) -> int:
        return self.pattern.nnz

    def row(self, i: int) -> np.ndarray:
        """The ids of row i (a view)."""
        return self.pattern.row(i)

    def row_values(self, i: int) -> np.ndarray:
        """The values of row i (a view), in the order of row(i)."""
        return self.values[self.indptr[i] : self.indptr[i + 1]]

    def take(self, rows: np.ndarray | Sequence[int]) -> "RealMatrix":
        """The rows at the given positions (any order, repeats allowed) as a new matrix."""
        rows = np.asarray(rows, dtype=np.int64).ravel()
        positions = BinaryMatrix(self.indptr, np.arange(self.nnz, dtype=np.int32),
                                 max(self.nnz, 1), validate=False).take(rows)
        taken = self.pattern.take(rows)
        return RealMatrix(taken.indptr, taken.indices, self.values[positions.indices],
                          self.n_features, validate=False)

    def first_non_binary(self) -> tuple[int, int, float] | None:
        """(row, column, value) of the first value other than 1, or None."""
        odd = np.flatnonzero(self.values != 1.0)
        if odd.size == 0:
            return None
        k = int(odd[0])
        row = int(np.searchsorted(self.indptr, k, side="right")) - 1
        return row, int(self.indices[k]), float(self.values[k])

    def to_dense(self) -> np.ndarray:
        """Dense (n_rows, n_features) float64 array (for tests and small data)."""
        dense = np.zeros(self.shape)
        rows = np.repeat(np.arange(len(self)), self.pattern.row_lengths())
        dense[rows, self.indices] = self.values
        return dense

    def __repr__(self) -> str:
        return f"RealMatrix(n_rows={len(self)}, n_features={self.n_features}, nnz={self.nnz})"


FeatureMatrix = BinaryMatrix | RealMatrix


def as_feature_matrix(X: Any, name: str = "X") -> FeatureMatrix:
    """X as a BinaryMatrix when its values are 0 and 1 (as_binary_matrix), else as a RealMatrix:
    X is a BinaryMatrix, a RealMatrix, a 2-D NumPy array or a scipy sparse matrix. TypeError for
    anything else, ValueError (one line) for a NaN or infinite value or a cell stored twice."""
    if isinstance(X, BinaryMatrix):
        return X
    if isinstance(X, RealMatrix):
        return X.pattern if X.first_non_binary() is None else X
    if hasattr(X, "tocsr"):
        rows, columns, values = _sparse_cells(X, name)
        shape = check_shape(X.shape, name)
    elif isinstance(X, np.ndarray):
        shape = check_shape(X.shape, name)
        check_dtype(X.dtype, name)
        rows, columns = np.nonzero(X)
        values = X[rows, columns]
    else:
        return as_binary_matrix(X, name)
    values = np.asarray(values, dtype=np.float64)
    if not np.isfinite(values).all():
        k = int(np.argmax(~np.isfinite(values)))
        raise ValueError(f"{name}: row {rows[k]}, column {columns[k]} holds {float(values[k])!r}; "
                         "feature values must be finite")
    present = values != 0
    if np.all(values[present] == 1.0):
        return as_binary_matrix(X, name)
    indptr = np.zeros(shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[present], minlength=shape[0]), out=indptr[1:])
    return RealMatrix(indptr, columns[present].astype(np.int32), values[present], shape[1],
                      validate=False)


def _sparse_cells(X: Any, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, columns, values) of a scipy sparse matrix's stored cells in row-major order;
    ValueError for a cell stored twice."""
    coo = X.tocoo() if hasattr(X, "tocoo") else X.tocsr().tocoo()
    check_dtype(np.asarray(coo.data).dtype, name)
    return sorted_cells(np.asarray(coo.row, dtype=np.int64), np.asarray(coo.col, dtype=np.int64),
                        np.asarray(coo.data), name)
