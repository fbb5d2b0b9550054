# One Japanese sentence as the bunsetsu parser's Cython loops see it: morphemes, bunsetsu
# (chunks) with the properties J.DepP reads from them, and the heads decided so far; and the
# feature keys of a (modifier, candidate head) pair and of a morpheme boundary.
from libc.stdint cimport int32_t, uint64_t

cdef enum:
    MAX_PAIR_KEYS = 256     # keys of one (modifier, candidate) pair, particles included
    MAX_BOUNDARY_KEYS = 32  # keys of one morpheme boundary (the chunker)
    NO_ID = 2               # the lexicon's "unknown" id: strings below 3 give no feature

# Lexicon ids of the strings J.DepP tests for: 特殊 (pos1) and its 読点, 句点, 括弧始, 括弧終
# (pos2), and 助詞 (pos1); NO_ID when the lexicon lacks them.
cdef struct SpecialIds:
    int32_t special
    int32_t comma
    int32_t period
    int32_t bracket_in
    int32_t bracket_out
    int32_t particle

cdef struct SentenceView:
    int n_morphemes
    int n_chunks
    const int32_t* surface      # per morpheme: lexicon ids
    const int32_t* pos1
    const int32_t* pos2
    const int32_t* conj_form
    const int32_t* char_class   # per morpheme: script of its first and last character (chunker)
    const int32_t* chunk_start  # n_chunks + 1: chunk c is morphemes chunk_start[c]:[c+1]
    # Per chunk, filled by chunk_properties: the last morpheme that is neither 特殊 nor 助詞
    # (head word) and the last that is not 特殊 (function word), -1 when none.
    int32_t* mhead
    int32_t* mtail
    int32_t* punct              # 1: holds 読点, 2: 句点, 3: both
    int32_t* bracket_in         # number of 括弧始 / 括弧終
    int32_t* bracket_out
    int32_t* particle_ptr       # n_chunks + 1: particles[particle_ptr[c]:particle_ptr[c+1]]
    int32_t* particles          # surface ids of the chunk's 助詞, distinct
    int32_t* heads              # head chunk of each chunk so far, -1 when none yet
    # The chunks that depend on each chunk so far, as a list (first_child, then next_sibling
    # of each; -1 ends it) in ascending order when heads are set by set_head from right to left.
    int32_t* first_child
    int32_t* next_sibling
    # n_chunks + 1, cumulative over the chunks before c: 括弧始, 括弧終, chunks holding 読点,
    # chunks holding 句点 (the gap features of a pair in constant time).
    int32_t* before_in
    int32_t* before_out
    int32_t* before_comma
    int32_t* before_period

cdef void chunk_properties(SentenceView* s, const SpecialIds* ids) noexcept nogil


cdef inline void set_head(SentenceView* s, int c, int head) noexcept nogil:
    # Chunk c depends on head (not on any chunk before): its head and head's list of children.
    s.heads[c] = head
    s.next_sibling[c] = s.first_child[head]
    s.first_child[head] = c
cdef int pair_keys(const SentenceView* s, int i, int j, uint64_t* out) noexcept nogil
cdef int boundary_keys(const SentenceView* s, int m, int start, uint64_t* out) noexcept nogil


cdef class SentenceBuffers:
    cdef readonly int capacity
    cdef object data
    cdef void attach(self, SentenceView* s) noexcept
