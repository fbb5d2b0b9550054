# The conjunction-weight table of kernel splitting (Yoshinaga & Kitsuregawa 2010, section 3.1):
# W(g) = sum_{s in S contains g} alpha_s for every conjunction g of at most d of the N most
# frequent features (ranks < n_common); dense for the ranks < n_dense, hashed above.
from libc.stdint cimport int32_t, int64_t, uint64_t

from polyparse.features.key_index cimport KeyIndex


cdef class ConjunctionTable:
    cdef readonly int degree
    cdef double coef[4]
    cdef readonly int32_t n_common
    cdef readonly int32_t n_dense
    cdef double* w1
    cdef double* w2
    cdef double* w3
    cdef KeyIndex index
    cdef double* hashed
    cdef int64_t hashed_cap

    cdef int _allocate_dense(self, int32_t n_dense) except -1
    cdef double slice(self, const int32_t* r, int j) noexcept nogil
    cdef int _hashed_add(self, uint64_t key, double delta) except -1 nogil
    cdef int add(self, const int32_t* r, int nc, double delta) except -1 nogil
    cdef int64_t size_bytes(self) noexcept nogil
    cdef int halve(self) except -1

    cdef inline int common_length(self, const int32_t* r, int n) noexcept nogil:
        # How many of the ascending ranks r[0..n) are common (< n_common).
        cdef int nc = 0
        while nc < n and r[nc] < self.n_common:
            nc += 1
        return nc
