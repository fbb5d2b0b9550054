# split-svm: exact kernel sum as a common-feature expansion plus rare-feature corrections.
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint64_t

from polyparse.classifiers.evaluators.pke cimport ConjunctionStore
from polyparse.classifiers.evaluators.pki cimport ScratchPool, count_postings
from polyparse.classifiers.scorer cimport BinaryScorer
from polyparse.features.key_index cimport KeyIndex, KeySlots, slots_get


cdef struct RareIndex:
    # The rare side of a split (Goldberg & Elhadad 2008, section 3), over a scorer's arrays and
    # its KeyIndex of the features (common ids by rank, then rare ids ascending): for an id
    # f <= max_id, slots_get(&features, f) is its common rank (0..n_common), n_common + r for
    # the rare feature r, or -1 when no support vector holds f; the rare feature r is held by
    # the rare support vectors rare_postings[rare_ptr[r]:rare_ptr[r+1]] (numbers
    # 0..n_support_vectors); rare support vector s holds the common ranks
    # rare_sv_common[rare_sv_ptr[s]:rare_sv_ptr[s+1]]; kernel[c] = K(c).
    int32_t max_id
    int32_t n_common
    int32_t n_support_vectors
    KeySlots features
    const int64_t* rare_ptr
    const int32_t* rare_postings
    const int64_t* rare_sv_ptr
    # The ranks as int32, or as int16 (the other pointer NULL) when they fit.
    const int32_t* rare_sv_common
    const int16_t* rare_sv_common16
    const double* kernel
    # The same ranks split in two (index_low_ranks; NULL when not built): those below
    # LOW_RANKS as a bit set of LOW_RANK_WORDS words per rare support vector (low_ranks[s *
    # LOW_RANK_WORDS ...]), and the others in the layout above, rest_ptr and rest_common or
    # rest_common16.
    const uint64_t* low_ranks
    const int64_t* rest_ptr
    const int32_t* rest_common
    const int16_t* rest_common16
    # slots_get(&features, f) for every f <= max_id as a table (index_direct_ids; NULL when not
    # built: ids too sparse for one).
    const int32_t* direct


cdef struct RareScratch:
    # One call's scratch, carved out of a zeroed buffer of rare_scratch_bytes: for the rare support
    # vectors x reaches, in order, their kernel terms and numbers; per rare support vector its
    # count of rare features shared with x; a mark per common rank.
    double* kernel_terms
    int32_t* counts
    int32_t* touched
    uint8_t* marks


cdef extern from *:
    """
    static inline void polyparse_prefetch_read(const void* address) {
        __builtin_prefetch(address, 0, 3);
    }
    """
    void prefetch_read "polyparse_prefetch_read"(const void* address) noexcept nogil


cdef enum:
    # The common ranks a rare support vector holds below LOW_RANKS are kept as a bit set: the
    # most held common features (rank 0 is held by the most support vectors), about four
    # fifths of the ranks of a bunsetsu model's rare support vectors.
    LOW_RANK_WORDS = 2
    LOW_RANKS = 64 * LOW_RANK_WORDS


cdef inline int bits_set(uint64_t word) noexcept nogil:
    # The number of bits set in word (Warren, Hacker's Delight, 5-1: sums of 2, 4, 8 bits
    # side by side, then a multiply adds the eight byte sums into the top byte).
    word = word - ((word >> 1) & <uint64_t>0x5555555555555555)
    word = (word & <uint64_t>0x3333333333333333) + ((word >> 2) & <uint64_t>0x3333333333333333)
    word = (word + (word >> 4)) & <uint64_t>0x0F0F0F0F0F0F0F0F
    return <int>((word * <uint64_t>0x0101010101010101) >> 56)


# Bytes of one call's RareScratch.
cdef inline size_t rare_scratch_bytes(const RareIndex* index) noexcept nogil:
    return index.n_support_vectors * (sizeof(double) + 2 * sizeof(int32_t)) + index.n_common


# The parts of a scratch buffer, laid out as rare_scratch_bytes counts them.
cdef inline RareScratch rare_scratch(const RareIndex* index, void* buffer) noexcept nogil:
    cdef RareScratch scratch
    scratch.kernel_terms = <double*>buffer
    scratch.counts = <int32_t*>(scratch.kernel_terms + index.n_support_vectors)
    scratch.touched = scratch.counts + index.n_support_vectors
    scratch.marks = <uint8_t*>(scratch.touched + index.n_support_vectors)
    return scratch


cdef inline int32_t _marked(const uint8_t* marks, const int32_t* ranks, const int16_t* ranks16,
                            int64_t start, int64_t end) noexcept nogil:
    # The marks of the common ranks ranks16[start:end] (ranks[start:end] when ranks16 is NULL)
    # added up: how many of them x holds.
    cdef int32_t shared = 0
    cdef int64_t p
    if ranks16 != NULL:
        for p in range(start, end):
            shared += marks[ranks16[p]]
    else:
        for p in range(start, end):
            shared += marks[ranks[p]]
    return shared


cdef inline void _add_rare_term(const RareIndex* index, RareScratch scratch, int i, int32_t s,
                                int32_t shared, const double* rare_coef, int n_outputs,
                                double* out) noexcept nogil:
    # The i-th reached rare support vector s, sharing `shared` common ranks with x:
    # K_R(s, x) = K(shared + scratch.counts[s]) - K(shared) into scratch.kernel_terms[i], and
    # out[k] += rare_coef[s n_outputs + k] K_R(s, x); s's count back to 0.
    cdef double term = index.kernel[shared + scratch.counts[s]] - index.kernel[shared]
    cdef const double* coef = rare_coef + <int64_t>s * n_outputs
    cdef int k
    scratch.kernel_terms[i] = term
    scratch.counts[s] = 0
    for k in range(n_outputs):
        out[k] += coef[k] * term


cdef inline int _split_done(RareScratch scratch, const int32_t* ranks, int m_common, int32_t m,
                            int* n_rare) noexcept nogil:
    # The end of split_features: x's common marks cleared, n_rare[0] = m, m_common returned.
    cdef int i
    for i in range(m_common):
        scratch.marks[ranks[i]] = 0
    n_rare[0] = m
    return m_common


cdef inline int _split_low_ranks(const RareIndex* index, RareScratch scratch,
                                 const int32_t* ranks, int m_common, int32_t m,
                                 const uint64_t* x_low, int* n_rare, const double* rare_coef,
                                 int n_outputs, double* out) noexcept nogil:
    # split_features' second half on an index with low_ranks: |s_C & x_C| of each reached
    # support vector s is the bits its low ranks share with x_low plus the marks of its other
    # ranks, the same count as a walk over all of them, so every term is the same.
    cdef int i, k
    cdef int32_t s, shared
    cdef int64_t p
    cdef const uint64_t* low
    for i in range(m):
        s = scratch.touched[i]
        prefetch_read(index.low_ranks + <int64_t>s * LOW_RANK_WORDS)
        p = index.rest_ptr[s]
        if index.rest_common16 != NULL:
            prefetch_read(index.rest_common16 + p)
        else:
            prefetch_read(index.rest_common + p)
    for i in range(m):
        s = scratch.touched[i]
        low = index.low_ranks + <int64_t>s * LOW_RANK_WORDS
        shared = 0
        for k in range(LOW_RANK_WORDS):
            shared += bits_set(low[k] & x_low[k])
        shared += _marked(scratch.marks, index.rest_common, index.rest_common16,
                          index.rest_ptr[s], index.rest_ptr[s + 1])
        _add_rare_term(index, scratch, i, s, shared, rare_coef, n_outputs, out)
    return _split_done(scratch, ranks, m_common, m, n_rare)


