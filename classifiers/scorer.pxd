# The Cython-level contract of every binary-feature backend (DESIGN.md, "classifiers/").
from libc.stdint cimport int32_t


cdef class BinaryScorer:
    # Number of decision values per example (1 for two classes, K for K >= 3 one-vs-rest).
    cdef readonly int n_outputs

    # Write the n_outputs decision values of the example whose n active feature ids
    # (sorted, unique) are feats[0..n) into out[0..n_outputs). Safe to call from several threads.
    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil
