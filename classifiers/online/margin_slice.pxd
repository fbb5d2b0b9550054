# slice: kernel slicing (Yoshinaga & Kitsuregawa 2010, section 3.2, Algorithm 2), partial
# margins reused per prefix, brought up to date by Eq. 6, ended early by Eqs. 8-9.
from libc.stdint cimport int32_t, int64_t, uint8_t

from polyparse.classifiers.online.conjunction_table cimport ConjunctionTable
from polyparse.classifiers.online.margin_strategy cimport MarginStrategy


cdef struct RankState:
    # Kernel slicing's state of one rank f.
    double pos              # sum of the positive updates of support vectors holding f
    double neg              # sum of the negative ones (Eqs. 8-9)
    int64_t ring_start      # its ring of latest updates: ring[ring_start .. + ring_cap)
    int32_t ring_cap
    int32_t ring_pos        # where the next update goes
    int32_t ring_count      # updates held (<= ring_cap)
    int32_t t               # updates touching f so far (the time stamp of its slices)


cdef struct RingEntry:
    # An update: the ranks of the updated vector start at vranks[start]; alpha += delta.
    int64_t start
    double delta


cdef struct PrefixNode:
    # The partial-margin table's entry of a prefix x_j: its slice and time stamp.
    double slice
    int32_t t


cdef class SliceMargin(MarginStrategy):
    cdef ConjunctionTable table
    cdef bint early_termination
    # the update threshold: 1 for PA, 0 for the perceptron
    cdef double theta
    # Eq. 7's bound on the updates applied to the slice of a common feature at position j
    cdef int32_t* limit_common
    cdef uint8_t* marks
    cdef PrefixNode* prefix
    cdef RankState* rank_state
    cdef RingEntry* ring
    cdef int64_t ring_size
    cdef int64_t* gather_start
    cdef double* gather_coef
    cdef double* lo
    cdef double* hi
    # statistics
    cdef int64_t n_terminated
    cdef int64_t slices_total
    cdef int64_t slices_skipped
    cdef int64_t slices_reused
    cdef int64_t slices_refreshed
    cdef int64_t updates_applied
    cdef int64_t slices_from_table
    cdef int64_t slices_from_index

    cdef int _allocate_rings(self) except -1
    cdef double _gathered_sum(self, int32_t n, int32_t f) noexcept nogil
