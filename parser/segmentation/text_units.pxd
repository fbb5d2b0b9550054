# The units of a text that the segmenter decides between: each character that is not whitespace
# is a unit, and so is each run of whitespace and control characters (a gap).
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

from polyparse.features.key_index cimport mix64

# Unit kinds: a character, a gap, a gap that is a hard break (a paragraph; a line of text that
# is already split into sentences), a hard break that also starts a new paragraph.
cdef enum:
    CHAR = 0
    GAP = 1
    LINE_BREAK = 2
    PARAGRAPH_BREAK = 3

# The value and class a window reads for a gap unit and beyond a region's edge.
cdef enum:
    GAP_VALUE = 0x20
    EDGE_VALUE = 0x110000
    GAP_CLASS = 1
    EDGE_CLASS = 2

cdef uint64_t SEED


cdef struct Units:
    # A text's units: value (the lower-cased code point; GAP_VALUE for gaps), class (of the
    # character), kind, the first character offset of each unit (n + 1 entries), and for each
    # character unit the first and last unit of its chunk (the run of characters between gaps)
    # and the chunk's hash.
    Py_ssize_t n
    const uint32_t* value
    const uint32_t* klass
    const uint8_t* kind
    const int64_t* start
    const int64_t* chunk_first
    const int64_t* chunk_last
    const uint64_t* chunk_hash


cdef inline uint64_t combine(uint64_t h, uint64_t v) noexcept nogil:
    # One step of the order-sensitive hash of a sequence: mix64 of (h xor v) times the golden
    # ratio constant (splitmix64's increment).
    return mix64((h ^ v) * <uint64_t>0x9E3779B97F4A7C15)


cdef inline uint64_t hash_values(const uint32_t* value, Py_ssize_t first,
                                 Py_ssize_t last) noexcept nogil:
    # Hash of the values of units first..last (inclusive); SEED when the range is empty.
    cdef uint64_t h = SEED
    cdef Py_ssize_t p
    for p in range(first, last + 1):
        h = combine(h, value[p])
    return h


cdef inline bint is_hard(uint8_t kind) noexcept nogil:
    return kind >= LINE_BREAK


cdef class TextUnits:
    cdef readonly object value, klass, kind, start, chunk_first, chunk_last, chunk_hash
    cdef Units units
    cdef void point(self) noexcept
