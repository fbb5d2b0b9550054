# cython: language_level=3
"""The inverted index of a kernel-slicing learner (classifiers/online/kernel_slicing.pyx): the
postings of the ranks the conjunction table does not hold, grown as support vectors join."""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free, realloc


cdef class InvertedIndex:
    """Postings of the ranks first_rank .. n_ranked - 1 (none yet)."""

    def __dealloc__(self):
        cdef int32_t f
        # n_ranked is set once post is allocated
        for f in range(self.n_ranked):
            free(self.post[f])
        free(self.post)
        free(self.post_len)
        free(self.post_cap)

    def __init__(self, int32_t n_ranked, int32_t first_rank):
        cdef int64_t size = max(n_ranked, 1)
        self.post = <int32_t**>calloc(size, sizeof(int32_t*))
        self.post_len = <int32_t*>calloc(size, sizeof(int32_t))
        self.post_cap = <int32_t*>calloc(size, sizeof(int32_t))
        if self.post == NULL or self.post_len == NULL or self.post_cap == NULL:
            raise MemoryError()
        self.n_ranked = n_ranked
        self.first_rank = first_rank

    cdef int append(self, int32_t f, int32_t id) except -1 nogil:
        cdef int32_t* grown
        cdef int32_t capacity
        if self.post_len[f] == self.post_cap[f]:
            capacity = 4 if self.post_cap[f] == 0 else 2 * self.post_cap[f]
            grown = <int32_t*>realloc(self.post[f], capacity * sizeof(int32_t))
            if grown == NULL:
                with gil:
                    raise MemoryError()
            self.post[f] = grown
            self.post_cap[f] = capacity
        self.post[f][self.post_len[f]] = id
        self.post_len[f] += 1
        return 0

    cdef int add_ranks(self, const int32_t* r, int n, int32_t low, int32_t high,
                       int32_t id) except -1 nogil:
        # `id` joins the postings of its ranks r[0..n) that lie in [low, high).
        cdef int j
        for j in range(n):
            if low <= r[j] < high:
                self.append(r[j], id)
        return 0

    def size_bytes(self) -> int:
        """Bytes of the postings and their heads."""
        cdef int64_t postings = 0
        cdef int32_t f
        for f in range(self.n_ranked):
            postings += self.post_cap[f]
        return int(4 * postings + 16 * self.n_ranked)
