# Weights of a structured perceptron: feature key x class -> weight, stored by feature as short
# rows of (class, weight) entries, so that scoring a state reads one row per feature.
from libc.stdint cimport int32_t, int64_t, uint16_t, uint64_t
from libcpp.vector cimport vector

from polyparse.features.key_index cimport KeyIndex


cdef struct WeightEntry:
    int32_t cls
    int32_t weight      # the current weight (perceptron updates are integers)
    int64_t summed      # sum of (examples before the update) * update: the averaging term


cdef class ClassScores:
    # Adds the scores of every class for the feature keys keys[0..n) into scores[0..n_classes).
    cdef readonly int n_classes
    cdef void add_scores(self, const uint64_t* keys, int n, double* scores) noexcept nogil


cdef class PerceptronWeights(ClassScores):
    cdef KeyIndex index
    cdef vector[int64_t] row_start
    cdef vector[int32_t] row_length
    cdef vector[int32_t] row_capacity
    cdef vector[WeightEntry] entries
    cdef readonly int64_t examples    # examples finished (the time of the averaging)
    cdef KeyIndex allowed             # with restricted: the only keys that get weights
    cdef bint restricted

    cdef int update(self, const uint64_t* keys, int n, int cls, int delta) except -1 nogil
    cdef WeightEntry* entry(self, uint64_t key, int cls) except NULL nogil


cdef enum:
    INLINE_ENTRIES = 3
    # Rows of at least DENSE_ENTRIES entries (the features of tags, met in nearly every state)
    # are kept dense, one weight per class, and added as vectors.
    DENSE_ENTRIES = 64
    DENSE_FLAG = 0x8000


# One slot of AveragedWeights's hash table: a feature key with the first entries of its row
# (32 bytes, so that most features cost one cache line) and where the rest of the row starts;
# a dense row (length | DENSE_FLAG) has no entries in its slot, overflow being its number.
cdef struct WeightSlot:
    uint64_t key
    int32_t overflow
    uint16_t length
    uint16_t cls[INLINE_ENTRIES]
    float value[INLINE_ENTRIES]


cdef struct FixedEntry:
    int32_t cls
    float value


cdef class AveragedWeights(ClassScores):
    cdef readonly object keys, row_ptr, classes, values
    cdef object slot_bytes, overflow_entries, dense_rows
    cdef WeightSlot* slots
    cdef uint64_t mask
    cdef const FixedEntry* overflow
    cdef const double* dense
