# cython: language_level=3
"""BinaryScorer: the base class of compiled scorers over sparse binary feature vectors.

A parser's Cython loop calls `scorer.scores(feats, n, out)` directly; Python code calls
`decision_function(X)` on a BinaryMatrix (or what features.binary_matrix.as_binary_matrix turns
into one: a 2-D 0/1 NumPy array, a scipy sparse matrix), which loops over the rows without the
GIL and checks for signals every few thousand rows (features/signal_checks.pyx).
"""
from libc.stdint cimport int32_t, int64_t

import numpy as np

from polyparse.features.binary_matrix import as_binary_matrix
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps, long_input_ends, long_input_starts


cdef class BinaryScorer:
    def __init__(self, int n_outputs=1):
        if n_outputs < 1:
            raise ValueError("a scorer has at least one output")
        self.n_outputs = n_outputs

    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil:
        cdef int k
        for k in range(self.n_outputs):
            out[k] = 0.0

    cdef int64_t steps_per_row(self) noexcept:
        return 1

    def __reduce__(self):
        raise TypeError(f"a compiled {type(self).__name__} does not pickle; pickle the "
                        "classifier it belongs to, which pickles through its model bytes")

    def decision_function(self, X) -> np.ndarray:
        """Decision values of every row of a BinaryMatrix, shape (n_rows, n_outputs)."""
        cdef BinaryRows rows = BinaryRows(X)
        cdef Py_ssize_t n_rows = rows.n_rows, i
        cdef int64_t steps_left = CHECK_STEPS, row_steps = self.steps_per_row()
        out = np.zeros((max(n_rows, 0), self.n_outputs), dtype=np.float64)
        if n_rows <= 0:
            return out
        cdef double[:, ::1] values = out
        with nogil:
            long_input_starts(n_rows)
            for i in range(n_rows):
                count_steps(&steps_left, row_steps)
                self.scores(rows.row(i), rows.length(i), &values[i, 0])
            long_input_ends(n_rows)
        return out


cdef class BinaryRows:
    def __init__(self, X):
        X = as_binary_matrix(X)
        self.indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
        self.indices = np.ascontiguousarray(X.indices, dtype=np.int32)
        self.n_rows = self.indptr.shape[0] - 1
        self.empty = 0
        self.base = &self.indices[0] if self.indices.shape[0] else &self.empty
