# Polynomial kernel inverted index (PKI) and the per-call scratch buffers it shares with split-svm.
from libc.stdint cimport int32_t, int64_t

from classifiers.scorer cimport BinaryScorer


cdef class ScratchPool:
    # Zeroed buffers of slot_bytes each, handed to one call at a time so that scorers stay safe to
    # call from several threads: a caller takes a free slot (or, when all are busy, a buffer of
    # its own), must leave it zeroed again, and gives it back.
    cdef size_t slot_bytes
    cdef int n_slots
    cdef void** buffers
    cdef int* busy

    cdef void* acquire(self, int* slot) noexcept nogil
    cdef void release(self, void* buffer, int slot) noexcept nogil


cdef class PKIScorer(BinaryScorer):
    cdef readonly dict arrays
    cdef readonly double gamma
    cdef readonly double coef0
    cdef readonly int degree
    cdef readonly int32_t n_support_vectors
    cdef readonly int32_t n_ids
    cdef readonly ScratchPool pool
    cdef const int64_t* postings_ptr
    cdef const int32_t* postings
    cdef const double* coef_by_sv
    cdef const double* constant
    cdef const double* kernel_delta
