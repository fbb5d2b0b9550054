# The support set S of a kernel-slicing learner: the coefficient alpha_v of every training
# vector (v joins S at its first update), the averaging sums beta_v, and the kernel's values
# K(c) = (c + 1)^d and dK(c) = K(c + 1) - K(c) by shared count c.
from libc.stdint cimport int32_t, int64_t, uint8_t


cdef class SupportSet:
    cdef bint average
    cdef double* K
    cdef double* dK
    cdef double* alpha
    cdef double* beta
    cdef uint8_t* is_sv
    # the support vectors in order of joining, and each one's place in that order
    cdef int32_t* sv_order
    cdef int32_t* sv_number
    cdef double* sv_alpha
    cdef int64_t n_sv
    cdef int32_t max_sv_length
    cdef double sum_alpha

    cdef bint add(self, int32_t v, int n, double delta, int64_t step) noexcept nogil