cdef inline int split_features(const RareIndex* index, RareScratch scratch, const int32_t* feats,
                               int n, int32_t* ranks, int* n_rare, const double* rare_coef,
                               int n_outputs, double* out) noexcept nogil:
    # One example x against a split (Goldberg & Elhadad 2008, section 3): its common ranks go to
    # ranks in x's order (their number is returned); the n_rare rare support vectors s sharing a
    # rare feature with x go to scratch.touched in the order reached, with
    # K_R(s, x) = K(|s_C & x_C| + |s_R & x_R|) - K(|s_C & x_C|) at the same place of
    # scratch.kernel_terms, and out[k] += rare_coef[s n_outputs + k] K_R(s, x) in that order
    # (n_outputs = 0 leaves out alone). counts and marks are left zeroed.
    cdef int i, k, m_common = 0
    cdef int32_t f, c, r, s, shared, m = 0
    cdef int64_t p
    # x's common ranks below LOW_RANKS, as the support vectors' low_ranks hold theirs.
    cdef uint64_t x_low[LOW_RANK_WORDS]
    for k in range(LOW_RANK_WORDS):
        x_low[k] = 0
    for i in range(n):
        f = feats[i]
        if f > index.max_id:
            break
        if index.direct != NULL:
            c = index.direct[f]
        else:
            c = slots_get(&index.features, <uint64_t>f)
        if c < 0:
            continue
        if c < index.n_common:
            ranks[m_common] = c
            m_common += 1
            scratch.marks[c] = 1
            if c < LOW_RANKS:
                x_low[c >> 6] |= (<uint64_t>1) << (c & 63)
        else:
            r = c - index.n_common
            p = index.rare_ptr[r]
            m = count_postings(index.rare_postings + p, index.rare_ptr[r + 1] - p,
                               scratch.counts, scratch.touched, m)
    if index.low_ranks != NULL:
        return _split_low_ranks(index, scratch, ranks, m_common, m, x_low, n_rare, rare_coef,
                                n_outputs, out)
    # Ask for every reached support vector's common ranks first: they lie at random in a table
    # larger than the cache, and the misses overlap when they are all in flight at once.
    for i in range(m):
        s = scratch.touched[i]
        p = index.rare_sv_ptr[s]
        if index.rare_sv_common16 != NULL:
            prefetch_read(index.rare_sv_common16 + p)
            if index.rare_sv_ptr[s + 1] - p > 32:
                prefetch_read(index.rare_sv_common16 + p + 32)
        else:
            prefetch_read(index.rare_sv_common + p)
            if index.rare_sv_ptr[s + 1] - p > 16:
                prefetch_read(index.rare_sv_common + p + 16)
    for i in range(m):
        s = scratch.touched[i]
        shared = _marked(scratch.marks, index.rare_sv_common, index.rare_sv_common16,
                         index.rare_sv_ptr[s], index.rare_sv_ptr[s + 1])
        _add_rare_term(index, scratch, i, s, shared, rare_coef, n_outputs, out)
    return _split_done(scratch, ranks, m_common, m, n_rare)


# Point index at the rare-index arrays (rare_ptr, rare_postings, rare_sv_ptr, rare_sv_common,
# kernel) and at features, the KeyIndex of common_ids then rare_ids (feature_index), after
# checking that they fit together and with n_common common ranks (the caller keeps them alive);
# ValueError otherwise.
cdef int point_rare_index(RareIndex* index, dict arrays, int32_t n_common,
                          KeyIndex features) except -1
# Build the low_ranks split of a pointed index's rare support vectors' ranks and point index at
# it; the arrays that hold it, which the caller keeps alive with the others.
cdef tuple index_low_ranks(RareIndex* index)
# Build the direct table of a pointed index whose features (common_ids by rank, then rare_ids)
# are dense enough and point index at it; the table (None when not built), which the caller
# keeps alive.
cdef object index_direct_ids(RareIndex* index, object common_ids, object rare_ids)


cdef class SplitSVMScorer(BinaryScorer):
    # Common part: conjunction weights over the ranks of the common features (pke.pxd).
    cdef readonly ConjunctionStore common
    cdef readonly KeyIndex features
    cdef readonly dict arrays
    cdef readonly dict settings
    cdef readonly ScratchPool pool
    cdef RareIndex rare
    cdef const double* constant
    cdef const double* rare_sv_coef
    # The arrays of the rare index's low_ranks split (index_low_ranks) and its direct table of
    # feature ids (index_direct_ids, None when not built), built at install.
    cdef readonly tuple low_rank_arrays
    cdef readonly object direct_ids
