# The Cython-level contract of every binary-feature backend (docs/design.md, "The classifier
# contract").
cimport cython
from libc.math cimport NAN
from libc.stdint cimport int32_t, int64_t


cdef class BinaryScorer:
    # Number of decision values per example (1 for two classes, K for K >= 3 one-vs-rest).
    cdef readonly int n_outputs

    # Write the n_outputs decision values of the example whose n active feature ids
    # (sorted, unique) are feats[0..n) into out[0..n_outputs). Safe to call from several threads;
    # out of memory, the values are NaN (no_scores).
    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil

    # Signal-check steps (features/signal_checks) that one row of decision_function takes:
    # about one per microsecond of scoring (1 but for the naive kernel sums).
    cdef int64_t steps_per_row(self) noexcept


# What scores writes when it cannot get the memory it needs: NaN for every decision value.
cdef inline void no_scores(double* out, int n_outputs) noexcept nogil:
    cdef int k
    for k in range(n_outputs):
        out[k] = NAN


@cython.final
cdef class BinaryRows:
    # The rows of a BinaryMatrix (or of what features.binary_matrix.as_binary_matrix takes) as
    # compiled loops read them: row i holds the length(i) feature ids at row(i).
    cdef const int64_t[::1] indptr
    cdef const int32_t[::1] indices
    cdef const int32_t* base
    cdef int32_t empty
    cdef readonly Py_ssize_t n_rows

    cdef inline const int32_t* row(self, Py_ssize_t i) noexcept nogil:
        return self.base + self.indptr[i]

    cdef inline int length(self, Py_ssize_t i) noexcept nogil:
        return <int>(self.indptr[i + 1] - self.indptr[i])
