"""The decision function of a polynomial-kernel machine on binary features, and its reference.

    value_k(x) = sum_i coefficients[k, i] * (gamma * |sv_i & x| + coef0)^degree + intercepts[k]

where sv_i is row i of `support_vectors` (a BinaryMatrix) and |sv_i & x| the number of feature
ids the two rows share. This is the exchange format between trainers (libsvm-style SMO, PA-I)
and the exact fast evaluators of this folder (kernel_sum.pyx, pki.pyx, pke.pyx, split_svm.pyx).

Two forms hold such a sum: KernelExpansion keeps the coefficients of every output densely, and
OneVsOneExpansion (one_vs_one_expansion.py) keeps a one-vs-one SVM in libsvm's layout, whose
pair outputs have zero coefficients outside their two classes. Both are SupportVectorExpansions:
they share the kernel, the shared-id counts and `naive_decision_function`, the one plain NumPy
reference that every evaluator must reproduce; `as_kernel_expansion()` gives the dense form.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from polyparse.classifiers.model_file import inconsistent, require_arrays
from polyparse.features.binary_matrix import BinaryMatrix, BinaryMatrixLike, as_binary_matrix

# Bound on the (row, support vector) pairs that naive_decision_function gathers at once.
_GATHER_BUDGET = 1 << 23
# Ids held by at least _DENSE_HOLDERS support vectors (the _DENSE_IDS most held) are counted by a
# dense product instead.
_DENSE_IDS = 2048
_DENSE_HOLDERS = 16


class SupportVectorExpansion:
    """Support vectors and the kernel (gamma |sv & x| + coef0)^degree; the outputs are linear in
    the kernel values, with the coefficients and intercepts that output_terms() gives."""

    support_vectors: BinaryMatrix
    gamma: float
    coef0: float
    degree: int

    def _check_kernel(self) -> None:
        """Check the support vectors and the kernel; store gamma, coef0 as floats, degree as int."""
        if not isinstance(self.support_vectors, BinaryMatrix):
            raise TypeError("support_vectors must be a BinaryMatrix")
        degree = int(self.degree)
        if degree != self.degree or degree < 1:
            raise ValueError(f"degree must be a positive integer, not {self.degree}")
        gamma, coef0 = float(self.gamma), float(self.coef0)
        if not (np.isfinite(gamma) and np.isfinite(coef0)):
            raise ValueError("gamma and coef0 must be finite")
        self.gamma, self.coef0, self.degree = gamma, coef0, degree

    @property
    def n_support_vectors(self) -> int:
        return len(self.support_vectors)

    def output_terms(self) -> tuple[np.ndarray, np.ndarray]:
        """Coefficients (n_outputs, n_sv) and intercepts (n_outputs,) of the outputs."""
        raise NotImplementedError

    def check_binary(self) -> None:
        """ValueError when the support vectors hold real values (sv_values), which only the
        naive evaluator scores."""
        if getattr(self, "sv_values", None) is not None:
            raise ValueError("its support vectors hold real values, which only the naive "
                             "evaluator scores; split, pki and pke expand binary features")

    def as_kernel_expansion(self) -> KernelExpansion:
        """The same outputs as a KernelExpansion (dense coefficients); binary support vectors
        only (check_binary)."""
        self.check_binary()
        coefficients, intercepts = self.output_terms()
        return KernelExpansion(self.support_vectors, coefficients, intercepts, self.gamma,
                               self.coef0, self.degree)

    def kernel_of_count(self, counts: np.ndarray | int) -> np.ndarray:
        """(gamma * c + coef0)^degree for shared-feature counts c."""
        return (self.gamma * np.asarray(counts, dtype=np.float64) + self.coef0) ** self.degree

    def shared_counts(self, X: BinaryMatrixLike) -> np.ndarray:
        """(n_rows, n_sv) int32 matrix of |sv_i & x| for every row x of X (as_binary_matrix)."""
        X = as_binary_matrix(X)
        counts = np.zeros((len(X), self.n_support_vectors), dtype=np.int32)
        for first, last, block in self._count_blocks(X):
            counts[first:last] = block
        return counts

    def kernel_arrays(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """The kernel's header entries and the support vectors' arrays (for to_arrays)."""
        header = {"gamma": self.gamma, "coef0": self.coef0, "degree": self.degree,
                  "n_features": self.support_vectors.n_features}
        arrays = {"sv_indptr": self.support_vectors.indptr,
                  "sv_indices": self.support_vectors.indices}
        return header, arrays

    @staticmethod
    def read_kernel_arrays(
        header: dict[str, Any], arrays: dict[str, np.ndarray], source: str,
        expected: dict[str, tuple[str, tuple[int | None, ...]]],
    ) -> tuple[BinaryMatrix, float, float, int]:
        """(support vectors, gamma, coef0, degree) from kernel_arrays() output, after checking
        that arrays also hold the `expected` ones (require_arrays); ModelFileError otherwise."""
        with inconsistent(source, "kernel header"):
            n_features = int(header["n_features"])
            gamma, coef0 = float(header["gamma"]), float(header["coef0"])
            degree = int(header["degree"])
        require_arrays(source, arrays, {"sv_indptr": ("int64", (None,)),
                                        "sv_indices": ("int32", (None,)), **expected})
        with inconsistent(source, "support vectors"):
            support_vectors = BinaryMatrix(arrays["sv_indptr"], arrays["sv_indices"], n_features)
        return support_vectors, gamma, coef0, degree

    def naive_decision_function(self, X: BinaryMatrixLike) -> np.ndarray:
        """Decision values (n_rows, n_outputs) by the plain kernel sum over all support vectors
        (X: what features.binary_matrix.as_binary_matrix takes)."""
        X = as_binary_matrix(X)
        coefficients, intercepts = self.output_terms()
        out = np.tile(intercepts, (len(X), 1))
        for first, last, block in self._count_blocks(X):
            out[first:last] += self.kernel_of_count(block) @ coefficients.T
        return out

    def _count_blocks(self, X: BinaryMatrix) -> Iterator[tuple[int, int, np.ndarray]]:
        """(first, last, counts of rows first..last-1) over X in blocks of bounded size.

        Ids held by many support vectors are counted by a product of 0/1 float64 matrices
        (exact for integer counts), the others by gathering their posting lists. The ids are
        numbered 0..k-1 by the support vectors' distinct ids (ascending; k for any other id), so
        that every array is sized by k, however large the ids are.
        """
        sv = self.support_vectors
        n_sv = len(sv)
        if n_sv == 0 or sv.nnz == 0:
            for first in range(0, len(X), _GATHER_BUDGET):
                last = min(len(X), first + _GATHER_BUDGET)
                yield first, last, np.zeros((last - first, n_sv), dtype=np.int32)
            return
        feature_ids, sv_numbers, holders = np.unique(sv.indices, return_inverse=True,
                                                     return_counts=True)
        sv_numbers = sv_numbers.reshape(-1)
        n_ids = feature_ids.size
        dense_ids = np.argsort(-holders, kind="stable")[:_DENSE_IDS]
        dense_ids = dense_ids[holders[dense_ids] >= _DENSE_HOLDERS]
        column = np.full(n_ids + 1, -1, dtype=np.int64)
        column[dense_ids] = np.arange(dense_ids.size)
        sv_dense = np.zeros((n_sv, dense_ids.size))
        sv_rows = np.repeat(np.arange(n_sv), sv.row_lengths())
        in_dense = column[sv_numbers] >= 0
        sv_dense[sv_rows[in_dense], column[sv_numbers[in_dense]]] = 1.0
        # Inverted index of the other ids: postings[starts[f]:starts[f + 1]] are the support
        # vectors holding the id numbered f.
        sparse_ids = np.where(in_dense, n_ids, sv_numbers)
        order = np.argsort(sparse_ids, kind="stable")[: int((~in_dense).sum())]
        postings = sv_rows[order]
        starts = np.zeros(n_ids + 2, dtype=np.int64)
        np.cumsum(np.bincount(sparse_ids, minlength=n_ids + 1), out=starts[1:])
        starts[-1] = starts[-2]
        ids = np.minimum(np.searchsorted(feature_ids, X.indices), n_ids - 1)
        ids[feature_ids[ids] != X.indices] = n_ids
        entry_starts = starts[ids]
        entry_sizes = starts[ids + 1] - entry_starts
        entry_columns = column[ids]
        # gathered[r] = number of (entry, support vector) pairs of the rows before row r.
        gathered = np.zeros(X.nnz + 1, dtype=np.int64)
        np.cumsum(entry_sizes, out=gathered[1:])
        gathered = gathered[X.indptr]
        max_rows = max(1, _GATHER_BUDGET // max(n_sv, dense_ids.size, 1))
        first = 0
        while first < len(X):
            last = int(np.searchsorted(gathered, gathered[first] + _GATHER_BUDGET, "right")) - 1
            last = min(len(X), max_rows + first, max(last, first + 1))
            begin, end = X.indptr[first], X.indptr[last]
            rows = np.repeat(np.arange(last - first), np.diff(X.indptr[first : last + 1]))
            x_dense = np.zeros((last - first, dense_ids.size))
            cols = entry_columns[begin:end]
            x_dense[rows[cols >= 0], cols[cols >= 0]] = 1.0
            sizes = entry_sizes[begin:end]
            offsets = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(
                np.cumsum(sizes) - sizes, sizes
            )
            support = postings[np.repeat(entry_starts[begin:end], sizes) + offsets]
            cells = np.repeat(rows, sizes) * n_sv + support
            block = np.bincount(cells, minlength=(last - first) * n_sv).reshape(-1, n_sv)
            block += np.rint(x_dense @ sv_dense.T).astype(np.int64)
            yield first, last, block.astype(np.int32)
            first = last


@dataclass(eq=False)
class KernelExpansion(SupportVectorExpansion):
    """Support vectors, coefficients (n_outputs, n_sv), intercepts (n_outputs,) and the kernel."""

    support_vectors: BinaryMatrix
    coefficients: np.ndarray
    intercepts: np.ndarray
    gamma: float
    coef0: float
    degree: int

    def __post_init__(self) -> None:
        self._check_kernel()
        coefficients = np.array(self.coefficients, dtype=np.float64, order="C", ndmin=2)
        intercepts = np.array(self.intercepts, dtype=np.float64, ndmin=1).ravel()
        n_sv = len(self.support_vectors)
        if coefficients.ndim != 2 or coefficients.shape[1] != n_sv:
            raise ValueError(
                f"coefficients must have shape (n_outputs, {n_sv}), got {coefficients.shape}"
            )
        if coefficients.shape[0] < 1 or intercepts.shape != (coefficients.shape[0],):
            raise ValueError("intercepts must hold one value per output (row of coefficients)")
        if not (np.isfinite(coefficients).all() and np.isfinite(intercepts).all()):
            raise ValueError("coefficients and intercepts must be finite")
        self.coefficients = coefficients
        self.intercepts = intercepts

    @property
    def n_outputs(self) -> int:
        return int(self.coefficients.shape[0])

    def output_terms(self) -> tuple[np.ndarray, np.ndarray]:
        return self.coefficients, self.intercepts

    def as_kernel_expansion(self) -> KernelExpansion:
        return self

    def to_arrays(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Header (JSON-ready) and arrays that from_arrays turns back into this expansion."""
        header, arrays = self.kernel_arrays()
        header["n_outputs"] = self.n_outputs
        arrays.update(coefficients=self.coefficients, intercepts=self.intercepts)
        return header, arrays

    @classmethod
    def from_arrays(
        cls, header: dict[str, Any], arrays: dict[str, np.ndarray], source: str = "model"
    ) -> KernelExpansion:
        """Rebuild an expansion from to_arrays() output; ModelFileError names `source`."""
        with inconsistent(source, "kernel header"):
            n_outputs = int(header["n_outputs"])
        support_vectors, gamma, coef0, degree = cls.read_kernel_arrays(
            header, arrays, source, {"coefficients": ("float64", (n_outputs, None)),
                                     "intercepts": ("float64", (n_outputs,))})
        with inconsistent(source, "kernel expansion"):
            return cls(support_vectors, arrays["coefficients"], arrays["intercepts"], gamma,
                       coef0, degree)
