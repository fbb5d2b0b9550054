# Polynomial kernel expansion (PKE): weights of feature conjunctions of size <= 3.
from libc.stdint cimport int32_t, int64_t, uint64_t

from polyparse.classifiers.scorer cimport BinaryScorer
from polyparse.features.key_index cimport KeyIndex, KeySlots, slots_get

# Conjunctions are sets of feature ranks (0 = the feature held by most support vectors). Hashed
# keys pack the sorted ranks into 21-bit fields, each holding rank + 1 so that a zero field means
# "no rank": {a} -> a+1, {a<b} -> (a+1) << 21 | (b+1), {a<b<c} -> (a+1) << 42 | (b+1) << 21 |
# (c+1). Ranks go up to MAX_RANK = 2**21 - 2; the top bit stays 0, so no key equals KeyIndex's
# reserved 2**64 - 1.
cdef enum:
    KEY_BITS = 21
    MAX_RANK = 2097150
    MAX_EXPANDED_DEGREE = 3


cdef inline uint64_t extend_key(uint64_t prefix, int32_t rank) noexcept nogil:
    # Key of the conjunction `prefix` followed by a larger rank (prefix 0: the single).
    return (prefix << KEY_BITS) | <uint64_t>(rank + 1)


cdef inline int64_t conjunction_count(int64_t m, int degree) noexcept nogil:
    # Conjunctions of 1 .. degree (<= 3) of m features: m + binom(m, 2) + binom(m, 3).
    cdef int64_t count = m
    if degree >= 2:
        count += m * (m - 1) // 2
    if degree >= 3:
        count += m * (m - 1) * (m - 2) // 6
    return count


cdef inline void sort_ranks(int32_t* values, int64_t n) noexcept nogil:
    # Insertion sort, in place (a feature row's ranks are few).
    cdef int64_t i, j
    cdef int32_t value
    for i in range(1, n):
        value = values[i]
        j = i - 1
        while j >= 0 and values[j] > value:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = value


cdef class ConjunctionStore:
    # Weights of the conjunctions of ranks 0..n_ranked-1: those of ranks all below n_dense in a
    # dense array (singles r, pairs n_dense + b(b-1)/2 + a, triples n_dense + C(n_dense, 2) +
    # c(c-1)(c-2)/6 + b(b-1)/2 + a for a < b < c), the others in a KeyIndex over packed keys.
    cdef readonly int degree
    cdef readonly int n_outputs
    cdef readonly int32_t n_ranked
    cdef readonly int32_t n_dense
    cdef readonly KeyIndex index
    cdef readonly object dense_weights
    cdef readonly object hashed_weights
    cdef const double* dense
    cdef const double* hashed
    cdef int64_t pair_start
    cdef int64_t triple_start

    # Add the weights of every conjunction (size <= degree) of ranks[0..m) to out; the ranks are
    # distinct and may be reordered.
    cdef void add(self, int32_t* ranks, int m, double* out) noexcept nogil


cdef class PKEScorer(BinaryScorer):
    cdef readonly ConjunctionStore store
    cdef readonly dict arrays
    cdef readonly double gamma
    cdef readonly double coef0
    # Feature id -> rank (the ranked ids in rank order); ids above max_id have none.
    cdef readonly KeyIndex rank_index
    cdef readonly int32_t max_id
    cdef const double* constant


cdef inline int sorted_ranks(const KeySlots* vocab, const uint64_t* keys, int n_keys,
                             int32_t* ranks) noexcept nogil:
    # The ranks of the keys the vocabulary holds (the others dropped), sorted into ranks; returns
    # their number.
    cdef int j, n = 0
    cdef int32_t rank
    for j in range(n_keys):
        rank = slots_get(vocab, keys[j])
        if rank >= 0:
            ranks[n] = rank
            n += 1
    sort_ranks(ranks, n)
    return n
