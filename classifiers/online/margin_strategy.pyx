# cython: language_level=3
"""The base of kernel slicing's margin strategies (classifiers/online/kernel_slicing.pyx): the
shared support set and inverted index, and no structures of its own to keep up to date."""
from libc.stdint cimport int32_t


cdef class MarginStrategy:
    """A margin strategy over data, support and index (read only)."""

    def __init__(self, SlicingData data, SupportSet support, InvertedIndex index):
        self.data = data
        self.support = support
        self.index = index

    cdef bint margin(self, int32_t v, const int32_t* r, int n, int y,
                     double* out) noexcept nogil:
        out[0] = 0.0
        return False

    cdef int joined(self, int32_t v) except -1 nogil:
        return 0

    cdef int updated(self, int32_t v, const int32_t* r, int n, double delta) except -1 nogil:
        return 0

    cdef int common_ranks_changed(self) except -1:
        return 0

    def stats(self) -> dict:
        """The strategy's own counters (JSON-ready), in the order they are reported."""
        return {}
