"""BinaryMatrix: rows of sparse binary feature vectors in CSR form (values implicitly 1).

`indptr` (int64, length n_rows + 1) delimits each row's slice of `indices` (int32); the ids of a
row are sorted and unique. This is the one exchange format between feature extraction, the
svmlight reader/writer and every binary-feature classifier.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np


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
