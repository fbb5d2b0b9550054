# cython: language_level=3
"""The naive kernel sum, compiled: every support vector's kernel with x, as libsvm predicts.

    value_k(x) = intercept_k + sum_i a_ki (gamma |s_i & x| + coef0)^d

with |s_i & x| counted by merging the two sorted id lists. This is the baseline the fast
evaluators (PKI, PKE, split-svm) are measured against; its cost grows with the number of
support vectors times the row lengths.
"""
from libc.stdint cimport int32_t, int64_t

from typing import Any

import numpy as np

from polyparse.classifiers.evaluators.kernel_sum cimport powi, shared_count
from polyparse.classifiers.evaluators.scorer_arrays import part_bytes
from polyparse.classifiers.scorer cimport BinaryScorer


def kernel_table(int max_count, int degree, double gamma, double coef0):
    """(gamma c + coef0)^degree for c = 0 .. max_count, computed as libsvm does (powi)."""
    table = np.empty(max_count + 1, dtype=np.float64)
    cdef double[::1] view = table
    cdef int c
    for c in range(max_count + 1):
        view[c] = powi(gamma * c + coef0, degree)
    return table


cdef class KernelSumScorer(BinaryScorer):
    cdef readonly dict arrays
    cdef readonly int n_support_vectors
    cdef const int64_t* sv_indptr
    cdef const int32_t* sv_indices
    cdef const double* coef_by_sv
    cdef const double* intercepts
    cdef const double* kernel

    def __init__(self, expansion):
        """Keep a KernelExpansion's support vectors and the kernel of every possible count."""
        sv = expansion.support_vectors
        longest = int(sv.row_lengths().max()) if len(sv) else 0
        self.arrays = {
            "sv_indptr": sv.indptr,
            "sv_indices": sv.indices,
            "coef_by_sv": np.ascontiguousarray(expansion.coefficients.T),
            "intercepts": expansion.intercepts,
            "kernel": expansion.kernel_of_count(np.arange(longest + 1)),
        }
        self.n_outputs = expansion.n_outputs
        self.n_support_vectors = len(sv)
        self.sv_indptr = <const int64_t*><size_t>sv.indptr.ctypes.data
        self.sv_indices = <const int32_t*><size_t>sv.indices.ctypes.data
        self.coef_by_sv = <const double*><size_t>self.arrays["coef_by_sv"].ctypes.data
        self.intercepts = <const double*><size_t>expansion.intercepts.ctypes.data
        self.kernel = <const double*><size_t>self.arrays["kernel"].ctypes.data

    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil:
        cdef int n_outputs = self.n_outputs
        cdef int i, k
        cdef int64_t start
        cdef double value
        cdef const double* coef
        for k in range(n_outputs):
            out[k] = self.intercepts[k]
        for i in range(self.n_support_vectors):
            start = self.sv_indptr[i]
            value = self.kernel[
                shared_count(self.sv_indices + start, <int>(self.sv_indptr[i + 1] - start), feats, n)
            ]
            coef = self.coef_by_sv + <int64_t>i * n_outputs
            for k in range(n_outputs):
                out[k] += coef[k] * value

    cdef int64_t steps_per_row(self) noexcept:
        # A row merges with every support vector: about a microsecond per thousand ids.
        return 1 + (self.sv_indptr[self.n_support_vectors] >> 10)

    def memory_report(self) -> dict[str, int]:
        """Bytes of each part: support vectors, coefficients, tables."""
        return part_bytes(self.arrays, {"support_vectors": ("sv_indptr", "sv_indices"),
                                        "coefficients": ("coef_by_sv",),
                                        "tables": ("intercepts", "kernel")})

    def memory_bytes(self) -> int:
        return sum(self.memory_report().values())
