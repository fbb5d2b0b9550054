"""BinaryMatrix: rows of sparse binary feature vectors in CSR form (values implicitly 1).

`indptr` (int64, length n_rows + 1) delimits each row's slice of `indices` (int32); the ids of a
row are sorted and unique. This is the one exchange format between feature extraction, the
svmlight reader/writer and every binary-feature classifier.

`as_binary_matrix` is how every entry point that takes a BinaryMatrix also takes a 2-D NumPy
array or a scipy sparse matrix (recognised by its `tocsr` method; scipy is never imported
here), with one rule for the values: 1 (or True) is a feature that is present, 0 one that is
absent (an explicit zero of a sparse matrix is dropped), and anything else is refused in one
line naming its row, column and value, as is a cell a sparse matrix stores twice (which scipy
would add up). Nothing is silently changed.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

MAX_COLUMNS = int(np.iinfo(np.int32).max) + 1


class BinaryMatrix:
    """CSR matrix of 0/1 values: row i holds the feature ids indices[indptr[i]:indptr[i+1]]."""

    __slots__ = ("indptr", "indices", "n_features")

    def __init__(
        self,
        indptr: np.ndarray,
        indices: np.ndarray,
        n_features: int | None = None,
        validate: bool = True,
    ) -> None:
        self.indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        self.indices = np.ascontiguousarray(indices, dtype=np.int32)
        if n_features is None:
            n_features = int(self.indices.max()) + 1 if self.indices.size else 0
        self.n_features = int(n_features)
        if validate:
            self.validate()

    @classmethod
    def from_rows(
        cls, rows: Sequence[Sequence[int] | np.ndarray], n_features: int | None = None
    ) -> "BinaryMatrix":
        """Matrix whose row i holds the ids rows[i] (each sorted and unique)."""
        lengths = np.fromiter((len(row) for row in rows), dtype=np.int64, count=len(rows))
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        if len(rows) and indptr[-1]:
            indices = np.concatenate([np.asarray(row, dtype=np.int64) for row in rows])
        else:
            indices = np.zeros(0, dtype=np.int64)
        if indices.size and (indices.min() < 0 or indices.max() > np.iinfo(np.int32).max):
            raise ValueError("feature ids must lie in 0 .. 2**31-1")
        return cls(indptr, indices.astype(np.int32), n_features)

    def validate(self) -> None:
        """Raise ValueError unless indptr delimits rows and each row is sorted, unique, in range."""
        indptr, indices = self.indptr, self.indices
        if indptr.ndim != 1 or indptr.size == 0 or indptr[0] != 0 or indptr[-1] != indices.size:
            raise ValueError("indptr must start at 0 and end at len(indices)")
        if indices.ndim != 1:
            raise ValueError("indices must be one-dimensional")
        if np.any(np.diff(indptr) < 0):
            raise ValueError("indptr must be non-decreasing")
        if indices.size == 0:
            return
        if indices.min() < 0 or indices.max() >= self.n_features:
            raise ValueError(f"feature ids must lie in 0 .. n_features-1 = {self.n_features - 1}")
        steps = np.diff(indices) > 0
        starts = indptr[1:-1]
        starts = starts[(starts > 0) & (starts < indices.size)]
        steps[starts - 1] = True
        if not steps.all():
            position = int(np.argmin(steps)) + 1
            row = int(np.searchsorted(indptr, position, side="right")) - 1
            raise ValueError(f"row {row}: feature ids must be sorted and unique")

    def __len__(self) -> int:
        return int(self.indptr.size - 1)

    @property
    def n_rows(self) -> int:
        return len(self)

    @property
    def nnz(self) -> int:
        """Number of stored ones."""
        return int(self.indices.size)

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self), self.n_features)

    def row(self, i: int) -> np.ndarray:
        """The ids of row i (a view)."""
        return self.indices[self.indptr[i] : self.indptr[i + 1]]

    def row_lengths(self) -> np.ndarray:
        return np.diff(self.indptr)

    def take(self, rows: np.ndarray | Sequence[int]) -> "BinaryMatrix":
        """The rows at the given positions (any order, repeats allowed) as a new matrix."""
        rows = np.asarray(rows, dtype=np.int64).ravel()
        if rows.size and (rows.min() < -len(self) or rows.max() >= len(self)):
            raise IndexError("row index out of range")
        rows = np.where(rows < 0, rows + len(self), rows)
        starts = self.indptr[rows]
        lengths = self.indptr[rows + 1] - starts
        indptr = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        # Source position of each output element: its row's start plus its offset in the row.
        offsets = np.arange(indptr[-1], dtype=np.int64) - np.repeat(indptr[:-1], lengths)
        source = np.repeat(starts, lengths) + offsets
        return BinaryMatrix(indptr, self.indices[source], self.n_features, validate=False)

    def to_dense(self, dtype: np.dtype | type = np.uint8) -> np.ndarray:
        """Dense (n_rows, n_features) array of zeros and ones (for tests and small data)."""
        dense = np.zeros(self.shape, dtype=dtype)
        rows = np.repeat(np.arange(len(self)), self.row_lengths())
        dense[rows, self.indices] = 1
        return dense

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BinaryMatrix):
            return NotImplemented
        return (
            self.n_features == other.n_features
            and np.array_equal(self.indptr, other.indptr)
            and np.array_equal(self.indices, other.indices)
        )

    def __repr__(self) -> str:
        return f"BinaryMatrix(n_rows={len(self)}, n_features={self.n_features}, nnz={self.nnz})"


# What as_binary_matrix takes: a BinaryMatrix, a 2-D NumPy array or a scipy sparse matrix (Any:
# scipy is not a dependency, so its types cannot be named here).
BinaryMatrixLike = BinaryMatrix | np.ndarray | Any


def as_binary_matrix(X: BinaryMatrixLike, name: str = "X") -> BinaryMatrix:
    """X as a BinaryMatrix: a BinaryMatrix as it is, a 2-D NumPy array or a scipy sparse matrix
    (any format) by the rule of the module notes; `name` names X in the one-line errors.

    TypeError for anything else (a list of rows: BinaryMatrix.from_rows), ValueError for a
    value other than 0 and 1, a cell stored twice, or a shape that is not (rows, columns).
    """
    if isinstance(X, BinaryMatrix):
        return X
    if hasattr(X, "tocsr"):
        return _from_sparse(X, name)
    if isinstance(X, np.ndarray):
        return _from_dense(X, name)
    if hasattr(X, "first_non_binary"):
        # A features.real_matrix.RealMatrix: binary when its values are all 1.
        odd = X.first_non_binary()
        if odd is not None:
            raise _not_binary(name, *odd)
        return X.pattern
    raise TypeError(
        f"{name} must be a BinaryMatrix, a 2-D NumPy array of 0/1 or a scipy sparse matrix, "
        f"not {type(X).__name__} (BinaryMatrix.from_rows builds one from lists of feature ids)"
    )


def optional_binary_matrix(X: BinaryMatrixLike | None,
                           name: str = "vectors") -> BinaryMatrix | None:
    """as_binary_matrix(X, name), or None for None (the vectors a tree kernel may go without)."""
    return None if X is None else as_binary_matrix(X, name)


def check_shape(shape: tuple[int, ...], name: str) -> tuple[int, int]:
    if len(shape) != 2:
        raise ValueError(f"{name} must be 2-D (rows, features), not of shape {tuple(shape)}")
    n_rows, n_columns = (int(size) for size in shape)
    if n_columns > MAX_COLUMNS:
        raise ValueError(f"{name} has {n_columns} columns; feature ids end at {MAX_COLUMNS - 1}")
    return n_rows, n_columns


def check_dtype(dtype: np.dtype, name: str) -> None:
    if dtype.kind not in "biuf":
        raise ValueError(f"{name} holds {dtype} values; binary features are 0/1 numbers or "
                         "booleans")


class NotBinaryError(ValueError):
    """A value other than 0 and 1 where binary features are expected (row, column, value)."""

    def __init__(self, name: str, row: int, column: int, value: Any) -> None:
        super().__init__(f"{name}: row {row}, column {column} holds {value!r}; a binary feature "
                         "is 1 (present) or 0 (absent)")
        self.row, self.column, self.value = row, column, value


def _not_binary(name: str, row: int, column: int, value: Any) -> NotBinaryError:
    return NotBinaryError(name, row, column, value)


def _from_dense(X: np.ndarray, name: str) -> BinaryMatrix:
    X = np.asarray(X)
    n_rows, n_columns = check_shape(X.shape, name)
    check_dtype(X.dtype, name)
    present = X != 0
    odd = present & (X != 1)
    if odd.any():
        row, column = np.unravel_index(int(np.argmax(odd)), X.shape)
        raise _not_binary(name, int(row), int(column), X[row, column].item())
    rows, columns = np.nonzero(present)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
    return BinaryMatrix(indptr, columns.astype(np.int32), n_columns, validate=False)


def _from_sparse(X: Any, name: str) -> BinaryMatrix:
    n_rows, n_columns = check_shape(X.shape, name)
    # COO keeps every stored cell, explicit zeros and duplicates included (tocsr would add up
    # the duplicates of a COO matrix).
    coo = X.tocoo() if hasattr(X, "tocoo") else X.tocsr().tocoo()
    values = np.asarray(coo.data)
    check_dtype(values.dtype, name)
    rows, columns, values = sorted_cells(np.asarray(coo.row, dtype=np.int64),
                                         np.asarray(coo.col, dtype=np.int64), values, name)
    odd = (values != 0) & (values != 1)
    if odd.any():
        k = int(np.argmax(odd))
        raise _not_binary(name, int(rows[k]), int(columns[k]), values[k].item())
    present = values != 0
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[present], minlength=n_rows), out=indptr[1:])
    return BinaryMatrix(indptr, columns[present].astype(np.int32), n_columns, validate=False)


def sorted_cells(rows: np.ndarray, columns: np.ndarray, values: np.ndarray,
                 name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A sparse matrix's stored cells in row-major order; ValueError for a cell stored twice
    (scipy would add the values up)."""
    later = (rows[1:] > rows[:-1]) | ((rows[1:] == rows[:-1]) & (columns[1:] > columns[:-1]))
    if not later.all():
        order = np.lexsort((columns, rows))
        rows, columns, values = rows[order], columns[order], values[order]
        twice = (rows[1:] == rows[:-1]) & (columns[1:] == columns[:-1])
        if twice.any():
            k = int(np.argmax(twice))
            raise ValueError(f"{name}: row {rows[k]}, column {columns[k]} is stored twice (scipy "
                             "would add the values up); a feature is stored once")
    return rows, columns, values
