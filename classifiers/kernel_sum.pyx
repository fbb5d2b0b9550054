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

from classifiers.scorer cimport BinaryScorer


cdef inline int _shared(
    const int32_t* a, int64_t n_a, const int32_t* b, int n_b
) noexcept nogil:
    # Number of ids two ascending lists share.
    cdef int64_t i = 0
    cdef int j = 0, count = 0
    while i < n_a and j < n_b:
        if a[i] < b[j]:
            i += 1
        elif a[i] > b[j]:
            j += 1
        else:
            count += 1
            i += 1
            j += 1
    return count


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
                _shared(self.sv_indices + start, self.sv_indptr[i + 1] - start, feats, n)
            ]
            coef = self.coef_by_sv + <int64_t>i * n_outputs
            for k in range(n_outputs):
                out[k] += coef[k] * value

    def memory_report(self) -> dict[str, int]:
        """Bytes of each part: support vectors, coefficients, tables."""
        a = self.arrays
        return {
            "support_vectors": a["sv_indptr"].nbytes + a["sv_indices"].nbytes,
            "coefficients": a["coef_by_sv"].nbytes,
            "tables": a["intercepts"].nbytes + a["kernel"].nbytes,
        }

    def memory_bytes(self) -> int:
        return sum(self.memory_report().values())
