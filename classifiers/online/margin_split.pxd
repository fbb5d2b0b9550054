# split (and expand, its case N = |F|): kernel splitting, common conjunctions from the table and
# the rare features' part from the inverted index.
from libc.stdint cimport int32_t, uint8_t, uint64_t

from polyparse.classifiers.online.conjunction_table cimport ConjunctionTable
from polyparse.classifiers.online.margin_strategy cimport MarginStrategy


cdef class SplitMargin(MarginStrategy):
    cdef ConjunctionTable table
    # PKI scratch: counts[v] = |s_R & x_R| of the vectors v touched by x's rare features
    cdef int32_t* counts
    cdef int32_t* touched
    # x's common ranks marked, for the scan of s's ranks
    cdef uint8_t* marks
    # the common-rank bitsets: common_bits[v * bit_words + w] of vector v (bit_words 0: scan
    # instead), x_bits for the example, x_words its nonzero words
    cdef int32_t bit_words
    cdef uint64_t* common_bits
    cdef uint64_t* x_bits
    cdef int32_t* x_words

    cdef double _add_rare_part(self, const int32_t* r, int nc, int n, double part) noexcept nogil
    cdef int _build_common_bits(self) except -1
    cdef void _fill_common_bits(self, int32_t v) noexcept nogil
