# cython: language_level=3
"""The `kernel` margin strategy of kernel slicing (classifiers/online/kernel_slicing.pyx).

PKI (Kudo & Matsumoto 2003): an inverted index from every feature to the support vectors
holding it gives the counts c_s = |s & x|, and

    m(x) = K(0) sum_s alpha_s + sum_{s touched} alpha_s (K(c_s) - K(0)).

The index's postings hold support-vector numbers (ascending), so the counts are written in
order; when they reach about every support vector, all are read back instead of a touched list.
"""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free, malloc


cdef class KernelMargin(MarginStrategy):
    """PKI over an index of every rank (its postings: support-vector numbers)."""

    def __dealloc__(self):
        free(self.counts)
        free(self.touched)

    def __init__(self, data, support, index):
        MarginStrategy.__init__(self, data, support, index)
        cdef int64_t n_vectors = max(self.data.n_vectors, 1)
        self.counts = <int32_t*>calloc(n_vectors, sizeof(int32_t))
        self.touched = <int32_t*>malloc(n_vectors * sizeof(int32_t))
        if self.counts == NULL or self.touched == NULL:
            raise MemoryError()

    cdef bint margin(self, int32_t v, const int32_t* r, int n, int y,
                     double* out) noexcept nogil:
        cdef int j
        cdef int32_t f, s, q, m
        cdef int64_t total = 0
        cdef const int32_t* postings
        cdef int32_t* counts = self.counts
        cdef int32_t* touched = self.touched
        cdef int32_t** post = self.index.post
        cdef const int32_t* post_len = self.index.post_len
        cdef const double* sv_alpha = self.support.sv_alpha
        cdef const double* K = self.support.K
        cdef double part = 0.0, k0 = K[0]
        for j in range(n):
            total += post_len[r[j]]
        if total >= self.support.n_sv:
            for j in range(n):
                f = r[j]
                postings = post[f]
                for q in range(post_len[f]):
                    counts[postings[q]] += 1
            for s in range(<int32_t>self.support.n_sv):
                if counts[s]:
                    part += sv_alpha[s] * (K[counts[s]] - k0)
                    counts[s] = 0
        else:
            m = self.index.count_shared(r, 0, n, counts, touched)
            for q in range(m):
                s = touched[q]
                part += sv_alpha[s] * (K[counts[s]] - k0)
                counts[s] = 0
        out[0] = k0 * self.support.sum_alpha + part
        return False
