# Inverted index of a kernel-slicing learner: for every rank f >= first_rank, the ids of the
# support vectors holding f, in order of joining (PKI, Kudo & Matsumoto 2003).
from libc.stdint cimport int32_t, int64_t

from polyparse.classifiers.evaluators.pki cimport count_postings


cdef class InvertedIndex:
    cdef int32_t n_ranked
    cdef int32_t first_rank
    cdef int32_t** post
    cdef int32_t* post_len
    cdef int32_t* post_cap

    cdef int append(self, int32_t f, int32_t id) except -1 nogil
    cdef int add_ranks(self, const int32_t* r, int n, int32_t low, int32_t high,
                       int32_t id) except -1 nogil

    cdef inline int32_t count_shared(self, const int32_t* r, int begin, int end, int32_t* counts,
                                     int32_t* touched) noexcept nogil:
        # PKI's counting step over the postings of r[begin..end): counts[s] += |s & those
        # ranks|; the ids whose count leaves 0 are appended to touched, and their number is
        # returned.
        cdef int j
        cdef int32_t m = 0
        for j in range(begin, end):
            m = count_postings(self.post[r[j]], self.post_len[r[j]], counts, touched, m)
        return m
