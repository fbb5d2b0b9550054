# Polynomial kernel expansion (PKE): weights of feature conjunctions of size <= 3.
from libc.stdint cimport int32_t, uint64_t

from classifiers.scorer cimport BinaryScorer
from features.key_index cimport KeyIndex

# Conjunction keys pack sorted feature ids into 21-bit fields, each holding id + 1 so that a zero
# field means "no id": {a} -> a+1, {a<b} -> (a+1) << 21 | (b+1),
# {a<b<c} -> (a+1) << 42 | (b+1) << 21 | (c+1). Ids go up to MAX_FEATURE_ID = 2**21 - 2; the top
# bit stays 0, so no key equals KeyIndex's reserved 2**64 - 1.
cdef enum:
    KEY_BITS = 21
    MAX_FEATURE_ID = 2097150
    MAX_EXPANDED_DEGREE = 3


cdef inline uint64_t extend_key(uint64_t prefix, int32_t feature) noexcept nogil:
    # Key of the conjunction `prefix` followed by a larger feature id (prefix 0: the single).
    return (prefix << KEY_BITS) | <uint64_t>(feature + 1)


cdef class ConjunctionTable:
    # sum of weights[row] over the conjunctions S of x (|S| <= degree) found in `index`.
    cdef readonly KeyIndex index
    cdef readonly int degree
    cdef readonly int n_outputs
    # Largest feature id of any key; larger ids of x are skipped (their keys would not fit).
    cdef readonly int32_t max_feature
    cdef readonly object weights
    cdef const double* w

    cdef void add(self, const int32_t* feats, int n, double* out) noexcept nogil


cdef class PKEScorer(BinaryScorer):
    cdef readonly ConjunctionTable table
    cdef readonly object constant
    cdef readonly double gamma
    cdef readonly double coef0
    cdef const double* w0
