# The feature templates of the segmenter's three decisions, as 64-bit keys.
from libc.stdint cimport int64_t, uint64_t

from polyparse.parser.segmentation.text_units cimport Units

cdef enum:
    N_INNER_KEYS = 35
    N_GAP_KEYS = 42
    N_SENTENCE_KEYS = 27
    MAX_KEYS = 42


cdef struct TokenSpans:
    # Tokens as spans of units (first..last, inclusive) with hashes of their values: the whole
    # token, its shape (the classes of its characters, runs of one class as one), its last two
    # and three values and its first three.
    Py_ssize_t n
    const int64_t* first
    const int64_t* last
    const uint64_t* whole
    const uint64_t* shape
    const uint64_t* suffix2
    const uint64_t* suffix3
    const uint64_t* prefix3


cdef struct Ngrams:
    # Hashes of the unigrams, bigrams and trigrams of values (v) and classes (c) that start at
    # each unit of a region lo..hi read with three EDGE units on either side: entry k stands for
    # unit lo - 3 + k (hi - lo + 7 entries).
    Py_ssize_t lo
    Py_ssize_t hi
    uint64_t* uni_v
    uint64_t* bi_v
    uint64_t* tri_v
    uint64_t* uni_c
    uint64_t* bi_c
    uint64_t* tri_c


cdef int ngrams_alloc(Ngrams* g, Py_ssize_t longest) except -1 nogil
cdef void ngrams_free(Ngrams* g) noexcept nogil
cdef void ngrams_fill(Ngrams* g, const Units* u, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil
cdef int inner_keys(const Units* u, const Ngrams* g, Py_ssize_t i, Py_ssize_t ts,
                    uint64_t* out) noexcept nogil
cdef int gap_keys(const Units* u, const Ngrams* g, Py_ssize_t i, Py_ssize_t ts,
                  Py_ssize_t chunks, uint64_t* out) noexcept nogil
cdef int sentence_keys(const Units* u, const TokenSpans* s, Py_ssize_t t, Py_ssize_t st,
                       Py_ssize_t r0, Py_ssize_t r1, uint64_t* out) noexcept nogil
cdef void token_hashes(const Units* u, Py_ssize_t first, Py_ssize_t last, uint64_t* whole,
                       uint64_t* shape, uint64_t* suffix2, uint64_t* suffix3,
                       uint64_t* prefix3) noexcept nogil


cdef class TokenTable:
    cdef readonly object first, last, whole, shape, suffix2, suffix3, prefix3
    cdef TokenSpans spans
