# Training vectors in frequency-rank form, shared (read only) by the binary learners of kernel
# slicing; the pointers are the arrays' data for the learners' loops.
from libc.stdint cimport int32_t, int64_t


cdef class SlicingData:
    cdef readonly object rank_ids
    cdef readonly object vector_indptr
    cdef readonly object vector_ranks
    cdef readonly object row_vector
    cdef readonly object document_frequency
    cdef readonly object node_of
    cdef readonly object sorted_vectors
    cdef readonly int64_t n_rows
    cdef readonly int64_t n_vectors
    cdef readonly int64_t n_nodes
    cdef readonly int32_t n_ranked
    cdef readonly int32_t max_length
    cdef const int64_t* vptr
    cdef const int32_t* vranks
    cdef const int32_t* rows
    cdef const int32_t* df
    cdef const int32_t* nodes
