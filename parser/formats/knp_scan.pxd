# What the byte scanners of the Japanese formats share: parser/formats/knp_scan.pyx (KNP) and
# parser/formats/cabocha_scan.pyx (CaboCha) look fields up in one lexicon (KnpLexicon), fill
# the same buffers (ScanBuffers) and give the same result (KnpScan), whose rewrite changes the
# heads of the input bytes.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy
from libcpp.string cimport string
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector

from polyparse.features.key_index cimport mix64

cdef enum:
    # The lexicon id of a string it lacks (features.interning's UNKNOWN).
    UNKNOWN_ID = 2


cdef struct LexiconSlot:
    # A filled slot (id >= 0): the high half of its string's hash, the string's id, and where
    # its bytes sit in the lexicon's text.
    uint32_t check
    int32_t id
    uint32_t offset
    uint32_t length


cdef struct Span:
    int64_t start
    int64_t length


cdef extern from *:
    """
    #include <vector>
    /* push_back and a shrinking resize that never throw: the vector grows (doubling) before
       a push_back that needs it, and an allocation failure sets failed, which the scan
       reports once it is back with the GIL. */
    template <typename T>
    static inline void polyparse_append(std::vector<T>& values, T value, int& failed) noexcept {
        if (__builtin_expect(values.size() == values.capacity(), 0)) {
            try {
                values.reserve(values.capacity() ? 2 * values.capacity() : 64);
            } catch (...) {
                failed = 1;
                return;
            }
        }
        values.push_back(value);
    }
    template <typename T>
    static inline void polyparse_shrink(std::vector<T>& values, size_t size) noexcept {
        if (size < values.size()) {
            values.erase(values.begin() + size, values.end());
        }
    }
    """
    void append "polyparse_append"[T](vector[T]& values, T value, int& failed) noexcept nogil
    void shrink "polyparse_shrink"[T](vector[T]& values, size_t size) noexcept nogil


cdef struct ScanBuffers:
    vector[int64_t] block_start, block_end, block_line, block_fast_index
    vector[uint8_t] block_fast
    vector[int32_t] surface, pos1, pos2, conj_form, chunk_bounds, old_heads
    vector[int64_t] morpheme_ptr, chunk_ptr, head_start, head_end
    # Per bunsetsu of a format whose bunsetsu lines carry a score (CaboCha): its byte span,
    # start -1 when the line has none; empty for KNP.
    vector[int64_t] score_start, score_end
    vector[uint8_t] old_types
    # Per fast block, its dictionary as a code (CaboCha; empty for KNP).
    vector[uint8_t] block_tagset
    vector[Span] unknown
    # Set when a vector could not grow.
    int failed


cdef inline bint is_digit(unsigned char c) noexcept nogil:
    return c'0' <= c <= c'9'


cdef inline int64_t read_number(const unsigned char* line, int64_t* i, int64_t length,
                                int max_digits) noexcept nogil:
    # The number written in digits at line[i[0]] and on (before length), i[0] moved past them;
    # -1 where there is no digit there or more than max_digits of them.
    cdef int64_t start = i[0], value = 0
    while i[0] < length and is_digit(line[i[0]]):
        if i[0] - start == max_digits:
            return -1
        value = value * 10 + (line[i[0]] - c'0')
        i[0] += 1
    return value if i[0] > start else -1


cdef inline uint64_t bytes_hash(const unsigned char* text, Py_ssize_t length) noexcept nogil:
    # Eight bytes at a time into a multiply-xorshift chain (the rest packed little-end first),
    # then the splitmix64 finaliser (mix64): a few cycles for the short fields of KNP lines.
    cdef uint64_t h = <uint64_t>length * <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t word = 0
    cdef int k
    while length >= 8:
        memcpy(&word, text, 8)
        h = (h ^ word) * <uint64_t>0xFF51AFD7ED558CCD
        h ^= h >> 32
        text += 8
        length -= 8
    word = 0
    for k in range(length):
        word |= (<uint64_t>text[k]) << (8 * k)
    return mix64(h ^ word)


cdef class KnpLexicon:
    cdef vector[LexiconSlot] slots
    cdef vector[unsigned char] text
    cdef uint64_t mask
    cdef Py_ssize_t size

    cdef void _size_table(self, Py_ssize_t n_strings)
    cdef int _insert(self, const unsigned char* text, Py_ssize_t length,
                     int32_t index) except -1

    cdef inline bint _holds(self, const LexiconSlot* slot, uint64_t h,
                            const unsigned char* text, Py_ssize_t length) noexcept nogil:
        return slot.check == <uint32_t>(h >> 32) and slot.length == length and \
            memcmp(self.text.data() + slot.offset, text, length) == 0

    cdef inline int32_t lookup(self, const unsigned char* text,
                               Py_ssize_t length) noexcept nogil:
        cdef uint64_t h = bytes_hash(text, length)
        cdef uint64_t i = h & self.mask
        cdef const LexiconSlot* slot
        while True:
            slot = &self.slots[i]
            if slot.id < 0:
                return UNKNOWN_ID
            if self._holds(slot, h, text, length):
                return slot.id
            i = (i + 1) & self.mask


cdef class KnpScan:
    cdef const unsigned char[::1] buffer
    cdef readonly object block_start, block_end, block_line, block_fast, block_fast_index
    cdef readonly object surface, pos1, pos2, conj_form, morpheme_ptr, chunk_ptr, chunk_bounds
    cdef readonly object head_start, head_end, old_heads, old_types
    cdef readonly object score_start, score_end, block_tagset
    cdef readonly int64_t end, n_lines
    cdef readonly bint valid_utf8
    cdef vector[string] unknown_order
    cdef unordered_map[string, int64_t] unknown_counts

    cdef int _bounds(self, const int32_t[::1] heads, Py_ssize_t first_block,
                     Py_ssize_t last_block, int64_t* bounds) except -1


cdef bint is_valid_utf8(const unsigned char* data, int64_t n) noexcept nogil
cdef KnpScan scan_result(const unsigned char[::1] data, ScanBuffers* out, int64_t end,
                         int64_t n_lines, bint valid_utf8)
