# kernel: the margin by PKI (Kudo & Matsumoto 2003) over the inverted index of every feature.
from libc.stdint cimport int32_t

from polyparse.classifiers.online.margin_strategy cimport MarginStrategy


cdef class KernelMargin(MarginStrategy):
    # counts[s] = |s & x| of the support vectors s touched by x (their numbers in touched)
    cdef int32_t* counts
    cdef int32_t* touched
