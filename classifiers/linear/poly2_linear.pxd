# Compiled parts of the explicit degree-2 (and degree-1) linear backends: scorer and solver.
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

from polyparse.classifiers.scorer cimport BinaryScorer
from polyparse.features.key_index cimport KeyIndex


cdef inline uint64_t pair_key(int32_t r, int32_t s) noexcept nogil:
    # Condensed-index key of the conjunction x_r x_s (r <= s; r == s is the single feature r).
    return (<uint64_t>r << 32) | <uint64_t>(<uint32_t>s)


cdef class Poly2LinearScorer(BinaryScorer):
    # decision_k(x) = intercept[k] + sum of W[id, k] over the singles and (degree 2) pairs of x
    # found in `index`; pairs are looked up only among features whose single is present.
    # W is either dense (D, n_outputs) or sparse by rows (row_ptr, columns, values).
    cdef readonly KeyIndex index
    cdef readonly int degree
    cdef readonly bint sparse
    cdef readonly bint single_precision
    cdef readonly dict arrays
    cdef const void* values
    cdef const void* intercept
    cdef const int64_t* row_ptr
    cdef const int32_t* columns
