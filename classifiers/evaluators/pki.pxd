# Polynomial kernel inverted index (PKI) and the per-call scratch buffers it shares with split-svm.
from libc.stdint cimport int32_t, int64_t

from polyparse.classifiers.scorer cimport BinaryScorer
from polyparse.features.key_index cimport KeyIndex


cdef inline int32_t count_postings(const int32_t* postings, int64_t n_postings, int32_t* counts,
                                   int32_t* touched, int32_t n_touched) noexcept nogil:
    # PKI's counting step (Kudo & Matsumoto 2003, section 3.1): counts[s] += 1 for every support
    # vector s of one posting list, appending those first seen to touched[n_touched..]; returns
    # the new number of touched support vectors.
    cdef int64_t p
    cdef int32_t s
    for p in range(n_postings):
        s = postings[p]
        if counts[s] == 0:
            touched[n_touched] = s
            n_touched += 1
        counts[s] += 1
    return n_touched


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
    # Feature id -> number of its posting list (the indexed ids ascending); ids above max_id
    # have none.
    cdef readonly KeyIndex feature_index
    cdef readonly int32_t max_id
    cdef readonly ScratchPool pool
    cdef const int64_t* postings_ptr
    cdef const int32_t* postings
    cdef const double* coef_by_sv
    cdef const double* constant
    cdef const double* kernel_delta
