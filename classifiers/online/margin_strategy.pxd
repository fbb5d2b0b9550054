# The interface of kernel slicing's margin strategies (kernel, split and expand, slice): each
# computes m(x) = sum_{s in S} alpha_s K(s, x) its own way over the same support set and
# inverted index, and keeps its own structures up to date as the learner updates.
from libc.stdint cimport int32_t

from polyparse.classifiers.online.inverted_index cimport InvertedIndex
from polyparse.classifiers.online.slicing_data cimport SlicingData
from polyparse.classifiers.online.support_set cimport SupportSet


cdef class MarginStrategy:
    cdef SlicingData data
    cdef SupportSet support
    cdef InvertedIndex index

    # m(x) of vector v (ranks r[0..n), label y) into out; True when the computation ended
    # early because the loss is surely zero (out is then left as it was).
    cdef bint margin(self, int32_t v, const int32_t* r, int n, int y,
                     double* out) noexcept nogil
    # v has just joined the support set.
    cdef int joined(self, int32_t v) except -1 nogil
    # alpha_v (ranks r[0..n)) has just changed by delta.
    cdef int updated(self, int32_t v, const int32_t* r, int n, double delta) except -1 nogil
    # The table's N has just been halved.
    cdef int common_ranks_changed(self) except -1
