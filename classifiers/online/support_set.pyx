# cython: language_level=3
"""The support set of a kernel-slicing learner (classifiers/online/kernel_slicing.pyx): the
coefficients alpha of the passive-aggressive updates and their averages (Daume III 2006, thesis,
section 2.5: beta_v accumulates (t - 1) times every change of alpha_v made at step t, so after T
steps alpha_v - beta_v / T is the average of alpha_v over the T steps)."""
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc

import numpy as np


cdef class SupportSet:
    """alpha, beta and membership of n_vectors vectors of at most max_length features, with the
    kernel (c + 1)^degree tabulated for c = 0 .. max_length + 1."""

    def __dealloc__(self):
        free(self.K)
        free(self.dK)
        free(self.alpha)
        free(self.beta)
        free(self.is_sv)
        free(self.sv_order)
        free(self.sv_number)
        free(self.sv_alpha)

    def __init__(self, int64_t n_vectors, int32_t max_length, int degree, bint average):
        cdef int64_t c, size = max(n_vectors, 1)
        cdef int j
        cdef double value
        self.average = average
        self.K = <double*>malloc((max_length + 2) * sizeof(double))
        self.dK = <double*>malloc((max_length + 2) * sizeof(double))
        if self.K == NULL or self.dK == NULL:
            raise MemoryError()
        for c in range(max_length + 2):
            value = 1.0
            for j in range(degree):
                value *= c + 1.0
            self.K[c] = value
        for c in range(max_length + 1):
            self.dK[c] = self.K[c + 1] - self.K[c]
        self.dK[max_length + 1] = 0.0
        self.alpha = <double*>calloc(size, sizeof(double))
        self.is_sv = <uint8_t*>calloc(size, sizeof(uint8_t))
        self.sv_order = <int32_t*>malloc(size * sizeof(int32_t))
        self.sv_number = <int32_t*>malloc(size * sizeof(int32_t))
        self.sv_alpha = <double*>calloc(size, sizeof(double))
        if (self.alpha == NULL or self.is_sv == NULL or self.sv_order == NULL
                or self.sv_number == NULL or self.sv_alpha == NULL):
            raise MemoryError()
        if average:
            self.beta = <double*>calloc(size, sizeof(double))
            if self.beta == NULL:
                raise MemoryError()

    cdef bint add(self, int32_t v, int n, double delta, int64_t step) noexcept nogil:
        # alpha_v += delta at step t (v of n features); True when v joins S.
        cdef bint joined = not self.is_sv[v]
        if joined:
            self.is_sv[v] = 1
            self.sv_number[v] = <int32_t>self.n_sv
            self.sv_order[self.n_sv] = v
            if n > self.max_sv_length:
                self.max_sv_length = n
            self.n_sv += 1
        self.alpha[v] += delta
        self.sv_alpha[self.sv_number[v]] += delta
        if self.average:
            self.beta[v] += <double>(step - 1) * delta
        self.sum_alpha += delta
        return joined

    def coefficients(self, int64_t n_vectors, int64_t n_steps) -> np.ndarray:
        """Coefficient of every vector (0 for those never updated): the averaged alpha after
        n_steps steps when averaging, else the final alpha."""
        out = np.zeros(n_vectors, dtype=np.float64)
        cdef double[::1] o = out
        cdef int64_t v
        cdef double steps = max(n_steps, 1)
        for v in range(n_vectors):
            if self.is_sv[v]:
                o[v] = self.alpha[v] - self.beta[v] / steps if self.average else self.alpha[v]
        return out
