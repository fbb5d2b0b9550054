# The Cython-level face of classifiers/tree_kernels/poly2_table.pyx: a weighted sum of
# normalised polynomial kernels (degree 1 or 2) on binary vectors, held as explicit weights.
cimport cython
from libc.stdint cimport int32_t, int64_t
from libcpp.unordered_map cimport unordered_map


@cython.final
cdef class Poly2Table:
    cdef readonly int degree
    cdef readonly double s
    cdef readonly double r
    cdef readonly double bias
    cdef readonly int64_t n_vectors
    # The largest id with a weight (-1: none); single weights by id, pair weights by pair key.
    cdef readonly int32_t max_id
    cdef unordered_map[int64_t, double] _single
    cdef unordered_map[int64_t, double] _pairs

    cdef double norm(self, int64_t n_ones) noexcept nogil
    cdef double score_ids(self, const int32_t* ids, int64_t n) noexcept nogil
    cdef int add_ids(self, const int32_t* ids, int64_t n, double weight) except -1
