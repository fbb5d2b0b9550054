# What the byte scanners of the Japanese formats share: parser/formats/knp_scan.pyx (KNP) and
# parser/formats/cabocha_scan.pyx (CaboCha) look fields up in one lexicon (KnpLexicon), fill
# the same buffers (ScanBuffers) and give the same result (KnpScan), whose rewrite changes the
# heads of the input bytes.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memchr, memcmp, memcpy
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


cdef struct BlockState:
    # What a scanner knows of the block it is in: whether it is left to the Python reader
    # (slow), its bunsetsu lines so far and the morphemes before the last one, and the sizes of
    # out's morpheme, bunsetsu, bound and unknown buffers when it began.
    bint slow
    int64_t n_chunks
    int64_t last_chunk_start
    size_t morphemes0
    size_t chunks0
    size_t bounds0
    size_t unknown0


cdef inline void block_begins(BlockState* block, const ScanBuffers* out) noexcept nogil:
    block.slow = False
    block.n_chunks = 0
    block.last_chunk_start = 0
    block.morphemes0 = out.surface.size()
    block.chunks0 = out.head_start.size()
    block.bounds0 = out.chunk_bounds.size()
    block.unknown0 = out.unknown.size()


cdef inline void drop_bunsetsu(ScanBuffers* out, size_t n_chunks) noexcept nogil:
    # Keep the first n_chunks bunsetsu of out.
    shrink(out.head_start, n_chunks)
    shrink(out.head_end, n_chunks)
    shrink(out.old_heads, n_chunks)
    shrink(out.old_types, n_chunks)
    shrink(out.score_start, n_chunks)
    shrink(out.score_end, n_chunks)


cdef inline void drop_block(ScanBuffers* out, const BlockState* block) noexcept nogil:
    # Forget what the block added to out (a slow or unfinished block): its morphemes, their
    # unknown fields, its bunsetsu and their bounds.
    shrink(out.surface, block.morphemes0)
    shrink(out.pos1, block.morphemes0)
    shrink(out.pos2, block.morphemes0)
    shrink(out.conj_form, block.morphemes0)
    shrink(out.unknown, block.unknown0)
    drop_bunsetsu(out, block.chunks0)
    shrink(out.chunk_bounds, block.bounds0)


cdef struct LineWalk:
    # A scanner's walk over the lines of data[0:n]: where the current line starts and the next
    # one does, the lines so far as the Python readers count them (a "\r" ends one too),
    # whether data holds a "\r" at all (one pass, and none per line for most inputs), and where
    # the current block began (byte and line).
    const unsigned char* data
    int64_t n
    int64_t line_start
    int64_t position
    int64_t lines
    bint carriages
    int64_t block_begin
    int64_t block_first_line


cdef inline void walk_start(LineWalk* walk, const unsigned char* data, int64_t n) noexcept nogil:
    walk.data = data
    walk.n = n
    walk.line_start = walk.position = walk.lines = 0
    walk.carriages = memchr(data, c'\r', n) != NULL
    walk.block_begin = walk.block_first_line = 0


cdef inline bint next_line(LineWalk* walk, const unsigned char** line, int64_t* length,
                           bint* slow) noexcept nogil:
    # The next line that ends in "\n" into line and length (without the "\n"); False when
    # there is none. A "\r" in it ends a line too (but for the one of a "\r\n"): the block
    # is then the Python reader's (slow), and the lines are counted as it counts them.
    cdef const unsigned char* newline = <const unsigned char*>memchr(
        walk.data + walk.position, c'\n', walk.n - walk.position)
    cdef const unsigned char* carriage
    if newline == NULL:
        return False
    line[0] = walk.data + walk.position
    length[0] = newline - line[0]
    walk.line_start = walk.position
    walk.position = newline - walk.data + 1
    walk.lines += 1
    carriage = <const unsigned char*>memchr(line[0], c'\r', length[0]) if walk.carriages \
        else NULL
    if carriage != NULL:
        slow[0] = True
        while carriage != NULL:
            if carriage != line[0] + length[0] - 1:
                walk.lines += 1
            carriage = <const unsigned char*>memchr(carriage + 1, c'\r',
                                                     line[0] + length[0] - carriage - 1)
    return True


cdef inline bint is_eos(const unsigned char* line, int64_t length) noexcept nogil:
    # Whether the line is a block's end: "EOS" (or "EOS\r").
    return (length == 3 and memcmp(line, b"EOS", 3) == 0) or \
        (length == 4 and memcmp(line, b"EOS\r", 4) == 0)


cdef inline void end_block(LineWalk* walk, ScanBuffers* out, bint fast, int64_t* end,
                           int64_t* n_lines) noexcept nogil:
    # The block ending with the current line: its bytes and first line, whether it was scanned
    # (fast: its morphemes and bunsetsu are the last ones in out) or is left to the Python
    # reader; the next block starts after it, and all up to here is scanned (end, n_lines).
    append(out.block_start, walk.block_begin, out.failed)
    append(out.block_end, walk.position, out.failed)
    append(out.block_line, walk.block_first_line, out.failed)
    if fast:
        append[uint8_t](out.block_fast, 1, out.failed)
        append[int64_t](out.block_fast_index, out.morpheme_ptr.size() - 1, out.failed)
        append[int64_t](out.morpheme_ptr, out.surface.size(), out.failed)
        append[int64_t](out.chunk_ptr, out.head_start.size(), out.failed)
    else:
        append[uint8_t](out.block_fast, 0, out.failed)
        append[int64_t](out.block_fast_index, -1, out.failed)
    walk.block_begin = walk.position
    walk.block_first_line = walk.lines
    end[0] = walk.position
    n_lines[0] = walk.lines


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


# A format's scan of data[0:n] into out with its scanner (KnpLexicon, cabocha_scan's _Scanner):
# the complete blocks, the bytes and lines they end at into end and n_lines.
ctypedef void (*BlockScan)(const unsigned char* data, int64_t n, void* scanner, ScanBuffers* out,
                           int64_t* end, int64_t* n_lines) noexcept nogil

cdef bint is_valid_utf8(const unsigned char* data, int64_t n) noexcept nogil
cdef KnpScan run_scan(const unsigned char[::1] data, BlockScan scan, object scanner)
